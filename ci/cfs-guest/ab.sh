#!/bin/sh
# Seed 002's A/B on a real 6.1 kernel in a QEMU guest, scaled to 2 CPUs as
# ci/host_schbench2021.sh scales it for the host (docs/validate.md, A CFS kernel):
#
#   ci/cfs-guest/ab.sh KERNEL SCHBENCH_SRC RUNS OUTDIR
#
# KERNEL must carry the seed's patch with its switch in debugfs
# (/sys/kernel/debug/sched/prio_load_balance_enabled; docs/validate.md says how that
# kernel was built). RUNS pairs, default then PRIO_LB, each a fresh boot; the logs go to
# OUTDIR/default_N.log and OUTDIR/PRIO_LB_N.log, then summarize.py prints both sets.
set -eu
[ $# -eq 4 ] || { echo "usage: $0 KERNEL SCHBENCH_SRC RUNS OUTDIR" >&2; exit 2; }
kernel=$1 sbsrc=$2 runs=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
i=1
while [ "$i" -le "$runs" ]; do
	for v in 0 1; do
		name=default
		[ "$v" = 1 ] && name=PRIO_LB
		"$here/run.sh" "$kernel" "$sbsrc" 2 exp=prio-lb AUTOGROUP=1 PRIO_LB=$v \
			SPINNERS=1250 LOOPS=150000 THREADS=3 RPS=50 2>&1 |
			tr -cd '\11\12\15\40-\176' >"$out/${name}_$i.log"
	done
	i=$((i + 1))
done
python3 "$here/summarize.py" "$out"/default_*.log
python3 "$here/summarize.py" "$out"/PRIO_LB_*.log
