"""The `written` grader's rubric config: concepts as phrasings and patterns, partial levels,
contradictions."""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from decimal import Decimal
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from graders.written.patterns import PatternError, compile_pattern

# The grader's version (WrittenGrader.version), one definition: it names the grader's code in every
# cache key, and the keys read it here without importing the grader (graders.registry).
# 10: the matcher (wrong claims in plain words) and the 2-way agreement rule, each once called 9.
# 11: less than full credit on a correct-or-not item, calibrated (`calibration.NotFull`).
# 12: "non-X" is one word; a wrong claim beside a stated element goes to review; a clause a
# closer element states is a weak match; examples after a comma are clauses; lower-case
# sentences are split.
# 13: the contradiction signal reads a quantifier's negation ("no children") as possibly the
# same claim as a negated word, and no role swap the reference states both ways (calibration
# refitted); a negation of going past a limit states it; a premise denying a missing element
# beside a wrong conclusion goes to review; a dim paraphrase using half of a phrasing's own
# words is a weak match.
# 14: answers typed without capitals, and a full stop before a label or a formula's name, end
# sentences; arithmetic said in words and f'(x) are read as formulas; comma splices and
# notes' lists are clauses; a wrong claim's near miss or denial goes to review; a dim match
# with nearly all of a phrasing's words is weak; a slip in a long word of the question's.
# 15: a credited sentence that restricts its claim by a condition ("only if", "unless"), a
# word-order example below full credit and an analogy graded zero go to review (`doubts`);
# transformer-basics reads the collapse, XOR's lack of one line, heads attending "jointly" and
# roles of q_i, k_j, v_j in more words, and a label before a definition is not an example.
# 16: shortenings of typed notes read as the question's words; a centred-dot product; arrowed
# notes, unread definitions, reasons in new words and negations in other clauses go to review.
# 17: a result clause denying what an element prevents states it ("... so the softmax doesn't
# saturate"); a statistic written as a function ("var(q·k)") is its word; a restated question
# with a reason that does not carry the idea, an answer that is only an example graded zero,
# and a note linked by "=" or with a product in symbols where a product is missed go to review;
# "argmax" is a term of the largest/best class, "overall"/"total"/"joint" one class; "mult"
# in a note is "multiply" where the question says so.
# 19: a phrasing naming a number is not established by a stretch naming only other numbers
# (`quantities`); a full credit given with the cohort on an item whose reference is a fragment
# of a few words is no longer sent to review for being far from it (`scoring.terse`).
# 20: the opposite doubt reads claims (`contradiction.words_of(claims=True)`): a negated
# antonym, "instead of"/"rather than"/"avoids" + verb, a double negation, a condition, the
# other side of a contrast ("pre-LN is never normalised" against "post-LN normalises") and a
# quantifier or antonym about another word agree with the reference; a pattern's hyphen
# between letters ('warm-?up') matches a hyphen, a space or none, as answers are read.
# 21: an answer in which no item of the question recognises anything, with a sentence of its
# own words, sends the items it leaves at zero to review, and a clause of a credited sentence
# that no credit rests on keeps a partial credit from being confident (`unexplained`); when an
# answer never names an item's topic, a sentence after another subject's is that subject's.
# 22: an item whose own sub-part (or topic) nothing recognises is judged on that part alone, and
# there one content word of its own is substance, and a sentence nothing credits keeps a
# partial credit there from being confident; sub-parts marked `Q7.a`, `7-b`, and text before a
# lone second marker is the first sub-part (the answer located after "Q7.a"); an item
# asking for any k of its elements reads a list's items; words clipped with a full stop ("mixed
# prec.") and "w.p." read as the question's words (`unexplained`, `subparts`, `shorthand`).
# 23: the opposite doubt reads a statement the answer disowns: denied in front ("it is false
# that"), taken back after it ("just kidding", "they are wrong", "... is a myth") or offered
# both ways ("either separable or not separable"); HTML strike-through is not read (`retraction`).
# 24: a clause-opening "without" negates only its object, comma or not ("Without it a few
# experts get every token" states the few experts; `patterns`, `contradiction.words_of`); the
# opposite doubt compares a consequence after "Without X" with the reference's after one.
# 25: so does a negated condition opening the clause, comma or not ("If we didn't have it the
# experts get every token", "Had we not used scaling the softmax saturates"; `patterns`).
# 26: a sentence that is the question's own text (a run of the prompt's words, or a question in
# none but its content words) is not read as the student's (`echo`); invisible format
# characters in a cue word or sub-part marker read as a browser shows them (`invisible`).
VERSION = "26"


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


