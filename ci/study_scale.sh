#!/usr/bin/env bash
# A study's answers against scale (issue 18): runs `schedlab study run NAME` once per
# scale, with OLD replaced by each NEW in the study file (e.g. the workload's "-l 8000"),
# and prints a Markdown table of each variant's perc_diff (and the base's mean) per
# scale, so one can see where the answers stop drifting. Runs go to OUT/SCALE/.
#   ci/study_scale.sh BIN NAME 'OLD' 'NEW1,NEW2,…' OUT [SEEDS] [JOBS]
#   ci/study_scale.sh target/release/schedlab util-fits-capacity '-l 5000' \
#       '-l 2000,-l 4000,-l 8000,-l 16000' /tmp/scale000 5 1
# STUDY_FILE=F takes the study from F instead of studies/NAME.toml (a changed copy, as
# ci/seed000_steady.sh writes). Runs whose key matches are taken from OUT/SCALE/runs.
set -euo pipefail
bin=$(realpath "$1"); name=$2; old=$3; news=$4; out=$5; seeds=${6:-5}; jobs=${7:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
study="${STUDY_FILE:-$here/studies/$name.toml}"
grep -qF -- "$old" "$study" || { echo "error: '$old' is not in $study" >&2; exit 2; }
mkdir -p "$out"
IFS=',' read -r -a scales <<< "$news"
for new in "${scales[@]}"; do
  dir="$out/$(echo "$new" | tr -c 'A-Za-z0-9.\n' '_')"
  mkdir -p "$dir"
  python3 - "$study" "$dir/$name.toml" "$old" "$new" <<'PY'
import sys
src, dst, old, new = sys.argv[1:]
open(dst, "w").write(open(src).read().replace(old, new))
PY
  if [ ! -s "$dir/out.json" ]; then
    "$bin" study run "$name" --dir "$dir" -n "$seeds" -j "$jobs" --json "$dir/out.json" \
      --runs "$dir/runs" --resume > "$dir/table.txt"
  fi
done
python3 - "$out" "$news" "$("$bin" --version)" <<'PY'
import json, pathlib, re, sys
out, news, version = pathlib.Path(sys.argv[1]), sys.argv[2].split(','), sys.argv[3]
dirs = [out / re.sub(r'[^A-Za-z0-9.]', '_', n) for n in news]
docs = [json.load(open(d / 'out.json')) for d in dirs]
print(f"| metric | tag | " + " | ".join(news) + " |")
print("|---|---|" + "---|" * len(news))
def row_of(d, metric, tag):
    m = next((m for m in d['metrics'] if m['name'] == metric), None)
    return next((r for r in m['rows'] if r['tag'] == tag), None) if m else None
for mi, m in enumerate(docs[0]['metrics']):
    for ri, row in enumerate(m['rows']):
        cells = []
        for d in docs:
            # A scale may run fewer variants: its cell for a missing one is blank.
            r = row_of(d, m['name'], row['tag'])
            if r is None:
                cells.append('—')
            elif r['is_base']:
                cells.append(f"{r['mean']:.4g} ± {r['ci95']:.2g}")
            else:
                star = '' if r['p_value'] is None or r['p_value'] >= 0.05 else ' *'
                cells.append(f"{r['perc_diff']:+.1f}%{star}")
        label = m['name'] if ri == 0 else ''
        tag = row['tag'] + (' (base: mean ± ci95)' if row['is_base'] else '')
        print(f"| {label} | {tag} | " + " | ".join(cells) + " |")
print()
print(f"{docs[0]['seeds']} seeds per variant and scale; * marks p < 0.05 (Welch). {version}.")
PY
