#!/usr/bin/env bash
# Deterministic before/after of two binaries on a noisy host (issue 17): each row, at a
# size valgrind runs in seconds, under cachegrind with a 2 MiB last level (a server
# core's L2; valgrind's default LL is the host's whole L3): instructions, D1 and LL data
# misses. The counts are the same on every run, unlike this shared guest's timings
# (±50 % between two runs of one binary). Valgrind does not model branch prediction
# faithfully, so a change that trades branches for instructions still needs timing.
#   ci/bench_cachegrind.sh A B
set -euo pipefail
a=$(realpath "$1"); b=$(realpath "$2")
command -v valgrind >/dev/null || { echo "error: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
rows=(
  "hackbench|run -m epyc-9654-2s -w 'hackbench -g 32 -f 20 --threads --pipe -l 200 -s 100'"
  "prio-lb|run -m vm8 -t 3000ms -w 'schbench -m 1 -t 10 -r 30 -R 200' -w 'spinner -n 5000 --policy idle --sleep 500us --work 1ms'"
  "stress-ng|run -m power10-240c-smt8 -t 10ms -w 'stress-ng --wait 480'"
  "mix8|bench -m smp:8 --secs 30"
)
counts() {
  eval valgrind --tool=cachegrind --cache-sim=yes --LL=2097152,16,64 \
    --cachegrind-out-file=/dev/null "$1" "$2" 2>&1 >/dev/null |
    awk '/I *refs/ {i=$4} /D1 *misses/ {d=$4} /LLd misses/ {l=$4} END {gsub(",","",i); gsub(",","",d); gsub(",","",l); print i, d, l}'
}
printf '%-10s %14s %14s %12s %12s %11s %11s\n' row "A instr" "B instr" "A D1 miss" "B D1 miss" "A LL miss" "B LL miss"
for r in "${rows[@]}"; do
  name=${r%%|*}; args=${r#*|}
  read -r ia da la < <(counts "$a" "$args")
  read -r ib db lb < <(counts "$b" "$args")
  printf '%-10s %14s %14s %12s %12s %11s %11s\n' "$name" "$ia" "$ib" "$da" "$db" "$la" "$lb"
done
