//! CFS bandwidth control, cpu.max = "QUOTA PERIOD" (CONFIG_CFS_BANDWIDTH): each group
//! cfs_rq runs on runtime borrowed in 5 ms slices from its group's per-period pool; one that
//! runs dry is throttled (its group entity dequeued up the tree) until the period timer
//! refills the pool and hands it runtime again.
//!
//! Simplifications (docs/model.md): the throttle model is the pre-6.18 one (the whole group
//! cfs_rq is dequeued at once, not each task on its return to user mode); no slack timer
//! (runtime left on a CPU when its group goes idle is not returned to the pool); no burst;
//! the period timer is a single deterministic event per group on the period grid.

use super::TgId;
use crate::engine::Event;
use crate::sched::fair::{dequeue, enqueue};
use crate::sched::{CfsRqId, Sched};
use crate::time::Ns;

/// sysctl_sched_cfs_bandwidth_slice: 5 ms.
pub const CFS_BANDWIDTH_SLICE_NS: Ns = 5_000_000;
/// cpu.max period bounds (1 ms .. 1 s) and the minimum quota (1 ms).
pub const MIN_CFS_QUOTA_PERIOD_NS: Ns = 1_000_000;
pub const MAX_CFS_QUOTA_PERIOD_NS: Ns = 1_000_000_000;

/// struct cfs_bandwidth, with cpu.stat's counters.
#[derive(Debug, Clone, Default)]
pub struct CfsBandwidth {
    pub quota: Ns,
    pub period: Ns,
    /// Runtime left in the global pool this period.
    pub runtime: Ns,
    pub idle: bool,
    pub period_active: bool,
    /// throttled_cfs_rq, in throttle order.
    pub throttled_cfs_rq: Vec<CfsRqId>,
    pub nr_periods: u64,
    pub nr_throttled: u64,
    /// Σ over CPUs of the time each group cfs_rq spent throttled.
    pub throttled_time: Ns,
    /// Throttle events (throttle_cfs_rq that dequeued), all CPUs.
    pub nr_throttle_events: u64,
}

impl Sched {
    /// tg_set_cfs_bandwidth: set quota and period; every CPU's cfs_rq starts with no local
    /// runtime.
    pub fn tg_set_cfs_bandwidth(&mut self, tg: TgId, quota: Ns, period: Ns) {
        self.groups[tg].bw = Some(CfsBandwidth {
            quota,
            period,
            runtime: quota,
            ..Default::default()
        });
        for cpu in 0..self.rqs.len() {
            let cfs = self.groups[tg].cfs_rq[cpu];
            let g = &mut self.cfs_rqs[cfs].grp;
            g.runtime_enabled = true;
            g.runtime_remaining = 0;
        }
    }

    fn bw(&mut self, cfs: CfsRqId) -> &mut CfsBandwidth {
        let tg = self.cfs_rqs[cfs].grp.tg;
        self.groups[tg]
            .bw
            .as_mut()
            .expect("runtime_enabled implies a bandwidth")
    }

    /// start_cfs_bandwidth: arm the period timer on the period grid if it is not running.
    fn start_cfs_bandwidth(&mut self, tg: TgId) {
        let now = self.now;
        let bw = self.groups[tg].bw.as_mut().expect("bandwidth");
        if bw.period_active {
            return;
        }
        bw.period_active = true;
        let at = (now / bw.period + 1) * bw.period;
        self.events.push(at, Event::CfsPeriod(tg));
    }

    /// __assign_cfs_rq_runtime: top the cfs_rq up to `target` from the pool.
    fn assign_cfs_rq_runtime_to(&mut self, cfs: CfsRqId, target: i64) -> bool {
        let tg = self.cfs_rqs[cfs].grp.tg;
        self.start_cfs_bandwidth(tg);
        let min_amount = target - self.cfs_rqs[cfs].grp.runtime_remaining;
        let bw = self.bw(cfs);
        let mut amount = 0;
        if bw.runtime > 0 && min_amount > 0 {
            amount = (bw.runtime as i64).min(min_amount);
            bw.runtime -= amount as Ns;
            bw.idle = false;
        }
        let g = &mut self.cfs_rqs[cfs].grp;
        g.runtime_remaining += amount;
        g.runtime_remaining > 0
    }

    /// __account_cfs_rq_runtime, from update_curr: charge `delta`; a cfs_rq out of runtime
    /// asks the pool for a slice and reschedules its CPU if there is none.
    pub(crate) fn account_cfs_rq_runtime(&mut self, cfs: CfsRqId, delta: Ns) {
        let g = &mut self.cfs_rqs[cfs].grp;
        g.runtime_remaining -= delta as i64;
        if g.runtime_remaining > 0 || g.throttled {
            return;
        }
        if !self.assign_cfs_rq_runtime_to(cfs, CFS_BANDWIDTH_SLICE_NS as i64)
            && self.cfs_rqs[cfs].curr.is_some()
        {
            let cpu = self.cfs_rqs[cfs].cpu;
            self.resched_curr(cpu);
        }
    }

