//! What InfiniteSource and RandomSource share (each of Click's sources
//! keeps a copy): the LIMIT, BURST, ACTIVE, TIMESTAMP, STOP and END_CALL
//! keywords, the count of packets sent, the push-mode task that sleeps
//! while everything downstream is full, the pull-mode "empty" notifier,
//! and the handler writes over them. Each class's file makes its packets
//! and holds its own task run and pull, which call [`Source`].

use rclick_core::args::{AnyArg, Args};
use rclick_core::{Ctx, InitCx, Notifier, NotifierSignal, TaskId};

use super::{check_length, parse_bool, parse_int, wake_source, SourceEnd};

/// A source's sending state.
pub(crate) struct Source {
    /// LIMIT: packets to send in all; negative means no limit.
    pub(crate) limit: i64,
    /// BURST: packets a task run sends (≥ 1).
    pub(crate) burst: u32,
    /// ACTIVE.
    pub(crate) active: bool,
    /// TIMESTAMP: whether packets get the current time.
    pub(crate) timestamp: bool,
    /// Packets sent so far.
    pub(crate) count: u64,
    end: SourceEnd,
    task: Option<TaskId>,
    nonfull: NotifierSignal,
    notifier: Notifier,
}

impl Default for Source {
    fn default() -> Self {
        Source {
            limit: -1,
            burst: 1,
            active: true,
            timestamp: true,
            count: 0,
            end: SourceEnd::default(),
            task: None,
            nonfull: NotifierSignal::Busy,
            notifier: Notifier::new(true),
        }
    }
}

/// The keywords [`Source`] takes, as read (checked by
/// [`Source::configure`]).
pub(crate) struct SourceArgs {
    limit: i64,
    burst: i64,
    active: bool,
    timestamp: bool,
    stop: bool,
    end_call: AnyArg,
}

impl Default for SourceArgs {
    fn default() -> Self {
        SourceArgs {
            limit: -1,
            burst: 1,
            active: true,
            timestamp: true,
            stop: false,
            end_call: AnyArg::default(),
        }
    }
}

impl SourceArgs {
    /// Reads LIMIT, BURST and ACTIVE (positional, after what `args` has
    /// read already), TIMESTAMP, what `between` reads, STOP and END_CALL.
    pub(crate) fn read<'a>(
        &'a mut self,
        args: Args<'a>,
        between: impl FnOnce(Args<'a>) -> Args<'a>,
    ) -> Args<'a> {
        let args = args
            .read_p("LIMIT", &mut self.limit)
            .read_p("BURST", &mut self.burst)
            .read_p("ACTIVE", &mut self.active)
            .read("TIMESTAMP", &mut self.timestamp);
        between(args)
            .read("STOP", &mut self.stop)
            .read("END_CALL", &mut self.end_call)
    }
}

/// LENGTH and its deprecated synonym DATASIZE (InfiniteSource,
/// RatedSource), as read.
pub(crate) struct LengthArgs {
    length: i64,
    /// `i64::MIN` when not given.
    datasize: i64,
}

impl Default for LengthArgs {
    fn default() -> Self {
        LengthArgs {
            length: -1,
            datasize: i64::MIN,
        }
    }
}

impl LengthArgs {
    /// Reads LENGTH and DATASIZE.
    pub(crate) fn read<'a>(&'a mut self, args: Args<'a>) -> Args<'a> {
        args.read("LENGTH", &mut self.length)
            .read("DATASIZE", &mut self.datasize)
    }

    /// The length (DATASIZE wins), checked; negative means DATA's.
    pub(crate) fn get(&self) -> Result<i64, String> {
        if self.datasize != i64::MIN {
            check_length(self.datasize)
        } else {
            check_length(self.length)
        }
    }
}

impl Source {
    /// Checks the keywords and takes them; the count starts again.
    pub(crate) fn configure(&mut self, a: SourceArgs) -> Result<(), String> {
        if a.burst < 1 {
            return Err("burst size must be >= 1".into());
        }
        let end = SourceEnd::new(a.stop, &a.end_call.0)?;
        self.limit = a.limit;
        self.burst = u32::try_from(a.burst).unwrap_or(u32::MAX);
        self.active = a.active;
        self.timestamp = a.timestamp;
        self.end = end;
        self.count = 0;
        Ok(())
    }

    /// In push mode, the task, which sleeps while everything downstream
    /// is full.
    pub(crate) fn initialize(&mut self, cx: &mut InitCx) {
        if cx.output_is_push(0) {
            let t = cx.new_task(true);
            self.task = Some(t);
            self.nonfull = cx.downstream_full_signal(0, Some(t));
        }
    }

    /// Whether the task may send: ACTIVE, and room downstream.
    #[inline]
    pub(crate) fn may_send(&self) -> bool {
        self.active && self.nonfull.active()
    }

    fn below_limit(&self) -> bool {
        self.limit < 0 || self.count < self.limit as u64
    }

    /// `want` cut to what LIMIT leaves.
    #[inline]
    fn quota(&self, want: u64) -> u64 {
        if self.limit >= 0 {
            want.min((self.limit as u64).saturating_sub(self.count))
        } else {
            want
        }
    }

