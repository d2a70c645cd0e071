"""Result.trace and read_trace: the rows of the run's trace, equal to the files the CLI
writes for the same scenario and seed."""

import pytest

import schedlab
from conftest import FLAGS, SCENARIO

SCHED = ["sched_switch", "sched_wakeup", "sched_migrate_task"]


@pytest.fixture(scope="module")
def result():
    return schedlab.run(**SCENARIO)


@pytest.fixture(scope="module")
def files(cli, tmp_path_factory):
    d = tmp_path_factory.mktemp("traces")
    cli("run", *FLAGS, "-q", "--trace", str(d / "r.pftrace"), "--trace-counters", "all")
    cli("run", *FLAGS, "-q", "--trace", str(d / "r.txt"), "--trace-precision", "ns")
    return d


def key_rows(df):
    cols = ["ts", "cpu", "event", "common_pid", "prev_pid", "prev_state", "next_pid", "pid", "target_cpu"]
    df = df[df["event"].isin(SCHED)][cols]
    return df.sort_values(["ts", "cpu", "event"], kind="stable").astype(str).reset_index(drop=True)


def test_trace_columns_and_events(result):
    t = result.trace()
    for c in ["ts", "cpu", "event", "common_comm", "common_pid", "prev_comm", "next_pid", "counter", "value"]:
        assert c in t.columns, c
    assert set(SCHED) <= set(t["event"])
    assert (t["event"] == "counter").any()
    util = t[(t["event"] == "counter") & (t["counter"] == "util_avg")]
    assert util["value"].max() > 0
    assert t["ts"].is_monotonic_increasing


def test_trace_equals_the_cli_perfetto_file(result, files):
    ours = result.trace()
    theirs = schedlab.read_trace(files / "r.pftrace")
    assert len(ours) == len(theirs)
    assert ours.astype(str).equals(theirs.astype(str))


def test_text_file_has_the_same_scheduler_events(result, files):
    ours = key_rows(result.trace(events=SCHED, counters=None))
    text = key_rows(schedlab.read_trace(files / "r.txt"))
    assert ours.equals(text)


def test_event_and_window_selection(result):
    t = result.trace(events="sched_switch", window="10ms..20ms", counters=None)
    assert set(t["event"]) == {"sched_switch"}
    assert t["ts"].min() >= 10_000_000 and t["ts"].max() < 20_000_000


def test_bad_selection_and_bad_file_raise(result, tmp_path):
    with pytest.raises(schedlab.SchedlabError, match="sched_nothing"):
        result.trace(events="sched_nothing")
    bad = tmp_path / "bad.txt"
    bad.write_text("# tracer: nop\nnot a line\n")
    with pytest.raises(schedlab.SchedlabError, match="bad.txt:2"):
        schedlab.read_trace(bad)
