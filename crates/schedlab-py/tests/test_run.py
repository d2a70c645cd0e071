"""schedlab.run: the DataFrames and dicts hold exactly the CLI's --json numbers."""

import math

import pandas as pd
import pytest

import schedlab
from conftest import FLAGS, SCENARIO


@pytest.fixture(scope="module")
def result():
    return schedlab.run(**SCENARIO)


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def test_raw_document_is_the_cli_json(result, cli_json):
    sim_a = dict(result.raw["sim"], wall_s=None)
    sim_b = dict(cli_json["sim"], wall_s=None)
    assert sim_a == sim_b
    for key in cli_json:
        if key != "sim":
            assert result.raw[key] == cli_json[key], key


def test_perf_and_energy_are_dicts_equal_to_the_cli(result, cli_json):
    assert result.perf == cli_json["perf"]
    assert result.energy == cli_json["energy"]
    assert result.perf["context_switches"] > 0


def test_tasks_frame_values_equal_the_cli(result, cli_json):
    tasks = result.tasks
    assert tasks.shape == (len(cli_json["tasks"]), 21)
    for i, t in enumerate(cli_json["tasks"]):
        for k, v in t.items():
            if isinstance(v, dict):
                for kk, vv in v.items():
                    assert same(tasks.at[i, f"{k}.{kk}"], vv), (i, k, kk)
            else:
                assert same(tasks.at[i, k], v), (i, k)


def test_cpus_and_workloads(result, cli_json):
    assert list(result.cpus["cpu"]) == [c["cpu"] for c in cli_json["cpus"]]
    assert list(result.cpus["busy_ns"]) == [c["busy_ns"] for c in cli_json["cpus"]]
    assert result.workloads == cli_json["workloads"]
    w = result.workload(0)
    assert w.at[0, "tool"] == cli_json["workloads"][0]["tool"]
    assert isinstance(result.groups, pd.DataFrame) and result.groups.empty


def test_same_seed_same_numbers():
    a = schedlab.run(**SCENARIO)
    b = schedlab.run(**SCENARIO)
    assert a.raw["tasks"] == b.raw["tasks"]


def test_settings_and_scenario_file(cli, tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text('machine = "smp:2"\nworkloads = ["hackbench -g 1 -l 20"]\nseed = 4\n')
    r = schedlab.run(sc, settings={"hz": 1000, "governor": "performance"})
    doc = __import__("json").loads(cli("run", str(sc), "--hz", "1000", "--governor", "performance", "-q", "--json", "-").stdout)
    assert r.raw["perf"] == doc["perf"] and r.raw["tasks"] == doc["tasks"]
    assert r.scenario["hz"] == 1000


@pytest.mark.parametrize(
    "kwargs, flags",
    [
        (dict(machine="bogus"), ["-m", "bogus"]),
        (dict(features="NO_SUCH_FEATURE"), ["-f", "NO_SUCH_FEATURE"]),
        (dict(duration="ten seconds"), ["-t", "ten seconds"]),
    ],
)
def test_errors_carry_the_cli_message(cli, kwargs, flags):
    p = cli("run", "-w", "hackbench -g 2 -l 100", *flags, "-q", check=False)
    assert p.returncode == 2
    cli_msg = p.stderr.strip().removeprefix("schedlab: error: ")
    with pytest.raises(schedlab.SchedlabError) as e:
        schedlab.run(**{**SCENARIO, **kwargs})
    ours = str(e.value)
    # The place differs (-m/--machine vs machine=); what is wrong and the fix are the CLI's.
    tail = cli_msg.split(": ", 1)[1] if cli_msg.startswith("-") else cli_msg
    assert tail in ours, (tail, ours)
    assert isinstance(e.value, ValueError)


def test_intervals_are_the_cli_rows_and_leave_the_run_alone(cli, result):
    r = schedlab.run(**SCENARIO, settings={"interval": "5ms"})
    doc = __import__("json").loads(cli("run", *FLAGS, "-I", "5ms", "-q", "--json", "-").stdout)
    assert r.raw["intervals"] == doc["intervals"] and r.middle_half == doc["middle_half"]
    assert list(r.intervals["context_switches"]) == [x["context_switches"] for x in doc["intervals"]]
    assert r.intervals["context_switches"].sum() == r.perf["context_switches"]
    assert r.raw["tasks"] == result.raw["tasks"] and r.perf == result.perf
    assert result.intervals.empty and result.middle_half == {}
