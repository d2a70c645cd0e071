#!/usr/bin/env bash
# Result documents of examples/ and of every study scenario (one seed per variant), wall
# clock removed, into DIR: run before and after a refactor or speed-up and `diff -r` the
# two folders — they must be identical (docs/architecture.md, "Refactors keep results").
#   ci/golden_results.sh target/release/schedlab /tmp/golden-before [SEEDS]
set -euo pipefail
bin=$(realpath "$1"); out=$2; seeds=${3:-1}
cd "$(dirname "$0")/.."
mkdir -p "$out"
strip() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d.get("sim", {}).pop("wall_s", None)
json.dump(d, open(sys.argv[1], "w"), indent=1, sort_keys=True)
' "$1"; }
"$bin" run examples/two-hogs.toml --json "$out/example-two-hogs.json" >/dev/null 2>&1
"$bin" run -m smp:2 -w "rtapp examples/periodic.json" -t 5s --json "$out/example-periodic.json" >/dev/null 2>&1
for f in studies/*.toml; do
  name=$(basename "$f" .toml)
  "$bin" study run "$name" -n "$seeds" --runs "$out/$name" >/dev/null 2>&1
done
# The runs' keys name the binary's commit (study --resume), which differs by design.
find "$out" -name '*.key' -delete
find "$out" -name '*.json' | while read -r f; do strip "$f"; done
echo "$(find "$out" -name '*.json' | wc -l) result documents in $out"
