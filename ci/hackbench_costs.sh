#!/usr/bin/env bash
# Where seed 000's hackbench spends its CPU per message on epyc-9654-2s (docs/machines.md):
# the study's scenario at -l L (default 500), one seed, with every cost beyond the
# per-operation ones (pipe_write/read, copy) set to 0, then each group of them alone, then
# all of them (the preset). Prints task-clock µs, context switches and migrations per message.
#   ci/hackbench_costs.sh BIN [LOOPS] [SEED]
set -euo pipefail
bin=$(realpath "$1"); loops=${2:-500}; seed=${3:-1}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
extra="context_switch_ns context_switch_cold_ns sched_wakeup_ns ipi_send_ns pipe_bounce_ns
  migrate_llc_ns migrate_cross_llc_ns migrate_cross_numa_ns sched_idle_scan_per_cpu_ns
  sched_lb_per_cpu_ns cacheline_llc_ns cacheline_cross_llc_ns cacheline_cross_numa_ns"
lines="cacheline_llc_ns cacheline_cross_llc_ns cacheline_cross_numa_ns"
scenario() { # NAME KEPT-COSTS…|all
  local name=$1; shift
  {
    printf 'machine = "epyc-9654-2s"\nkernel = "6.5"\npreempt = "voluntary"\nseed = %s\n' "$seed"
    printf 'workloads = ["hackbench -g 32 -f 20 --threads --pipe -l %s -s 100"]\n' "$loops"
    if [ "$1" != all ]; then
      echo "[costs]"
      for k in $extra; do case " $* " in *" $k "*) ;; *) echo "$k = 0";; esac; done
    fi
    printf '[noise]\nstart_jitter = "100us"\nwork_jitter_pct = 2\n'
  } > "$tmp/$name.toml"
  "$bin" run "$tmp/$name.toml" --json "$tmp/$name.json" > /dev/null
}
scenario "none" -
scenario "pipe bounce + line ratios" pipe_bounce_ns $lines
scenario "context switches" context_switch_ns context_switch_cold_ns
scenario "wake-up + IPI send" sched_wakeup_ns ipi_send_ns
scenario "scans + sched lines" sched_idle_scan_per_cpu_ns sched_lb_per_cpu_ns $lines
scenario "migration refill" migrate_llc_ns migrate_cross_llc_ns migrate_cross_numa_ns
scenario "all (the preset)" all
python3 - "$tmp" "$loops" "$("$bin" --version)" <<'PY'
import json, pathlib, sys
tmp, loops, version = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
msgs = 32 * 20 * 20 * loops
print(f"hackbench -g 32 -f 20 --threads --pipe -l {loops} -s 100 on epyc-9654-2s, {version}")
print("| extra costs kept | CPU µs / message | switches / message | migrations / message | CPUs utilized |")
print("|---|---|---|---|---|")
for name in ["none", "pipe bounce + line ratios", "context switches", "wake-up + IPI send",
             "scans + sched lines", "migration refill", "all (the preset)"]:
    p = json.load(open(tmp / f"{name}.json"))["perf"]
    print(f"| {name} | {p['task_clock_ns'] / msgs / 1e3:.3f} | {p['context_switches'] / msgs:.4f}"
          f" | {p['cpu_migrations'] / msgs:.5f} | {p['cpus_utilized']:.1f} |")
PY
