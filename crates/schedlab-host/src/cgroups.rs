//! Task groups on the host: the scenario's `[cgroups]` tree and rt-app `taskgroup`s made
//! as real cgroups under the cgroup-v1 cpu controller (/sys/fs/cgroup/cpu/schedlab-PID/…),
//! each thread moving itself in before the start gate. The folders are removed, children
//! first, once the run's process is dead (a cgroup with tasks cannot be removed).

use schedlab::experiment::glob::glob_match;
use schedlab::experiment::Scenario;
use schedlab::workload::Workload;
use schedlab::InputError;
use std::path::{Path, PathBuf};

const V1_CPU: &str = "/sys/fs/cgroup/cpu";

/// The groups of one run; dropping it removes them.
pub struct HostCgroups {
    made: Vec<PathBuf>,
    /// Per task index of the workload: the folder whose `tasks` file it joins.
    pub task_dirs: Vec<Option<PathBuf>>,
}

/// Which group (path) each task of `wl` belongs to: rt-app `taskgroup`, then the
/// scenario's `tasks` globs (as the simulator places them).
pub fn placements(sc: &Scenario, wl: &Workload) -> Vec<Option<String>> {
    wl.tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            wl.cgroups.get(&i).cloned().or_else(|| {
                sc.cgroups
                    .iter()
                    .rev()
                    .find(|g| g.tasks.iter().any(|p| glob_match(p, &t.attrs.comm)))
                    .map(|g| g.path.clone())
            })
        })
        .collect()
}

impl HostCgroups {
    /// Make the groups the scenario needs; `None` when it needs none.
    pub fn create(sc: &Scenario, wl: &Workload) -> Result<Option<HostCgroups>, InputError> {
        let place = placements(sc, wl);
        if place.iter().all(|p| p.is_none()) {
            return Ok(None);
        }
        let origin = "validate: task groups";
        if !Path::new(V1_CPU).join("cpu.shares").exists() {
            return Err(InputError::new(origin, "this host has no cgroup-v1 cpu controller at /sys/fs/cgroup/cpu")
                .with_fix("validate makes task groups only under cgroup v1's cpu controller; drop the taskgroup/[cgroups] keys to validate the rest"));
        }
        // SAFETY: getpid cannot fail.
        let base = Path::new(V1_CPU).join(format!("schedlab-{}", unsafe { libc::getpid() }));
        let mut me = HostCgroups {
            made: Vec::new(),
            task_dirs: Vec::new(),
        };
        me.mkdir(&base, origin)?;
        // Parents first: every prefix of every path used, with the scenario's settings.
        let mut paths: Vec<String> = sc.cgroups.iter().map(|g| g.path.clone()).collect();
        paths.extend(place.iter().flatten().cloned());
        for p in paths {
            let mut cur = base.clone();
            for part in p.trim_matches('/').split('/').filter(|s| !s.is_empty()) {
                cur = cur.join(part);
                if !cur.exists() {
                    me.mkdir(&cur, origin)?;
                }
            }
            if let Some(g) = sc.cgroups.iter().find(|g| g.path == p) {
                // cgroup v2 weight → v1 shares (1024 per default weight 100).
                let shares = (g.weight * 1024 / 100).max(2);
                write(&cur.join("cpu.shares"), &shares.to_string(), origin)?;
                if g.idle {
                    write(&cur.join("cpu.idle"), "1", origin)?;
                }
                if let Some((quota, period)) = g.max {
                    write(
                        &cur.join("cpu.cfs_period_us"),
                        &(period / 1000).to_string(),
                        origin,
                    )?;
                    write(
                        &cur.join("cpu.cfs_quota_us"),
                        &(quota / 1000).to_string(),
                        origin,
                    )?;
                }
            }
        }
        me.task_dirs = place
            .iter()
            .map(|p| p.as_ref().map(|p| base.join(p.trim_matches('/'))))
            .collect();
        Ok(Some(me))
    }

    fn mkdir(&mut self, p: &Path, origin: &str) -> Result<(), InputError> {
        std::fs::create_dir(p).map_err(|e| {
            InputError::new(origin, format!("cannot create {}: {e}", p.display()))
                .with_fix("run as root, with the cpu controller mounted writable")
        })?;
        self.made.push(p.to_path_buf());
        Ok(())
    }
}

fn write(p: &Path, v: &str, origin: &str) -> Result<(), InputError> {
    std::fs::write(p, v)
        .map_err(|e| InputError::new(origin, format!("cannot write {v} to {}: {e}", p.display())))
}

/// Move the calling thread into the group folder `dir` (cgroup v1 `tasks` takes a tid).
pub fn join(dir: &Path) -> std::io::Result<()> {
    std::fs::write(dir.join("tasks"), crate::sched_attr::gettid().to_string())
}

impl Drop for HostCgroups {
    fn drop(&mut self) {
        for p in self.made.iter().rev() {
            // The run's threads are dead by now; retry briefly while the kernel
            // finishes tearing them down.
            for _ in 0..50 {
                if std::fs::remove_dir(p).is_ok() || !p.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}
