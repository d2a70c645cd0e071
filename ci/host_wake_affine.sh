#!/usr/bin/env bash
# Where a futex-woken task goes on this host and in schedlab (docs/validate.md, "Where a
# woken task goes"). Usage: ci/host_wake_affine.sh SCHEDLAB [REPS]
# Needs a C compiler and 2 CPUs; run on a quiet machine.
set -euo pipefail
bin=$1; reps=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gcc -O2 -pthread -o "$tmp/probe" "$here/probes/wake_affine.c"
echo "| waker sleeps (µs) | other sleeps (µs) | host: wakes on CPU 0 / CPU 1 (per run) | schedlab: CPU 0 / CPU 1 (per seed) |"
echo "|---|---|---|---|"
for cfg in "100 0" "0 100" "100 100" "1000 1000"; do
  set -- $cfg
  host=""; sim=""
  for r in $(seq "$reps"); do host+="$("$tmp/probe" 2800 "$1" "$2" 3 | tr ' ' '/') "; done
  python3 - "$1" "$2" "$tmp/v.json" <<'PY'
import json, sys
s_waker, s_other, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
other = {"cpus": [0], "loop": -1, "run": 2800}
waker = {"cpus": [1], "loop": -1, "run": 2800, "resume": "wakee"}
if s_other: other["sleep"] = s_other
if s_waker: waker["sleep"] = s_waker
doc = {"global": {"duration": 3}, "tasks": {"other": other, "waker": waker,
       "wakee": {"loop": -1, "suspend": "wakee", "run": 1}}}
json.dump(doc, open(out, "w"))
PY
  for s in $(seq "$reps"); do
    "$bin" run -m smp:2 --preempt none -s "$s" -w "rtapp $tmp/v.json" --trace "$tmp/t.txt" -q
    c0=$(grep 'sched_switch.*next_comm=wakee' "$tmp/t.txt" | grep -c '\[000\]' || true)
    c1=$(grep 'sched_switch.*next_comm=wakee' "$tmp/t.txt" | grep -c '\[001\]' || true)
    sim+="$c0/$c1 "
  done
  echo "| $1 | $2 | $host| $sim|"
done
