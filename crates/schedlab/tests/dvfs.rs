//! Frequency scaling, schedutil and energy (docs/model.md, Frequency, energy and
//! governors; machine data: docs/machines.md, `pixel6` and `smp-dvfs:N`).

mod common;

use common::*;
use schedlab::experiment::run::{execute, prepare};
use schedlab::experiment::Scenario;
use schedlab::machine::pixel6::pixel6;
use schedlab::sched::cpufreq_schedutil::{map_util_perf, next_freq_for, Governor};
use schedlab::sched::version::KernelVersion;
use schedlab::simulation::Simulation;
use schedlab::workload::program::TimerSpec;
use schedlab::workload::{Op, Policy, TaskSpec, TimerMode, Workload};

/// `work_us` of reference work every `period_us` on CPU `cpu`, on its own absolute timer.
fn periodic(comm: &str, work_us: u64, period_us: u64, cpu: usize, timer: usize) -> TaskSpec {
    let ops = periodic_ops(None, work_us * US, period_us * US, timer);
    task(comm, 0, Policy::Normal, Some(vec![cpu]), ops)
}

fn workload(tasks: Vec<TaskSpec>) -> Workload {
    let timers = (0..tasks.len())
        .map(|i| TimerSpec {
            name: format!("t{i}"),
        })
        .collect();
    Workload {
        tasks,
        timers,
        ..Workload::default()
    }
}

fn sc(machine: &str, secs: u64, governor: Governor) -> Scenario {
    Scenario {
        governor,
        ..scenario(machine, secs)
    }
}

fn sim_of(sc: &Scenario, tasks: Vec<TaskSpec>) -> Simulation {
    let mut s = prepare(sc, workload(tasks)).expect("valid scenario");
    s.set_invariant_every(1);
    s
}

#[test]
fn schedutil_picks_the_spec_formula_opp_on_pixel6() {
    // f = resolve(f_max · 1.25·util / cap): lowest OPP at or above (get_next_freq).
    let m = pixel6();
    let cases: &[(usize, u64, u64, u32)] = &[
        // (domain, capacity, util, kHz), worked out by hand as
        // raw = f_max · (util + util/4) / cap, then the lowest OPP ≥ raw:
        (2, 1024, 100, 500_000),    // 2,802,000 · 125 / 1024 = 342,041
        (2, 1024, 300, 1_106_000),  // · 375 / 1024 = 1,026,123
        (2, 1024, 512, 1_826_000),  // · 640 / 1024 = 1,751,250
        (2, 1024, 700, 2_401_000),  // · 875 / 1024 = 2,394,287
        (2, 1024, 800, 2_802_000),  // · 1000 / 1024 = 2,736,328
        (2, 1024, 1024, 2_802_000), // above the top OPP: the top OPP
        (0, 124, 10, 300_000),      // 1,803,000 · 12 / 124 = 174,483
        (0, 124, 50, 930_000),      // · 62 / 124 = 901,500
        (0, 124, 90, 1_704_000),    // · 112 / 124 = 1,628,516
        (1, 427, 200, 1_328_000),   // 2,253,000 · 250 / 427 = 1,319,086
        (1, 427, 300, 1_999_000),   // · 375 / 427 = 1,978,629
    ];
    for &(d, cap, util, khz) in cases {
        assert_eq!(
            next_freq_for(&m.freq_domains[d], map_util_perf(util), cap),
            khz,
            "domain {d}, util {util}"
        );
    }
}

#[test]
fn util_is_frequency_invariant() {
    // 3 ms of reference work every 16 ms on one CPU at the top OPP, and at about half
    // frequency (1426 of 2802 MHz, so the work takes ~2× as long): the same util_avg
    // within 2%. Read where both runs update PELT at the same phase: 1 ms after each
    // wake-up (the enqueue decayed the signal through the sleep; no tick since).
    let run = |gov| {
        let sc = sc("smp-dvfs:1", 3, gov);
        let mut s = sim_of(&sc, vec![periodic("p", 3000, 16_000, 0, 0)]);
        let mut sum = 0u64;
        for k in 60..180u64 {
            s.run_until(k * 16 * MS + MS);
            sum += s.sched.entities[0].avg.util_avg;
        }
        let cpu = s.sched.entities[0].sum_exec_runtime;
        assert_eq!(s.sched.invariant_violations, 0);
        (sum as f64 / 120.0, cpu)
    };
    let (fast, fast_cpu) = run(Governor::Performance);
    let (slow, slow_cpu) = run(Governor::Fixed(1_401_000));
    // Half the throughput: the same work takes ~2802/1426 as long.
    let ratio = slow_cpu as f64 / fast_cpu as f64;
    assert!(
        (ratio - 2802.0 / 1426.0).abs() < 0.03,
        "cpu time ratio {ratio}"
    );
    assert!(
        (slow - fast).abs() / fast < 0.02,
        "util_avg {slow} vs {fast}"
    );
    // 3/16 duty: the trough of the settled signal is near 1024·(1−y³)/(1−y¹⁶)·y¹³ ≈ 154.
    assert!((140.0..170.0).contains(&fast), "util_avg {fast}");
}

