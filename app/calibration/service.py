"""Risk control and exemplars from the instructor's grades, per written item of an assignment.

An instructor's decision on an item (an override, stored in `overrides`) is two things:
- an exemplar: the answer and its points join the item's exemplars when the item is graded
  again (never when its own submission is graded: `context.py`);
- a calibration point: the machine's current result of that item (its confidence, and whether
  its points agree with the instructor's within `AGREEMENT` of the item's points) was computed
  without that answer as an exemplar, so it is a held-out measurement. `risk_threshold` picks
  the lowest threshold at which the auto-graded ones err at most the target, counted with one
  error added, so few grades send more to review, not less. With fewer than 1/target grades
  (the rule of `gradeformer grade-table`) the bound can hardly be met: the item keeps its
  default threshold, and says so.

What is learned is stored as a snapshot (`CalibrationSnapshot`), recomputed when a decision
changes (an override set or removed, a target set) or on request, never by grading: grading
and regrading with the same decisions give the same results.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy.orm import Session

from app.assignments.repository import current_version
from app.assignments.service import CurrentRubric, current_rubric, parsed_version
from app.audit.repository import record
from app.calibration import repository
from app.calibration.context import LearnedContext, LearnedExemplar, LearnedItem
from app.db.locks import hold_decisions
from app.db.models import Assignment, User
from app.errors import InvalidInput, NotFound
from graders.registry import kind_of
from graders.rubric import Rubric, RubricItem

# graders.written (its grader, embedder, NumPy) is imported in the functions that use it: the
# grading jobs and regrades that only read a snapshot (`context_text`, `context_for_regrade`
# of an unchanged rubric) do not pay for it (issue #16).

MIN_TARGET, MAX_TARGET = 0.001, 0.5
# A calibrated threshold never goes lower: the grader's own alarms (an answer in another
# language, 0.2; an answer whose location is doubtful) must still reach a person, whatever
# the instructor's grades of ordinary answers say. Raising a threshold only lowers the share
# of answers auto-graded and wrong, so the rule's guarantee holds.
FLOOR = 0.5


@dataclass(frozen=True)
class GradedItem:
    submission: int
    points: Decimal  # the instructor's
    machine_points: Decimal
    confidence: float
    machine_status: str
    answer: str
    same_rubric: bool  # graded by the machine under the current rubric


def needed(target: float) -> int:
    """Instructor grades needed before a threshold can be set, as in `grade-table`
    (`calibrate_question`): 1/target. With fewer, even a machine that got every one right
    meets the bound (errors + 1) / (n + 1) <= target at best exactly, on one answer too few
    to tell a threshold apart."""
    return math.ceil(1 / target - 1e-9)


def target_of(targets: dict[str, float], question: str) -> float:
    from graders.written.settings import DEFAULT_TARGET

    return targets.get(question, targets.get("", DEFAULT_TARGET))


def default_threshold(rubric: Rubric, item: RubricItem) -> float:
    """The threshold the item is held to before instructor grades calibrate it: its own, the
    rubric's when the file sets one, else the written model's calibrated one."""
    from graders.written.grader import stated_threshold

    return stated_threshold(item, rubric)


def written_items(rubric: Rubric) -> list[tuple[str, RubricItem]]:
    return [(q.id, i) for q in rubric.questions for i in q.items
            if kind_of(i.grader).learns_from_overrides]


def disagrees(g: GradedItem, item: RubricItem) -> bool:
    from graders.written.calibration import AGREEMENT

    tolerance = item.points * Decimal(str(AGREEMENT))
    return abs(g.machine_points - min(g.points, item.points)) > tolerance


def graded_by_item(session: Session, current: CurrentRubric) -> dict[str, list[GradedItem]]:
    rubric = current.loaded.rubric
    learning = {item.id: (qid, item.grader) for qid, item in written_items(rubric)}
    found: dict[str, list[GradedItem]] = {}
    for override, score, run in repository.graded_with_machine(session, current.assignment.id):
        if override.item_id not in learning:
            continue
        question, kind = learning[override.item_id]
        found.setdefault(override.item_id, []).append(GradedItem(
            submission=override.submission_id, points=override.points,
            machine_points=score.points, confidence=score.confidence,
            machine_status=score.status, answer=str(run.answers.get(question, "")).strip(),
            same_rubric=run.rubric_hash == current.loaded.content_hash
            and score.grader == kind))
    return found


def learn(session: Session, current: CurrentRubric) -> LearnedContext:
    """Exemplars and calibrated thresholds of every written item, from the decisions so far."""
    rubric = current.loaded.rubric
    targets = repository.targets(session, current.assignment.id)
    graded = graded_by_item(session, current)
    items = {item.id: _learned(question, item, target_of(targets, question),
                               graded.get(item.id, []))
             for question, item in written_items(rubric)}
    return LearnedContext(rubric_hash=current.loaded.content_hash, items=items)


def _learned(question: str, item: RubricItem, target: float,
             rows: list[GradedItem]) -> LearnedItem:
    """One written item's exemplars and threshold (a rubric without one never imports the
    written package)."""
    from graders.written.settings import MAX_EXEMPLARS

    # The latest decisions: an instructor's view of a question sharpens as they grade.
    shown = [g for g in rows if g.answer][-MAX_EXEMPLARS:]
    calibration = [g for g in rows if g.same_rubric]
    threshold = bound = share = None
    if len(calibration) >= needed(target):
        from graders.written.risk import risk_threshold  # the scoring modules: only here

        confidence = [g.confidence for g in calibration]
        wrong = [disagrees(g, item) for g in calibration]
        threshold, bound, share = risk_threshold(confidence, wrong, target)
        if threshold < FLOOR:
            threshold = FLOOR
            chosen = [w for c, w in zip(confidence, wrong, strict=True) if c >= FLOOR]
            bound = (sum(chosen) + 1) / (len(chosen) + 1)
            share = len(chosen) / len(calibration)
    return LearnedItem(
        question=question, threshold=threshold, target=target,
        calibrated_on=len(calibration), expected_error=bound, calibration_auto_share=share,
        exemplars=tuple(LearnedExemplar(submission=g.submission, text=g.answer,
                                        points=g.points) for g in shown))


def refresh(session: Session, assignment_id: int) -> LearnedContext | None:
    """Recompute and store what the assignment's grading learns from its decisions (in the
    caller's transaction). None when the assignment has no rubric."""
    version = _current(session, assignment_id)
    if version is None:
        return None
    learned = learn(session, version)
    repository.store_snapshot(session, assignment_id, learned.rubric_hash,
                              learned.model_dump(mode="json"))
    return learned