    /// check_cfs_rq_runtime: throttle a cfs_rq that ran out; true if it is throttled.
    pub(crate) fn check_cfs_rq_runtime(&mut self, cfs: CfsRqId) -> bool {
        let g = &self.cfs_rqs[cfs].grp;
        if !g.runtime_enabled || g.runtime_remaining > 0 {
            return false;
        }
        if g.throttled {
            return true;
        }
        self.throttle_cfs_rq(cfs)
    }

    /// check_enqueue_throttle: a cfs_rq that becomes non-empty with no runtime left is
    /// throttled at once.
    pub(crate) fn check_enqueue_throttle(&mut self, cfs: CfsRqId) {
        if self.cfs_rqs[cfs].curr.is_some() || self.cfs_rqs[cfs].grp.throttled {
            return;
        }
        self.account_cfs_rq_runtime(cfs, 0);
        if self.cfs_rqs[cfs].grp.runtime_remaining <= 0 {
            self.throttle_cfs_rq(cfs);
        }
    }

    /// Apply `f` to this group's cfs_rq on `cfs`'s CPU and to every descendant's
    /// (walk_tg_tree_from).
    fn walk_tg_subtree(&mut self, cfs: CfsRqId, f: fn(&mut Sched, CfsRqId)) {
        let cpu = self.cfs_rqs[cfs].cpu;
        let root = self.cfs_rqs[cfs].grp.tg;
        for tg in root..self.groups.len() {
            let mut a = Some(tg);
            while let Some(x) = a {
                if x == root {
                    let q = self.groups[tg].cfs_rq[cpu];
                    f(self, q);
                    break;
                }
                a = self.groups[x].parent.filter(|&p| p >= root);
            }
        }
    }

    /// tg_throttle_down: freeze the PELT clock of a newly throttled hierarchy.
    fn tg_throttle_down(&mut self, cfs: CfsRqId) {
        let pelt = self.rq_clock_pelt(self.cfs_rqs[cfs].cpu);
        let g = &mut self.cfs_rqs[cfs].grp;
        if g.throttle_count == 0 {
            g.throttled_clock_pelt = pelt;
        }
        g.throttle_count += 1;
    }

    /// tg_unthrottle_up: restart the PELT clock, minus the time spent throttled.
    fn tg_unthrottle_up(&mut self, cfs: CfsRqId) {
        let pelt = self.rq_clock_pelt(self.cfs_rqs[cfs].cpu);
        let g = &mut self.cfs_rqs[cfs].grp;
        g.throttle_count -= 1;
        if g.throttle_count == 0 {
            g.throttled_clock_pelt_time += pelt - g.throttled_clock_pelt;
        }
    }

    /// throttle_cfs_rq: unless the pool still has runtime, dequeue the group entity up the
    /// tree and take the hierarchy's tasks out of the levels above.
    pub(crate) fn throttle_cfs_rq(&mut self, cfs: CfsRqId) -> bool {
        if self.assign_cfs_rq_runtime_to(cfs, 1) {
            return false;
        }
        self.bw(cfs).throttled_cfs_rq.push(cfs);
        self.bw(cfs).nr_throttle_events += 1;
        let cpu = self.cfs_rqs[cfs].cpu;
        self.update_rq_clock(cpu);
        self.walk_tg_subtree(cfs, Sched::tg_throttle_down);
        let (queued, runnable) = (
            self.cfs_rqs[cfs].h_nr_queued,
            self.cfs_rqs[cfs].h_nr_runnable,
        );
        let mut idle = self.cfs_rqs[cfs].h_nr_idle;
        let mut cur = self.cfs_rqs[cfs].owner;
        let mut reached_root = true;
        let mut dequeuing = true;
        while let Some(se) = cur {
            let q = self.entities[se as usize].cfs_rq;
            if !self.entities[se as usize].on_rq {
                reached_root = false;
                break;
            }
            if dequeuing {
                let mut flags = dequeue::SLEEP | dequeue::SPECIAL;
                if self.entities[se as usize].sched_delayed {
                    flags |= dequeue::DELAYED;
                }
                self.dequeue_entity(q, se, flags);
            } else {
                self.update_load_avg(q, se, 0);
            }
            if self.entities[se as usize]
                .my_q
                .is_some_and(|g| self.cfs_rq_is_idle(g))
            {
                idle = queued;
            }
            let rq = &mut self.cfs_rqs[q];
            rq.h_nr_queued -= queued;
            rq.h_nr_runnable -= runnable;
            rq.h_nr_idle -= idle;
            if dequeuing && rq.load.weight != 0 {
                dequeuing = false;
            }
            cur = self.entities[se as usize].parent;
        }
        if reached_root {
            self.rqs[cpu].nr_running -= queued;
        }
        let now = self.now;
        let g = &mut self.cfs_rqs[cfs].grp;
        g.throttled = true;
        g.throttled_clock = now;
        true
    }

