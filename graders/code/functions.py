"""A battery for any NumPy function (graders.code.spec), built in the trusted process: its module
imported, the reference run on every case, the known-bug variants run when a diagnosis needs
them. The student's function never runs here, only in the sandbox.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import ValidationError

from graders.code.arrays import as_float, same
from graders.code.battery import BatteryError, load_battery, load_module
from graders.code.draw import DrawError, DrawnCase, draw_case, expand
from graders.code.spec import FunctionBatterySpec, is_function_battery, uses_attention_checks
from graders.code.spec_errors import spec_problems
from graders.sandbox.protocol import sorted_table

Array = np.ndarray[Any, Any]
Outputs = dict[str, Array]


@dataclass(frozen=True)
class Raised:
    """A trusted function (reference or variant) raised on a case."""

    type: str
    message: str


def describe_inputs(inputs: dict[str, Any]) -> str:
    """Arguments as the staff (and `rubric validate`) read them: scalars by value, arrays by
    dtype and shape."""
    parts = []
    for name, value in inputs.items():
        if isinstance(value, np.ndarray):
            parts.append(f"{name}=<{value.dtype} array {tuple(value.shape)}>")
        else:
            parts.append(f"{name}={value!r}")
    return ", ".join(parts)


def _as_array(value: Any) -> Array:
    """A trusted result as an array; a dict keyed by numbers or by tuples of numbers, as the
    table of its entries the sandbox makes of a student's (graders.sandbox.protocol)."""
    if isinstance(value, dict):
        rows = [[*(key if isinstance(key, tuple) else (key,)), item]
                for key, item in value.items()]
        if all(isinstance(part, int | float | np.number) for row in rows for part in row) \
                and len({len(row) for row in rows}) <= 1:
            table = np.asarray(rows) if rows else np.zeros((0, 0))
            return sorted_table(table)
    return np.asarray(value)


def named_outputs(value: Any, names: tuple[str, ...]) -> Outputs:
    """A trusted function's return value, named as the reference's outputs."""
    if len(names) == 1:
        return {names[0]: _as_array(value)}
    if not isinstance(value, tuple | list) or len(value) != len(names):
        raise TypeError(f"returned {type(value).__name__}, not a tuple of {len(names)} "
                        f"({', '.join(names)})")
    return {name: _as_array(item) for name, item in zip(names, value, strict=True)}


def _copied(inputs: dict[str, Any], generators: frozenset[str]) -> dict[str, Any]:
    return {k: np.random.default_rng(v) if k in generators else
            v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()}


def run_trusted(fn: Callable[..., Any], case: DrawnCase, names: tuple[str, ...],
                generators: frozenset[str] = frozenset()) -> Outputs | Raised:
    with np.errstate(all="ignore"):
        try:
            return named_outputs(fn(**_copied(case.inputs, generators)), names)
        except Exception as exc:
            return Raised(type(exc).__name__, " ".join(str(exc).split())[:300])


def run_cases(target: Callable[..., Any], method: str | None, cases: tuple[DrawnCase, ...],
              names: tuple[str, ...], generators: frozenset[str] = frozenset()
              ) -> tuple[Outputs | Raised, ...]:
    """A trusted function on every case; or, with `method`, a trusted class constructed with
    each case's `init` (or kept from the case before, `same_instance`) and its method called."""
    if method is None:
        return tuple(run_trusted(target, c, names, generators) for c in cases)
    results: list[Outputs | Raised] = []
    built: Any = None
    for case in cases:
        if not case.spec.same_instance or built is None:
            with np.errstate(all="ignore"):
                try:
                    built = target(**_copied(case.init, generators))
                except Exception as exc:
                    built = None
                    results.append(Raised(type(exc).__name__, "in __init__: " + " ".join(
                        str(exc).split())[:300]))
                    continue
        bound = getattr(built, method, None)
        if not callable(bound):
            results.append(Raised("AttributeError", f"no method {method!r}"))
            continue
        results.append(run_trusted(bound, case, names, generators))
    return tuple(results)


@dataclass(frozen=True)
class FunctionVariant:
    name: str
    feedback: str
    # One tuple per spelling of the mistake, each with one result per case.
    spellings: tuple[tuple[Outputs | Raised, ...], ...]


