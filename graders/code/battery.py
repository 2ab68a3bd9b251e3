"""A question's battery: the function to call, inputs from fixed seeds, and the reference and
known-bug results, all computed here in the trusted process (never in the sandbox)."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graders.sandbox import Call, Job

Array = np.ndarray[Any, Any]
Pair = tuple[Array, Array]  # (output, weights)
AttentionFn = Callable[[Array, Array, Array], Pair]


class BatteryError(Exception):
    """A battery file or its reference module is unusable: a rubric problem, not the student's."""


class CaseSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    seed: int
    n: int = Field(ge=1, le=512)
    m: int = Field(ge=1, le=512)
    d_k: int = Field(ge=1, le=512)
    d_v: int = Field(ge=1, le=512)
    logit_scale: float = 1.0
    stable: bool = False  # a stability case: only the `stable` check looks at it


class BatterySpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    function: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    module: str
    reference: str
    variants: str | None = None
    timeout_s: float | None = Field(default=None, gt=0, le=60)
    cases: tuple[CaseSpec, ...] = Field(min_length=1)


@dataclass(frozen=True)
class Case:
    spec: CaseSpec
    inputs: tuple[Array, Array, Array]
    expected: Pair


@dataclass(frozen=True)
class Variant:
    name: str
    feedback: str
    # One tuple per spelling of the mistake, each with one result per case (None where that
    # spelling itself raises on the case).
    spellings: tuple[tuple[Pair | None, ...], ...]


@dataclass(frozen=True)
class Battery:
    path: Path
    function: str
    timeout_s: float | None
    cases: tuple[Case, ...]
    variants: tuple[Variant, ...]

    def job(self, source: str) -> Job:
        arrays = tuple(a for case in self.cases for a in case.inputs)
        calls = tuple(Call(self.function, (3 * i, 3 * i + 1, 3 * i + 2))
                      for i in range(len(self.cases)))
        return Job(source=source, arrays=arrays, calls=calls, timeout_s=self.timeout_s)


def _inputs(spec: CaseSpec) -> tuple[Array, Array, Array]:
    rng = np.random.default_rng(spec.seed)
    q = rng.standard_normal((spec.n, spec.d_k)) * spec.logit_scale
    k = rng.standard_normal((spec.m, spec.d_k))
    v = rng.standard_normal((spec.m, spec.d_v))
    return q, k, v


def _call(fn: AttentionFn, inputs: tuple[Array, Array, Array]) -> Pair | None:
    with np.errstate(all="ignore"):
        try:
            output, weights = fn(*(a.copy() for a in inputs))
        except Exception:
            return None
    return np.asarray(output, dtype=np.float64), np.asarray(weights, dtype=np.float64)


def _load_module(path: Path) -> Any:
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
    try:
        raw = yaml.safe_load(path.read_text())
        spec = BatterySpec.model_validate(raw)
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise BatteryError(f"{path}: {exc}") from exc
    module = _load_module(path.parent / spec.module)
    reference = getattr(module, spec.reference, None)
    if not callable(reference):
        raise BatteryError(f"{spec.module} has no reference function {spec.reference!r}")
    cases: list[Case] = []
    for case_spec in spec.cases:
        inputs = _inputs(case_spec)
        expected = _call(reference, inputs)
        if expected is None or not all(np.isfinite(a).all() for a in expected):
            raise BatteryError(f"the reference fails on case {case_spec.name!r}")
        cases.append(Case(case_spec, inputs, expected))
    variants: list[Variant] = []
    table = getattr(module, spec.variants, None) if spec.variants else {}
    if not isinstance(table, dict):
        raise BatteryError(f"{spec.module}.{spec.variants} must be a dict")
    for name, entry in table.items():
        if not (isinstance(entry, tuple) and len(entry) >= 2 and isinstance(entry[0], str)
                and all(callable(fn) for fn in entry[1:])):
            raise BatteryError(f"variant {name!r} must be (feedback, function, ...)")
        spellings = tuple(tuple(_call(fn, c.inputs) for c in cases) for fn in entry[1:])
        variants.append(Variant(str(name), entry[0], spellings))
    return Battery(path, spec.function, spec.timeout_s, tuple(cases), tuple(variants))


_cache: dict[tuple[Path, int], Battery] = {}
_lock = threading.Lock()


def load_battery(path: Path) -> Battery:
    """Built once per process and file version: inputs, reference and variants are fixed."""
    try:
        key = (path, path.stat().st_mtime_ns)
    except OSError as exc:
        raise BatteryError(f"cannot read {path}: {exc.strerror}") from exc
    with _lock:
        battery = _cache.get(key)
        if battery is None:
            battery = _cache[key] = _build(path)
        return battery
