//! The preemption model (CONFIG_PREEMPT_NONE / _VOLUNTARY / _FULL / _LAZY, or the boot
//! parameter preempt= under CONFIG_PREEMPT_DYNAMIC; kernel/sched/core.c).

/// Kernel preemption models (CONFIG_PREEMPT_*; `--preempt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PreemptModel {
    /// A running task is switched only at a tick or when it blocks.
    None,
    /// As `None`, plus at the task's next kernel entry (the end of its current op).
    Voluntary,
    /// need_resched takes effect at once.
    #[default]
    Full,
    /// Fair-class requests are lazy: they take effect at the next tick; others at once.
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
