//! Configuration argument errors, worded as Click words them.

use std::fmt;

/// One problem with an element's configuration arguments.
///
/// The `Display` text is Click's (`lib/args.cc`): the keyword, a colon, and
/// what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgError {
    /// A mandatory argument was not supplied:
    /// `LIMIT: required argument missing`.
    Missing {
        /// The keyword of the missing argument.
        keyword: String,
    },
    /// An argument was supplied but did not parse: `LIMIT: expected integer`,
    /// `BURST: out of range, bound 255`.
    Invalid {
        /// The keyword of the argument.
        keyword: String,
        /// The offending value (without its keyword).
        text: String,
        /// What was wrong, from the type's parser.
        message: String,
    },
    /// A keyword argument that the element does not take:
    /// `FOO: unknown argument`.
    UnknownKeyword {
        /// The keyword as written.
        keyword: String,
        /// The whole argument as written.
        text: String,
    },
    /// More positional arguments than the element takes:
    /// `too many arguments`.
    TooManyArguments {
        /// The arguments that were left over, as written.
        extra: Vec<String>,
    },
}

impl ArgError {
    /// The keyword this error is about, if it is about one.
    pub fn keyword(&self) -> Option<&str> {
        match self {
            ArgError::Missing { keyword }
            | ArgError::Invalid { keyword, .. }
            | ArgError::UnknownKeyword { keyword, .. } => Some(keyword),
            ArgError::TooManyArguments { .. } => None,
        }
    }
}

/// Writes `KEYWORD: ` unless the keyword is empty (a purely positional read).
fn prefix(f: &mut fmt::Formatter<'_>, keyword: &str) -> fmt::Result {
    if keyword.is_empty() {
        Ok(())
    } else {
        write!(f, "{keyword}: ")
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Missing { keyword } => {
                prefix(f, keyword)?;
                f.write_str("required argument missing")
            }
            ArgError::Invalid {
                keyword, message, ..
            } => {
                prefix(f, keyword)?;
                f.write_str(message)
            }
            ArgError::UnknownKeyword { keyword, .. } => write!(f, "{keyword}: unknown argument"),
            ArgError::TooManyArguments { .. } => f.write_str("too many arguments"),
        }
    }
}

impl std::error::Error for ArgError {}

/// Every error found while parsing one element's arguments, in the order
/// Click reports them (reads in order, then unknown keywords, then
/// `too many arguments`).  `Display` prints one error per line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArgErrors(pub Vec<ArgError>);

impl ArgErrors {
    /// The individual errors.
    pub fn errors(&self) -> &[ArgError] {
        &self.0
    }

    /// The number of errors.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True if there are no errors (never the case for a returned `Err`).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Iterates over the errors.
    pub fn iter(&self) -> std::slice::Iter<'_, ArgError> {
        self.0.iter()
    }
}

impl fmt::Display for ArgErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgErrors {}

impl IntoIterator for ArgErrors {
    type Item = ArgError;
    type IntoIter = std::vec::IntoIter<ArgError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a ArgErrors {
    type Item = &'a ArgError;
    type IntoIter = std::slice::Iter<'a, ArgError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<ArgError> for ArgErrors {
    fn from(e: ArgError) -> Self {
        ArgErrors(vec![e])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_texts() {
        let missing = ArgError::Missing {
            keyword: "LIMIT".into(),
        };
        assert_eq!(missing.to_string(), "LIMIT: required argument missing");
        let invalid = ArgError::Invalid {
            keyword: "LIMIT".into(),
            text: "x".into(),
            message: "expected integer".into(),
        };
        assert_eq!(invalid.to_string(), "LIMIT: expected integer");
        let unknown = ArgError::UnknownKeyword {
            keyword: "FOO".into(),
            text: "FOO 1".into(),
        };
        assert_eq!(unknown.to_string(), "FOO: unknown argument");
        let many = ArgError::TooManyArguments {
            extra: vec!["1".into()],
        };
        assert_eq!(many.to_string(), "too many arguments");
        let anonymous = ArgError::Missing {
            keyword: String::new(),
        };
        assert_eq!(anonymous.to_string(), "required argument missing");

        assert_eq!(missing.keyword(), Some("LIMIT"));
        assert_eq!(many.keyword(), None);

        let all = ArgErrors(vec![missing, invalid, unknown, many]);
        assert_eq!(
            all.to_string(),
            "LIMIT: required argument missing\nLIMIT: expected integer\n\
             FOO: unknown argument\ntoo many arguments"
        );
        assert_eq!(all.len(), 4);
        assert!(!all.is_empty());
        assert_eq!(all.iter().count(), 4);
        assert_eq!((&all).into_iter().count(), 4);
        assert_eq!(all.clone().into_iter().count(), 4);
        assert_eq!(all.errors().len(), 4);
        let one: ArgErrors = ArgError::Missing {
            keyword: "X".into(),
        }
        .into();
        assert_eq!(one.len(), 1);
    }
}
