"""Grade a parsed submission against a rubric: every item gets exactly one ItemResult."""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from functools import partial
from typing import Any

from graders.cache import result_cache
from graders.cache.groups import grade_cached
from graders.cache.keys import submission_digest
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.registry import get_grader, get_kind
from graders.results import ItemResult, Status
from graders.rubric_model import LoadedRubric, Question, Rubric, RubricItem
from graders.totals import run_status as status_of

ENGINE_VERSION = "1"


class RunStatus(StrEnum):
    GRADED = "graded"
    NEEDS_REVIEW = "needs_review"
    PENDING = "pending"  # some item's grader kind is not available
    GRADER_ERROR = "grader_error"


@dataclass(frozen=True)
class GradingOutcome:
    rubric_hash: str
    items: tuple[ItemResult, ...]

    @property
    def total(self) -> Decimal:
        return sum((r.points for r in self.items if r.counts_toward_total), Decimal(0))

    @property
    def max_points(self) -> Decimal:
        return sum((r.max_points for r in self.items), Decimal(0))

    @property
    def status(self) -> RunStatus:
        return run_status(self.items)


def run_status(items: Sequence[ItemResult]) -> RunStatus:
    return RunStatus(status_of(r.status.value for r in items))


def _plain(
    item: RubricItem, question: Question, status: Status, feedback: str, grader: str = "engine"
) -> ItemResult:
    return ItemResult(
        item_id=item.id,
        question=question.id,
        points=0,
        max_points=item.points,
        status=status,
        feedback=feedback,
        confidence=1.0 if status is Status.MISSING else 0.0,
        grader=grader,
        grader_version=ENGINE_VERSION,
    )


def _not_asked(
    item: RubricItem, question: Question, reason: str, absent_from: tuple[str, ...]
) -> ItemResult:
    """No answer to a question some handout editions do not ask: counted for nothing."""
    editions = ", ".join(absent_from)
    return ItemResult(
        item_id=item.id, question=question.id, points=0, max_points=0,
        status=Status.MISSING, confidence=1.0, grader="engine", grader_version=ENGINE_VERSION,
        feedback=(f"{reason} The {editions} handout does not ask {question.id}, so it is not "
                  "counted (0 of 0); if this student's handout asked it, grade it by hand."),
        student_feedback=(f"Not counted: part {question.id} is not in every version of the "
                          "handout, and no answer to it was found."),
    )


def _not_in_edition(
    item: RubricItem, question: Question, reason: str, handout: str
) -> ItemResult:
    """A question the declared handout edition does not ask: not graded, counted for nothing."""
    return ItemResult(
        item_id=item.id, question=question.id, points=0, max_points=0,
        status=Status.MISSING, confidence=1.0, grader="engine", grader_version=ENGINE_VERSION,
        feedback=(f"Not counted (0 of 0): the {handout} handout, declared with this "
                  f"submission, does not ask {question.id}. {reason}"),
        student_feedback=(f"Not counted: your handout ({handout}) does not ask part "
                          f"{question.id}."),
    )


NO_ANSWER = "No answer to this question was found."


def unanswered(
    rubric: Rubric, question: Question, reason: str, doubt: str = "",
    handout: str | None = None, unsure: str = "",
) -> list[ItemResult]:
    """The results of a question the document has no answer to (`reason`: the parser's, or
    NO_ANSWER), or that the declared edition (`handout`) does not ask: missing, or not counted
    when that edition does not ask it or, undeclared, when some handout editions do not ask it.
    In a document that may not answer this assignment at all (`doubt`), or when unclaimed text
    may answer this question (`unsure`: ParsedSubmission.unsure), they go to review instead of
    0."""
    if handout is not None:
        if not rubric.asks(question, handout):
            return [_not_in_edition(item, question, reason, handout) for item in question.items]
    elif absent_from := rubric.handouts_without(question):
        return [_not_asked(item, question, reason, absent_from) for item in question.items]
    if doubt or unsure:
        why = "; ".join(w for w in (unsure, doubt) if w)
        return [_doubted(item, question, reason, why) for item in question.items]
    return [_plain(item, question, Status.MISSING, reason) for item in question.items]


def unanswered_in(rubric: Rubric, question: Question,
                  submission: ParsedSubmission) -> list[ItemResult]:
    """`unanswered` with the submission's own reason, doubt, edition and unclaimed text: what
    the engine gives the items of a question it does not grade (and a regrade's fast path too)."""
    return unanswered(rubric, question, submission.missing.get(question.id, NO_ANSWER),
                      submission.doubt, submission.handout, submission.unsure.get(question.id, ""))


def _doubted(item: RubricItem, question: Question, reason: str, doubt: str) -> ItemResult:
    return ItemResult(
        item_id=item.id, question=question.id, points=0, max_points=item.points,
        status=Status.NEEDS_REVIEW, confidence=0.0, grader="engine",
        grader_version=ENGINE_VERSION,
        feedback=f"{reason} Needs review: {doubt}; the machine suggests 0 of {item.points} points.",
    )


