//! rt-app JSON front end (spec workloads §3; user guide docs/rtapp.md).
//!
//! Compiles an rt-app use-case file into the task-program IR. Only the fair-class
//! subset is modelled; every key this front end does not understand is an error that
//! names it, never silently ignored. Behaviour follows rt-app's own parser
//! (`src/rt-app_parse_config.c`) and thread body (`src/rt-app.c`) where the spec is
//! silent: thread names, loop defaults, timer mode defaults, phase attribute rules.

use super::program::{TimerSpec, UclampReq};
use super::{Op, Policy, SchedChange, TaskSpec, TimerMode, Workload};
use crate::error::InputError;
use crate::time::{Ns, NSEC_PER_SEC, NSEC_PER_USEC};
use json::Json;
use std::collections::HashMap;

/// `global` keys that only steer rt-app's logging, tracing or load calibration. The
/// simulator writes no rt-app logs, and `run` is already measured in reference-CPU
/// nanoseconds, so these cannot change a simulated schedule. Each has the JSON type
/// rt-app requires, checked so a typo'd value still fails as it would under rt-app.
const GLOBAL_NO_OPS: &[(&str, JsonKind)] = &[
    // ns-per-loop calibration: an int, or "CPUn"; Op::Run needs none.
    ("calibration", JsonKind::IntOrString),
    // Per-thread log files and their location.
    ("logdir", JsonKind::String),
    ("log_basename", JsonKind::String),
    ("log_size", JsonKind::IntOrString),
    // trace_marker categories (booleans are rt-app's deprecated form).
    ("ftrace", JsonKind::BoolOrString),
    // gnuplot scripts next to the logs.
    ("gnuplot", JsonKind::Bool),
    // mlockall(): the simulator has no page faults to avoid.
    ("lock_pages", JsonKind::Bool),
    // Only changes how the log's `slack` column is summed.
    ("cumulative_slack", JsonKind::Bool),
];

/// rt-app event names in the order rt-app tries them as key prefixes (`runtime` before
/// `run`, `memrun` before `mem`), so `run1` is a run and `runtime0` a runtime.
const EVENT_PREFIXES: &[&str] = &[
    "lock", "unlock", "wait", "signal", "broad", "sync", "sleep", "runtime", "run", "timer",
    "suspend", "resume", "memrun", "mem", "iorun", "yield", "barrier", "fork", "sem_post",
    "sem_wait",
];

/// rt-app task/phase keys this front end knows but does not model yet.
const UNSUPPORTED_SCHED_KEYS: &[&str] = &[
    "dl-runtime",
    "dl-period",
    "dl-deadline",
    "nodes_membind",
    "taskgroup",
];

/// Guard against files that would make the simulator allocate without bound.
const MAX_THREADS: u64 = 100_000;

/// Parse an rt-app JSON document into a workload. `origin` is the file name for errors.
pub fn parse_rtapp(text: &str, origin: &str) -> Result<Workload, InputError> {
    let root = json::parse(text, origin)?;
    Compiler::new(origin).file(&root)
}

/// The JSON types a no-op key may have.
#[derive(Clone, Copy)]
enum JsonKind {
    String,
    Bool,
    IntOrString,
    BoolOrString,
}

impl JsonKind {
    fn accepts(self, v: &Json) -> bool {
        matches!(
            (self, v),
            (
                JsonKind::String | JsonKind::IntOrString | JsonKind::BoolOrString,
                Json::Str(_)
            ) | (JsonKind::Bool | JsonKind::BoolOrString, Json::Bool(_))
                | (JsonKind::IntOrString, Json::Int(_))
        )
    }

    fn describe(self) -> &'static str {
        match self {
            JsonKind::String => "a string",
            JsonKind::Bool => "true or false",
            JsonKind::IntOrString => "an integer or a string",
            JsonKind::BoolOrString => "a string (or a boolean)",
        }
    }
}

