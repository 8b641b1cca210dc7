//! # ProgressBar
//!
//! `ProgressBar(POSHANDLER [, SIZEHANDLER, KEYWORDS])`
//!
//! **Category:** userlevel. Draws a progress bar on standard error.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Reads how far the router has got from read handlers and draws a text
//! progress bar on standard error, redrawn in place every UPDATE seconds,
//! with the percentage done, the position and the time left.
//!
//! POSHANDLER and SIZEHANDLER are space-separated lists of read handlers
//! (`elem.handler`) that return unsigned integers; the position is the sum
//! of the POSHANDLER values, the size the sum of the SIZEHANDLER values,
//! read once when the bar first shows. Without SIZEHANDLER, FIXED_SIZE
//! gives the size; with neither, the size is unknown and the bar shows a
//! marker moving with the position. A handler that fails or returns
//! something other than an unsigned integer makes the value unknown for
//! that update (shown as `-----` and a bar of dashes). A handler named
//! `elem.handler` whose element or read handler does not exist is a
//! configuration error, found when the router initializes (Click's
//! wording: `no 'c.nothere' read handler`).
//!
//! The bar is drawn only while standard error is a terminal and the router
//! is its foreground process; otherwise nothing is printed. Its width is
//! the terminal's (80 columns if unknown). The first drawing shows the
//! elapsed time; later ones the estimated time left (`ETA`), or
//! `--:-- ETA` when it cannot be estimated, or `- stalled -` when the
//! position has not moved for 5 seconds (stalls do not count in the
//! elapsed time). When the router stops because its sources are done
//! (a `STOP true` source, Script's `stop`), or on `mark_done` or
//! `mark_stopped`, the bar is drawn a last time with the elapsed time and
//! a newline. A router ended by a signal leaves the bar as it was.
//!
//! Keywords:
//!
//! * `FIXED_SIZE` (nonnegative real): the size when there is no
//!   SIZEHANDLER. Default: none.
//! * `BANNER` (string): printed before the bar. Default empty.
//! * `UPDATE` (time): how often to redraw. Default 0.25 s.
//! * `ACTIVE` (boolean): draw at all. Default true.
//! * `DELAY` (time): wait this long before the first drawing, so quick
//!   jobs draw no bar. Default 0.
//!
//! ## Handlers
//!
//! * `pos` (read): the position now (the sum of the POSHANDLER values).
//! * `size` (read/write): the size, `-1` when unknown.
//! * `poshandler`, `sizehandler` (read/write): the handler lists.
//! * `banner` (read/write), `active` (read/write).
//! * `reset` (write): start again: size read anew, elapsed time from now.
//! * `mark_done` (write): the job is complete: the size becomes the last
//!   position and the bar is drawn a last time.
//! * `mark_stopped` (write): draw a last time as things stand.
//!
//! ## Examples
//!
//! ```text
//! f :: FromDump(big.pcap, STOP true) -> ...;
//! ProgressBar(f.filepos, f.filesize, BANNER big.pcap);
//! ```
//!
//! ## See also
//!
//! FromDump, Script

use std::io::Write;

use rclick_core::args::{parse_interval, Args};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, TimerId, Timestamp};

/// Seconds without progress that make the bar say it is stalled.
const STALL_SECS: f64 = 5.0;
/// The longest bar drawn.
const MAX_BAR: usize = 240;

/// Where the bar is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    First,
    Middle,
    Done,
}

/// What one drawing shows; [`render`] turns it into the line.
#[derive(Clone, Debug)]
struct View<'a> {
    banner: &'a str,
    pos: Option<u64>,
    size: Option<f64>,
    /// The size came from FIXED_SIZE: no position column.
    fixed: bool,
    phase: Phase,
    /// Seconds since the start, stalls excluded.
    elapsed: f64,
    stalled: bool,
    width: usize,
}

/// `MM:SS`, after the hours (`HH:`) or three spaces.
fn clock(secs: i64) -> String {
    let secs = secs.max(0);
    let (h, rest) = (secs / 3600, secs % 3600);
    let hours = if h > 0 {
        format!("{h:2}:")
    } else {
        "   ".to_string()
    };
    format!("{hours}{:02}:{:02}", rest / 60, rest % 60)
}

