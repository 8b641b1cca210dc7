//! The handler set file sources share: FromIPSummaryDump (in
//! rclick-elements-analysis) and FromTcpdump (in rclick-elements-userlevel)
//! offer Click's `sampling_prob`, `active`, `encap`, `stop` and `filename`
//! (FromTcpdump `filesize` and `filepos` too), and switch themselves on and
//! off alike. The two crates do not depend on each other, so the table and
//! the switch are here.
//!
//! [`FileSourceH`] is the table (each source offers the entries it has and
//! answers the reads that are its own); [`FileSource`] is the state behind
//! `active` and `stop`: whether the source runs, and how it is woken (its
//! task when it pushes, its empty notifier when it is pulled).
//!
//! FromDump does not use it: its `filepos` is writable and its `active`
//! write moves more state (timing, the end action).

use crate::{Ctx, HandlerDef, InitCx, Notifier, TaskId};

crate::handlers! {
    /// The file sources' handlers, in the order their manuals list them.
    pub enum FileSourceH {
        SamplingProb = read("sampling_prob"),
        Active = read_write("active"),
        Encap = read("encap"),
        Stop = write("stop"),
        Filename = read("filename"),
        Filesize = read("filesize"),
        Filepos = read("filepos"),
    }
}

impl FileSourceH {
    /// The definitions of `these` handlers, in that order: what a source's
    /// `Element::handlers` returns.
    pub fn defs_of(these: &[FileSourceH]) -> Vec<HandlerDef> {
        these.iter().flat_map(|h| h.defs()).collect()
    }
}

/// Whether a file source runs, and how it is woken.
#[derive(Debug)]
pub struct FileSource {
    /// Whether the source emits packets (ACTIVE, the `active` handler).
    pub active: bool,
    /// Whether output 0 is pulled (set by [`initialize`](Self::initialize)).
    pub pull_mode: bool,
    /// The task of a push source.
    pub task: Option<TaskId>,
    /// The empty notifier of a pull source: active while packets may come.
    pub notifier: Notifier,
}

impl Default for FileSource {
    fn default() -> FileSource {
        FileSource {
            active: true,
            pull_mode: false,
            task: None,
            notifier: Notifier::new(true),
        }
    }
}

impl FileSource {
    /// Sets the mode from output 0 and makes the notifier and (when
    /// pushing) the task, scheduled if the source is active.
    pub fn initialize(&mut self, cx: &mut InitCx) {
        self.pull_mode = !cx.output_is_push(0);
        self.notifier = Notifier::new(self.active);
        if !self.pull_mode {
            self.task = Some(cx.new_task(self.active));
        }
    }

    /// Reads the handler the switch answers: `active`; `None` for the
    /// others, which are the source's own.
    pub fn read(&self, h: FileSourceH) -> Option<String> {
        (h == FileSourceH::Active).then(|| self.active.to_string())
    }

    /// Writes `active` (a boolean, else the error `bad`: the sources word it
    /// differently) or `stop` (inactive, and the driver stops).
    pub fn write(
        &mut self,
        h: FileSourceH,
        value: &str,
        bad: &str,
        cx: &mut Ctx,
    ) -> Result<(), String> {
        match h {
            FileSourceH::Active => {
                let pull = self.pull_mode.then_some(&self.notifier);
                cx.write_source_active(value, bad, &mut self.active, pull, self.task)
            }
            FileSourceH::Stop => {
                self.active = false;
                cx.request_stop();
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FileSource, FileSourceH};
    use crate::{Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, Registry, TaskId};

    /// A source that sends one packet a run while active.
    #[derive(Default)]
    struct Src {
        src: FileSource,
        sent: u32,
    }

    impl Element for Src {
        fn class_name(&self) -> &'static str {
            "Dump"
        }
        fn port_count(&self) -> &'static str {
            "0/1"
        }
        fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
            self.src.initialize(cx);
            Ok(())
        }
        fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
            if !self.src.active || self.sent >= 3 {
                return false;
            }
            self.sent += 1;
            cx.push_one(0, Packet::from_slice(&[0; 20]));
            cx.reschedule();
            true
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            FileSourceH::defs_of(&[FileSourceH::Active, FileSourceH::Stop])
        }
        fn read_handler(&mut self, id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            FileSourceH::from_id(id)
                .and_then(|h| self.src.read(h))
                .ok_or_else(|| "no such handler".into())
        }
        fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
            let h = FileSourceH::from_id(id).ok_or("no such handler")?;
            self.src.write(h, value, "type mismatch", cx)
        }
    }

    /// Discards what it is pushed.
    #[derive(Default)]
    struct Sink;

    impl Element for Sink {
        fn class_name(&self) -> &'static str {
            "Sink"
        }
        fn port_count(&self) -> &'static str {
            "1/0"
        }
        fn push(&mut self, _port: usize, _batch: PacketBatch, _cx: &mut Ctx) {}
    }

    fn build() -> crate::Router {
        let mut r = Registry::new();
        r.add("Dump", || Box::<Src>::default(), "");
        r.add("Sink", || Box::<Sink>::default(), "");
        crate::testing::build("s :: Dump -> Sink;", &r, true).unwrap()
    }

    #[test]
    fn table_and_subsets() {
        let names: Vec<String> = FileSourceH::defs_of(&[FileSourceH::Stop, FileSourceH::Encap])
            .into_iter()
            .map(|d| d.name.into_owned())
            .collect();
        assert_eq!(names, ["stop", "encap"]);
        assert!(FileSourceH::Active.defs()[0].flags.write);
        assert!(!FileSourceH::Filepos.defs()[0].flags.write);
        let s = FileSource::default();
        assert!(s.active && !s.pull_mode && s.task.is_none());
        assert_eq!(s.read(FileSourceH::Active).as_deref(), Some("true"));
        assert_eq!(s.read(FileSourceH::Encap), None);
    }

    #[test]
    fn active_and_stop_handlers() {
        let r = build();
        assert_eq!(crate::testing::read(&r, "s.active"), "true");
        r.write_handler("s.active", "false // off").unwrap();
        assert_eq!(crate::testing::read(&r, "s.active"), "false");
        assert_eq!(
            r.write_handler("s.active", "maybe").unwrap_err(),
            "type mismatch"
        );
        assert_eq!(crate::testing::read(&r, "s.active"), "false");
        r.write_handler("s.active", "true").unwrap();
        let before = r.runcount();
        r.write_handler("s.stop", "").unwrap();
        assert_eq!(crate::testing::read(&r, "s.active"), "false");
        assert_eq!(r.runcount(), before - 1);
    }
}