def location_review(results: list[ItemResult], answer: LocatedAnswer) -> list[ItemResult]:
    """Items of an answer found only by weak evidence, or of a doubted document, go to review
    with the reason; the grader's points stay as the machine's suggestion."""
    reasons = [r for r in (answer.weak_reason if answer.strength == "weak" else "",
                           answer.doubt) if r]
    if not reasons:
        return results
    why = "; ".join(reasons)
    out: list[ItemResult] = []
    for result in results:
        if result.status is not Status.GRADED:
            out.append(result)
            continue
        note = (f"Needs review: {why}; the machine suggests {result.points} of "
                f"{result.max_points} points.")
        out.append(result.model_copy(update={
            "status": Status.NEEDS_REVIEW,
            "feedback": " ".join(f for f in (result.feedback, note) if f),
        }))
    return out


UNRUN = ("it reads the program's text and does not run it, so whether the code works is not "
         "checked (a code battery runs it: docs/rubrics.md)")


def unrun_review(results: Sequence[ItemResult], question: Question,
                 kind: str) -> list[ItemResult]:
    """On a question answered with code, the items of a kind that does not run programs (a
    written item reading the code, say) go to review with the machine's points as its
    suggestion: text that looks right may not run, and text that looks wrong may work. Applied
    in `grade_group` and again to what the result cache returns (a result stored before this
    rule); a second pass changes nothing."""
    strategy = get_kind(kind)
    if question.answer_kind != "code" or strategy is None or strategy.runs_programs:
        return list(results)
    return [r if r.status is not Status.GRADED else r.model_copy(update={
        "status": Status.NEEDS_REVIEW,
        "feedback": " ".join(f for f in (r.feedback, f"Needs review: {UNRUN}; the machine "
                                         f"suggests {r.points} of {r.max_points} points.") if f),
    }) for r in results]


def unrun_items(rubric: Rubric) -> list[tuple[Question, list[RubricItem]]]:
    """The items `unrun_review` always sends to review, per question (`rubric validate` says
    so)."""
    found = []
    for question in rubric.questions:
        if question.answer_kind != "code":
            continue
        items = [i for i in question.items
                 if (k := get_kind(i.grader)) is not None and not k.runs_programs]
        if items:
            found.append((question, items))
    return found


def grade_group(
    kind: str, items: list[RubricItem], answer: LocatedAnswer, context: GradingContext
) -> list[ItemResult]:
    """One grader on a question's items of its kind, its failures kept as data: a grader that
    raises, omits an item or gives points out of range yields `grader_error` for the item."""
    question = context.question
    grader = get_grader(kind)
    if grader is None:
        return [
            _plain(i, question, Status.PENDING, f"The {kind!r} grader is not available yet; "
                   "this item is not scored.", kind)
            for i in items
        ]
    try:
        results = grader.grade_items(items, answer, context)
    except Exception as exc:  # a bug of ours must never become the student's zero
        where = traceback.extract_tb(exc.__traceback__)[-1]
        message = (f"Internal grader error ({type(exc).__name__} in {where.name}); "
                   "this item needs a human grader.")
        return [_plain(i, question, Status.GRADER_ERROR, message, kind) for i in items]
    by_id = {r.item_id: r for r in results}
    out: list[ItemResult] = []
    for item in items:
        result = by_id.get(item.id)
        if result is None:
            out.append(_plain(item, question, Status.GRADER_ERROR,
                              f"The {kind!r} grader returned no result for this item.", kind))
        elif result.points > item.points or result.points < 0:
            out.append(_plain(item, question, Status.GRADER_ERROR,
                              f"The {kind!r} grader gave {result.points} of {item.points} points.",
                              kind))
        else:
            out.append(result)
    return location_review(unrun_review(out, question, kind), answer)


def grade_submission(
    loaded: LoadedRubric,
    submission: ParsedSubmission,
    resources: GradingResources | None = None,
    located: str | None = None,
) -> GradingOutcome:
    """`located`: `submission_digest(submission)` when the caller has it already."""
    rubric = loaded.rubric
    resources = resources if resources is not None else GradingResources()
    results: dict[str, ItemResult] = {}
    scratch: dict[str, Any] = {}
    cache = result_cache(resources)
    if not cache.enabled:
        located = ""
    elif located is None:
        located = submission_digest(submission)
    for question in rubric.questions:
        answer = submission.answers.get(question.id)
        if (answer is None or not answer.text.strip()
                or not rubric.asks(question, submission.handout)):
            for result in unanswered_in(rubric, question, submission):
                results[result.item_id] = result
            continue
        context = GradingContext(
            rubric=rubric, question=question, submission=submission,
            resources=resources, earlier=dict(results), per_submission=scratch,
        )
        groups: dict[str, list[RubricItem]] = {}
        for item in question.items:
            groups.setdefault(item.grader, []).append(item)
        for kind, items in groups.items():
            grade = partial(grade_group, kind, items, answer, context)
            graded = grade_cached(cache, loaded, kind, items, context, located, grade)
            for result in unrun_review(graded, question, kind):
                results[result.item_id] = result
    ordered = tuple(results[item.id] for item in rubric.items())
    return GradingOutcome(rubric_hash=loaded.content_hash, items=ordered)
