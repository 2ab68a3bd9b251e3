"""A question's battery: the function to call, the shapes of its inputs, the interface
adaptations the rubric allows and what they cost, and the reference and known-bug results, all
computed here in the trusted process (never in the sandbox).

Inputs are drawn per submission from a seed the parent chooses (`Battery.instance(seed)`), so no
table of outputs prepared for earlier inputs can answer them; a case with a `seed` of its own is
a fixed edge case, the same for everyone.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graders.code.arrays import same
from graders.code.attention_form import AttentionFormError, check_names, legacy_spec
from graders.code.spec import Adaptation, FunctionBatterySpec, is_function_battery
from graders.code.spec_errors import spec_problems

Array = np.ndarray[Any, Any]
Pair = tuple[Array, Array]  # (output, weights)
AttentionFn = Callable[[Array, Array, Array], Pair]
AdaptationName = Literal["swapped_pair", "output_only", "derived_weights", "mask_argument",
                         "extra_argument", "batch_dims", "rounded"]
# How a required mask argument is passed, as students write it. Each builds the (n, m) mask for
# a boolean `hide` matrix (True where a position must get no weight).
MASK_CONVENTIONS: dict[str, Callable[[Array], Array]] = {
    "boolean future (True = hidden)": lambda hide: hide.copy(),
    "0/1 lower-triangular (1 = attend)": lambda hide: (~hide).astype(np.float64),
    "boolean keep (True = attend)": lambda hide: ~hide,
    "additive -inf": lambda hide: np.where(hide, -np.inf, 0.0),
    "additive -1e9": lambda hide: np.where(hide, -1e9, 0.0),
}


class BatteryError(Exception):
    """A battery file or its reference module is unusable: a rubric problem, not the student's."""


class CaseSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    # Set: a fixed edge case (the same inputs for everyone). Unset: drawn from the submission's
    # secret seed.
    seed: int | None = None
    n: int = Field(ge=1, le=512)
    m: int = Field(ge=1, le=512)
    d_k: int = Field(ge=1, le=512)
    d_v: int = Field(ge=1, le=512)
    logit_scale: float = 1.0
    stable: bool = False  # a stability case: only the `stable` check looks at it


def _default_adaptations() -> dict[AdaptationName, Adaptation]:
    return {}


class BatterySpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    function: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    # The trusted module beside the battery file (a file name, no folder): the result cache's
    # key covers the Python files in the battery's folder (graders.cache.groups).
    module: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*\.py$")
    reference: str
    variants: str | None = None
    timeout_s: float | None = Field(default=None, gt=0, le=60)
    # What a required mask argument should hide: the future (causal) or nothing.
    mask: Literal["causal", "none"] = "none"
    adaptations: dict[AdaptationName, Adaptation] = Field(default_factory=_default_adaptations)
    cases: tuple[CaseSpec, ...] = Field(min_length=1)

    def adaptation(self, name: AdaptationName) -> Adaptation:
        # Not listed: not allowed (a rubric opts in to every adaptation it accepts).
        return self.adaptations.get(name, Adaptation(allowed=False, credit=Fraction(0)))


@dataclass(frozen=True)
class Case:
    spec: CaseSpec
    inputs: tuple[Array, Array, Array]
    expected: Pair
    hide: Array  # (n, m) bool: positions the reference gives no weight (the causal future)

    @property
    def identity(self) -> Array:
        """V = I (m x m): the output of a call with it is the weights the function used."""
        return np.eye(self.spec.m)

    def mask(self, convention: str) -> Array:
        return MASK_CONVENTIONS[convention](self.hide)


@dataclass(frozen=True)
class VariantResult:
    output: Array
    weights: Array
    probe: Array | None  # the output with V = I (None where that call raises)


@dataclass(frozen=True)
class Variant:
    name: str
    feedback: str
    # One tuple per spelling of the mistake, each with one result per case (None where that
    # spelling itself raises on the case).
    spellings: tuple[tuple[VariantResult | None, ...], ...]


@dataclass
class Instance:
    """A battery with its inputs drawn: what one submission is graded on."""

    battery: Battery
    seed: int
    cases: tuple[Case, ...]

    @cached_property
    def variants(self) -> tuple[Variant, ...]:
        """The known bugs' results on these inputs, computed only when a diagnosis needs them
        (a submission that passes everything never pays for them). NumPy's error state is set
        once around all of them: per call it cost as much as a variant's small arrays."""
        with np.errstate(all="ignore"):
            return tuple(
                Variant(name, feedback, tuple(tuple(_variant_result(fn, c) for c in self.cases)
                                              for fn in functions))
                for name, feedback, functions in self.battery.variant_table)

    @property
    def function(self) -> str:
        return self.battery.function

    @property
    def spec(self) -> BatterySpec:
        return self.battery.spec


