"""Calling a student's function as the battery's asked interface says, adapted to the signature
the student wrote (parsed, never run, here), and reading back what it returned as the
reference's named outputs. Every adaptation is named so its rubric share can be applied.

The call: the asked parameters in order, or by name when the student's function has the same
names in another order (`by_name`); a parameter the student added is left out when it has a
default (an argument the asked interface does not have is never supplied to a function that
runs without it) and supplied only when required and listed in the battery's `extras`
(`extra_argument`). With `batched`, the parameters marked `batch` get a leading axis of one
(`batch_dims`).

The reading: a single output as returned, or without an extra leading axis of one
(`extra_leading_axis`) or picked by its shape from a longer tuple (`extra_outputs`); several
outputs in order, or in the order their shapes show (`swapped`), or the first alone
(`output_only`).
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graders.code.draw import DrawnCase
from graders.code.functions import FunctionInstance, Outputs, Raised
from graders.code.spec import FunctionAdaptation, ParameterSpec
from graders.sandbox import Call, CallResult, Construct, Job, StudentError, Value

Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class Parameters:
    """A student's function's parameters, as parsed."""

    positional: tuple[str, ...]
    required: int  # how many of the positional ones have no default
    keyword_only: tuple[tuple[str, bool], ...]  # (name, has a default)
    variadic: bool  # *args or **kwargs


def parameters_of(source: str, function: str) -> Parameters | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found = None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            found = node  # the last definition wins, as when the module runs
    return None if found is None else parameters_from(found)


def parameters_from(found: ast.FunctionDef) -> Parameters:
    args = found.args
    positional = tuple(a.arg for a in (*args.posonlyargs, *args.args))
    keyword_only = tuple((a.arg, d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults,
                                                               strict=True))
    return Parameters(positional, len(positional) - len(args.defaults), keyword_only,
                      args.vararg is not None or args.kwarg is not None)


@dataclass(frozen=True)
class CallPlan:
    keyword: bool  # every asked argument by name
    extras: tuple[tuple[str, str], ...]  # (student's parameter, the size it is given)
    unsupplied: tuple[str, ...]  # required parameters the grader cannot supply
    batched: bool = False
    left_out: tuple[str, ...] = ()  # optional asked parameters the student's function lacks
    # Asked parameters the function declares keyword-only (`def softmax(x, *, temperature)`):
    # passed by their names, as the asked interface's callers would; not an adaptation.
    named: tuple[str, ...] = ()
    # A method's battery: the adaptations its class's constructor was called through.
    constructor: frozenset[FunctionAdaptation] = frozenset()

    @property
    def adaptations(self) -> frozenset[FunctionAdaptation]:
        found: set[FunctionAdaptation] = set(self.constructor)
        if self.keyword:
            found.add("by_name")
        if self.extras:
            found.add("extra_argument")
        if self.batched:
            found.add("batch_dims")
        return frozenset(found)


def plan_call(asked: tuple[str, ...], extras: dict[str, str], signature: Parameters | None,
              optional: frozenset[str] = frozenset()) -> CallPlan:
    if signature is None or signature.variadic:
        return CallPlan(False, (), ())
    names = signature.positional
    everything = set(names) | {n for n, _ in signature.keyword_only}
    # An optional asked parameter the function has no place for is not passed (its default is
    # what the question would pass).
    left_out = tuple(n for i, n in enumerate(asked)
                     if n in optional and n not in everything and i >= len(names))
    asked = tuple(n for n in asked if n not in left_out)
    keyword_only = {n for n, _ in signature.keyword_only}
    named = tuple(n for n in asked if n in keyword_only)
    in_order = tuple(n for n in asked if n not in keyword_only)
    keyword = names[:len(in_order)] != in_order and set(asked) <= everything
    if keyword:
        required_extra = [n for n in names[:signature.required] if n not in asked]
    else:
        required_extra = list(names[len(in_order):signature.required])
    required_extra += [n for n, has_default in signature.keyword_only
                       if not has_default and n not in asked]
    supplied = tuple((n, extras[n]) for n in required_extra if n in extras)
    unsupplied = tuple(n for n in required_extra if n not in extras)
    return CallPlan(keyword, supplied, unsupplied, left_out=left_out, named=named)


@dataclass(frozen=True)
class MethodCall:
    """A method's battery: the class constructed (with its own call plan) before the call."""

    cls: str
    plan: CallPlan


def build_job(instance: FunctionInstance, source: str, function: str, plan: CallPlan,
              method: MethodCall | None = None) -> Job:
    arrays: list[Array] = []
    calls: list[Call] = []
    spec = instance.battery.spec
    generators = {n for n, p in spec.arguments.items() if p.generator}
    for case in instance.cases:
        items: list[int] = []
        seeds: list[int] = []
        args, kwargs = _place(case.inputs, case.sizes, spec.parameters, plan, arrays, items,
                              seeds, generators)
        init = None
        if method is not None:
            init_args, init_kwargs = _place(case.init, case.sizes, spec.init, method.plan,
                                            arrays, items, seeds, generators)
            init = Construct(method.cls, tuple(init_args), tuple(init_kwargs),
                             case.spec.same_instance)
        calls.append(Call(function, tuple(args), tuple(kwargs), tuple(items), init,
                          tuple(seeds)))
    return Job(source=source, arrays=tuple(arrays), calls=tuple(calls),
               timeout_s=instance.battery.timeout_s)


