//! perf stat's software counters over a process and everything it creates later:
//! perf_event_open(PERF_TYPE_SOFTWARE, inherit) for context-switches, cpu-migrations and
//! task-clock, as `perf stat -e ... -p` would count them.

/// The three counters, read as one set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerfTotals {
    pub context_switches: u64,
    pub cpu_migrations: u64,
    pub task_clock_ns: u64,
}

const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_COUNT_SW_TASK_CLOCK: u64 = 1;
const PERF_COUNT_SW_CONTEXT_SWITCHES: u64 = 3;
const PERF_COUNT_SW_CPU_MIGRATIONS: u64 = 4;
/// attr.flags bits (include/uapi/linux/perf_event.h): disabled, inherit, enable_on_exec.
const FLAG_DISABLED: u64 = 1 << 0;
const FLAG_INHERIT: u64 = 1 << 1;
const FLAG_ENABLE_ON_EXEC: u64 = 1 << 12;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 1 << 3;

/// struct perf_event_attr up to PERF_ATTR_SIZE_VER0 plus the fields we leave 0; the
/// kernel accepts any size it knows.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

/// Open counters on `pid` (and the threads/processes it creates from now on).
pub struct PerfCounters {
    fds: [i32; 3],
}

impl PerfCounters {
    /// `on_exec`: count from the process's next execve (a tool started through a gate),
    /// as perf stat does; else count from now.
    pub fn open(pid: i32, on_exec: bool) -> std::io::Result<PerfCounters> {
        let mut fds = [-1; 3];
        let configs = [
            PERF_COUNT_SW_CONTEXT_SWITCHES,
            PERF_COUNT_SW_CPU_MIGRATIONS,
            PERF_COUNT_SW_TASK_CLOCK,
        ];
        for (fd, config) in fds.iter_mut().zip(configs) {
            let mut flags = FLAG_INHERIT;
            if on_exec {
                flags |= FLAG_DISABLED | FLAG_ENABLE_ON_EXEC;
            }
            let attr = PerfEventAttr {
                type_: PERF_TYPE_SOFTWARE,
                size: std::mem::size_of::<PerfEventAttr>() as u32,
                config,
                flags,
                ..PerfEventAttr::default()
            };
            // SAFETY: attr is a valid perf_event_attr of the size it declares.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_perf_event_open,
                    &attr as *const PerfEventAttr,
                    pid,
                    -1i32,
                    -1i32,
                    PERF_FLAG_FD_CLOEXEC,
                )
            };
            if r < 0 {
                let e = std::io::Error::last_os_error();
                for &f in fds.iter().filter(|&&f| f >= 0) {
                    // SAFETY: f is an fd we opened.
                    unsafe { libc::close(f) };
                }
                return Err(e);
            }
            *fd = r as i32;
        }
        Ok(PerfCounters { fds })
    }

    /// Current totals (the inherited children's counts included).
    pub fn read(&self) -> PerfTotals {
        let v: Vec<u64> = self
            .fds
            .iter()
            .map(|&fd| {
                let mut x = 0u64;
                // SAFETY: reads 8 bytes into x from a perf fd.
                let n = unsafe { libc::read(fd, &mut x as *mut u64 as *mut libc::c_void, 8) };
                if n == 8 {
                    x
                } else {
                    0
                }
            })
            .collect();
        PerfTotals {
            context_switches: v[0],
            cpu_migrations: v[1],
            task_clock_ns: v[2],
        }
    }
}

impl Drop for PerfCounters {
    fn drop(&mut self) {
        for &f in &self.fds {
            // SAFETY: our own fds, closed once.
            unsafe { libc::close(f) };
        }
    }
}