@dataclass(frozen=True)
class Battery:
    path: Path
    spec: BatterySpec
    reference: AttentionFn
    variant_table: tuple[tuple[str, str, tuple[AttentionFn, ...]], ...]
    # Written in the general format: its check names -> the attention built-in each one is.
    check_names: tuple[tuple[str, str], ...] = ()

    def check(self, name: str) -> str:
        """The attention built-in an item's `check` names."""
        return dict(self.check_names).get(name, name)

    @property
    def function(self) -> str:
        return self.spec.function

    @property
    def timeout_s(self) -> float | None:
        return self.spec.timeout_s

    def indistinguishable(self, seed: int = 0) -> list[str]:
        """Variants with a spelling whose (output, weights) equal the reference's on every case:
        the cases cannot tell them apart, so they never name their bug."""
        instance = self.instance(seed)
        return [variant.name for variant in instance.variants
                if any(all(r is not None and same(r.output, c.expected[0])
                           and same(r.weights, c.expected[1])
                           for r, c in zip(results, instance.cases, strict=True))
                       for results in variant.spellings)]

    def instance(self, seed: int) -> Instance:
        cases = tuple(self._case(spec, seed, index) for index, spec in enumerate(self.spec.cases))
        return Instance(self, seed, cases)

    def _case(self, spec: CaseSpec, seed: int, index: int) -> Case:
        rng = np.random.default_rng(spec.seed if spec.seed is not None else [seed, index])
        q = rng.standard_normal((spec.n, spec.d_k)) * spec.logit_scale
        k = rng.standard_normal((spec.m, spec.d_k))
        v = rng.standard_normal((spec.m, spec.d_v))
        if spec.stable:
            # Every row's largest scaled score is logit_scale x U(1, 2): exp overflows in every
            # row for code that does not subtract the row's maximum, whatever the draw.
            q = q / spec.logit_scale
            scaled = q @ k.T / np.sqrt(spec.d_k)
            peak = scaled[np.arange(spec.n), np.abs(scaled).argmax(axis=1)]
            peak = np.where(np.abs(peak) < 1e-6, 1e-6, peak)
            target = spec.logit_scale * rng.uniform(1.0, 2.0, size=spec.n)
            q = q * (target / peak)[:, None]
        expected = _call(self.reference, (q, k, v))
        if expected is None or not all(np.isfinite(a).all() for a in expected):
            raise BatteryError(f"the reference fails on case {spec.name!r}: "
                               f"{self.spec.reference}(Q=<{q.shape}>, K=<{k.shape}>, "
                               f"V=<{v.shape}>) {_failure(self.reference, (q, k, v))}")
        if self.spec.mask == "causal":
            hide = np.triu(np.ones((spec.n, spec.m), dtype=bool), k=1)
        else:
            hide = np.zeros((spec.n, spec.m), dtype=bool)
        return Case(spec, (q, k, v), expected, hide)


def _call(fn: AttentionFn, inputs: tuple[Array, Array, Array]) -> Pair | None:
    with np.errstate(all="ignore"):
        return _call_quietly(fn, inputs)


def _call_quietly(fn: AttentionFn, inputs: tuple[Array, Array, Array]) -> Pair | None:
    """`_call` inside an `np.errstate(all="ignore")` of the caller's."""
    try:
        output, weights = fn(*(a.copy() for a in inputs))
    except Exception:
        return None
    return np.asarray(output, dtype=np.float64), np.asarray(weights, dtype=np.float64)


def _failure(fn: AttentionFn, inputs: tuple[Array, Array, Array]) -> str:
    """Why a reference call gave no usable pair, in words for `rubric validate`."""
    with np.errstate(all="ignore"):
        try:
            _output, _weights = fn(*(a.copy() for a in inputs))
        except Exception as exc:
            return f"raised {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    return "returned inf or nan"


def _variant_result(fn: AttentionFn, case: Case) -> VariantResult | None:
    real = _call_quietly(fn, case.inputs)
    if real is None:
        return None
    probe = _call_quietly(fn, (case.inputs[0], case.inputs[1], case.identity))
    return VariantResult(real[0], real[1], probe[0] if probe is not None else None)


def load_module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"gradeformer_battery_{abs(hash(path))}", path)
    if spec is None or spec.loader is None:
        raise BatteryError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise BatteryError(f"{path}: {type(exc).__name__}: {exc}") from exc
    return module


def _build(path: Path) -> Battery:
    names: tuple[tuple[str, str], ...] = ()
    try:
        raw = yaml.safe_load(path.read_text())
        if is_function_battery(raw):
            # The general format with attention checks (graders.code.attention_form).
            general = FunctionBatterySpec.model_validate(raw)
            spec = BatterySpec.model_validate(legacy_spec(general))
            names = tuple(check_names(general).items())
        else:
            spec = BatterySpec.model_validate(raw)
    except ValidationError as exc:
        raise BatteryError(spec_problems(path, exc)) from exc
    except (OSError, yaml.YAMLError, AttentionFormError) as exc:
        raise BatteryError(f"{path}: {exc}") from exc
    module = load_module(path.parent / spec.module)
    reference = getattr(module, spec.reference, None)
    if not callable(reference):
        raise BatteryError(f"{spec.module} has no reference function {spec.reference!r}")
    table = getattr(module, spec.variants, None) if spec.variants else {}
    if not isinstance(table, dict):
        raise BatteryError(f"{spec.module}.{spec.variants} must be a dict")
    variants: list[tuple[str, str, tuple[AttentionFn, ...]]] = []
    for name, entry in table.items():
        if not (isinstance(entry, tuple) and len(entry) >= 2 and isinstance(entry[0], str)
                and all(callable(fn) for fn in entry[1:])):
            raise BatteryError(f"variant {name!r} must be (feedback, function, ...)")
        variants.append((str(name), entry[0], tuple(entry[1:])))
    battery = Battery(path, spec, reference, tuple(variants), names)
    _ = battery.instance(0).variants  # a broken reference or variant is the rubric's: now
    return battery


_cache: dict[tuple[Path, int], Battery] = {}
_lock = threading.Lock()


def load_battery(path: Path) -> Battery:
    """Built once per process and file version; inputs are drawn per submission."""
    try:
        key = (path, path.stat().st_mtime_ns)
    except OSError as exc:
        raise BatteryError(f"cannot read {path}: {exc.strerror}") from exc
    with _lock:
        battery = _cache.get(key)
        if battery is None:
            battery = _cache[key] = _build(path)
        return battery
