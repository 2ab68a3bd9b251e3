"""What a rubric item of kind `numeric` may say."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# The grader's version (NumericGrader.version), one definition: it names the grader's code in every
# cache key, and the keys read it here without importing the grader (graders.registry).
# 1.6: OCR groups with a leading l or I, or an O in the first group (`l31,O72,OOO`); 1.7: a
# declared tolerance holds for integers, `2^31` and `x 10^10` typed plainly, a factor `1/16`,
# OCR's l for 1 anywhere in a number (`5l2 MiB`); 1.8: `÷ 4`, `MHA cache / 4` as a quarter;
# 1.9: no value read for an item, but a number no item read: review, not missing; 1.9.1: the
# numbers of a bracketed note in words after a value (`197 (196 patches + CLS)`) are working;
# 1.10: a value the answer negates (`≠ 64`), offers among others (`64 or 65`) or takes back
# (`64 <- no wait, 32`): review; other scripts' digits (`٦٤`, `𝟔𝟒`) read; 1.11: a denied value's
# suggestion is 0 and it goes to review at any threshold; a precise value restated rounded
# (`590,592 ≈ 0.59 M`) is graded on the precise value; `64? no, 32` takes 64 back; 1.12:
# invisible format characters in a number (`6<U+200B>4`) skipped; a direction override that
# reorders its digits: review; 1.13: a duration with its unit (`0.014 s`, `3584 ms`, `2 min`) in
# the unit of time nearest the expected value; LaTeX's `\\,` before a unit (`2\\,\\text{GiB}`);
# a step's unit before `=` keeps the chain (`256 x 28 ms = 7.17 s`); a carried-forward value
# within the item's tolerance of the earlier value times the factor; OCR's decimal of letters
# only (`O.Ol`); 1.14: values listed side by side with the chosen one (`32, 64, 128`, one a
# line) that could answer the item are its rivals: review; a fraction restated rounded to a
# whole number for a count (`123/4 = 30.75 ≈ 31`) graded on the whole number; invisible format
# characters in a factor's or cue's words skipped
VERSION = "1.14"

Scalar = int | float
ExpectedValue = Scalar | list[Scalar]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KnownMistake(_Strict):
    value: ExpectedValue
    points: Decimal = Field(ge=0)
    feedback: str
    # what the student is told: the mistake named without the expected value
    hint: str | None = None
    # the mistake is a legitimate reading when the answer says so (e.g. "including the bias")
    full_credit_if_mentions: tuple[str, ...] = ()

    @field_validator("points", mode="before")
    @classmethod
    def _exact(cls, value: object) -> object:
        return Decimal(str(value)) if isinstance(value, float) else value


class CarryForward(_Strict):
    """Credit a later value computed correctly from the student's own earlier (wrong) value."""

    from_item: str
    factor: float = 1.0
    points: Decimal = Field(ge=0)

    @field_validator("points", mode="before")
    @classmethod
    def _exact(cls, value: object) -> object:
        return Decimal(str(value)) if isinstance(value, float) else value


class RoundingPolicy(_Strict):
    """A value that is the expected one rounded more coarsely than the item asks (`1.77 million`
    for 1,769,472; 0.67 for 0.665) earns `credit` (a share of the points, of each component's for
    a vector) when it keeps at least `min_significant` significant digits; fewer is just wrong."""

    credit: Decimal = Field(ge=0, le=1)
    min_significant: int = Field(default=2, ge=1, le=15)

    @field_validator("credit", mode="before")
    @classmethod
    def _exact(cls, value: object) -> object:
        return Decimal(str(value)) if isinstance(value, float) else value


class NumericConfig(_Strict):
    mode: Literal["exact", "plausibility"] = "exact"
    # factor: the answer is a multiplicative factor (a ratio new/old) and may be written as one
    # (`16x`, `x16`, `16 times`, `16-fold`, `quadruples`, `a quarter of`); the value the answer
    # concludes with is read, not the intermediate factors of its explanation
    form: Literal["value", "factor"] = "value"
    expected: ExpectedValue | None = None
    kind: Literal["integer", "real", "vector"] = "real"
    abs_tolerance: float | None = Field(default=None, ge=0)
    rel_tolerance: float | None = Field(default=None, ge=0)
    # the value is a probability: "66.5 %" is read as 0.665
    probability: bool = False
    # a vector that does not sum to one (within sum_tolerance) loses this many points
    sum_to_one_penalty: Decimal = Field(default=Decimal(0), ge=0)
    sum_tolerance: float = Field(default=0.01, ge=0)
    # words near the value that say it answers this item (several items share one answer)
    cues: tuple[str, ...] = ()
    avoid_cues: tuple[str, ...] = ()
    known_mistakes: tuple[KnownMistake, ...] = ()
    carry_forward: CarryForward | None = None
    # None: a coarser rounding is wrong like any other value outside the tolerance
    rounding: RoundingPolicy | None = None
    # plausibility mode: a reported measurement, judged against ranges, not a key
    unit: Literal["number", "percent"] = "number"
    plausible: tuple[float, float] | None = None
    typical: tuple[float, float] | None = None

    @field_validator("sum_to_one_penalty", mode="before")
    @classmethod
    def _exact(cls, value: object) -> object:
        return Decimal(str(value)) if isinstance(value, float) else value

    @model_validator(mode="after")
    def _consistent(self) -> NumericConfig:
        if self.mode == "exact" and self.expected is None:
            raise ValueError("an exact numeric item needs `expected`")
        if self.mode == "plausibility" and self.expected is None and self.plausible is None:
            raise ValueError("a plausibility item needs `plausible` (a [low, high] range) "
                             "or `expected`")
        if self.kind == "vector" and not isinstance(self.expected, list):
            raise ValueError("kind `vector` needs `expected` to be a list")
        if self.kind != "vector" and isinstance(self.expected, list):
            raise ValueError("a list `expected` needs kind `vector`")
        if self.kind == "integer" and isinstance(self.expected, float) \
                and not self.expected.is_integer():
            raise ValueError("kind `integer` needs an integer `expected`")
        if self.form == "factor" and (self.mode != "exact" or self.kind == "vector"
                                      or not isinstance(self.expected, int | float)
                                      or self.expected <= 0):
            raise ValueError("`form: factor` needs an exact item whose `expected` is one "
                             "positive number (the ratio new/old: 16, or 0.25 for a quarter)")
        for window in (self.plausible, self.typical):
            if window is not None and window[0] > window[1]:
                raise ValueError("a range must be [low, high] with low <= high")
        return self
