#!/bin/sh
# The model's side of ab.sh: the same scaled experiment on the guest's machine file
# (tcg2.toml, costs calibrated inside the guest), SEEDS seeds per variant, summarised as
# summarize.py summarises the guest's logs. As in the guest (init.sh), schbench starts
# 3 s after the spinners.
#
#   ci/cfs-guest/model.sh SCHEDLAB SEEDS [WORK]
#
# MACHINE: another machine file instead of tcg2.toml (an absolute path). VARIANTS: the
# runs, "default" and sched features by name (default "default PRIO_LB").
# WORK: one spinner pass of 150000 loops, default 830us (the guest runs' median loop,
# 5.53 ns; 3.0-8.2 ns across boots, so 460us and 1220us bound it).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 SCHEDLAB SEEDS [WORK]" >&2; exit 2; }
schedlab=$1 seeds=$2 work=${3:-830us}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat >"$out/scenario.toml" <<TOML
machine = "${MACHINE:-$here/tcg2.toml}"
kernel = "6.1"
preempt = "voluntary"
autogroup = true
duration = "33s"
workloads = ["spinner -n 1250 --policy idle --sleep 500us --work $work", "after 3s schbench-2021 -m 1 -t 3 -r 30 -R 50"]
[noise]
start_jitter = "1ms"
work_jitter_pct = 2
TOML
variants=${VARIANTS:-default PRIO_LB}
s=1
while [ "$s" -le "$seeds" ]; do
	for f in $variants; do
		feat=""
		[ "$f" = default ] || feat="-f $f"
		# shellcheck disable=SC2086
		"$schedlab" run "$out/scenario.toml" -s "$s" $feat -q --json "$out/${f}_$s.json"
	done
	s=$((s + 1))
done
for f in $variants; do
	python3 "$here/summarize.py" "$out/${f}"_*.json
done
