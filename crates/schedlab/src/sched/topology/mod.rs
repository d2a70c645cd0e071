//! The sched-domain hierarchy built from a [`Machine`] (kernel/sched/topology.c).
//! `build_sched_domains` models the kernel's function of the same name:
//! one domain per CPU per topology level, groups, group capacities, degenerate-level
//! removal (`cpu_attach_domain`) and the per-CPU shortcuts (`update_top_cache_domain`).
//!
//! Layout: domains, groups, group capacities, `sched_domain_shared` objects and spans live
//! in arenas (`Vec`) and refer to each other by index. Each CPU owns its own domain copies
//! (they carry per-CPU balance state, as in the kernel); groups and their capacity are
//! shared between CPUs as the kernel shares them, and spans are interned so a 1920-CPU
//! machine holds each distinct span once.

mod attach;
pub mod build;
pub mod cpumask;
pub mod debugfs;
pub mod flags;
mod groups;
pub mod table;

pub use build::build_sched_domains;
pub use cpumask::CpuMask;
pub use debugfs::{render_cpu_domains, render_domains, render_summary};
pub use flags::SdFlags;
pub use table::topology_table;

use crate::machine::CpuId;

pub type DomainId = usize;
pub type GroupId = usize;
pub type SgcId = usize;
pub type SharedId = usize;
pub type SpanId = usize;
pub type RingId = usize;

/// sd_init's busy_factor.
pub const BUSY_FACTOR: u32 = 16;

/// Which CPU property a topology level's mask follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelMask {
    /// cpu_smt_mask: same core.
    Smt,
    /// cpu_clustergroup_mask: same cluster.
    Cluster,
    /// cpu_coregroup_mask: same LLC.
    CoreGroup,
    /// cpu_cpu_mask: same package.
    Package,
    /// sd_numa_mask at `numa_level`: nodes within `sched_domains_numa_distance[level]`.
    Numa,
}

/// struct sched_domain_topology_level (include/linux/sched/topology.h).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopologyLevel {
    pub name: &'static str,
    pub mask: LevelMask,
    /// tl->sd_flags().
    pub sd_flags: SdFlags,
    /// SDTL_OVERLAP: groups built from overlapping child spans (NUMA above NODE).
    pub overlap: bool,
    pub numa_level: usize,
}

/// struct sched_domain (include/linux/sched/topology.h): one CPU's copy of one level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedDomain {
    /// The CPU whose chain this copy belongs to.
    pub cpu: CpuId,
    /// sd->level: depth in the chain as built, before degenerate levels were removed.
    pub level: u32,
    /// Index into [`SchedDomains::levels`].
    pub tl: usize,
    pub name: &'static str,
    pub span: SpanId,
    pub span_weight: u32,
    pub flags: SdFlags,
    pub parent: Option<DomainId>,
    pub child: Option<DomainId>,
    /// sd->groups: the ring of groups, entered at `groups_first` (the group holding `cpu`).
    pub groups: RingId,
    pub groups_first: u32,
    /// ms.
    pub min_interval: u64,
    pub max_interval: u64,
    pub balance_interval: u64,
    pub busy_factor: u32,
    pub imbalance_pct: u32,
    pub cache_nice_tries: u32,
    /// In the simulator's jiffies; 0 = built at boot.
    pub last_balance: u64,
    pub last_decay_max_lb_cost: u64,
    pub max_newidle_lb_cost: u64,
    /// Proportional newidle statistics, seeded at 50 % success (sd_init).
    pub newidle_call: u32,
    pub newidle_success: u32,
    pub newidle_ratio: u32,
    /// sd->nohz_idle: this CPU is counted idle in `shared.nr_busy_cpus`.
    pub nohz_idle: bool,
    pub imb_numa_nr: u32,
    pub shared: Option<SharedId>,
    // load balancing (docs/model.md, Load balancing)
    /// sd->nr_balance_failed (sched_balance_rq).
    pub nr_balance_failed: u32,
    /// Start of the current newidle statistics window, ns (NI_RATE, update_newidle_stats).
    pub newidle_stamp: u64,
}

/// struct sched_group (kernel/sched/sched.h). Shared by every domain copy that has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedGroup {
    pub span: SpanId,
    /// group_balance_mask: the whole group, or for NUMA overlap groups the CPUs whose own
    /// child domain equals this group.
    pub balance_mask: SpanId,
    pub sgc: SgcId,
    /// The child domain's flags (cleared when that child turned out degenerate).
    pub flags: SdFlags,
    pub group_weight: u32,
    /// Distinct SMT cores in the group.
    pub cores: u32,
    /// Only meaningful on SD_ASYM_PACKING levels, which this model never builds.
    pub asym_prefer_cpu: CpuId,
}

