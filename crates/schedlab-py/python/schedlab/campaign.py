"""Many runs with the CLI's statistics: ``ab`` (``schedlab ab``), ``sweep``
(``schedlab sweep``, on a local pool or Ray) and ``study`` (``schedlab study run``)."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import pandas as pd

from . import _native, executors
from ._spec import make_spec, setting_text, settings_list

Settings = Union[Mapping[str, Any], Sequence[str], None]


class AbResult:
    """An A/B comparison. ``table``: one row per metric (``metric``, ``base_mean``,
    ``base_ci95``, ``patch_mean``, ``patch_ci95``, ``perc_diff``, ``p_value``,
    ``significant``), as ``schedlab ab`` prints; ``runs``: every run's metrics (``tag``,
    ``seed``, ``metric``, ``value``); ``raw``: the ``ab --json`` document."""

    def __init__(self, raw: Dict[str, Any]):
        self.raw = raw
        self.table = pd.DataFrame(raw["rows"])
        rows = []
        for side in ("base", "patch"):
            arm = raw[side]
            for seed, metrics in zip(arm["seeds"], arm["runs"]):
                for metric, value in metrics.items():
                    rows.append({"tag": arm["tag"], "seed": seed, "metric": metric, "value": value})
        self.runs = pd.DataFrame(rows)

    def __repr__(self) -> str:
        return f"<schedlab.AbResult {len(self.table)} metrics>\n{self.table.to_string()}"


def ab(
    scenario: Union[str, os.PathLike, None] = None,
    *,
    base: Settings = None,
    patch: Settings = None,
    seeds: int = 10,
    first_seed: int = 1,
    independent_seeds: bool = False,
    metrics: Optional[Sequence[str]] = None,
    jobs: Optional[int] = None,
    base_tag: str = "base",
    patch_tag: str = "patch",
    **scenario_args: Any,
) -> AbResult:
    """``schedlab ab``: the scenario under ``base`` and ``patch`` settings (dicts such as
    ``{"features": "NO_DELAY_DEQUEUE"}`` or ``KEY=VALUE`` lists) over ``seeds`` seeds each;
    means, 95% CIs, perc_diff and Welch's t-test per metric (``metrics``: result paths
    with ``*``; default perf.*, energy.*, workloads.*). The scenario is ``scenario`` and
    the keyword arguments of ``run`` (machine, workloads, features, kernel, duration,
    settings)."""
    spec = make_spec(scenario, **scenario_args)
    raw = _native.ab_json(
        spec,
        settings_list(base),
        settings_list(patch),
        seeds,
        first_seed,
        independent_seeds,
        list(metrics or []),
        jobs,
        base_tag,
        patch_tag,
    )
    return AbResult(json.loads(raw))


class SweepResult:
    """A sweep. ``table``: one row per grid point, a column per axis, ``runs``, and per
    metric ``METRIC`` (mean over the seeds) and ``METRIC_ci95`` (95% CI half-width), the
    numbers ``schedlab sweep`` prints; ``runs``: every run's values of those metrics
    (one row per axis values, seed, metric, value); ``raw``: the rows as the library returns them."""

    def __init__(self, axes: List[str], raw: List[Dict[str, Any]], runs: pd.DataFrame):
        self.axes = axes
        self.raw = raw
        self.runs = runs
        rows = []
        for r in raw:
            row: Dict[str, Any] = {}
            for s in r["settings"]:
                k, _, v = s.partition("=")
                row[k] = v
            row["runs"] = r["runs"]
            for m, (mean, ci) in r["metrics"].items():
                row[m + ".mean"] = mean
                row[m + ".ci95"] = ci
            rows.append(row)
        self.table = pd.DataFrame(rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SweepResult) and self.raw == other.raw

    def __repr__(self) -> str:
        return f"<schedlab.SweepResult {len(self.table)} points>\n{self.table.to_string()}"


def sweep(
    grid: Mapping[str, Sequence[Any]],
    seeds: Union[int, Sequence[int]] = 3,
    *,
    scenario: Union[str, os.PathLike, None] = None,
    metrics: Optional[Sequence[str]] = None,
    executor: str = "local",
    jobs: Optional[int] = None,
    **scenario_args: Any,
) -> SweepResult:
    """``schedlab sweep``: every combination of ``grid``'s values (``{"features": ["",
    "UTIL_FITS_CAPACITY"], "machine": ["smp:4", "smp:8"]}``, axes in order) × ``seeds`` (a
    count, seeds 1..N, or a list), over the scenario the other arguments describe.

    ``executor="local"`` runs on this machine's cores (``jobs``); ``executor="ray"`` runs
    each (point, seed) as a Ray task (after ``ray.init(address=...)``, or on a local Ray
    it starts). Both return the same result. The scenario is ``scenario`` and the keyword
    arguments of ``run`` (machine, workloads, features, kernel, duration, settings)."""
    spec = make_spec(scenario, **scenario_args)
    seed_list = list(range(1, int(seeds) + 1)) if isinstance(seeds, int) else [int(s) for s in seeds]
    axes = [(k, [setting_text(k, v).partition("=")[2] for v in vals]) for k, vals in grid.items()]
    points = _native.sweep_points(spec, axes, seed_list)
    runs = [(p, s) for p in points for s in seed_list]
    done = executors.run(executor, spec, runs, jobs)
    n = len(seed_list)
    per_point = [done[i * n : (i + 1) * n] for i in range(len(points))]
    raw = json.loads(_native.sweep_summary(spec, axes, seed_list, list(metrics or []), per_point))
    # The metrics the table shows (the patterns' selection), for every run.
    shown = {m for r in raw for m in r["metrics"]}
    rows = []
    for (settings_, seed), metrics_json in zip(runs, done):
        axis_values = {k: v for k, _, v in (s.partition("=") for s in settings_)}
        for m, value in json.loads(metrics_json).items():
            if m in shown:
                rows.append({**axis_values, "seed": seed, "metric": m, "value": value})
    return SweepResult([k for k, _ in axes], raw, pd.DataFrame(rows))


class StudyResult:
    """A study. ``table``: one row per metric and variant (``metric``, ``path``, ``tag``,
    ``mean``, ``ci95``, ``perc_diff``, ``p_value``, ``ours``, ``published``,
    ``published_perc_diff``, ``theirs``, ``compared_with`` where a variant names its
    own base, and ``resolves_pct``: the smallest change the seeds detect), the numbers
    ``schedlab study run`` prints;
    ``raw``: its ``--json`` document."""

    def __init__(self, raw: Dict[str, Any]):
        self.raw = raw
        rows = []
        for m in raw["metrics"]:
            for r in m["rows"]:
                rows.append({"metric": m["name"], "path": m["path"], **r})
        self.table = pd.DataFrame(rows)

    def __repr__(self) -> str:
        return f"<schedlab.StudyResult {self.raw['name']}>\n{self.table.to_string()}"


def study(
    name: str,
    seeds: Optional[int] = None,
    *,
    jobs: Optional[int] = None,
    dir: Union[str, os.PathLike, None] = None,
    size: Optional[str] = None,
) -> StudyResult:
    """``schedlab study run NAME``: the study's variants over ``seeds`` seeds (default: the
    study's own), ours beside the published numbers; ``size`` is one the study names
    (``"full"`` for ``--full``, another name for ``--size NAME``)."""
    d = os.fspath(dir) if dir is not None else None
    return StudyResult(json.loads(_native.study_json(name, seeds, jobs, d, size)))


def studies(dir: Union[str, os.PathLike, None] = None) -> pd.DataFrame:
    """``schedlab study list``: name and title of every study."""
    d = os.fspath(dir) if dir is not None else None
    return pd.DataFrame(_native.study_list(d), columns=["name", "title"])