/// The line of one drawing: carriage return first, newline when done.
fn render(v: &View) -> String {
    let mut s = String::from("\r");
    if !v.banner.is_empty() {
        s.push_str(v.banner);
        s.push(' ');
    }
    // How far along, 0 to 100; `None` when the position is unknown.
    let therm: Option<usize> = v.pos.map(|pos| match v.size {
        None => {
            let t = ((pos / 100_000) % 200) as usize;
            if t > 100 {
                200 - t
            } else {
                t
            }
        }
        Some(size) if size > 0.0 => (100.0 * pos as f64 / size).clamp(0.0, 100.0) as usize,
        Some(_) => 100,
    });
    match (therm, v.size) {
        (Some(t), Some(_)) => s.push_str(&format!("{t:3}% ")),
        (None, Some(_)) => s.push_str("  -% "),
        _ => {}
    }
    let chars = s.chars().count();
    let mut bar = v.width as i64 - (chars as i64 + 25);
    if v.fixed {
        bar += 8;
    }
    let bar = bar.min(MAX_BAR as i64);
    if bar > 0 {
        let bar = bar as usize;
        s.push('|');
        match therm {
            None => s.push_str(&"-".repeat(bar)),
            Some(_) if v.size.is_none() && v.phase == Phase::Done => s.push_str(&"-".repeat(bar)),
            Some(t) if v.size.is_none() => {
                let mark = bar.min(3);
                let at = (bar - mark) * t / 100;
                s.push_str(&" ".repeat(at));
                s.push_str(&"*".repeat(mark));
                s.push_str(&" ".repeat(bar - mark - at));
            }
            Some(t) => {
                let n = bar * t / 100;
                s.push_str(&"*".repeat(n));
                s.push_str(&" ".repeat(bar - n));
            }
        }
        s.push('|');
    }
    if v.fixed {
        s.push(' ');
    } else {
        match v.pos {
            Some(pos) => {
                let (mut n, mut p) = (pos, 0);
                const PREFIXES: &[u8] = b" KMGTP";
                while n >= 100_000 && p + 1 < PREFIXES.len() {
                    n >>= 10;
                    p += 1;
                }
                let unit = if p == 0 { ' ' } else { 'B' };
                s.push_str(&format!(" {n:5}{}{unit} ", PREFIXES[p] as char));
            }
            None => s.push_str(" -----   "),
        }
    }
    let pos = v.pos.map(|p| p as f64);
    let known = matches!((pos, v.size), (Some(p), Some(size)) if p <= size);
    if v.phase != Phase::Done && !known {
        s.push_str("   --:-- ETA");
    } else if v.phase == Phase::Done || v.elapsed <= 0.0 {
        s.push_str(&clock(v.elapsed as i64));
        s.push_str("    ");
    } else if v.stalled {
        s.push_str(" - stalled -");
    } else {
        match (pos, v.size) {
            (Some(p), Some(size)) if p > 0.0 => {
                let left = size / (p / v.elapsed) - v.elapsed;
                s.push_str(&clock(left as i64));
                s.push_str(" ETA");
            }
            _ => s.push_str("   --:-- ETA"),
        }
    }
    if v.phase == Phase::Done {
        s.push('\n');
    }
    s
}

/// Standard error is a terminal whose foreground is this process.
fn foreground() -> bool {
    // SAFETY: isatty, tcgetpgrp and getpgrp take a descriptor number or
    // nothing, and only report; no memory is passed.
    unsafe { libc::isatty(2) == 1 && libc::tcgetpgrp(2) == libc::getpgrp() }
}

/// The terminal's width in columns (80 if unknown).
fn tty_width() -> usize {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct we pass,
    // which lives for the call.
    let r = unsafe { libc::ioctl(2, libc::TIOCGWINSZ, &mut ws as *mut libc::winsize) };
    if r == 0 && ws.ws_col > 0 {
        ws.ws_col as usize
    } else {
        80
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Pos = read("pos"),
        Size = read_write("size"),
        Poshandler = read_write("poshandler"),
        Sizehandler = read_write("sizehandler"),
        Banner = read_write("banner"),
        Active = read_write("active"),
        Reset = write("reset"),
        MarkDone = write("mark_done"),
        MarkStopped = write("mark_stopped"),
    }
}

/// Click's ProgressBar. See the module documentation.
pub struct ProgressBar {
    pos_handlers: Vec<String>,
    size_handlers: Vec<String>,
    fixed_size: Option<f64>,
    banner: String,
    update: Timestamp,
    delay: Timestamp,
    active: bool,
    size: Option<f64>,
    phase: Phase,
    start: Timestamp,
    last_move: Timestamp,
    last_pos: u64,
    stall: f64,
    timer: Option<TimerId>,
}

