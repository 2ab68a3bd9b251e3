"""Attention batteries written in the general format: a battery whose parameters are
Q (n, d_k), K (m, d_k), V (m, d_v), whose reference returns `[output, weights]` and whose checks
are the attention built-ins (`attention: scaling`, ...). Such a battery is graded by the
attention engine (graders.code.forms, checks, diagnosis): it observes the weights even when only
the output is returned (the output with V = I), tries the mask conventions students use, salvages
the weights of a crashed call and relates the weights to the case's own scores, none of which
a general check can do. This module reads the general form into that engine's spec; the draws
are the same (one generator per case, Q, K, V drawn in that order, Q times the case's scale).

A case in group `stable` is a stability case: every row's largest scaled score is drawn between
the case's Q scale and twice that. The `stable` check looks at those cases, every other check at
the rest.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from graders.code.spec import Adaptation, DimSpec, FunctionBatterySpec

STABLE_GROUP = "stable"
_SHAPES = {"Q": ("n", "d_k"), "K": ("m", "d_k"), "V": ("m", "d_v")}
# The general names of the adaptations the attention engine knows, and its own names.
_ADAPTATIONS = {"swapped": "swapped_pair", "output_only": "output_only",
                "derived_weights": "derived_weights", "mask_argument": "mask_argument",
                "extra_argument": "extra_argument", "batch_dims": "batch_dims",
                "rounded": "rounded"}


class AttentionFormError(ValueError):
    """The battery uses attention checks but is not attention-shaped."""


def _size(case_dims: dict[str, DimSpec | int], dims: dict[str, DimSpec | int], name: str,
          case: str) -> int:
    value = case_dims.get(name, dims.get(name))
    if isinstance(value, DimSpec) and value.value is not None:
        value = value.value
    if not isinstance(value, int):
        raise AttentionFormError(f"case {case!r}: an attention battery fixes {name} in every "
                                 "case (an integer)")
    return value


def legacy_spec(spec: FunctionBatterySpec) -> dict[str, Any]:
    """The attention engine's battery spec (graders.code.battery.BatterySpec, as data) for a
    general battery whose checks are all attention built-ins."""
    if list(spec.parameters) != ["Q", "K", "V"] or any(
            p.array is None or tuple(p.array) != _SHAPES[name] or p.distribution != "normal"
            or p.scale != 1.0 or p.dtype != "float64"
            for name, p in spec.parameters.items()):
        raise AttentionFormError("attention checks need the parameters Q: [n, d_k], K: [m, d_k], "
                                 "V: [m, d_v], float64 normal arrays")
    if spec.reference.outputs != ("output", "weights"):
        raise AttentionFormError("attention checks need the reference's outputs "
                                 "[output, weights]")
    unsupported = sorted(n for n in spec.adaptations if n not in _ADAPTATIONS)
    if unsupported:
        raise AttentionFormError(f"the attention engine does not make the adaptations "
                                 f"{unsupported}")
    for name, check in spec.checks.items():
        if check.attention is None:
            raise AttentionFormError(f"check {name!r}: an attention battery's checks are all "
                                     "attention built-ins")
        wanted = (STABLE_GROUP,) if check.attention == "stable" else tuple(
            sorted({c.group for c in spec.cases} - {STABLE_GROUP}))
        if tuple(sorted(check.groups)) != wanted:
            raise AttentionFormError(f"check {name!r} must look at the groups {list(wanted)}")
    cases = []
    for case in spec.cases:
        if case.repeat != 1 or case.values or case.omit or case.adjust or \
                set(case.scale) - {"Q"}:
            raise AttentionFormError(f"case {case.name!r}: an attention case sets only its "
                                     "sizes, a seed, a group and a scale of Q")
        sizes = {n: _size(case.dims, spec.dims, n, case.name) for n in ("n", "m", "d_k", "d_v")}
        entry: dict[str, Any] = {"name": case.name, **sizes,
                                 "logit_scale": case.scale.get("Q", 1.0),
                                 "stable": case.group == STABLE_GROUP}
        if case.seed is not None:
            entry["seed"] = case.seed
        cases.append(entry)
    adaptations: dict[str, Adaptation] = {
        _ADAPTATIONS[n]: a for n, a in spec.adaptations.items()}
    return {
        "function": spec.function, "module": spec.module,
        "reference": spec.reference.function, "variants": spec.variants,
        "timeout_s": spec.timeout_s, "mask": spec.mask,
        "adaptations": {n: {"allowed": a.allowed, "credit": str(Fraction(a.credit))}
                        for n, a in adaptations.items()},
        "cases": cases,
    }


def check_names(spec: FunctionBatterySpec) -> dict[str, str]:
    """The battery's check names -> the attention built-in each one is."""
    return {name: check.attention for name, check in spec.checks.items()
            if check.attention is not None}