def _place(given: dict[str, Any], sizes: dict[str, int], parameters: dict[str, ParameterSpec],
           plan: CallPlan, arrays: list[Array], items: list[int], seeds: list[int],
           generators: set[str]) -> tuple[list[int], list[tuple[str, int]]]:
    """One call's arguments appended to the job's arrays: (positional, by name) indexes; the
    indexes of scalars go to `items` and of generator seeds to `seeds`."""
    args: list[int] = []
    kwargs: list[tuple[str, int]] = []
    values = [(name, given[name]) for name in parameters
              if name in given and name not in plan.left_out]
    for name, value in (*values, *((n, sizes[s]) for n, s in plan.extras)):
        batch = plan.batched and name in parameters and parameters[name].batch
        array = np.asarray(value)
        if batch:
            array = array.reshape((1, *array.shape))
        if not isinstance(value, np.ndarray):
            items.append(len(arrays))
        if name in generators:
            seeds.append(len(arrays))
        arrays.append(array)
        extra = name not in parameters
        # After a parameter the case leaves out, the rest go by name.
        if plan.keyword or extra or name in plan.named \
                or len(args) != list(parameters).index(name):
            kwargs.append((name, len(arrays) - 1))
        else:
            args.append(len(arrays) - 1)
    return args, kwargs


@dataclass(frozen=True)
class Observed:
    """One case's call, read as the reference's named outputs."""

    case: DrawnCase
    call: CallResult | None
    outputs: dict[str, Array] = field(default_factory=dict)
    adaptations: frozenset[FunctionAdaptation] = frozenset()
    extra_axis: frozenset[str] = frozenset()  # outputs read without an extra leading axis
    problem: str = ""

    @property
    def crashed(self) -> bool:
        return self.call is None or not self.call.ok

    @property
    def error(self) -> StudentError | None:
        return self.call.error if self.call is not None else None

    @property
    def in_init(self) -> bool:
        """The class's constructor raised (a method's battery): the method never ran."""
        return self.call is not None and self.call.in_init


def _arrays(value: Value) -> list[Array | None]:
    if value.kind == "array":
        return [value.array]
    if value.kind == "seq":
        return [item.array if item.kind == "array" else None for item in value.items]
    return []


def _fit(array: Array, shape: tuple[int, ...] | None, drop_axis: bool, batched: bool
         ) -> tuple[Array, bool]:
    """The array, without a leading axis of one where that makes it the expected shape."""
    if shape is None or array.shape == shape:
        return array, False
    if (drop_axis or batched) and array.shape == (1, *shape):
        return array.reshape(shape), True
    return array, False


def read(case: DrawnCase, call: CallResult | None, expected: Outputs | Raised,
         names: tuple[str, ...], allowed: frozenset[FunctionAdaptation], batched: bool,
         not_run: str) -> Observed:
    if call is None:
        return Observed(case, None, problem=not_run)
    if not call.ok or call.value is None:
        error = call.error
        return Observed(case, call, problem=f"raised {error.type}" if error else "raised")
    value = call.value
    found = _arrays(value)
    if not found or all(a is None for a in found):
        return Observed(case, call, problem=f"returned {value.describe()}")
    shapes = {n: a.shape for n, a in expected.items()} if isinstance(expected, dict) else {}
    drop = "extra_leading_axis" in allowed
    adaptations: set[FunctionAdaptation] = set()
    arrays = [a for a in found if a is not None]
    chosen: dict[str, Array] = {}
    if len(names) == 1 or len(arrays) == 1:
        name = names[0]
        if len(arrays) > 1 or (value.kind == "seq" and len(names) == 1 and value.length > 1):
            fitting = [a for a in arrays if _fit(a, shapes.get(name), drop, batched)[0].shape
                       == shapes.get(name)]
            chosen[name] = fitting[0] if fitting else arrays[0]
            adaptations.add("extra_outputs")
        else:
            chosen[name] = arrays[0]
            if len(names) > 1:
                adaptations.add("output_only")
    else:
        taken = arrays[:len(names)]
        if len(arrays) > len(names):
            adaptations.add("extra_outputs")
        order = list(range(len(taken)))
        if shapes and not _shapes_fit(taken, order, names, shapes):
            for permutation in itertools.permutations(order):
                if _shapes_fit(taken, list(permutation), names, shapes):
                    order = list(permutation)
                    adaptations.add("swapped")
                    break
        chosen = {names[i]: taken[j] for i, j in enumerate(order)}
    outputs: dict[str, Array] = {}
    dropped: set[str] = set()
    for name, array in chosen.items():
        fitted, was_dropped = _fit(array, shapes.get(name), drop, batched)
        outputs[name] = fitted
        if was_dropped and not batched:
            dropped.add(name)
            adaptations.add("extra_leading_axis")
    if batched:
        adaptations.add("batch_dims")
    missing = [n for n in names if n not in outputs]
    problem = f"returned no {', '.join(missing)}" if missing else ""
    return Observed(case, call, outputs, frozenset(adaptations), frozenset(dropped), problem)


def _shapes_fit(arrays: list[Array], order: list[int], names: tuple[str, ...],
                shapes: dict[str, tuple[int, ...]]) -> bool:
    return all(arrays[j].shape == shapes.get(names[i]) or
               arrays[j].shape == (1, *shapes.get(names[i], ())) for i, j in enumerate(order))


def observe(instance: FunctionInstance, calls: tuple[CallResult | None, ...], batched: bool,
            not_run: str) -> list[Observed]:
    spec = instance.battery.spec
    allowed = frozenset(n for n, a in spec.adaptations.items() if a.allowed)
    return [read(case, call, expected, instance.battery.outputs, allowed, batched, not_run)
            for case, call, expected in zip(instance.cases, calls, instance.expected,
                                            strict=True)]
