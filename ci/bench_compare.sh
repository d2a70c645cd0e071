#!/usr/bin/env bash
# Interleaved before/after timing of the speed suite (docs/performance.md): each row of
# `B bench --suite --commands` runs under binary A, then B, REPS times, alternating, in
# one session; prints CPU seconds (user + sys: steadier than wall time on a shared host),
# peak RSS, and the speed-up A/B of the best of REPS.
#   ci/bench_compare.sh /work/bin/schedlab-OLD target/release/schedlab [ROWS] [REPS]
# A must accept the rows' arguments (`run`, `bench -m M --secs S`), which any version does.
set -euo pipefail
a=$(realpath "$1"); b=$(realpath "$2"); rows=${3:-}; reps=${4:-1}
timed() { /usr/bin/time -f '%U %S %M' -o /tmp/bench_compare.$$ "$@" >/dev/null 2>&1; awk '{print $1 + $2, $3}' /tmp/bench_compare.$$; }
printf '%-12s %10s %10s %8s %12s %12s\n' row "A cpu s" "B cpu s" "A/B" "A peak MiB" "B peak MiB"
"$b" bench --suite --commands ${rows:+--rows "$rows"} | while IFS=$'\t' read -r name args; do
  best_a=""; best_b=""
  for _ in $(seq "$reps"); do
    read -r wa ma < <(eval timed "$a" "$args")
    read -r wb mb < <(eval timed "$b" "$args")
    best_a=$(python3 -c "print(min(x for x in [$wa, ${best_a:-$wa}]))")
    best_b=$(python3 -c "print(min(x for x in [$wb, ${best_b:-$wb}]))")
  done
  python3 -c "print(f'{\"$name\":<12} {$best_a:>10.2f} {$best_b:>10.2f} {$best_a/max($best_b,0.01):>7.2f}x {$ma/1024:>12.1f} {$mb/1024:>12.1f}')"
done
rm -f /tmp/bench_compare.$$
