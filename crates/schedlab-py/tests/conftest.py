"""Shared fixtures: the CLI binary the Python results are compared with (``SCHEDLAB_BIN``,
default target/release/schedlab of this checkout) and the small scenario every test runs."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCENARIO = dict(machine="smp:2", workloads=["hackbench -g 2 -l 100"], seed=1)
FLAGS = ["-m", "smp:2", "-w", "hackbench -g 2 -l 100", "-s", "1"]


@pytest.fixture(scope="session")
def cli():
    path = Path(os.environ.get("SCHEDLAB_BIN", ROOT / "target" / "release" / "schedlab"))
    if not path.exists():
        pytest.fail(f"{path}: build it first (cargo build --release -p schedlab-cli) or set SCHEDLAB_BIN")

    def call(*args, check=True):
        p = subprocess.run([str(path), *args], capture_output=True, text=True, cwd=ROOT)
        if check and p.returncode != 0:
            raise AssertionError(f"schedlab {' '.join(args)}: exit {p.returncode}: {p.stderr}")
        return p

    return call


@pytest.fixture(scope="session")
def cli_json(cli):
    """The CLI's --json document of the shared scenario."""
    return json.loads(cli("run", *FLAGS, "-q", "--json", "-").stdout)
