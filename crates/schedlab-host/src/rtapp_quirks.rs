//! Reading an rt-app file the way the real rt-app runs it. Two quirks a user meets
//! (docs/validate.md, "rt-app quirks"):
//! 1. a task's `priority` (its nice value) is not applied unless the task also sets a
//!    runtime (`dl-runtime`, or the legacy task-level `runtime`): the thread keeps nice 0;
//! 2. a task-level `runtime` is read twice: as the `runtime` event (busy wall time) and,
//!    by the legacy task grammar, as the task's sched runtime, which Linux 6.12+ takes
//!    as the fair custom slice (sched_attr.sched_runtime).
//!
//! Both are of the fair policies only (rt-app's _set_thread_cfs); SCHED_FIFO / SCHED_RR
//! and SCHED_DEADLINE tasks are run as written.
//!
//! schedlab's own front end reads the file literally; validate applies these to the
//! compiled workload so that the simulated threads are the ones rt-app would create.

use schedlab::workload::Workload;

/// What the quirks change for one JSON task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskQuirk {
    pub task: String,
    /// Nice requested but not applied (quirk 1).
    pub nice_dropped: Option<i64>,
    /// Custom slice from a task-level `runtime`, ns (quirk 2).
    pub slice_ns: Option<u64>,
}

/// The quirks that apply to the tasks of an rt-app JSON document.
pub fn find_quirks(json: &str) -> Vec<TaskQuirk> {
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(json) else {
        return Vec::new();
    };
    let Some(tasks) = doc.get("tasks").and_then(|t| t.as_object()) else {
        return Vec::new();
    };
    let default_policy = doc
        .get("global")
        .and_then(|g| g.get("default_policy"))
        .and_then(|p| p.as_str())
        .unwrap_or("SCHED_OTHER");
    let mut out = Vec::new();
    for (name, t) in tasks {
        let Some(obj) = t.as_object() else { continue };
        // Both quirks are of rt-app's fair path (_set_thread_cfs): a real-time task's
        // priority is its sched_priority, applied; a deadline task's runtime is its own.
        let policy = obj
            .get("policy")
            .and_then(|p| p.as_str())
            .unwrap_or(default_policy);
        if !matches!(policy, "SCHED_OTHER" | "SCHED_BATCH" | "SCHED_IDLE") {
            continue;
        }
        let int = |k: &str| obj.get(k).and_then(|v| v.as_i64());
        let dl_runtime = int("dl-runtime").unwrap_or(0);
        let legacy_runtime = if obj.contains_key("phases") {
            0
        } else {
            int("runtime").unwrap_or(0)
        };
        let runtime_set = dl_runtime > 0 || legacy_runtime > 0;
        let nice_dropped = match int("priority") {
            Some(p) if p != 0 && !runtime_set => Some(p),
            _ => None,
        };
        let slice_ns =
            (dl_runtime == 0 && legacy_runtime > 0).then(|| legacy_runtime as u64 * 1000);
        if nice_dropped.is_some() || slice_ns.is_some() {
            out.push(TaskQuirk {
                task: name.clone(),
                nice_dropped,
                slice_ns,
            });
        }
    }
    out
}

/// Apply `quirks` to the threads of `wl` (named `<task>-<index>`, fork templates
/// `<task>`); returns one warning per quirk.
pub fn apply(wl: &mut Workload, quirks: &[TaskQuirk], file: &str) -> Vec<String> {
    let mut warnings = Vec::new();
    for q in quirks {
        let ours = |comm: &str| {
            comm == q.task
                || comm
                    .rsplit_once('-')
                    .is_some_and(|(base, idx)| base == q.task && idx.parse::<u64>().is_ok())
        };
        let specs = wl
            .tasks
            .iter_mut()
            .chain(wl.templates.iter_mut().map(|t| &mut t.spec))
            .filter(|t| ours(&t.attrs.comm));
        for t in specs {
            if q.nice_dropped.is_some() {
                t.attrs.nice = 0;
            }
            if let Some(s) = q.slice_ns {
                t.attrs.slice_ns = Some(s);
            }
        }
        if let Some(p) = q.nice_dropped {
            warnings.push(format!(
                "{file}: tasks.{}: rt-app does not apply priority {p} without a runtime (dl-runtime); the threads run at nice 0, as rt-app runs them",
                q.task
            ));
        }
        if let Some(s) = q.slice_ns {
            warnings.push(format!(
                "{file}: tasks.{}: rt-app also reads the task-level runtime as the sched runtime, i.e. a custom slice of {} µs; applied as rt-app does",
                q.task,
                s / 1000
            ));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_quirks() {
        let json = r#"{"tasks": {
            "a": {"priority": 5, "run": 1000},
            "b": {"priority": 5, "dl-runtime": 3000, "run": 1000},
            "c": {"runtime": 2000, "sleep": 1000},
            "d": {"run": 10}
        }}"#;
        let q = find_quirks(json);
        assert_eq!(q.len(), 2);
        assert_eq!(q[0].task, "a");
        assert_eq!(q[0].nice_dropped, Some(5));
        assert_eq!(q[1].task, "c");
        assert_eq!(q[1].slice_ns, Some(2_000_000));
        let mut wl = schedlab::workload::rtapp::parse_rtapp(json, "t.json").unwrap();
        let w = apply(&mut wl, &q, "t.json");
        assert_eq!(w.len(), 2);
        assert_eq!(wl.tasks[0].attrs.nice, 0);
        assert_eq!(wl.tasks[1].attrs.nice, 5);
        assert_eq!(wl.tasks[2].attrs.slice_ns, Some(2_000_000));
    }

    #[test]
    fn realtime_and_deadline_tasks_have_no_quirks() {
        let json = r#"{"global": {"default_policy": "SCHED_FIFO"}, "tasks": {
            "f": {"priority": 5, "run": 1000},
            "d": {"policy": "SCHED_DEADLINE", "runtime": 2000, "dl-period": 10000},
            "o": {"policy": "SCHED_OTHER", "priority": 5, "run": 1000}
        }}"#;
        let q = find_quirks(json);
        assert_eq!(q.len(), 1);
        assert_eq!(q[0].task, "o");
    }
}
