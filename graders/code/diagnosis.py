"""Naming the student's bug from whatever is observable: the returned output and weights, the
weights the function used (its output with V = I), or the weights a crashed call had computed;
under whichever interface the function was graded. Known-bug variants are matched first; a
scale that is wrong in a way no variant spells, an overflow only at large logits, and printing
instead of returning are recognised from the results themselves."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graders.code.arrays import Array, finite, relation, same
from graders.code.battery import CaseSpec, Instance, Variant, VariantResult
from graders.code.checks import salvaged_weights
from graders.code.forms import Observation


@dataclass(frozen=True)
class Diagnosis:
    name: str
    feedback: str
    evidence: str  # what matched: "your results match this mistake on 3 inputs", ...


def _differs(result: VariantResult, obs: Observation) -> bool:
    expected_output, expected_weights = obs.case.expected
    return not (same(result.output, expected_output) and same(result.weights, expected_weights))


def _case_match(result: VariantResult | None, obs: Observation, names: tuple[str, ...]
                ) -> tuple[bool | None, bool]:
    """(None: nothing to compare | whether the variant explains the case, used salvage)."""
    pairs: list[tuple[Array | None, Array | None]] = []
    salvaged = False
    if obs.output is not None:
        pairs.append((obs.output, result.output if result else None))
    if obs.weights is not None and obs.weights_from == "returned":
        pairs.append((obs.weights, result.weights if result else None))
    if obs.probe is not None:
        pairs.append((obs.probe, result.probe if result else None))
    if not pairs and obs.call is not None and not obs.call.ok:
        found = salvaged_weights(obs, names)
        if found is not None:
            pairs.append((found[1], result.weights if result else None))
            salvaged = True
    if not pairs:
        return None, False
    return all(same(mine, theirs) for mine, theirs in pairs), salvaged


def _matches(variant: Variant, observations: list[Observation], names: tuple[str, ...]
             ) -> tuple[int, bool]:
    """The best spelling: (distinguishing cases explained, salvage used); 0 when any case
    with something to compare disagrees."""
    best = (0, False)
    for results in variant.spellings:
        matched, used_salvage, failed = 0, False, False
        for obs, result in zip(observations, results, strict=True):
            if obs.case.spec.stable:
                continue  # overflow makes every unstable variant look alike there
            explained, salvaged = _case_match(result, obs, names)
            if explained is None:
                continue
            if not explained:
                failed = True
                break
            if result is not None and _differs(result, obs):
                matched += 1
                used_salvage = used_salvage or salvaged
        if not failed and (matched, used_salvage) > best:
            best = (matched, used_salvage)
    return best


def _scale_names(spec: CaseSpec) -> tuple[tuple[str, float], ...]:
    return (("1 (no scaling)", 1.0), ("d_k", float(spec.d_k)),
            ("√n, the number of queries", float(np.sqrt(spec.n))),
            ("√m, the number of keys", float(np.sqrt(spec.m))), ("√d_v", float(np.sqrt(spec.d_v))))


def _scale(observations: list[Observation]) -> Diagnosis | None:
    """The weights are a row softmax of c·QKᵀ with one wrong c on every case where they are."""
    divisors: list[tuple[float, Observation]] = []
    for obs in observations:
        weights = obs.weights if obs.weights is not None else obs.probe
        if obs.case.spec.stable or weights is None or not finite(weights):
            continue
        sums = weights.sum(axis=-1, keepdims=True)
        if not (sums > 0).all():
            continue
        q, k, _ = obs.case.inputs
        found = relation(weights / sums, q @ k.T, ~obs.case.hide)
        if found.holds and found.scale > 0:
            divisors.append((1.0 / found.scale, obs))
    wrong = [(d, o) for d, o in divisors
             if abs(d - np.sqrt(o.case.spec.d_k)) > 1e-3 * np.sqrt(o.case.spec.d_k)]
    if not wrong or len(wrong) < len(divisors):
        return None
    guesses = [name for index, (name, _) in enumerate(_scale_names(wrong[0][1].case.spec))
               if all(abs(d - _scale_names(o.case.spec)[index][1])
                      <= 1e-3 * max(_scale_names(o.case.spec)[index][1], 1.0)
                      for d, o in wrong)]
    said = f" (it matches dividing by {guesses[0]})" if guesses else ""
    return Diagnosis("wrong_scale", "The scores are scaled by the wrong factor: divide QKᵀ by "
                     "sqrt(d_k), the square root of the query/key dimension (Q.shape[-1])"
                     f"{said}.", f"the weights follow softmax(QKᵀ/c) with c = "
                     f"{', '.join(f'{d:.4g}' for d, _ in wrong[:4])}")


def _unstable(observations: list[Observation]) -> Diagnosis | None:
    big = [o for o in observations if o.case.spec.stable and o.output is not None]
    usual = [o for o in observations if not o.case.spec.stable and o.output is not None]
    if big and usual and all(finite(o.output) for o in usual if o.output is not None) \
            and any(not finite(o.output) for o in big if o.output is not None):
        return Diagnosis("no_max_subtraction", "exp overflows for large scores: the softmax "
                         "does not subtract each row's maximum before exponentiating, so "
                         "large logits give inf/nan.", "the result is finite on ordinary "
                         "inputs and inf/nan with logits around 1e3")
    return None


def diagnose(instance: Instance, observations: list[Observation], printed: str,
             names: tuple[str, ...]) -> list[Diagnosis]:
    found: list[Diagnosis] = []
    for variant in instance.variants:
        count, salvaged = _matches(variant, observations, names)
        if count:
            where = ("the weights your function had computed before it crashed"
                     if salvaged else "your results")
            found.append(Diagnosis(variant.name, variant.feedback,
                                   f"{where} match this mistake on {count} input(s)"))
    if not any("scale" in d.name for d in found):
        scale = _scale(observations)
        if scale is not None:
            found.append(scale)
    unstable = _unstable(observations)
    if unstable is not None:
        found.append(unstable)
    returned = [o for o in observations if o.call is not None and o.call.ok
                and o.call.value is not None]
    if returned and all(o.call is not None and o.call.value is not None
                        and o.call.value.kind == "none" for o in returned) and printed.strip():
        found.append(Diagnosis(
            "print_instead_of_return",
            "The function prints its results instead of returning them: it returns None. "
            "End it with `return output, weights`.",
            f"it returned None on {len(returned)} input(s) and printed output"))
    return found
