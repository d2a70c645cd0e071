//! The scheduling-attribute syscalls a task program asks for: sched_setattr (policy, nice,
//! custom slice, uclamp) and sched_setaffinity, applied to the calling thread.

use schedlab::workload::{Policy, SchedChange};

/// struct sched_attr (include/uapi/linux/sched/types.h), version with util clamps.
#[repr(C)]
#[derive(Default)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
    sched_util_min: u32,
    sched_util_max: u32,
}

const SCHED_FLAG_KEEP_POLICY: u64 = 0x08;
const SCHED_FLAG_KEEP_PARAMS: u64 = 0x10;
const SCHED_FLAG_UTIL_CLAMP_MIN: u64 = 0x20;
const SCHED_FLAG_UTIL_CLAMP_MAX: u64 = 0x40;

fn policy_number(p: Policy) -> u32 {
    p.number()
}

fn sched_getattr() -> Option<SchedAttr> {
    let mut a = SchedAttr::default();
    // SAFETY: the kernel writes at most `size` bytes into `a`.
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_getattr,
            0,
            &mut a as *mut SchedAttr,
            std::mem::size_of::<SchedAttr>() as u32,
            0u32,
        )
    };
    (r == 0).then_some(a)
}

fn sched_setattr(a: &SchedAttr) -> std::io::Result<()> {
    // SAFETY: `a` is a valid sched_attr of the size it declares.
    let r = unsafe { libc::syscall(libc::SYS_sched_setattr, 0, a as *const SchedAttr, 0u32) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The policy numbers of include/uapi/linux/sched.h by class.
fn is_rt(policy: u32) -> bool {
    policy == Policy::Fifo.number() || policy == Policy::Rr.number()
}

fn is_dl(policy: u32) -> bool {
    policy == Policy::Deadline.number()
}

/// The full sched_attr for `c` on top of the thread's current attributes `cur`, holding
/// only what the new policy reads, as __sched_setscheduler wants it: sched_priority
/// 1..=99 for SCHED_FIFO / SCHED_RR and 0 otherwise; sched_runtime / _deadline / _period
/// for SCHED_DEADLINE; for a fair policy sched_runtime is the custom slice (Linux 6.12+),
/// kept only from a fair policy (a deadline runtime is no slice).
fn merged(c: &SchedChange, cur: &SchedAttr) -> SchedAttr {
    let policy = c.policy.map(policy_number).unwrap_or(cur.sched_policy);
    let mut a = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        sched_policy: policy,
        sched_nice: c.nice.unwrap_or(cur.sched_nice),
        ..SchedAttr::default()
    };
    if is_rt(policy) {
        a.sched_priority = c
            .rt_priority
            .filter(|&p| p > 0)
            .unwrap_or(if is_rt(cur.sched_policy) {
                cur.sched_priority
            } else {
                1
            });
    } else if is_dl(policy) {
        let d = c.dl.map(|d| (d.runtime, d.deadline, d.period));
        let keep = (cur.sched_runtime, cur.sched_deadline, cur.sched_period);
        (a.sched_runtime, a.sched_deadline, a.sched_period) =
            d.unwrap_or(if is_dl(cur.sched_policy) {
                keep
            } else {
                (0, 0, 0)
            });
    } else {
        let was_fair = !is_rt(cur.sched_policy) && !is_dl(cur.sched_policy);
        a.sched_runtime = c
            .slice_ns
            .unwrap_or(if was_fair { cur.sched_runtime } else { 0 });
    }
    a
}

/// Apply `c` to the calling thread. Returns the parts the kernel refused, as warnings
/// (e.g. uclamp without CONFIG_UCLAMP_TASK): the run goes on without them.
pub fn apply(c: &SchedChange) -> Vec<String> {
    let mut warnings = Vec::new();
    if c.policy.is_some()
        || c.nice.is_some()
        || c.slice_ns.is_some()
        || c.rt_priority.is_some()
        || c.dl.is_some()
    {
        let cur = sched_getattr().unwrap_or_default();
        let a = merged(c, &cur);
        if let Err(e) = sched_setattr(&a) {
            warnings.push(format!("sched_setattr(policy/priority/nice/slice/dl): {e}"));
        }
    }
    if c.uclamp.min.is_some() || c.uclamp.max.is_some() {
        let mut flags = SCHED_FLAG_KEEP_POLICY | SCHED_FLAG_KEEP_PARAMS;
        let mut a = SchedAttr {
            size: std::mem::size_of::<SchedAttr>() as u32,
            ..SchedAttr::default()
        };
        if let Some(v) = c.uclamp.min {
            flags |= SCHED_FLAG_UTIL_CLAMP_MIN;
            a.sched_util_min = v;
        }
        if let Some(v) = c.uclamp.max {
            flags |= SCHED_FLAG_UTIL_CLAMP_MAX;
            a.sched_util_max = v;
        }
        a.sched_flags = flags;
        if let Err(e) = sched_setattr(&a) {
            warnings.push(format!("sched_setattr(util_min/util_max): {e}"));
        }
    }
    if let Some(cpus) = &c.cpus {
        if let Err(e) = set_affinity(cpus) {
            warnings.push(format!("sched_setaffinity({cpus:?}): {e}"));
        }
    }
    warnings
}

/// sched_setaffinity of the calling thread.
pub fn set_affinity(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET only writes inside it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

/// The calling thread's id (gettid).
pub fn gettid() -> i32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::gettid() }
}
