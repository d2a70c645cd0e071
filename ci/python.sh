#!/usr/bin/env bash
# The Python package, the HTML report in Chromium and the quick-start notebook
# (docs/python.md, docs/report.md). Run by .ci/run after the Rust tests, with
# target/release/schedlab built.
#
# The virtualenv is kept between runs in ~/.cache/schedlab-ci (keyed on the Python
# requirements below), and pip's wheel cache too; the extension itself reuses the
# workspace's target/ from `cargo test --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
REQS="maturin>=1.5,<2 pandas>=1.5 matplotlib>=3.5 ray>=2.9 pytest nbclient>=0.7 nbformat ipykernel"
KEY=$(printf '%s %s' "$REQS" "$(python3 -VV)" | sha256sum | cut -c1-12)
VENV="${SCHEDLAB_CI_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/schedlab-ci/venv-$KEY}"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import maturin, pandas, matplotlib, ray, pytest, nbclient' 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  # shellcheck disable=SC2086
  "$VENV/bin/pip" install -q --upgrade pip $REQS
fi
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && apt-get install -y -qq chromium fonts-dejavu-core) >/dev/null 2>&1 \
    || echo "note: could not install chromium"
fi
# The one documented install command (README), into the CI venv.
"$VENV/bin/pip" install -q ./crates/schedlab-py
export SCHEDLAB_BIN="$PWD/target/release/schedlab"
export MPLBACKEND=Agg
export RAY_USAGE_STATS_ENABLED=0
# Ray on the loopback only (it would swap 127.0.0.1 for the host's address).
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
(cd crates/schedlab-py/tests && "$VENV/bin/python" -m pytest -q -p no:cacheprovider .)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
if command -v chromium >/dev/null 2>&1; then
  "$VENV/bin/python" ci/check_report.py "$SCHEDLAB_BIN" "$OUT/report"
else
  echo "note: chromium missing; the HTML report was not checked in a browser"
  exit 1
fi
"$VENV/bin/python" ci/run_notebook.py examples/quickstart.ipynb
