//! Moving tasks between threads while the router runs (BalancedThreadSched,
//! the SMP Click paper's adaptive load balancing), and the per-task costs
//! that decide the moves.
//!
//! A move stops the world: the mover gives back its own thread lock and
//! takes every thread lock (each within a short wait; if one cannot be had,
//! nothing changes and the move is refused, so that a mover never waits
//! while holding locks). With every thread at a safe point it sets the
//! tasks' home threads, moves their timers and watched descriptors, and
//! runs the thread analysis again, so that each element is owned by the
//! thread lock that now reaches it, or shared. A task that was scheduled
//! is scheduled again on its new thread.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::ctx::Ctx;
use super::slot::AllHeld;
use super::{Remote, RouterInner};
use crate::element::TaskId;

/// How long a move waits for each thread lock before giving up.
const MOVE_WAIT: Duration = Duration::from_millis(20);

impl Ctx<'_> {
    /// Number of router threads.
    pub fn nthreads(&self) -> usize {
        self.rt.nthreads
    }

    /// Every task of the router, with its element.
    pub fn all_tasks(&self) -> Vec<(TaskId, super::ElementId)> {
        self.rt
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (TaskId(i as u32), t.element))
            .collect()
    }

    /// The thread task `t` runs on.
    pub fn task_thread(&self, t: TaskId) -> usize {
        self.rt.tasks[t.0 as usize].thread.load(Ordering::Relaxed)
    }

    /// Switches the measurement of task costs on or off (off by default:
    /// it reads the cycle counter twice per task run).
    pub fn measure_task_costs(&mut self, on: bool) {
        self.rt.measure_tasks.store(on, Ordering::Relaxed);
    }

    /// Task `t`'s runs and the cycles they took, counted since the router
    /// started (cycles only while measuring).
    pub fn task_cost(&self, t: TaskId) -> (u64, u64) {
        let ti = &self.rt.tasks[t.0 as usize];
        (
            ti.runs.load(Ordering::Relaxed),
            ti.cycles.load(Ordering::Relaxed),
        )
    }

    /// Moves each task `t` to thread `to` (a thread index below
    /// [`Ctx::nthreads`]). Refused, changing nothing, when a thread cannot be
    /// stopped at once (it is busy in a long call); try again later.
    pub fn move_tasks(&mut self, moves: &[(TaskId, usize)]) -> Result<(), String> {
        let rt = self.rt;
        for &(t, to) in moves {
            if t.0 as usize >= rt.tasks.len() {
                return Err(format!("no task {}", t.0));
            }
            if to >= rt.nthreads {
                return Err(format!("no thread {to} (the router has {})", rt.nthreads));
            }
        }
        let mine = self.sched.let_go(rt);
        let all = rt.locks.try_acquire_all(MOVE_WAIT);
        let result = match all {
            Some(all) => {
                rt.apply_moves(moves, &all);
                rt.locks.release_all(all);
                Ok(())
            }
            None => Err("a thread is busy; try again".to_string()),
        };
        if let Some(m) = mine {
            self.sched.hold(rt, m);
        }
        result
    }
}

impl RouterInner {
    /// The moves themselves, with every thread lock held.
    fn apply_moves(&self, moves: &[(TaskId, usize)], all: &AllHeld) {
        for &(t, to) in moves {
            let ti = &self.tasks[t.0 as usize];
            let from = ti.thread.load(Ordering::Relaxed);
            if from == to {
                continue;
            }
            // The old run queue's entry goes stale (generation); the task is
            // queued again on its new thread if it was scheduled.
            let was = ti.scheduled.swap(false, Ordering::AcqRel);
            ti.generation.fetch_add(1 << 40, Ordering::AcqRel);
            ti.thread.store(to, Ordering::Relaxed);
            let e = ti.element;
            self.element_home[e].store(to, Ordering::Relaxed);
            for (i, tm) in self.timers.iter().enumerate() {
                if tm.element == e && tm.thread.load(Ordering::Relaxed) == from {
                    tm.thread.store(to, Ordering::Relaxed);
                    tm.generation.fetch_add(1, Ordering::AcqRel);
                    if tm.expiry.load(Ordering::Acquire) != i64::MIN {
                        self.send_remote(to, Remote::Timer(i as u32));
                    }
                }
            }
            for (fd, what) in self.threads[from].poller.selects_of(t.0) {
                self.threads[from].poller.remove_select(fd, what);
                let _ = self.threads[to].poller.add_select(fd, what, t.0);
            }
            if was {
                self.send_remote(to, Remote::Task(t.0));
            }
        }
        let owners = self.analyse_owners();
        for (slot, owner) in self.slots.iter().zip(owners) {
            slot.set_owner(owner, all);
        }
    }
}