@dataclass
class FunctionInstance:
    """A battery with its cases drawn for one submission, and the reference's results."""

    battery: FunctionBattery
    seed: int
    cases: tuple[DrawnCase, ...]
    expected: tuple[Outputs | Raised, ...]

    @cached_property
    def variants(self) -> tuple[FunctionVariant, ...]:
        """Computed only when a diagnosis needs them."""
        return tuple(
            FunctionVariant(name, feedback, tuple(self.battery.run(fn, self.cases)
                                                  for fn in functions))
            for name, feedback, functions in self.battery.variant_table)

    @property
    def function(self) -> str:
        return self.battery.spec.function

    @cached_property
    def value_shaped(self) -> frozenset[str]:
        """The outputs whose shape the input's values decide, not its sizes alone (a merged or
        filtered sequence, a dict's table): the reference, run again on every case with each
        array's entries shuffled, returns another shape on some case. Computed only when an
        interface check meets a shape it did not expect."""
        again = self.battery.run(self.battery.reference,
                                 tuple(_shuffled(case) for case in self.cases))
        return frozenset(name for before, after in zip(self.expected, again, strict=True)
                         if isinstance(before, dict) and isinstance(after, dict)
                         for name, array in before.items()
                         if name in after and after[name].shape != array.shape)


def _shuffled(case: DrawnCase) -> DrawnCase:
    """The case with each array's entries in another order, a float's signs flipped at random
    (a count of positives changes, a mean or a product's shape does not)."""
    rng = np.random.default_rng(case.index)

    def shuffled(value: Array) -> Array:
        moved = rng.permutation(value.ravel()).reshape(value.shape)
        if value.dtype.kind == "f":
            moved = moved * rng.choice(np.array([-1.0, 1.0], dtype=value.dtype), value.shape)
        return moved.astype(value.dtype)

    inputs = {name: shuffled(value) if isinstance(value, np.ndarray) and value.size > 1
              else value for name, value in case.inputs.items()}
    return replace(case, inputs=inputs)


@dataclass(frozen=True)
class FunctionBattery:
    path: Path
    spec: FunctionBatterySpec
    reference: Callable[..., Any]
    checks: dict[str, Callable[..., Any]]
    adjusters: dict[str, Callable[..., Any]]
    variant_table: tuple[tuple[str, str, tuple[Callable[..., Any], ...]], ...]

    @property
    def function(self) -> str:
        return self.spec.function

    @property
    def timeout_s(self) -> float | None:
        return self.spec.timeout_s

    @property
    def outputs(self) -> tuple[str, ...]:
        return self.spec.reference.outputs

    @property
    def method(self) -> str | None:
        """A class's method: the name called on the instance (the reference's, and the asked
        one unless the battery names another)."""
        return self.spec.reference.function.partition(".")[2] or None

    def run(self, target: Callable[..., Any], cases: tuple[DrawnCase, ...]
            ) -> tuple[Outputs | Raised, ...]:
        generators = frozenset(n for n, p in self.spec.arguments.items() if p.generator)
        return run_cases(target, self.method, cases, self.outputs, generators)

    def draw(self, seed: int) -> tuple[DrawnCase, ...]:
        drawn: list[DrawnCase] = []
        for index, (case, name, last_repeat) in enumerate(expand(self.spec)):
            kept = drawn[-1].sizes if case.same_instance else None
            drawn.append(draw_case(self.spec, case, name, index, seed,
                                   self.adjusters.get(case.adjust) if case.adjust else None,
                                   kept, last_repeat))
        return tuple(drawn)

    def instance(self, seed: int) -> FunctionInstance:
        try:
            cases = self.draw(seed)
        except DrawError as exc:
            raise BatteryError(str(exc)) from exc
        expected = self.run(self.reference, cases)
        for case, result in zip(cases, expected, strict=True):
            if isinstance(result, Raised) and not self._expects_raise(case):
                arguments = describe_inputs({**case.init, **case.inputs})
                raise BatteryError(
                    f"the reference fails on case {case.name!r}: "
                    f"{self.spec.reference.function}({arguments}) raised "
                    f"{result.type}: {result.message}")
        return FunctionInstance(self, seed, cases, expected)

    def _expects_raise(self, case: DrawnCase) -> bool:
        return any(check.raises not in (None, False) and case.spec.group in check.groups
                   for check in self.spec.checks.values())

    def indistinguishable(self, seed: int = 0) -> list[str]:
        """Variants whose results equal the reference's on every case (a warning of
        `rubric validate`: the cases cannot tell them apart, so they never name a bug)."""
        instance = self.instance(seed)
        found: list[str] = []
        for variant in instance.variants:
            if any(all(same_result(r, e) for r, e in zip(results, instance.expected, strict=True))
                   for results in variant.spellings):
                found.append(variant.name)
        return found


