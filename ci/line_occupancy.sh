#!/usr/bin/env bash
# Seed 000's base against the root-domain line's occupancy assumption (docs/studies.md,
# "The line's occupancy"): the util-fits-capacity study's base scenario at each scale
# (hackbench -l) and each `cacheline_occupancy_pct`, SEEDS seeds each, then the per-loop
# table of ci/hackbench_per_loop.py with one column per occupancy and scale.
#   ci/line_occupancy.sh BIN OUT 'SCALES' 'OCCUPANCIES' [SEEDS] [JOBS]
#   ci/line_occupancy.sh target/release/schedlab /tmp/occ '4000,16000' '100,50,25' 2 2
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,7p' "$0" >&2; exit 2; }
bin=$(realpath "$1"); out=$2; scales=$3; occs=$4; seeds=${5:-2}; jobs=${6:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
IFS=',' read -r -a ls <<< "$scales"
IFS=',' read -r -a os <<< "$occs"
cmds=()
for l in "${ls[@]}"; do
  for o in "${os[@]}"; do
    f="$out/occ$o-l$l.toml"
    python3 - "$here/studies/util-fits-capacity.toml" "$f" "$l" "$o" <<'PY'
import re, sys, tomllib
src, dst, loops, occ = sys.argv[1:]
sc = tomllib.load(open(src, "rb"))["scenario"]
sc["workloads"] = [re.sub(r"-l \d+", f"-l {loops}", w) for w in sc["workloads"]]
sc.setdefault("costs", {})["cacheline_occupancy_pct"] = int(occ)
def val(v):
    if isinstance(v, str):
        return '"' + v.replace('\\', '\\\\').replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(val(x) for x in v) + "]"
    return str(v).lower() if isinstance(v, bool) else str(v)
top = [f"{k} = {val(v)}" for k, v in sc.items() if not isinstance(v, dict)]
tables = [f"\n[{k}]\n" + "\n".join(f"{a} = {val(b)}" for a, b in v.items())
          for k, v in sc.items() if isinstance(v, dict)]
open(dst, "w").write("\n".join(top) + "\n" + "\n".join(tables) + "\n")
PY
    for s in $(seq 1 "$seeds"); do
      [ -s "$out/occ$o-l$l-seed$s.json" ] ||
        cmds+=("$bin run $f -s $s -q --json $out/occ$o-l$l-seed$s.json")
    done
  done
done
printf '%s\n' "${cmds[@]+"${cmds[@]}"}" | grep . | xargs -r -P "$jobs" -I{} sh -c '{}'
cols=()
for o in "${os[@]}"; do
  for l in "${ls[@]}"; do cols+=("occupancy $o %, -l $l=$out/occ$o-l$l-seed*.json"); done
done
python3 "$here/ci/hackbench_per_loop.py" "${cols[@]}"
echo "$("$bin" --version); $seeds seed(s) per column"
