//! Simulated hardware: CPUs and where they sit in the topology, their capacity and
//! frequency, and the cost model of scheduler-visible hardware events.
//!
//! The first cut builds flat SMP machines only, but every CPU already carries its core
//! (SMT siblings share one), LLC, package and NUMA node ids, a capacity and a frequency
//! domain, so topology, asymmetric capacity and OPP tables extend these types in place.

pub mod build;
pub mod capture;
pub mod cpulist;
pub mod limits;
mod machine_check;
pub mod machine_toml;
mod machine_toml_schema;
mod machine_toml_write;
pub mod opp;
pub mod pixel6;
pub mod presets;
pub mod servers;

pub use machine_toml::{machine_to_toml, parse_machine};

pub use opp::{IdleState, Opp};

use crate::time::Ns;
use serde::{Deserialize, Serialize};

/// Capacity of the biggest CPU at its top frequency (SCHED_CAPACITY_SCALE, include/linux/sched.h).
pub const SCHED_CAPACITY_SCALE: u32 = 1024;

pub type CpuId = usize;

/// One logical CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cpu {
    pub id: CpuId,
    /// arch_scale_cpu_capacity: capacity at the top frequency, 1..=1024.
    pub capacity: u32,
    /// Physical core; SMT siblings share it.
    pub core: usize,
    /// Cluster (CLS level: L2 or LLC-tag group); equal to `core` where there is none.
    pub cluster: usize,
    /// Last-level-cache group (LLC / CCX).
    pub llc: usize,
    pub package: usize,
    pub numa_node: usize,
    /// Frequency domain (cpufreq policy); all CPUs in one domain change frequency together.
    pub freq_domain: usize,
}

/// A frequency domain (cpufreq policy; a cluster of one core type on phones).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FreqDomain {
    pub cpus: Vec<CpuId>,
    /// Highest frequency (the reference for frequency invariance), kHz.
    pub max_khz: u32,
    /// Frequency the domain runs at, kHz.
    pub cur_khz: u32,
    /// Operating points, ascending by frequency; the last one is `max_khz`. A domain with a
    /// single point has a fixed frequency.
    pub opps: Vec<Opp>,
    /// cpuinfo.transition_latency (the DT's clock-latency-ns).
    pub transition_latency_ns: Ns,
    /// Idle states of this domain's CPUs, shallowest first; empty = the machine's flat
    /// `costs.idle_exit_ns` and no idle power.
    pub idle_states: Vec<IdleState>,
}

impl FreqDomain {
    /// Index of the OPP the domain runs at.
    pub fn cur_opp(&self) -> usize {
        self.opps
            .iter()
            .position(|o| o.khz == self.cur_khz)
            .unwrap_or(self.opps.len() - 1)
    }

    /// cpufreq_driver_resolve_freq with RELATION_L: the lowest OPP at or above `khz`,
    /// else the highest.
    pub fn resolve_freq(&self, khz: u64) -> u32 {
        self.opps
            .iter()
            .find(|o| o.khz as u64 >= khz)
            .unwrap_or(self.opps.last().expect("a domain has an OPP"))
            .khz
    }
}