#[cfg(test)]
mod tests {
    use rclick_packet::{Packet, PacketBatch};

    use crate::element::{Element, HandlerDef, TaskId, TimerId};
    use crate::registry::Registry;
    use crate::router::{BuildOptions, Ctx, InitCx};
    use crate::Timestamp;

    /// Pushes one packet per run, `LIMIT` in all, then stops the router.
    struct Src {
        left: u64,
        task: Option<TaskId>,
    }
    impl Element for Src {
        fn class_name(&self) -> &'static str {
            "Src"
        }
        fn port_count(&self) -> &'static str {
            "0/1"
        }
        fn processing(&self) -> &'static str {
            "h/h"
        }
        fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
            self.task = Some(cx.new_task(true));
            Ok(())
        }
        fn run_task(&mut self, _t: TaskId, cx: &mut Ctx) -> bool {
            if self.left == 0 {
                cx.request_stop();
                return false;
            }
            self.left -= 1;
            cx.push(0, PacketBatch::from(Packet::from_slice(&[0u8; 60])));
            cx.reschedule();
            true
        }
    }

    #[derive(Default)]
    struct Sink {
        n: u64,
        threads: Vec<usize>,
    }
    impl Element for Sink {
        fn class_name(&self) -> &'static str {
            "Sink"
        }
        fn port_count(&self) -> &'static str {
            "1/0"
        }
        fn push(&mut self, _port: usize, b: PacketBatch, cx: &mut Ctx) {
            self.n += b.len() as u64;
            let t = cx.thread_id();
            if self.threads.last() != Some(&t) {
                self.threads.push(t);
            }
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read("count", 0), HandlerDef::read("threads", 1)]
        }
        fn read_handler(&mut self, id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            Ok(match id {
                0 => self.n.to_string(),
                _ => format!("{:?}", self.threads),
            })
        }
    }

    /// Every 1 ms, moves every task to the other thread, 5 times.
    #[derive(Default)]
    struct Mover {
        moves: u32,
    }
    impl Element for Mover {
        fn class_name(&self) -> &'static str {
            "Mover"
        }
        fn port_count(&self) -> &'static str {
            "0/0"
        }
        fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
            let t = cx.new_timer();
            cx.schedule_timer_after(t, Timestamp::from_msec(1));
            Ok(())
        }
        fn run_timer(&mut self, t: TimerId, cx: &mut Ctx) {
            let moves: Vec<(TaskId, usize)> = cx
                .all_tasks()
                .into_iter()
                .map(|(task, _)| (task, 1 - cx.task_thread(task)))
                .collect();
            if cx.move_tasks(&moves).is_ok() {
                self.moves += 1;
            }
            if self.moves < 5 {
                cx.schedule_timer_after(t, Timestamp::from_msec(1));
            }
        }
    }

    #[test]
    fn tasks_move_between_threads_and_nothing_is_lost() {
        let mut r = Registry::new();
        r.add(
            "Src",
            || {
                Box::new(Src {
                    left: 300_000,
                    task: None,
                })
            },
            "",
        );
        r.add("Sink", || Box::<Sink>::default(), "");
        r.add("Mover", || Box::<Mover>::default(), "");
        let router = crate::testing::build_with(
            "s :: Src -> k :: Sink; m :: Mover;",
            &r,
            BuildOptions {
                threads: 2,
                ..Default::default()
            },
        )
        .unwrap();
        let k = router.find("k").unwrap();
        assert_eq!(router.element_owner(k), Some(0));
        router.run();
        assert_eq!(router.read_handler("k.count", "").unwrap(), "300000");
        let threads = router.read_handler("k.threads", "").unwrap();
        assert!(threads.starts_with("[0, 1"), "{threads}");
    }
}
