//! # BalancedThreadSched
//!
//! `BalancedThreadSched([INTERVAL, INCREASING])`
//!
//! **Category:** information (threads). Moves tasks between threads to
//! balance their load (bin packing).
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! The SMP Click paper's adaptive load balancing. The router measures how
//! many processor cycles each task spends; every INTERVAL milliseconds
//! BalancedThreadSched adds up each thread's load (the cycles its tasks
//! spent since the last look), and while the busiest and the least busy
//! thread differ from the average by an eighth of it or more, moves tasks
//! from the busiest thread to the least busy one. The busiest thread's
//! tasks are tried in order of cost (increasing when INCREASING is true,
//! decreasing otherwise); a task of cost C moves when the least busy
//! thread's load plus C stays below 5/4 of the average and plus 2C stays
//! at most the busiest thread's load, so that a move never just swaps
//! which thread is overloaded. Up to as many rounds as there are threads
//! are made each time.
//!
//! Moving a task stops every thread for a moment (a thread busy in a long
//! call refuses, and the moves are tried again a millisecond later). The
//! elements the moved task reaches then belong to its new thread. The
//! first balancing happens 10 milliseconds after the router starts.
//!
//! Click weighs each task by its average cost per run, counting only the
//! tasks scheduled at that moment; here a task weighs the cycles it spent
//! over the last interval (runs times cost per run), so a task that sleeps
//! weighs nothing and is never moved, and one that runs rarely weighs
//! little. Measuring costs reads the processor's cycle counter twice per
//! task run, from the first balancing on.
//!
//! Keywords:
//!
//! * `INTERVAL` (integer): milliseconds between balancings; values below 1
//!   mean 1. Default 1000.
//! * `INCREASING` (boolean): try the busiest thread's cheapest tasks first
//!   (true) or its costliest first (false). Default true.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! None besides the standard ones. Each task's element tells its thread in
//! its `home_thread` handler.
//!
//! ## Examples
//!
//! ```text
//! a :: InfiniteSource -> Discard;  b :: InfiniteSource -> Discard;
//! StaticThreadSched(a 0, b 0);
//! BalancedThreadSched(INTERVAL 100);   // b (or a) soon runs on thread 1
//! ```
//!
//! ## See also
//!
//! StaticThreadSched, ScheduleInfo

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, InitCx, TaskId, TimerId, Timestamp};

/// Milliseconds from the start to the first balancing (Click's).
const FIRST_BALANCE_MS: i64 = 10;
/// Milliseconds before refused moves are tried again.
const RETRY_MS: i64 = 1;

/// The BalancedThreadSched element.
pub struct BalancedThreadSched {
    interval_ms: i32,
    increasing: bool,
    /// Whether the router measures task costs yet.
    measuring: bool,
    /// Each task's cycles at the last look.
    last_cycles: Vec<u64>,
    /// Moves that were refused, to try again.
    pending: Vec<(TaskId, usize)>,
}

impl Default for BalancedThreadSched {
    fn default() -> Self {
        BalancedThreadSched {
            interval_ms: 1000,
            increasing: true,
            measuring: false,
            last_cycles: Vec::new(),
            pending: Vec::new(),
        }
    }
}

/// One task as the balancer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskLoad {
    /// The task.
    pub task: TaskId,
    /// The thread it runs on.
    pub thread: usize,
    /// Cycles it spent over the last interval.
    pub cost: u64,
}

