"""schedlab: a deterministic simulator of the Linux fair scheduler (EEVDF), from Python.

>>> import schedlab
>>> r = schedlab.run(machine="smp:2", workloads=["hackbench -g 2 -l 100"], seed=1)
>>> r.tasks.shape, r.perf["context_switches"]  # doctest: +SKIP

Everything comes from the same library as the ``schedlab`` command line: the same inputs
give the same numbers as ``schedlab run --json``. See docs/python.md.
"""

from ._native import SchedlabError, __version__
from .campaign import AbResult, StudyResult, SweepResult, ab, studies, study, sweep
from .result import Result, run
from .trace import read_trace
from . import plot

__all__ = [
    "SchedlabError",
    "Result",
    "run",
    "read_trace",
    "plot",
    "ab",
    "AbResult",
    "sweep",
    "SweepResult",
    "study",
    "studies",
    "StudyResult",
    "__version__",
]
