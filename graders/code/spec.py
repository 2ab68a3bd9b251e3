"""The battery format for any NumPy function: the parameters of the asked interface and how each
input is drawn, the reference's named outputs, the checks the rubric's items name, the known-bug
variants and the interface adaptations accepted (docs/rubrics.md, "Code items and batteries").

Everything here is data read with a safe YAML loader; nothing an instructor writes is evaluated.
Tied sizes use a tiny closed vocabulary (`multiple_of`, `product`, `quotient`, `sum`, parity)
over sizes declared earlier, never an expression language.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
# A function, or a class's method (`LayerNorm.forward`): the class constructed, then its method
# called (graders.code.classes).
TARGET = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$"
Scalar = int | float | bool
# A fixed value: a scalar, or nested lists of numbers (an array); checked when drawn.
Literal_ = int | float | bool | list[Any]
MAX_RANGE = 100_000  # a drawn size's range, at most this many candidates
MAX_REPEAT = 50
DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")

FunctionAdaptation = Literal[
    "by_name",             # the asked parameters, in another order: called by keyword
    "extra_argument",      # a required parameter the question does not pass, listed in `extras`
    "batch_dims",          # works only with a leading batch axis: called with a batch of one
    "extra_leading_axis",  # returns an extra leading axis of size 1: read without it
    "swapped",             # returns the outputs in another order: read by their shapes
    "output_only",         # returns only the first output of several
    "extra_outputs",       # returns more than asked: the asked output read by its shape
    # The attention built-ins' own (graders.code.attention_form):
    "derived_weights",     # the weights read from the output with V = I
    "mask_argument",       # needs a mask argument: called with the one that fits
    "rounded",             # matches to 1e-3 but not to the tolerance
    "draw_order",          # a class's weights drawn from the rng in another order or layout
]
AttentionCheck = Literal["interface", "scaling", "row_softmax", "weights", "output", "stable",
                         "causal"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Term = int | str  # a literal size or the name of a size drawn before


class DimSpec(_Strict):
    """How one named size is drawn per case: fixed, from a range or a list, or tied to sizes
    declared before it."""

    value: int | None = None
    range: tuple[int, int] | None = None
    choices: tuple[int, ...] | None = None
    multiple_of: Term | None = None
    parity: Literal["even", "odd"] | None = None
    product: tuple[Term, ...] | None = None
    quotient: tuple[Term, Term] | None = None
    sum: tuple[Term, ...] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> DimSpec:
        sources = [s for s in (self.value, self.range, self.choices, self.product,
                               self.quotient, self.sum) if s is not None]
        if len(sources) != 1:
            raise ValueError("a size is exactly one of value, range, choices, product, "
                             "quotient or sum (multiple_of and parity narrow a range or choices)")
        if self.range is not None:
            low, high = self.range
            if low > high or high - low > MAX_RANGE:
                raise ValueError(f"range must be [low, high] with at most {MAX_RANGE} values")
        if (self.multiple_of is not None or self.parity) and self.range is None \
                and self.choices is None:
            raise ValueError("multiple_of and parity narrow a range or choices")
        return self

    def references(self) -> list[str]:
        terms: list[Term] = [*(self.product or ()), *(self.quotient or ()), *(self.sum or ())]
        if self.multiple_of is not None:
            terms.append(self.multiple_of)
        return [t for t in terms if isinstance(t, str)]


class ParameterSpec(_Strict):
    """One parameter of the asked interface: an array drawn with a shape of sizes, an integer
    equal to a size, or a fixed value."""

    array: tuple[Term, ...] | None = None
    dtype: Literal["float16", "float32", "float64", "int32", "int64", "bool"] = "float64"
    distribution: Literal["normal", "uniform", "integers"] = "normal"
    scale: float = 1.0
    low: float = 0.0
    high: float = 1.0
    size: str | None = None  # an integer parameter: the value of this size
    value: Literal_ | None = None  # a fixed value, the same in every case
    # Receives a leading axis of one under the `batch_dims` adaptation (Q, K, V; not weights).
    batch: bool = False
    # The asked interface gives it a default (and the drawn value is that default): a student's
    # function without such a parameter is called without it. Optional with no kind: the
    # default is None (`mask=None`), so it is passed only where a case gives it (`values`,
    # `adjust`).
    optional: bool = False
    # A NumPy generator (`rng`): drawn as a seed per case and passed as
    # `np.random.default_rng(seed)`, the same seed to the reference and to the student's code.
    generator: bool = False

    @property
    def default_none(self) -> bool:
        return self.optional and self.array is None and self.size is None and self.value is None

    @model_validator(mode="after")
    def _one_kind(self) -> ParameterSpec:
        kinds = sum(x is not None for x in (self.array, self.size, self.value)) + self.generator
        if kinds > 1:
            raise ValueError("a parameter is exactly one of array (a shape), size (a size's "
                             "name), value (a fixed value) or generator, not several")
        if kinds == 0 and not self.optional:
            raise ValueError("a parameter needs array (a shape), size (a size's name) or value "
                             "(a fixed value); a parameter whose default is None (`mask=None`) "
                             "is `optional: true` alone, given by the cases that pass it "
                             "(`values`, or an `adjust` function)")
        if self.array is not None and len(self.array) > 6:
            raise ValueError("an array has at most 6 axes")
        return self

    def references(self) -> list[str]:
        names = [t for t in (self.array or ()) if isinstance(t, str)]
        return names + ([self.size] if self.size else [])


class CaseSpec(_Strict):
    name: str = Field(min_length=1, max_length=200)
    # Checks look at the cases of their `groups`; default group "main".
    group: str = Field(default="main", pattern=NAME)
    # Set: a fixed edge case (the same for everyone). Unset: drawn from the submission's secret.
    seed: int | None = None
    repeat: int = Field(default=1, ge=1, le=MAX_REPEAT)
    dims: dict[str, DimSpec | int] = Field(default_factory=dict)
    values: dict[str, Literal_] = Field(default_factory=dict)  # fixed parameter values
    scale: dict[str, float] = Field(default_factory=dict)  # a parameter's scale in this case
    omit: tuple[str, ...] = ()  # optional parameters this case does not pass
    # A trusted function of the module, (inputs, sizes, rng) -> inputs: draws no spec can say.
    adjust: str | None = Field(default=None, pattern=NAME)
    # A method's battery: call the method again on the instance the case before this one built
    # (state kept between calls), instead of constructing a new one.
    same_instance: bool = False


class Adaptation(_Strict):
    """One interface adaptation: whether the grader may make it, and the share of a check's
    points it still earns (several at once: the smallest; the interface check, which an adapted
    call never earns, aside)."""

    allowed: bool = True
    credit: Fraction = Fraction(1)

    @field_validator("credit", mode="before")
    @classmethod
    def _fraction(cls, value: object) -> Fraction:
        try:
            credit = Fraction(str(value))
        except (ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"credit must be a fraction like 2/3, not {value!r}") from exc
        if not 0 <= credit <= 1:
            raise ValueError("credit must lie between 0 and 1")
        return credit


class CheckSpec(_Strict):
    """One named check; an item's `check` names it. Exactly one kind."""

    # What passing means (students see it); an attention built-in has its own.
    description: str = Field(default="", max_length=300)
    groups: tuple[str, ...] = ("main",)  # the case groups looked at
    hint: str = ""  # said to the student when the check fails
    interface: bool | None = None  # called as asked, returning the asked outputs
    returns: Literal_ | None = None  # the call returns this value (a scalar, e.g. the -1 sentinel)
    shape: str | None = None  # this output has the reference's shape
    dtype: str | None = None  # this output has the reference's dtype
    allclose: str | None = None  # this output equals the reference's within rtol/atol
    rtol: float = Field(default=1e-6, ge=0)
    atol: float = Field(default=1e-8, ge=0)
    raises: bool | str | None = None  # the call raises (this exception type, when named)
    function: str | None = Field(default=None, pattern=NAME)  # the instructor's own check
    # An attention built-in, for a battery of f(Q, K, V) -> (output, weights).
    attention: AttentionCheck | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> CheckSpec:
        kinds = [k for k in ("interface", "returns", "shape", "dtype", "allclose", "raises",
                             "function", "attention") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("a check is exactly one of interface, returns, shape, dtype, "
                             "allclose, raises, function or attention")
        if not self.description and self.attention is None:
            raise ValueError("a check needs a description (what passing means)")
        return self

    @property
    def kind(self) -> str:
        for name in ("interface", "returns", "shape", "dtype", "allclose", "raises", "attention"):
            if getattr(self, name) is not None:
                return name
        return "function"

    @property
    def output(self) -> str | None:
        return self.shape or self.dtype or self.allclose


class ReferenceSpec(_Strict):
    function: str = Field(pattern=TARGET)  # a class's method when the battery asks for one
    # The names of what it returns: one name for a single value, several for a tuple's elements.
    outputs: tuple[str, ...] = Field(default=("output",), min_length=1, max_length=8)


def _no_adaptations() -> dict[FunctionAdaptation, Adaptation]:
    return {}


class FunctionBatterySpec(_Strict):
    function: str = Field(pattern=TARGET)
    module: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*\.py$")
    reference: ReferenceSpec
    # A method's battery: the constructor's parameters, in order, drawn as `parameters` are.
    init: dict[str, ParameterSpec] = Field(default_factory=dict)
    parameters: dict[str, ParameterSpec] = Field(min_length=1)
    dims: dict[str, DimSpec | int] = Field(default_factory=dict)
    cases: tuple[CaseSpec, ...] = Field(min_length=1)
    checks: dict[str, CheckSpec] = Field(min_length=1)
    variants: str | None = Field(default=None, pattern=NAME)  # a dict in the module
    adaptations: dict[FunctionAdaptation, Adaptation] = Field(default_factory=_no_adaptations)
    # Parameters a student's function may require beyond the asked ones: name -> the size given.
    extras: dict[str, str] = Field(default_factory=dict)
    timeout_s: float | None = Field(default=None, gt=0, le=60)
    # Attention built-ins: what a required mask argument must express.
    mask: Literal["causal", "none"] = "none"

    @property
    def is_method(self) -> bool:
        return "." in self.function

    @property
    def arguments(self) -> dict[str, ParameterSpec]:
        """Every drawn argument, the constructor's first (their names never collide)."""
        return {**self.init, **self.parameters}

    @model_validator(mode="after")
    def _method(self) -> FunctionBatterySpec:
        if self.is_method != ("." in self.reference.function):
            raise ValueError("a class's method (`function: LayerNorm.forward`) has a reference "
                             "method (`reference: {function: MyLayerNorm.forward}`), and a "
                             "function a reference function")
        if not self.is_method and (self.init or any(c.same_instance for c in self.cases)):
            raise ValueError("init and same_instance belong to a class's method "
                             "(`function: LayerNorm.forward`)")
        if self.is_method and any(c.attention for c in self.checks.values()):
            raise ValueError("the attention built-in checks call a function, not a method")
        if self.cases[0].same_instance:
            raise ValueError(f"case {self.cases[0].name!r}: same_instance needs a case before it")
        shared = sorted(set(self.init) & set(self.parameters))
        if shared:
            raise ValueError(f"{shared}: a name is the constructor's (init) or the method's "
                             "(parameters), not both")
        return self

    @model_validator(mode="after")
    def _names(self) -> FunctionBatterySpec:
        declared: set[str] = set()
        for name, dim in self.dims.items():
            if isinstance(dim, DimSpec):
                unknown = [r for r in dim.references() if r not in declared]
                if unknown:
                    raise ValueError(f"size {name!r} uses {unknown}, not declared before it")
            declared.add(name)
        case_dims = {n for c in self.cases for n in c.dims}
        for name, parameter in self.arguments.items():
            unknown = [r for r in parameter.references() if r not in declared | case_dims]
            if unknown:
                raise ValueError(f"parameter {name!r} uses undeclared sizes {unknown}")
        for case in self.cases:
            for field in ("values", "scale"):
                unknown = sorted(set(getattr(case, field)) - set(self.arguments))
                if unknown:
                    raise ValueError(f"case {case.name!r}: {field} names unknown parameters "
                                     f"{unknown}")
            if set(case.omit) - set(self.arguments):
                raise ValueError(f"case {case.name!r} omits unknown parameters")
        groups = {c.group for c in self.cases}
        outputs = set(self.reference.outputs)
        for name, check in self.checks.items():
            unknown_groups = sorted(set(check.groups) - groups)
            if unknown_groups:
                raise ValueError(f"check {name!r} looks at groups {unknown_groups} that no case "
                                 f"belongs to (groups: {sorted(groups)})")
            if check.output is not None and check.output not in outputs:
                raise ValueError(f"check {name!r} names output {check.output!r}; the reference's "
                                 f"outputs are {sorted(outputs)}")
        for extra, size in self.extras.items():
            if size not in declared | case_dims:
                raise ValueError(f"extra {extra!r} is given size {size!r}, never declared")
        return self

    def adaptation(self, name: FunctionAdaptation) -> Adaptation:
        # Not listed: not accepted (a rubric opts in to every adaptation it accepts).
        return self.adaptations.get(name, Adaptation(allowed=False, credit=Fraction(0)))


def is_function_battery(raw: object) -> bool:
    """The general format declares its parameters; the attention-only format does not."""
    return isinstance(raw, dict) and "parameters" in raw


def uses_attention_checks(raw: object) -> bool:
    """A battery written in this format whose checks are the attention built-ins: it is graded
    by the attention engine (graders.code.attention_form)."""
    if not is_function_battery(raw):
        return False
    checks = raw.get("checks") if isinstance(raw, dict) else None
    return isinstance(checks, dict) and any(
        isinstance(c, dict) and "attention" in c for c in checks.values())
