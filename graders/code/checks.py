"""The checks a code item can name, decided in the trusted process on validated arrays."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from graders.code.battery import Case, Pair
from graders.code.config import CheckName, CodeCheckConfig
from graders.sandbox import CallResult

Array = np.ndarray[Any, Any]
CAUSAL_ZERO = 1e-12
ROW_SUM_TOL = 1e-6

DESCRIPTIONS: dict[str, str] = {
    "interface": "returns (output, weights) with shapes (n, d_v) and (n, m)",
    "scaling": "after normalising each row, the weights equal softmax(QKᵀ/√d_k)",
    "row_softmax": "every row of the weights is non-negative and sums to 1",
    "weights": "the weights match the reference",
    "output": "the output matches the reference",
    "stable": "with logits around 1e3 the result is finite and correct",
    "causal": "no weight on a future position (j > i), and every row attends to its past",
}


class Verdict(Enum):
    PASS = "pass"
    FAIL = "fail"
    CRASH = "crash"  # the student's call raised, was killed, or never ran


@dataclass(frozen=True)
class CaseRun:
    """One case as the student's code ran it."""

    case: Case
    call: CallResult | None
    pair: Pair | None  # (output, weights) when the call returned two numeric arrays
    problem: str  # why there is no pair, in words ("" when there is one)


@dataclass(frozen=True)
class CaseVerdict:
    case: Case
    verdict: Verdict
    note: str = ""
    salvaged: str = ""  # the local variable a crash-surviving check used


def case_run(case: Case, call: CallResult | None, not_run: str) -> CaseRun:
    if call is None:
        return CaseRun(case, None, None, not_run)
    if not call.ok or call.value is None:
        error = call.error
        what = f"{error.type}: {error.message}" if error is not None else "an error"
        return CaseRun(case, call, None, f"raised {what}")
    value = call.value
    if value.kind == "seq" and value.length == 2 and len(value.items) == 2 \
            and all(item.kind == "array" for item in value.items):
        output, weights = (np.asarray(item.array, dtype=np.float64) for item in value.items)
        return CaseRun(case, call, (output, weights), "")
    if value.kind == "seq":
        return CaseRun(case, call, None, f"returned {value.describe()}, not (output, weights)")
    return CaseRun(case, call, None, f"returned {value.describe()}, not (output, weights)")


def _close(actual: Array, expected: Array, config: CodeCheckConfig) -> bool:
    if actual.shape != expected.shape or not np.isfinite(actual).all():
        return False
    return bool(np.all(np.abs(actual - expected) <= config.atol + config.rtol * np.abs(expected)))


def _shape_note(name: str, actual: Array, wanted: tuple[int, ...]) -> str:
    return f"{name} has shape {actual.shape}, expected {wanted}"


def _interface(run: CaseRun, config: CodeCheckConfig) -> tuple[bool, str]:
    assert run.pair is not None
    output, weights = run.pair
    spec = run.case.spec
    if output.shape != (spec.n, spec.d_v):
        return False, _shape_note("output", output, (spec.n, spec.d_v))
    if weights.shape != (spec.n, spec.m):
        return False, _shape_note("weights", weights, (spec.n, spec.m))
    return True, ""


def _scaling(run: CaseRun, config: CodeCheckConfig) -> tuple[bool, str]:
    assert run.pair is not None
    weights = run.pair[1]
    expected = run.case.expected[1]
    if weights.shape != expected.shape:
        return False, _shape_note("weights", weights, expected.shape)
    sums = weights.sum(axis=-1, keepdims=True) if np.isfinite(weights).all() else None
    if sums is None or not (sums > 0).all():
        return False, "the weights are not finite and positive, so their scale cannot be read"
    with np.errstate(all="ignore"):
        normalised = weights / sums
    if _close(normalised, expected, config):
        return True, ""
    return False, "even with each row renormalised the weights differ from softmax(QKᵀ/√d_k)"


