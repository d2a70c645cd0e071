//! hackbench (rt-tests) and `perf bench sched messaging` (user guide
//! docs/workloads.md, hackbench and perf-bench-messaging).
//!
//! Wiring as in rt-tests' `group()`: per group `fds` channels (a pipe, or a UNIX stream
//! socketpair by default), one receiver per channel, `fds` senders that each hold every
//! channel's write end. A sender writes `loops` rounds of one `datasize` message to each
//! channel in fd order; a receiver reads `fds × loops` messages. Every worker first writes
//! one byte to the ready channel and polls the wake channel; main reads one ready byte per
//! worker, takes the start time, writes the single GO byte (never consumed, so every
//! poller wakes) and reaps the workers: `pthread_join` in creation order (threads) or one
//! `wait()` per child (processes). `Time:` is GO → last reap, as the real tool measures.

use super::cmdline::{self, flag, long_flag, value, OptSpec, Parsed};
use super::program::{Base, ObjectSpec, Since};
use super::report::{RunView, ToolReport, WorkloadSection};
use super::{Compiled, Op, Policy, SchedChange, TaskSpec, Workload};
use crate::error::InputError;
use crate::machine::Costs;
use crate::time::Ns;
use serde::Serialize;

/// A pipe buffer's page (the exit channel is sized in them).
const PAGE_SIZE: u64 = 4096;

/// Which command line the workload came from (they share the engine, not the output).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Hackbench,
    PerfMessaging,
}

/// The parameters of one run (after defaults).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    pub groups: u32,
    pub fds: u32,
    pub loops: u64,
    pub datasize: u64,
    pub threads: bool,
    pub pipe: bool,
    /// hackbench -F / --fifo: main turns itself SCHED_FIFO at sched_priority 1 once every
    /// worker is created, before it collects their ready bytes ("so that we can manage
    /// the workers"); the workers stay SCHED_OTHER.
    pub fifo: bool,
}

/// The sched_priority hackbench -F gives main.
pub const FIFO_PRIORITY: u32 = 1;

const HACKBENCH_OPTS: &[OptSpec] = &[
    value('g', "groups"),
    value('f', "fds"),
    value('l', "loops"),
    value('s', "datasize"),
    flag('T', "threads"),
    flag('P', "process"),
    long_flag("processes"),
    flag('p', "pipe"),
    flag('F', "fifo"),
    flag('i', "inet"),
    flag('h', "help"),
];

/// Parse `hackbench ARGS…` (rt-tests' getopt string "f:Fg:hl:pis:TP").
pub fn parse_hackbench(args: &[String]) -> Result<Params, InputError> {
    let tool = "hackbench";
    let p = cmdline::getopt(tool, args, HACKBENCH_OPTS)?;
    cmdline::no_positional(tool, &p)?;
    reject(
        tool,
        &p,
        "inet",
        "TCP over loopback is not modelled; use sockets or --pipe",
    )?;
    reject(tool, &p, "help", "there is no usage text to print")?;
    let threads = last_mode(&p);
    let params = Params {
        groups: cmdline::number_or(tool, &p, "groups", 10, 1)?,
        fds: cmdline::number_or(tool, &p, "fds", 20, 1)?,
        loops: cmdline::number_or(tool, &p, "loops", 100, 1)?,
        datasize: cmdline::number_or(tool, &p, "datasize", 100, 1)?,
        threads,
        pipe: p.has("pipe"),
        fifo: p.has("fifo"),
    };
    check_size(tool, &params)?;
    Ok(params)
}

/// Every sender holds every channel of its group: the tasks and the fds² channel ends
/// must stay within what the simulator allocates (found by fuzzing: `-f 100001`).
fn check_size(tool: &str, p: &Params) -> Result<(), InputError> {
    let at = format!("-g {} -f {}", p.groups, p.fds);
    let (g, f) = (p.groups as u128, p.fds as u128);
    cmdline::check_tasks(tool, &at, 1 + 2 * g * f)?;
    cmdline::check_tasks(tool, &at, g * f * f / 64)
}

