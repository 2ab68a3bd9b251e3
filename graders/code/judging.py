"""Deciding a function battery's checks (graders.code.spec.CheckSpec) on what the student's
function returned, against the reference, in the trusted process; and naming the bug from the
known-bug variants whose results the student's match on a failed check's cases."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from graders.code.arrays import LOOSE_ATOL, LOOSE_RTOL, as_float, same
from graders.code.calling import Observed
from graders.code.checks import Verdict
from graders.code.functions import FunctionInstance, Outputs, Raised, same_result
from graders.code.spec import CheckSpec

Array = np.ndarray[Any, Any]
ROUNDED = "matches the reference only to about 1e-3 (rounded, or computed in lower precision)"


@dataclass(frozen=True)
class Judged:
    index: int  # the case's position in the instance
    verdict: Verdict
    note: str = ""  # for staff: may describe the inputs
    rounded: bool = False  # equal to the reference only to about 1e-3


def _equal(actual: Array, expected: Array, rtol: float, atol: float) -> bool:
    left, right = as_float(actual), as_float(expected)
    if left is None or right is None or left.shape != right.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(left, right, rtol=rtol, atol=atol, equal_nan=True))


def _returned(obs: Observed) -> Array | None:
    value = obs.call.value if obs.call is not None and obs.call.ok else None
    return value.array if value is not None and value.kind == "array" else None


def _outcome(check: CheckSpec, obs: Observed, expected: Outputs | Raised,
             function: Callable[..., Any] | None,
             value_shaped: Callable[[], frozenset[str]] = frozenset) -> tuple[bool, str]:
    kind = check.kind
    if kind == "returns":
        value = _returned(obs)
        wanted = np.asarray(check.returns)
        if value is None:
            return False, obs.problem or "returned nothing comparable"
        if value.shape != wanted.shape:
            return False, f"returned an array of shape {value.shape}, not {check.returns!r}"
        if not _equal(value, wanted, 0.0, 0.0):
            return False, f"did not return {check.returns!r}"
        return True, ""
    if isinstance(expected, Raised):
        return False, f"the reference raises {expected.type} on this case"
    if kind == "interface":
        if obs.adaptations:
            return False, "read only through an adapted interface (" + \
                ", ".join(sorted(obs.adaptations)) + ")"
        if obs.problem:
            return False, obs.problem
        wrong = [n for n, a in obs.outputs.items() if a.shape != expected[n].shape]
        # an output whose length the values decide keeps the interface with its axes alone
        wrong = [n for n in wrong if obs.outputs[n].ndim != expected[n].ndim
                 or n not in value_shaped()]
        return (False, f"{', '.join(wrong)} has the wrong shape") if wrong else (True, "")
    if kind == "function":
        assert function is not None
        return _own_check(function, obs, expected)
    name = check.output
    assert name is not None
    actual = obs.outputs.get(name)
    if actual is None:
        return False, obs.problem or f"no {name} returned"
    if kind == "shape":
        if name in obs.extra_axis:
            return False, f"{name} has an extra leading axis of size 1, beyond the asked shape"
        if actual.shape != expected[name].shape:
            return False, f"{name} has shape {actual.shape}, expected {expected[name].shape}"
        return True, ""
    if kind == "dtype":
        if actual.dtype != expected[name].dtype:
            return False, f"{name} has dtype {actual.dtype}, expected {expected[name].dtype}"
        return True, ""
    if actual.shape != expected[name].shape:
        return False, f"{name} has shape {actual.shape}, expected {expected[name].shape}"
    if _equal(actual, expected[name], check.rtol, check.atol):
        return True, ""
    if _equal(actual, expected[name], LOOSE_RTOL, LOOSE_ATOL):
        return False, ROUNDED
    return False, f"{name} does not match the reference (rtol {check.rtol:g}, atol {check.atol:g})"


def _own_check(function: Callable[..., Any], obs: Observed, expected: Outputs
               ) -> tuple[bool, str]:
    """The instructor's check: (inputs, observed outputs, reference outputs) -> a bool or
    (bool, message). It runs on copies; its exception is a failed check, with its words."""
    inputs = {k: v.copy() if isinstance(v, np.ndarray) else v
              for k, v in obs.case.inputs.items()}
    observed = {k: v.copy() for k, v in obs.outputs.items()}
    reference = {k: v.copy() for k, v in expected.items()}
    with np.errstate(all="ignore"):
        try:
            result = function(inputs, observed, reference)
        except Exception as exc:
            return False, f"the check could not read the result ({type(exc).__name__}: {exc})"
    if isinstance(result, tuple) and len(result) == 2:
        return bool(result[0]), str(result[1])[:300]
    return bool(result), ""


def judge(check: CheckSpec, instance: FunctionInstance, observations: list[Observed],
          function: Callable[..., Any] | None, accept_rounded: bool = False) -> list[Judged]:
    """One verdict per case of the check's groups. A result equal to the reference only to
    about 1e-3 (rounded, or computed in float32) passes when `accept_rounded`, marked so."""
    found: list[Judged] = []
    for index, (obs, expected) in enumerate(zip(observations, instance.expected, strict=True)):
        if obs.case.spec.group not in check.groups:
            continue
        if check.kind == "raises":
            found.append(_raises(check, obs, index))
            continue
        if obs.crashed:
            found.append(Judged(index, Verdict.CRASH, obs.problem))
            continue
        ok, note = _outcome(check, obs, expected, function, lambda: instance.value_shaped)
        rounded = note == ROUNDED
        passed = ok or (rounded and accept_rounded)
        found.append(Judged(index, Verdict.PASS if passed else Verdict.FAIL, note, rounded))
    return found


def _raises(check: CheckSpec, obs: Observed, index: int) -> Judged:
    if obs.call is None:
        return Judged(index, Verdict.CRASH, obs.problem)
    error = obs.error
    if obs.call.ok or error is None:
        return Judged(index, Verdict.FAIL, "returned instead of raising")
    if isinstance(check.raises, str) and error.type != check.raises:
        return Judged(index, Verdict.FAIL, f"raised {error.type}, not {check.raises}")
    return Judged(index, Verdict.PASS)


@dataclass(frozen=True)
class Named:
    name: str
    feedback: str
    evidence: str


def _explains(result: Outputs | Raised, obs: Observed) -> bool | None:
    """Whether a variant's result on a case is what the student's call gave (None: nothing to
    compare, the call never ran)."""
    if obs.call is None:
        return None
    if obs.crashed:
        error = obs.error
        return isinstance(result, Raised) and error is not None and error.type == result.type
    if isinstance(result, Raised) or not obs.outputs:
        return False
    return all(name in result and same(as_float(array), as_float(result[name]))
               for name, array in obs.outputs.items())


def name_bug(instance: FunctionInstance, observations: list[Observed], cases: list[int]
             ) -> list[Named]:
    """Variants that explain the student's results on `cases` (a failed check's) and differ
    from the reference on at least one of them."""
    found: list[Named] = []
    for variant in instance.variants:
        best = 0
        for results in variant.spellings:
            told, failed = 0, False
            for index in cases:
                explained = _explains(results[index], observations[index])
                if explained is None:
                    continue
                if not explained:
                    failed = True
                    break
                if not same_result(results[index], instance.expected[index]):
                    told += 1
            if not failed:
                best = max(best, told)
        if best:
            found.append(Named(variant.name, variant.feedback,
                               f"the results match this mistake on {best} input(s)"))
    return found