/// Hardware costs the scheduler cannot avoid, as named machine parameters. Deserialize
/// is for machine files' `[costs]` table: keys left out keep the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Costs {
    /// Time a CPU spends switching from one task to another before the next one makes
    /// progress (register/TLB/cache state). Default 2 µs.
    pub context_switch_ns: Ns,
    /// … switching to a task that has not run on this CPU for 4 or more switches, or
    /// never: its task_struct, stack and mm are cold (a ring of 8 processes on one CPU
    /// costs ≈ 1.8 µs more per hop than a ping-pong of 2 on this project's 6.18 guests).
    /// Between 1 and 4 switches ago, the cost moves linearly from `context_switch_ns`.
    /// Default 3500 ns (assumed: the guests' ratio applied to the 2000-ns default).
    pub context_switch_cold_ns: Ns,
    /// Time from a wake-up aimed at an idle CPU until that CPU can run the task (idle-state
    /// exit). Default 50 µs.
    pub idle_exit_ns: Ns,
    /// Delivery time of a cross-CPU wake-up or reschedule IPI. Default 5 µs.
    pub wakeup_ipi_ns: Ns,
    /// CPU time the sending CPU spends raising an IPI (smp_send_reschedule, the
    /// TTWU_QUEUE wake-list IPI, the nohz kick, the stopper). Bare-metal x2APIC: a few
    /// hundred ns (assumed 300); in a VM a trapped ICR write, ≈ 8 µs on this project's
    /// 6.18 guests (`capture --calibrate` measures it). Default 300 ns.
    pub ipi_send_ns: Ns,
    /// Speed of each SMT thread while another thread of its core is busy, in percent of
    /// a lone thread (SMT2 at 62% ≈ 1.25× the core's throughput). Default 62.
    pub smt_busy_speed_pct: u32,
    /// Extra reference work after a migration within an LLC (warming L1/L2), for a task
    /// of footprint 1. Default 10 µs.
    pub migrate_llc_ns: Ns,
    /// … across LLCs in one NUMA node (refilling the LLC). Default 50 µs.
    pub migrate_cross_llc_ns: Ns,
    /// … across NUMA nodes (remote memory until pages follow). Default 150 µs.
    pub migrate_cross_numa_ns: Ns,
    /// Cache line size in bytes: a task whose workload states its working set refills
    /// that many bytes' lines at `cacheline_*_ns` each instead of the flat `migrate_*_ns`.
    /// Default 64 (x86, arm64).
    pub cache_line_bytes: u64,
    /// CPU time of the wake-up path (select_task_rq + enqueue) on the waking CPU.
    /// Default 1 µs.
    pub sched_wakeup_ns: Ns,
    /// CPU time per CPU visited by an idle-CPU scan (select_idle_cpu). Default 50 ns.
    pub sched_idle_scan_per_cpu_ns: Ns,
    /// CPU time per CPU examined by a load-balance pass. Default 100 ns.
    pub sched_lb_per_cpu_ns: Ns,
    /// Fetching a shared scheduler cache line (rd->overutilized, rd->overloaded) last
    /// written by a CPU of the same LLC (other core). Default 40 ns.
    pub cacheline_llc_ns: Ns,
    /// … by a CPU of another LLC in the same NUMA node. Default 120 ns.
    pub cacheline_cross_llc_ns: Ns,
    /// … by a CPU of another NUMA node or socket. Default 300 ns.
    pub cacheline_cross_numa_ns: Ns,
    /// Share, in percent, of such a fetch that a plain store (WRITE_ONCE) stalls its CPU
    /// for: the store buffer lets the CPU go on while the line comes (x86 TSO, POWER).
    /// Default 0 (assumed: the fetch is wholly hidden); 100 stalls as a load does.
    /// Atomic read-modify-writes always wait for the whole fetch.
    pub cacheline_store_stall_pct: u32,
    /// Share, in percent, of a line transfer's latency during which the line takes no
    /// other request (its home agent, or the LLC serving it, is busy with this one).
    /// Default 100 (assumed, the upper bound: transfers of one line never overlap).
    pub cacheline_occupancy_pct: u32,
    // Per-operation CPU costs of user-space programs (the front ends read them; the
    // wake-ups these syscalls cause are charged by the kernel model on top), reference
    // ns of a 2.5–3 GHz x86 core, set from this 6.18 AMD EPYC host (docs/machines.md).
    /// write(2) of a small message to a pipe (syscall, pipe_write, 100-B copy): 250 ns.
    pub pipe_write_ns: Ns,
    /// read(2) of a small message from a pipe: 250 ns.
    pub pipe_read_ns: Ns,
    /// unix_stream_sendmsg of a small message (skb allocation, queueing): 700 ns.
    pub socket_send_ns: Ns,
    /// unix_stream_recvmsg of a small message (copy out, skb free): 700 ns.
    pub socket_recv_ns: Ns,
    /// Extra CPU time of a pipe read or write on a CPU other than the pipe's previous op
    /// (pipe->mutex and the ring's lines come over, and contend while both CPUs use
    /// it), between two cores of one LLC; further CPUs scale it by the cache-line
    /// transfer costs. Default 160 ns (assumed: 4 lines at `cacheline_llc_ns`); the
    /// guests' `capture --calibrate` gives 0–600 ns with where their vCPUs sit, mostly
    /// 120–170 on this repository's host (docs/model.md).
    pub pipe_bounce_ns: Ns,
    /// … of a socket send or receive (the receive queue's lock, the peer's state lock,
    /// sk_wmem_alloc). Default 160 ns (assumed as above); the guests measure ≈ 185.
    pub socket_bounce_ns: Ns,
    /// Extra CPU time of a socket send per skb it queues when the skbs in flight no
    /// longer fit the caches: `socket_send_cold_ns` × (1 − `socket_cache_bytes` ÷ the
    /// truesize of every AF_UNIX skb in flight per core), nothing while they fit. The
    /// skb's head, data and shared info, and the slab's free lists, come from beyond the
    /// core's caches (docs/model.md, "AF_UNIX stream sockets"). Default 0 (off: not
    /// measured for the presets); `capture --calibrate` fits the three on the host.
    pub socket_send_cold_ns: Ns,
    /// … of a socket receive, per skb it consumes. Default 0.
    pub socket_recv_cold_ns: Ns,
    /// The bytes of skbs in flight per core that the caches hold (see
    /// `socket_send_cold_ns`). Default 0.
    pub socket_cache_bytes: u64,
    /// Copying payload in or out of the kernel, per KiB beyond the small message: 60 ns.
    pub copy_ns_per_kib: Ns,
    /// A hackbench / perf-bench-messaging worker's hot state besides its message buffer
    /// (kernel-stack frames of the read/write and schedule paths, task_struct's hot
    /// lines, user stack, file table): with the message, what a migration refills.
    /// 4096 B (assumed, ≈ 64 lines of 64 B).
    pub messaging_state_bytes: u64,
    /// A futex wake syscall (FUTEX_WAKE; the wake-up itself is the model's): 200 ns.
    pub futex_wake_ns: Ns,
    /// One multiply-add of schbench's naive matrix multiply, in picoseconds: 460.
    pub matrix_mac_ps: u64,
    /// One iteration of an empty counting loop compiled without optimisation
    /// (`for (i = 0; i < N; i++);`, the spinner's loop), in picoseconds: 250.
    pub spin_loop_ps: u64,
    /// The creating thread's CPU time for one pthread_create (clone, stack mapping): 15 µs.
    pub thread_create_ns: Ns,
    /// The parent's CPU time for one fork() of a small process: 60 µs.
    pub process_create_ns: Ns,
}

