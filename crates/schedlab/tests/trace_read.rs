//! Traces read back (`trace::read`): the text and Perfetto files of one run give the same
//! scheduler events, and `run_trace_rows` gives the untraced run's result with them.

use schedlab::experiment::trace_rows::{run_trace_rows, RowSelection};
use schedlab::experiment::trace_run::run_traced;
use schedlab::trace::read::{read_trace, FieldValue, TraceEvent};
use schedlab::trace::select::Precision;
use schedlab::trace::TraceConfig;
use schedlab::{run_scenario, Scenario};

fn scenario() -> Scenario {
    Scenario {
        machine: "smp:2".into(),
        workloads: vec!["hackbench -g 1 -f 2 -l 20 --threads --pipe".into()],
        seed: 3,
        ..Scenario::default()
    }
}

/// ts, cpu, event, common_pid, fields.
type Key = (
    u64,
    Option<u32>,
    String,
    Option<u32>,
    Vec<(String, FieldValue)>,
);

/// The scheduler events (no counters) with the fields both formats carry.
fn sched(rows: &[TraceEvent]) -> Vec<Key> {
    rows.iter()
        .filter(|e| e.event != "counter")
        .map(|e| {
            let fields = e
                .fields
                .iter()
                .filter(|(k, _)| k != "group_dead")
                .cloned()
                .collect();
            (e.ts, e.cpu, e.event.clone(), e.common_pid, fields)
        })
        .collect()
}

#[test]
fn text_and_perfetto_agree() {
    let dir = std::env::temp_dir().join(format!("schedlab-trace-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sc = scenario();
    let mut txt = TraceConfig::new(dir.join("r.txt")).unwrap();
    txt.precision = Precision::Ns;
    run_traced(&sc, &txt).unwrap();
    let pf = TraceConfig::new(dir.join("r.pftrace")).unwrap();
    run_traced(&sc, &pf).unwrap();
    let a = read_trace(&dir.join("r.txt")).unwrap();
    let b = read_trace(&dir.join("r.pftrace")).unwrap();
    assert!(a.iter().any(|e| e.event == "sched_switch"));
    // Perfetto orders by time across CPUs; the text file is in time order already.
    let mut sa = sched(&a);
    let mut sb = sched(&b);
    sa.sort_by_key(|e| (e.0, e.1));
    sb.sort_by_key(|e| (e.0, e.1));
    assert_eq!(sa.len(), sb.len());
    assert_eq!(sa, sb);
    let idle = b.iter().find(|e| e.common_pid == Some(0)).unwrap();
    assert_eq!(idle.common_comm.as_deref(), Some("<idle>"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rows_come_with_the_untraced_result() {
    let sc = scenario();
    let sel = RowSelection {
        events: Some("sched_switch".into()),
        window: None,
        counters: Some("util".into()),
    };
    let (traced, rows) = run_trace_rows(&sc, &sel).unwrap();
    let plain = run_scenario(&sc).unwrap();
    assert_eq!(
        serde_json::to_string(&traced.tasks).unwrap(),
        serde_json::to_string(&plain.tasks).unwrap()
    );
    let switches = rows.iter().filter(|e| e.event == "sched_switch").count() as u64;
    assert!(switches > 0);
    assert!(rows
        .iter()
        .all(|e| e.event == "sched_switch" || e.event == "counter"));
    assert!(rows
        .iter()
        .any(|e| e.field("counter") == Some(&FieldValue::Text("util_avg".into()))));
    assert!(rows.windows(2).all(|w| w[0].ts <= w[1].ts));
}

#[test]
fn unknown_format_and_missing_file_are_input_errors() {
    let e = read_trace(std::path::Path::new("x.json")).unwrap_err();
    assert!(e.to_string().contains("x.json"), "{e}");
}
