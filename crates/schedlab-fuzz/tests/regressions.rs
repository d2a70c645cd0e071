//! Every input the fuzzer found a defect with, as a test (docs/fuzzing.md), and a short
//! fuzz run: no panic and no defect in 20,000 inputs.

use schedlab_fuzz::driver::{fuzz, write_fixtures};
use schedlab_fuzz::targets::{run, Ctx, Outcome, Target, ALL};

fn outcome(t: Target, input: &str) -> Outcome {
    let guard = tempfile::Builder::new()
        .prefix("schedlab-fuzz-reg-")
        .tempdir()
        .unwrap();
    let dir = guard.path().to_path_buf();
    write_fixtures(&dir).unwrap();
    let mut ctx = Ctx {
        dir: &dir,
        run_one_in: 1,
        counter: 0,
    };
    run(t, input, &mut ctx)
}

fn rejected(t: Target, input: &str, shape: &str) {
    match outcome(t, input) {
        Outcome::Rejected(s) => assert!(s.contains(shape), "{input:?}: {s}"),
        other => panic!("{input:?}: {other:?}"),
    }
}

#[test]
fn huge_front_end_counts_are_refused_not_allocated() {
    // Each made the process allocate until it was killed.
    rejected(
        Target::Workload,
        "hackbench -p -T -g 1 -f 500001 -l 5",
        "tasks is more than",
    );
    rejected(
        Target::Workload,
        "hackbench -g 100000",
        "tasks is more than",
    );
    rejected(
        Target::Workload,
        "stress-ng --wait 18446744073709551615 -t 1",
        "tasks is more than",
    );
    rejected(
        Target::Workload,
        "schbench -m 4294967296 -t 4294967296",
        "threads is more than",
    );
}

#[test]
fn errors_echoing_a_newline_stay_one_line() {
    // The check in targets::check_error: Display has no '\n'.
    rejected(
        Target::Workload,
        "hac\r\nkbench -p -T",
        "unknown workload front end",
    );
    rejected(Target::Knob, "PLACE_LAG[shape]\n,]\n,", "");
}

#[test]
fn a_huge_tick_rate_is_refused() {
    // hz = 2147483647 made the tick period 0 ns and panicked dividing by it.
    rejected(
        Target::Scenario,
        "hz = 2147483647\nworkloads = [\"stress-ng --wait 1\"]\n",
        "out of range",
    );
    rejected(
        Target::Scenario,
        "hz = 100001\nworkloads = [\"stress-ng --wait 1\"]\n",
        "out of range",
    );
}

#[test]
fn toml_errors_without_text_get_one() {
    rejected(Target::Machine, "[shape]\neackages =", "malformed TOML");
    rejected(Target::Scenario, "machine =", "malformed TOML");
}

#[test]
fn a_machine_file_with_a_kernel_reads_back_from_machines_show() {
    let input = "[shape]\ncores_per_llc = 2\n[kernel]\nversion = \"6.5\"\n";
    assert_eq!(outcome(Target::Machine, input), Outcome::Accepted);
}

#[test]
fn a_task_that_only_yields_does_not_hang_the_run() {
    // Ran forever at t=0 before; now stopped after MAX_INSTANT_OPS advances and reported.
    let input = r#"{ "global": {}, "tasks": { "t0": { "priority": 0, "yield": 0 } } }"#;
    assert_eq!(outcome(Target::Rtapp, input), Outcome::Accepted);
}

#[test]
fn a_short_fuzz_run_finds_nothing() {
    let guard = tempfile::Builder::new()
        .prefix("schedlab-fuzz-smoke-")
        .tempdir()
        .unwrap();
    let dir = guard.path().to_path_buf();
    write_fixtures(&dir).unwrap();
    let report = fuzz(&ALL, 20_000, 7, &dir, 16, &mut |_, _| {});
    let total = report.total();
    assert_eq!(total.tried, 20_000);
    assert!(report.findings.is_empty(), "{:#?}", report.findings.first());
    // The run reaches past the parsers: some inputs of every target are accepted,
    // except the knob target, whose strings are never both a feature list and a sysctl.
    for t in ALL {
        let c = &report.counts[&t];
        assert!(c.rejected > 0, "{}", t.name());
        if t != Target::Knob {
            assert!(c.accepted > 0, "{}: nothing accepted", t.name());
        }
    }
}

#[test]
fn an_empty_schbench_cpu_list_is_refused_not_divided_by() {
    // Panicked: attempt to calculate the remainder with a divisor of zero.
    rejected(Target::Workload, "schbench -M ,", "the CPU list is empty");
    rejected(Target::Workload, "schbench -W ,", "the CPU list is empty");
}

#[test]
fn endless_frames_episodes_are_refused_not_written_out() {
    // Wrote its programs out frame by frame until the process was killed.
    rejected(
        Target::Workload,
        "frames -e scroll:99999min",
        "the episodes last",
    );
    rejected(
        Target::Workload,
        "frames -e scroll:500s -s 1000",
        "background threads",
    );
}

#[test]
fn a_huge_transition_latency_is_refused() {
    // Saturated to u64::MAX ns, which `machines show` wrote and TOML could not read back.
    let input = "cpu = [{ id = 0 }]\n[[freq_domain]]\ncpus = \"0\"\nopps = [{ khz = 1000000 }]\ntransition_latency_us = 9223372036854775807\n";
    rejected(Target::Machine, input, "is more than # s");
}
