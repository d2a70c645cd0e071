"""ab, sweep, study: the same statistics as the CLI's for the same inputs."""

import csv
import json

import pytest

import schedlab

BASE = dict(machine="smp:2", workloads=["hackbench -g 1 -l 30"], settings={"noise": {"work_jitter_pct": 2}})
FLAGS = ["-m", "smp:2", "-w", "hackbench -g 1 -l 30"]


def test_ab_equals_the_cli(cli):
    ours = schedlab.ab(**BASE, base={"features": "NO_DELAY_DEQUEUE"}, patch={}, seeds=3, metrics=["perf.*"])
    doc = json.loads(
        cli("ab", *FLAGS, "--base", "noise.work_jitter_pct=2", "--patch", "noise.work_jitter_pct=2",
            "--base", "features=NO_DELAY_DEQUEUE", "-n", "3", "--metric", "perf.*", "--json", "-").stdout
    )
    assert ours.raw["rows"] == doc["rows"]
    assert list(ours.table["metric"]) == [r["metric"] for r in doc["rows"]]
    assert list(ours.table["p_value"]) == [r["p_value"] for r in doc["rows"]]
    assert len(ours.runs) == 2 * 3 * len(doc["base"]["runs"][0])


def test_ab_errors(cli):
    with pytest.raises(schedlab.SchedlabError, match="seeds"):
        schedlab.ab(**BASE, base={}, patch={}, seeds=1)
    with pytest.raises(schedlab.SchedlabError, match="NO_SUCH"):
        schedlab.ab(**BASE, base={"features": "NO_SUCH"}, patch={}, seeds=2)


GRID = {"features": ["", "NO_DELAY_DEQUEUE"], "hz": [250, 1000]}


@pytest.fixture(scope="module")
def local_sweep():
    return schedlab.sweep(GRID, seeds=2, metrics=["perf.*"], **BASE)


def test_sweep_equals_the_cli_table(cli, local_sweep, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(
        'seeds = 2\nmetrics = ["perf.*"]\n[base]\nmachine = "smp:2"\nworkloads = ["hackbench -g 1 -l 30"]\n'
        "[base.noise]\nwork_jitter_pct = 2\n"
        '[[axis]]\nkey = "features"\nvalues = ["", "NO_DELAY_DEQUEUE"]\n'
        '[[axis]]\nkey = "hz"\nvalues = [250, 1000]\n'
    )
    cli("sweep", str(f), "-o", str(tmp_path / "out"))
    with open(tmp_path / "out" / "table.csv") as fh:
        rows = list(csv.DictReader(fh))
    t = local_sweep.table
    assert len(t) == 4
    assert list(t["features"]) == ["", "", "NO_DELAY_DEQUEUE", "NO_DELAY_DEQUEUE"]
    assert list(t["hz"]) == ["250", "1000", "250", "1000"]
    csv_metrics = [k for k in rows[0] if k.startswith("perf.")]
    assert csv_metrics and all(k in t.columns for k in csv_metrics)
    for row, (_, ours) in zip(rows, t.iterrows()):
        assert int(row["runs"]) == ours["runs"]
        for k in csv_metrics:
            # The CSV prints Rust's shortest round-trip text: equal floats, to the bit.
            assert float(row[k]) == ours[k], k


def test_sweep_runs_frame(local_sweep):
    r = local_sweep.runs
    assert set(r["seed"]) == {1, 2}
    assert set(r.columns) >= {"features", "hz", "seed", "metric", "value"}


def test_sweep_bad_axis_raises():
    with pytest.raises(schedlab.SchedlabError, match="bogus"):
        schedlab.sweep({"machine": ["bogus"]}, seeds=1, **BASE)
    with pytest.raises(schedlab.SchedlabError, match="executor"):
        schedlab.sweep({"hz": [250]}, seeds=1, executor="cloud", **BASE)


STUDY = """title = "tiny: DELAY_DEQUEUE on hackbench"
seeds = 2
[scenario]
machine = "smp:2"
workloads = ["hackbench -g 1 -l 30"]
[scenario.noise]
work_jitter_pct = 2
[size.longer]
scale = "hackbench -l 60"
settings = ['workloads=["hackbench -g 1 -l 60"]']
[[variant]]
tag = "off"
settings = ["features=NO_DELAY_DEQUEUE"]
[[variant]]
tag = "on"
[[metric]]
name = "context switches"
path = "perf.context_switches"
better = "lower"
published = { off = 100, on = 90 }
"""


def test_study_equals_the_cli(cli, tmp_path):
    (tmp_path / "tiny.toml").write_text(STUDY)
    ours = schedlab.study("tiny", dir=tmp_path)
    doc = json.loads(cli("study", "--dir", str(tmp_path), "run", "tiny", "--json", "-").stdout)
    assert ours.raw == doc
    assert list(ours.table["tag"]) == ["off", "on"]
    assert list(schedlab.studies(tmp_path)["name"]) == ["tiny"]
    with pytest.raises(schedlab.SchedlabError, match="nope"):
        schedlab.study("nope", dir=tmp_path)
    longer = schedlab.study("tiny", dir=tmp_path, size="longer")
    doc = cli("study", "--dir", str(tmp_path), "run", "tiny", "--size", "longer", "--json", "-")
    assert longer.raw == json.loads(doc.stdout)
    assert longer.raw != ours.raw
    with pytest.raises(schedlab.SchedlabError, match="--full: this study has no such size"):
        schedlab.study("tiny", dir=tmp_path, size="full")
