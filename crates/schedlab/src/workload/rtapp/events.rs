//! rt-app events → ops. Each event is one entry of a task or phase object, run in file
//! order; keys are matched by prefix as rt-app does (`run1`, `sleep_a`, `lock2`, …).

use super::json::Json;
use super::resources::Kind;
use super::{Compiler, LocalTimer};
use crate::error::InputError;
use crate::time::Ns;
use crate::workload::{Op, TimerMode};

/// rt-app event names in the order they are tried as key prefixes (`runtime` before
/// `run`, `memrun` before `mem`), so `run1` is a run and `runtime0` a runtime.
pub const EVENT_PREFIXES: &[&str] = &[
    "lock", "unlock", "wait", "signal", "broad", "sync", "sleep", "runtime", "run", "timer",
    "suspend", "resume", "memrun", "mem", "iorun", "yield", "barrier", "fork", "sem_post",
    "sem_wait",
];

/// The rt-app event a key names, by prefix as rt-app matches it.
pub fn event_name(key: &str) -> Option<&'static str> {
    EVENT_PREFIXES.iter().copied().find(|e| key.starts_with(e))
}

/// `mem`: rt-app memsets its per-thread buffer. Modelled as CPU work at this write
/// bandwidth (bytes per µs of reference-CPU time), an estimate for one core's memset of
/// a few-MiB buffer (roughly 10–30 GB/s on current desktop and server cores).
pub const MEM_WRITE_BYTES_PER_US: u64 = 16_000;

/// `iorun`: rt-app write()s the buffer to `io_device` in `mem_buffer_size` chunks. On
/// /dev/null the kernel copies nothing (write_null returns at once), so the cost is one
/// syscall per chunk: this much reference-CPU time (entry/exit with mitigations, fdget,
/// vfs_write), an estimate.
pub const IO_WRITE_SYSCALL_NS: Ns = 1_000;

/// rt-app's default `mem_buffer_size` (4 MiB).
pub const DEFAULT_MEM_BUFFER: u64 = 4 << 20;

/// What one task's events share while being compiled.
pub struct TaskCtx<'a> {
    /// The task's JSON key (`suspend` without a name waits on it, as workgen fills in).
    pub name: &'a str,
    /// Timer refs seen in this task; `Op::Timer` holds an index here until the task's
    /// threads are created.
    pub timers: Vec<LocalTimer>,
    /// Mutexes a `lock` event has taken and no `unlock` has released yet, in file order.
    pub held: Vec<usize>,
}

