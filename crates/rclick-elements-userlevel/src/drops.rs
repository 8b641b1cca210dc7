//! How the elements that talk to the operating system (KernelTun, ToHost,
//! Socket, RawSocket) count and log a drop. The counters are core's
//! [`Drops`], each element's reasons a
//! [`drop_reasons!`](rclick_core::drop_reasons) enum; this adds their
//! common log line.

use rclick_core::drops::{DropReason, Drops};
use rclick_core::Ctx;

/// Counts `n` drops for `reason`. The first drop of each reason is logged
/// as `WHO: dropped N packets: REASON[: DETAIL]`; with `verbose`, every one
/// is.
pub(crate) fn count<R: DropReason>(
    drops: &mut Drops<R>,
    reason: R,
    n: u64,
    detail: Option<&str>,
    verbose: bool,
    who: &str,
    cx: &Ctx,
) {
    // Logged when nothing was counted for `reason` yet, as before the
    // counters moved to core (a zero-packet drop included).
    let first = drops.get(reason) == 0;
    drops.count(reason, n);
    if first || verbose {
        cx.log(line(who, n, reason.text(), detail));
    }
}

/// The log line for `n` drops.
fn line(who: &str, n: u64, text: &str, detail: Option<&str>) -> String {
    let s = if n == 1 { "" } else { "s" };
    match detail {
        Some(d) => format!("{who}: dropped {n} packet{s}: {text}: {d}"),
        None => format!("{who}: dropped {n} packet{s}: {text}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_name_the_count_reason_and_detail() {
        assert_eq!(
            line("ToHost(tap0)", 1, "write error", Some("EIO")),
            "ToHost(tap0): dropped 1 packet: write error: EIO"
        );
        assert_eq!(
            line("KernelTun(tun0)", 3, "not IP", None),
            "KernelTun(tun0): dropped 3 packets: not IP"
        );
    }
}