def _current(session: Session, assignment_id: int) -> CurrentRubric | None:
    assignment = session.get(Assignment, assignment_id)
    version = None if assignment is None else current_version(session, assignment_id)
    if assignment is None or version is None:
        return None
    return CurrentRubric(assignment, version, parsed_version(version))


def context_text(session: Session, assignment_id: int) -> str | None:
    """The stored snapshot as JSON for a grading job; None when nothing was learned. Read
    only (uploads call it in their writing transaction): a snapshot of an older rubric is
    still handed out, and the grading process ignores it (`apply_context`)."""
    row = repository.snapshot(session, assignment_id)
    items = {} if row is None else row.body.get("items") or {}
    # Checked on the stored JSON as it is (uploads pay for this): validated where it is used.
    if row is None or not any(
        i.get("exemplars") or i.get("threshold") is not None for i in items.values()
    ):
        return None
    return json.dumps(row.body, sort_keys=True, separators=(",", ":"))


def context_for_regrade(session: Session, current: CurrentRubric, store: bool) -> str | None:
    """The snapshot for a regrade; relearned first when it was learned under another rubric
    (the regrade that follows a rubric change then uses the decisions made so far), and
    stored unless `store` is false (a dry run changes nothing)."""
    row = repository.snapshot(session, current.assignment.id)
    if row is not None and row.rubric_hash == current.loaded.content_hash:
        return context_text(session, current.assignment.id)
    if store:
        refresh(session, current.assignment.id)
        return context_text(session, current.assignment.id)
    learned = learn(session, current)
    return None if learned.empty else learned.model_dump_json()


def set_target(session: Session, slug: str, question: str | None, target: float,
               actor: User | None) -> LearnedContext:
    """Set the error allowed among auto-graded answers (of one question, or of the whole
    assignment), and recalibrate."""
    current = current_rubric(session, slug)
    hold_decisions(session, current.assignment.id)  # a question's first target, set twice
    if not MIN_TARGET <= target <= MAX_TARGET:
        raise InvalidInput(f"The target must be between {MIN_TARGET} and {MAX_TARGET}; "
                           f"got {target}.")
    if question is not None:
        known = {q.id for q in current.loaded.rubric.questions}
        if question not in known:
            raise NotFound(f"The rubric of {slug!r} has no question {question!r}.")
    repository.set_target(session, current.assignment.id, question or "", target,
                          None if actor is None else actor.id)
    record(session, actor, "risk.target", "assignment", slug,
           {"question": question, "target": target})
    learned = refresh(session, current.assignment.id)
    assert learned is not None
    return learned


def recalibrate(session: Session, slug: str, actor: User | None) -> LearnedContext:
    current = current_rubric(session, slug)
    hold_decisions(session, current.assignment.id)
    learned = refresh(session, current.assignment.id)
    assert learned is not None
    record(session, actor, "risk.recalibrate", "assignment", slug, {})
    return learned
