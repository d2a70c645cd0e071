"""Where a sweep's runs go: ``local`` (the native thread pool, like ``schedlab sweep``) or
``ray`` (one Ray task per grid point and seed, on whatever cluster ``ray.init`` joined, or
a local one it starts). Either way each run is the same native call on the same spec
text, so the results are identical."""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from . import _native

Run = Tuple[List[str], int]


def run_local(spec: str, runs: Sequence[Run], jobs: Optional[int]) -> List[str]:
    return list(_native.run_metrics_many(spec, [(list(s), int(seed)) for s, seed in runs], jobs))


def _one(spec: str, settings: List[str], seed: int) -> str:
    # Imported in the worker: the package must be installed where Ray runs its tasks.
    from schedlab import _native as native

    return native.run_metrics(spec, settings, seed)


def run_ray(spec: str, runs: Sequence[Run]) -> List[str]:
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("executor='ray' needs Ray: pip install 'ray>=2.9'") from e
    if not ray.is_initialized():
        ray.init()
    task = ray.remote(_one)
    refs = [task.remote(spec, list(s), int(seed)) for s, seed in runs]
    return list(ray.get(refs))


def run(executor: str, spec: str, runs: Sequence[Run], jobs: Optional[int]) -> List[str]:
    if executor == "local":
        return run_local(spec, runs, jobs)
    if executor == "ray":
        return run_ray(spec, runs)
    raise _native.SchedlabError(
        f"executor={executor!r}: unknown executor (use executor='local' or executor='ray')"
    )
