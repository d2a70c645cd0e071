//! The preemption model (CONFIG_PREEMPT_NONE / _VOLUNTARY / _FULL / _LAZY, or the boot
//! parameter preempt= under CONFIG_PREEMPT_DYNAMIC; kernel/sched/core.c).

/// Kernel preemption models (CONFIG_PREEMPT_*; `--preempt`). They differ in how kernel
/// code is preempted; tasks here run in user mode, where every model acts on need_resched
/// at the next return to user mode (docs/model.md, Preemption models).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PreemptModel {
    /// Kernel code is never preempted (CONFIG_PREEMPT_NONE).
    None,
    /// Kernel code is preempted at its cond_resched() points (CONFIG_PREEMPT_VOLUNTARY).
    Voluntary,
    /// Kernel code is preempted at once (CONFIG_PREEMPT).
    #[default]
    Full,
    /// Fair-class requests set TIF_NEED_RESCHED_LAZY: no IPI to another CPU; promoted at
    /// the tick (CONFIG_PREEMPT_LAZY, v6.13).
    Lazy,
}

impl PreemptModel {
    pub fn name(self) -> &'static str {
        match self {
            PreemptModel::None => "none",
            PreemptModel::Voluntary => "voluntary",
            PreemptModel::Full => "full",
            PreemptModel::Lazy => "lazy",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "none" => PreemptModel::None,
            "voluntary" => PreemptModel::Voluntary,
            "full" => PreemptModel::Full,
            "lazy" => PreemptModel::Lazy,
            _ => return None,
        })
    }
}
