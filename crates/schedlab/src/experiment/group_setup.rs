//! Building the scenario's task groups in a prepared simulation and placing its tasks:
//! `[cgroups]` (with their `tasks` globs), the workload's own group requests, then
//! autogroup for whatever is left in the root (docs/scenario.md).

use super::glob::glob_match;
use super::Scenario;
use crate::error::InputError;
use crate::sched::fair::group::ROOT_TG;
use crate::simulation::Simulation;

/// Create the groups and move each task into its group before anything starts.
pub fn setup_groups(scenario: &Scenario, sim: &mut Simulation) -> Result<(), InputError> {
    if scenario.cgroups.is_empty() && !scenario.autogroup && sim.workload.cgroups.is_empty() {
        return Ok(());
    }
    let s = &mut sim.sched;
    for spec in &scenario.cgroups {
        let parent_path = &spec.path[..spec.path.rfind('/').unwrap_or(0)];
        let parent = if parent_path.is_empty() {
            ROOT_TG
        } else {
            s.group_by_path(parent_path)
                .expect("parents are declared first")
        };
        s.create_group(spec, parent, false);
    }
    // Globs that match no task are most likely typos.
    for spec in &scenario.cgroups {
        for g in &spec.tasks {
            if !s.tasks.iter().any(|t| glob_match(g, &t.comm)) {
                return Err(InputError::new(
                    format!("scenario: cgroups.\"{}\".tasks", spec.path),
                    format!("'{g}' matches no task"),
                )
                .with_fix("check the task names (comm) the workloads create"));
            }
        }
    }
    for p in 0..s.tasks.len() {
        let comm = s.tasks[p].comm.clone();
        let matches: Vec<&str> = scenario
            .cgroups
            .iter()
            .filter(|g| g.tasks.iter().any(|pat| glob_match(pat, &comm)))
            .map(|g| g.path.as_str())
            .collect();
        let requested = sim.workload.cgroups.get(&p).map(String::as_str);
        let path = match (matches.as_slice(), requested) {
            ([], r) => r,
            ([one], None) => Some(*one),
            ([one], Some(r)) if *one == r => Some(r),
            (many, r) => {
                let mut all: Vec<&str> = many.to_vec();
                all.extend(r);
                return Err(InputError::new(
                    format!("task '{comm}'"),
                    format!("placed in more than one cgroup: {}", all.join(", ")),
                )
                .with_fix("make the [cgroups] task globs match each task only once"));
            }
        };
        let tg = match path {
            // A group a workload names but the scenario does not declare is created with
            // the defaults (weight 100, no limit), parents first, as rt-app creates its
            // taskgroups in cgroupfs.
            Some(path) if requested == Some(path) && s.group_by_path(path).is_none() => {
                create_with_parents(s, path)
            }
            Some(path) => s.group_by_path(path).ok_or_else(|| {
                InputError::new(format!("task '{comm}'"), format!("unknown cgroup '{path}'"))
                    .with_fix(format!("declare it in the scenario: [cgroups.\"{path}\"]"))
            })?,
            None if scenario.autogroup => {
                let session = sim.workload.session_of(p);
                s.autogroup_for_session(session)
            }
            None => ROOT_TG,
        };
        if tg != ROOT_TG {
            s.move_new_task_to_group(p, tg);
        }
    }
    Ok(())
}

/// The group at `path`, creating it and any missing parent with default settings.
fn create_with_parents(s: &mut crate::sched::Sched, path: &str) -> crate::sched::fair::group::TgId {
    if let Some(tg) = s.group_by_path(path) {
        return tg;
    }
    let parent_path = &path[..path.rfind('/').unwrap_or(0)];
    let parent = if parent_path.is_empty() {
        ROOT_TG
    } else {
        create_with_parents(s, parent_path)
    };
    let spec = crate::sched::fair::group::CgroupSpec::new(path);
    s.create_group(&spec, parent, false)
}
