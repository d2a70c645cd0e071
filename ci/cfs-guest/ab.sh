#!/bin/sh
# Seed 002's A/B on a real 6.1 kernel in a QEMU guest, scaled to 2 CPUs as
# ci/host_schbench2021.sh scales it for the host (docs/validate.md, A CFS kernel):
#
#   ci/cfs-guest/ab.sh KERNEL SCHBENCH_SRC RUNS OUTDIR
#
# RUNS rounds of VARIANTS, each variant a fresh boot; the logs go to OUTDIR/NAME_N.log,
# then summarize.py prints each variant's set. VARIANTS is a space-separated list of
# NAME:SETTING[,SETTING...] (init.sh's NAME=VALUE settings; an empty one for none); the
# default, "default:PRIO_LB=0 PRIO_LB:PRIO_LB=1", needs a kernel with the seed's patch and
# its debugfs switch (/sys/kernel/debug/sched/prio_load_balance_enabled; docs/validate.md
# says how that kernel was built). On a stock 6.1 kernel, e.g.
# VARIANTS="default: LB_MIN:FEATURES=LB_MIN". EXTRA: settings added to every boot
# (e.g. "TRACE=1 SCHED_DEBUG_AT=-1").
set -eu
[ $# -eq 4 ] || { echo "usage: $0 KERNEL SCHBENCH_SRC RUNS OUTDIR" >&2; exit 2; }
kernel=$1 sbsrc=$2 runs=$3 out=$4
variants=${VARIANTS:-default:PRIO_LB=0 PRIO_LB:PRIO_LB=1}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
i=1
while [ "$i" -le "$runs" ]; do
	for v in $variants; do
		name=${v%%:*}
		settings=$(echo "${v#*:}" | tr , ' ')
		# shellcheck disable=SC2086
		"$here/run.sh" "$kernel" "$sbsrc" 2 exp=prio-lb AUTOGROUP=1 $settings ${EXTRA:-} \
			SPINNERS=1250 LOOPS=150000 THREADS=3 RPS=50 2>&1 |
			tr -cd '\11\12\15\40-\176' >"$out/${name}_$i.log"
	done
	i=$((i + 1))
done
for v in $variants; do
	python3 "$here/summarize.py" "$out/${v%%:*}"_*.log
done
