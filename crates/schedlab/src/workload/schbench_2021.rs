//! schbench as it was from 2020 to 2022 (masoncl/schbench at 2eef447, Dec 2021): the
//! version seed 002 ran (`schbench -m 1 -t 10 -r 30 -R 200`). User guide: docs/workloads.md,
//! "schbench-2021".
//!
//! `-R` mode (run_rps_thread): each message thread wakes `nr_to_wake = 2t/3` workers per
//! batch, `ceil(R/m / nr_to_wake)` batches a second, sleeping 10⁶/batches µs before each;
//! a worker with more than 8 requests posted since it last looked is skipped. A request
//! is stamped when it is allocated; the worker works through its requests oldest first,
//! each a `-c` µs wall-clock spin (usec_spin: preemption does not lengthen it), and
//! records completion − post − cputime: queueing and scheduling delay, not work.
//!
//! Normal mode (run_msg_thread): workers add themselves to the message thread's list,
//! post it and sleep; it wakes the whole list, spins `-C` µs and sleeps `-s` µs plus a
//! jitter (uniform in [0, s/4) in the tool; here its mean, s/8); a worker spins `-c` µs
//! after each wake-up and records wake-up → end of spin − cputime.
//!
//! `-n` with `-F` replaces the spin with `n` naive matrix multiplies of the footprint
//! (then nothing is subtracted), as the tool does.

use super::cmdline::{self, flag, value, OptSpec};
use super::plat_hist::PlatHist;
use super::program::{Base, ObjectSpec, Since};
use super::report::{RunView, ToolReport, WorkloadSection};
use super::schbench::PctTable;
use super::{Compiled, Op, TaskSpec, Workload};
use crate::error::InputError;
use crate::machine::Costs;
use crate::time::{Ns, NSEC_PER_SEC};
use serde::Serialize;

/// The percentiles this version prints (`plist`), the starred one (PLIST_P99) and p95.
pub const PLIST_2021: [f64; 7] = [50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9];
const P95: usize = 3;
const P99: usize = 4;
/// `worker->pending > 8`: the message thread skips a worker this far behind.
pub const MAX_PENDING: u64 = 8;
/// malloc + gettimeofday + the CAS list add of one request, reference ns (the futex wake
/// is the machine's `futex_wake_ns`).
pub const POST_NS: Ns = 300;

const OPTS: &[OptSpec] = &[
    value('m', "message-threads"),
    value('t', "threads"),
    value('r', "runtime"),
    value('R', "rps"),
    value('s', "sleeptime"),
    value('C', "message_cputime"),
    value('c', "cputime"),
    value('F', "cache_footprint"),
    value('n', "operations"),
    value('w', "warmuptime"),
    value('i', "intervaltime"),
    value('z', "zerotime"),
    flag('a', "auto"),
    flag('j', "jitter"),
    value('A', "auto-rps"),
    value('p', "pipe"),
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    pub message_threads: usize,
    pub workers: usize,
    pub runtime_s: u64,
    /// `-R` (total); 0 = normal mode.
    pub rps_total: u64,
    pub sleep_us: u64,
    pub message_cputime_us: u64,
    pub cputime_us: u64,
    pub footprint_kb: u64,
    pub operations: u64,
    pub warmup_s: u64,
    pub interval_s: u64,
    pub zero_s: u64,
}

