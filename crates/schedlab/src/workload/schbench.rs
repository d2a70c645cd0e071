//! schbench, current design (masoncl/schbench; user guide docs/workloads.md, schbench).
//!
//! Per message thread: `-t` workers. Normal mode: a worker posts its message thread and
//! sleeps on its own futex (modelled as waiting on the message thread's list); the
//! message thread wakes the whole list at once (one timestamp for all, as
//! `xlist_wake_all`) and waits for the next post. RPS mode (`-R`): the message thread
//! hands `R/m` requests per second round-robin to its workers and sleeps to the next
//! 1 s mark; a worker sleeps only when it has no request. A request is `usleep(-s)` then
//! `-n` matrix multiplies of the `-F` footprint under the per-CPU spinlock.
//!
//! Timestamps are taken where the real tool takes them: wakeup latency from the waker's
//! timestamp to the worker running again; request latency from `work_start` (after the
//! usleep with `-C`) to the end of the math. Values are truncated to µs and 0 µs samples
//! are dropped, as `tvdelta` + `if (delta > 0)` do.

use super::cmdline::{self, flag, long_value, value, OptSpec, Parsed};
use super::plat_hist::{PctRow, PlatHist};
use super::program::{Base, ObjectSpec, Since, TimerSpec};
use super::report::{RunView, ToolReport, WorkloadSection};
use super::{Compiled, Op, TaskSpec, TimerMode, Workload};
use crate::error::InputError;
use crate::machine::cpulist::parse_cpulist;
use crate::machine::Costs;
use crate::time::{Ns, NSEC_PER_SEC};
use serde::Serialize;

/// memset bandwidth for pipe mode, bytes per µs of reference CPU (10 GB/s).
pub const MEMSET_BYTES_PER_US: u64 = 10_000;
/// Cost of handing one request over in RPS mode besides the futex wake (malloc, list
/// add), reference ns; the futex wake is the machine's `futex_wake_ns` and the ttwu is
/// charged by the kernel model.
pub const RPS_POST_NS: Ns = 300;
/// RPS mode skips a worker holding more than this many requests (`batch`).
pub const RPS_BATCH: u64 = 128;
/// pipe mode transfer cap, PIPE_TRANSFER_BUFFER.
pub const PIPE_TRANSFER_MAX: u64 = 1 << 20;

const OPTS: &[OptSpec] = &[
    value('m', "message-threads"),
    value('t', "threads"),
    value('r', "runtime"),
    value('R', "rps"),
    value('n', "operations"),
    value('F', "cache_footprint"),
    value('s', "sleep_usec"),
    flag('C', "calibrate"),
    flag('L', "no-locking"),
    value('p', "pipe"),
    value('w', "warmuptime"),
    value('i', "intervaltime"),
    value('z', "zerotime"),
    value('M', "message-cpus"),
    value('W', "worker-cpus"),
    value('A', "auto-rps"),
    value('j', "json"),
    value('J', "jobname"),
    value('P', "pin"),
    long_value("split"),
];

/// Options after defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    pub message_threads: usize,
    pub workers: usize,
    /// Workers was derived from the CPU count (the tool says so on stderr).
    pub workers_auto: bool,
    pub runtime_s: u64,
    /// Requests per second per message thread (`-R` / m); 0 = normal mode.
    pub rps_per_thread: u64,
    pub rps_total: u64,
    pub operations: u64,
    pub footprint_kb: u64,
    pub sleep_us: u64,
    pub calibrate: bool,
    pub locking: bool,
    pub pipe_bytes: u64,
    pub warmup_s: u64,
    pub zero_s: u64,
    pub message_cpus: Option<Vec<usize>>,
    pub worker_cpus: Option<Vec<usize>>,
    pub auto_pin: bool,
}