/// Scheduling attributes as written at task or phase level.
#[derive(Default)]
struct Attrs {
    policy: Option<Policy>,
    nice: Option<i32>,
    cpus: Option<Vec<usize>>,
    uclamp: UclampReq,
}

/// Loop count: `None` = forever (rt-app `-1`).
type Count = Option<u64>;

/// One phase: attributes, repetition and the events in file order.
struct Phase {
    attrs: Attrs,
    count: Count,
    events: Vec<Op>,
}

/// A timer ref seen in one task, before instances give unique refs their own timer.
struct LocalTimer {
    name: String,
    /// rt-app `unique*` refs are per thread; every other ref is shared file-wide.
    unique: bool,
}

/// Per-file state: where errors point, the timers created so far and thread numbering.
struct Compiler<'a> {
    file: &'a str,
    timers: Vec<TimerSpec>,
    /// Absolute mode per timer: rt-app keeps the mode on the timer resource, and any
    /// use that says "absolute" makes the whole (shared) timer absolute.
    absolute: Vec<bool>,
    shared: HashMap<String, usize>,
    /// rt-app numbers threads across the whole file, in creation order.
    next_index: u64,
    default_policy: Policy,
}

impl<'a> Compiler<'a> {
    fn new(file: &'a str) -> Self {
        Compiler {
            file,
            timers: Vec::new(),
            absolute: Vec::new(),
            shared: HashMap::new(),
            next_index: 0,
            default_policy: Policy::Normal,
        }
    }

    fn err(&self, path: &str, msg: impl Into<String>) -> InputError {
        InputError::new(format!("{}: {path}", self.file), msg)
    }

    // ---- document and `global` ------------------------------------------------------

    fn file(mut self, root: &Json) -> Result<Workload, InputError> {
        let top = self.object(root, "(top level)")?;
        let mut duration_ns = None;
        if let Some(g) = get(top, "global") {
            duration_ns = self.global(g)?;
        }
        let tasks_json = get(top, "tasks").ok_or_else(|| {
            self.err("(top level)", "no `tasks` object")
                .with_fix("rt-app files need \"tasks\": { \"NAME\": { ... } }")
        })?;
        for (key, _) in top {
            // `resources` only pre-declares mutexes, conds and barriers; every event
            // that could use one is rejected below, so it cannot change a run.
            if !matches!(key.as_str(), "global" | "tasks" | "resources") {
                return Err(self.unknown_key(key, "global, tasks, resources"));
            }
        }
        let mut tasks = Vec::new();
        let entries = self.object(tasks_json, "tasks")?;
        if entries.is_empty() {
            return Err(self
                .err("tasks", "no tasks")
                .with_fix("add at least one task: \"tasks\": { \"NAME\": { \"run\": 1000 } }"));
        }
        for (name, task) in entries {
            tasks.extend(self.task(name, task, &format!("tasks.{name}"))?);
        }
        // A timer's mode is only known once every use has been read.
        for t in &mut tasks {
            for op in &mut t.program {
                if let Op::Timer { timer, mode, .. } = op {
                    *mode = if self.absolute[*timer] {
                        TimerMode::Absolute
                    } else {
                        TimerMode::Relative
                    };
                }
            }
        }
        Ok(Workload {
            tasks,
            timers: self.timers,
            objects: Vec::new(),
            duration_ns,
            ..Workload::default()
        })
    }

