"""Result documents to pandas DataFrames: lists of records become tables, nested
dicts become dotted columns (``wakeup_latency_ns.p99``), values are not changed."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import pandas as pd


def records(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """A list of records as a DataFrame, nested dicts flattened to dotted columns."""
    if not rows:
        return pd.DataFrame()
    return pd.json_normalize(list(rows), sep=".")


def columns(cols: Mapping[str, list]) -> pd.DataFrame:
    """Native trace columns (name → list, None for a missing field) as a DataFrame; integer
    columns with gaps become pandas' nullable Int64."""
    df = pd.DataFrame(dict(cols))
    for name, values in cols.items():
        if values and all(v is None or isinstance(v, int) for v in values):
            df[name] = pd.array(values, dtype="Int64")
    return df
