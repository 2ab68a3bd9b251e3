"""Programs whose results may depend on something besides their inputs: run twice, never cached.

A sandbox outcome is cached by the job's content (source, inputs, calls), and the inputs are
drawn from the source, so two students who hand in the same bytes share one run. That is only
sound for a program whose results depend on its inputs alone. A program that reads the clock,
draws random numbers, reads files, leaves memory uninitialised (`np.empty`) or reaches names
dynamically (where the scan cannot see what it uses) is run for each submission on its own,
twice, and never cached; when its two runs disagree on the same inputs, every item of the
battery goes to review with the reason.
"""

from __future__ import annotations

import ast
import pickle
from functools import lru_cache

from graders.cache.sandbox import UNCACHEABLE, run_cached
from graders.context import GradingContext
from graders.results import ItemResult, Status
from graders.sandbox import Job, JobOutcome, Sandbox

# Modules whose results depend on the world, not the inputs.
_MODULES = frozenset({"time", "datetime", "random", "secrets", "uuid", "os", "socket",
                      "threading", "multiprocessing", "concurrent", "asyncio", "importlib",
                      "subprocess", "resource", "platform", "tempfile", "pathlib", "io", "ctypes",
                      "gc", "inspect", "sys"})
# Names and attributes that read the world or reach code the scan cannot see.
_NAMES = frozenset({"open", "id", "hash", "input", "__import__", "eval", "exec", "compile",
                    "getattr", "globals", "vars", "locals", "breakpoint", "memoryview"})
_ATTRIBUTES = frozenset({"random", "rand", "randn", "randint", "default_rng", "seed", "shuffle",
                         "permutation", "choice", "empty", "empty_like", "urandom", "time",
                         "perf_counter", "monotonic", "process_time", "now", "today", "getpid",
                         "getrandbits", "__dict__", "__globals__", "__builtins__"})
# Past this size a source is not scanned: it is treated as one that may vary.
_MAX_SCAN = 200_000


@lru_cache(maxsize=1024)  # a regrade asks again for every job of the same program
def varying_reason(source: str) -> str | None:
    """What in `source` may make its results depend on more than its inputs, or None."""
    if len(source) > _MAX_SCAN:
        return "a program too large to scan"
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # it will not run either: the syntax error is the result
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names]
            for name in names:
                if name.split(".")[0] in _MODULES or name in ("numpy.random",):
                    return f"it imports `{name}`"
        elif isinstance(node, ast.Name) and node.id in _NAMES:
            return f"it uses `{node.id}`"
        elif isinstance(node, ast.Attribute) and node.attr in _ATTRIBUTES:
            return f"it uses `.{node.attr}`"
    return None


def _observed(outcome: JobOutcome) -> bytes:
    return pickle.dumps((outcome.status, outcome.module, outcome.calls), protocol=5)


def run_checked(sandbox: Sandbox, job: Job, context: GradingContext
                ) -> tuple[JobOutcome, str | None]:
    """The job's outcome, and why its results are not its inputs' alone when two runs on the
    same inputs disagreed (None otherwise). Only a program that cannot vary is cached."""
    reason = varying_reason(job.source)
    if reason is None:
        return run_cached(sandbox, job, context), None
    if context.per_submission is not None:
        context.per_submission[UNCACHEABLE] = True  # nor any group result built on it
    first = sandbox.run(job)
    if first.status != "completed":
        return first, None
    second = sandbox.run(job)
    if second.status == "completed" and _observed(first) != _observed(second):
        return first, reason
    return first, None


def as_varied(result: ItemResult, reason: str) -> ItemResult:
    """A result from a program whose two runs disagreed: the first run's grade, for review."""
    if result.status is not Status.GRADED:
        return result
    said = ("Your code gave different results when run twice on the same inputs "
            f"({reason}); a grader will check it.")
    return result.model_copy(update={
        "status": Status.NEEDS_REVIEW,
        "confidence": min(result.confidence, 0.3),
        "feedback": f"NONDETERMINISTIC: two runs on the same inputs disagreed ({reason}); the "
                    f"points suggested are the first run's. {result.feedback}",
        "student_feedback": " ".join(x for x in (said, result.student_feedback) if x),
    })