    fn global(&mut self, g: &Json) -> Result<Option<Ns>, InputError> {
        let mut duration_ns = None;
        for (key, v) in self.object(g, "global")? {
            let path = format!("global.{key}");
            match key.as_str() {
                "duration" => duration_ns = self.duration(v, &path)?,
                "default_policy" => self.default_policy = self.policy(v, &path)?,
                // pi_enabled=false is rt-app's default and LISA writes it out; only
                // true (priority-inheritance mutexes) would need modelling.
                "pi_enabled" => match v {
                    Json::Bool(false) => {}
                    Json::Bool(true) => {
                        return Err(self
                            .err(&path, "priority-inheritance mutexes are not supported yet")
                            .with_fix("remove pi_enabled or set it to false"))
                    }
                    _ => return Err(self.wrong_type(&path, "true or false", v)),
                },
                "io_device" | "mem_buffer_size" => {
                    return Err(self
                        .err(&path, format!("rt-app key `{key}` is not supported yet"))
                        .with_fix("remove it; iorun and mem events are not modelled"))
                }
                _ => match GLOBAL_NO_OPS.iter().find(|(k, _)| k == key) {
                    Some((_, kind)) if kind.accepts(v) => {}
                    Some((_, kind)) => return Err(self.wrong_type(&path, kind.describe(), v)),
                    None => {
                        return Err(self.unknown_key(
                            &path,
                            "duration, default_policy, calibration, logdir, log_basename, \
                             log_size, ftrace, gnuplot, lock_pages, pi_enabled, cumulative_slack",
                        ))
                    }
                },
            }
        }
        Ok(duration_ns)
    }

    /// rt-app `duration`: whole seconds; 0 or -1 run until every thread has ended.
    fn duration(&self, v: &Json, path: &str) -> Result<Option<Ns>, InputError> {
        match self.int(v, path)? {
            -1 | 0 => Ok(None),
            s if s > 0 => (s as u64)
                .checked_mul(NSEC_PER_SEC)
                .map(Some)
                .ok_or_else(|| {
                    self.err(path, "duration too large")
                        .with_fix("give seconds, or -1 to run until the tasks end")
                }),
            s => Err(self
                .err(path, format!("negative duration {s}"))
                .with_fix("give seconds, or -1 to run until the tasks end")),
        }
    }

    // ---- tasks ------------------------------------------------------------------------

    /// One JSON task: its instances as separate threads named `<name>-<index>`.
    fn task(&mut self, name: &str, v: &Json, path: &str) -> Result<Vec<TaskSpec>, InputError> {
        let obj = self.object(v, path)?;
        let mut attrs = Attrs {
            policy: Some(self.default_policy),
            ..Attrs::default()
        };
        let (mut instances, mut count, mut delay_ns) = (1u64, None, 0);
        let mut loop_given = false;
        let mut phases_json = None;
        let mut timers = Vec::new();
        let mut events = Vec::new();
        for (key, val) in obj {
            let kpath = format!("{path}.{key}");
            match key.as_str() {
                "instance" => instances = self.non_negative(val, &kpath)?,
                "loop" => {
                    count = self.count(val, &kpath)?;
                    loop_given = true;
                }
                "delay" => delay_ns = self.micros(val, &kpath)?,
                "phases" => phases_json = Some((val, kpath)),
                _ if self.attr(&mut attrs, key, val, &kpath)? => {}
                _ => events.push(self.event(key, val, &kpath, &mut timers)?),
            }
        }
        let policy = attrs.policy.unwrap_or(self.default_policy);
        let program = match phases_json {
            Some((pj, ppath)) => {
                if let Some((key, _)) = obj.iter().find(|(k, _)| event_name(k).is_some()) {
                    return Err(self
                        .err(&format!("{path}.{key}"), "event outside `phases`")
                        .with_fix("with a `phases` object every event goes inside a phase"));
                }
                let phases = self.phases(pj, &ppath, &mut timers)?;
                self.phased_program(&attrs, count, &phases, &ppath)?
            }
            None => {
                if events.is_empty() {
                    return Err(self
                        .err(path, "task has no events")
                        .with_fix("add events such as \"run\": 1000, or a `phases` object"));
                }
                // Without phases the task body is one phase; `loop` repeats it, and a
                // task without `loop` repeats it forever (rt-app parse_task_data).
                wrap(if loop_given { count } else { None }, events)
            }
        };
        self.instantiate(name, instances, path, &timers, |comm| TaskSpec {
            comm,
            policy,
            nice: attrs.nice.unwrap_or(0),
            slice_ns: None,
            uclamp: attrs.uclamp,
            cpus: attrs.cpus.clone(),
            delay_ns,
            program: program.clone(),
        })
    }

