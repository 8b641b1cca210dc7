//! The directives: `require(...)` (with `library FILE`, read once each)
//! and `define(...)`.

use super::*;

impl Parser<'_> {
    pub(super) fn yrequire(&mut self) {
        if !self.lx.expect_char(b'(', true) {
            return;
        }
        let text = self.lx.lex_config();
        self.lx.expect_char(b')', true);
        self.lx.expect_char(b';', false);
        for arg in split_args(&text) {
            let mut words = split_space(&arg);
            if words.is_empty() {
                continue;
            }
            let mut ty = parse_word(&words[0]).unwrap_or_default();
            if !ty.is_empty()
                && !matches!(ty.as_str(), "compact_config" | "package" | "library")
                && words.len() == 1
            {
                words.push(ty.clone());
                ty = "package".into();
            }
            let value = if ty == "compact_config" && words.len() == 1 {
                String::new()
            } else if (ty == "package" || ty == "library") && words.len() == 2 {
                match parse_string(&words[1]) {
                    Some(v) => v,
                    None => {
                        self.error("syntax error at requirement");
                        continue;
                    }
                }
            } else {
                self.error("syntax error at requirement");
                continue;
            };
            if ty == "library" {
                self.read_library(&value);
                continue;
            }
            self.requirements.push((ty, value));
        }
    }

    /// `require(library FILE)`: reads FILE (relative to the directory of
    /// the file being read) and parses its statements here, so its element
    /// classes become available. A library is read once.
    pub(super) fn read_library(&mut self, name: &str) {
        let current = self.lx.landmark().file;
        let base = std::path::Path::new(&*current)
            .parent()
            .filter(|_| &*current != "config" && !current.starts_with('<'))
            .map(|p| p.to_path_buf())
            .unwrap_or_default();
        let path = base.join(name);
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if self.libraries.contains(&key) {
            return;
        }
        let text = match std::fs::read(&path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                self.error(format!("library '{}': {}", path.display(), io_text(&e)));
                return;
            }
        };
        self.libraries.push(key);
        // The library's text must outlive the parser's tokens; a
        // configuration reads a handful of libraries once, so keeping them
        // for the life of the process costs little.
        let text: &'static str = Box::leak(text.into_boxed_str());
        let lib = Lexer::new(text, &path.to_string_lossy());
        let saved = std::mem::replace(&mut self.lx, lib);
        while self.ystatement(Ctx::File) {}
        let lib = std::mem::replace(&mut self.lx, saved);
        for d in lib.diags {
            crate::push_diagnostic(&mut self.lx.diags, d);
        }
    }

    pub(super) fn ydefine(&mut self) {
        if !self.lx.expect_char(b'(', true) {
            return;
        }
        let text = self.lx.lex_config();
        self.lx.expect_char(b')', true);
        for arg in split_args(&text) {
            if arg.is_empty() {
                continue;
            }
            let (var, rest) = crate::confparse::shift_spacevec(arg.as_bytes());
            let ok = var.len() >= 2
                && var[0] == b'$'
                && var[1..]
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || *c == b'_');
            if !ok {
                self.error("bad 'define' declaration: not a variable");
                continue;
            }
            let name = String::from_utf8_lossy(&var[1..]).into_owned();
            let value = String::from_utf8_lossy(&rest).into_owned();
            self.define_in_scope(&name, &value, false);
        }
    }
}

fn io_text(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory",
        std::io::ErrorKind::PermissionDenied => "Permission denied",
        _ => "cannot read",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Parser<'_> {
        let mut p = Parser::new(text, "t.click");
        p.parse();
        p
    }

    #[test]
    fn require_collects_its_pairs() {
        // A bare word is a package, as in Click.
        let p = parse("require(package \"foo\", userlevel);\n");
        assert!(p.lx.diags.is_empty(), "{:?}", p.lx.diags);
        assert_eq!(
            p.requirements,
            [
                ("package".to_string(), "foo".to_string()),
                ("package".to_string(), "userlevel".to_string())
            ]
        );
    }

    #[test]
    fn define_adds_to_the_file_scope() {
        let p = parse("define($x 1, $y hello world);\n");
        assert!(p.lx.diags.is_empty(), "{:?}", p.lx.diags);
        let file = &p.stack[0];
        let value = |n: &str| {
            let i = file
                .scope_names
                .iter()
                .position(|s| s == n.trim_start_matches('$'))
                .unwrap();
            file.scope_values[i].clone()
        };
        assert_eq!(value("$x"), "1");
        assert_eq!(value("$y"), "hello world");
    }

    #[test]
    fn missing_library_is_an_error_naming_the_file() {
        let p = parse("require(library /nonexistent/lib.click);\n");
        let msgs: Vec<String> = p.lx.diags.iter().map(|d| d.to_string()).collect();
        assert!(
            msgs.iter()
                .any(|m| m.contains("lib.click") && m.contains("No such file")),
            "{msgs:?}"
        );
    }
}
