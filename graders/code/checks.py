"""The checks a code item can name, decided in the trusted process on validated arrays.

Each check looks at one case as observed (`forms.Observation`): the output, and the weights the
function returned or, when it returns only the output, the weights it used (its output with
V = I). Softmax and causal credit need the weights to be a softmax of the case's own scores
(`arrays.relation`), not merely rows that sum to 1 or zeros above the diagonal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import cast

import numpy as np

from graders.code.arrays import (
    FLOAT32_EPS,
    LOOSE_ATOL,
    LOOSE_RTOL,
    SINGLE_RTOL,
    Array,
    as_float,
    close,
    close_single,
    decimally_rounded,
    finite,
    is_float32,
    relation,
)
from graders.code.battery import Case
from graders.code.config import CheckName, CodeCheckConfig
from graders.code.forms import Observation

CAUSAL_ZERO = 1e-12

DESCRIPTIONS: dict[str, str] = {
    "interface": "returns (output, weights) with shapes (n, d_v) and (n, m)",
    "scaling": "after normalising each row, the weights equal softmax(QKᵀ/√d_k)",
    "row_softmax": "every row of the weights is a softmax of the scores: non-negative, "
                   "summing to 1",
    "weights": "the weights match the reference",
    "output": "the output matches the reference",
    "stable": "with logits around 1e3 the result is finite and correct",
    "causal": "no weight on a future position (j > i), and every row attends to its past as a "
              "softmax of the scores",
}


class Verdict(Enum):
    PASS = "pass"
    FAIL = "fail"
    CRASH = "crash"  # the student's call raised, was killed, or never ran


@dataclass(frozen=True)
class CaseVerdict:
    case: Case
    verdict: Verdict
    note: str = ""
    salvaged: str = ""  # the local variable a crash-surviving check used
    rounded: bool = False  # passed only at the loose tolerance


@dataclass(frozen=True)
class Outcome:
    ok: bool
    note: str = ""
    rounded: bool = False


def _scores(case: Case) -> Array:
    q, k, _ = case.inputs
    return np.asarray(q @ k.T, dtype=np.float64)


def float32_slack(case: Case, found: Array | None, output: bool) -> float:
    """How far float32 arithmetic can put a right attention's weights (or its output) from the
    float64 reference on this case, beyond a few roundings: a score's rounding error is about
    float32's epsilon times the size of the products it sums (|Q| |K|ᵀ / √d_k), and a weight
    moves by about that much relative to itself (the output: times |V|). Negligible at scores
    near 1; about 1e-4 with logits around 1e3, where right float32 code differs from float64 by
    more than SINGLE_RTOL (measured: at most a tenth of this bound over 30,000 draws; the
    scores are often computed in float32 and the rest in float64, since `/ np.sqrt(d)` promotes).
    None for values rounded to a few decimals: those stay `rounded`."""
    if found is None or decimally_rounded(found):
        return 0.0
    q, k, v = case.inputs
    with np.errstate(all="ignore"):
        products = float(np.max(np.abs(q) @ np.abs(k).T, initial=0.0)) / np.sqrt(q.shape[-1])
        values = float(np.max(np.abs(v), initial=0.0)) if output else 1.0
    slack = FLOAT32_EPS * products * values
    return slack if np.isfinite(slack) else 0.0


def _matches(actual: Array | None, expected: Array, config: CodeCheckConfig, what: str,
             slack: float = 0.0) -> Outcome:
    if actual is None:
        return Outcome(False, f"no {what} to compare")
    if actual.shape != expected.shape:
        return Outcome(False, f"{what} has shape {actual.shape}, expected {expected.shape}")
    if close(actual, expected, config.rtol, config.atol):
        return Outcome(True)
    if config.rtol <= SINGLE_RTOL and close_single(actual, expected, slack):
        # float32 arithmetic is right, not rounded (unless the item asks for looser anyway)
        return Outcome(True, f"the {what} matches to single precision (float32)")
    if close(actual, expected, LOOSE_RTOL, LOOSE_ATOL):
        return Outcome(True, f"the {what} matches only to about 1e-3 (rounded?)", rounded=True)
    if not np.isfinite(actual).all():
        return Outcome(False, f"the {what} contains inf or nan")
    verb = "do" if what.endswith("s") else "does"
    return Outcome(False, f"the {what} {verb} not match the reference")


def _interface(obs: Observation, config: CodeCheckConfig) -> Outcome:
    spec = obs.case.spec
    if obs.adaptations:
        return Outcome(False, obs.problem or "the function was only gradable through an "
                       "adapted interface")
    if obs.output is None or obs.weights is None:
        return Outcome(False, obs.problem or "no (output, weights) pair")
    if obs.output.shape != (spec.n, spec.d_v):
        return Outcome(False, f"output has shape {obs.output.shape}, expected "
                       f"{(spec.n, spec.d_v)}")
    if obs.weights.shape != (spec.n, spec.m):
        return Outcome(False, f"weights has shape {obs.weights.shape}, expected "
                       f"{(spec.n, spec.m)}")
    return Outcome(True)


def _scaling(obs: Observation, config: CodeCheckConfig) -> Outcome:
    weights, expected = obs.weights, obs.case.expected[1]
    if weights is None or weights.shape != expected.shape:
        return _matches(weights, expected, config, "weights")
    sums = weights.sum(axis=-1, keepdims=True)
    if not finite(weights) or not (sums > 0).all():
        return Outcome(False, "the weights are not finite and positive, so their scale cannot "
                       "be read")
    outcome = _matches(weights / sums, expected, config, "renormalised weights",
                       float32_slack(obs.case, weights, False))
    if not outcome.ok:
        return Outcome(False, "even with each row renormalised the weights differ from "
                       "softmax(QKᵀ/√d_k)")
    return outcome


def _row_softmax(obs: Observation, config: CodeCheckConfig) -> Outcome:
    weights = obs.weights
    spec = obs.case.spec
    if weights is None or weights.shape != (spec.n, spec.m) or not finite(weights):
        return Outcome(False, "the weights are not a finite (n, m) matrix")
    if (weights < -config.atol).any():
        return Outcome(False, "some weights are negative")
    sums = weights.sum(axis=-1)
    rounded = False
    # float32 weights: each is rounded to float32 (a few of its epsilon per row's sum)
    limit = 1e-6 + (weights.shape[-1] * FLOAT32_EPS if is_float32(weights) else 0.0)
    if np.abs(sums - 1).max() > limit:
        if np.abs(sums - 1).max() > LOOSE_ATOL:
            return Outcome(False, "the rows do not sum to 1")
        rounded = True
    found = relation(weights, _scores(obs.case), ~obs.case.hide)
    if found.holds is False:
        return Outcome(False, found.note)
    return Outcome(True, "rows sum to 1 only to about 1e-3" if rounded else "", rounded)


def _weights(obs: Observation, config: CodeCheckConfig) -> Outcome:
    return _matches(obs.weights, obs.case.expected[1], config, "weights",
                    float32_slack(obs.case, obs.weights, False))


def _output(obs: Observation, config: CodeCheckConfig) -> Outcome:
    return _matches(obs.output, obs.case.expected[0], config, "output",
                    float32_slack(obs.case, obs.output, True))


def _stable(obs: Observation, config: CodeCheckConfig) -> Outcome:
    arrays = [a for a in (obs.output, obs.weights) if a is not None]
    if obs.output is None:
        return Outcome(False, obs.problem or "no output")
    if not all(finite(a) for a in arrays):
        return Outcome(False, "the result contains inf or nan (exp overflowed: subtract each "
                       "row's max)")
    found = _output(obs, config)
    if found.ok and obs.weights is not None:
        weights = _weights(obs, config)
        return weights if not weights.ok or weights.rounded else found
    return found


def causal_weights(weights: Array | None, case: Case) -> Outcome:
    n, m = case.spec.n, case.spec.m
    if weights is None:
        return Outcome(False, "no weights to look at")
    if weights.shape != (n, m):
        return Outcome(False, f"weights has shape {weights.shape}, expected {(n, m)}")
    if not finite(weights):
        return Outcome(False, "the weights contain inf or nan")
    leak = np.abs(weights[case.hide])
    if leak.size and leak.max() > CAUSAL_ZERO:
        return Outcome(False, "a future position gets weight")
    past = np.where(case.hide, 0.0, np.abs(weights)).sum(axis=-1)
    if (past <= 0).any():
        return Outcome(False, "some row puts no weight on any allowed position")
    found = relation(weights, _scores(case), ~case.hide, column_factors=True)
    if found.holds is False:
        return Outcome(False, found.note)
    return Outcome(True)


def _causal(obs: Observation, config: CodeCheckConfig) -> Outcome:
    return causal_weights(obs.weights if obs.weights is not None else obs.probe, obs.case)


CHECKS: dict[CheckName, Callable[[Observation, CodeCheckConfig], Outcome]] = {
    "interface": _interface, "scaling": _scaling, "row_softmax": _row_softmax,
    "weights": _weights, "output": _output, "stable": _stable, "causal": _causal,
}


def salvaged_weights(obs: Observation, names: tuple[str, ...]) -> tuple[str, Array] | None:
    """A weights-like local variable of the crashed call (shape (n, m), by its name)."""
    call = obs.call
    if call is None or not call.salvage:
        return None
    shape = (obs.case.spec.n, obs.case.spec.m)
    for name in names:
        array = call.salvage.get(name)
        converted = as_float(array) if array is not None else None
        if converted is not None and converted.shape == shape:
            return name, converted
    return None


def _crashed(obs: Observation) -> bool:
    return obs.call is None or not obs.call.ok


def evaluate(config: CodeCheckConfig, observations: list[Observation]) -> list[CaseVerdict]:
    """One verdict per relevant case (the stability cases for `stable`, the others otherwise)."""
    check = CHECKS[cast(CheckName, config.check)]  # the config validated it against the list
    verdicts: list[CaseVerdict] = []
    for obs in observations:
        if obs.case.spec.stable != (config.check == "stable"):
            continue
        if obs.output is None and obs.weights is None:
            salvaged = salvaged_weights(obs, config.salvage_names) \
                if config.salvage and _crashed(obs) else None
            if salvaged is not None and config.check == "causal":
                # Only weights that are a softmax of the case's scores count (`relation`).
                name, weights = salvaged
                with np.errstate(all="ignore"):
                    found = causal_weights(weights, obs.case)
                verdicts.append(CaseVerdict(obs.case, Verdict.PASS if found.ok else Verdict.FAIL,
                                            found.note, salvaged=name))
            else:
                verdicts.append(CaseVerdict(obs.case, Verdict.CRASH if _crashed(obs)
                                            else Verdict.FAIL, obs.problem))
            continue
        with np.errstate(all="ignore"):
            found = check(obs, config)
        verdicts.append(CaseVerdict(obs.case, Verdict.PASS if found.ok else Verdict.FAIL,
                                    found.note, rounded=found.rounded))
    return verdicts