    /// Handle a policy/priority/cpus (or known-unsupported) key; `false` = not one.
    fn attr(&self, a: &mut Attrs, key: &str, v: &Json, path: &str) -> Result<bool, InputError> {
        match key {
            "policy" => a.policy = Some(self.policy(v, path)?),
            "priority" => a.nice = Some(self.nice(v, path)?),
            "cpus" => a.cpus = Some(self.cpus(v, path)?),
            "util_min" => a.uclamp.min = Some(self.util_clamp(v, path)?),
            "util_max" => a.uclamp.max = Some(self.util_clamp(v, path)?),
            _ if UNSUPPORTED_SCHED_KEYS.contains(&key) => {
                return Err(self
                    .err(path, format!("rt-app key `{key}` is not supported yet"))
                    .with_fix("remove it; docs/rtapp.md lists the supported keys"))
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn phases(
        &mut self,
        v: &Json,
        path: &str,
        timers: &mut Vec<LocalTimer>,
    ) -> Result<Vec<Phase>, InputError> {
        let obj = self.object(v, path)?;
        if obj.is_empty() {
            return Err(self
                .err(path, "no phases")
                .with_fix("add a phase, or put the events directly in the task"));
        }
        obj.iter()
            .map(|(name, p)| self.phase(p, &format!("{path}.{name}"), timers))
            .collect()
    }

    fn phase(
        &mut self,
        v: &Json,
        path: &str,
        timers: &mut Vec<LocalTimer>,
    ) -> Result<Phase, InputError> {
        let mut phase = Phase {
            attrs: Attrs::default(),
            count: Some(1),
            events: Vec::new(),
        };
        for (key, val) in self.object(v, path)? {
            let kpath = format!("{path}.{key}");
            match key.as_str() {
                "loop" => phase.count = self.count(val, &kpath)?,
                _ if self.attr(&mut phase.attrs, key, val, &kpath)? => {}
                _ => phase.events.push(self.event(key, val, &kpath, timers)?),
            }
        }
        if phase.events.is_empty() {
            return Err(self
                .err(path, "phase has no events")
                .with_fix("add events such as \"run\": 1000"));
        }
        Ok(phase)
    }

    /// The thread loop around the phases; each phase starts with the attribute change
    /// rt-app makes when it enters that phase.
    fn phased_program(
        &self,
        task: &Attrs,
        count: Count,
        phases: &[Phase],
        path: &str,
    ) -> Result<Vec<Op>, InputError> {
        // rt-app re-applies affinity at every phase: the phase's own `cpus`, else the
        // task's. A task without `cpus` returns to "all CPUs", which cannot be written
        // before the machine is known.
        let any_cpus = phases.iter().any(|p| p.attrs.cpus.is_some());
        if any_cpus && task.cpus.is_none() && phases.iter().any(|p| p.attrs.cpus.is_none()) {
            return Err(self
                .err(
                    path,
                    "a phase without `cpus` would return to all CPUs, which is not supported yet",
                )
                .with_fix("give the task a `cpus` list, or give every phase one"));
        }
        let mut body = Vec::new();
        for p in phases {
            let change = SchedChange {
                policy: p.attrs.policy,
                // A phase that names a policy without a priority gets that policy's
                // default nice, 0 (rt-app parse_sched_data).
                nice: p.attrs.nice.or(p.attrs.policy.map(|_| 0)),
                slice_ns: None,
                uclamp: p.attrs.uclamp,
                cpus: if any_cpus {
                    p.attrs.cpus.clone().or(task.cpus.clone())
                } else {
                    None
                },
            };
            if change != SchedChange::default() {
                body.push(Op::SetSched(change));
            }
            body.extend(wrap(p.count, p.events.clone()));
        }
        // With phases, the task loops forever unless it sets `loop`.
        Ok(wrap(count, body))
    }

    /// Create the task's threads, giving each its own copy of `unique*` timers.
    fn instantiate(
        &mut self,
        name: &str,
        instances: u64,
        path: &str,
        timers: &[LocalTimer],
        make: impl Fn(String) -> TaskSpec,
    ) -> Result<Vec<TaskSpec>, InputError> {
        if self.next_index + instances > MAX_THREADS {
            return Err(self
                .err(
                    &format!("{path}.instance"),
                    format!("more than {MAX_THREADS} threads"),
                )
                .with_fix("use fewer instances"));
        }
        let mut out = Vec::new();
        for _ in 0..instances {
            let mut t = make(format!("{name}-{}", self.next_index));
            self.next_index += 1;
            let map: Vec<usize> = timers
                .iter()
                .map(|lt| self.timer_index(lt, &t.comm))
                .collect();
            for op in &mut t.program {
                if let Op::Timer { timer, mode, .. } = op {
                    let global = map[*timer];
                    self.absolute[global] |= *mode == TimerMode::Absolute;
                    *timer = global;
                }
            }
            out.push(t);
        }
        Ok(out)
    }

    fn timer_index(&mut self, lt: &LocalTimer, comm: &str) -> usize {
        if !lt.unique {
            if let Some(&i) = self.shared.get(&lt.name) {
                return i;
            }
            self.shared.insert(lt.name.clone(), self.timers.len());
        }
        let name = if lt.unique {
            format!("{}@{comm}", lt.name)
        } else {
            lt.name.clone()
        };
        self.timers.push(TimerSpec { name });
        self.absolute.push(false);
        self.timers.len() - 1
    }

    // ---- events -----------------------------------------------------------------------

    /// Compile one event. Timer ops hold an index into the task's `timers` until the
    /// task is instantiated.
    fn event(
        &self,
        key: &str,
        v: &Json,
        path: &str,
        timers: &mut Vec<LocalTimer>,
    ) -> Result<Op, InputError> {
        let Some(kind) = event_name(key) else {
            return Err(self.unknown_key(
                path,
                "instance, loop, delay, policy, priority, cpus, phases, or an event \
                 (run, runtime, sleep, timer, yield)",
            ));
        };
        Ok(match kind {
            "run" => Op::Run {
                work_ns: self.micros(v, path)?,
            },
            "runtime" => Op::RunWall {
                ns: self.micros(v, path)?,
            },
            "sleep" => Op::Sleep {
                ns: self.micros(v, path)?,
            },
            "timer" => self.timer(v, path, timers)?,
            // rt-app ignores the value (examples write "yield": "").
            "yield" => Op::Yield,
            other => {
                return Err(self
                    .err(path, format!("rt-app event `{other}` is not supported yet"))
                    .with_fix("supported events: run, runtime, sleep, timer, yield"))
            }
        })
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

    // ---- values -----------------------------------------------------------------------

    fn policy(&self, v: &Json, path: &str) -> Result<Policy, InputError> {
        match self.string(v, path)? {
            "SCHED_OTHER" => Ok(Policy::Normal),
            "SCHED_BATCH" => Ok(Policy::Batch),
            "SCHED_IDLE" => Ok(Policy::Idle),
            p @ ("SCHED_FIFO" | "SCHED_RR" | "SCHED_DEADLINE") => Err(self
                .err(path, format!("{p} is not modelled: fair class only"))
                .with_fix("use SCHED_OTHER, SCHED_BATCH or SCHED_IDLE")),
            p => Err(self
                .err(path, format!("unknown policy '{p}'"))
                .with_fix("use SCHED_OTHER, SCHED_BATCH or SCHED_IDLE")),
        }
    }

    /// rt-app `priority` is the nice value for the fair policies.
    fn nice(&self, v: &Json, path: &str) -> Result<i32, InputError> {
        match self.int(v, path)? {
            n @ -20..=19 => Ok(n as i32),
            n => Err(self
                .err(path, format!("priority {n} is not a nice value"))
                .with_fix("fair policies take a nice value from -20 to 19")),
        }
    }

    /// util_min / util_max: a utilization clamp, 0..=1024 (sched_attr.sched_util_*).
    fn util_clamp(&self, v: &Json, path: &str) -> Result<u32, InputError> {
        match self.int(v, path)? {
            n @ 0..=1024 => Ok(n as u32),
            n => Err(self
                .err(path, format!("utilization clamp {n} is out of range"))
                .with_fix("util_min and util_max take 0 to 1024")),
        }
    }

    fn cpus(&self, v: &Json, path: &str) -> Result<Vec<usize>, InputError> {
        let Json::Array(items) = v else {
            return Err(self.wrong_type(path, "an array of CPU ids", v));
        };
        let mut cpus = items
            .iter()
            .enumerate()
            .map(|(i, c)| Ok(self.non_negative(c, &format!("{path}[{i}]"))? as usize))
            .collect::<Result<Vec<_>, InputError>>()?;
        if cpus.is_empty() {
            return Err(self
                .err(path, "empty CPU list")
                .with_fix("list at least one CPU, or leave `cpus` out for all"));
        }
        // A cpu_set_t: order and repeats do not matter.
        cpus.sort_unstable();
        cpus.dedup();
        Ok(cpus)
    }

    /// rt-app `loop`: -1 = forever, else a positive count.
    fn count(&self, v: &Json, path: &str) -> Result<Count, InputError> {
        match self.int(v, path)? {
            -1 => Ok(None),
            n if n >= 1 => Ok(Some(n as u64)),
            // rt-app itself never finishes a phase with loop 0 (its counter starts
            // past 0), so this is always a mistake.
            n => Err(self
                .err(path, format!("loop {n}"))
                .with_fix("give a positive count, or -1 to loop forever")),
        }
    }

    /// A duration in µs (rt-app's unit) as ns.
    fn micros(&self, v: &Json, path: &str) -> Result<Ns, InputError> {
        let us = match self.int(v, path)? {
            n if n < 0 => {
                return Err(self
                    .err(path, format!("negative duration {n} µs"))
                    .with_fix("durations are non-negative microseconds"))
            }
            n => n as u64,
        };
        us.checked_mul(NSEC_PER_USEC).ok_or_else(|| {
            self.err(path, format!("{us} µs is too large"))
                .with_fix("durations must fit in 584 years of nanoseconds")
        })
    }

    fn non_negative(&self, v: &Json, path: &str) -> Result<u64, InputError> {
        match self.int(v, path)? {
            n if n >= 0 => Ok(n as u64),
            n => Err(self
                .err(path, format!("negative value {n}"))
                .with_fix("use a non-negative integer")),
        }
    }

    fn int(&self, v: &Json, path: &str) -> Result<i64, InputError> {
        match v {
            Json::Int(n) => Ok(*n),
            _ => Err(self.wrong_type(path, "an integer", v)),
        }
    }

    fn string<'j>(&self, v: &'j Json, path: &str) -> Result<&'j str, InputError> {
        match v {
            Json::Str(s) => Ok(s),
            _ => Err(self.wrong_type(path, "a string", v)),
        }
    }

    fn object<'j>(&self, v: &'j Json, path: &str) -> Result<&'j [(String, Json)], InputError> {
        match v {
            Json::Object(o) => Ok(o),
            _ => Err(self.wrong_type(path, "an object", v)),
        }
    }