    /// unthrottle_cfs_rq: put the group entity back up the tree (from
    /// distribute_cfs_runtime, at the period timer).
    pub(crate) fn unthrottle_cfs_rq(&mut self, cfs: CfsRqId) {
        let cpu = self.cfs_rqs[cfs].cpu;
        self.update_rq_clock(cpu);
        let now = self.now;
        let g = &mut self.cfs_rqs[cfs].grp;
        g.throttled = false;
        let spent = now - g.throttled_clock;
        self.bw(cfs).throttled_time += spent;
        self.walk_tg_subtree(cfs, Sched::tg_unthrottle_up);
        if self.cfs_rqs[cfs].load.weight != 0 {
            self.unthrottle_enqueue(cfs, cpu);
        }
        if self.rqs[cpu].curr.is_none() && self.cfs_rqs[self.rqs[cpu].cfs].nr_queued > 0 {
            self.resched_curr(cpu);
        }
    }

    /// The enqueue half of unthrottle_cfs_rq.
    fn unthrottle_enqueue(&mut self, cfs: CfsRqId, cpu: usize) {
        let (queued, runnable) = (
            self.cfs_rqs[cfs].h_nr_queued,
            self.cfs_rqs[cfs].h_nr_runnable,
        );
        let mut idle = self.cfs_rqs[cfs].h_nr_idle;
        let mut cur = self.cfs_rqs[cfs].owner;
        let mut enqueuing = true;
        while let Some(se) = cur {
            let q = self.entities[se as usize].cfs_rq;
            if enqueuing {
                if self.entities[se as usize].sched_delayed {
                    self.dequeue_entity(q, se, dequeue::SLEEP | dequeue::DELAYED);
                } else if self.entities[se as usize].on_rq {
                    enqueuing = false;
                }
            }
            if enqueuing {
                self.enqueue_entity(q, se, enqueue::WAKEUP);
            } else {
                self.update_load_avg(q, se, super::super::load_avg::upd::UPDATE_TG);
            }
            if self.entities[se as usize]
                .my_q
                .is_some_and(|g| self.cfs_rq_is_idle(g))
            {
                idle = queued;
            }
            let rq = &mut self.cfs_rqs[q];
            rq.h_nr_queued += queued;
            rq.h_nr_runnable += runnable;
            rq.h_nr_idle += idle;
            if rq.grp.throttled {
                return;
            }
            cur = self.entities[se as usize].parent;
        }
        let before = self.rqs[cpu].nr_running;
        self.rqs[cpu].nr_running += queued;
        if before < 2 && self.rqs[cpu].nr_running >= 2 {
            self.set_rd_overloaded(cpu, true);
        }
    }

    /// sched_cfs_period_timer → do_sched_cfs_period_timer: refill the pool, count the
    /// period, and hand runtime to throttled cfs_rqs in throttle order.
    pub fn cfs_period_timer(&mut self, tg: TgId) {
        let now = self.now;
        let bw = self.groups[tg].bw.as_mut().expect("bandwidth");
        let throttled = !bw.throttled_cfs_rq.is_empty();
        bw.nr_periods += 1;
        // __refill_cfs_bandwidth_runtime (no burst).
        bw.runtime = bw.quota;
        if bw.idle && !throttled {
            bw.period_active = false;
            return;
        }
        let period = bw.period;
        self.events.push(now + period, Event::CfsPeriod(tg));
        if !throttled {
            self.groups[tg].bw.as_mut().unwrap().idle = true;
            return;
        }
        self.groups[tg].bw.as_mut().unwrap().nr_throttled += 1;
        self.distribute_cfs_runtime(tg);
        self.groups[tg].bw.as_mut().unwrap().idle = false;
    }

    /// distribute_cfs_runtime: just enough runtime for each throttled cfs_rq to go
    /// positive, then unthrottle it.
    fn distribute_cfs_runtime(&mut self, tg: TgId) {
        let list = std::mem::take(&mut self.groups[tg].bw.as_mut().unwrap().throttled_cfs_rq);
        let mut keep = Vec::new();
        for cfs in list {
            let bw = self.groups[tg].bw.as_mut().unwrap();
            if bw.runtime == 0 {
                keep.push(cfs);
                continue;
            }
            let want = (-self.cfs_rqs[cfs].grp.runtime_remaining + 1) as Ns;
            let give = want.min(bw.runtime);
            bw.runtime -= give;
            self.cfs_rqs[cfs].grp.runtime_remaining += give as i64;
            if self.cfs_rqs[cfs].grp.runtime_remaining > 0 {
                self.unthrottle_cfs_rq(cfs);
            } else {
                keep.push(cfs);
            }
        }
        self.groups[tg].bw.as_mut().unwrap().throttled_cfs_rq = keep;
    }
}
