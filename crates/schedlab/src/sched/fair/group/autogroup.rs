//! Autogroup (CONFIG_SCHED_AUTOGROUP, `--autogroup`): every session gets its own task group
//! directly under the root, weight as nice 0, as desktop kernels do. A session here is one
//! `-w` workload: the tasks one front-end invocation created (a shell's job in a terminal,
//! which is what setsid() separates on a desktop). Tasks placed in a configured cgroup stay
//! there: like the kernel, autogroup only applies to tasks in the root cgroup.

use super::{CgroupSpec, TgId, ROOT_TG};
use crate::sched::Sched;

impl Sched {
    /// autogroup_create for session `session` (0-based, in `-w` order); path
    /// `/autogroup-N` with N = session + 1, as /proc/PID/autogroup numbers them.
    pub fn autogroup_for_session(&mut self, session: usize) -> TgId {
        let path = format!("/autogroup-{}", session + 1);
        if let Some(tg) = self.group_by_path(&path) {
            return tg;
        }
        self.create_group(&CgroupSpec::new(&path), ROOT_TG, true)
    }
}