def same_result(a: Outputs | Raised, b: Outputs | Raised) -> bool:
    if isinstance(a, Raised) or isinstance(b, Raised):
        return isinstance(a, Raised) and isinstance(b, Raised) and a.type == b.type
    return a.keys() == b.keys() and all(same(as_float(a[k]), as_float(b[k])) for k in a)


def _callable(module: Any, name: str, what: str) -> Callable[..., Any]:
    found = getattr(module, name, None)
    if not callable(found):
        raise BatteryError(f"the battery's module has no {what} function {name!r}")
    return found  # type: ignore[no-any-return]


def build_function_battery(path: Path, raw: object) -> FunctionBattery:
    try:
        spec = FunctionBatterySpec.model_validate(raw)
    except ValidationError as exc:
        raise BatteryError(spec_problems(path, exc)) from exc
    module = load_module(path.parent / spec.module)
    reference = _callable(module, spec.reference.function.partition(".")[0], "reference")
    checks = {c.function: _callable(module, c.function, "check")
              for c in spec.checks.values() if c.function}
    adjusters = {c.adjust: _callable(module, c.adjust, "adjust")
                 for c in spec.cases if c.adjust}
    table = getattr(module, spec.variants, None) if spec.variants else {}
    if not isinstance(table, dict):
        raise BatteryError(f"variants: {spec.module} has no dict named {spec.variants!r} (the "
                           "known bugs, each name: (feedback, function, ...))")
    variants: list[tuple[str, str, tuple[Callable[..., Any], ...]]] = []
    for name, entry in table.items():
        if not (isinstance(entry, tuple) and len(entry) >= 2 and isinstance(entry[0], str)
                and all(callable(fn) for fn in entry[1:])):
            raise BatteryError(f"variant {name!r} must be (feedback, function, ...)")
        variants.append((str(name), entry[0], tuple(entry[1:])))
    battery = FunctionBattery(path, spec, reference, checks, adjusters, tuple(variants))
    _ = battery.instance(0)  # a reference that fails on a case is the rubric's problem: now
    return battery


_cache: dict[tuple[Path, int], FunctionBattery] = {}
_lock = threading.Lock()


def read_battery_file(path: Path) -> object:
    try:
        return yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise BatteryError(f"{path}: {exc}") from exc


def load_function_battery(path: Path) -> FunctionBattery:
    """Built once per process and file version; inputs are drawn per submission."""
    try:
        key = (path, path.stat().st_mtime_ns)
    except OSError as exc:
        raise BatteryError(f"cannot read {path}: {exc.strerror}") from exc
    with _lock:
        battery = _cache.get(key)
    if battery is not None:
        return battery
    raw = _raw(path)  # the same read `load_any` made (one read per file version)
    with _lock:
        battery = _cache.get(key)
        if battery is None:
            battery = _cache[key] = build_function_battery(path, raw)
        return battery


def load_any(path: Path) -> Any:
    """The battery in `path`, in whichever format it is written: a general battery
    (`FunctionBattery`) or an attention battery (`graders.code.battery.Battery`)."""

    raw = _raw(path)
    if is_function_battery(raw) and not uses_attention_checks(raw):
        return load_function_battery(path)
    return load_battery(path)


_raws: dict[tuple[Path, int], object] = {}


def _raw(path: Path) -> object:
    """The battery file's data, read once per file version (every submission asks)."""
    try:
        key = (path, path.stat().st_mtime_ns)
    except OSError as exc:
        raise BatteryError(f"cannot read {path}: {exc.strerror}") from exc
    with _lock:
        found = _raws.get(key)
    if found is None:
        found = read_battery_file(path)
        with _lock:
            if len(_raws) >= 256:
                _raws.clear()
            _raws[key] = found
    return found
