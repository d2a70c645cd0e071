//! Counter tracks (Perfetto only), in the spirit of the sched-analyzer project: per-CPU
//! PELT signals, capacity and frequency; per-task util_avg and util_est; the EEVDF view of
//! each task (lag and deadline); the root domain's overutilized flag. Samples are taken at
//! the model's event points (context switches, ticks, frequency changes) and written only
//! when a value changed, so a flat signal costs nothing.

use super::event::TaskInfo;
use super::select::CounterSet;
use super::{Track, TrackOwner};
use crate::sched::{CfsRqId, Sched, TaskId};

const CPU_UTIL: usize = 0;
const CPU_UTIL_EST: usize = 1;
const CPU_RUNNABLE: usize = 2;
const CPU_CAPACITY: usize = 3;
const CPU_FREQ: usize = 4;
const CPU_NAMES: [(&str, &str); 5] = [
    ("util_avg", ""),
    ("util_est", ""),
    ("runnable_avg", ""),
    ("capacity", ""),
    ("freq_khz", "kHz"),
];

const TASK_UTIL: usize = 0;
const TASK_UTIL_EST: usize = 1;
const TASK_LAG: usize = 2;
const TASK_DEADLINE: usize = 3;
const TASK_NAMES: [(&str, &str); 4] = [
    ("util_avg", ""),
    ("util_est", ""),
    ("eevdf_lag_ns", "ns"),
    ("eevdf_deadline_ns", "ns"),
];

#[derive(Default)]
pub struct CounterState {
    cpu: Vec<[Option<u32>; 5]>,
    task: Vec<[Option<u32>; 4]>,
    rd: Option<u32>,
    last: Vec<Option<i64>>,
    /// Samples taken and not yet pushed: (track, value).
    pub pending: Vec<(u32, i64)>,
}

impl CounterState {
    /// The tracks `set` asks for, and the state to sample them.
    pub fn new(set: CounterSet, nr_cpus: usize, tasks: &[TaskInfo]) -> (CounterState, Vec<Track>) {
        let mut tracks = Vec::new();
        let mut add = |name: String, unit: &'static str, owner: TrackOwner, uuid: u64| {
            tracks.push(Track {
                uuid,
                name,
                unit,
                owner,
            });
            Some(tracks.len() as u32 - 1)
        };
        let mut cpu = vec![[None; 5]; nr_cpus];
        for (c, slots) in cpu.iter_mut().enumerate() {
            for (k, (name, unit)) in CPU_NAMES.iter().enumerate() {
                let on = if k == CPU_FREQ { set.freq } else { set.util };
                if on {
                    let uuid = 0x1_0000_0000 + c as u64 * 16 + k as u64;
                    slots[k] = add(
                        format!("cpu{c} {name}"),
                        unit,
                        TrackOwner::Cpu(c as u32),
                        uuid,
                    );
                }
            }
        }
        let mut task = vec![[None; 4]; tasks.len()];
        for (t, slots) in task.iter_mut().enumerate() {
            for (k, (name, unit)) in TASK_NAMES.iter().enumerate() {
                let on = if k >= TASK_LAG { set.eevdf } else { set.util };
                if on {
                    let uuid = super::thread_track_uuid(t as u32) + 1 + k as u64;
                    let label = format!("{} {name}", tasks[t].comm);
                    slots[k] = add(label, unit, TrackOwner::Task(t as u32), uuid);
                }
            }
        }
        let rd = if set.overutilized {
            add(
                "root_domain overutilized".into(),
                "",
                TrackOwner::RootDomain,
                0x3_0000_0000,
            )
        } else {
            None
        };
        let n = tracks.len();
        let state = CounterState {
            cpu,
            task,
            rd,
            last: vec![None; n],
            pending: Vec::new(),
        };
        (state, tracks)
    }

    pub fn enabled(&self) -> bool {
        !self.last.is_empty()
    }

    fn set(&mut self, track: Option<u32>, value: i64) {
        if let Some(t) = track {
            let slot = &mut self.last[t as usize];
            if *slot != Some(value) {
                *slot = Some(value);
                self.pending.push((t, value));
            }
        }
    }

    /// PELT signals and capacity of `cpu`, and the root domain's flag.
    pub fn sample_cpu(&mut self, s: &Sched, cpu: usize) {
        let slots = self.cpu[cpu];
        let avg = &s.cfs_rqs[s.rqs[cpu].cfs].avg;
        self.set(slots[CPU_UTIL], avg.util_avg as i64);
        self.set(slots[CPU_UTIL_EST], (avg.util_est & !(1 << 31)) as i64);
        self.set(slots[CPU_RUNNABLE], avg.runnable_avg as i64);
        self.set(slots[CPU_CAPACITY], s.capacity_of(cpu) as i64);
        self.set(self.rd, s.rd.overutilized as i64);
    }

    pub fn sample_freq(&mut self, s: &Sched, cpu: usize) {
        let d = &s.machine.freq_domains[s.machine.cpus[cpu].freq_domain];
        self.set(self.cpu[cpu][CPU_FREQ], d.cur_khz as i64);
    }

    /// util_avg, util_est, and the EEVDF lag (V − vᵢ, or the saved vlag while dequeued)
    /// and deadline relative to V (dᵢ − V), in virtual ns.
    pub fn sample_task(&mut self, s: &Sched, p: TaskId) {
        // Tasks forked during the run have no counter tracks.
        let Some(&slots) = self.task.get(p) else {
            return;
        };
        let se = s.tasks[p].se;
        let e = &s.entities[se as usize];
        self.set(slots[TASK_UTIL], e.avg.util_avg as i64);
        self.set(slots[TASK_UTIL_EST], s._task_util_est(p) as i64);
        if slots[TASK_LAG].is_some() {
            let (lag, deadline) = if e.on_rq {
                let v = avg_vruntime_peek(s, e.cfs_rq);
                (
                    v.wrapping_sub(e.vruntime) as i64,
                    e.deadline.wrapping_sub(v) as i64,
                )
            } else {
                (e.vlag, e.deadline.wrapping_sub(e.vruntime) as i64)
            };
            self.set(slots[TASK_LAG], lag);
            self.set(slots[TASK_DEADLINE], deadline);
        }
    }

    /// Every track, at the window's start.
    pub fn sample_all(&mut self, s: &Sched) {
        for cpu in 0..self.cpu.len() {
            self.sample_cpu(s, cpu);
            self.sample_freq(s, cpu);
        }
        for p in 0..self.task.len() {
            self.sample_task(s, p);
        }
    }
}

/// avg_vruntime without its side effect: V of `cfs` read from the sums as they stand
/// (the model's avg_vruntime re-bases zero_vruntime, which a probe must not do).
fn avg_vruntime_peek(s: &Sched, cfs: CfsRqId) -> u64 {
    let d = s.avg_vruntime_offset(cfs);
    s.cfs_rqs[cfs].zero_vruntime.wrapping_add(d as u64)
}