pub fn parse(args: &[String]) -> Result<Params, InputError> {
    let tool = "schbench-2021";
    let p = cmdline::getopt(tool, args, OPTS)?;
    cmdline::no_positional(tool, &p)?;
    cmdline::refuse(
        tool,
        &p,
        &[
            (
                "auto",
                "it reruns with more threads until p99 hurts; give -t",
            ),
            ("jitter", "per-request random spin times are not modelled"),
            ("auto-rps", "it steers RPS from /proc/stat; give a fixed -R"),
            (
                "pipe",
                "use `schbench -p` (the current version's pipe mode)",
            ),
        ],
    )?;
    let message_threads: usize = cmdline::number_or(tool, &p, "message-threads", 2, 1)?;
    let workers: usize = cmdline::number_or(tool, &p, "threads", 16, 1)?;
    let rps_total: u64 = cmdline::number_or(tool, &p, "rps", 0, 0)?;
    if rps_total > 0 && workers * 2 / 3 == 0 {
        return Err(InputError::new(
            "schbench-2021 -t",
            "-R mode wakes 2t/3 workers a batch, none with one worker (the tool divides by zero)",
        )
        .with_fix("use -t 2 or more"));
    }
    if message_threads * workers > 200_000 {
        return Err(InputError::new(
            "schbench-2021 -m/-t",
            format!(
                "{} threads is more than the simulator takes",
                message_threads * workers
            ),
        )
        .with_fix("use fewer message or worker threads"));
    }
    Ok(Params {
        message_threads,
        workers,
        runtime_s: cmdline::number_or(tool, &p, "runtime", 30, 1)?,
        rps_total,
        sleep_us: cmdline::number_or(tool, &p, "sleeptime", 30_000, 0)?,
        message_cputime_us: cmdline::number_or(tool, &p, "message_cputime", 30_000, 0)?,
        cputime_us: cmdline::number_or(tool, &p, "cputime", 30_000, 0)?,
        footprint_kb: cmdline::number_or(tool, &p, "cache_footprint", 1536, 1)?,
        operations: cmdline::number_or(tool, &p, "operations", 0, 0)?,
        warmup_s: cmdline::number_or(tool, &p, "warmuptime", 5, 0)?,
        interval_s: cmdline::number_or(tool, &p, "intervaltime", 10, 0)?,
        zero_s: cmdline::number_or(tool, &p, "zerotime", 0, 0)?,
    })
}

impl Params {
    /// `-R` per message thread (`requests_per_sec /= message_threads`).
    fn rps_per_thread(&self) -> u64 {
        self.rps_total / self.message_threads as u64
    }

    /// nr_to_wake, and the sleep before each batch (µs): USEC_PER_SEC / wakeups_required.
    pub fn batches(&self) -> (u64, u64) {
        let nr_to_wake = (self.workers * 2 / 3) as u64;
        let wakeups = self.rps_per_thread().div_ceil(nr_to_wake).max(1);
        (nr_to_wake, 1_000_000 / wakeups)
    }

    /// Matrix mode (`-n`): the work is math, and latencies keep the work time.
    fn matrix(&self) -> bool {
        self.operations > 0
    }
}

const LOG_LAT: usize = 0;

/// What one request or loop costs: a wall-clock spin of `-c` µs, or `-n` multiplies of
/// sqrt(F·1024/3/8)-sized matrices at the machine's `matrix_mac_ps`.
fn work_op(p: &Params, costs: &Costs) -> Op {
    if p.matrix() {
        let size = ((p.footprint_kb * 1024 / 3 / 8) as f64).sqrt() as u64;
        Op::Run {
            work_ns: p.operations * size.pow(3) * costs.matrix_mac_ps / 1000,
        }
    } else {
        Op::RunWall {
            ns: p.cputime_us * 1000,
        }
    }
}

pub fn build(p: &Params, command: &str, costs: &Costs) -> Result<Compiled, InputError> {
    let (m, w) = (p.message_threads, p.workers);
    let mut objects = Vec::new();
    let task = |comm: &str, delay_ns: Ns, program: Vec<Op>| {
        TaskSpec::new(comm.to_string(), program).delay(delay_ns)
    };
    // main creates the message threads (pthread_create: the creator's CPU time, then the
    // new thread), then sleep(1) until the runtime is up; each message thread creates its
    // workers before its loop (message_thread), so every thread is placed from a CPU its
    // creator is running on.
    let create = |task: usize| {
        [
            Op::Run {
                work_ns: costs.thread_create_ns,
            },
            Op::Create { task },
        ]
    };
    let mut main = Vec::new();
    let mut tasks = vec![task("schbench", 0, Vec::new())];
    let work = work_op(p, costs);
    for _ in 0..m {
        let first_obj = objects.len();
        let loop_prog = if p.rps_total > 0 {
            objects.extend((0..w).map(|_| ObjectSpec::RequestList {
                max_pending: MAX_PENDING,
            }));
            rps_program(p, first_obj, POST_NS + costs.futex_wake_ns)?
        } else {
            objects.extend([
                ObjectSpec::Semaphore { initial: 0, max: 1 },
                ObjectSpec::WaitQueue,
            ]);
            msg_program(p, first_obj, first_obj + 1)
        };
        let msg = tasks.len();
        main.extend(create(msg));
        let mut msg_prog: Vec<Op> = (msg + 1..=msg + w).flat_map(create).collect();
        msg_prog.extend(loop_prog);
        tasks.push(task("schbench-msg", 0, msg_prog).created_by(0));
        for wi in 0..w {
            let prog = if p.rps_total > 0 {
                worker_rps_program(first_obj + wi, &work)
            } else {
                worker_program(first_obj, first_obj + 1, &work)
            };
            tasks.push(task("schbench-worker", 0, prog).created_by(msg));
        }
    }
    main.extend([
        Op::LoopBegin { count: None },
        Op::Sleep { ns: NSEC_PER_SEC },
        Op::LoopEnd,
    ]);
    tasks[0].program = main;
    Ok(Compiled {
        workload: Workload {
            tasks,
            objects,
            duration_ns: Some(p.runtime_s * NSEC_PER_SEC),
            logs: vec!["schbench-2021.latency".into()],
            ..Workload::default()
        },
        reports: vec![ToolReport::Schbench2021(Schbench2021Report {
            base: Base::default(),
            command: command.to_string(),
            params: p.clone(),
        })],
    })
}