#[test]
fn energy_equals_opp_power_times_busy_time() {
    // One hog on an X1 at a fixed 1426 MHz for 1 s: energy = P(1426) · busy time, every
    // other CPU idle at 0 power.
    let sc = sc("pixel6", 1, Governor::Fixed(1_426_000));
    let r = execute(&sc, sim_of(&sc, vec![hog("h", 0, Some(vec![6]))]), Some(1));
    let x1 = &pixel6().freq_domains[2];
    let opp = x1.opps.iter().find(|o| o.khz == 1_426_000).unwrap();
    // 650 · 662² · 1426 / 10⁶ µW.
    assert_eq!(opp.power_uw, 650 * 662 * 662 * 1426 / 1_000_000);
    let cpu6 = &r.cpus[6];
    let expected_mj = opp.power_uw as f64 * cpu6.busy_ns as f64 / 1e12;
    assert!(
        (cpu6.energy_mj - expected_mj).abs() < 1e-6,
        "{} vs {expected_mj}",
        cpu6.energy_mj
    );
    assert!((r.energy.total_mj - expected_mj).abs() < 1e-6);
    assert!(
        (r.energy.avg_power_mw - expected_mj).abs() < 1e-6,
        "1 s: mW = mJ"
    );
    assert_eq!(cpu6.freq_residency.len(), 1);
    assert_eq!(cpu6.freq_residency[0].khz, 1_426_000);
    assert_eq!(cpu6.freq_residency[0].busy_ns, cpu6.busy_ns);
    assert_eq!(cpu6.freq_residency[0].ns, 1_000_000_000);
    for c in r.cpus.iter().filter(|c| c.cpu != 6) {
        assert_eq!(c.energy_mj, 0.0);
        assert_eq!(c.busy_ns, 0);
    }
    // The fixed governor resolved 1426 exactly; powersave would sit at 500 MHz.
    assert_eq!(r.scenario.governor, "fixed:1426MHz");
}

#[test]
fn frame_task_gets_a_frequency_that_meets_its_deadline() {
    // 60 Hz, 4 ms of reference work per frame, pinned to an A76 (capacity 427): at the top
    // OPP it needs 4·1024/427 = 9.6 ms of its 16.67 ms. schedutil must settle on an OPP
    // fast enough that every frame finishes before the next one starts.
    let sc = sc("pixel6", 3, Governor::Schedutil);
    let mut s = sim_of(&sc, vec![periodic("frame", 4000, 16_667, 4, 0)]);
    let mut late = 0;
    let mut freqs = Vec::new();
    for k in 30..180u64 {
        // Just before frame k+1 starts the task must be asleep on its timer.
        s.run_until((k + 1) * 16_667 * US - 50 * US);
        if s.sched.rqs[4].curr.is_some() {
            late += 1;
        }
        freqs.push(s.sched.machine.freq_domains[1].cur_khz);
    }
    assert_eq!(late, 0, "frames overran at {freqs:?}");
    // And it is not simply parked at the top OPP all the time.
    let top = s.sched.machine.freq_domains[1].max_khz;
    assert!(freqs.iter().any(|&f| f < top), "{freqs:?}");
    assert_eq!(s.sched.invariant_violations, 0);
}

/// Time from the start of an always-running burst until the X1 domain reaches its top
/// OPP, for a PELT half-life.
fn ramp_to_top(halflife: u32, features: &str) -> (u64, Vec<u32>) {
    let mut sc = sc("smp-dvfs:1", 2, Governor::Schedutil);
    sc.pelt_halflife_ms = halflife;
    sc.features = features.into();
    // 1 ms of work every 16 ms for 500 ms, then a long burst.
    let program = vec![
        Op::LoopBegin { count: Some(31) },
        Op::Run { work_ns: MS },
        Op::Timer {
            timer: 0,
            period_ns: 16 * MS,
            mode: TimerMode::Absolute,
        },
        Op::LoopEnd,
        Op::Run {
            work_ns: 1_000 * MS,
        },
    ];
    let mut s = sim_of(&sc, vec![task("burst", 0, Policy::Normal, None, program)]);
    let burst_start = 31 * 16 * MS;
    s.run_until(burst_start);
    let top = s.sched.machine.freq_domains[0].max_khz;
    let mut ramp = Vec::new();
    for ms in 0..400u64 {
        s.run_until(burst_start + ms * MS);
        let f = s.sched.machine.freq_domains[0].cur_khz;
        ramp.push(f / 1000);
        if f == top {
            return (ms, ramp);
        }
    }
    panic!("never reached the top OPP: {ramp:?}");
}