    /// Packets to send for `runs` task runs (BURST each) and counts them;
    /// 0 once LIMIT is reached, and then STOP or END_CALL is done.
    #[inline]
    pub(crate) fn take_runs(&mut self, runs: u32, cx: &mut Ctx) -> u64 {
        let want = u64::from(self.burst.max(1)).saturating_mul(u64::from(runs));
        self.take(want, cx)
    }

    /// Packets to hand to a pull of `max` and counts them; 0 when
    /// inactive or at LIMIT, and then the "empty" notifier sleeps (and at
    /// LIMIT, STOP or END_CALL is done).
    pub(crate) fn take_pull(&mut self, max: usize, cx: &mut Ctx) -> u64 {
        if !self.active {
            self.notifier.set_active(false);
            return 0;
        }
        let n = self.take(max.max(1) as u64, cx);
        if n == 0 {
            self.notifier.set_active(false);
        }
        n
    }

    // Inlined into each source's task run: it is on the per-packet path.
    #[inline]
    fn take(&mut self, want: u64, cx: &mut Ctx) -> u64 {
        let n = self.quota(want);
        if n == 0 {
            self.nothing_to_take(cx);
        }
        self.count += n;
        n
    }

    /// Nothing left to send: at LIMIT, STOP or END_CALL is done.
    #[cold]
    #[inline(never)]
    fn nothing_to_take(&mut self, cx: &mut Ctx) {
        if !self.below_limit() {
            self.end.fire(cx);
        }
    }

    /// The pull-mode "empty" notifier.
    pub(crate) fn empty_notifier(&self) -> Notifier {
        self.notifier.clone()
    }

    /// The `limit` handler's write.
    pub(crate) fn write_limit(&mut self, value: &str) -> Result<(), String> {
        self.limit = parse_int::<i64>(value).ok_or("limit parameter must be integer")?;
        Ok(())
    }

    /// The write of the BURST handler called `name`.
    pub(crate) fn write_burst(&mut self, name: &str, value: &str) -> Result<(), String> {
        let b = parse_int::<u32>(value).filter(|&b| b >= 1);
        self.burst = b.ok_or_else(|| format!("{name} parameter must be integer >= 1"))?;
        Ok(())
    }

    /// The `active` handler's write.
    pub(crate) fn write_active(&mut self, value: &str) -> Result<(), String> {
        self.active = parse_bool(value).ok_or("active parameter must be boolean")?;
        Ok(())
    }

    /// Resumes after a handler changed something (Click's `change_param`
    /// tail): wakes the task or the notifier if there is more to send.
    pub(crate) fn resume(&mut self, cx: &mut Ctx) {
        if self.active && self.below_limit() {
            wake_source(self.task, &self.notifier, cx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configured(conf: &[&str]) -> Result<Source, String> {
        let mut a = SourceArgs::default();
        let mut x = 0i64;
        a.read(Args::new(conf), |args| args.read("X", &mut x))
            .complete()
            .map_err(|e| e.to_string())?;
        let mut s = Source::default();
        s.configure(a)?;
        Ok(s)
    }

    #[test]
    fn keywords_and_checks() {
        let s = configured(&["5", "3", "false", "TIMESTAMP false"]).unwrap();
        assert_eq!(
            (s.limit, s.burst, s.active, s.timestamp),
            (5, 3, false, false)
        );
        let s = configured(&["X 1"]).unwrap();
        assert_eq!(
            (s.limit, s.burst, s.active, s.timestamp),
            (-1, 1, true, true)
        );
        assert_eq!(
            configured(&["BURST 0"]).err().unwrap(),
            "burst size must be >= 1"
        );
        let e = configured(&["STOP true", "END_CALL x.y"]).err().unwrap();
        assert!(e.contains("mutually exclusive"), "{e}");
    }

    #[test]
    fn quota_follows_the_limit() {
        let mut s = configured(&["LIMIT 5"]).unwrap();
        assert!(s.below_limit());
        assert_eq!(s.quota(3), 3);
        s.count = 4;
        assert_eq!(s.quota(3), 1);
        s.count = 5;
        assert_eq!(s.quota(3), 0);
        assert!(!s.below_limit());
        s.limit = -1;
        assert_eq!(s.quota(u64::MAX), u64::MAX);
    }

    #[test]
    fn length_and_datasize() {
        let length = |conf: &[&str]| {
            let mut l = LengthArgs::default();
            l.read(Args::new(conf)).complete().unwrap();
            l.get()
        };
        assert_eq!(length(&[]), Ok(-1));
        assert_eq!(length(&["LENGTH 5"]), Ok(5));
        assert_eq!(length(&["DATASIZE 7", "LENGTH 5"]), Ok(7));
        assert!(length(&["LENGTH 99999999"]).is_err());
    }

    #[test]
    fn handler_writes() {
        let mut s = Source::default();
        s.write_limit("7").unwrap();
        assert_eq!(s.limit, 7);
        assert!(s.write_limit("x").is_err());
        s.write_burst("burst", "4").unwrap();
        assert_eq!(s.burst, 4);
        assert_eq!(
            s.write_burst("burstsize", "0").err().unwrap(),
            "burstsize parameter must be integer >= 1"
        );
        assert_eq!(s.burst, 4);
        s.write_active("false").unwrap();
        assert!(!s.active && !s.may_send());
        assert!(s.write_active("maybe").is_err());
    }
}