/// Parse `schbench ARGS…` for a machine of `nr_cpus` CPUs.
pub fn parse(args: &[String], nr_cpus: usize) -> Result<Params, InputError> {
    let tool = "schbench";
    let p = cmdline::getopt(tool, args, OPTS)?;
    cmdline::no_positional(tool, &p)?;
    cmdline::refuse(
        tool,
        &p,
        &[
            (
                "auto-rps",
                "it steers RPS from /proc/stat busy time; give a fixed -R instead",
            ),
            (
                "json",
                "use schedlab's --json; the schbench section holds the same figures",
            ),
            ("pin", "CCX pinning needs the die map; use -M/-W CPU lists"),
            (
                "split",
                "shared/private footprint does not change the modelled work",
            ),
        ],
    )?;
    let m: usize = cmdline::number_or(tool, &p, "message-threads", 1, 1)?;
    let t: usize = cmdline::number_or(tool, &p, "threads", 0, 0)?;
    let workers = if t == 0 { nr_cpus.div_ceil(m) } else { t };
    let runtime_s: u64 = cmdline::number_or(tool, &p, "runtime", 30, 0)?;
    let rps_total: u64 = cmdline::number_or(tool, &p, "rps", 0, 0)?;
    let calibrate = p.has("calibrate");
    let pipe_bytes: u64 = cmdline::number_or(tool, &p, "pipe", 0, 0)?;
    let mut warmup_s: u64 = cmdline::number_or(tool, &p, "warmuptime", 0, 0)?;
    if runtime_s < 30 || (pipe_bytes > 0 && !p.has("warmuptime")) {
        warmup_s = 0;
    }
    let _interval: u64 = cmdline::number_or(tool, &p, "intervaltime", 10, 0)?;
    let (message_cpus, worker_cpus, auto_pin) = pinning(tool, &p, m, nr_cpus)?;
    // In u128: `-m` × `-t` must not wrap around the check (found by fuzzing).
    if workers as u128 * m as u128 > 200_000 {
        return Err(InputError::new(
            "schbench -m/-t",
            format!("{} threads is more than the simulator takes", workers * m),
        )
        .with_fix("use fewer message or worker threads"));
    }
    Ok(Params {
        message_threads: m,
        workers,
        workers_auto: t == 0,
        runtime_s,
        rps_per_thread: rps_total / m as u64,
        rps_total,
        operations: cmdline::number_or(tool, &p, "operations", 5, 0)?,
        footprint_kb: cmdline::number_or(tool, &p, "cache_footprint", 256, 0)?,
        sleep_us: cmdline::number_or(tool, &p, "sleep_usec", 100, 0)?,
        calibrate,
        locking: !(p.has("no-locking") || calibrate),
        pipe_bytes: pipe_bytes.min(PIPE_TRANSFER_MAX),
        warmup_s,
        zero_s: cmdline::number_or(tool, &p, "zerotime", 0, 0)?,
        message_cpus,
        worker_cpus,
        auto_pin,
    })
}

type Pinning = (Option<Vec<usize>>, Option<Vec<usize>>, bool);

/// -M / -W: CPU lists, or `auto` (message thread i on CPU i, workers on the rest).
fn pinning(tool: &str, p: &Parsed, m: usize, nr_cpus: usize) -> Result<Pinning, InputError> {
    let mut auto = false;
    let mut lists = [None, None];
    for (k, long) in ["message-cpus", "worker-cpus"].iter().enumerate() {
        let Some((spec, v)) = p.get(long) else {
            continue;
        };
        if v == "auto" {
            auto = true;
            continue;
        }
        let cpus = parse_cpulist(v).map_err(|e| {
            InputError::new(format!("{tool} {}", spec.display()), e)
                .with_fix(format!("write e.g. {} 0-3,8 or auto", spec.display()))
        })?;
        if cpus.is_empty() {
            // Found by fuzzing: `-M ,` divided by the empty list's length.
            return Err(InputError::new(
                format!("{tool} {}", spec.display()),
                "the CPU list is empty",
            )
            .with_fix(format!("write e.g. {} 0-3,8 or auto", spec.display())));
        }
        if let Some(bad) = cpus.iter().find(|&&c| c >= nr_cpus) {
            return Err(InputError::new(
                format!("{tool} {}", spec.display()),
                format!("CPU {bad} does not exist ({nr_cpus} CPUs)"),
            )
            .with_fix(format!("use CPU ids 0..{}", nr_cpus - 1)));
        }
        lists[k] = Some(cpus);
    }
    if auto {
        if m >= nr_cpus {
            return Err(InputError::new(
                format!("{tool} -M/-W auto"),
                format!("{m} message threads leave no CPU for the workers"),
            )
            .with_fix("use fewer message threads or explicit CPU lists"));
        }
        return Ok((Some((0..m).collect()), Some((m..nr_cpus).collect()), true));
    }
    let [mc, wc] = lists;
    Ok((mc, wc, false))
}