const PERF_OPTS: &[OptSpec] = &[
    flag('p', "pipe"),
    flag('t', "thread"),
    value('g', "group"),
    value('l', "nr_loops"),
];

/// Parse `perf-bench-messaging ARGS…` (`perf bench sched messaging`: 20 fds and 100-byte
/// messages are fixed in its source).
pub fn parse_perf_messaging(args: &[String]) -> Result<Params, InputError> {
    let tool = "perf-bench-messaging";
    let p = cmdline::getopt(tool, args, PERF_OPTS)?;
    cmdline::no_positional(tool, &p)?;
    let params = Params {
        groups: cmdline::number_or(tool, &p, "group", 10, 1)?,
        fds: 20,
        loops: cmdline::number_or(tool, &p, "nr_loops", 100, 1)?,
        datasize: 100,
        threads: p.has("thread"),
        pipe: p.has("pipe"),
        fifo: false,
    };
    check_size(tool, &params)?;
    Ok(params)
}

fn reject(tool: &str, p: &Parsed, long: &str, why: &str) -> Result<(), InputError> {
    match p.get(long) {
        Some((spec, _)) => Err(cmdline::unsupported(tool, spec, why)),
        None => Ok(()),
    }
}

/// -T / -P (--process or rt-tests' --processes): the last one given wins, as in getopt
/// order; process mode is the default.
fn last_mode(p: &Parsed) -> bool {
    p.opts
        .iter()
        .rev()
        .find(|(s, _)| matches!(s.long, "threads" | "process" | "processes"))
        .is_some_and(|(s, _)| s.long == "threads")
}