    fn wrong_type(&self, path: &str, want: &str, got: &Json) -> InputError {
        self.err(path, format!("expected {want}, found {}", got.kind()))
            .with_fix(format!("write {want} here"))
    }

    fn unknown_key(&self, path: &str, known: &str) -> InputError {
        let key = path.rsplit('.').next().unwrap_or(path);
        self.err(path, format!("unknown or unsupported key `{key}`"))
            .with_fix(format!("known here: {known}"))
    }
}

/// The rt-app event a key names, by prefix as rt-app matches it.
fn event_name(key: &str) -> Option<&'static str> {
    EVENT_PREFIXES.iter().copied().find(|e| key.starts_with(e))
}

fn get<'j>(obj: &'j [(String, Json)], key: &str) -> Option<&'j Json> {
    obj.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// `body` repeated `count` times; a single pass needs no loop ops.
fn wrap(count: Count, body: Vec<Op>) -> Vec<Op> {
    if count == Some(1) {
        return body;
    }
    let mut ops = Vec::with_capacity(body.len() + 2);
    ops.push(Op::LoopBegin { count });
    ops.extend(body);
    ops.push(Op::LoopEnd);
    ops
}

/// A JSON tree that keeps object keys in file order and rejects duplicate keys.
/// serde_json's `Value` would silently keep only one of two `"run"` keys, dropping an
/// event; rt-app needs unique keys (`run0`, `run1`) for the same reason.
mod json {
    use crate::error::InputError;
    use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use std::collections::HashSet;
    use std::fmt;

