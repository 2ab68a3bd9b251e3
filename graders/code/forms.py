"""Calling the student's function in the forms students actually write, and reading back what
it returned: the parent decides everything here from validated arrays.

Every case is called as asked, `f(Q, K, V)`, and once more with V = I, whose output is the
weights the function used (`output = weights @ V`): that makes the weights observable even when
only the output is returned. A function that insists on an extra (mask) argument is called with
the mask in each convention students use; one that only works on batched inputs is called with
a batch of one. The form that best explains the results is graded, and every departure from the
asked interface is named and costs what the rubric says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from graders.code.arrays import Array, as_float, close, finite, squeeze_batch
from graders.code.battery import MASK_CONVENTIONS, AdaptationName, Case, Instance
from graders.sandbox import Call, CallResult, Job, Value


@dataclass(frozen=True)
class Form:
    """How the function is called: as asked, with a mask in one convention, with d_k, or
    batched."""

    name: str
    mask: str | None = None
    dimension: bool = False  # a required d_k argument, passed as an integer
    batched: int = 0  # leading axes of one added: 1 for (batch, n, d), 2 for (batch, head, n, d)

    @property
    def adaptations(self) -> frozenset[AdaptationName]:
        found: set[AdaptationName] = set()
        if self.mask is not None:
            found.add("mask_argument")
        if self.dimension:
            found.add("extra_argument")
        if self.batched:
            found.add("batch_dims")
        return frozenset(found)


AS_ASKED = Form("as asked")
_DIMENSION = re.compile(r"^(d_?k|dk|d|d_?model|dim|head_?dim|depth|key_?dim)$", re.I)


@dataclass(frozen=True)
class Signature:
    """A function's positional parameters, as parsed (never run) in the parent."""

    names: tuple[str, ...]
    required: int


def forms_for(signature: Signature | None, batched: int = 0) -> list[Form]:
    """The forms to try: as asked; with a mask in every convention when the function needs a
    fourth argument; with d_k when that argument is named like a dimension. `batched`: with
    that many leading axes of one on every input. An optional argument is never passed: the
    asked interface does not have it, and a function that runs without it is graded on what
    it does without it (a causal attention whose mask is optional must mask by itself)."""
    plain = Form("batched" if batched else "as asked", batched=batched)
    masks = [Form(f"with a {name} mask", mask=name, batched=batched)
             for name in MASK_CONVENTIONS]
    if signature is None or len(signature.names) < 4:
        return [plain]
    fourth = signature.names[3]
    if signature.required == 4:
        if _DIMENSION.match(fourth):
            return [Form("with d_k", dimension=True, batched=batched)]
        return masks
    return [plain]


@dataclass(frozen=True)
class Slot:
    case: int
    form: Form
    probe: bool


def _lift(array: Array, form: Form) -> Array:
    return array.reshape((1,) * form.batched + array.shape)


def build_job(instance: Instance, source: str, function: str, forms: list[Form],
              timeout_s: float | None) -> tuple[Job, list[Slot]]:
    arrays: list[Array] = []
    calls: list[Call] = []
    slots: list[Slot] = []

    def add(array: Array) -> int:
        arrays.append(array)
        return len(arrays) - 1

    for index, case in enumerate(instance.cases):
        q, k, v = case.inputs
        for form in forms:
            base = [add(_lift(q, form)), add(_lift(k, form))]
            mask = [add(_lift(case.mask(form.mask), form))] if form.mask is not None else []
            if form.dimension:
                mask = [add(np.array(case.spec.d_k))]
            for probe, values in ((False, v), (True, case.identity)):
                calls.append(Call(function, (*base, add(_lift(values, form)), *mask)))
                slots.append(Slot(index, form, probe))
    return Job(source=source, arrays=tuple(arrays), calls=tuple(calls),
               timeout_s=timeout_s), slots


@dataclass(frozen=True)
class Reading:
    """One call's return value, read as (output, weights)."""

    output: Array | None
    weights: Array | None
    shape: str  # pair, swapped, output_only, none, other, crash
    batched: bool
    problem: str


def _array(value: Value) -> Array | None:
    return as_float(value.array) if value.kind == "array" and value.array is not None else None


def _is_weights(array: Array, case: Case) -> bool:
    """Rows non-negative and summing to 1: how weights look when shapes cannot tell."""
    if array.shape != (case.spec.n, case.spec.m) or not finite(array):
        return False
    return bool((array >= -1e-9).all()) and close(array.sum(axis=-1), np.ones(case.spec.n),
                                                  1e-3, 1e-3)


