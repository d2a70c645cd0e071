#!/usr/bin/env bash
# Where seed 000's hackbench spends its CPU per message on epyc-9654-2s (docs/machines.md):
# the util-fits-capacity study's own scenario (studies/util-fits-capacity.toml) at -l L
# (default 500), one seed, with every CPU cost beyond the per-operation ones (pipe_write/read,
# copy) set to 0, then each group of them alone, then all of them (the preset). Latencies
# that cost no CPU (the idle states, wakeup_ipi_ns) and the SMT slow-down stay as the
# preset has them. A worker's migration refill is its working set (messaging_state_bytes +
# the message) in lines at the cache-line costs. Prints task-clock µs, context switches and migrations per message.
#   ci/hackbench_costs.sh BIN [LOOPS] [SEED]
set -euo pipefail
bin=$(realpath "$1"); loops=${2:-500}; seed=${3:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$here/studies/util-fits-capacity.toml" "$tmp" "$loops" "$seed" "$bin" "$("$bin" --version)" <<'PY'
import json, pathlib, re, subprocess, sys, tomllib
study, tmp, loops, seed, bin_, version = sys.argv[1:]
tmp, loops = pathlib.Path(tmp), int(loops)
sc = tomllib.load(open(study, "rb"))["scenario"]
workload = re.sub(r"-l \d+", f"-l {loops}", sc["workloads"][0])
lines = "cacheline_llc_ns cacheline_cross_llc_ns cacheline_cross_numa_ns".split()
extra = ("context_switch_ns context_switch_cold_ns sched_wakeup_ns ipi_send_ns pipe_bounce_ns "
         "sched_idle_scan_per_cpu_ns "
         "sched_lb_per_cpu_ns messaging_state_bytes").split() + lines
groups = [
    ("none", []),
    ("pipe bounce + line ratios", ["pipe_bounce_ns"] + lines),
    ("context switches", ["context_switch_ns", "context_switch_cold_ns"]),
    ("wake-up + IPI send", ["sched_wakeup_ns", "ipi_send_ns"]),
    ("scans + sched lines", ["sched_idle_scan_per_cpu_ns", "sched_lb_per_cpu_ns"] + lines),
    ("migration refill + sched lines", ["messaging_state_bytes"] + lines),
    ("all (the preset)", None),
]
msgs = 32 * 20 * 20 * loops
print(f"{workload} on {sc['machine']}, {version}")
print("| extra costs kept | CPU µs / message | switches / message | migrations / message | CPUs utilized |")
print("|---|---|---|---|---|")
for i, (name, kept) in enumerate(groups):
    text = [f'{k} = {json.dumps(sc[k])}' for k in ("machine", "kernel", "preempt")]
    text += [f"seed = {seed}", f"workloads = [{json.dumps(workload)}]"]
    if kept is not None:
        text += ["[costs]"] + [f"{k} = 0" for k in extra if k not in kept]
    text += ["[noise]"] + [f"{k} = {json.dumps(v)}" for k, v in sc.get("noise", {}).items()]
    f = tmp / f"{i}.toml"
    f.write_text("\n".join(text) + "\n")
    subprocess.run([bin_, "run", str(f), "--json", str(tmp / f"{i}.json")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p = json.load(open(tmp / f"{i}.json"))["perf"]
    print(f"| {name} | {p['task_clock_ns'] / msgs / 1e3:.3f} | {p['context_switches'] / msgs:.4f}"
          f" | {p['cpu_migrations'] / msgs:.5f} | {p['cpus_utilized']:.1f} |")
PY