# A phrasing shorter than this in content words is a keyword: a pattern says it better.
MIN_PHRASING_WORDS = 2
_PHRASING_WORD = re.compile(r"[^\W\d_]{3,}")


def _check_phrasings(value: tuple[str, ...]) -> tuple[str, ...]:
    for phrasing in value:
        if len(_PHRASING_WORD.findall(phrasing)) < MIN_PHRASING_WORDS:
            raise ValueError(
                f"phrasing {phrasing!r} is not a sentence (at least {MIN_PHRASING_WORDS} "
                "words): state the idea, or give a keyword as a pattern")
    return value


class _Stated(_Strict):
    """An idea given as `phrasings` and/or `patterns` (each subclass declares both fields):
    every pattern must compile, every phrasing must be a sentence."""

    @field_validator("patterns", check_fields=False)
    @classmethod
    def _compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_patterns(value)

    @field_validator("phrasings", check_fields=False)
    @classmethod
    def _sentences(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_phrasings(value)


class Element(_Stated):
    """One idea an answer must state: any of its phrasings matched by meaning, or any of its
    patterns, establishes it in a sentence (see `graders.written.meaning`)."""

    id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    # The idea in plain sentences, matched against the answer's sentences and clauses.
    phrasings: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    # What the idea is, in feedback ("the growth of q·k with d_k").
    label: str = ""
    # The idea as a full sentence, compared with the answer when no pattern found it
    # (default: the label).
    statement: str = ""

    @model_validator(mode="after")
    def _stated(self) -> Element:
        if not self.phrasings and not self.patterns:
            raise ValueError(f"element {self.id!r} needs phrasings or patterns")
        return self


class AnyOf(_Strict):
    """Any `any` of the elements `of` ("name two of these five techniques")."""

    any: int = Field(ge=1)
    of: tuple[str, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _reachable(self) -> AnyOf:
        if len(set(self.of)) != len(self.of):
            raise ValueError("an 'any ... of' group names an element twice")
        if self.any > len(self.of):
            raise ValueError(f"'any: {self.any}' of {len(self.of)} elements can never be met")
        return self

    def met(self, found: AbstractSet[str]) -> bool:
        return sum(1 for e in self.of if e in found) >= self.any


def _condition_kind(value: object) -> str:
    return "group" if isinstance(value, dict | AnyOf) else "id"


# One condition of `require` or of a partial level's `when`: an element id, or a group (a
# mapping is read as a group only, so a broken group reports its own problem, once).
Condition = Annotated[Annotated[str, Tag("id")] | Annotated[AnyOf, Tag("group")],
                      Discriminator(_condition_kind)]


def conditions_met(conditions: tuple[Condition, ...], found: AbstractSet[str]) -> bool:
    return all(c in found if isinstance(c, str) else c.met(found) for c in conditions)


def condition_ids(conditions: tuple[Condition, ...]) -> list[str]:
    return [i for c in conditions for i in ((c,) if isinstance(c, str) else c.of)]


def _as_conditions(value: object) -> object:
    # `require: {any: 2, of: [...]}` alone is the one group it names.
    return [value] if isinstance(value, dict) else value


class PartialCredit(_Strict):
    """Points when these elements are present but full credit is not reached."""

    points: Decimal = Field(ge=0)
    when: tuple[Condition, ...] = Field(min_length=1)
    feedback: str = ""

    @field_validator("points", mode="before")
    @classmethod
    def _exact_points(cls, value: object) -> object:
        return _exact(value)

    @field_validator("when", mode="before")
    @classmethod
    def _group(cls, value: object) -> object:
        return _as_conditions(value)


class Contradiction(_Stated):
    """A known wrong statement: when stated (not negated), points are capped at `points`.

    Given as `phrasings` (the wrong claim in plain sentences, matched by meaning with the
    guards of `graders.written.meaning`: only a strong match caps) or `patterns`, or both."""

    phrasings: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    points: Decimal = Field(default=Decimal(0), ge=0)
    feedback: str

    @model_validator(mode="after")
    def _stated(self) -> Contradiction:
        if not self.phrasings and not self.patterns:
            raise ValueError("a contradiction needs phrasings or patterns")
        return self

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
    the answer never names the subject, the sentences that name no other subject). The other
    subjects are `others`, or, when it is left out, the topics of the question's other written
    items (`graders.written.matching.topic_among`): a subject is named once, in its own item.
    """

    patterns: tuple[str, ...] = Field(min_length=1)
    others: tuple[str, ...] = ()

    @field_validator("patterns", "others")
    @classmethod
    def _compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_patterns(value)


class WrittenConfig(_Strict):
    # Model statements of the idea, for semantic similarity (and the feedback when it is missed).
    reference: tuple[str, ...] = ()
    elements: tuple[Element, ...] = ()
    # Elements needed for full credit (ids, or `{any: k, of: [...]}` groups); default: all.
    require: tuple[Condition, ...] | None = None
    partial: tuple[PartialCredit, ...] = ()
    contradictions: tuple[Contradiction, ...] = ()
    exemplars: tuple[Exemplar, ...] = ()
    topic: Topic | None = None
    # The item answers this sub-part of its question: when the answer marks sub-answers
    # ("1) ... 2) ...", "(a) ... (b) ..."), the item reads the one with this label.
    subpart: str | None = Field(default=None, pattern=r"^(?i:[1-9][0-9]?|[a-h]|i{1,3}|iv|vi{0,3})$")
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

    @field_validator("require", mode="before")
    @classmethod
    def _group(cls, value: object) -> object:
        return _as_conditions(value)

    @model_validator(mode="after")
    def _known_ids(self) -> WrittenConfig:
        ids = [e.id for e in self.elements]
        if len(set(ids)) != len(ids):
            raise ValueError("element ids must be unique")
        known = set(ids)
        used = condition_ids(self.require or ()) + [
            w for p in self.partial for w in condition_ids(p.when)]
        unknown = sorted({u for u in used if u not in known})
        if unknown:
            raise ValueError(f"unknown element id(s): {', '.join(unknown)}")
        if not self.reference and not self.elements:
            raise ValueError("a written item needs reference statements or elements")
        return self

    @property
    def required(self) -> tuple[Condition, ...]:
        return self.require if self.require is not None else tuple(e.id for e in self.elements)

    @property
    def phrased(self) -> bool:
        return any(e.phrasings for e in self.elements)

    @property
    def phrased_contradictions(self) -> tuple[Contradiction, ...]:
        return tuple(c for c in self.contradictions if c.phrasings)


_LABEL = re.compile(r"[_\-]+")


def element_label(element: Element) -> str:
    return element.label or _LABEL.sub(" ", element.id)


def element_statement(element: Element) -> str:
    return element.statement or (element.phrasings[0] if element.phrasings
                                 else element_label(element))


def question_texts(configs: Iterable[WrittenConfig], prompt: str = "") -> list[str]:
    """Every text the question gives: its prompt, and its written items' references, element
    phrasings, statements and labels, and contradictions (the question's own vocabulary)."""
    texts = [prompt]
    for config in configs:
        texts += config.reference
        for element in config.elements:
            texts += [*element.phrasings, element.statement or "", element.label or ""]
        texts += [t for c in config.contradictions for t in c.phrasings]
    return texts
