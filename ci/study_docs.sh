#!/usr/bin/env bash
# Regenerate every study table in docs/studies.md: each block between
# `<!-- study NAME -->` and `<!-- /study NAME -->` is replaced by what
# `schedlab study run NAME --markdown` writes (numbers in docs come from commands).
#   ci/study_docs.sh [target/release/schedlab] [-j JOBS]
#   STUDIES="prio-lb" ci/study_docs.sh …   # only these blocks (the others stay as they are)
# A block `<!-- study NAME@SIZE -->` is the study at a size it names (`--size SIZE`,
# `--full` for full).
set -euo pipefail
bin=$(realpath "${1:-target/release/schedlab}")
shift || true
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for block in ${STUDIES:-$(grep -o '<!-- study [a-z0-9@-]* -->' docs/studies.md | awk '{print $3}')}; do
  name=${block%@*}
  size=()
  if [ "$block" != "$name" ]; then
    if [ "${block#*@}" = full ]; then size=(--full); else size=(--size "${block#*@}"); fi
  fi
  echo "running study $name ${size[*]}" >&2
  "$bin" study run "$name" "${size[@]}" --markdown "$tmp/$block.md" "$@" >/dev/null
done
python3 - "$tmp" docs/studies.md <<'PY'
import pathlib, re, sys
tmp, doc = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
text = doc.read_text()
def block(m):
    name = m.group(1)
    if not (tmp / (name + '.md')).exists():
        return m.group(0)
    return f"<!-- study {name} -->\n{(tmp / (name + '.md')).read_text()}<!-- /study {name} -->"
text = re.sub(r"<!-- study ([a-z0-9@-]+) -->.*?<!-- /study \1 -->", block, text, flags=re.S)
doc.write_text(text)
PY
echo "docs/studies.md: tables regenerated with $("$bin" --version)" >&2