#[test]
fn shorter_pelt_half_life_ramps_frequency_faster() {
    let (t32, ramp32) = ramp_to_top(32, "");
    let (t8, ramp8) = ramp_to_top(8, "");
    eprintln!("32 ms half-life: top after {t32} ms: {ramp32:?}");
    eprintln!(" 8 ms half-life: top after {t8} ms: {ramp8:?}");
    assert!(t8 * 2 < t32, "8 ms: {t8} ms, 32 ms: {t32} ms");
    // Roughly 4× faster (the PELT clock runs 4× faster), within tick granularity.
    assert!(t8 * 6 > t32, "8 ms: {t8} ms, 32 ms: {t32} ms");
}

#[test]
fn util_est_faster_for_frequency_ramps_faster_and_only_where_asked() {
    let (base, _) = ramp_to_top(32, "");
    let (freq, ramp) = ramp_to_top(32, "UTIL_EST_FASTER_FREQ");
    let (all, _) = ramp_to_top(32, "UTIL_EST_FASTER");
    let (lb_only, _) = ramp_to_top(32, "UTIL_EST_FASTER_LB");
    eprintln!("base {base} ms, _freq {freq} ms, all {all} ms: {ramp:?}");
    assert!(freq < base, "_freq {freq} ms vs base {base} ms");
    // Frequency is the only consumer here, so all-consumers equals _freq…
    assert_eq!(all, freq);
    // …and a boost for load balancing alone leaves the ramp as it was.
    assert_eq!(lb_only, base);
}