/// Work of one request's math in reference ns: `n` multiplies of size³ multiply-adds at
/// the machine's `matrix_mac_ps`.
pub fn request_work_ns(p: &Params, costs: &Costs) -> Ns {
    let size = ((p.footprint_kb * 1024 / 3 / 8) as f64).sqrt() as u64;
    p.operations * size.pow(3) * costs.matrix_mac_ps / 1000
}

/// Logs: 0 wakeup latency, 1 request latency (one sample per completed request).
const LOG_WAKEUP: usize = 0;
const LOG_REQUEST: usize = 1;

/// Compile into tasks: main (task 0), then per message thread its thread and workers.
pub fn build(
    p: &Params,
    command: &str,
    nr_cpus: usize,
    costs: &Costs,
) -> Result<Compiled, InputError> {
    let (m, w) = (p.message_threads, p.workers);
    let work = request_work_ns(p, costs);
    let memset = |bytes: u64| bytes * 1000 / MEMSET_BYTES_PER_US;
    let mut objects: Vec<ObjectSpec> = Vec::new();
    let locks = objects.len();
    if p.locking && p.pipe_bytes == 0 {
        objects.extend((0..nr_cpus).map(|_| ObjectSpec::Mutex));
    }
    let mut timers = Vec::new();
    let task = |comm: &str, cpus: Option<Vec<usize>>, delay_ns: Ns, program: Vec<Op>| {
        TaskSpec::new(comm.to_string(), program)
            .cpus(cpus)
            .delay(delay_ns)
    };
    // main: wakes every second to sample RPS; the run's length is the time limit.
    let mut tasks = vec![task(
        "schbench",
        None,
        0,
        vec![
            Op::LoopBegin { count: None },
            Op::Sleep { ns: NSEC_PER_SEC },
            Op::LoopEnd,
        ],
    )];
    for mi in 0..m {
        let msg_cpus = p.message_cpus.as_ref().map(|l| vec![l[mi % l.len()]]);
        let msg_sem = objects.len();
        objects.push(ObjectSpec::Semaphore { initial: 0, max: 1 });
        let list = objects.len();
        objects.push(ObjectSpec::WaitQueue);
        let req_base = objects.len();
        if p.rps_per_thread > 0 {
            objects.extend((0..w).map(|_| ObjectSpec::Semaphore {
                initial: 0,
                max: RPS_BATCH + 1,
            }));
        }
        // The message thread.
        let msg_prog = if p.rps_per_thread > 0 {
            let timer = timers.len();
            timers.push(TimerSpec {
                name: format!("schbench-rps{mi}"),
            });
            rps_program(
                p.rps_per_thread,
                w,
                req_base,
                timer,
                RPS_POST_NS + costs.futex_wake_ns,
            )?
        } else {
            let mut body = vec![Op::LoopBegin { count: None }];
            if p.pipe_bytes > 0 {
                body.push(Op::Run {
                    work_ns: memset(p.pipe_bytes),
                });
            }
            body.extend([
                Op::Broadcast { obj: list },
                Op::SemWait { obj: msg_sem },
                Op::LoopEnd,
            ]);
            body
        };
        tasks.push(task("schbench-msg", msg_cpus, 0, msg_prog));
        // Its workers.
        for wi in 0..w {
            let mut prog = vec![Op::LoopBegin { count: None }];
            if p.rps_per_thread > 0 {
                prog.push(Op::SemWait { obj: req_base + wi });
            } else {
                if p.pipe_bytes > 0 {
                    prog.push(Op::Run {
                        work_ns: memset(p.pipe_bytes),
                    });
                }
                prog.extend([Op::SemPost { obj: msg_sem }, Op::Wait { obj: list }]);
            }
            prog.push(Op::Record {
                log: LOG_WAKEUP,
                since: Since::Woken,
            });
            let sleep = (p.sleep_us > 0).then_some(Op::Sleep {
                ns: p.sleep_us * 1000,
            });
            if p.pipe_bytes > 0 {
                prog.push(Op::Stamp { slot: 0 });
            } else {
                if p.calibrate {
                    prog.extend(sleep.clone());
                    prog.push(Op::Stamp { slot: 0 });
                } else {
                    prog.push(Op::Stamp { slot: 0 });
                    prog.extend(sleep);
                }
                if p.locking {
                    prog.push(Op::SpinLockCpu { first_obj: locks });
                }
                prog.push(Op::Run { work_ns: work });
                if p.locking {
                    prog.push(Op::SpinUnlockCpu);
                }
            }
            prog.extend([
                Op::Record {
                    log: LOG_REQUEST,
                    since: Since::Stamp(0),
                },
                Op::LoopEnd,
            ]);
            let delay = costs.thread_create_ns * (wi as u64 + 1);
            tasks.push(task("schbench-worker", p.worker_cpus.clone(), delay, prog));
        }
    }
    Ok(Compiled {
        workload: Workload {
            tasks,
            timers,
            objects,
            duration_ns: (p.runtime_s > 0).then(|| p.runtime_s * NSEC_PER_SEC),
            logs: vec!["schbench.wakeup".into(), "schbench.request".into()],
            ..Workload::default()
        },
        reports: vec![ToolReport::Schbench(SchbenchReport {
            base: Base::default(),
            command: command.to_string(),
            params: p.clone(),
            request_work_ns: work,
        })],
    })
}