impl Default for Costs {
    fn default() -> Self {
        Costs {
            context_switch_ns: 2_000,
            context_switch_cold_ns: 3_500,
            idle_exit_ns: 50_000,
            wakeup_ipi_ns: 5_000,
            ipi_send_ns: 300,
            smt_busy_speed_pct: 62,
            migrate_llc_ns: 10_000,
            migrate_cross_llc_ns: 50_000,
            migrate_cross_numa_ns: 150_000,
            cache_line_bytes: 64,
            sched_wakeup_ns: 1_000,
            sched_idle_scan_per_cpu_ns: 50,
            sched_lb_per_cpu_ns: 100,
            cacheline_llc_ns: 40,
            cacheline_cross_llc_ns: 120,
            cacheline_cross_numa_ns: 300,
            cacheline_store_stall_pct: 0,
            cacheline_occupancy_pct: 100,
            pipe_write_ns: 250,
            pipe_read_ns: 250,
            socket_send_ns: 700,
            socket_recv_ns: 700,
            pipe_bounce_ns: 160,
            socket_bounce_ns: 160,
            socket_send_cold_ns: 0,
            socket_recv_cold_ns: 0,
            socket_cache_bytes: 0,
            copy_ns_per_kib: 60,
            messaging_state_bytes: 4096,
            futex_wake_ns: 200,
            matrix_mac_ps: 460,
            spin_loop_ps: 250,
            thread_create_ns: 15_000,
            process_create_ns: 60_000,
        }
    }
}

impl Costs {
    /// The parameter names, as machine files and scenario `[costs]` tables spell them.
    pub fn names() -> Vec<String> {
        match serde_json::to_value(Costs::default()) {
            Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
            _ => unreachable!("Costs serializes to an object"),
        }
    }

