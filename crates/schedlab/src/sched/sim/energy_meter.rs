//! Per-CPU time-in-state and energy: busy time at each OPP (charged at the OPP's power),
//! time at each frequency (cpufreq stats' time_in_state, busy or idle) and idle time per
//! idle state. The idle state of a period is the deepest whose target residency the
//! period covered — an oracle cpuidle governor, which is what an ideal menu/teo would pick.

use crate::machine::CpuId;
use crate::sched::Sched;
use crate::time::Ns;

/// One CPU's meter.
#[derive(Debug, Clone, Default)]
pub struct PowerMeter {
    /// Time up to which the meter has accounted.
    pub mark: Ns,
    /// Busy ns at each OPP of the CPU's domain.
    pub busy_at: Vec<Ns>,
    /// All ns at each OPP (time_in_state).
    pub time_at: Vec<Ns>,
    /// Idle ns in each idle state (closed periods only; see `idle_ns_in`).
    pub idle_in: Vec<Ns>,
    /// ∫ power dt of busy time, µW·ns.
    pub busy_energy: u128,
    /// ∫ power dt of closed idle periods, µW·ns.
    pub idle_energy: u128,
}

impl Sched {
    /// Size every CPU's meter for its domain's OPP and idle-state tables.
    pub fn meter_init(&mut self) {
        for cpu in 0..self.machine.nr_cpus() {
            let d = &self.machine.freq_domains[self.machine.cpus[cpu].freq_domain];
            self.rqs[cpu].sim.meter = PowerMeter {
                mark: self.now,
                busy_at: vec![0; d.opps.len()],
                time_at: vec![0; d.opps.len()],
                idle_in: vec![0; d.idle_states.len()],
                busy_energy: 0,
                idle_energy: 0,
            };
        }
    }

    /// Charge the time since the meter's mark at the CPU's present OPP and busy/idle state.
    /// Call before anything changes either.
    pub fn meter_account(&mut self, cpu: CpuId) {
        let d = &self.machine.freq_domains[self.machine.cpus[cpu].freq_domain];
        let opp = d.cur_opp();
        let power = d.opps[opp].power_uw;
        let busy = self.rqs[cpu].curr.is_some();
        let now = self.now;
        let m = &mut self.rqs[cpu].sim.meter;
        let dt = now - m.mark;
        m.mark = now;
        m.time_at[opp] += dt;
        if busy {
            m.busy_at[opp] += dt;
            m.busy_energy += power as u128 * dt as u128;
        }
    }

    /// The idle state an idle period of `len` ns would have used.
    pub fn idle_state_for(&self, cpu: CpuId, len: Ns) -> Option<usize> {
        let d = &self.machine.freq_domains[self.machine.cpus[cpu].freq_domain];
        d.idle_states
            .iter()
            .rposition(|s| s.target_residency_ns <= len)
            .or(if d.idle_states.is_empty() {
                None
            } else {
                Some(0)
            })
    }

    /// Close an idle period of `len` ns: book it to its idle state.
    pub fn meter_idle_period(&mut self, cpu: CpuId, len: Ns) {
        let Some(state) = self.idle_state_for(cpu, len) else {
            return;
        };
        let d = &self.machine.freq_domains[self.machine.cpus[cpu].freq_domain];
        let power = d.idle_states[state].power_uw;
        let m = &mut self.rqs[cpu].sim.meter;
        m.idle_in[state] += len;
        m.idle_energy += power as u128 * len as u128;
    }
}