/// run_msg_thread: wake the list, wait for a post, think, sleep.
fn msg_program(p: &Params, msg_sem: usize, list: usize) -> Vec<Op> {
    let mut msg = vec![Op::LoopBegin { count: None }, Op::Broadcast { obj: list }];
    if p.sleep_us > 0 {
        msg.push(Op::SemWait { obj: msg_sem });
    }
    if p.message_cputime_us > 0 {
        msg.push(Op::RunWall {
            ns: p.message_cputime_us * 1000,
        });
    }
    if p.sleep_us > 0 {
        // usleep(sleeptime + rand % (sleeptime / 4)): the jitter's mean.
        msg.push(Op::Sleep {
            ns: (p.sleep_us + p.sleep_us / 8) * 1000,
        });
    }
    msg.push(Op::LoopEnd);
    msg
}

/// A normal-mode worker: post the message thread, sleep on its list, work, record.
fn worker_program(msg_sem: usize, list: usize, work: &Op) -> Vec<Op> {
    vec![
        Op::LoopBegin { count: None },
        Op::SemPost { obj: msg_sem },
        Op::Wait { obj: list },
        work.clone(),
        Op::Record {
            log: LOG_LAT,
            since: Since::Woken,
        },
        Op::LoopEnd,
    ]
}

/// A -R mode worker: take the next request (or sleep for one), work, record.
fn worker_rps_program(list: usize, work: &Op) -> Vec<Op> {
    vec![
        Op::LoopBegin { count: None },
        Op::ReqTake { obj: list, slot: 0 },
        work.clone(),
        Op::Record {
            log: LOG_LAT,
            since: Since::Stamp(0),
        },
        Op::LoopEnd,
    ]
}

/// run_rps_thread, unrolled over one turn of the worker rotation (`cur_tid` carries
/// over from batch to batch).
fn rps_program(p: &Params, first_list: usize, post_ns: Ns) -> Result<Vec<Op>, InputError> {
    let (nr_to_wake, sleep_us) = p.batches();
    let turn =
        super::rotation::one_turn(nr_to_wake, p.workers as u64, 1_000_000).map_err(|posts| {
            InputError::new(
                "schbench-2021 -t",
                format!("{} workers unroll to {posts} posts", p.workers),
            )
            .with_fix("use fewer workers")
        })?;
    let mut prog = vec![Op::LoopBegin { count: None }];
    for batch in turn {
        prog.push(Op::Sleep {
            ns: sleep_us * 1000,
        });
        for worker in batch {
            prog.push(Op::Run { work_ns: post_ns });
            prog.push(Op::ReqPost {
                obj: first_list + worker as usize,
            });
        }
    }
    prog.push(Op::LoopEnd);
    Ok(prog)
}

/// Post-run state of a schbench-2021 workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schbench2021Report {
    pub base: Base,
    pub command: String,
    pub params: Params,
}

/// schbench-2021's section of the result document.
#[derive(Debug, Clone, Serialize)]
pub struct Schbench2021Result {
    pub command: String,
    /// What the tool prints (the percentile tables on stderr, the rps line on stdout).
    pub output: String,
    pub message_threads: usize,
    pub workers_per_message_thread: usize,
    pub runtime_s: u64,
    pub rps_target: u64,
    /// `-R` mode: request latency (post → done − cputime); normal mode: wake-up → end
    /// of the spin − cputime. µs, as the tool's histogram reports them.
    pub latency_us: PctTable,
    /// Requests (loops) completed, and that count ÷ runtime (the final rps line).
    pub requests: u64,
    pub rps: f64,
}

