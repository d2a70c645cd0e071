#!/usr/bin/env python3
"""Seed 000's per-loop view of hackbench result documents (docs/studies.md, "Further
out"): context switches, migrations and wall time per loop of each sender, CPU time per
message, CPUs utilized and the root domain line's stall per message, each column the
mean over the documents its glob matches, beside the thread's totals divided by its
480,000 loops and 6.144 G messages.
  ci/hackbench_per_loop.py 'LABEL=GLOB' ...
  ci/hackbench_per_loop.py '-l 2000=/tmp/scale/_l_2000/runs/baseline-seed*.json' \\
      '-l 96000=/tmp/long/96000/out.json'
"""
import glob
import json
import sys

# Seed 000 as printed: 445M context switches, 117M migrations, 49 s, 253.275 CPUs
# utilized, hackbench -g 32 -f 20 -l 480000 (32 x 20 x 20 x 480000 messages).
THREAD_LOOPS = 480_000
THREAD = {
    "context switches": 445e6 / THREAD_LOOPS,
    "cpu-migrations": 117e6 / THREAD_LOOPS,
    "wall time (µs)": 49 / THREAD_LOOPS * 1e6,
    "CPU per message (µs)": 253.275 * 49 / (32 * 20 * 20 * THREAD_LOOPS) * 1e6,
    "CPUs utilized (not per loop)": 253.275,
    # Not in the thread (no profile was posted).
    "root-domain line stall per message (µs)": None,
}


def per_loop(path):
    d = json.load(open(path))
    w, p = d["workloads"][0], d["perf"]
    loops, msgs = w["loops"], w["messages_expected"]
    return {
        "context switches": p["context_switches"] / loops,
        "cpu-migrations": p["cpu_migrations"] / loops,
        "wall time (µs)": w["time_s"] / loops * 1e6,
        "CPU per message (µs)": p["task_clock_ns"] / msgs / 1e3,
        "CPUs utilized (not per loop)": p["cpus_utilized"],
        "root-domain line stall per message (µs)": d["root_domain"]["line_transfer_ns"]
        / msgs
        / 1e3,
    }


def main(args):
    if not args:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    cols = []
    for arg in args:
        label, _, pattern = arg.partition("=")
        files = sorted(glob.glob(pattern))
        if not files:
            print(f"error: {pattern}: no result documents (give LABEL=GLOB)", file=sys.stderr)
            sys.exit(2)
        rows = [per_loop(f) for f in files]
        cols.append((f"{label} ({len(files)})", {k: sum(r[k] for r in rows) / len(rows) for k in THREAD}))
    cols.append(("thread (-l 480000)", THREAD))
    print("| per loop | " + " | ".join(c for c, _ in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for k, fmt in FORMATS.items():
        cells = ("—" if c[k] is None else fmt.format(c[k]) for _, c in cols)
        print(f"| {k} | " + " | ".join(cells) + " |")
    print("\n(n) = result documents averaged per column.")


FORMATS = {
    "context switches": "{:,.0f}",
    "cpu-migrations": "{:,.0f}",
    "wall time (µs)": "{:,.0f}",
    "CPU per message (µs)": "{:.2f}",
    "CPUs utilized (not per loop)": "{:.1f}",
    "root-domain line stall per message (µs)": "{:.2f}",
}


if __name__ == "__main__":
    main(sys.argv[1:])
