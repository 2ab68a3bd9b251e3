"""Risk control as the dashboard shows it, per written item: what is in effect (the stored
snapshot) next to what the instructor's grades measure now (the current machine results)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlalchemy.orm import Session

from app.assignments.service import CurrentRubric
from app.calibration import repository
from app.calibration.context import LearnedContext, LearnedItem
from app.calibration.service import (
    default_threshold,
    disagrees,
    graded_by_item,
    needed,
    target_of,
    written_items,
)


@dataclass(frozen=True)
class ItemRisk:
    item: str
    question: str
    title: str
    target: float
    instructor_graded: int  # decisions on this item (overrides with a machine result)
    exemplars: int  # of them, answers given to the grader as exemplars
    threshold: float  # in effect: calibrated, or the default when too few grades
    calibrated: bool
    default_threshold: float
    calibrated_on: int
    expected_error: float | None  # the calibration bound at the threshold
    # Among instructor-graded answers the machine auto-graded (status graded), the share whose
    # points the instructor changed by more than the agreement tolerance; None when none.
    measured_error: float | None
    measured_on: int
    automated_share: float | None  # of the item's current results, the auto-graded share
    note: str


def risk_control(session: Session, current: CurrentRubric) -> list[ItemRisk]:
    rubric = current.loaded.rubric
    row = repository.snapshot(session, current.assignment.id)
    learned = None if row is None else LearnedContext.model_validate(row.body)
    stale = learned is not None and learned.rubric_hash != current.loaded.content_hash
    targets = repository.targets(session, current.assignment.id)
    graded = graded_by_item(session, current)
    counts = repository.status_counts(session, current.assignment.id)
    out: list[ItemRisk] = []
    for question, item in written_items(rubric):
        kept = None if learned is None or stale else learned.items.get(item.id)
        info = kept if kept is not None else LearnedItem(question=question)
        target = target_of(targets, question)
        default = default_threshold(rubric, item)
        rows = graded.get(item.id, [])
        auto = [g for g in rows if g.same_rubric and g.machine_status == "graded"]
        total = sum(n for (i, _), n in counts.items() if i == item.id)
        if stale:
            note = ("Learned under an earlier rubric: a regrade (or `gradeformer risk "
                    "recalibrate`) relearns it; the default threshold stands meanwhile.")
        elif info.threshold is None:
            note = (f"Too few instructor grades to calibrate: {info.calibrated_on} of the "
                    f"{needed(target)} needed for a {target:.1%} target; the default "
                    f"threshold {default:g} stands.")
        else:
            note = (f"Threshold {info.threshold:g} from {info.calibrated_on} instructor "
                    f"grades (error bound {info.expected_error or 0:.1%} for a {target:.1%} "
                    "target).")
        out.append(ItemRisk(
            item=item.id, question=question, title=item.title, target=target,
            instructor_graded=len(rows), exemplars=len(info.exemplars),
            threshold=info.threshold if info.threshold is not None else default,
            calibrated=info.threshold is not None, default_threshold=default,
            calibrated_on=info.calibrated_on, expected_error=info.expected_error,
            measured_error=(round(sum(disagrees(g, item) for g in auto) / len(auto), 4)
                            if auto else None),
            measured_on=len(auto),
            automated_share=round(counts.get((item.id, "graded"), 0) / total, 4)
            if total else None,
            note=note))
    return out


def risk_control_json(session: Session, current: CurrentRubric) -> list[dict[str, object]]:
    return [asdict(r) for r in risk_control(session, current)]
