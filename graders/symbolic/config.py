"""What a rubric item of kind `symbolic` may say."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# The grader's version (SymbolicGrader.version), one definition: it names the grader's code in every
# cache key, and the keys read it here without importing the grader (graders.registry).
VERSION = "1.11"  # 1.4: a formula's later evaluation in numbers is passed over; 1.5: `V x d`
# 1.6: names typed against each other (`4dT^2`), superscripts (`T²`), evaluations with `2048²`
# or `≈`; 1.7: Markdown emphasis around an assignment (`**L = HW/P^2 + 1**`); 1.8: two
# expressions offered for one target (`q = k_a, or maybe q = ...`, `q = X (or possibly Y)`) that
# earn different credit: review, the lesser suggested; 1.9: invisible format characters copied
# into a formula (`\\sqrt{6<U+200B>4}`) skipped; 1.10: `\\gamma` before a sign or a bracket
# (`\\alpha^{\\gamma+1}`, `\\gamma(k_a + k_b)`) is the symbol, not the gamma function; an
# evaluation as a fraction of numbers or with U+2212 (`E = \\frac{1 - 0.8^{5}}{0.2}`) passed over;
# 1.11: a transcript's lone l for 1 and O for 0 (`(l - alpha^(gamma+l))`, `O.8`), where the
# expected expression names no symbol l or O

DEFAULT_LARGE_SCALARS = ("beta", "lambda", "s", "C", "gamma", "t", "M", "K", "c", "alpha")


class SymbolicConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # equivalent: the same expression; scalar_multiple: a positive multiple of the expected
    # direction (full credit with a large scale factor); depends_on_difference: a property
    mode: Literal["equivalent", "scalar_multiple", "depends_on_difference"] = "scalar_multiple"
    # the symbol(s) the student assigns: "q", or ["q_1", "q_2"]
    target: str | tuple[str, ...]
    expected: str | tuple[str, ...] | None = None
    any_order: bool = False
    # symbols that stand for "a large positive scalar"
    large_scalars: tuple[str, ...] = DEFAULT_LARGE_SCALARS
    # a literal factor at least this large also counts as large (q = 1000 (k_a + k_b))
    large_number: float = Field(default=10.0, gt=1)
    # points for the right direction without a large scale factor (None: no partial credit)
    without_scalar_points: Decimal | None = Field(default=None, ge=0)
    feedback_without_scalar: str = ""
    # notation slips accepted as the same vector: {mu_a: k_a}
    aliases: dict[str, str] = Field(default_factory=dict)
    # for mode depends_on_difference: the pair (t_1, t_2)
    pair: tuple[str, str] | None = None
    # the derivative the (single) target names, `dL/dz`: an answer may write `∂L/∂z = ...`,
    # `\frac{\partial L}{\partial z} = ...` or `\nabla_z L = ...` (or one component) in its place
    derivative: str | None = Field(default=None, pattern=r"^d[A-Za-z]\w{0,2}/d[A-Za-z]\w{0,2}$")

    @field_validator("without_scalar_points", mode="before")
    @classmethod
    def _exact(cls, value: object) -> object:
        return Decimal(str(value)) if isinstance(value, float) else value

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target,) if isinstance(self.target, str) else self.target

    @property
    def expectations(self) -> tuple[str, ...]:
        if self.expected is None:
            return ()
        return (self.expected,) if isinstance(self.expected, str) else self.expected

    @model_validator(mode="after")
    def _consistent(self) -> SymbolicConfig:
        if self.mode == "depends_on_difference":
            if self.pair is None:
                raise ValueError("mode depends_on_difference needs `pair: [t_1, t_2]`")
            return self
        if self.derivative is not None and len(self.targets) != 1:
            raise ValueError("`derivative` names what one target is: give one `target`")
        if not self.expectations:
            raise ValueError("`expected` is required for this mode")
        if len(self.expectations) != len(self.targets):
            raise ValueError("`expected` needs one expression per `target`")
        return self
