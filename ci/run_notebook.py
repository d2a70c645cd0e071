#!/usr/bin/env python3
"""Execute a notebook top to bottom (nbclient, the python3 kernel of this venv) from the
repository root; fail on the first cell that raises. Figures go to a temporary folder.

Usage: run_notebook.py NOTEBOOK.ipynb"""

import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def main():
    path = Path(sys.argv[1])
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as out:
        os.environ["SCHEDLAB_FIGURES"] = out
        started = time.time()
        client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}})
        client.execute()
        figures = sorted(p.name for p in Path(out).iterdir() if p.stat().st_size > 0)
    cells = sum(1 for c in nb.cells if c.cell_type == "code")
    print(f"run_notebook: {path}: {cells} code cells ran in {time.time() - started:.0f} s; figures: {', '.join(figures)}")
    if len(figures) < 3:
        sys.exit(f"run_notebook: expected at least 3 figures, got {figures}")


if __name__ == "__main__":
    main()