/// run_rps_thread: every second `rps` requests round-robin over the workers (the
/// rotation carries over from one second to the next), then sleep to the 1 s mark.
fn rps_program(
    rps: u64,
    workers: usize,
    req_base: usize,
    timer: usize,
    post_ns: Ns,
) -> Result<Vec<Op>, InputError> {
    let turn = super::rotation::one_turn(rps, workers as u64, 5_000_000).map_err(|posts| {
        InputError::new(
            "schbench -R",
            format!("{rps} requests/s over {workers} workers unrolls to {posts} posts"),
        )
        .with_fix("use an -R that is a multiple of the worker count, or fewer requests")
    })?;
    let mut prog = vec![Op::LoopBegin { count: None }];
    for round in turn {
        for worker in round {
            prog.push(Op::Run { work_ns: post_ns });
            prog.push(Op::SemPost {
                obj: req_base + worker as usize,
            });
        }
        prog.push(Op::Timer {
            timer,
            period_ns: NSEC_PER_SEC,
            mode: TimerMode::Relative,
        });
    }
    prog.push(Op::LoopEnd);
    Ok(prog)
}

/// Post-run state of a schbench workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchbenchReport {
    pub base: Base,
    pub command: String,
    pub params: Params,
    /// Reference ns of matrix math per request on the machine it was built for.
    pub request_work_ns: Ns,
}

/// A printed percentile table.
#[derive(Debug, Clone, Serialize)]
pub struct PctTable {
    pub total_samples: u64,
    /// Every percentile of schbench's list (20, 50, 90, 99, 99.9; the 2021 version: 50,
    /// 75, 90, 95, 99, 99.5, 99.9), printed or not.
    pub rows: Vec<PctRowOut>,
    pub min: u32,
    pub max: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct PctRowOut {
    pub pct: f64,
    pub value: u32,
    pub samples: u64,
}

impl PctTable {
    fn from(h: &PlatHist) -> PctTable {
        Self::of(h, &super::plat_hist::PLIST)
    }

