//! The tests run on one device under test, in order, once its testbed is
//! up: restart, throughput (NDR/PDR search), latency at the NDR, frame loss
//! rate, back-to-back bursts, single frames, overload and recovery, a hot
//! swap and file transfers; each adds its part to the device's report.

use super::*;

pub(super) fn dut_tests(run: DutRun, rep: &mut DutReport) -> Result<(), String> {
    let DutRun {
        o,
        prof,
        d,
        ceil,
        cleanup,
        scratch,
        p,
    } = run;
    let rns = testbed::router_ns(&o.prefix);
    let h0 = format!("{}-h0", o.prefix);
    let h1 = format!("{}-h1", o.prefix);
    let warnings = testbed::up_in(&o.prefix, 2, d.kernel_forwarding())?;
    rep.notes.extend(warnings);
    for dev in ["eth0", "eth1"] {
        dut::steer_rps(&rns, dev, 1 << o.dut_cpu)?;
    }
    dut::steer_rps(&h1, "eth0", 1 << o.generator_cpu)?;
    dut::steer_rps(&h0, "eth0", 1 << o.generator_cpu)?;
    let mut ports = Ports::open((&h0, "eth0"), (&h1, "eth0"))?;
    let t64 = template(prof.sizes[0], ROUTER_MAC);
    let sock = scratch.join(format!("{}.sock", d.name));
    let log = scratch.join(format!("{}.log", d.name));
    let log_tail = || {
        std::fs::read_to_string(&log)
            .map(|s| {
                s.lines()
                    .rev()
                    .take(5)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    };

    // Restart: process start to first forwarded frame, under a steady
    // stream of 20,000 frames/s (50 µs apart).
    let mut restart = Restart::default();
    if matches!(d.kind, DutKind::Process { .. }) {
        let _ = std::fs::remove_file(&sock);
        let slot = Arc::clone(&cleanup.child);
        let (dd, ns, cpu, nice) = (d.clone(), rns.clone(), o.dut_cpu, o.nice);
        let (s2, l2) = (sock.clone(), log.clone());
        let spawn_err: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
        let se = Arc::clone(&spawn_err);
        let mut spec = TrialSpec::paced(t64, 1, 20_000.0, 5.0);
        spec.action = Some((
            Duration::from_millis(5),
            Box::new(move || match dd.spawn(&ns, cpu, nice, Some(&s2), &l2) {
                Ok(c) => *slot.lock().expect("not poisoned") = Some(c),
                Err(e) => *se.lock().expect("not poisoned") = Some(e),
            }),
        ));
        spec.stop_at_first = true;
        let r = ports.run(spec)?;
        if let Some(e) = spawn_err.lock().expect("not poisoned").take() {
            return Err(e);
        }
        match r.first_after_action {
            Some(t) => {
                restart.start_ms = Some(t.as_secs_f64() * 1e3);
                p.say(&format!(
                    "  restart: first frame forwarded {:.1} ms after the process started",
                    t.as_secs_f64() * 1e3
                ));
            }
            None => {
                return Err(format!(
                    "the router forwarded nothing within 5 s of starting; its output:\n{}",
                    log_tail()
                ))
            }
        }
        restart.notes.push(
            "Process start (fork/exec of `ip netns exec … taskset … click CONF`) to the kernel's receive \
             stamp of the first frame forwarded, under 20,000 frames/s of 64-byte frames; includes reading \
             and building the configuration, opening the devices and resolving the next hop by ARP."
                .into(),
        );
    } else {
        restart
            .notes
            .push("The kernel has no process to start: not measured.".into());
    }
    // Learning frames (RFC 2544 §23): until one arrives.
    let mut spec = TrialSpec::paced(t64, prof.flows, 1000.0, 5.0);
    spec.stop_at_first = true;
    if ports.run(spec)?.totals.unique == 0 {
        return Err(format!(
            "nothing forwarded in 5 s; router output:\n{}",
            log_tail()
        ));
    }

    let mut ndr64 = 0.0;
    for (i, &size) in prof.sizes.iter().enumerate() {
        let c = ceil.iter().find(|c| c.size == size).map_or(1e6, |c| c.fps);
        let t = template(size, ROUTER_MAC);
        let s = search_live(&mut ports, t, prof, c, (c * 0.002).max(200.0))?;
        let first = s.trials.first().copied();
        let delivered0 = first.map_or(0.0, |t| (t.sent - t.lost) as f64 / prof.trial_s);
        p.say(&format!(
            "  {size:4} B: NDR {} ({:.0} Mbit/s), PDR {} — ceiling {}{}, {} trials",
            fmt_rate(s.ndr.rate),
            rclick_rfc2544::frame::frame_bits_per_second(s.ndr.rate, size) / 1e6,
            fmt_rate(s.pdr.rate),
            fmt_rate(c),
            if s.ndr.at_max {
                " (NDR at the ceiling)"
            } else {
                ""
            },
            s.trials.len()
        ));
        if i == 0 {
            ndr64 = s.ndr.rate;
        }
        rep.throughput.push(Throughput {
            size,
            ndr_fps: s.ndr.rate,
            pdr_fps: s.pdr.rate,
            ceiling_fps: c,
            at_ceiling: s.ndr.at_max,
            converged: s.ndr.converged,
            delivered_at_ceiling_fps: delivered0,
            trials: s.trials.clone(),
        });
        // Latency at the throughput rate.
        if s.ndr.rate > 0.0 {
            let mut spec = TrialSpec::paced(t, prof.flows, s.ndr.rate, prof.trial_s);
            spec.drain = prof.drain;
            let r = ports.run(spec)?;
            let sum = r.hist.summary();
            if let Some(l) = &sum {
                p.say(&format!(
                    "  {size:4} B: latency at NDR: min {:.1} µs, median {:.1}, 99th {:.1}, 99.9th {:.1}, max {:.1} µs",
                    l.min_ns as f64 / 1e3,
                    l.p50_ns as f64 / 1e3,
                    l.p99_ns as f64 / 1e3,
                    l.p999_ns as f64 / 1e3,
                    l.max_ns as f64 / 1e3
                ));
            }
            rep.latency.push(Latency {
                size,
                rate_fps: r.rate,
                summary: sum,
                lost: r.totals.lost,
                reordered: r.totals.reordered,
                duplicates: r.totals.duplicates,
            });
        }
        // Frame loss rate at 10..100 % of the ceiling.
        let mut curve = LossCurve {
            size,
            points: Vec::new(),
        };
        for &pct in &prof.loss_percents {
            let mut spec = TrialSpec::paced(t, prof.flows, c * pct / 100.0, prof.trial_s);
            spec.drain = prof.drain;
            let (r, where_lost) = run_split(&mut ports, &rns, spec)?;
            curve.points.push(LossPoint {
                percent: pct,
                offered_fps: r.rate,
                delivered_fps: r.delivered_rate(),
                loss_ratio: r.totals.loss_ratio(),
                where_lost,
            });
        }
        p.say(&format!(
            "  {size:4} B: frame loss at {}: {}",
            prof.loss_percents
                .iter()
                .map(|x| format!("{x:.0}"))
                .collect::<Vec<_>>()
                .join("/")
                + " %",
            curve
                .points
                .iter()
                .map(|x| format!("{:.2}%", x.loss_ratio * 100.0))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        rep.frame_loss.push(curve);
        // Back-to-back.
        if i == 0 || prof.b2b_all_sizes {
            let b = back_to_back(&mut ports, t, prof, c)?;
            p.say(&format!(
                "  {size:4} B: back-to-back: {} frames at {} without loss (longest tried {})",
                b.frames,
                fmt_rate(b.burst_fps),
                b.max_tried
            ));
            rep.back_to_back.push(b);
        }
        // Single frames.
        let mut sf = SingleFrame {
            size,
            idle_ms: prof.single_idle.as_secs_f64() * 1e3,
            ..SingleFrame::default()
        };
        for _ in 0..prof.single_reps {
            std::thread::sleep(prof.single_idle);
            let mut spec = TrialSpec::paced(t, 1, 1.0, 0.001);
            spec.drain = Duration::from_millis(300);
            let r = ports.run(spec)?;
            sf.sent += r.totals.sent;
            sf.forwarded += r.totals.unique;
            if let Some(m) = r.hist.max() {
                sf.latency_us.push(m as f64 / 1e3);
            }
        }
        p.say(&format!(
            "  {size:4} B: single frames: {} of {} forwarded, latency {} µs",
            sf.forwarded,
            sf.sent,
            sf.latency_us
                .iter()
                .map(|x| format!("{x:.0}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        rep.single_frame.push(sf);
    }

    // Overload and recovery, at the first size.
    if ndr64 > 0.0 {
        let size = prof.sizes[0];
        let c = ceil.iter().find(|c| c.size == size).map_or(1e6, |c| c.fps);
        let mut ov = Overload {
            size,
            ndr_fps: ndr64,
            ..Overload::default()
        };
        let mut loads: Vec<f64> = [1.0, 1.25, 1.5, 2.0, 3.0]
            .iter()
            .map(|k| (k * ndr64).min(c))
            .collect();
        loads.push(c);
        loads.dedup_by(|a, b| (*a - *b).abs() < 0.01 * *b);
        for rate in loads {
            let mut spec = TrialSpec::paced(t64, prof.flows, rate, prof.trial_s);
            spec.drain = prof.drain;
            let (r, where_lost) = run_split(&mut ports, &rns, spec)?;
            ov.points.push(LossPoint {
                percent: rate / ndr64 * 100.0,
                offered_fps: r.rate,
                delivered_fps: r.delivered_rate(),
                loss_ratio: r.totals.loss_ratio(),
                where_lost,
            });
        }
        let over = (2.0 * ndr64).min(c);
        let after = 0.5 * ndr64;
        let over_s = prof.trial_s.max(0.5);
        let mut spec = TrialSpec::paced(t64, prof.flows, over, over_s * 2.0);
        spec.phases = vec![(over_s, over), (over_s, after)];
        spec.frames = (over * over_s + after * over_s).ceil() as u64;
        spec.duration = Duration::from_secs_f64(over_s * 2.0);
        spec.bin = Duration::from_millis(5);
        spec.drain = prof.drain;
        let r = ports.run(spec)?;
        ov.overload_fps = over;
        ov.after_fps = after;
        ov.recovery_ms = recovery_ms(&r.timeline, 5.0, over_s * 1e3, over_s * 2e3);
        p.say(&format!(
            "  overload: offered {} -> delivered {} (lost before/in/after the device: {}); \
             recovery after {} of overload: {}",
            ov.points
                .iter()
                .map(|x| fmt_rate(x.offered_fps))
                .collect::<Vec<_>>()
                .join("/"),
            ov.points
                .iter()
                .map(|x| fmt_rate(x.delivered_fps))
                .collect::<Vec<_>>()
                .join("/"),
            ov.points
                .iter()
                .map(|x| x.where_lost.map_or("?".into(), |w| format!(
                    "{}/{}/{}",
                    w.before, w.inside, w.after
                )))
                .collect::<Vec<_>>()
                .join(", "),
            fmt_rate(over),
            ov.recovery_ms
                .map_or("never".into(), |m| format!("{m:.0} ms"))
        ));
        rep.overload = Some(ov);
    }

    // Hot-swap: the same configuration again through hotconfig.
    if let DutKind::Process { conf, .. } = &d.kind {
        if dut::wait_for(&sock) {
            let text =
                std::fs::read_to_string(conf).map_err(|e| format!("{}: {e}", conf.display()))?;
            let res: Arc<Mutex<Option<Result<Duration, String>>>> = Arc::new(Mutex::new(None));
            let r2 = Arc::clone(&res);
            let s2 = sock.clone();
            let mut spec = TrialSpec::paced(t64, 1, 20_000.0, 2.0);
            spec.action = Some((
                Duration::from_millis(500),
                Box::new(move || {
                    *r2.lock().expect("not poisoned") = Some(dut::hotswap(&s2, &text))
                }),
            ));
            spec.drain = Duration::from_millis(300);
            let r = ports.run(spec)?;
            restart.hotswap_rate_fps = 20_000.0;
            let outcome = res.lock().expect("not poisoned").take();
            match outcome {
                Some(Ok(took)) => {
                    restart.hotswap_gap_ms = Some(r.max_gap.as_secs_f64() * 1e3);
                    restart.hotswap_lost = Some(r.totals.lost);
                    restart.notes.push(format!(
                        "Hot-swap: the same configuration written to `hotconfig` through the ControlSocket \
                         (`-R -u SOCKET`) under 20,000 frames/s; the write took {:.1} ms. The gap is the longest \
                         time between two forwarded frames after the write began (50 µs without a swap).",
                        took.as_secs_f64() * 1e3
                    ));
                    p.say(&format!(
                        "  hot-swap: longest gap {:.1} ms, {} frames lost",
                        r.max_gap.as_secs_f64() * 1e3,
                        r.totals.lost
                    ));
                }
                Some(Err(e)) => restart.notes.push(format!("Hot-swap failed: {e}")),
                None => restart.notes.push("Hot-swap: not attempted".into()),
            }
        } else {
            restart
                .notes
                .push("Hot-swap: the ControlSocket never appeared".into());
        }
    }
    rep.restart = Some(restart);

    // File transfers.
    if !o.no_transfers {
        let file = scratch.join("www").join("file.bin");
        if !file.exists() {
            make_file(&file, prof.transfer_mb)?;
        }
        for (proto, r) in dut::transfers((&h0, "192.0.2.2"), (&h1, "198.51.100.2"), &file, scratch)
        {
            p.say(&format!(
                "  {proto} {} MB: {}",
                prof.transfer_mb,
                match &r {
                    Ok(s) => format!("{s:.2} s"),
                    Err(e) => e.clone(),
                }
            ));
            rep.transfers.push(Transfer {
                protocol: proto,
                bytes: prof.transfer_mb << 20,
                seconds: r.as_ref().ok().copied(),
                error: r.err(),
            });
        }
    }
    if let Some(c) = cleanup.child.lock().expect("not poisoned").as_mut() {
        if let Ok(Some(st)) = c.try_wait() {
            rep.notes
                .push(format!("The router process exited during the tests ({st})"));
        }
    }
    drop(ports);
    Ok(())
}

fn make_file(path: &Path, mb: u64) -> Result<(), String> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    // A simple generator of incompressible bytes (xorshift).
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut v = Vec::with_capacity((mb << 20) as usize);
    while v.len() < (mb << 20) as usize {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(&x.to_le_bytes());
    }
    std::fs::write(path, v).map_err(|e| format!("{}: {e}", path.display()))
}

/// Back-to-back (RFC 2544 §26.4): the longest burst at the generator's
/// fastest that passes without loss, by bisection on its length.
fn back_to_back(
    ports: &mut Ports,
    t: Template,
    prof: &Profile,
    ceiling: f64,
) -> Result<BackToBack, String> {
    let max = ((ceiling * prof.b2b_s) as u64).max(16);
    let mut burst_fps = 0.0;
    let mut try_len = |n: u64, ports: &mut Ports| -> Result<bool, String> {
        let mut spec = TrialSpec::paced(t, prof.flows, f64::INFINITY, 10.0);
        spec.frames = n;
        spec.drain = prof.drain;
        let r = ports.run(spec)?;
        burst_fps = r.rate;
        Ok(r.totals.lost == 0 && r.totals.sent == n)
    };
    let mut lo = 0u64;
    if try_len(max, ports)? {
        lo = max;
    } else {
        let mut hi = max;
        let mut n = 16u64.min(max);
        // Bisection between the longest passing and shortest failing burst.
        while hi - lo > 1 && hi - lo > lo / 20 {
            if try_len(n, ports)? {
                lo = n;
            } else {
                hi = n;
            }
            n = (lo + hi) / 2;
        }
    }
    Ok(BackToBack {
        size: t.frame_size,
        frames: lo,
        max_tried: max,
        burst_fps,
    })
}

/// System recovery from a timeline of `bin_ms` bins (frames sent, and of
/// those, received): the time from the end of the overload (`over_ms`)
/// to the start of the first bin from which every bin up to `end_ms`
/// lost at most 0.1 % of its frames.
pub fn recovery_ms(timeline: &[(u64, u64)], bin_ms: f64, over_ms: f64, end_ms: f64) -> Option<f64> {
    let first = (over_ms / bin_ms).floor() as usize;
    let last = ((end_ms / bin_ms) as usize)
        .min(timeline.len())
        .saturating_sub(1);
    if first >= last {
        return None;
    }
    let ok = |&(s, r): &(u64, u64)| s.saturating_sub(r) * 1000 <= s;
    let mut k = last;
    while k > first && ok(&timeline[k - 1]) {
        k -= 1;
    }
    if !ok(&timeline[last - 1]) {
        return None;
    }
    Some((k as f64 * bin_ms - over_ms).max(0.0))
}