impl Compiler<'_> {
    /// Compile one event into its ops.
    pub(super) fn event(
        &mut self,
        key: &str,
        v: &Json,
        path: &str,
        cx: &mut TaskCtx,
    ) -> Result<Vec<Op>, InputError> {
        if key.starts_with("external_workload") {
            return Err(self
                .err(
                    path,
                    "`external_workload` is not supported: it calls a function from a \
                           shared library, whose work cannot be known",
                )
                .with_fix("replace it by `run` events of the function's typical duration"));
        }
        let Some(kind) = event_name(key) else {
            return Err(self.unknown_key(
                path,
                "instance, loop, delay, phases, policy, priority, cpus, util_min, util_max, \
                 dl-runtime, or an event (run, runtime, sleep, timer, lock, unlock, wait, \
                 signal, broad, sync, barrier, suspend, resume, sem_post, sem_wait, fork, \
                 mem, iorun, yield)",
            ));
        };
        Ok(match kind {
            "run" => vec![Op::Run {
                work_ns: self.micros(v, path)?,
            }],
            "runtime" => vec![Op::RunWall {
                ns: self.micros(v, path)?,
            }],
            "sleep" => vec![Op::Sleep {
                ns: self.micros(v, path)?,
            }],
            "timer" => vec![self.timer(v, path, &mut cx.timers)?],
            // rt-app ignores the value (examples write "yield": "").
            "yield" => vec![Op::Yield],
            "lock" => {
                let obj = self.obj(Kind::Mutex, v, path)?;
                cx.held.push(obj);
                vec![Op::Lock { obj }]
            }
            "unlock" => {
                let obj = self.obj(Kind::Mutex, v, path)?;
                cx.held.retain(|&m| m != obj);
                vec![Op::Unlock { obj }]
            }
            "signal" => vec![Op::Signal {
                obj: self.obj(Kind::Cond, v, path)?,
            }],
            "broad" => vec![Op::Broadcast {
                obj: self.obj(Kind::Cond, v, path)?,
            }],
            "wait" | "sync" => self.cond_wait(kind == "sync", v, path, cx)?,
            "barrier" => vec![Op::BarrierWait {
                obj: self.obj(Kind::Barrier, v, path)?,
            }],
            // rt-app: wait on the condvar the string names; workgen fills an empty or
            // missing name with the task's own. The mutex rt-app takes around it is only
            // held for an instant, so it cannot be contended in simulated time.
            "suspend" => {
                let name = match v {
                    Json::Absent | Json::Null => cx.name,
                    Json::Str(s) if s.is_empty() => cx.name,
                    _ => self.string(v, path)?,
                };
                vec![Op::Wait {
                    obj: self.resources.get(Kind::Cond, name),
                }]
            }
            // pthread_cond_broadcast: nobody suspended → the resume is lost.
            "resume" => vec![Op::Broadcast {
                obj: self.obj(Kind::Cond, v, path)?,
            }],
            "sem_post" => vec![Op::SemPost {
                obj: self.obj(Kind::Semaphore, v, path)?,
            }],
            "sem_wait" => vec![Op::SemWait {
                obj: self.obj(Kind::Semaphore, v, path)?,
            }],
            "fork" => {
                let target = self.name(v, path)?.to_string();
                vec![Op::Fork {
                    template: self.resources.fork_target(&target, path),
                }]
            }
            "mem" => {
                let bytes = self.bytes(v, path)?;
                vec![Op::Run {
                    work_ns: (bytes * 1000).div_ceil(MEM_WRITE_BYTES_PER_US),
                }]
            }
            "iorun" => {
                let calls = self.bytes(v, path)?.div_ceil(self.mem_buffer);
                vec![Op::Run {
                    work_ns: calls * IO_WRITE_SYSCALL_NS,
                }]
            }
            "memrun" => {
                return Err(self
                    .err(
                        path,
                        "`memrun` is not supported: its read/write/pointer-chase \
                               patterns need a cache and memory model, which schedlab lacks",
                    )
                    .with_fix("use `mem` (a memset modelled as CPU work) or `run`"))
            }
            other => unreachable!("every prefix is handled: {other}"),
        })
    }

    /// `wait` = pthread_cond_wait(ref, mutex): release the mutex, sleep until signalled,
    /// take the mutex back. The unlock and the sleep happen in the same simulated instant,
    /// so no signal can slip between them. `sync` first signals the condvar (rt-app's
    /// signal-and-wait). If no earlier `lock` in the task holds the mutex (the tutorial
    /// writes sync without one), the event takes and releases it itself, as the
    /// tutorial's expansion lock, signal, wait, unlock does.
    fn cond_wait(
        &mut self,
        sync: bool,
        v: &Json,
        path: &str,
        cx: &mut TaskCtx,
    ) -> Result<Vec<Op>, InputError> {
        let (mut cond, mut mutex) = (None, None);
        for (key, val) in self.object(v, path)? {
            let kpath = format!("{path}.{key}");
            match key.as_str() {
                "ref" => cond = Some(self.name(val, &kpath)?),
                "mutex" => mutex = Some(self.name(val, &kpath)?),
                _ => return Err(self.unknown_key(&kpath, "ref, mutex")),
            }
        }
        let fix = "write {\"ref\": \"cond\", \"mutex\": \"m\"}";
        let cond = cond.ok_or_else(|| self.err(path, "no `ref` (the condvar)").with_fix(fix))?;
        let mutex = mutex.ok_or_else(|| self.err(path, "no `mutex`").with_fix(fix))?;
        let c = self.resources.get(Kind::Cond, cond);
        let m = self.resources.get(Kind::Mutex, mutex);
        let held = cx.held.contains(&m);
        let mut ops = Vec::new();
        if !held {
            ops.push(Op::Lock { obj: m });
        }
        if sync {
            ops.push(Op::Signal { obj: c });
        }
        ops.extend([
            Op::Unlock { obj: m },
            Op::Wait { obj: c },
            Op::Lock { obj: m },
        ]);
        if !held {
            ops.push(Op::Unlock { obj: m });
        }
        Ok(ops)
    }

    fn timer(&self, v: &Json, path: &str, timers: &mut Vec<LocalTimer>) -> Result<Op, InputError> {
        let (mut name, mut period_ns, mut mode) = (None, None, TimerMode::Relative);
        for (key, val) in self.object(v, path)? {
            let kpath = format!("{path}.{key}");
            match key.as_str() {
                "ref" => name = Some(self.string(val, &kpath)?.to_string()),
                "period" => period_ns = Some(self.micros(val, &kpath)?),
                // rt-app's default is relative.
                "mode" => {
                    mode = match self.string(val, &kpath)? {
                        "absolute" => TimerMode::Absolute,
                        "relative" => TimerMode::Relative,
                        other => {
                            return Err(self
                                .err(&kpath, format!("unknown timer mode '{other}'"))
                                .with_fix("use \"absolute\" or \"relative\""))
                        }
                    }
                }
                _ => return Err(self.unknown_key(&kpath, "ref, period, mode")),
            }
        }
        let fix = "write {\"ref\": \"tick\", \"period\": 16000}";
        let name = name.ok_or_else(|| self.err(path, "timer without `ref`").with_fix(fix))?;
        let period_ns =
            period_ns.ok_or_else(|| self.err(path, "timer without `period`").with_fix(fix))?;
        let unique = name.starts_with("unique");
        let timer = match timers.iter().position(|t| t.name == name) {
            Some(i) => i,
            None => {
                timers.push(LocalTimer { name, unique });
                timers.len() - 1
            }
        };
        Ok(Op::Timer {
            timer,
            period_ns,
            mode,
        })
    }

    /// The resource of `kind` the event's string names.
    fn obj(&mut self, kind: Kind, v: &Json, path: &str) -> Result<usize, InputError> {
        let name = self.name(v, path)?;
        Ok(self.resources.get(kind, name))
    }

    /// A resource or task name: a non-empty string.
    fn name<'j>(&self, v: &'j Json, path: &str) -> Result<&'j str, InputError> {
        match self.string(v, path)? {
            "" => Err(self
                .err(path, "empty name")
                .with_fix("name the resource or task, e.g. \"mutex1\"")),
            s => Ok(s),
        }
    }

    /// A byte count for `mem` / `iorun`.
    fn bytes(&self, v: &Json, path: &str) -> Result<u64, InputError> {
        const MAX: u64 = 1 << 40;
        match self.non_negative(v, path)? {
            n if n <= MAX => Ok(n),
            n => Err(self
                .err(path, format!("{n} bytes is too large"))
                .with_fix("give at most 1 TiB per event")),
        }
    }
}
