#!/usr/bin/env python3
"""Summarise the prio-lb experiment: guest logs (run.sh ... exp=prio-lb, ab.sh) or the
model's result documents (model.sh, `schedlab run --json`). One row per file: schbench's
final printout (samples, percentiles, min, max, µs), the median migrations of the
workers, and for a log the guest's loop cost; then the median of every column."""
import json
import re
import statistics
import sys

COLS = ["samples", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9", "min", "max",
        "migr", "loop_ps"]


def pct_name(pct):
    return "p" + f"{float(pct):g}"


def from_log(path):
    text = open(path, errors="replace").read()
    blocks = text.split("Latency percentiles (usec) runtime")
    if len(blocks) < 2:
        raise SystemExit(f"{path}: no schbench printout (did the guest finish?)")
    last = blocks[-1]
    row = {"samples": int(re.match(r" \d+ \(s\) \((\d+) total samples\)", last).group(1))}
    for pct, value in re.findall(r"([\d.]+)th: (\d+)", last):
        row[pct_name(pct)] = int(value)
    m = re.search(r"min=(\d+), max=(\d+)", last)
    row["min"], row["max"] = int(m.group(1)), int(m.group(2))
    loop = re.findall(r"=== loop (\d+) ps per pass", text)
    row["loop_ps"] = int(loop[0]) if loop else None
    # Workers: the schbench threads with seconds of CPU time (the main and message
    # threads have milliseconds).
    migr = []
    for part in text.split("=== thread ")[1:]:
        fields = dict(re.findall(r"(\S+)\s+:\s+([\d.]+)", part))
        if float(fields.get("se.sum_exec_runtime", 0)) > 1000:
            migr.append(float(fields.get("se.nr_migrations", 0)))
    row["migr"] = statistics.median(migr) if migr else None
    return row


def from_json(path):
    doc = json.load(open(path))

    def find(o):
        if isinstance(o, dict):
            if o.get("tool") == "schbench-2021":
                return o
            o = list(o.values())
        if isinstance(o, list):
            for v in o:
                r = find(v)
                if r:
                    return r
        return None

    lat = find(doc["workloads"])["latency_us"]
    row = {"samples": lat["total_samples"], "min": lat["min"], "max": lat["max"]}
    for r in lat["rows"]:
        row[pct_name(r["pct"])] = r["value"]
    workers = [t["nr_migrations"] for t in doc["tasks"] if t["comm"] == "schbench-worker"]
    row["migr"] = statistics.median(workers) if workers else None
    row["loop_ps"] = None
    return row


def cell(v):
    return "" if v is None else (f"{v:.0f}" if abs(v) >= 100 else f"{v:g}")


rows = [(p, (from_json if p.endswith(".json") else from_log)(p)) for p in sys.argv[1:]]
print("file".ljust(24) + "".join(c.rjust(9) for c in COLS))
for path, r in rows:
    cells = "".join(cell(r.get(c)).rjust(9) for c in COLS)
    print(path.split("/")[-1][:23].ljust(24) + cells)
meds = []
for c in COLS:
    vals = [r[c] for _, r in rows if r.get(c) is not None]
    meds.append(cell(statistics.median(vals) if vals else None).rjust(9))
print("median".ljust(24) + "".join(meds))
