//! Ending what we start: Ctrl-C (SIGINT) and SIGTERM only raise a flag that every wait
//! loop checks, and each spawned process group is owned by a guard whose Drop kills and
//! reaps it, so an error, a panic or Ctrl-C all end the same way.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Install the SIGINT/SIGTERM handlers, without SA_RESTART so that a blocked poll(2)
/// returns EINTR and the loop sees the flag at once.
pub fn install_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe).
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            sa.sa_flags = 0;
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Running as root (tracefs, sched_setattr of negative nice, cgroups need it).
pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The error every loop returns once Ctrl-C was seen.
pub fn interrupted_error() -> schedlab::InputError {
    schedlab::InputError::new(
        "validate",
        "interrupted (Ctrl-C); every spawned task was ended",
    )
}

/// A spawned process that leads its own process group: dropping it kills the whole
/// group with SIGKILL and reaps the leader.
pub struct ProcessGroup {
    pub pid: i32,
    reaped: bool,
}

impl ProcessGroup {
    pub fn new(pid: i32) -> Self {
        ProcessGroup { pid, reaped: false }
    }

    /// Non-blocking reap: the exit status and rusage if the leader has exited.
    pub fn try_wait(&mut self) -> Option<(i32, libc::rusage)> {
        if self.reaped {
            return None;
        }
        let mut status = 0;
        // SAFETY: plain syscall into local out-parameters.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(self.pid, &mut status, libc::WNOHANG, &mut ru) };
        if r == self.pid {
            self.reaped = true;
            Some((status, ru))
        } else {
            None
        }
    }

    /// Kill the group (leader and every descendant that kept the group) and reap.
    pub fn kill(&mut self) {
        // SAFETY: signals our own child's group.
        unsafe {
            libc::kill(-self.pid, libc::SIGKILL);
            libc::kill(self.pid, libc::SIGKILL);
        }
        if !self.reaped {
            let mut status = 0;
            // SAFETY: reaps our own child.
            unsafe { libc::waitpid(self.pid, &mut status, 0) };
            self.reaped = true;
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
        // A tool may have forked workers before we killed it: they are in the group
        // and got the SIGKILL too; give the kernel a moment to tear them down.
        for _ in 0..50 {
            if !group_alive(self.pid) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// Any process still in group `pgid`?
pub fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks existence.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// Processes whose process group is `pgid`, from /proc (for tests and leak checks).
pub fn processes_in_group(pgid: i32) -> Vec<i32> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    let after = s.rsplit_once(')')?.1;
                    after.split_whitespace().nth(2)?.parse::<i32>().ok()
                })
                == Some(pgid)
        })
        .collect()
}
