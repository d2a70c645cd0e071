#!/usr/bin/env bash
# Seed 000 past the drift (issue 18; docs/studies.md, util-fits-capacity): the study with
# perf stat's counters every 20 ms of simulated time (`interval`) and, beside its four
# totals, the same four over the run's middle half of messages (`middle_half`, a quarter
# to three quarters of them: docs/results.md), which leaves out the start-up and the
# stragglers' tail whose share shrinks as a run grows. VARIANTS ("all", or a comma list
# of tags) picks the variants; the scales go through ci/study_scale.sh.
#   ci/seed000_steady.sh BIN OUT VARIANTS 'SCALE,…' [SEEDS] [JOBS]
#   ci/seed000_steady.sh target/release/schedlab /tmp/steady all '-l 5000,-l 32000' 5 2
#   ci/seed000_steady.sh target/release/schedlab /tmp/steady2 \
#       baseline,UTIL_FITS_CAPACITY_V1 '-l 96000' 5 2
set -euo pipefail
bin=$1; out=$(realpath -m "$2"); variants=$3; scales=$4; seeds=${5:-5}; jobs=${6:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/src"
python3 - "$here/studies/util-fits-capacity.toml" "$out/src/util-fits-capacity.toml" "$variants" <<'PY'
import re, sys
src, dst, variants = sys.argv[1:]
s = open(src).read()
s = s.replace('preempt = "voluntary"\n', 'preempt = "voluntary"\ninterval = "20ms"\n', 1)
assert 'interval = "20ms"' in s, "the study's [scenario] has no preempt line to add to"
metrics = s[s.index('[[metric]]'):]
head, *parts = s[:s.index('[[metric]]')].split('[[variant]]')
if variants != 'all':
    keep = variants.split(',')
    parts = [p for p in parts if any(f'tag = "{t}"\n' in p for t in keep)]
    assert len(parts) == len(keep), f"not every tag of {keep} is a variant of the study"
s = '[[variant]]'.join([head] + parts).rstrip('\n') + '\n\n' + metrics
if variants != 'all':
    # A study refuses published numbers for variants it does not run.
    def only_kept(m):
        items = [x.strip() for x in m.group(1).split(',')]
        return 'published = { ' + ', '.join(x for x in items if x.split('=')[0].strip() in keep) + ' }'
    s = re.sub(r'published = \{ (.*?) \}', only_kept, s)
# The four totals' published rows, over the middle half instead.
for name, path, better, metric in [
    ("wall time, middle half (ns a message)", "middle_half.ns_per_counter", "lower", "wall time (s)"),
    ("cpu-migrations, middle half (a message)", "middle_half.migrations_per_counter", "lower", "cpu-migrations"),
    ("context-switches, middle half (a message)", "middle_half.switches_per_counter", "none", "context-switches"),
    ("CPUs utilized, middle half", "middle_half.cpus_utilized", "higher", "CPUs utilized"),
]:
    block = s[s.index(f'name = "{metric}"'):]
    published = next(l for l in block.splitlines() if l.startswith('published = '))
    s = s.rstrip('\n') + f'\n\n[[metric]]\nname = "{name}"\npath = "{path}"\nbetter = "{better}"\n{published}\n'
open(dst, 'w').write(s)
PY
STUDY_FILE="$out/src/util-fits-capacity.toml" "$here/ci/study_scale.sh" "$bin" util-fits-capacity \
  '-l 5000' "$scales" "$out" "$seeds" "$jobs"
