//! The LENGTH of the length adjusters (Strip, Unstrip, Truncate; Pad
//! reads it too), a byte count, and its handlers. Each class's file holds
//! what it does to a packet.

use rclick_core::args::Args;
use rclick_core::HandlerDef;

use super::parse_int;

rclick_core::handlers! {
    /// The handlers over LENGTH: Truncate has both names, Strip and
    /// Unstrip `length`.
    pub(crate) enum H {
        NBytes = read_write("nbytes"),
        Length = read_write("length"),
    }
}

/// LENGTH, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ByteLength(pub u32);

impl ByteLength {
    /// Reads LENGTH, mandatory and positional.
    pub(crate) fn read_arg<'a>(&'a mut self, args: Args<'a>) -> Args<'a> {
        args.read_mp("LENGTH", &mut self.0)
    }

    /// The definitions of `length` (and `nbytes` when `nbytes`).
    pub(crate) fn handlers(nbytes: bool) -> Vec<HandlerDef> {
        if nbytes {
            H::all_defs()
        } else {
            H::Length.defs()
        }
    }

    /// A handler's read.
    pub(crate) fn read(&self, id: u32) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::NBytes | H::Length) => Ok(self.0.to_string()),
            None => Err("no such handler".into()),
        }
    }

    /// A handler's write.
    pub(crate) fn write(&mut self, id: u32, value: &str) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::NBytes | H::Length) => {
                self.0 = parse_int::<u32>(value).ok_or("expected unsigned integer")?;
                Ok(())
            }
            None => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_and_handlers() {
        let mut l = ByteLength::default();
        l.read_arg(Args::new(&["14"])).complete().unwrap();
        assert_eq!(l, ByteLength(14));
        let mut m = ByteLength::default();
        assert!(m.read_arg(Args::new::<&str>(&[])).complete().is_err());
        let names = |defs: Vec<HandlerDef>| defs.into_iter().map(|d| d.name).collect::<Vec<_>>();
        assert_eq!(names(ByteLength::handlers(false)), ["length"]);
        assert_eq!(names(ByteLength::handlers(true)), ["nbytes", "length"]);
        l.write(H::Length.id(), "3").unwrap();
        assert_eq!(l.read(H::NBytes.id()).unwrap(), "3");
        assert_eq!(
            l.write(H::Length.id(), "-1").unwrap_err(),
            "expected unsigned integer"
        );
        assert!(l.read(7).is_err());
    }
}
