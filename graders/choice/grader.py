"""The `choice` grader: the selections read from the answer, normalised, compared with the
item's correct choices. Exact by construction: no similarity, no model, no sandbox."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import ClassVar

from graders.choice.config import (
    MAX_SELECTED,
    VERSION,
    ChoiceConfig,
    normalise,
    split_selections,
)
from graders.choice.subparts import part_of
from graders.context import GradingContext
from graders.documents.model import LocatedAnswer
from graders.kind import Grader
from graders.results import Evidence, ItemResult, Status
from graders.rubric_model import RubricItem

UNSURE = 0.0  # confidence of a result sent to review
LABELLED = 0.9  # confidence of a choice read from its label before its option's text
# an option's label before its text or the student's reason: "B) sqrt(d)", "(B) sqrt d",
# "B. sqrt(d)", "B: ...", "B - ...", "B — only the adapters; W stays frozen"
_LABEL_THEN_TEXT = re.compile(
    r"\(?([^\s().:\u2013\u2014]{1,3})(?:(?:\)|[.:]|\s+-)(?:\s|$)|\s*[\u2013\u2014])")
_EMPHASIS = "*_`"  # Markdown's emphasis and code marks


def _answer_text(item: RubricItem, answer: LocatedAnswer, context: GradingContext,
                 config: ChoiceConfig) -> str:
    """The item's own answer: its entry of a keyed upload, or its part of a block answering
    the question's several items (the whole answer when it marks no parts)."""
    if item.id in answer.parts:
        return answer.parts[item.id]
    items = context.question.items
    if len(items) < 2 and config.subpart is None:
        return answer.text
    place = next((i for i, it in enumerate(items, start=1) if it.id == item.id), 1)
    offered = frozenset(c.lower() for it in items for c in it.config.get("choices", ()))
    part = part_of(answer.text, config.subpart, place, offered)
    return answer.text if part is None else part


def _unemphasised(selection: str, known: frozenset[str], case_sensitive: bool) -> str:
    """A selection without the Markdown emphasis around it (`**B**`, `*A`, `D**` of a bolded
    list `**A, B, D**`, `__B__`, `` `B` ``): the student's formatting, not the choice. A known
    choice spelled with those characters (`__init__`) is left whole."""
    if normalise(selection, case_sensitive) in known:
        return selection
    bare = selection.strip().lstrip(_EMPHASIS).rstrip(_EMPHASIS).strip()
    return bare or selection


def _spaced(selected: list[str], offered: set[str]) -> list[str]:
    """A selection of offered labels separated by spaces alone (`A B D`, handwriting's and
    OCR's way) read as those labels, when the offered choices are labels."""
    if not offered or max(len(c) for c in offered) > 3:
        return selected
    read: list[str] = []
    for selection in selected:
        words = selection.split()
        spaced = selection not in offered and len(words) > 1 and all(w in offered for w in words)
        read.extend(words if spaced else [selection])
    return list(dict.fromkeys(read))


def _labels(selected: list[str], offered: set[str]) -> tuple[list[str], bool]:
    """Each selection that is an offered label followed by text ("b) sqrt(d)") read as that
    label, when the offered choices are labels; and whether any was so read."""
    if not offered or max(len(c) for c in offered) > 3:
        return selected, False
    read, changed = [], False
    for selection in selected:
        match = _LABEL_THEN_TEXT.match(selection) if selection not in offered else None
        if match and match.group(1) in offered:
            read.append(match.group(1))
            changed = True
        else:
            read.append(selection)
    return list(dict.fromkeys(read)), changed