/// Compile the run into tasks. Task 0 is main, then per group its receivers and senders
/// (creation order); counter `g*fds + r` counts receiver r's messages; log 0 holds the
/// one GO → reaped interval.
/// What a message costs comes from the machine (`costs`: pipe or socket write and read,
/// per-KiB copy; docs/machines.md).
pub fn build(
    params: &Params,
    flavor: Flavor,
    command: &str,
    costs: &Costs,
) -> Result<Compiled, InputError> {
    let Params {
        groups,
        fds,
        loops,
        datasize,
        threads,
        pipe,
        fifo,
    } = params.clone();
    let workers = u64::from(groups) * u64::from(fds) * 2;
    if workers > 1_000_000 {
        return Err(InputError::new(
            format!("{} -g/-f", flavor_name(flavor)),
            format!("{workers} tasks is more than the simulator takes (1,000,000)"),
        )
        .with_fix("use fewer groups or fds"));
    }
    let workers = workers as usize;
    let (g, f) = (groups as usize, fds as usize);
    // What one message costs the writer and the reader on this machine.
    let write_ns = costs.msg_write_ns(!pipe, datasize);
    let read_ns = costs.msg_read_ns(!pipe, datasize);
    // fdpair(): every channel, the ready and wake ones included, is a pipe with --pipe
    // and an AF_UNIX stream socketpair otherwise.
    let channel = if pipe {
        ObjectSpec::pipe()
    } else {
        ObjectSpec::unix_stream()
    };
    // Objects: 0 ready channel, 1 wake channel, 2 exit notification (process mode: the
    // parent's wait() as a byte per child, in a pipe big enough never to block), then
    // per worker a join futex (threads), then the group channels.
    let exit_slots = (workers as u64)
        .div_ceil(PAGE_SIZE)
        .next_power_of_two()
        .max(16) as u32;
    let mut objects = vec![channel, channel, ObjectSpec::Pipe { slots: exit_slots }];
    let join_base = objects.len();
    if threads {
        objects.extend((0..workers).map(|_| ObjectSpec::Semaphore { initial: 0, max: 1 }));
    }
    let chan_base = objects.len();
    objects.extend((0..g * f).map(|_| channel));
    let (ready, wake, exited) = (0, 1, 2);

    // Main's cost to create one worker: pthread_create, or fork() of a small process.
    let create = if threads {
        costs.thread_create_ns
    } else {
        costs.process_create_ns
    };
    let comm = match flavor {
        Flavor::Hackbench => "hackbench",
        Flavor::PerfMessaging => "sched-messaging",
    };
    // Every task's working set: its state plus the message buffer.
    let working_set = costs.messaging_state_bytes + datasize;
    let task = |delay_ns: Ns, program: Vec<Op>| {
        TaskSpec::new(comm.to_string(), program)
            .delay(delay_ns)
            .working_set(working_set)
    };
    let start_gate = [
        Op::Write {
            obj: ready,
            bytes: 1,
        },
        Op::Poll { obj: wake },
    ];
    let mut main = vec![Op::Run {
        work_ns: create * workers as u64,
    }];
    if fifo {
        main.push(Op::SetSched(Box::new(SchedChange {
            policy: Some(Policy::Fifo),
            rt_priority: Some(FIFO_PRIORITY),
            ..SchedChange::default()
        })));
    }
    main.extend([
        Op::LoopBegin {
            count: Some(workers as u64),
        },
        Op::Read {
            obj: ready,
            bytes: 1,
        },
        Op::LoopEnd,
        Op::Stamp { slot: 0 },
        Op::Write {
            obj: wake,
            bytes: 1,
        },
    ]);
    if threads {
        main.extend((0..workers).map(|i| Op::SemWait { obj: join_base + i }));
    } else {
        main.extend([
            Op::LoopBegin {
                count: Some(workers as u64),
            },
            Op::Read {
                obj: exited,
                bytes: 1,
            },
            Op::LoopEnd,
        ]);
    }
    main.push(Op::Record {
        log: 0,
        since: Since::Stamp(0),
    });
    let mut tasks = vec![task(0, main)];
    // A worker's exit wakes main: pthread_join's futex (threads), or a byte main's
    // wait() reads (processes).
    let worker_task = |worker: usize, mut prog: Vec<Op>| {
        if !threads {
            prog.push(Op::Write {
                obj: exited,
                bytes: 1,
            });
        }
        let spec = task(create * (worker as u64 + 1), prog);
        if threads {
            spec.exit_post(join_base + worker)
        } else {
            spec
        }
    };
    for grp in 0..g {
        let chans: Vec<usize> = (0..f).map(|j| chan_base + grp * f + j).collect();
        for (r, &chan) in chans.iter().enumerate() {
            let worker = grp * 2 * f + r;
            let mut prog = start_gate.to_vec();
            prog.extend([
                Op::LoopBegin {
                    count: Some(u64::from(fds) * loops),
                },
                Op::Read {
                    obj: chan,
                    bytes: datasize,
                },
                Op::Run { work_ns: read_ns },
                Op::Count {
                    counter: grp * f + r,
                },
                Op::LoopEnd,
            ]);
            let counter = grp * f + r;
            tasks.push(worker_task(worker, prog).private(chan..chan + 1, counter..counter + 1));
        }
        for s in 0..f {
            let worker = grp * 2 * f + f + s;
            let mut prog = start_gate.to_vec();
            prog.push(Op::LoopBegin { count: Some(loops) });
            for &chan in &chans {
                prog.push(Op::Run { work_ns: write_ns });
                prog.push(Op::Write {
                    obj: chan,
                    bytes: datasize,
                });
            }
            prog.push(Op::LoopEnd);
            tasks.push(worker_task(worker, prog).private(chans[0]..chans[0] + f, 0..0));
        }
    }
    Ok(Compiled {
        workload: Workload {
            tasks,
            objects,
            counters: (0..g * f)
                .map(|i| format!("{comm}.g{}.r{}.messages", i / f, i % f))
                .collect(),
            logs: vec![format!("{comm}.time")],
            ..Workload::default()
        },
        reports: vec![ToolReport::Hackbench(HackbenchReport {
            base: Base::default(),
            flavor,
            command: command.to_string(),
            params: params.clone(),
        })],
    })
}

fn flavor_name(f: Flavor) -> &'static str {
    match f {
        Flavor::Hackbench => "hackbench",
        Flavor::PerfMessaging => "perf-bench-messaging",
    }
}

