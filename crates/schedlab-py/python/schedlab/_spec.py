"""The inputs of a run as the native module takes them: one JSON object, so a spec can be
shipped as text to another process (a Ray worker) and rebuilt there identically."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional, Sequence, Union

Workloads = Union[str, Sequence[str], None]


def make_spec(
    scenario: Union[str, os.PathLike, None] = None,
    *,
    machine: Optional[str] = None,
    workloads: Workloads = None,
    features: Union[str, Sequence[str], None] = None,
    kernel: Optional[str] = None,
    seed: Optional[int] = None,
    duration: Optional[str] = None,
    settings: Optional[Mapping[str, Any]] = None,
) -> str:
    """The spec JSON; paths are made absolute so a worker elsewhere reads the same file."""
    spec: dict = {}
    if scenario is not None:
        spec["scenario"] = os.path.abspath(os.fspath(scenario))
    if machine is not None:
        spec["machine"] = machine
    if workloads is not None:
        spec["workloads"] = [workloads] if isinstance(workloads, str) else list(workloads)
    if features is not None:
        spec["features"] = features if isinstance(features, str) else ",".join(features)
    if kernel is not None:
        spec["kernel"] = str(kernel)
    if seed is not None:
        spec["seed"] = int(seed)
    if duration is not None:
        spec["duration"] = duration
    if settings:
        spec["settings"] = dict(settings)
    return json.dumps(spec, sort_keys=True)


def setting_text(key: str, value: Any) -> str:
    """A ``KEY=VALUE`` setting as ``schedlab ab --base``/a sweep axis writes it: strings as
    they are, everything else as TOML (which JSON numbers, booleans and lists are)."""
    if isinstance(value, str):
        return f"{key}={value}"
    if isinstance(value, bool):
        return f"{key}={'true' if value else 'false'}"
    return f"{key}={json.dumps(value)}"


def settings_list(settings: Union[Mapping[str, Any], Sequence[str], None]) -> list:
    """``{"features": "X"}`` or ``["features=X"]`` to a list of ``KEY=VALUE`` texts."""
    if settings is None:
        return []
    if isinstance(settings, Mapping):
        return [setting_text(k, v) for k, v in settings.items()]
    if isinstance(settings, str):
        return [settings]
    return list(settings)
