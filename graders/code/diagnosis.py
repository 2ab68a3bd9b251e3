"""Naming the student's bug: compare their results with the known-bug variants' results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from graders.code.battery import Battery, Pair, Variant
from graders.code.checks import CaseRun

Array = np.ndarray[Any, Any]
RTOL, ATOL = 1e-5, 1e-8


@dataclass(frozen=True)
class Diagnosis:
    name: str
    feedback: str
    evidence: str  # what matched: "weights and output on 3 inputs", "weights computed before..."


def _same(a: Array, b: Array) -> bool:
    """allclose with NaN equal to NaN (a bug's NaNs are part of its signature)."""
    if a.shape != b.shape:
        return False
    with np.errstate(invalid="ignore"):
        close = np.abs(a - b) <= ATOL + RTOL * np.abs(b)
    if close.all():
        return True
    return bool((close | (np.isnan(a) & np.isnan(b)) | (a == b)).all())


def _student_weights(run: CaseRun, names: tuple[str, ...]) -> tuple[Array | None, bool]:
    if run.pair is not None:
        return run.pair[1], False
    if run.call is not None and run.call.salvage:
        for name in names:
            if name in run.call.salvage:
                return np.asarray(run.call.salvage[name], dtype=np.float64), True
    return None, False


def _matches(variant: Variant, runs: list[CaseRun], names: tuple[str, ...]) -> tuple[int, bool]:
    """The best match over the variant's spellings."""
    return max((_matches_spelling(s, runs, names) for s in variant.spellings), default=(0, False))


def _matches_spelling(results: tuple[Pair | None, ...], runs: list[CaseRun],
                      names: tuple[str, ...]) -> tuple[int, bool]:
    """(number of distinguishing cases matched, whether salvaged arrays were used); 0 when any
    comparable case disagrees."""
    matched = 0
    used_salvage = False
    for index, run in enumerate(runs):
        if run.case.spec.stable:
            continue  # overflow makes every unstable variant look alike there
        result = results[index]
        weights, salvaged = _student_weights(run, names)
        if weights is None:
            continue
        if result is None:
            return 0, False
        if not _same(weights, result[1]):
            return 0, False
        if run.pair is not None and not _same(run.pair[0], result[0]):
            return 0, False
        if not _same(result[1], run.case.expected[1]):
            matched += 1
            used_salvage = used_salvage or salvaged
    return matched, used_salvage


def diagnose(battery: Battery, runs: list[CaseRun], output: str,
             names: tuple[str, ...]) -> list[Diagnosis]:
    found: list[Diagnosis] = []
    for variant in battery.variants:
        count, salvaged = _matches(variant, runs, names)
        if count:
            where = ("the weights your function had computed before it crashed"
                     if salvaged else "your results")
            found.append(Diagnosis(variant.name, variant.feedback,
                                   f"{where} match this mistake on {count} input(s)"))
    returned = [r for r in runs if r.call is not None and r.call.ok and r.call.value is not None]
    if returned and all(r.call is not None and r.call.value is not None
                        and r.call.value.kind == "none" for r in returned) and output.strip():
        found.append(Diagnosis(
            "print_instead_of_return",
            "The function prints its results instead of returning them: it returns None. "
            "End it with `return output, weights`.",
            f"it returned None on {len(returned)} input(s) and printed output"))
    return found
