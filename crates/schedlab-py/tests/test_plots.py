"""The plotting helpers write non-empty figures; the HTML report of a Result writes a page."""

import pytest

import schedlab
from schedlab import plot
from conftest import SCENARIO

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def trace():
    return schedlab.run(**SCENARIO).trace()


def written(path):
    return path.exists() and path.stat().st_size > 1000


def test_timeline_counters_latency(trace, tmp_path):
    for name, fn in [("timeline", plot.timeline), ("counters", plot.counters), ("cdf", plot.latency_cdf)]:
        p = tmp_path / f"{name}.png"
        fn(trace, path=p)
        assert written(p), name
    seg = plot.run_segments(trace)
    assert len(seg) > 0 and (seg["end"] > seg["start"]).all()
    lat = plot.wakeup_latencies(trace)
    assert len(lat) > 0 and (lat["latency_ns"] >= 0).all()


def test_ab_and_sweep_plots(tmp_path):
    base = dict(machine="smp:2", workloads=["hackbench -g 1 -l 30"], settings={"noise": {"work_jitter_pct": 2}})
    ab = schedlab.ab(**base, base={}, patch={"features": "NO_DELAY_DEQUEUE"}, seeds=2, metrics=["perf.*"])
    plot.ab_bars(ab, path=tmp_path / "ab.svg")
    assert written(tmp_path / "ab.svg")
    sw = schedlab.sweep({"hz": [250, 1000]}, seeds=2, metrics=["perf.*"], **base)
    plot.sweep_lines(sw, "perf.context_switches", path=tmp_path / "sweep.png")
    assert written(tmp_path / "sweep.png")


def test_result_report(tmp_path):
    r = schedlab.run(**SCENARIO)
    r.report(tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "Per-CPU timeline" in html and "<svg" in html


def test_intervals_plot(tmp_path):
    r = schedlab.run(**SCENARIO, settings={"interval": "5ms"})
    plot.intervals(r, path=tmp_path / "iv.png")
    assert written(tmp_path / "iv.png")
    with pytest.raises(ValueError):
        plot.intervals(schedlab.run(**SCENARIO))