/// The busiest frequency of CPU 6 (an X1, by busy time) under a light rt-app task (1 ms
/// every 16 ms) pinned there, with its util_min and the sysctl's limit, on `kernel`.
fn light_task_busiest_khz(
    util_min: Option<u32>,
    sysctl_min: Option<u64>,
    kernel: Option<KernelVersion>,
) -> u32 {
    let dir = std::env::temp_dir().join(format!(
        "schedlab-uclamp-{}-{util_min:?}-{sysctl_min:?}-{kernel:?}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("light.json");
    let clamp = util_min
        .map(|v| format!(", \"util_min\": {v}"))
        .unwrap_or_default();
    let text = format!(
        "{{\"global\": {{\"duration\": 2}}, \"tasks\": {{\"light\": {{\"cpus\": [6]{clamp}, \
         \"run\": 1000, \"timer0\": {{\"ref\": \"t\", \"period\": 16000, \"mode\": \"absolute\"}}}}}}}}"
    );
    std::fs::write(&file, text).unwrap();
    let mut sc = sc("pixel6", 2, Governor::Schedutil);
    sc.kernel = kernel;
    sc.workloads = vec![format!("rtapp {}", file.display())];
    if let Some(v) = sysctl_min {
        sc.sysctl.set("sched_util_clamp_min", v, "test").unwrap();
    }
    let r = schedlab::experiment::run_scenario(&sc).unwrap();
    assert_eq!(r.sim.invariant_violations, 0);
    let _ = std::fs::remove_dir_all(&dir);
    r.cpus[6]
        .freq_residency
        .iter()
        .max_by_key(|f| f.busy_ns)
        .map(|f| f.khz)
        .unwrap()
}

#[test]
fn uclamp_from_rtapp_and_sysctl_steers_the_frequency() {
    // A light task on an X1: schedutil alone settles low; util_min 800 lifts the domain
    // to the OPP for 800; the sysctl caps that request.
    let free = light_task_busiest_khz(None, None, None);
    let boosted = light_task_busiest_khz(Some(800), None, None);
    let capped = light_task_busiest_khz(Some(800), Some(300), None);
    // The clamp is a floor without the 25% headroom (sugov_effective_cpu_perf: target =
    // min): util_min 800 → 2802000·800/1024 = 2,189,062 → 2252 MHz.
    assert_eq!(boosted, 2_252_000);
    // The sysctl limits it to 300 → 820,898 → 851 MHz at least (the task's own util may
    // ask for more while it runs).
    assert!(capped < boosted && capped >= 851_000, "{capped}");
    assert!(free < capped, "free {free} capped {capped}");
}

#[test]
fn before_v6_8_the_uclamp_floor_gets_the_headroom() {
    // ≤ v6.7 effective_cpu_util(FREQUENCY_UTIL) clamps the utilisation and get_next_freq
    // adds 25% to the clamped value: util_min 800 → 1000 → 2802000·1000/1024 = 2,736,328
    // → 2802 MHz (v6.8+: 2252 MHz, above).
    let boosted = light_task_busiest_khz(Some(800), None, Some(KernelVersion::V6_6));
    assert_eq!(boosted, 2_802_000);
    assert_eq!(
        light_task_busiest_khz(Some(800), None, Some(KernelVersion::V5_18)),
        2_802_000
    );
    // The sysctl's 300 → 375 → 1,026,123 → 1106 MHz at least.
    let capped = light_task_busiest_khz(Some(800), Some(300), Some(KernelVersion::V6_6));
    assert!(capped < boosted && capped >= 1_106_000, "{capped}");
    // v6.8 is the first with the rework.
    assert_eq!(
        light_task_busiest_khz(Some(800), None, Some(KernelVersion::V6_8)),
        2_252_000
    );
}

/// The frequencies the single-CPU domain goes through in the first 0.4 s: a task runs
/// 20 µs of work and sleeps 300 µs 300 times (settling its util low, ≤ 0.15 s even at
/// 500 MHz), then keeps running 20 µs but waits like `wait`.
fn freq_trace(wait: Op) -> Vec<u32> {
    let sc = sc("smp-dvfs:1", 2, Governor::Schedutil);
    let program = vec![
        Op::LoopBegin { count: Some(300) },
        Op::Run { work_ns: 20 * US },
        Op::Sleep { ns: 300 * US },
        Op::LoopEnd,
        Op::LoopBegin { count: None },
        Op::Run { work_ns: 20 * US },
        wait,
        Op::LoopEnd,
    ];
    let mut s = sim_of(&sc, vec![task("io", 0, Policy::Normal, None, program)]);
    let mut seen: Vec<u32> = vec![s.sched.machine.freq_domains[0].cur_khz / 1000];
    for t in (0..400_000).step_by(25) {
        s.run_until(t * US);
        let f = s.sched.machine.freq_domains[0].cur_khz / 1000;
        if seen.last() != Some(&f) {
            seen.push(f);
        }
    }
    seen
}

#[test]
fn iowait_boost_doubles_per_io_wakeup() {
    let io = freq_trace(Op::IoWait { ns: 300 * US });
    let sleep = freq_trace(Op::Sleep { ns: 300 * US });
    eprintln!("iowait: {io:?}\nsleep: {sleep:?}");
    // The plain sleeper's util decays from its initial 512 and the domain walks down to
    // the bottom OPP; the IO waiter does the same while it still sleeps plainly…
    assert_eq!(sleep.last(), Some(&500));
    assert_eq!(&io[..sleep.len()], &sleep[..], "{io:?}");
    // …then back-to-back IO wake-ups double the boost 128 → 256 → 512 → 1024; with the 25%
    // headroom, 2802000 · 1.25 · boost / 1024 resolved up is 500 (no change), 984, 1826
    // and 2802 MHz.
    assert_eq!(&io[sleep.len()..], &[984, 1826, 2802], "{io:?}");
}

#[test]
fn the_scenario_sets_schedutils_rate_limit() {
    // The kernel's default on pixel6 (500 µs clusters): 10 ms on 6.6, 750 µs today; a
    // scenario's schedutil_rate_limit replaces it on every policy and is echoed.
    let delays = |kernel: Option<KernelVersion>, limit: Option<u64>| {
        let mut sc = sc("pixel6", 1, Governor::Schedutil);
        sc.kernel = kernel;
        sc.schedutil_rate_limit_ns = limit;
        let s = sim_of(&sc, vec![periodic("p", 100, 16_000, 6, 0)]);
        s.sched
            .cpufreq
            .policies
            .iter()
            .map(|p| p.freq_update_delay_ns)
            .collect::<Vec<_>>()
    };
    assert_eq!(delays(Some(KernelVersion::V6_6), None), vec![10_000_000; 3]);
    assert_eq!(delays(None, None), vec![750_000; 3]);
    assert_eq!(
        delays(Some(KernelVersion::V6_6), Some(500_000)),
        vec![500_000; 3]
    );
    let mut sc = sc("pixel6", 1, Governor::Schedutil);
    sc.schedutil_rate_limit_ns = Some(500_000);
    sc.workloads = vec!["frames -e fling:200ms".into()];
    let r = schedlab::experiment::run_scenario(&sc).unwrap();
    assert_eq!(r.scenario.schedutil_rate_limit_us, Some(500));
}

#[test]
fn an_io_wakeup_asks_for_its_estimate_with_the_boost() {
    // enqueue_task_fair adds the wakee's util_est before the explicit
    // cpufreq_update_util(SCHED_CPUFREQ_IOWAIT), so the first request after a long IO
    // wait covers the task's estimate, not just the 1/8 boost over the decayed CPU.
    // A 50 ms rate limit makes that first request the one the domain keeps: 8 ms of
    // work (reference) every ~100 ms.
    let mut sc = sc("smp-dvfs:1", 2, Governor::Schedutil);
    sc.schedutil_rate_limit_ns = Some(50 * MS);
    let program = vec![
        Op::LoopBegin { count: None },
        Op::Run { work_ns: 8 * MS },
        Op::IoWait { ns: 92 * MS },
        Op::LoopEnd,
    ];
    let mut s = sim_of(&sc, vec![task("io", 0, Policy::Normal, None, program)]);
    let mut trace = Vec::new();
    for t in (0..1_000_000).step_by(100) {
        s.run_until(t * US);
        let f = s.sched.machine.freq_domains[0].cur_khz / 1000;
        let running = s.sched.rqs[0].curr.is_some();
        if trace.last().map(|&(_, g, r)| (g, r)) != Some((f, running)) {
            trace.push((t / 1000, f, running));
        }
    }
    // The third activation wakes at 203 ms after 92 ms of IO wait: its estimate (from the
    // run at 2048 MHz) asks for 1745 MHz at once. Asking before util_est_enqueue, the
    // request saw the decayed CPU and the 128 boost, and the run went at 851 MHz.
    assert_eq!(
        &trace[..6],
        &[
            (0, 2802, true),
            (8, 2802, false),
            (100, 2048, true),
            (111, 2048, false),
            (203, 1745, true),
            (216, 1745, false)
        ],
        "{trace:?}"
    );
}

#[test]
fn a_min_freq_write_holds_schedutil_at_or_above_it() {
    // A light task settles the single-CPU domain at its bottom OPP (500 MHz); a power
    // HAL writes scaling_min_freq = 1.1 GHz at 200 ms: the policy moves to 1106 MHz (the
    // lowest OPP at or above) at once and schedutil's requests stay clamped there; it
    // writes 0 at 300 ms, and the next update (limits_changed: no rate limit) drops to 500.
    let sc = sc("smp-dvfs:1", 1, Governor::Schedutil);
    let light = vec![
        Op::LoopBegin { count: None },
        Op::Run { work_ns: 20 * US },
        Op::Sleep { ns: 300 * US },
        Op::LoopEnd,
    ];
    let hal = vec![
        Op::Sleep { ns: 200 * MS },
        Op::SetMinFreq {
            cpu: 0,
            khz: 1_100_000,
        },
        Op::Sleep { ns: 100 * MS },
        Op::SetMinFreq { cpu: 0, khz: 0 },
    ];
    let tasks = vec![
        task("light", 0, Policy::Normal, None, light),
        task("hal", 0, Policy::Normal, None, hal),
    ];
    let mut s = sim_of(&sc, tasks);
    let mut trace: Vec<(u64, u32)> = vec![];
    for t in (0..400_000).step_by(5) {
        s.run_until(t * US);
        let f = s.sched.machine.freq_domains[0].cur_khz / 1000;
        if trace.last().map(|&(_, k)| k) != Some(f) {
            trace.push((t, f));
        }
    }
    let first = |k: u32, after: u64| {
        trace
            .iter()
            .find(|&&(t, f)| f == k && t >= after)
            .map(|x| x.0)
    };
    let up = first(1106, 150_000).expect("boosted");
    let down = first(500, up).expect("released");
    // The write lands within the sleep's timer slack (50 µs) of 200 ms; the drop comes
    // with the first cpufreq_update_util after 300 ms, which runs when the CPU's PELT
    // sums decay: at a wake-up past the next 1024 µs period boundary.
    assert!((200_000..200_100).contains(&up), "{trace:?}");
    assert!((300_000..301_500).contains(&down), "{trace:?}");
    assert!(
        trace.iter().all(|&(t, f)| t < up || t >= down || f >= 1106),
        "{trace:?}"
    );
    assert!(trace.iter().any(|&(t, f)| t < up && f == 500), "{trace:?}");
}
