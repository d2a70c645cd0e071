#!/usr/bin/env bash
# Regenerate every study table in docs/studies.md: each block between
# `<!-- study NAME -->` and `<!-- /study NAME -->` is replaced by what
# `schedlab study run NAME --markdown` writes (numbers in docs come from commands).
#   ci/study_docs.sh [target/release/schedlab] [-j JOBS]
#   STUDIES="prio-lb" ci/study_docs.sh …   # only these blocks (the others stay as they are)
# A block `<!-- study NAME@SIZE -->` is the study at a size it names (`--size SIZE`,
# `--full` for full). The `<!-- study-summary -->` block is remade from the count line
# of every block.
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
# The summary: each block's own count line, the seed files' rows totalled over the
# default sizes (issue 18's measure: the directions the seeds themselves report).
rows, own, total = [], 0, 0
for m in re.finditer(r"<!-- study ([a-z0-9@-]+) -->(.*?)<!-- /study \1 -->", text, flags=re.S):
    name, body = m.group(1), m.group(2)
    c = re.search(r"directions agreeing with the thread: (\d+) of (\d+)(?: \((\d+) of (\d+) from (\S+) itself\))?", body)
    commit = re.search(r"at commit (\S+),", body)
    if not c:
        continue
    a, b = int(c.group(1)), int(c.group(2))
    sa, sb = (int(c.group(3)), int(c.group(4))) if c.group(3) else (a, b)
    study, _, size = name.partition("@")
    rows.append(f"| {study} | {size or 'default'} | {a} of {b} | {sa} of {sb} | {commit.group(1) if commit else '?'} |")
    if not size:
        own, total = own + sa, total + sb
summary = "\n".join([
    "<!-- study-summary -->",
    "<!-- made by ci/study_docs.sh from the count line of each generated table below; do not edit -->",
    "",
    "| study | size | directions agreeing, every row | of the seed file's own rows | commit |",
    "|---|---|---|---|---|",
    *rows,
    "",
    f"The seed files' own rows at the default sizes: {own} of {total}"
    + (f" ({100 * own / total:.1f} %)." if total else "."),
    "<!-- /study-summary -->",
])
text = re.sub(r"<!-- study-summary -->.*?<!-- /study-summary -->", lambda _: summary, text, flags=re.S)
doc.write_text(text)
PY
echo "docs/studies.md: tables regenerated with $("$bin" --version)" >&2
