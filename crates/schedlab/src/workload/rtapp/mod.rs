//! rt-app JSON front end (user guide docs/rtapp.md).
//!
//! Compiles an rt-app use-case file into the task-program IR, every policy included
//! (fair, SCHED_FIFO / SCHED_RR, SCHED_DEADLINE); every key this front end does not understand is an error that
//! names it, never silently ignored. Behaviour follows rt-app's own parser
//! (`src/rt-app_parse_config.c`) and thread body (`src/rt-app.c`) where its documentation is
//! silent: thread names, loop defaults, timer mode defaults, phase attribute rules.

mod attrs;
mod events;
mod json;
mod resources;

use super::program::{TaskTemplate, TimerSpec};
use super::{Op, Policy, SchedChange, TaskSpec, TimerMode, Workload};
use crate::error::InputError;
use crate::sched::SchedClass;
use crate::time::{Ns, NSEC_PER_SEC, NSEC_PER_USEC};
use attrs::{Attrs, DEFAULT_RT_PRIORITY};
use events::TaskCtx;
pub use events::{event_name, DEFAULT_MEM_BUFFER, IO_WRITE_SYSCALL_NS, MEM_WRITE_BYTES_PER_US};
use json::Json;
use resources::Resources;
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
    // A leftover of early rt-app versions that the doc/examples still carry; no
    // rt-app version since 2014 reads it.
    ("frag", JsonKind::Int),
];

/// Guard against files that would make the simulator allocate without bound.
const MAX_THREADS: u64 = 100_000;

/// Parse an rt-app JSON document into a workload. `origin` is the file name for errors.
pub fn parse_rtapp(text: &str, origin: &str) -> Result<Workload, InputError> {
    // workgen's repeated event keys are separate events; any other key must be unique.
    let root = json::parse(text, origin, |key| event_name(key).is_some())?;
    Compiler::new(origin).file(&root)
}

/// The JSON types a no-op key may have.
#[derive(Clone, Copy)]
enum JsonKind {
    String,
    Bool,
    IntOrString,
    BoolOrString,
    Int,
}

impl JsonKind {
    fn accepts(self, v: &Json) -> bool {
        matches!(
            (self, v),
            (
                JsonKind::String | JsonKind::IntOrString | JsonKind::BoolOrString,
                Json::Str(_)
            ) | (JsonKind::Bool | JsonKind::BoolOrString, Json::Bool(_))
                | (JsonKind::IntOrString | JsonKind::Int, Json::Int(_))
        )
    }

    fn describe(self) -> &'static str {
        match self {
            JsonKind::String => "a string",
            JsonKind::Bool => "true or false",
            JsonKind::IntOrString => "an integer or a string",
            JsonKind::BoolOrString => "a string (or a boolean)",
            JsonKind::Int => "an integer",
        }
    }
}

/// Loop count: `None` = forever (rt-app `-1`).
type Count = Option<u64>;

/// One phase: attributes, repetition and the events in file order.
struct Phase {
    /// The phase's JSON key, for errors.
    name: String,
    attrs: Attrs,
    count: Count,
    events: Vec<Op>,
    /// Its JSON path and event names (for the zero-time loop check).
    path: String,
    names: Vec<&'static str>,
}

/// A loop that repeats forever, checked once every task is known ([`Compiler::zero_time_loops`]).
struct ForeverLoop {
    /// The task's JSON key.
    task: String,
    /// Where an error points: the phase, the task's `phases`, or the task.
    path: String,
    /// What repeats.
    what: ForeverKind,
    body: Vec<Op>,
    /// The body's event names, in file order.
    names: Vec<&'static str>,
}

#[derive(Clone, Copy, PartialEq)]
enum ForeverKind {
    Phase,
    /// The thread loop around every phase (`loop` -1 or absent with phases).
    Phases,
    /// A task without phases and without `loop`, or with `loop` -1.
    Task,
}

/// A timer ref seen in one task, before instances give unique refs their own timer.
#[derive(Clone)]
pub struct LocalTimer {
    pub name: String,
    /// rt-app `unique*` refs are per thread; every other ref is shared file-wide.
    pub unique: bool,
}

/// A task as compiled before its threads are created, kept for `fork`.
struct TaskDef {
    path: String,
    /// `comm` is the task's JSON key.
    spec: TaskSpec,
    timers: Vec<LocalTimer>,
}