    #[derive(Debug)]
    pub enum Json {
        Null,
        Bool(bool),
        Int(i64),
        Float,
        Str(String),
        Array(Vec<Json>),
        Object(Vec<(String, Json)>),
    }

    impl Json {
        pub fn kind(&self) -> &'static str {
            match self {
                Json::Null => "null",
                Json::Bool(_) => "a boolean",
                Json::Int(_) => "an integer",
                Json::Float => "a fractional number",
                Json::Str(_) => "a string",
                Json::Array(_) => "an array",
                Json::Object(_) => "an object",
            }
        }
    }

    /// Parse strict JSON; syntax errors point at `FILE:LINE:COLUMN`.
    pub fn parse(text: &str, file: &str) -> Result<Json, InputError> {
        serde_json::from_str(text).map_err(|e| {
            let full = e.to_string();
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            let msg = full.strip_suffix(&suffix).unwrap_or(&full);
            InputError::new(format!("{file}:{}:{}", e.line(), e.column()), msg).with_fix(
                "rt-app reads strict JSON: no comments or trailing commas, and unique keys \
                 in each object (run0, run1, …)",
            )
        })
    }

    struct JsonVisitor;

    impl<'de> Visitor<'de> for JsonVisitor {
        type Value = Json;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_unit<E>(self) -> Result<Json, E> {
            Ok(Json::Null)
        }
        fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
            Ok(Json::Bool(b))
        }
        fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
            Ok(Json::Int(n))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<Json, E> {
            i64::try_from(n)
                .map(Json::Int)
                .map_err(|_| E::custom(format!("number {n} is too large")))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Json, E> {
            Ok(Json::Float)
        }
        fn visit_str<E>(self, s: &str) -> Result<Json, E> {
            Ok(Json::Str(s.to_string()))
        }
        fn visit_string<E>(self, s: String) -> Result<Json, E> {
            Ok(Json::Str(s))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
            let mut items = Vec::new();
            while let Some(v) = seq.next_element()? {
                items.push(v);
            }
            Ok(Json::Array(items))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
            let mut entries = Vec::new();
            let mut seen = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                if !seen.insert(key.clone()) {
                    return Err(de::Error::custom(format!("duplicate key \"{key}\"")));
                }
                entries.push((key, map.next_value()?));
            }
            Ok(Json::Object(entries))
        }
    }

    impl<'de> Deserialize<'de> for Json {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
            d.deserialize_any(JsonVisitor)
        }
    }
}
