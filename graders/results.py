"""What a grader says about one rubric item: points, status, feedback and the evidence read."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from enum import StrEnum
from fractions import Fraction

from pydantic import BaseModel, ConfigDict, Field, field_validator

POINT_QUANTUM = Decimal("0.01")


def to_points(value: Fraction | Decimal | int | str) -> Decimal:
    """Exact points, quantised to hundredths of a point (the storage unit)."""
    if isinstance(value, Fraction):
        value = Decimal(value.numerator) / Decimal(value.denominator)
    return Decimal(value).quantize(POINT_QUANTUM, rounding=ROUND_HALF_EVEN)


class Status(StrEnum):
    GRADED = "graded"
    NEEDS_REVIEW = "needs_review"
    MISSING = "missing"
    SUBMISSION_ERROR = "submission_error"
    GRADER_ERROR = "grader_error"
    PENDING = "pending"


FINAL_STATUSES = frozenset({Status.GRADED, Status.MISSING, Status.SUBMISSION_ERROR})


class Evidence(BaseModel):
    """A piece of the submission (or of what ran) that a grader relied on."""

    model_config = ConfigDict(frozen=True)

    kind: str  # "answer", "value", "sentence", "expression", "normalisation", "stdout", "check"
    text: str
    start: int | None = None  # character span in the submission's text, when known
    end: int | None = None
    note: str = ""


class ItemResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_id: str
    question: str
    points: Decimal
    max_points: Decimal
    status: Status
    # Staff-facing: may name expected values, references, test inputs and machine reasoning.
    feedback: str = ""
    # Student-facing: what is wrong and a hint, never the expected answer, a reference statement,
    # a test input or machine internals. None: the service shows a neutral message by status.
    student_feedback: str | None = None
    evidence: tuple[Evidence, ...] = ()
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    grader: str
    grader_version: str

    @field_validator("points", "max_points", mode="before")
    @classmethod
    def _exact(cls, value: object) -> Decimal:
        if isinstance(value, float):
            raise ValueError("points must be exact (int, Decimal, Fraction or str), not float")
        if isinstance(value, Fraction | Decimal | int | str):
            return to_points(value)
        raise ValueError(f"cannot read points from {type(value).__name__}")

    @property
    def counts_toward_total(self) -> bool:
        """Pending and grader errors carry no points; review items count their suggestion."""
        return self.status not in (Status.PENDING, Status.GRADER_ERROR)
