"""Plotting helpers (matplotlib): who ran where, util/frequency over time, perf stat's
counters per interval, wake-up latency CDFs per task, A/B bars with confidence intervals. Each returns the Figure and, given
``path``, saves it there (format from the suffix: .png, .svg, .pdf)."""

from __future__ import annotations

import os
from typing import Optional, Sequence, Union

import pandas as pd

PathLike = Union[str, os.PathLike, None]


def _plt():
    try:
        import matplotlib

        if not os.environ.get("DISPLAY") and not os.environ.get("MPLBACKEND"):
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("schedlab.plot needs matplotlib: pip install matplotlib") from e
    return plt


def _done(fig, path: PathLike):
    fig.tight_layout()
    if path is not None:
        fig.savefig(os.fspath(path), dpi=100)
    return fig


def run_segments(trace: pd.DataFrame) -> pd.DataFrame:
    """``sched_switch`` rows to run segments: ``cpu``, ``start``, ``end`` (ns), ``pid``,
    ``comm`` (the idle task left out)."""
    sw = trace[trace["event"] == "sched_switch"].sort_values("ts", kind="stable")
    end_ts = int(trace["ts"].max()) if len(trace) else 0
    rows = []
    for cpu, g in sw.groupby("cpu", sort=True):
        ts = g["ts"].astype("int64").tolist()
        pids = g["next_pid"].astype("int64").tolist()
        comms = g["next_comm"].tolist()
        for i, (t, pid, comm) in enumerate(zip(ts, pids, comms)):
            end = ts[i + 1] if i + 1 < len(ts) else end_ts
            if pid != 0 and end > t:
                rows.append({"cpu": int(cpu), "start": t, "end": end, "pid": pid, "comm": comm})
    return pd.DataFrame(rows, columns=["cpu", "start", "end", "pid", "comm"])


def timeline(trace: pd.DataFrame, path: PathLike = None, max_segments: int = 20000):
    """A per-CPU timeline: one lane per CPU, a bar per run segment, a color per task."""
    plt = _plt()
    seg = run_segments(trace).head(max_segments)
    fig, ax = plt.subplots(figsize=(10, 1 + 0.4 * max(1, seg["cpu"].nunique() if len(seg) else 1)))
    cmap = plt.get_cmap("tab20")
    pids = {p: i for i, p in enumerate(sorted(seg["pid"].unique()))} if len(seg) else {}
    for cpu, g in seg.groupby("cpu"):
        spans = [((s) / 1e6, (e - s) / 1e6) for s, e in zip(g["start"], g["end"])]
        colors = [cmap(pids[p] % 20) for p in g["pid"]]
        ax.broken_barh(spans, (cpu - 0.4, 0.8), facecolors=colors)
    if len(seg):
        ax.set_yticks(sorted(int(c) for c in seg["cpu"].unique()))
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("CPU")
    ax.set_title("Who ran where")
    return _done(fig, path)