    /// These costs with `overrides` (name → value) set; an error names a value that does
    /// not fit its parameter.
    pub fn with_overrides(
        &self,
        overrides: &std::collections::BTreeMap<String, u64>,
    ) -> Result<Costs, String> {
        let mut v = serde_json::to_value(self).map_err(|e| e.to_string())?;
        let serde_json::Value::Object(m) = &mut v else {
            unreachable!("Costs serializes to an object")
        };
        for (k, n) in overrides {
            m.insert(k.clone(), serde_json::Value::from(*n));
        }
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    /// Values no machine has: `Err` names the key and what it must be.
    pub fn check(&self) -> Result<(), String> {
        let line = self.cache_line_bytes;
        if !(16..=1024).contains(&line) || !line.is_power_of_two() {
            return Err(format!(
                "cache_line_bytes = {line}: a cache line is a power of two from 16 to 1024 \
                 bytes (64 on x86 and arm64, 128 on POWER)"
            ));
        }
        for (key, pct, what) in [
            (
                "smt_busy_speed_pct",
                self.smt_busy_speed_pct,
                "an SMT thread is at most as fast beside a busy sibling as alone",
            ),
            (
                "cacheline_store_stall_pct",
                self.cacheline_store_stall_pct,
                "a store stalls for at most its whole fetch",
            ),
            (
                "cacheline_occupancy_pct",
                self.cacheline_occupancy_pct,
                "a transfer occupies the line for at most its whole latency",
            ),
        ] {
            if pct > 100 {
                return Err(format!("{key} = {pct}: give 0 to 100 ({what})"));
            }
        }
        Ok(())
    }

    /// CPU cost of one write(2) of `bytes` on a pipe or a socket.
    pub fn msg_write_ns(&self, socket: bool, bytes: u64) -> Ns {
        let fixed = if socket {
            self.socket_send_ns
        } else {
            self.pipe_write_ns
        };
        fixed + bytes * self.copy_ns_per_kib / 1024
    }

    /// CPU cost of one read(2) of `bytes` from a pipe or a socket.
    pub fn msg_read_ns(&self, socket: bool, bytes: u64) -> Ns {
        let fixed = if socket {
            self.socket_recv_ns
        } else {
            self.pipe_read_ns
        };
        fixed + bytes * self.copy_ns_per_kib / 1024
    }
}

/// RECLAIM_DISTANCE (include/linux/topology.h): node_reclaim_distance's default.
pub const RECLAIM_DISTANCE: u32 = 30;
/// node_reclaim_distance on AMD Zen (arch/x86/kernel/cpu/amd.c, init_amd_zn, families
/// 17h and 19h): a 2-socket EPYC's SLIT 32 stays "near".
pub const RECLAIM_DISTANCE_AMD_ZEN: u32 = 32;

/// RECLAIM_DISTANCE on powerpc (arch/powerpc/include/asm/topology.h): every NUMA level
/// is beyond it, so none balances forks or pulls wakees.
pub const RECLAIM_DISTANCE_POWERPC: u32 = 10;

fn is_reclaim_distance(d: &u32) -> bool {
    *d == RECLAIM_DISTANCE
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Machine {
    /// Name as given by the user (preset name or file).
    pub name: String,
    pub cpus: Vec<Cpu>,
    pub freq_domains: Vec<FreqDomain>,
    /// SLIT-style NUMA distances, node × node (10 on the diagonal).
    pub numa_distance: Vec<Vec<u32>>,
    /// node_reclaim_distance (sd_init): NUMA levels farther than this lose BALANCE_EXEC,
    /// BALANCE_FORK and WAKE_AFFINE. RECLAIM_DISTANCE unless the architecture sets it.
    #[serde(skip_serializing_if = "is_reclaim_distance")]
    pub node_reclaim_distance: u32,
    pub costs: Costs,
    /// The kernel version the machine runs (machine file key `kernel`), checked and used
    /// by the scenario unless it names its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
}

impl Machine {
    pub fn nr_cpus(&self) -> usize {
        self.cpus.len()
    }

    /// Work progress rate of `cpu`, in reference ns per 1024 ns of wall time:
    /// capacity × cur_freq / max_freq (docs/model.md, Time, work and events).
    pub fn speed(&self, cpu: CpuId) -> u64 {
        let c = &self.cpus[cpu];
        let d = &self.freq_domains[c.freq_domain];
        // At the top frequency (fixed-frequency machines, performance) the quotient is
        // the capacity: no division on every progress update.
        if d.cur_khz == d.max_khz {
            return c.capacity as u64;
        }
        c.capacity as u64 * d.cur_khz as u64 / d.max_khz as u64
    }

    /// arch_scale_cpu_capacity: the CPU's capacity at its top frequency.
    #[inline]
    pub fn arch_scale_cpu_capacity(&self, cpu: CpuId) -> u64 {
        self.cpus[cpu].capacity as u64
    }

    /// arch_scale_freq_capacity: cur_freq / max_freq × 1024.
    #[inline]
    pub fn arch_scale_freq_capacity(&self, cpu: CpuId) -> u64 {
        let d = &self.freq_domains[self.cpus[cpu].freq_domain];
        ((d.cur_khz as u64) << 10) / d.max_khz as u64
    }
}
