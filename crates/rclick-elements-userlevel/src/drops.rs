//! Per-reason drop counters for the elements that talk to the operating
//! system (KernelTun, Socket): each reason has a text, a count, and is
//! logged the first time it happens (or every time, when verbose).

use rclick_core::Ctx;

/// Counts of dropped packets by reason.
#[derive(Debug)]
pub(crate) struct DropCounter {
    reasons: &'static [&'static str],
    counts: Vec<u64>,
}

impl DropCounter {
    /// Counters for `reasons` (indexed by the callers' reason enums).
    pub(crate) fn new(reasons: &'static [&'static str]) -> DropCounter {
        DropCounter {
            reasons,
            counts: vec![0; reasons.len()],
        }
    }

    /// Counts `n` drops for `reason`. The first drop of each reason is
    /// logged as `WHO: dropped N packets: REASON[: DETAIL]`; with `verbose`,
    /// every one is.
    pub(crate) fn count(
        &mut self,
        reason: usize,
        n: u64,
        detail: Option<&str>,
        verbose: bool,
        who: &str,
        cx: &Ctx,
    ) {
        let Some(c) = self.counts.get_mut(reason) else {
            return;
        };
        if *c == 0 || verbose {
            let text = self.reasons[reason];
            let s = if n == 1 { "" } else { "s" };
            match detail {
                Some(d) => cx.log(format!("{who}: dropped {n} packet{s}: {text}: {d}")),
                None => cx.log(format!("{who}: dropped {n} packet{s}: {text}")),
            }
        }
        *c += n;
    }

    /// All drops.
    pub(crate) fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// One line per reason, `COUNT<TAB>REASON`, in declaration order.
    pub(crate) fn details(&self) -> String {
        let mut s = String::new();
        for (n, r) in self.counts.iter().zip(self.reasons) {
            s.push_str(&format!("{n}\t{r}\n"));
        }
        s
    }

    /// Sets every count to 0.
    pub(crate) fn reset(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
    }
}