/// Post-run state of a hackbench workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HackbenchReport {
    pub base: Base,
    pub flavor: Flavor,
    pub command: String,
    pub params: Params,
}

/// hackbench's section of the result document.
#[derive(Debug, Clone, Serialize)]
pub struct HackbenchResult {
    pub command: String,
    /// What the real tool prints on stdout.
    pub output: String,
    /// "threaded" or "process".
    pub mode: String,
    /// "pipe" or "socket".
    pub transport: String,
    pub groups: u32,
    pub fds: u32,
    pub loops: u64,
    pub datasize: u64,
    /// Worker tasks (main not counted).
    pub tasks: u64,
    /// Main reaped every worker before the time limit.
    pub finished: bool,
    /// GO → last worker reaped, simulated; null when not finished.
    pub time_ns: Option<u64>,
    /// The printed figure: seconds, truncated to ms as the tool prints it.
    pub time_s: Option<f64>,
    /// groups × fds² × loops.
    pub messages_expected: u64,
    pub messages_received: u64,
    /// Fewest and most messages one receiver got (each should get fds × loops).
    pub receiver_messages_min: u64,
    pub receiver_messages_max: u64,
}

impl HackbenchReport {
    pub fn render(&self, run: &RunView) -> WorkloadSection {
        let p = &self.params;
        let (g, f) = (p.groups as usize, p.fds as usize);
        let counts = &run.probes.counters[self.base.counter..self.base.counter + g * f];
        let time_ns = run.probes.logs[self.base.log].first().map(|s| s.value);
        // gettimeofday: µs; printed as "%lu.%03lu" (seconds, then ms truncated).
        let time_us = time_ns.map(|ns| ns / 1_000);
        let workers = u64::from(p.groups) * u64::from(p.fds) * 2;
        let mode = if p.threads { "threaded" } else { "process" };
        let mut out = String::new();
        match self.flavor {
            Flavor::Hackbench => {
                out.push_str(&format!(
                    "Running in {mode} mode with {} groups using {} file descriptors each (== {} tasks)\n",
                    p.groups,
                    2 * p.fds,
                    workers
                ));
                out.push_str(&format!(
                    "Each sender will pass {} messages of {} bytes\n",
                    p.loops, p.datasize
                ));
                if let Some(us) = time_us {
                    out.push_str(&format!(
                        "Time: {}.{:03}\n",
                        us / 1_000_000,
                        us % 1_000_000 / 1000
                    ));
                }
            }
            Flavor::PerfMessaging => {
                let what = if p.threads { "threads" } else { "processes" };
                out.push_str("# Running 'sched/messaging' benchmark:\n");
                out.push_str(&format!(
                    "# {} sender and receiver {what} per group\n",
                    p.fds
                ));
                out.push_str(&format!(
                    "# {} groups == {workers} {what} run\n\n",
                    p.groups
                ));
                if let Some(us) = time_us {
                    out.push_str(&format!(
                        " {:>14}: {}.{:03} [sec]\n",
                        "Total time",
                        us / 1_000_000,
                        us % 1_000_000 / 1000
                    ));
                }
            }
        }
        let result = HackbenchResult {
            command: self.command.clone(),
            output: out,
            mode: mode.to_string(),
            transport: if p.pipe { "pipe" } else { "socket" }.to_string(),
            groups: p.groups,
            fds: p.fds,
            loops: p.loops,
            datasize: p.datasize,
            tasks: workers,
            finished: time_ns.is_some(),
            time_ns,
            time_s: time_us.map(|us| (us / 1000) as f64 / 1000.0),
            messages_expected: u64::from(p.groups) * u64::from(p.fds).pow(2) * p.loops,
            messages_received: counts.iter().sum(),
            receiver_messages_min: counts.iter().copied().min().unwrap_or(0),
            receiver_messages_max: counts.iter().copied().max().unwrap_or(0),
        };
        match self.flavor {
            Flavor::Hackbench => WorkloadSection::Hackbench(result),
            Flavor::PerfMessaging => WorkloadSection::PerfBenchMessaging(result),
        }
    }
}