/// Click's bin packing over `nthreads` threads: the moves (task, new
/// thread) that balance `tasks`, as described in the manual.
pub fn plan_moves(tasks: &[TaskLoad], nthreads: usize, increasing: bool) -> Vec<(TaskId, usize)> {
    let mut moves = Vec::new();
    if nthreads < 2 {
        return moves;
    }
    let mut load = vec![0u64; nthreads];
    let mut thread: Vec<usize> = tasks.iter().map(|t| t.thread).collect();
    for t in tasks {
        if let Some(l) = load.get_mut(t.thread) {
            *l += t.cost;
        }
    }
    let total: u64 = load.iter().sum();
    let avg = total / nthreads as u64;
    if avg == 0 {
        return moves;
    }
    for _ in 0..nthreads {
        let (mut min, mut max) = (0, 0);
        for tid in 1..nthreads {
            if load[tid] < load[min] {
                min = tid;
            } else if load[tid] > load[max] {
                max = tid;
            }
        }
        // Do nothing while the difference is minor.
        if avg.saturating_sub(load[min]) < avg >> 3 && load[max].saturating_sub(avg) < avg >> 3 {
            break;
        }
        let mut order: Vec<usize> = (0..tasks.len())
            .filter(|&i| thread[i] == max && tasks[i].cost > 0)
            .collect();
        if increasing {
            order.sort_by_key(|&i| tasks[i].cost);
        } else {
            order.sort_by_key(|&i| std::cmp::Reverse(tasks[i].cost));
        }
        let highwater = avg + (avg >> 2);
        for i in order {
            let c = tasks[i].cost;
            if load[min] + c < highwater && load[min] + 2 * c <= load[max] && thread[i] == max {
                load[min] += c;
                load[max] -= c;
                thread[i] = min;
                moves.retain(|m: &(TaskId, usize)| m.0 != tasks[i].task);
                moves.push((tasks[i].task, min));
            }
        }
    }
    moves
}

impl BalancedThreadSched {
    /// The tasks' costs since the last look (and the new baseline).
    fn task_loads(&mut self, cx: &Ctx) -> Vec<TaskLoad> {
        let tasks = cx.all_tasks();
        self.last_cycles.resize(tasks.len(), 0);
        tasks
            .iter()
            .map(|&(task, _)| {
                let (_, cycles) = cx.task_cost(task);
                let i = task.0 as usize;
                let cost = cycles.saturating_sub(self.last_cycles[i]);
                self.last_cycles[i] = cycles;
                TaskLoad {
                    task,
                    thread: cx.task_thread(task),
                    cost,
                }
            })
            .collect()
    }
}

impl Element for BalancedThreadSched {
    fn class_name(&self) -> &'static str {
        "BalancedThreadSched"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut interval, mut increasing) = (1000i32, true);
        Args::new(conf)
            .read_p("INTERVAL", &mut interval)
            .read_p("INCREASING", &mut increasing)
            .complete()
            .map_err(|e| e.to_string())?;
        self.interval_ms = interval;
        self.increasing = increasing;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_timer();
        cx.schedule_timer_after(t, Timestamp::from_msec(0));
        Ok(())
    }

    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        if !self.measuring {
            // Costs are measured from now on; the first balancing looks at
            // what they were over the next 10 ms.
            cx.measure_task_costs(true);
            self.measuring = true;
            self.task_loads(cx);
            cx.schedule_timer_after(timer, Timestamp::from_msec(FIRST_BALANCE_MS));
            return;
        }
        let moves = if self.pending.is_empty() {
            let loads = self.task_loads(cx);
            plan_moves(&loads, cx.nthreads(), self.increasing)
        } else {
            std::mem::take(&mut self.pending)
        };
        if !moves.is_empty() && cx.move_tasks(&moves).is_err() {
            self.pending = moves;
            cx.schedule_timer_after(timer, Timestamp::from_msec(RETRY_MS));
            return;
        }
        let ms = i64::from(self.interval_ms.max(1));
        cx.schedule_timer_after(timer, Timestamp::from_msec(ms));
    }
}

#[cfg(test)]
mod tests {
    use super::{plan_moves, TaskLoad};
    use crate::queues::test_registry;
    use crate::threads::build_threads;
    use rclick_core::{testing, TaskId};

    fn t(task: u32, thread: usize, cost: u64) -> TaskLoad {
        TaskLoad {
            task: TaskId(task),
            thread,
            cost,
        }
    }