class ChoiceGrader(Grader):
    kind: ClassVar[str] = "choice"
    version: ClassVar[str] = VERSION
    config_model: ClassVar[type[ChoiceConfig]] = ChoiceConfig

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        config = ChoiceConfig.model_validate(item.config)
        text = _answer_text(item, answer, context, config)
        known = frozenset(normalise(c, config.case_sensitive)
                          for c in (*config.choices, *config.correct))
        raw = (split_selections(text, known, config.case_sensitive)
               if config.select == "several" else [text])
        raw = [_unemphasised(r, known, config.case_sensitive) for r in raw]
        selected = list(dict.fromkeys(normalise(s, config.case_sensitive) for s in raw))
        selected = [s for s in selected if s]
        offered = {normalise(c, config.case_sensitive) for c in config.choices}
        if config.select == "several":
            selected = _spaced(selected, offered)
        selected, labelled = _labels(selected, offered)
        result = _Result(item, context, selected, LABELLED if labelled else 1.0)
        if not selected:
            return result.make(Fraction(0), Status.MISSING, "No selection was found.",
                               "No answer was found for this part.")
        if len(selected) > MAX_SELECTED:
            return result.make(Fraction(0), Status.NEEDS_REVIEW,
                               f"More than {MAX_SELECTED} selections; needs review.",
                               None, UNSURE)
        unknown = [s for s in selected if offered and s not in offered]
        if config.select == "one":
            return _one(config, result, selected[0], bool(unknown))
        return _several(config, result, selected, unknown)


class _Result:
    """One item's result under construction: what was read is its evidence."""

    def __init__(self, item: RubricItem, context: GradingContext, selected: list[str],
                 sure: float = 1.0) -> None:
        self.item, self.context, self.selected, self.sure = item, context, selected, sure

    def make(self, share: Fraction, status: Status, feedback: str,
             student_feedback: str | None, confidence: float | None = None) -> ItemResult:
        confidence = self.sure if confidence is None else confidence
        shown = "; ".join(sorted(self.selected))
        return ItemResult(
            item_id=self.item.id, question=self.context.question.id,
            points=Fraction(self.item.points) * share, max_points=self.item.points,
            status=status, feedback=feedback, student_feedback=student_feedback,
            evidence=(Evidence(kind="choice", text=shown[:2000], note="selected"),)
            if shown else (),
            confidence=confidence, grader=ChoiceGrader.kind, grader_version=VERSION,
        )


def _expected(config: ChoiceConfig) -> str:
    return " / ".join(config.correct) if config.select == "one" else ", ".join(config.correct)


def _one(config: ChoiceConfig, result: _Result, chosen: str, unknown: bool) -> ItemResult:
    correct = {normalise(c, config.case_sensitive) for c in config.correct}
    if chosen in correct:
        return result.make(Fraction(1), Status.GRADED, f"Correct ({chosen!r}).", "Correct.")
    credit = {normalise(c, config.case_sensitive): share for c, share in config.credit.items()}
    if chosen in credit:
        share = Fraction(credit[chosen])
        return result.make(share, Status.GRADED,
                           f"{chosen!r} earns {float(share * 100):g}% by the item's credit; the "
                           f"correct answer is {_expected(config)!r}.",
                           "Partial credit: not the best answer.")
    if unknown:
        return result.make(Fraction(0), Status.NEEDS_REVIEW,
                           f"{chosen!r} is none of the choices offered "
                           f"({', '.join(config.choices)}); needs review, the machine "
                           f"suggests 0 (correct: {_expected(config)!r}).", None, UNSURE)
    return result.make(Fraction(0), Status.GRADED,
                       f"{chosen!r} is not correct; the correct answer is {_expected(config)!r}.",
                       "Not correct.")


def _several(config: ChoiceConfig, result: _Result, selected: list[str],
             unknown: list[str]) -> ItemResult:
    correct = {normalise(c, config.case_sensitive) for c in config.correct}
    right = [s for s in selected if s in correct]
    wrong = [s for s in selected if s not in correct]
    if config.scoring == "all_or_nothing":
        share = Fraction(1) if set(selected) == correct else Fraction(0)
    else:
        share = max(Fraction(0), Fraction(len(right) - len(wrong), len(correct)))
    told = ("Correct." if share == 1 else
            "Partial credit: some selections are wrong or missing." if share > 0 else
            "Not correct.")
    staff = (f"Selected {len(right)} of the {len(correct)} correct choices"
             + (f" and {len(wrong)} wrong ({', '.join(repr(w) for w in wrong)})" if wrong else "")
             + f"; correct: {_expected(config)!r}; {config.scoring.replace('_', ' ')}.")
    if unknown:
        return result.make(share, Status.NEEDS_REVIEW,
                           f"{', '.join(repr(u) for u in unknown)} is none of the choices "
                           f"offered; needs review. {staff}", None, UNSURE)
    return result.make(share, Status.GRADED, staff, told)


# The kind's one grader (`graders.choice.grader.GRADER`, found through graders.choice.kind).
GRADER = ChoiceGrader()