impl Default for ProgressBar {
    fn default() -> Self {
        ProgressBar {
            pos_handlers: Vec::new(),
            size_handlers: Vec::new(),
            fixed_size: None,
            banner: String::new(),
            update: Timestamp::from_msec(250),
            delay: Timestamp::from_sec(0),
            active: true,
            size: None,
            phase: Phase::First,
            start: Timestamp::from_sec(0),
            last_move: Timestamp::from_sec(0),
            last_pos: 0,
            stall: 0.0,
            timer: None,
        }
    }
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// The sum of the handlers' values; `None` if any is unknown or there are
/// none.
fn sum(handlers: &[String], cx: &mut Ctx) -> Option<u64> {
    if handlers.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    for h in handlers {
        let v = cx.call_read(h, "").ok()?;
        total = total.saturating_add(v.trim().parse::<u64>().ok()?);
    }
    Some(total)
}

/// Checks that `spec` names an existing read handler of an element.
fn check_handler(spec: &str, cx: &mut InitCx) -> Result<(), String> {
    let Some((elem, name)) = spec.rsplit_once('.') else {
        return Ok(()); // a global handler: checked when read
    };
    let missing = || format!("no '{spec}' read handler");
    let e = cx.find(elem).ok_or_else(missing)?;
    if matches!(name, "name" | "class" | "config" | "ports" | "handlers") {
        return Ok(());
    }
    let found = cx
        .with_element(e, |el| {
            el.handlers().iter().any(|h| h.name == name && h.flags.read)
        })
        .unwrap_or(true);
    if found {
        Ok(())
    } else {
        Err(missing())
    }
}

fn interval(what: &str, s: &str) -> Result<Timestamp, String> {
    let i = parse_interval(s).map_err(|e| format!("{what}: {e}"))?;
    if i.as_nanos() < 0 {
        return Err(format!("{what}: must not be negative"));
    }
    Ok(Timestamp::from_nsec(i.as_nanos()))
}

impl ProgressBar {
    fn draw(&mut self, cx: &mut Ctx) {
        if !self.active {
            return;
        }
        let now = cx.now();
        if self.phase == Phase::First {
            self.size = if self.size_handlers.is_empty() {
                self.fixed_size
            } else {
                sum(&self.size_handlers, cx).map(|s| s as f64)
            };
            self.start = now;
            self.last_move = now;
            self.last_pos = 0;
            self.stall = 0.0;
        }
        let pos = sum(&self.pos_handlers, cx);
        let mut waited = now.saturating_sub(self.last_move).as_secs_f64();
        if let Some(p) = pos {
            if p > self.last_pos {
                if waited >= STALL_SECS {
                    self.stall += waited;
                }
                self.last_move = now;
                self.last_pos = p;
                waited = 0.0;
            }
        }
        if foreground() {
            let line = render(&View {
                banner: &self.banner,
                pos,
                size: self.size,
                fixed: self.size_handlers.is_empty() && self.fixed_size.is_some(),
                phase: self.phase,
                elapsed: now.saturating_sub(self.start).as_secs_f64() - self.stall,
                stalled: waited >= STALL_SECS,
                width: tty_width(),
            });
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(line.as_bytes());
            let _ = err.flush();
        }
        match self.phase {
            Phase::Done => self.active = false,
            _ => {
                self.phase = Phase::Middle;
                if let Some(t) = self.timer {
                    cx.schedule_timer_after(t, self.update);
                }
            }
        }
    }

    fn complete(&mut self, full: bool, cx: &mut Ctx) {
        if full {
            self.size = Some(self.last_pos as f64);
        }
        if self.phase != Phase::Done && self.active && self.phase != Phase::First {
            self.phase = Phase::Done;
            if let Some(t) = self.timer {
                cx.unschedule_timer(t);
            }
            self.draw(cx);
        }
    }
}

impl Element for ProgressBar {
    fn class_name(&self) -> &'static str {
        "ProgressBar"
    }