/// Per-file state: where errors point, the timers created so far and thread numbering.
pub struct Compiler<'a> {
    file: &'a str,
    timers: Vec<TimerSpec>,
    /// Absolute mode per timer: rt-app keeps the mode on the timer resource, and any
    /// use that says "absolute" makes the whole (shared) timer absolute.
    absolute: Vec<bool>,
    shared: HashMap<String, usize>,
    /// rt-app numbers threads across the whole file, in creation order.
    next_index: u64,
    default_policy: Policy,
    /// Mutexes, condvars, barriers and semaphores by name; fork targets.
    resources: Resources,
    /// `global.mem_buffer_size`: the chunk size of `iorun` writes.
    mem_buffer: u64,
    /// Every task by JSON key, for `fork`.
    defs: HashMap<String, TaskDef>,
    /// Threads each task starts with (`instance`), by JSON key.
    instances: HashMap<String, u64>,
    /// Every loop that repeats forever, in file order.
    forever: Vec<ForeverLoop>,
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
            resources: Resources::default(),
            mem_buffer: DEFAULT_MEM_BUFFER,
            defs: HashMap::new(),
            instances: HashMap::new(),
            forever: Vec::new(),
        }
    }

    pub(super) fn err(&self, path: &str, msg: impl Into<String>) -> InputError {
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
            // `resources` only pre-declares mutexes, conds and barriers; events create
            // the same objects by name when they first use them.
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
        let mut cgroups = std::collections::BTreeMap::new();
        for (name, task) in entries {
            let (threads, cgroup) = self.task(name, task, &format!("tasks.{name}"))?;
            if let Some(g) = cgroup {
                for i in tasks.len()..tasks.len() + threads.len() {
                    cgroups.insert(i, g.clone());
                }
            }
            tasks.extend(threads);
        }
        self.zero_time_loops()?;
        let mut templates = self.templates()?;
        // A timer's mode is only known once every use has been read.
        let programs = tasks
            .iter_mut()
            .chain(templates.iter_mut().map(|t| &mut t.spec));
        for t in programs {
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
            objects: self.resources.objects,
            duration_ns,
            templates,
            cgroups,
            ..Workload::default()
        })
    }

    /// One template per task a `fork` event names, in order of first use (the index
    /// `Op::Fork` already holds).
    fn templates(&mut self) -> Result<Vec<TaskTemplate>, InputError> {
        let targets = std::mem::take(&mut self.resources.fork_targets);
        let mut out = Vec::new();
        for (name, fork_path) in targets {
            let Some(def) = self.defs.get(&name) else {
                return Err(self
                    .err(&fork_path, format!("fork of unknown task '{name}'"))
                    .with_fix("name a task defined under `tasks` (instance 0 defines one that only forks create)"));
            };
            if def
                .spec
                .program
                .iter()
                .any(|op| matches!(op, Op::BarrierWait { .. }))
            {
                return Err(self
                    .err(&def.path, format!("task '{name}' is forked and uses a barrier"))
                    .with_fix("rt-app counts a barrier's users from the file, so forked threads cannot use barriers; use sem_post/sem_wait or signal/wait"));
            }
            let (mut spec, timers) = (def.spec.clone(), def.timers.clone());
            let mut private_timers = Vec::new();
            let map: Vec<usize> = timers
                .iter()
                .map(|lt| {
                    let i = self.timer_index(lt, &format!("{name}-fork"));
                    if lt.unique {
                        private_timers.push(i);
                    }
                    i
                })
                .collect();
            self.bind_timers(&mut spec.program, &map);
            out.push(TaskTemplate {
                spec,
                private_timers,
                index_base: 0,
            });
        }
        Ok(out)
    }

    /// Replace task-local timer indices in `program` by the workload's, noting which
    /// timers some use makes absolute.
    fn bind_timers(&mut self, program: &mut [Op], map: &[usize]) {
        for op in program {
            if let Op::Timer { timer, mode, .. } = op {
                let global = map[*timer];
                self.absolute[global] |= *mode == TimerMode::Absolute;
                *timer = global;
            }
        }
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
                            .err(&path, "priority-inheritance mutexes are not modelled")
                            .with_fix("remove pi_enabled or set it to false (plain mutexes)"))
                    }
                    _ => return Err(self.wrong_type(&path, "true or false", v)),
                },
                // iorun's writes cost one syscall each on /dev/null (events.rs); a real
                // device would block on I/O, which is not modelled.
                "io_device" => match self.string(v, &path)? {
                    "/dev/null" => {}
                    d => {
                        return Err(self
                            .err(
                                &path,
                                format!("io_device '{d}': only /dev/null is modelled"),
                            )
                            .with_fix(
                                "use \"/dev/null\"; writes to a real device would wait for I/O",
                            ))
                    }
                },
                "mem_buffer_size" => match self.non_negative(v, &path)? {
                    0 => {
                        return Err(self
                            .err(&path, "mem_buffer_size 0")
                            .with_fix("give the buffer size in bytes (default 4194304)"))
                    }
                    n => self.mem_buffer = n,
                },
                _ => match GLOBAL_NO_OPS.iter().find(|(k, _)| k == key) {
                    Some((_, kind)) if kind.accepts(v) => {}
                    Some((_, kind)) => return Err(self.wrong_type(&path, kind.describe(), v)),
                    None => {
                        return Err(self.unknown_key(
                            &path,
                            "duration, default_policy, calibration, logdir, log_basename, \
                             log_size, ftrace, gnuplot, lock_pages, pi_enabled, cumulative_slack, \
                             io_device, mem_buffer_size, frag",
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
    /// Also returns the task's `taskgroup`, for its threads.
    fn task(
        &mut self,
        name: &str,
        v: &Json,
        path: &str,
    ) -> Result<(Vec<TaskSpec>, Option<String>), InputError> {
        let obj = self.object(v, path)?;
        let mut attrs = Attrs {
            policy: Some(self.default_policy),
            ..Attrs::default()
        };
        let (mut instances, mut count, mut delay_ns) = (1u64, None, 0);
        let mut loop_given = false;
        let mut phases_json = None;
        let has_phases = obj.iter().any(|(k, _)| k == "phases");
        let mut cx = TaskCtx {
            name,
            timers: Vec::new(),
            held: Vec::new(),
        };
        let mut events = Vec::new();
        let mut names = Vec::new();
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
                // rt-app's 2014 grammar (one periodic job per thread, resources taken
                // in `lock_order`): current rt-app no longer reads it either.
                "exec" | "lock_order" => {
                    return Err(self
                        .err(&kpath, "the pre-2015 rt-app grammar (`exec`, `lock_order`) is not supported")
                        .with_fix("write the task as events: \"run\": EXEC, \"timer\": {\"ref\": \"unique\", \"period\": PERIOD}"))
                }
                _ if self.attr(&mut attrs, key, val, &kpath)? => {}
                _ if has_phases && event_name(key).is_some() => {
                    return Err(self
                        .err(&kpath, "event outside `phases`")
                        .with_fix("with a `phases` object every event goes inside a phase"));
                }
                _ => {
                    events.extend(self.event(key, val, &kpath, &mut cx)?);
                    names.extend(event_name(key));
                }
            }
        }
        let policy = attrs.policy.unwrap_or(self.default_policy);
        if attrs.dl_runtime.unwrap_or(0) == 0 {
            // rt-app's legacy task-level SCHED_DEADLINE runtime is the `runtime` key,
            // the same key as the runtime event.
            if let Some(Json::Int(us)) = get(obj, "runtime") {
                attrs.legacy_runtime =
                    Some(self.micros(&Json::Int(*us), &format!("{path}.runtime"))?);
            }
        }
        let own = self.resolve(&attrs, policy, true, path)?;
        let program = match phases_json {
            Some((pj, ppath)) => {
                let phases = self.phases(pj, &ppath, &mut cx)?;
                let program = self.phased_program(&attrs, policy, count, &phases, &ppath)?;
                for p in phases.iter().filter(|p| p.count.is_none()) {
                    self.forever.push(ForeverLoop {
                        task: name.to_string(),
                        path: p.path.clone(),
                        what: ForeverKind::Phase,
                        body: p.events.clone(),
                        names: p.names.clone(),
                    });
                }
                if count.is_none() {
                    self.forever.push(ForeverLoop {
                        task: name.to_string(),
                        path: ppath.clone(),
                        what: ForeverKind::Phases,
                        body: program.clone(),
                        names: phases.iter().flat_map(|p| p.names.clone()).collect(),
                    });
                }
                program
            }
            None => {
                if events.is_empty() {
                    return Err(self
                        .err(path, "task has no events")
                        .with_fix("add events such as \"run\": 1000, or a `phases` object"));
                }
                // Without phases the task body is one phase; `loop` repeats it, and a
                // task without `loop` repeats it forever (rt-app parse_task_data).
                let count = if loop_given { count } else { None };
                if count.is_none() {
                    self.forever.push(ForeverLoop {
                        task: name.to_string(),
                        path: path.to_string(),
                        what: ForeverKind::Task,
                        body: events.clone(),
                        names,
                    });
                }
                wrap(count, events)
            }
        };
        if let Some(g) = &attrs.cgroup {
            // rt-app check_taskgroup_policy_dep: only the fair policies run in a group.
            let rt_phase = spec_policies(policy, &program).find(|p| p.class() != SchedClass::Fair);
            if let Some(p) = rt_phase {
                return Err(self
                    .err(&format!("{path}.taskgroup"), format!("taskgroup '{g}' with policy {}", p.kernel_name()))
                    .with_fix("rt-app refuses a taskgroup for a non-fair policy (No taskgroup support); use SCHED_OTHER, SCHED_BATCH or SCHED_IDLE, or remove taskgroup"));
            }
        }
        let mut spec = TaskSpec::new(name.to_string(), program)
            .policy(policy)
            .nice(own.nice.unwrap_or(0))
            .slice(own.slice_ns)
            .uclamp(attrs.uclamp)
            .cpus(attrs.cpus.clone())
            .delay(delay_ns);
        match policy.class() {
            SchedClass::Fair => {}
            SchedClass::Rt => {
                spec = spec.rt(policy, own.rt_priority.unwrap_or(DEFAULT_RT_PRIORITY));
            }
            SchedClass::Dl => {
                // rt-app's _set_thread_deadline sets no utilization clamps.
                spec = spec
                    .deadline(own.dl.expect("resolved"))
                    .uclamp(Default::default());
            }
        }
        self.resources.add_parties(&spec.program, instances);
        self.instances.insert(name.to_string(), instances);
        let threads = self.instantiate(&spec, instances, path, &cx.timers)?;
        let timers = cx.timers;
        self.defs.insert(
            name.to_string(),
            TaskDef {
                path: path.to_string(),
                spec,
                timers,
            },
        );
        Ok((threads, attrs.cgroup))
    }

    fn phases(&mut self, v: &Json, path: &str, cx: &mut TaskCtx) -> Result<Vec<Phase>, InputError> {
        let obj = self.object(v, path)?;
        if obj.is_empty() {
            return Err(self
                .err(path, "no phases")
                .with_fix("add a phase, or put the events directly in the task"));
        }
        obj.iter()
            .map(|(name, p)| self.phase(p, &format!("{path}.{name}"), cx))
            .collect()
    }

    fn phase(&mut self, v: &Json, path: &str, cx: &mut TaskCtx) -> Result<Phase, InputError> {
        let mut phase = Phase {
            name: path.rsplit('.').next().unwrap_or(path).to_string(),
            attrs: Attrs::default(),
            count: Some(1),
            events: Vec::new(),
            path: path.to_string(),
            names: Vec::new(),
        };
        for (key, val) in self.object(v, path)? {
            let kpath = format!("{path}.{key}");
            match key.as_str() {
                "loop" => phase.count = self.count(val, &kpath)?,
                // Groups are fixed for the run: a task cannot move between them.
                "taskgroup" => {
                    return Err(self
                        .err(
                            &kpath,
                            "a per-phase taskgroup (moving a task between groups) is not modelled",
                        )
                        .with_fix("put `taskgroup` on the task, not on a phase"))
                }
                _ if self.attr(&mut phase.attrs, key, val, &kpath)? => {}
                _ => {
                    phase.events.extend(self.event(key, val, &kpath, cx)?);
                    phase.names.extend(event_name(key));
                }
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
    /// rt-app makes when it enters that phase. `policy` is the task's.
    fn phased_program(
        &self,
        task: &Attrs,
        policy: Policy,
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
        // The policy in force when each phase starts: a phase that names none keeps the
        // previous one's (rt-app's `same`), so `priority` and `dl-*` are read for that
        // policy. After the last phase the loop returns to the first with the last
        // phase's policy, which must read the same way as on the first pass.
        let in_force = |start: Policy| {
            let mut cur = start;
            phases
                .iter()
                .map(|p| {
                    cur = p.attrs.policy.unwrap_or(cur);
                    cur
                })
                .collect::<Vec<_>>()
        };
        let first = in_force(policy);
        let again = in_force(*first.last().expect("phases are non-empty"));
        let mut body = Vec::new();
        for (i, p) in phases.iter().enumerate() {
            let ppath = format!("{path}.{}", p.name);
            let reads_policy = p.attrs.priority.is_some()
                || p.attrs.dl_runtime.is_some()
                || p.attrs.dl_period.is_some()
                || p.attrs.dl_deadline.is_some();
            if count != Some(1) && reads_policy && first[i].class() != again[i].class() {
                return Err(self
                    .err(
                        &ppath,
                        format!(
                            "the phase names no policy and runs under {} on the first pass but {} on later ones",
                            first[i].kernel_name(),
                            again[i].kernel_name()
                        ),
                    )
                    .with_fix("give the phase a `policy`: its priority and dl-* keys mean different things per policy"));
            }
            let cur = first[i];
            // rt-app makes no scheduling change for a phase without scheduling keys
            // (parse_sched_data returns nothing); a SCHED_DEADLINE phase with any sets
            // all its parameters, so they must be complete.
            let a = &p.attrs;
            let sets_sched = a.policy.is_some()
                || reads_policy
                || a.uclamp.min.is_some()
                || a.uclamp.max.is_some();
            let r = if sets_sched {
                self.resolve(a, cur, false, &ppath)?
            } else {
                Default::default()
            };
            let cpus = if any_cpus {
                p.attrs.cpus.clone().or(task.cpus.clone())
            } else {
                None
            };
            let change = match cur.class() {
                SchedClass::Fair => SchedChange {
                    policy: p.attrs.policy,
                    rt_priority: None,
                    dl: None,
                    // A phase that names a policy without a priority gets that policy's
                    // default nice, 0 (rt-app parse_sched_data).
                    nice: r.nice.or(p.attrs.policy.map(|_| 0)),
                    slice_ns: r.slice_ns,
                    uclamp: p.attrs.uclamp,
                    cpus,
                },
                // rt-app's DEFAULT_THREAD_PRIORITY for a phase naming an RT policy
                // without a priority; the nice value is left as it was.
                SchedClass::Rt => SchedChange {
                    policy: p.attrs.policy,
                    rt_priority: r
                        .rt_priority
                        .or(p.attrs.policy.map(|_| DEFAULT_RT_PRIORITY)),
                    uclamp: p.attrs.uclamp,
                    cpus,
                    ..SchedChange::default()
                },
                // A SCHED_DEADLINE phase with scheduling keys always sets its
                // parameters (rt-app _set_thread_deadline), without utilization clamps.
                SchedClass::Dl => SchedChange {
                    policy: p.attrs.policy,
                    dl: r.dl,
                    cpus,
                    ..SchedChange::default()
                },
            };
            if change != SchedChange::default() {
                body.push(Op::SetSched(Box::new(change)));
            }
            body.extend(wrap(p.count, p.events.clone()));
        }
        // With phases, the task loops forever unless it sets `loop`.
        Ok(wrap(count, body))
    }

    /// Refuse a loop that repeats forever without any of its events letting simulated time
    /// pass: the thread would run it at one instant for ever (the interpreter stops such a
    /// thread after 100,000 steps; a file can say it up front). Only events that can never
    /// take time, block or give way count as zero-time: a `run`, `runtime`, `mem` or `iorun`
    /// of 0, `unlock`, `signal`, `broad`, `resume`, `sem_post`, a phase's attribute change
    /// without `cpus`, and a `lock` of a mutex no other thread can hold (locked by no
    /// other task, the task one instance and never forked). `sleep` (even 0: timer slack),
    /// `timer`, `yield`, `wait`, `sync`, `suspend`, `barrier`, `sem_wait`, `fork` and a
    /// shared `lock` may let time pass, so loops holding one are run as written.
    fn zero_time_loops(&self) -> Result<(), InputError> {
        // Which tasks lock each mutex.
        let mut lockers: HashMap<usize, Vec<&str>> = HashMap::new();
        for (name, def) in &self.defs {
            for op in &def.spec.program {
                if let Op::Lock { obj } = op {
                    let l = lockers.entry(*obj).or_default();
                    if !l.contains(&name.as_str()) {
                        l.push(name);
                    }
                }
            }
        }
        let forked = |task: &str| self.resources.fork_targets.iter().any(|(n, _)| n == task);
        for f in &self.forever {
            let one_thread =
                self.instances.get(&f.task).is_some_and(|&n| n <= 1) && !forked(&f.task);
            let private = |obj: &usize| {
                one_thread && lockers.get(obj).is_some_and(|l| l[..] == [f.task.as_str()])
            };
            let zero_time = f.body.iter().all(|op| match op {
                Op::Run { work_ns } => *work_ns == 0,
                Op::RunWall { ns } => *ns == 0,
                Op::Unlock { .. }
                | Op::Signal { .. }
                | Op::Broadcast { .. }
                | Op::SemPost { .. }
                | Op::LoopBegin { .. }
                | Op::LoopEnd => true,
                Op::SetSched(change) => change.cpus.is_none(),
                Op::Lock { obj } => private(obj),
                _ => false,
            });
            if !zero_time {
                continue;
            }
            let mut names: Vec<&str> = Vec::new();
            for n in &f.names {
                if !names.contains(n) {
                    names.push(n);
                }
            }
            let names = names.join(", ");
            let (what, fix) = match f.what {
                ForeverKind::Phase => (
                    "the phase loops forever (loop -1)",
                    "add a `run`, `sleep` or `timer` event to the phase, or give its `loop` a positive count",
                ),
                ForeverKind::Phases => (
                    "the task loops forever over its phases (no `loop`, or -1)",
                    "add a `run`, `sleep` or `timer` event to a phase, or give the task a positive `loop`",
                ),
                ForeverKind::Task => (
                    "the task loops forever (no `loop`, or -1)",
                    "add a `run`, `sleep` or `timer` event, or give the task a positive `loop`",
                ),
            };
            return Err(self
                .err(
                    &f.path,
                    format!(
                        "{what} and its events ({names}) take no simulated time: the thread \
                         would repeat them at one instant for ever"
                    ),
                )
                .with_fix(fix));
        }
        Ok(())
    }

    /// Create the task's threads, giving each its own copy of `unique*` timers.
    fn instantiate(
        &mut self,
        spec: &TaskSpec,
        instances: u64,
        path: &str,
        timers: &[LocalTimer],
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
            let mut t = spec.clone();
            t.attrs.comm = format!("{}-{}", spec.attrs.comm, self.next_index);
            self.next_index += 1;
            let map: Vec<usize> = timers
                .iter()
                .map(|lt| self.timer_index(lt, &t.attrs.comm))
                .collect();
            self.bind_timers(&mut t.program, &map);
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

    // ---- values -----------------------------------------------------------------------

    /// rt-app `loop`: -1 = forever, else a positive count.
    pub(super) fn count(&self, v: &Json, path: &str) -> Result<Count, InputError> {
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
    pub(super) fn micros(&self, v: &Json, path: &str) -> Result<Ns, InputError> {
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

    pub(super) fn non_negative(&self, v: &Json, path: &str) -> Result<u64, InputError> {
        match self.int(v, path)? {
            n if n >= 0 => Ok(n as u64),
            n => Err(self
                .err(path, format!("negative value {n}"))
                .with_fix("use a non-negative integer")),
        }
    }

    pub(super) fn int(&self, v: &Json, path: &str) -> Result<i64, InputError> {
        match v {
            Json::Int(n) => Ok(*n),
            _ => Err(self.wrong_type(path, "an integer", v)),
        }
    }

    pub(super) fn string<'j>(&self, v: &'j Json, path: &str) -> Result<&'j str, InputError> {
        match v {
            Json::Str(s) => Ok(s),
            _ => Err(self.wrong_type(path, "a string", v)),
        }
    }

    pub(super) fn object<'j>(
        &self,
        v: &'j Json,
        path: &str,
    ) -> Result<&'j [(String, Json)], InputError> {
        match v {
            Json::Object(o) => Ok(o),
            _ => Err(self.wrong_type(path, "an object", v)),
        }
    }

    pub(super) fn wrong_type(&self, path: &str, want: &str, got: &Json) -> InputError {
        self.err(path, format!("expected {want}, found {}", got.kind()))
            .with_fix(format!("write {want} here"))
    }

    pub(super) fn unknown_key(&self, path: &str, known: &str) -> InputError {
        let key = path.rsplit('.').next().unwrap_or(path);
        self.err(path, format!("unknown or unsupported key `{key}`"))
            .with_fix(format!("known here: {known}"))
    }
}

/// The policies a task runs under: `start`, then each one its program's SetSched names.
fn spec_policies(start: Policy, program: &[Op]) -> impl Iterator<Item = Policy> + '_ {
    std::iter::once(start).chain(program.iter().filter_map(|op| match op {
        Op::SetSched(c) => c.policy,
        _ => None,
    }))
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
