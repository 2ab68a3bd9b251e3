"""Sandbox runs through the cache: a job already observed is not run again."""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from typing import Any

from graders.cache.codecs import Rejected
from graders.cache.core import UNCACHEABLE, result_cache
from graders.cache.keys import sandbox_key
from graders.context import GradingContext
from graders.sandbox.pool import Job, JobOutcome, Sandbox

__all__ = ["UNCACHEABLE", "decode_outcome", "encode_outcome", "run_cached"]


def run_cached(sandbox: Sandbox, job: Job, context: GradingContext,
               run: Callable[[Job], tuple[JobOutcome, bool]] | None = None) -> JobOutcome:
    """`sandbox.run(job)`, or the stored outcome of the same job. Only completed, secure runs
    are stored: a timeout or a killed child may go otherwise on another try. `run`: how to run
    it instead, and whether its outcome may be stored (a program that disagreed with itself
    may not)."""
    run = run or (lambda job: (sandbox.run(job), True))
    cache = result_cache(context.resources)
    if not cache.enabled:
        return run(job)[0]
    # The same refusal as an uncached run when the required layers are missing now.
    if sandbox.missing_required() and not sandbox.policy.allow_insecure:
        return sandbox.run(job)
    key = sandbox_key(job.source, job.arrays, job.calls, job.timeout_s, sandbox.policy)
    stored = cache.load(key, decode_outcome)
    if stored is not None:
        cache.stats.code_cached += 1
        return stored
    outcome, storable = run(job)
    cache.stats.code_runs += 1
    if storable and outcome.status == "completed" and not outcome.insecure:
        cache.save(key, encode_outcome(outcome))
    elif context.per_submission is not None:
        context.per_submission[UNCACHEABLE] = True
    return outcome


# Sandbox observations hold NumPy arrays: pickled, and unpickled only into these classes (and
# plain numeric arrays), so a tampered entry cannot name any other callable.
_ALLOWED = {
    ("graders.sandbox.pool", "JobOutcome"),
    ("graders.sandbox.protocol", "ModuleResult"),
    ("graders.sandbox.protocol", "CallResult"),
    ("graders.sandbox.protocol", "StudentError"),
    ("graders.sandbox.protocol", "Value"),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy.core.multiarray", "_reconstruct"),
}


class _Restricted(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED and not (
            module == "numpy.dtypes" and name.endswith("DType") and name != "ObjectDType"
        ):
            raise Rejected(f"{module}.{name} is not a sandbox observation type")
        return super().find_class(module, name)


def encode_outcome(outcome: JobOutcome) -> bytes:
    return pickle.dumps(outcome, protocol=5)


def decode_outcome(payload: bytes) -> JobOutcome:
    value = _Restricted(io.BytesIO(payload)).load()
    if not isinstance(value, JobOutcome) or value.status != "completed":
        raise Rejected("not a completed sandbox job")
    for array in _arrays(value):
        if array.dtype.hasobject:
            raise Rejected("an object array")
    return value


def _arrays(outcome: JobOutcome) -> list[Any]:
    found: list[Any] = []

    def walk(value: Any) -> None:
        if value is None:
            return
        if getattr(value, "array", None) is not None:
            found.append(value.array)
        for item in getattr(value, "items", ()):
            walk(item)

    for call in outcome.calls:
        if call is not None:
            walk(call.value)
            found.extend(call.salvage.values())
    return found