    fn port_count(&self) -> &'static str {
        "0/0"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut pos = String::new();
        let mut size = String::new();
        let mut fixed: f64 = 0.0;
        let mut fixed_given = false;
        let mut banner = String::new();
        let mut update = String::from("0.25");
        let mut active = true;
        let mut delay = String::from("0");
        Args::new(conf)
            .read_mp("POSHANDLER", &mut pos)
            .read_p("SIZEHANDLER", &mut size)
            .read("FIXED_SIZE", &mut fixed)
            .read_status(&mut fixed_given)
            .read("BANNER", &mut banner)
            .read("UPDATE", &mut update)
            .read("ACTIVE", &mut active)
            .read("DELAY", &mut delay)
            .complete()
            .map_err(|e| e.to_string())?;
        if fixed_given && !(fixed >= 0.0 && fixed.is_finite()) {
            return Err("FIXED_SIZE: must be a nonnegative number".into());
        }
        let update = interval("UPDATE", &update)?;
        if update.is_zero() {
            return Err("UPDATE: must be positive".into());
        }
        self.pos_handlers = words(&pos);
        if self.pos_handlers.is_empty() {
            return Err("POSHANDLER: no handlers given".into());
        }
        self.size_handlers = words(&size);
        self.fixed_size = fixed_given.then_some(fixed);
        self.banner = banner;
        self.update = update;
        self.delay = interval("DELAY", &delay)?;
        self.active = active;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        for h in self.pos_handlers.iter().chain(&self.size_handlers) {
            check_handler(h, cx)?;
        }
        cx.register_stop_handler();
        let t = cx.new_timer();
        self.timer = Some(t);
        if self.active {
            cx.schedule_timer_after(t, self.delay);
        }
        Ok(())
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        self.draw(cx);
    }

    fn handle_stop(&mut self, cx: &mut Ctx) -> bool {
        // The router is stopping: the last drawing, as Click's cleanup
        // does. The stop is not ours to take.
        self.complete(false, cx);
        false
    }

    fn cleanup(&mut self, cx: &mut Ctx) {
        self.complete(false, cx);
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Pos) => sum(&self.pos_handlers, cx).map_or("-1".into(), |p| p.to_string()),
            Some(H::Size) => self.size.map_or("-1".into(), |s| s.to_string()),
            Some(H::Poshandler) => self.pos_handlers.join(" "),
            Some(H::Sizehandler) => self.size_handlers.join(" "),
            Some(H::Banner) => self.banner.clone(),
            Some(H::Active) => self.active.to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let v = value.trim();
        match H::from_id(id) {
            Some(H::Size) => {
                let s: f64 = v
                    .parse()
                    .map_err(|_| "size: expected a nonnegative number")?;
                if !(s >= 0.0 && s.is_finite()) {
                    return Err("size: expected a nonnegative number".into());
                }
                self.size = Some(s);
            }
            Some(H::Poshandler) => {
                let w = words(v);
                if w.is_empty() {
                    return Err("poshandler: no handlers given".into());
                }
                self.pos_handlers = w;
            }
            Some(H::Sizehandler) => {
                self.size_handlers = words(v);
                self.size = None;
                if self.phase != Phase::First {
                    self.size = sum(&self.size_handlers, cx).map(|s| s as f64);
                }
            }
            Some(H::Banner) => self.banner = v.to_string(),
            Some(H::Active) => {
                self.active = match v {
                    "true" | "1" | "yes" => true,
                    "false" | "0" | "no" => false,
                    _ => return Err("active: expected boolean".into()),
                };
                if let (true, Some(t)) = (self.active, self.timer) {
                    if cx.timer_expiry(t).is_none() {
                        cx.schedule_timer_after(t, Timestamp::from_sec(0));
                    }
                }
            }
            Some(H::Reset) => {
                self.phase = Phase::First;
                self.active = true;
                if let Some(t) = self.timer {
                    cx.schedule_timer_after(t, Timestamp::from_sec(0));
                }
            }
            Some(H::MarkDone) => self.complete(true, cx),
            Some(H::MarkStopped) => self.complete(false, cx),
            _ => return Err("no such handler".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::test_util::{build_err, registry};
    use rclick_core::testing;

    fn view(
        pos: Option<u64>,
        size: Option<f64>,
        fixed: bool,
        phase: Phase,
        elapsed: f64,
    ) -> String {
        render(&View {
            banner: "",
            pos,
            size,
            fixed,
            phase,
            elapsed,
            stalled: false,
            width: 80,
        })
    }

    /// Lines recorded from Click on an 80-column terminal.
    #[test]
    fn lines_match_click() {
        let bar = |n: usize, w: usize| format!("{}{}", "*".repeat(n), " ".repeat(w - n));
        // FIXED_SIZE 5, BANNER hi.
        let v = |pos, phase| {
            render(&View {
                banner: "hi",
                pos: Some(pos),
                size: Some(5.0),
                fixed: true,
                phase,
                elapsed: if phase == Phase::First { 0.0 } else { 0.1 },
                stalled: false,
                width: 80,
            })
        };
        assert_eq!(
            v(0, Phase::First),
            format!("\rhi   0% |{}|    00:00    ", bar(0, 54))
        );
        assert_eq!(
            v(1, Phase::Middle),
            format!("\rhi  20% |{}|    00:00 ETA", bar(10, 54))
        );
        assert_eq!(
            v(3, Phase::Middle),
            format!("\rhi  60% |{}|    00:00 ETA", bar(32, 54))
        );
        assert_eq!(
            v(5, Phase::Done),
            format!("\rhi 100% |{}|    00:00    \n", bar(54, 54))
        );
        // FIXED_SIZE 5000000, no banner: hours in the estimate
        // (5e6 / (1 / 0.1088) - 0.1088 = 543999.9 s).
        assert_eq!(
            view(Some(1), Some(5e6), true, Phase::Middle, 0.1088),
            format!("\r  0% |{}| 151:06:39 ETA", bar(0, 57))
        );
        // No size: a moving marker, the position, no estimate, also at
        // first; dashes at the end.
        assert_eq!(
            view(Some(0), None, false, Phase::First, 0.0),
            format!("\r|***{}|     0      --:-- ETA", " ".repeat(51))
        );
        assert_eq!(
            view(Some(2), None, false, Phase::Middle, 0.2),
            format!("\r|***{}|     2      --:-- ETA", " ".repeat(51))
        );
        assert_eq!(
            view(Some(3), None, false, Phase::Done, 0.3),
            format!("\r|{}|     3      00:00    \n", "-".repeat(54))
        );
        // SIZEHANDLER that reads 0: always 100%.
        assert_eq!(
            view(Some(0), Some(0.0), false, Phase::First, 0.0),
            format!("\r100% |{}|     0      00:00    ", bar(49, 49))
        );
        assert_eq!(
            view(Some(2), Some(0.0), false, Phase::Middle, 0.2),
            format!("\r100% |{}|     2      --:-- ETA", bar(49, 49))
        );
    }

    #[test]
    fn unknown_values_large_positions_and_stalls() {
        assert_eq!(
            view(None, Some(10.0), false, Phase::Middle, 1.0),
            format!("\r  -% |{}| -----      --:-- ETA", "-".repeat(49))
        );
        let line = view(Some(5 << 20), None, false, Phase::Middle, 1.0);
        assert!(line.contains("  5120KB "), "{line}");
        let line = render(&View {
            banner: "",
            pos: Some(5),
            size: Some(10.0),
            fixed: true,
            phase: Phase::Middle,
            elapsed: 7.0,
            stalled: true,
            width: 80,
        });
        assert!(line.ends_with("|  - stalled -"), "{line}");
        // A narrow terminal: no bar, no panic.
        let line = render(&View {
            banner: "a very long banner that fills the line",
            pos: Some(5),
            size: Some(10.0),
            fixed: false,
            phase: Phase::Middle,
            elapsed: 1.0,
            stalled: false,
            width: 20,
        });
        assert!(!line.contains('|'), "{line}");
        assert_eq!(clock(3599), "   59:59");
        assert_eq!(clock(3600), " 1:00:00");
    }

    /// Checked against Click: the handlers' values before the bar shows,
    /// and the error for a handler that does not exist.
    #[test]
    fn handlers_and_errors() {
        let r = testing::build(
            "c :: Counter; Idle -> c -> Discard; pb :: ProgressBar(c.count, BANNER x);",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "pb.pos"), "0");
        assert_eq!(testing::read(&r, "pb.size"), "-1");
        assert_eq!(testing::read(&r, "pb.active"), "true");
        assert_eq!(testing::read(&r, "pb.banner"), "x");
        assert_eq!(testing::read(&r, "pb.poshandler"), "c.count");
        r.write_handler("pb.size", "12").unwrap();
        assert_eq!(testing::read(&r, "pb.size"), "12");
        assert!(r.write_handler("pb.size", "-3").is_err());
        assert!(r.write_handler("pb.active", "maybe").is_err());
        let e = build_err(
            "c :: Counter; Idle -> c -> Discard; pb :: ProgressBar(c.nothere, FIXED_SIZE 3)",
        );
        assert!(e.contains("While initializing 'pb :: ProgressBar'"), "{e}");
        assert!(e.contains("no 'c.nothere' read handler"), "{e}");
        let e = build_err("ProgressBar(nobody.count)");
        assert!(e.contains("no 'nobody.count' read handler"), "{e}");
        let e = build_err("c :: Counter; Idle -> c -> Discard; ProgressBar(c.count, UPDATE 0)");
        assert!(e.contains("UPDATE"), "{e}");
    }
}