impl Schbench2021Report {
    pub fn render(&self, run: &RunView) -> WorkloadSection {
        let p = &self.params;
        let log = &run.probes.logs[self.base.log + LOG_LAT];
        let cputime = if p.matrix() { None } else { Some(p.cputime_us) };
        let mut out = String::new();
        let warm = p.rps_total == 0 && p.warmup_s > 0;
        // sleep_for_runtime: once a second; zero at the warm-up, print every -i s.
        let mut zeroed_at = 0;
        let mut last_print = 0;
        for k in 1..p.runtime_s {
            let t = k * NSEC_PER_SEC;
            if warm && k > p.warmup_s && zeroed_at == 0 {
                out.push_str("warmup done, zeroing stats\n");
                zeroed_at = t;
            } else if p.interval_s > 0 && t - last_print >= p.interval_s * NSEC_PER_SEC {
                let h = hist(log, zeroed_at, t, cputime);
                out.push_str(&show(&h, k));
                last_print = t;
                if p.rps_total > 0 {
                    let done = log.iter().filter(|s| s.at <= t).count();
                    out.push_str(&format!("rps: {:.2}\n", done as f64 / k as f64));
                }
            }
            if p.zero_s > 0 && t - zeroed_at > p.zero_s * NSEC_PER_SEC {
                zeroed_at = t;
            }
        }
        let h = hist(log, zeroed_at, run.end_ns, cputime);
        out.push_str(&show(&h, p.runtime_s));
        let requests = log.len() as u64;
        let rps = requests as f64 / p.runtime_s as f64;
        if p.rps_total > 0 {
            let rows = h.percentiles_of(&PLIST_2021);
            let (p95, p99) = if rows.len() > P99 {
                (rows[P95].value, rows[P99].value)
            } else {
                (0, 0)
            };
            let c = p.cputime_us.max(1) as f64;
            out.push_str(&format!(
                "rps: {rps:.2} p95 (usec) {p95} p99 (usec) {p99} p95/cputime {:.2}% p99/cputime {:.2}%\n",
                p95 as f64 / c * 100.0,
                p99 as f64 / c * 100.0
            ));
        }
        WorkloadSection::Schbench2021(Box::new(Schbench2021Result {
            command: self.command.clone(),
            output: out,
            message_threads: p.message_threads,
            workers_per_message_thread: p.workers,
            runtime_s: p.runtime_s,
            rps_target: p.rps_total,
            latency_us: PctTable::of(&h, &PLIST_2021),
            requests,
            rps: (rps * 100.0).round() / 100.0,
        }))
    }
}

/// show_latencies of this version.
fn show(h: &PlatHist, runtime: u64) -> String {
    h.show_of(&PLIST_2021, "Latency", "usec", runtime, 0x7f, P99)
}

/// The samples recorded in [from, to) as add_lat stores them: µs, less the cputime
/// (1 when not more than it) unless in matrix mode.
fn hist(log: &[super::Sample], from: Ns, to: Ns, cputime: Option<u64>) -> PlatHist {
    let mut h = PlatHist::default();
    for s in log.iter().filter(|s| s.at >= from && s.at < to) {
        let us = s.value / 1000;
        let v = match cputime {
            Some(c) if us > c => us - c,
            Some(_) => 1,
            None => us,
        };
        h.add(v.min(u32::MAX as u64) as u32);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn seed_002_batches() {
        // -t 10 -R 200: 6 workers a batch, ceil(200/6) = 34 batches a second, 29411 µs apart.
        let p = parse(&args("-m 1 -t 10 -r 30 -R 200")).unwrap();
        assert_eq!(p.batches(), (6, 29_411));
        assert_eq!(p.cputime_us, 30_000);
        // The rotation: 6 of 10 workers a batch comes back to worker 0 after 5 batches.
        let prog = rps_program(&p, 0, 0).unwrap();
        let sleeps = prog
            .iter()
            .filter(|o| matches!(o, Op::Sleep { .. }))
            .count();
        let posts: Vec<usize> = prog
            .iter()
            .filter_map(|o| match o {
                Op::ReqPost { obj } => Some(*obj),
                _ => None,
            })
            .collect();
        assert_eq!(sleeps, 5);
        assert_eq!(posts.len(), 30);
        assert_eq!(&posts[..8], &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(posts[29], 9);
    }

    #[test]
    fn one_worker_cannot_run_rps_mode() {
        let e = parse(&args("-t 1 -R 10")).unwrap_err();
        assert!(e.to_string().contains("-t 2"), "{e}");
    }
}