    /// The table over a percentile list of another schbench version.
    pub(super) fn of(h: &PlatHist, plist: &[f64]) -> PctTable {
        PctTable {
            total_samples: h.nr_samples,
            rows: h
                .percentiles_of(plist)
                .iter()
                .map(
                    |&PctRow {
                         pct,
                         value,
                         samples,
                     }| PctRowOut {
                        pct,
                        value,
                        samples,
                    },
                )
                .collect(),
            min: h.min,
            max: h.max,
        }
    }
}

/// schbench's section of the result document.
#[derive(Debug, Clone, Serialize)]
pub struct SchbenchResult {
    pub command: String,
    /// What the real tool prints at the end (on stderr).
    pub output: String,
    pub message_threads: usize,
    pub workers_per_message_thread: usize,
    pub runtime_s: u64,
    /// `-R` as given (0 = saturation mode).
    pub rps_target: u64,
    /// Reference ns of matrix math per request.
    pub request_work_ns: u64,
    /// Latencies in µs, after the warm-up / zeroing resets.
    pub wakeup_latency_us: PctTable,
    pub request_latency_us: PctTable,
    /// Wake-ups measured as 0 µs (not recorded by the tool).
    pub wakeup_zero_us_dropped: u64,
    pub rps: PctTable,
    /// Requests completed / runtime.
    pub average_rps: f64,
    pub requests: u64,
    pub sched_delay_message_us: u64,
    pub sched_delay_worker_us: u64,
}

/// bit masks of the printed rows (PLIST_FOR_LAT, PLIST_FOR_RPS) and starred rows.
const PLIST_FOR_LAT: u32 = 0b11110;
const PLIST_FOR_RPS: u32 = 0b00111;
const PLIST_PIPE: u32 = 0b11111;
const STAR_99: usize = 3;
const STAR_50: usize = 1;

impl SchbenchReport {
    pub fn render(&self, run: &RunView) -> WorkloadSection {
        let p = &self.params;
        let logs = &run.probes.logs[self.base.log..];
        // Stats are zeroed at the warm-up mark and every -z seconds (reset_thread_stats).
        let reset_at = self.last_reset(run.end_ns);
        let (wakeup, dropped) = hist_us(&logs[LOG_WAKEUP], reset_at);
        let (request, _) = hist_us(&logs[LOG_REQUEST], reset_at);
        let rps = self.rps_hist(&logs[LOG_REQUEST], run.end_ns);
        let loop_count = logs[LOG_REQUEST].len() as u64;
        let runtime = p.runtime_s;
        let (msg_delay, worker_delay) = self.sched_delay(run);

        let mut out = String::new();
        if p.workers_auto {
            out.push_str(&format!("setting worker threads to {}\n", p.workers));
        }
        if p.auto_pin {
            out.push_str("auto pinning message and worker threads\n");
        }
        if let Some(mc) = &p.message_cpus {
            for i in 0..p.message_threads {
                out.push_str(&format!(
                    "Pinning to message thread index {i} cpu {}\n",
                    mc[i % mc.len()]
                ));
            }
        }
        let average_rps = if runtime > 0 {
            loop_count as f64 / runtime as f64
        } else {
            0.0
        };
        if p.pipe_bytes > 0 {
            out.push_str(&wakeup.show("Wakeup Latencies", "usec", runtime, PLIST_PIPE, STAR_99));
            // loop_runtime is the sum of the workers' run times.
            let loop_runtime_us =
                (run.end_ns / 1000).max(1) * (p.workers * p.message_threads) as u64;
            let ops = loop_count as f64 * 1e6 / loop_runtime_us as f64;
            let (size, unit) = pretty_size(ops * p.pipe_bytes as f64);
            out.push_str(&format!(
                "avg worker transfer: {ops:.2} ops/sec {size:.2}{unit}/s\n"
            ));
        } else {
            out.push_str(&wakeup.show("Wakeup Latencies", "usec", runtime, PLIST_FOR_LAT, STAR_99));
            out.push_str(&request.show(
                "Request Latencies",
                "usec",
                runtime,
                PLIST_FOR_LAT,
                STAR_99,
            ));
            out.push_str(&rps.show("RPS", "requests", runtime, PLIST_FOR_RPS, STAR_50));
            out.push_str(&format!("average rps: {average_rps:.2}\n"));
            out.push_str(&format!(
                "sched delay: message {} (usec) worker {} (usec)\n",
                msg_delay / 1000,
                worker_delay / 1000
            ));
        }
        WorkloadSection::Schbench(Box::new(SchbenchResult {
            command: self.command.clone(),
            output: out,
            message_threads: p.message_threads,
            workers_per_message_thread: p.workers,
            runtime_s: runtime,
            rps_target: p.rps_total,
            request_work_ns: self.request_work_ns,
            wakeup_latency_us: PctTable::from(&wakeup),
            request_latency_us: PctTable::from(&request),
            wakeup_zero_us_dropped: dropped,
            rps: PctTable::from(&rps),
            average_rps: (average_rps * 100.0).round() / 100.0,
            requests: loop_count,
            sched_delay_message_us: msg_delay / 1000,
            sched_delay_worker_us: worker_delay / 1000,
        }))
    }

