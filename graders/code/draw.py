"""Drawing one case's sizes and inputs from a battery spec (graders.code.spec), in the trusted
process. Every draw comes from one generator seeded by the submission's secret seed and the
case's position (or by the case's own `seed`: a fixed edge case), so the same answer regraded
with the same secret gets the same inputs, and no table of answers prepared for other inputs
can pass."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graders.code.spec import CaseSpec, DimSpec, FunctionBatterySpec, Literal_, ParameterSpec, Term

Array = np.ndarray[Any, Any]
MAX_ELEMENTS = 1 << 20  # one drawn input, at most this many elements


class DrawError(ValueError):
    """A case cannot be drawn as written (a tie with no solution, an empty range): the rubric's
    problem, reported by `rubric validate`."""


@dataclass(frozen=True)
class DrawnCase:
    spec: CaseSpec
    name: str  # the case's name, numbered when it repeats (staff only: it may state sizes)
    index: int
    sizes: dict[str, int]
    inputs: dict[str, Any]  # parameter -> array or Python scalar, in the asked order
    # A method's battery: the constructor's arguments (a generator's as its seed), in order.
    init: dict[str, Any] = field(default_factory=dict)


def _term(term: Term, sizes: dict[str, int]) -> int:
    return term if isinstance(term, int) else sizes[term]


def _candidates(dim: DimSpec, sizes: dict[str, int]) -> list[int]:
    if dim.range is not None:
        found = list(range(dim.range[0], dim.range[1] + 1))
    else:
        found = list(dim.choices or ())
    if dim.multiple_of is not None:
        base = _term(dim.multiple_of, sizes)
        found = [v for v in found if base and v % base == 0]
    if dim.parity is not None:
        found = [v for v in found if v % 2 == (dim.parity == "odd")]
    return found


def draw_size(name: str, dim: DimSpec | int, sizes: dict[str, int],
              rng: np.random.Generator, above_one: bool = False) -> int:
    """`above_one`: a size of 1 only where nothing larger is allowed (see `draw_case`)."""
    if isinstance(dim, int):
        return dim
    if dim.value is not None:
        return dim.value
    if dim.product is not None:
        return math.prod(_term(t, sizes) for t in dim.product)
    if dim.sum is not None:
        return sum(_term(t, sizes) for t in dim.sum)
    if dim.quotient is not None:
        top, bottom = (_term(t, sizes) for t in dim.quotient)
        if bottom == 0 or top % bottom:
            raise DrawError(f"size {name!r}: {top} is not divisible by {bottom}")
        return top // bottom
    found = _candidates(dim, sizes)
    if not found:
        raise DrawError(f"size {name!r}: no value satisfies its range and ties "
                        f"(sizes so far: {sizes})")
    if above_one and any(v > 1 for v in found):
        found = [v for v in found if v > 1]
    return int(found[int(rng.integers(len(found)))])


def _array(name: str, parameter: ParameterSpec, sizes: dict[str, int], scale: float,
           rng: np.random.Generator) -> Array:
    shape = tuple(_term(t, sizes) for t in parameter.array or ())
    if any(n < 0 for n in shape) or math.prod(shape) > MAX_ELEMENTS:
        raise DrawError(f"parameter {name!r}: shape {shape} is negative or too large")
    values: Array
    if parameter.distribution == "normal":
        values = rng.standard_normal(shape) * parameter.scale * scale
    elif parameter.distribution == "uniform":
        values = rng.uniform(parameter.low, parameter.high, size=shape) * scale
    else:
        values = rng.integers(int(parameter.low), int(parameter.high) + 1, size=shape)
    return np.asarray(values).astype(parameter.dtype)


def _fixed(value: Literal_, parameter: ParameterSpec) -> Any:
    """A fixed value as the function receives it: a list of integers given to a parameter
    that is no drawn array (a pair of ids, axes, a shape: what a handout writes `(a, b)`) as a
    tuple, so `(x, y) == pair` compares tuples; any other list as an array."""
    if not isinstance(value, list):
        return value
    if parameter.array is None and all(type(v) is int for v in value):
        return tuple(value)
    return np.asarray(value)


def draw_case(spec: FunctionBatterySpec, case: CaseSpec, name: str, index: int, seed: int,
              adjust: Any = None, kept: dict[str, int] | None = None,
              last_repeat: bool = False) -> DrawnCase:
    """`kept`: the sizes of the case before, for a case calling the instance it built again
    (`same_instance`: the instance was made for them). `last_repeat`: the last of a repeated
    case's draws, which draws no size of 1 where its range or choices allow more: an axis of
    size 1 hides a reduction over the wrong axis (a mean over the batch of one row is that row),
    so each repeated case tries the question with every drawn axis longer than one at least
    once."""
    if case.seed is None:
        rng = np.random.default_rng([seed, index])
    else:  # fixed for everyone; a repeated fixed case differs by its position
        rng = np.random.default_rng(case.seed if case.repeat == 1 else [case.seed, index])
    sizes: dict[str, int] = dict(kept or {})
    dims: dict[str, DimSpec | int] = {} if kept is not None else {**spec.dims, **case.dims}
    for dim_name, dim in dims.items():
        try:
            sizes[dim_name] = draw_size(dim_name, dim, sizes, rng, last_repeat)
        except KeyError as exc:
            raise DrawError(f"size {dim_name!r} uses {exc} before it is drawn") from exc
    init = _draw_arguments(spec.init, case, sizes, rng)
    inputs = _draw_arguments(spec.parameters, case, sizes, rng)
    if adjust is not None:
        inputs = dict(adjust(dict(inputs), dict(sizes), rng))
    return DrawnCase(case, name, index, sizes, inputs, init)


def _draw_arguments(parameters: dict[str, ParameterSpec], case: CaseSpec, sizes: dict[str, int],
                    rng: np.random.Generator) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    for param, parameter in parameters.items():
        if param in case.omit or (parameter.default_none and param not in case.values):
            continue
        if parameter.generator:
            inputs[param] = int(rng.integers(2**31))
        elif param in case.values:
            inputs[param] = _fixed(case.values[param], parameter)
        elif parameter.value is not None:
            inputs[param] = _fixed(parameter.value, parameter)
        elif parameter.size is not None:
            inputs[param] = sizes[parameter.size]
        else:
            inputs[param] = _array(param, parameter, sizes, case.scale.get(param, 1.0), rng)
    return inputs


def expand(spec: FunctionBatterySpec) -> list[tuple[CaseSpec, str, bool]]:
    """Every case as many times as it repeats, named `name #k` when it does, with whether it is
    a repeated case's last draw."""
    found: list[tuple[CaseSpec, str, bool]] = []
    for case in spec.cases:
        for k in range(case.repeat):
            repeated = case.repeat > 1
            found.append((case, f"{case.name} #{k + 1}" if repeated else case.name,
                          repeated and k == case.repeat - 1))
    return found