    #[test]
    fn bin_packing_as_click() {
        // Two equal busy tasks on thread 0: one moves.
        assert_eq!(
            plan_moves(&[t(0, 0, 50), t(1, 0, 50)], 2, true),
            [(TaskId(0), 1)]
        );
        // Unequal: increasing tries the cheaper first, and it fits.
        assert_eq!(
            plan_moves(&[t(0, 0, 60), t(1, 0, 40)], 2, true),
            [(TaskId(1), 1)]
        );
        // Decreasing tries the costlier first: 60 < 62.5 and 120 > 100,
        // so it may not move; then 40 does.
        assert_eq!(
            plan_moves(&[t(0, 0, 60), t(1, 0, 40)], 2, false),
            [(TaskId(1), 1)]
        );
        // One busy task alone is never bounced between threads.
        assert!(plan_moves(&[t(0, 0, 100), t(1, 1, 0)], 2, true).is_empty());
        // Already balanced (within an eighth of the average).
        assert!(plan_moves(&[t(0, 0, 52), t(1, 1, 48)], 2, true).is_empty());
        // Sleeping tasks (no cost) stay; one thread: nothing to do.
        assert!(plan_moves(&[t(0, 0, 0), t(1, 0, 0)], 2, true).is_empty());
        assert!(plan_moves(&[t(0, 0, 50), t(1, 0, 50)], 1, true).is_empty());
        // Four equal tasks on thread 0 of 4: one per round to the least
        // busy thread (the first of the empty ones each time).
        let m = plan_moves(
            &[t(0, 0, 25), t(1, 0, 25), t(2, 0, 25), t(3, 0, 25)],
            4,
            true,
        );
        let mut to: Vec<usize> = m.iter().map(|x| x.1).collect();
        to.sort_unstable();
        assert_eq!(to, [1, 2, 3]);
    }

    #[test]
    fn configuration() {
        let r = testing::build(
            "b :: BalancedThreadSched(100, false); c :: BalancedThreadSched(INTERVAL 5);",
            &test_registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "b.config"), "100, false");
        assert!(testing::build("BalancedThreadSched(FOO 1);", &test_registry(), true).is_err());
        assert!(testing::build("BalancedThreadSched(x);", &test_registry(), true).is_err());
    }

    /// Two busy sources pinned to thread 0 end up on two threads.
    #[test]
    fn two_busy_sources_end_up_on_two_threads() {
        let r = build_threads(
            "a :: InfiniteSource -> ca :: Counter -> Discard;
             b :: InfiniteSource -> cb :: Counter -> Discard;
             StaticThreadSched(a 0, b 0);
             BalancedThreadSched(INTERVAL 20);
             StopAfter(0.4);",
            2,
        );
        assert_eq!(testing::read(&r, "a.home_thread"), "0");
        assert_eq!(testing::read(&r, "b.home_thread"), "0");
        r.run();
        let (ta, tb) = (
            testing::read(&r, "a.home_thread"),
            testing::read(&r, "b.home_thread"),
        );
        assert_ne!(ta, tb, "a on {ta}, b on {tb}");
        assert_ne!(testing::read(&r, "ca.count"), "0");
        assert_ne!(testing::read(&r, "cb.count"), "0");
    }

    /// A busy source and a sleeping one stay where they are.
    #[test]
    fn a_lone_busy_task_stays() {
        let r = build_threads(
            "a :: InfiniteSource -> Discard;
             b :: InfiniteSource(ACTIVE false) -> Discard;
             StaticThreadSched(a 0, b 0);
             BalancedThreadSched(INTERVAL 10);
             StopAfter(0.15);",
            2,
        );
        r.run();
        assert_eq!(testing::read(&r, "a.home_thread"), "0");
        assert_eq!(testing::read(&r, "b.home_thread"), "0");
    }
}
