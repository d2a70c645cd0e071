"""``schedlab.run`` and its ``Result``: the result document of ``schedlab run --json`` as
pandas DataFrames and dicts, and the run's trace as rows."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import pandas as pd

from . import _native
from ._spec import Workloads, make_spec
from .frames import columns, records


class Result:
    """One run. ``raw`` is the result document exactly as ``schedlab run --json`` writes
    it; the attributes are views of it:

    - ``tasks``, ``cpus``, ``groups``, ``sched_profile``: DataFrames, one row per task, CPU,
      task group, profiled kernel function (nested dicts as dotted columns);
    - ``intervals``: perf stat's counters per interval (``settings={"interval": "100ms"}``),
      one row per interval, empty without; ``middle_half``: their middle half of work;
    - ``perf``, ``energy``, ``scenario``, ``sim``, ``root_domain``, ``placement``: dicts;
    - ``workloads``: one dict per workload (the tool's own report section);
    - ``trace(events=..., window=...)``: the run's trace events as a DataFrame.
    """

    def __init__(self, raw: Dict[str, Any], spec: str):
        self.raw = raw
        self._spec = spec
        self._trace_cache: Dict[tuple, pd.DataFrame] = {}

    @property
    def json(self) -> str:
        """The result document as JSON text (the same keys and numbers as ``--json``)."""
        return json.dumps(self.raw, indent=2)

    def _frame(self, key: str) -> pd.DataFrame:
        return records(self.raw.get(key) or [])

    @property
    def tasks(self) -> pd.DataFrame:
        return self._frame("tasks")

    @property
    def cpus(self) -> pd.DataFrame:
        return self._frame("cpus")

    @property
    def groups(self) -> pd.DataFrame:
        return self._frame("groups")

    @property
    def sched_profile(self) -> pd.DataFrame:
        return self._frame("sched_profile")

    @property
    def intervals(self) -> pd.DataFrame:
        return self._frame("intervals")

    @property
    def middle_half(self) -> Dict[str, Any]:
        return dict(self.raw.get("middle_half") or {})

    @property
    def perf(self) -> Dict[str, Any]:
        return dict(self.raw.get("perf") or {})

    @property
    def energy(self) -> Dict[str, Any]:
        return dict(self.raw.get("energy") or {})

    @property
    def scenario(self) -> Dict[str, Any]:
        return dict(self.raw.get("scenario") or {})

    @property
    def sim(self) -> Dict[str, Any]:
        return dict(self.raw.get("sim") or {})

    @property
    def root_domain(self) -> Dict[str, Any]:
        return dict(self.raw.get("root_domain") or {})

    @property
    def placement(self) -> Dict[str, Any]:
        return dict(self.raw.get("placement") or {})

    @property
    def workloads(self) -> List[Dict[str, Any]]:
        return [dict(w) for w in self.raw.get("workloads") or []]

    def workload(self, i: int = 0) -> pd.DataFrame:
        """Workload ``i``'s section as a one-row DataFrame (dotted columns)."""
        return records([self.raw["workloads"][i]])

    def trace(
        self,
        events: Union[str, Sequence[str], None] = None,
        window: Optional[str] = None,
        counters: Union[str, Sequence[str], None] = "all",
    ) -> pd.DataFrame:
        """The run's trace as rows: ``ts`` (ns), ``cpu``, ``event``, ``common_comm``,
        ``common_pid`` and each event's fields (``prev_comm``, ``next_pid``, ``target_cpu``,
        …); counter samples have ``event == "counter"``, ``counter`` (util_avg, util_est,
        runnable_avg, capacity, freq_khz, eevdf_lag_ns, eevdf_deadline_ns, overutilized) and
        ``value``, and ``comm``/``pid`` for a task's track.

        ``events`` (e.g. ``"sched_switch,sched_wakeup"``), ``window`` (``"1s..2s"``) and
        ``counters`` (``util``, ``freq``, ``eevdf``, ``overutilized``, ``all``, or ``None``
        for none) take the ``--trace-*`` flags' syntax. The run is traced again (a traced
        run is the same run, event for event); no file is left behind.
        """
        ev = events if events is None or isinstance(events, str) else ",".join(events)
        co = counters if counters is None or isinstance(counters, str) else ",".join(counters)
        key = (ev, window, co)
        if key not in self._trace_cache:
            _, cols = _native.run_trace(self._spec, ev, window, co if co is not None else "")
            self._trace_cache[key] = columns(cols)
        return self._trace_cache[key].copy()

    def report(self, path: Union[str, os.PathLike]) -> str:
        """Write the self-contained HTML report of this run (as ``schedlab run --html``)."""
        html = _native.report_html(self._spec)
        with open(path, "w", encoding="utf-8") as f:
            f.write(html)
        return os.fspath(path)

    def __repr__(self) -> str:
        sc = self.raw.get("scenario", {})
        return (
            f"<schedlab.Result machine={sc.get('machine')!r} seed={sc.get('seed')} "
            f"tasks={len(self.raw.get('tasks', []))} perf={self.perf}>"
        )


def run(
    scenario: Union[str, os.PathLike, None] = None,
    *,
    machine: Optional[str] = None,
    workloads: Workloads = None,
    features: Union[str, Sequence[str], None] = None,
    kernel: Optional[str] = None,
    seed: Optional[int] = None,
    duration: Optional[str] = None,
    settings: Optional[Mapping[str, Any]] = None,
) -> Result:
    """Run a scenario, as ``schedlab run`` does: a scenario file (TOML, docs/scenario.md)
    and/or keyword arguments over its keys.

    ``machine`` (``"smp:2"``, a preset or a machine file), ``workloads`` (command lines such
    as ``"hackbench -g 2 -l 100"``), ``features`` (``"NO_DELAY_DEQUEUE,HRTICK"``),
    ``kernel`` (``"6.6"``), ``seed``, ``duration`` (``"10s"``); ``settings`` sets any other
    scenario key as the file would (``{"hz": 1000, "governor": "performance",
    "sysctl": {"sched_util_clamp_max": 512}}``).

    Raises ``SchedlabError`` (a ``ValueError``) with the CLI's message on bad input.
    """
    spec = make_spec(
        scenario,
        machine=machine,
        workloads=workloads,
        features=features,
        kernel=kernel,
        seed=seed,
        duration=duration,
        settings=settings,
    )
    return Result(json.loads(_native.run_json(spec)), spec)
