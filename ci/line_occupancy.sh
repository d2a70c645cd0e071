#!/usr/bin/env bash
# Seed 000's base against the root-domain line's occupancy assumption (docs/studies.md,
# "The line's occupancy"): a `schedlab sweep` of the util-fits-capacity study's base
# scenario over hackbench's -l (SCALES) × `costs.cacheline_occupancy_pct` (OCCUPANCIES),
# SEEDS seeds each, then the per-loop table of ci/hackbench_per_loop.py with one column
# per occupancy and scale. Runs are stored in OUT/occupancy.out/runs and reused.
#   ci/line_occupancy.sh BIN OUT 'SCALES' 'OCCUPANCIES' [SEEDS] [JOBS]
#   ci/line_occupancy.sh target/release/schedlab /tmp/occ '4000,16000' '100,50,25' 2 2
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,8p' "$0" >&2; exit 2; }
bin=$(realpath "$1"); out=$2; scales=$3; occs=$4; seeds=${5:-2}; jobs=${6:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
python3 - "$here/studies/util-fits-capacity.toml" "$out/occupancy.toml" "$scales" "$occs" "$seeds" <<'PY'
import re, sys
src, dst, scales, occs, seeds = sys.argv[1:]
study = open(src).read()
# The study's [scenario] tables, as the sweep's [base] (scenario keys over no file).
start = study.index("[scenario]")
end = re.search(r"^\[(?!scenario)", study[start:], re.M)
base = study[start:start + end.start() if end else len(study)]
base = re.sub(r"^\[scenario(\.|\])", r"[base\1", base, flags=re.M)
workload = re.search(r'workloads = \["([^"]*)"\]', base).group(1)
loads = ", ".join(f'["{re.sub(r"-l [0-9]+", f"-l {l}", workload)}"]' for l in scales.split(","))
open(dst, "w").write(f"""seeds = {seeds}
metrics = ["perf.*"]

{base}
[[axis]]
key = "workloads"
values = [{loads}]

[[axis]]
key = "costs.cacheline_occupancy_pct"
values = [{occs}]
""")
PY
"$bin" sweep "$out/occupancy.toml" -j "$jobs" > /dev/null
IFS=',' read -r -a ls <<< "$scales"
IFS=',' read -r -a os <<< "$occs"
cols=()
for o in "${os[@]}"; do
  for l in "${ls[@]}"; do
    cols+=("occupancy $o %, -l $l=$out/occupancy.out/runs/*_-l_${l}_*+costs.cacheline_occupancy_pct_$o.*.json")
  done
done
python3 "$here/ci/hackbench_per_loop.py" "${cols[@]}"
echo "$("$bin" --version); $seeds seed(s) per column"