def _row_softmax(run: CaseRun, config: CodeCheckConfig) -> tuple[bool, str]:
    assert run.pair is not None
    weights = run.pair[1]
    if weights.ndim != 2 or not np.isfinite(weights).all():
        return False, "the weights are not a finite matrix"
    if (weights < -config.atol).any():
        return False, "some weights are negative"
    sums = weights.sum(axis=-1)
    if np.abs(sums - 1).max() > ROW_SUM_TOL:
        return False, "row sums are " + ", ".join(f"{s:.3g}" for s in sums[:6])
    return True, ""


def _weights(run: CaseRun, config: CodeCheckConfig) -> tuple[bool, str]:
    assert run.pair is not None
    if _close(run.pair[1], run.case.expected[1], config):
        return True, ""
    return False, "the weights differ from the reference"


def _output(run: CaseRun, config: CodeCheckConfig) -> tuple[bool, str]:
    assert run.pair is not None
    if _close(run.pair[0], run.case.expected[0], config):
        return True, ""
    return False, "the output differs from the reference"


def _stable(run: CaseRun, config: CodeCheckConfig) -> tuple[bool, str]:
    assert run.pair is not None
    output, weights = run.pair
    if not (np.isfinite(output).all() and np.isfinite(weights).all()):
        return False, "the result contains inf or nan (exp overflowed: subtract each row's max)"
    if _close(weights, run.case.expected[1], config) and _close(output, run.case.expected[0],
                                                                config):
        return True, ""
    return False, "the result is finite but differs from the reference"


def causal_weights(weights: Array, n: int) -> tuple[bool, str]:
    if weights.shape != (n, n):
        return False, _shape_note("weights", weights, (n, n))
    if not np.isfinite(weights).all():
        return False, "the weights contain inf or nan"
    future = np.triu(np.ones((n, n), dtype=bool), k=1)
    leak = np.abs(weights[future])
    if leak.size and leak.max() > CAUSAL_ZERO:
        return False, f"a future position gets weight {leak.max():.3g}"
    past = np.where(future, 0.0, np.abs(weights)).sum(axis=-1)
    if (past <= 0).any():
        return False, "some row puts no weight on any allowed position"
    return True, ""


def _causal(run: CaseRun, config: CodeCheckConfig) -> tuple[bool, str]:
    assert run.pair is not None
    return causal_weights(run.pair[1], run.case.spec.n)


CHECKS: dict[CheckName, Callable[[CaseRun, CodeCheckConfig], tuple[bool, str]]] = {
    "interface": _interface, "scaling": _scaling, "row_softmax": _row_softmax,
    "weights": _weights, "output": _output, "stable": _stable, "causal": _causal,
}


def _salvaged_weights(run: CaseRun, config: CodeCheckConfig) -> tuple[str, Array] | None:
    if run.call is None or not run.call.salvage:
        return None
    n = run.case.spec.n
    for name in config.salvage_names:
        array = run.call.salvage.get(name)
        if array is not None and array.shape == (n, n):
            return name, np.asarray(array, dtype=np.float64)
    return None


def evaluate(config: CodeCheckConfig, runs: list[CaseRun]) -> list[CaseVerdict]:
    """One verdict per relevant case (the stability cases for `stable`, the others otherwise)."""
    check = CHECKS[config.check]
    verdicts: list[CaseVerdict] = []
    for run in runs:
        if run.case.spec.stable != (config.check == "stable"):
            continue
        if run.pair is None:
            crashed = run.call is None or not run.call.ok
            salvaged = _salvaged_weights(run, config) if config.salvage and crashed else None
            if salvaged is not None and config.check == "causal":
                name, weights = salvaged
                ok, note = causal_weights(weights, run.case.spec.n)
                verdicts.append(CaseVerdict(run.case, Verdict.PASS if ok else Verdict.FAIL,
                                            note, salvaged=name))
            else:
                verdicts.append(CaseVerdict(run.case, Verdict.CRASH if crashed else Verdict.FAIL,
                                            run.problem))
            continue
        with np.errstate(all="ignore"):
            ok, note = check(run, config)
        verdicts.append(CaseVerdict(run.case, Verdict.PASS if ok else Verdict.FAIL, note))
    return verdicts