    /// The last moment the stats were zeroed (0 = never).
    fn last_reset(&self, end_ns: Ns) -> Ns {
        let p = &self.params;
        let mut at = 0;
        if p.warmup_s > 0 && p.rps_per_thread == 0 && p.pipe_bytes == 0 {
            at = p.warmup_s * NSEC_PER_SEC;
        }
        if p.zero_s > 0 {
            // Checked once a second; zeroed when more than -z seconds have passed.
            let mut z = at;
            let mut k = 1;
            while k * NSEC_PER_SEC <= end_ns {
                if k * NSEC_PER_SEC > z + p.zero_s * NSEC_PER_SEC {
                    z = k * NSEC_PER_SEC;
                }
                k += 1;
            }
            at = z;
        }
        at.min(end_ns)
    }

    /// main's once-a-second RPS samples: Δrequests / Δtime at t = 0, 1, …, runtime (the
    /// first is 0/0 and recorded as 0); the warm-up second resets instead of sampling.
    fn rps_hist(&self, requests: &[super::Sample], end_ns: Ns) -> PlatHist {
        let p = &self.params;
        let mut h = PlatHist::default();
        let last = end_ns / NSEC_PER_SEC;
        let warm = p.warmup_s > 0 && p.rps_per_thread == 0;
        let mut prev = 0usize;
        for k in 0..=last {
            let t = k * NSEC_PER_SEC;
            let done = requests.partition_point(|s| s.at <= t);
            if warm && k == p.warmup_s {
                h = PlatHist::default();
            } else if k == 0 {
                h.add(0);
            } else {
                h.add((done - prev) as u32);
            }
            prev = done;
        }
        h
    }

    /// collect_sched_delay: mean run_delay/pcount (ns) of the message threads and of the
    /// workers.
    fn sched_delay(&self, run: &RunView) -> (u64, u64) {
        let p = &self.params;
        let per_task = |id: usize| {
            let t = &run.tasks[id];
            t.wait_time_ns / t.nr_switches.max(1)
        };
        let (mut msg, mut wrk) = (0, 0);
        for mi in 0..p.message_threads {
            let first = self.base.task + 1 + mi * (p.workers + 1);
            msg += per_task(first);
            wrk += (0..p.workers).map(|i| per_task(first + 1 + i)).sum::<u64>();
        }
        (
            msg / p.message_threads as u64,
            wrk / (p.message_threads * p.workers).max(1) as u64,
        )
    }
}

/// The log as schbench's µs histogram from `from` on; also how many 0 µs samples the
/// tool would not have recorded.
fn hist_us(log: &[super::Sample], from: Ns) -> (PlatHist, u64) {
    let mut h = PlatHist::default();
    let mut zero = 0;
    for s in log.iter().filter(|s| s.at >= from) {
        let us = s.value / 1000;
        if us > 0 {
            h.add(us.min(u32::MAX as u64) as u32);
        } else {
            zero += 1;
        }
    }
    (h, zero)
}

fn pretty_size(mut n: f64) -> (f64, &'static str) {
    let units = ["B", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut i = 0;
    while n >= 1024.0 && i + 1 < units.len() {
        n /= 1024.0;
        i += 1;
    }
    (n, units[i])
}
