#!/usr/bin/env bash
# Seed 000's answer under the epyc-9654-2s preset's two assumptions that move it most
# (docs/studies.md, util-fits-capacity): writes the preset as machine files with one
# assumption changed each, then runs the study on each through ci/study_scale.sh (the
# preset's own column is the study as shipped).
#   ci/seed000_assumptions.sh BIN OUT [SEEDS] [JOBS]
#   no-idle-states: no C1/C2, every idle wake-up pays the flat idle_exit_ns (50 us)
#   state-0B / state-16KiB: messaging_state_bytes 0 / 16384 instead of 4096
#   half-lines: every cache-line transfer at half the preset's cost (14 / 60 / 150 ns)
#   bounce-concurrent / bounce-handed: pipe_bounce_ns 34 / 141 instead of the assumed 4
#     lines (116), this repository's Genoa host measured with threads using a pipe at the
#     same time (a lower bound) / taking turns (docs/studies.md, util-fits-capacity)
set -euo pipefail
bin=$(realpath "$1"); out=$(realpath -m "$2"); seeds=${3:-5}; jobs=${4:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/machines"
"$bin" machines show epyc-9654-2s > "$out/machines/preset.toml"
python3 - "$out/machines" <<'PY'
import pathlib, re, sys
d = pathlib.Path(sys.argv[1])
preset = (d / "preset.toml").read_text()
edits = {
    "no-idle-states": lambda s: re.sub(r"idle_states = \[\n(  \{[^\n]*\},?\n)*\]\n", "", s),
    "state-0B": lambda s: s.replace("messaging_state_bytes = 4096", "messaging_state_bytes = 0"),
    "state-16KiB": lambda s: s.replace("messaging_state_bytes = 4096", "messaging_state_bytes = 16384"),
    "half-lines": lambda s: re.sub(
        r"^(cacheline_(?:llc|cross_llc|cross_numa)_ns) = (\d+)$",
        lambda m: f"{m.group(1)} = {int(m.group(2)) // 2}", s, flags=re.M),
    "bounce-concurrent": lambda s: re.sub(r"^pipe_bounce_ns = \d+$", "pipe_bounce_ns = 34", s, flags=re.M),
    "bounce-handed": lambda s: re.sub(r"^pipe_bounce_ns = \d+$", "pipe_bounce_ns = 141", s, flags=re.M),
}
for name, edit in edits.items():
    text = edit(preset)
    assert text != preset, name
    (d / f"{name}.toml").write_text(text.replace('name = "epyc-9654-2s"', f'name = "epyc-{name}"'))
PY
m="$out/machines"
"$here/ci/study_scale.sh" "$bin" util-fits-capacity 'machine = "epyc-9654-2s"' \
  "machine = \"epyc-9654-2s\",machine = \"$m/no-idle-states.toml\",machine = \"$m/state-0B.toml\",machine = \"$m/state-16KiB.toml\",machine = \"$m/half-lines.toml\",machine = \"$m/bounce-concurrent.toml\",machine = \"$m/bounce-handed.toml\"" \
  "$out" "$seeds" "$jobs"
