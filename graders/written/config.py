"""The `written` grader's rubric config: concepts as patterns, partial levels, contradictions."""

from __future__ import annotations

import re
from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from graders.written.patterns import PatternError, compile_pattern

# The grader's version (WrittenGrader.version), one definition: it names the grader's code in every
# cache key, and the keys read it here without importing the grader (graders.registry).
VERSION = "5"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_patterns(patterns: tuple[str, ...]) -> tuple[str, ...]:
    for pattern in patterns:
        try:
            compile_pattern(pattern)
        except PatternError as exc:
            raise ValueError(str(exc)) from exc
    return patterns


def _exact(value: object) -> object:
    return Decimal(str(value)) if isinstance(value, float) else value


class Element(_Strict):
    """One idea an answer must state; any of its patterns establishes it in a sentence."""

    id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    patterns: tuple[str, ...] = Field(min_length=1)
    # What the idea is, in feedback ("the growth of q·k with d_k").
    label: str = ""
    # The idea as a full sentence, compared with the answer when no pattern found it
    # (default: the label).
    statement: str = ""

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_patterns(value)


class PartialCredit(_Strict):
    """Points when these elements are present but full credit is not reached."""

    points: Decimal = Field(ge=0)
    when: tuple[str, ...] = Field(min_length=1)
    feedback: str = ""

    @field_validator("points", mode="before")
    @classmethod
    def _exact_points(cls, value: object) -> object:
        return _exact(value)


class Contradiction(_Strict):
    """A known wrong statement: when stated (not negated), points are capped at `points`."""

    patterns: tuple[str, ...] = Field(min_length=1)
    points: Decimal = Field(default=Decimal(0), ge=0)
    feedback: str

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_patterns(value)
    @field_validator("points", mode="before")
    @classmethod
    def _exact_points(cls, value: object) -> object:
        return _exact(value)


class Exemplar(_Strict):
    """A graded example answer; a near-identical student answer suggests the same points."""

    text: str = Field(min_length=1)
    points: Decimal = Field(ge=0)

    @field_validator("points", mode="before")
    @classmethod
    def _exact_points(cls, value: object) -> object:
        return _exact(value)


class Topic(_Strict):
    """Where an item's subject is discussed, when one answer covers several subjects.

    A sentence belongs to the subject whose pattern occurs first in it; sentences naming no
    subject continue the one before. The item reads only its own subject's sentences (or, when
    the answer never names the subject, the sentences that name no other subject).
    """

    patterns: tuple[str, ...] = Field(min_length=1)
    others: tuple[str, ...] = Field(min_length=1)

    @field_validator("patterns", "others")
    @classmethod
    def _compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_patterns(value)


class WrittenConfig(_Strict):
    # Model statements of the idea, for semantic similarity (and the feedback when it is missed).
    reference: tuple[str, ...] = ()
    elements: tuple[Element, ...] = ()
    # Elements needed for full credit; default: all of them.
    require: tuple[str, ...] | None = None
    partial: tuple[PartialCredit, ...] = ()
    contradictions: tuple[Contradiction, ...] = ()
    exemplars: tuple[Exemplar, ...] = ()
    topic: Topic | None = None
    # Confidence below this sends the item to review (default: see `calibrated_threshold`).
    review_threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    # An item graded from the reference alone by a calibrated model (per answer, with the
    # cohort, or 2-way) uses that model's own threshold, the one at which its fitting data
    # reached 95% agreement, unless a review threshold is set explicitly (this item's, or the
    # rubric's or operator's). None: that default; true: the calibrated threshold even when
    # the rubric or operator sets one; false: always the rubric's (or operator's) threshold.
    calibrated_threshold: bool | None = None
    # Cosine similarity above which a sentence counts as restating a reference (paraphrase).
    paraphrase_similarity: float = Field(default=0.8, ge=0.0, le=1.0)
    # Granularity of points suggested from similarity alone (items without elements).
    step: Decimal = Field(default=Decimal("0.5"), gt=0)
    feedback: str = ""

    @field_validator("step", mode="before")
    @classmethod
    def _exact_step(cls, value: object) -> object:
        return _exact(value)

    @model_validator(mode="after")
    def _known_ids(self) -> WrittenConfig:
        ids = [e.id for e in self.elements]
        if len(set(ids)) != len(ids):
            raise ValueError("element ids must be unique")
        known = set(ids)
        used = list(self.require or ()) + [w for p in self.partial for w in p.when]
        unknown = sorted({u for u in used if u not in known})
        if unknown:
            raise ValueError(f"unknown element id(s): {', '.join(unknown)}")
        if not self.reference and not self.elements:
            raise ValueError("a written item needs reference statements or elements")
        return self

    @property
    def required(self) -> tuple[str, ...]:
        return self.require if self.require is not None else tuple(e.id for e in self.elements)


_LABEL = re.compile(r"[_\-]+")


def element_label(element: Element) -> str:
    return element.label or _LABEL.sub(" ", element.id)


def element_statement(element: Element) -> str:
    return element.statement or element_label(element)