def counters(trace: pd.DataFrame, names: Sequence[str] = ("util_avg", "freq_khz"), path: PathLike = None):
    """Per-CPU counter tracks over time (default util_avg and frequency), one panel each.
    Frequency falls back to ``cpu_frequency`` events when the trace has no counters."""
    plt = _plt()
    fig, axes = plt.subplots(len(names), 1, figsize=(10, 2.6 * len(names)), squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        c = trace.iloc[0:0]
        if "counter" in trace.columns:
            c = trace[(trace["event"] == "counter") & (trace["counter"] == name) & trace["cpu"].notna()]
            if "pid" in c.columns:
                c = c[c["pid"].isna()]
        if name == "freq_khz" and len(c) == 0:
            f = trace[trace["event"] == "cpu_frequency"]
            c = pd.DataFrame({"ts": f["ts"], "cpu": f["cpu_id"], "value": f["state"]})
        end = int(trace["ts"].max()) if len(trace) else 0
        for cpu, g in c.groupby("cpu"):
            # A counter holds its last value to the end of the trace.
            ts = g["ts"].astype("int64").tolist() + [end]
            vals = g["value"].astype("int64").tolist()
            ax.step([t / 1e6 for t in ts], vals + vals[-1:], where="post", label=f"CPU{int(cpu)}")
        ax.set_ylabel(name)
        ax.set_xlabel("time (ms)")
        if len(c):
            ax.legend(loc="upper right", fontsize="small")
    return _done(fig, path)


def intervals(
    result,
    names: Sequence[str] = ("context_switches", "cpu_migrations", "cpus_utilized", "workload_counters"),
    path: PathLike = None,
):
    """A run's counters per interval (``Result.intervals``, the run made with
    ``settings={"interval": ...}``) against simulated time, one panel each; the middle half
    of work, when the run has one, shaded."""
    rows = result.intervals
    if rows.empty:
        raise ValueError("the run has no intervals: run it with settings={'interval': '100ms'}")
    plt = _plt()
    fig, axes = plt.subplots(len(names), 1, sharex=True, figsize=(9, 2.2 * len(names)), squeeze=False)
    t = rows["end_ns"] / 1e9
    mid = result.middle_half
    for ax, name in zip(axes[:, 0], names):
        ax.step(t, rows[name], where="pre")
        ax.set_ylabel(name.replace("_", " "))
        if mid:
            ax.axvspan(mid["from_ns"] / 1e9, mid["to_ns"] / 1e9, alpha=0.15)
    axes[-1, 0].set_xlabel("simulated time (s), each value over the interval ending there")
    return _done(fig, path)


def wakeup_latencies(trace: pd.DataFrame) -> pd.DataFrame:
    """Wake-up latency of every wake-up in the trace: ``pid``, ``comm``, ``ts`` (the
    sched_wakeup), ``latency_ns`` (until the sched_switch that runs it)."""
    ev = trace[trace["event"].isin(["sched_wakeup", "sched_wakeup_new", "sched_switch"])]
    woken = {}
    rows = []
    for e in ev.itertuples(index=False):
        if e.event == "sched_switch":
            pid = int(e.next_pid)
            if pid in woken:
                t, comm = woken.pop(pid)
                rows.append({"pid": pid, "comm": comm, "ts": t, "latency_ns": int(e.ts) - t})
        else:
            woken[int(e.pid)] = (int(e.ts), e.comm)
    return pd.DataFrame(rows, columns=["pid", "comm", "ts", "latency_ns"])


def latency_cdf(trace: pd.DataFrame, path: PathLike = None, top: int = 8, by: str = "comm"):
    """Wake-up latency CDFs, one line per task name (``by="comm"``) or pid, for the
    ``top`` with the most wake-ups."""
    plt = _plt()
    lat = wakeup_latencies(trace)
    fig, ax = plt.subplots(figsize=(8, 4))
    if len(lat):
        counts = lat[by].value_counts().head(top)
        for key in counts.index:
            v = lat.loc[lat[by] == key, "latency_ns"].sort_values().to_numpy() / 1e3
            ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post", label=f"{key} ({len(v)})")
        ax.legend(fontsize="small")
    ax.set_xlabel("wake-up latency (µs)")
    ax.set_ylabel("fraction")
    ax.set_title("Wake-up latency CDF")
    return _done(fig, path)


def ab_bars(ab, path: PathLike = None, metrics: Optional[Sequence[str]] = None):
    """A/B bars: per metric, base and patch means with their 95% intervals (a panel per
    metric, since their units differ; a bold title marks a significant difference)."""
    plt = _plt()
    t = ab.table if hasattr(ab, "table") else ab
    if metrics is not None:
        t = t[t["metric"].isin(list(metrics))]
    n = max(1, len(t))
    cols = min(4, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
    tags = ("base", "patch")
    if hasattr(ab, "raw"):
        tags = (ab.raw["base"]["tag"], ab.raw["patch"]["tag"])
    for ax, (_, r) in zip(axes.flat, t.iterrows()):
        ax.bar(tags, [r["base_mean"], r["patch_mean"]], yerr=[r["base_ci95"], r["patch_ci95"]],
               color=["#1f77b4", "#ff7f0e"], capsize=4)
        ax.set_title(r["metric"], fontsize="small", fontweight="bold" if r["significant"] else "normal")
    for ax in list(axes.flat)[len(t):]:
        ax.axis("off")
    return _done(fig, path)


def sweep_lines(sw, metric: str, x: Optional[str] = None, path: PathLike = None):
    """A sweep metric's mean ± 95% CI against one axis (the first by default), a line per
    value of the other axes."""
    plt = _plt()
    t = sw.table
    x = x or sw.axes[0]
    others = [a for a in sw.axes if a != x]
    fig, ax = plt.subplots(figsize=(7, 4))
    groups = t.groupby(others) if others else [("", t)]
    for key, g in groups:
        ax.errorbar(g[x].astype(str), g[metric + ".mean"], yerr=g[metric + ".ci95"], marker="o", capsize=3, label=str(key))
    ax.set_xlabel(x)
    ax.set_ylabel(metric)
    if others:
        ax.legend(fontsize="small", title=",".join(others))
    return _done(fig, path)
