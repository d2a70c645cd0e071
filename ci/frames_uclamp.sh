#!/usr/bin/env bash
# How much seeds 003 and 004 depend on the frames workload's placement clamp (its
# `--uclamp-min`, a stand-in for Android's top-app placement; docs/studies.md): each
# study is run from a copy of its file whose frames workload has `--uclamp-min U`, and
# one line per (U, study) gives the base's first metric and the directions agreeing.
#   ci/frames_uclamp.sh BIN OUT '125,160,0' [PELT_SEEDS] [JOBS]
set -euo pipefail
bin=$(realpath "$1"); out=$2; values=$3; pelt_seeds=${4:-2000}; jobs=${5:-2}
cd "$(dirname "$0")/.."
mkdir -p "$out"
for u in ${values//,/ }; do
  dir="$out/uclamp-$u"
  mkdir -p "$dir"
  for study in pelt-halflife delayed-dequeue; do
    # Every frames workload of the study (its scenario and its variants) gets the clamp.
    # (a clamp the study file sets is replaced).
    sed -E -e "s/\"frames --uclamp-min [0-9]+ /\"frames /g" -e "s/\"frames /\"frames --uclamp-min $u /g" \
      "studies/$study.toml" > "$dir/$study.toml"
    seeds=()
    [ "$study" = pelt-halflife ] && seeds=(-n "$pelt_seeds")
    "$bin" study run "$study" --dir "$dir" "${seeds[@]}" -j "$jobs" --json "$dir/$study.json" >/dev/null
  done
done
python3 - "$out" "$values" <<'PY'
import json, sys
out, values = sys.argv[1], sys.argv[2].split(',')
print(f"{'uclamp.min':>10}  {'study':<16} {'base, first metric':>24}  agreeing")
for u in values:
    for study in ('pelt-halflife', 'delayed-dequeue'):
        d = json.load(open(f"{out}/uclamp-{u}/{study}.json"))
        m = d['metrics'][0]
        base = next(r for r in m['rows'] if r.get('is_base'))
        counted = [r for mm in d['metrics'] for r in mm['rows'] if r.get('agrees') is not None]
        yes = sum(1 for r in counted if r['agrees'])
        print(f"{u:>10}  {study:<16} {base['mean']:>13.3f} ({m['name'][:9]})  {yes} of {len(counted)}")
PY
