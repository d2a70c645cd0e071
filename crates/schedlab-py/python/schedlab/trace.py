"""Trace files as DataFrames: ``read_trace`` reads what ``schedlab run --trace`` writes
(``.txt`` ftrace text, ``.pftrace`` Perfetto), and the same events from other traces."""

from __future__ import annotations

import os
from typing import Union

import pandas as pd

from . import _native
from .frames import columns


def read_trace(path: Union[str, os.PathLike]) -> pd.DataFrame:
    """One row per event (and per counter sample of a ``.pftrace``), with the columns of
    ``Result.trace``. Raises ``SchedlabError`` naming the file (and line) when it cannot be
    read."""
    return columns(_native.read_trace(os.fspath(path)))
