//! What the pull switches share (PullSwitch, SimplePullSwitch,
//! StaticPullSwitch): the INPUT they pull from (-1 for none), its
//! argument and `switch` handler, and the "empty" notifier that passes on
//! the chosen input's. Each class's file holds its own pull.

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, HandlerDef, Notifier, PacketBatch};

use super::parse_int;
use super::switch::clamp_port;

/// The INPUT argument, positional (`mandatory` for StaticPullSwitch), as
/// an input number or -1.
pub(crate) fn read_input(
    conf: &[String],
    mandatory: bool,
    cx: &ConfigureCx,
) -> Result<i64, String> {
    let mut input: i64 = 0;
    let args = Args::new(conf);
    let args = if mandatory {
        args.read_mp("INPUT", &mut input)
    } else {
        args.read_p("INPUT", &mut input)
    };
    args.complete().map_err(|e| e.to_string())?;
    Ok(clamp_port(input, cx.ninputs()))
}

rclick_core::handlers! {
    /// The handlers of PullSwitch and SimplePullSwitch (their manuals'
    /// list).
    enum H {
        Switch = read_write("switch"),
    }
}

/// The handlers' definitions.
pub(crate) fn handlers() -> Vec<HandlerDef> {
    H::all_defs()
}

/// A handler's read, for INPUT `input`.
pub(crate) fn read_switch(id: u32, input: i64) -> Result<String, String> {
    match H::from_id(id) {
        Some(H::Switch) => Ok(input.to_string()),
        None => Err("no such handler".into()),
    }
}

/// A handler's write: the new INPUT, an input number or -1 for none (so
/// is any number that names no input).
pub(crate) fn write_switch(id: u32, value: &str, ninputs: usize) -> Result<i64, String> {
    match H::from_id(id) {
        Some(H::Switch) => {
            let n = parse_int::<i64>(value).ok_or("PullSwitch input must be integer")?;
            Ok(clamp_port(n, ninputs))
        }
        None => Err("no such handler".into()),
    }
}

/// Up to `max` packets from `input`; none when it is -1.
#[inline]
pub(crate) fn pull_input(input: i64, max: usize, cx: &mut Ctx) -> PacketBatch {
    if input < 0 {
        PacketBatch::new()
    } else {
        cx.pull(input as usize, max)
    }
}

/// A pull switch's "empty" notifier, following its input's signal: a
/// task woken by that signal wakes it, and a pull that finds nothing
/// while the signal is inactive puts it to sleep.
pub(crate) struct PassedNotifier(Notifier);

impl Default for PassedNotifier {
    fn default() -> Self {
        PassedNotifier(Notifier::new(false))
    }
}

impl PassedNotifier {
    /// The notifier.
    pub(crate) fn notifier(&self) -> &Notifier {
        &self.0
    }

    /// The task's run: wakes the notifier if the input may have packets.
    pub(crate) fn wake_if(&self, input_active: bool, cx: &mut Ctx) {
        if input_active && !self.0.active() {
            cx.wake_notifier(&self.0);
        }
    }

    /// After a pull that got `got` packets.
    #[inline]
    pub(crate) fn after_pull(&self, got: usize, input_active: bool) {
        if got > 0 {
            self.0.set_active(true);
        } else if !input_active {
            self.0.set_active(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_values() {
        let id = H::Switch.id();
        assert_eq!(write_switch(id, "1", 2), Ok(1));
        assert_eq!(write_switch(id, "2", 2), Ok(-1));
        assert_eq!(write_switch(id, "-5", 2), Ok(-1));
        assert!(write_switch(id, "x", 2).is_err());
        assert!(write_switch(id + 1, "1", 2).is_err());
        assert_eq!(read_switch(id, -1).unwrap(), "-1");
        assert_eq!(handlers().len(), 1);
    }

    #[test]
    fn notifier_follows_pulls() {
        let n = PassedNotifier::default();
        assert!(!n.notifier().active());
        n.after_pull(3, false);
        assert!(n.notifier().active());
        n.after_pull(0, true);
        assert!(n.notifier().active());
        n.after_pull(0, false);
        assert!(!n.notifier().active());
    }
}