def _order(first: Array, second: Array, case: Case, values: Array) -> bool:
    """True when (first, second) is (weights, output): by the relation output = weights @ V
    first, then by shapes, then by which one looks like weights."""
    n, m, d_v = case.spec.n, case.spec.m, values.shape[-1]
    with np.errstate(all="ignore"):
        if second.shape == (n, m) and close(second @ values, first, 1e-4, 1e-6):
            return False  # as asked: the benefit of the doubt goes to the asked order
        if first.shape == (n, m) and close(first @ values, second, 1e-4, 1e-6):
            return True
    if (n, m) != (n, d_v):
        if first.shape == (n, m) and second.shape == (n, d_v):
            return True
        if first.shape == (n, d_v) and second.shape == (n, m):
            return False
    return _is_weights(first, case) and not _is_weights(second, case)


def read(call: CallResult | None, case: Case, values: Array, not_run: str) -> Reading:
    if call is None:
        return Reading(None, None, "crash", False, not_run)
    if not call.ok or call.value is None:
        error = call.error
        what = f"{error.type}: {error.message}" if error is not None else "an error"
        return Reading(None, None, "crash", False, f"raised {what}")
    value = call.value
    if value.kind == "none":
        return Reading(None, None, "none", False, "returned None, not (output, weights)")
    if value.kind == "array":
        array = _array(value)
        if array is None:
            return Reading(None, None, "other", False, f"returned {value.describe()}")
        array, batched = squeeze_batch(array)
        return Reading(array, None, "output_only", batched,
                       f"returned one array of shape {value.shape}, not (output, weights)")
    if value.kind == "seq":
        found = [a for a in (_array(item) for item in value.items) if a is not None]
        if len(found) >= 2:
            (first, b1), (second, b2) = squeeze_batch(found[0]), squeeze_batch(found[1])
            if _order(first, second, case, values):
                return Reading(second, first, "swapped", b1 or b2,
                               "returned (weights, output): the order is reversed")
            return Reading(first, second, "pair", b1 or b2, "")
        if len(found) == 1:
            array, batched = squeeze_batch(found[0])
            return Reading(array, None, "output_only", batched,
                           f"returned {value.describe()} holding one array")
    return Reading(None, None, "other", False,
                   f"returned {value.describe()}, not (output, weights)")


@dataclass(frozen=True)
class Observation:
    """What is known of one case under the chosen form."""

    case: Case
    call: CallResult | None  # the call with the real V
    output: Array | None
    weights: Array | None
    weights_from: str  # "returned", "probe" (the output with V = I) or ""
    probe: Array | None  # the output with V = I: the weights the function used
    adaptations: frozenset[AdaptationName]
    problem: str


def observe(case: Case, form: Form, main: CallResult | None, probe: CallResult | None,
            not_run: str) -> Observation:
    reading = read(main, case, case.inputs[2], not_run)
    probed = read(probe, case, case.identity, not_run)
    adaptations = set(form.adaptations)
    if reading.batched or probed.batched:
        adaptations.add("batch_dims")
    probe_weights = probed.output if probed.output is not None and probed.output.shape == (
        case.spec.n, case.spec.m) else None
    weights, source = reading.weights, "returned" if reading.weights is not None else ""
    if reading.shape == "swapped":
        adaptations.add("swapped_pair")
    if reading.shape == "output_only" and reading.output is not None:
        adaptations.add("output_only")
        if probe_weights is not None:
            weights, source = probe_weights, "probe"
            adaptations.add("derived_weights")
    return Observation(case, main, reading.output, weights, source, probe_weights,
                       frozenset(adaptations), reading.problem)


def _score(observations: list[Observation], causal: bool) -> tuple[int, int, int]:
    usable = sum(o.output is not None for o in observations)
    hidden = 0
    if causal:
        for o in observations:
            w = o.weights if o.weights is not None else o.probe
            if w is not None and w.shape == o.case.hide.shape and finite(w) \
                    and np.abs(w[o.case.hide]).max(initial=0.0) <= 1e-12:
                hidden += 1
    matches = sum(close(o.output, o.case.expected[0], 1e-3, 1e-3) for o in observations)
    return usable, hidden, matches


def choose(instance: Instance, slots: list[Slot], calls: tuple[CallResult | None, ...],
           not_run: str) -> tuple[Form, list[Observation]]:
    """The form that explains the most: results on the most cases, then (causal questions)
    causal on the most, then matching the reference on the most; the first listed on a tie."""
    by_form: dict[Form, dict[tuple[int, bool], CallResult | None]] = {}
    for slot, call in zip(slots, calls, strict=True):
        by_form.setdefault(slot.form, {})[(slot.case, slot.probe)] = call
    best: tuple[tuple[int, int, int], Form, list[Observation]] | None = None
    for form, found in by_form.items():
        observations = [observe(case, form, found.get((i, False)), found.get((i, True)), not_run)
                        for i, case in enumerate(instance.cases)]
        score = _score(observations, instance.spec.mask == "causal")
        if best is None or score > best[0]:
            best = (score, form, observations)
    assert best is not None
    return best[1], best[2]