/// struct sched_group_capacity (kernel/sched/sched.h).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedGroupCapacity {
    pub capacity: u64,
    pub min_capacity: u64,
    pub max_capacity: u64,
    /// jiffies; 0 at boot.
    pub next_update: u64,
    pub imbalance: bool,
    /// sgc->id: the CPU whose per-CPU slot this capacity came from.
    pub id: CpuId,
}

/// struct sched_domain_shared (include/linux/sched/topology.h).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedDomainShared {
    /// First CPU of the domain that allocated it (sd_id).
    pub id: CpuId,
    pub nr_busy_cpus: u32,
    pub has_idle_cores: bool,
    pub nr_idle_scan: u32,
}

/// Per-CPU pointers: rq->sd and update_top_cache_domain's shortcuts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuTopology {
    /// rq->sd: the lowest non-degenerate domain.
    pub sd: Option<DomainId>,
    pub sd_llc: Option<DomainId>,
    pub sd_llc_size: u32,
    pub sd_llc_id: CpuId,
    pub sd_llc_shared: Option<SharedId>,
    pub sd_share_id: CpuId,
    pub sd_numa: Option<DomainId>,
    pub sd_asym_packing: Option<DomainId>,
    pub sd_asym_cpucapacity: Option<DomainId>,
    pub sd_balance_shared: Option<SharedId>,
}

/// Every CPU's domain chain plus the objects the chains share.
#[derive(Debug, Clone)]
pub struct SchedDomains {
    pub nr_cpus: usize,
    /// The topology table the domains were built from (default levels, then NODE/NUMA).
    pub levels: Vec<TopologyLevel>,
    /// sched_domains_numa_distance: the distinct node distances, ascending.
    pub numa_distances: Vec<u32>,
    pub spans: Vec<CpuMask>,
    pub domains: Vec<SchedDomain>,
    pub groups: Vec<SchedGroup>,
    /// Group rings in circular order; a domain enters its ring at `groups_first`.
    pub rings: Vec<Vec<GroupId>>,
    pub sgc: Vec<SchedGroupCapacity>,
    pub shared: Vec<SchedDomainShared>,
    pub cpus: Vec<CpuTopology>,
    /// Static keys.
    pub sched_asym_cpucapacity: bool,
    pub sched_smt_present: bool,
    pub sched_cluster_active: bool,
}

impl SchedDomains {
    pub fn span(&self, sd: DomainId) -> &CpuMask {
        &self.spans[self.domains[sd].span]
    }

    /// for_each_domain(cpu, sd): the CPU's domains from the lowest up.
    pub fn for_each_domain(&self, cpu: CpuId) -> impl Iterator<Item = DomainId> + '_ {
        std::iter::successors(self.cpus[cpu].sd, move |&d| self.domains[d].parent)
    }

    /// sd->groups, sd->groups->next, …: the groups of `sd`, the local one first.
    pub fn groups_of(&self, sd: DomainId) -> impl Iterator<Item = GroupId> + '_ {
        let d = &self.domains[sd];
        let ring = &self.rings[d.groups];
        let first = d.groups_first as usize;
        ring[first..].iter().chain(&ring[..first]).copied()
    }

    pub fn nr_groups(&self, sd: DomainId) -> usize {
        self.rings[self.domains[sd].groups].len()
    }

    pub fn group_span(&self, sg: GroupId) -> &CpuMask {
        &self.spans[self.groups[sg].span]
    }

    /// group_balance_cpu: first CPU of the group's balance mask.
    pub fn group_balance_cpu(&self, sg: GroupId) -> CpuId {
        self.spans[self.groups[sg].balance_mask]
            .first()
            .expect("a group has a balance CPU")
    }

    /// lowest_flag_domain.
    pub fn lowest_flag_domain(&self, cpu: CpuId, flag: SdFlags) -> Option<DomainId> {
        self.for_each_domain(cpu)
            .find(|&d| self.domains[d].flags.contains(flag))
    }

    /// highest_flag_domain: for "shared child" flags the walk stops at the first domain
    /// without the flag, as the flag is set bottom-up.
    pub fn highest_flag_domain(&self, cpu: CpuId, flag: SdFlags) -> Option<DomainId> {
        let mut hsd = None;
        for d in self.for_each_domain(cpu) {
            let has = self.domains[d].flags.contains(flag);
            if flag.is_shared_child() && !has {
                break;
            }
            if has {
                hsd = Some(d);
            }
        }
        hsd
    }

    /// The CPU's domain named `name` (e.g. "MC"), if it survived.
    pub fn domain_named(&self, cpu: CpuId, name: &str) -> Option<DomainId> {
        self.for_each_domain(cpu)
            .find(|&d| self.domains[d].name == name)
    }

    /// The level names of a CPU's chain, lowest first.
    pub fn level_names(&self, cpu: CpuId) -> Vec<&'static str> {
        self.for_each_domain(cpu)
            .map(|d| self.domains[d].name)
            .collect()
    }
}
