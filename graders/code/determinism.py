"""Programs whose results may depend on something besides their inputs: caught by running
every job twice, and cached only when the two runs agree.

A sandbox outcome is cached by the job's content (source, inputs, calls), and the inputs are
drawn from the source, so two students who hand in the same bytes share one run. That is only
sound for a program whose results depend on its inputs alone. So a job not found in the cache
runs twice: the second time with its calls in the reverse order, each made twice (a function
that counts its calls or remembers the previous one answers otherwise), in a child whose
global random states and heap layout differ (unseeded draws, `id()` and addresses differ) and
whose clocks are moved by years, days, hours, minutes and seconds (a program that reads the
date, the weekday, the hour or the minute answers otherwise; graders/sandbox/clock.py).
When the two runs disagree, every item of the battery goes to review with the reason and
nothing is stored. A program that reads the clock, draws random numbers, reads files, leaves
memory uninitialised (`np.empty`) or reaches names dynamically (where the scan cannot see what
it uses) is never cached at all, even when its two runs happened to agree.
"""

from __future__ import annotations

import ast
import pickle
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from graders.cache.sandbox import UNCACHEABLE, run_cached
from graders.context import GradingContext
from graders.results import ItemResult, Status
from graders.sandbox import CallResult, Job, JobOutcome, ModuleResult, Sandbox, StudentError, Value
from graders.sandbox.clock import clock_shift

# Modules whose results depend on the world, not the inputs.
_MODULES = frozenset({"time", "datetime", "random", "secrets", "uuid", "os", "socket",
                      "threading", "multiprocessing", "concurrent", "asyncio", "importlib",
                      "subprocess", "resource", "platform", "tempfile", "pathlib", "io", "ctypes",
                      "gc", "inspect", "sys", "operator",
                      # the C modules behind datetime, ctypes and os: clocks a second run's
                      # shift does not reach (docs/result-cache.md)
                      "_datetime", "_ctypes", "posix"})
# Names and attributes that read the world or reach code the scan cannot see.
_NAMES = frozenset({"open", "id", "hash", "input", "__import__", "eval", "exec", "compile",
                    "getattr", "globals", "vars", "locals", "breakpoint", "memoryview"})
_ATTRIBUTES = frozenset({"random", "rand", "randn", "randint", "default_rng", "seed", "shuffle",
                         "permutation", "choice", "empty", "empty_like", "urandom", "time",
                         "as_strided", "__hash__", "__repr__",
                         "perf_counter", "monotonic", "process_time", "now", "today", "getpid",
                         "getrandbits", "__dict__", "__globals__", "__builtins__"})
# np.datetime64("now") and np.datetime64("today") read the clock.
_CLOCK_WORDS = frozenset({"now", "today"})
# Past this size a source is not scanned: it is treated as one that may vary.
_MAX_SCAN = 200_000


def _called(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else (
        func.id if isinstance(func, ast.Name) else "")


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
        elif isinstance(node, ast.Constant) and node.value in _CLOCK_WORDS:
            return f"it uses {node.value!r} (NumPy reads the clock for it)"
        elif isinstance(node, ast.Call) and _called(node.func) == "ndarray":
            return "it builds `ndarray(...)` directly (its memory is not initialised)"
    return None


# Why a program the scan found nothing in was still caught: its second run disagreed.
_RERUN = "its results changed when the same calls ran again, in another order"


def _value(value: Value | None) -> Any:
    if value is None:
        return None
    array = None if value.array is None else (value.array.dtype.str, value.array.shape,
                                              value.array.tobytes())
    return (value.kind, array, tuple(_value(v) for v in value.items), value.length,
            value.type_name, value.dtype, value.shape)


def _error(error: StudentError | None) -> Any:
    # An exception's message may print an object's address: its class and lines decide.
    return None if error is None else (error.type, error.lines)


def _observed(module: ModuleResult | None, calls: Sequence[CallResult | None]) -> bytes:
    """What a run reported, call by call, in a form two runs can be compared in."""
    seen: list[Any] = [None if module is None else
            (module.syntax_error, tuple((line, _error(e)) for line, e in module.errors))]
    for call in calls:
        seen.append(None if call is None else (
            call.ok, call.missing, _value(call.value), _error(call.error),
            tuple((name, a.dtype.str, a.shape, a.tobytes()) for name, a in call.salvage.items())))
    return pickle.dumps(seen, protocol=5)


def _twice(sandbox: Sandbox, job: Job, reason: str) -> tuple[JobOutcome, str | None, bool]:
    """Run `job`, then again with its calls in the reverse order, each made twice in a row (in
    a child whose random states, heap and clocks differ, see the harness): the first outcome;
    `reason` when the two disagree; whether they agreed (a second run that did not complete
    agrees with nothing)."""
    first = sandbox.run(job)
    if first.status != "completed":
        return first, None, False
    # A method called again on the instance the call before built (`Construct.again`) moves
    # with that call: the chain is the unit reversed and made twice.
    units: list[list[int]] = []
    for index, call in enumerate(job.calls):
        if call.init is not None and call.init.again and units:
            units[-1].append(index)
        else:
            units.append([index])
    placed = [(index, copy) for unit in units[::-1] for copy in (0, 1) for index in unit]
    again = tuple(job.calls[index] for index, _ in placed)
    second = sandbox.run(replace(job, calls=again, clock_shift_s=clock_shift()))
    if second.status != "completed":
        return first, None, False
    seen = _observed(first.module, first.calls)
    for copy in (0, 1):
        ordered = sorted((index, call) for (index, made), call
                         in zip(placed, second.calls, strict=True) if made == copy)
        if seen != _observed(second.module, [call for _, call in ordered]):
            return first, reason, False
    return first, None, True


def run_checked(sandbox: Sandbox, job: Job, context: GradingContext
                ) -> tuple[JobOutcome, str | None]:
    """The job's outcome, and why its results are not its inputs' alone when two runs on the
    same inputs disagreed (None otherwise). Every job not served from the cache runs twice;
    only one whose two runs agreed is stored, and a program the scan finds reading the world
    never is (its runs may agree by chance)."""
    reason = varying_reason(job.source)
    if reason is not None:
        if context.per_submission is not None:
            context.per_submission[UNCACHEABLE] = True  # nor any group result built on it
        outcome, differed, _ = _twice(sandbox, job, reason)
        return outcome, differed
    found: list[str] = []

    def run(job: Job) -> tuple[JobOutcome, bool]:
        outcome, differed, agreed = _twice(sandbox, job, _RERUN)
        found.extend([differed] if differed else [])
        return outcome, agreed

    outcome = run_cached(sandbox, job, context, run)
    return outcome, (found[0] if found else None)


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
