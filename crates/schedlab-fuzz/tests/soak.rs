//! The soak's short version (the long one: docs/fuzzing.md): random valid scenarios over
//! machines × workloads × features × kernel versions × cgroup trees, invariants checked
//! every 64 events.

use schedlab_fuzz::driver::write_fixtures;
use schedlab_fuzz::soak::soak;

#[test]
fn a_short_soak_covers_its_events_without_violations() {
    let guard = tempfile::Builder::new()
        .prefix("schedlab-soak-test-")
        .tempdir()
        .unwrap();
    let dir = guard.path().to_path_buf();
    write_fixtures(&dir).unwrap();
    let rep = soak(3_000_000, 5, &dir, 64, &mut |_| {});
    assert!(rep.events >= 3_000_000, "{} events", rep.events);
    assert!(rep.scenarios >= 3, "{} scenarios", rep.scenarios);
    let first = rep.failures.first().map(|(t, m)| format!("{t}\n{m:?}"));
    assert_eq!(rep.violations, 0, "{}", first.unwrap_or_default());
    // The generator mostly makes scenarios the input checks accept.
    assert!(rep.refused < rep.scenarios, "{} refused", rep.refused);
}
