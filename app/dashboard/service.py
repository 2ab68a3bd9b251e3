"""Assignment statistics for instructors: totals, per-item difficulty, common wrong answers.

Every statistic is over the submission that counts for each student (latest, best or chosen:
app/submissions/counting.py), the same rule as the gradebook: a student who uploaded twice is
one student, and a replaced upload weighs nothing."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from sqlalchemy.orm import Session

from app.assignments.schedule import Schedule
from app.assignments.service import current_rubric
from app.calibration.summary import risk_control_json
from app.submissions.counting import counted_per_student
from app.submissions.scoring import EffectiveItem
from app.submissions.service import ScoredSubmission, scored_for_assignment

HISTOGRAM_BINS = 10
WRONG_ANSWER_GROUPS = 5
_ANSWER_KINDS = ("value", "expression", "answer", "check", "sentence")
_CENT = Decimal("0.01")


@dataclass
class _ItemTally:
    question: str
    title: str
    max_points: Decimal
    points: list[Decimal] = field(default_factory=list)
    full: int = 0
    needs_review: int = 0
    wrong: Counter[str] = field(default_factory=Counter)
    wrong_example: dict[str, tuple[Decimal, str]] = field(default_factory=dict)


def _round(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_HALF_EVEN)


def answer_key(item: EffectiveItem) -> str:
    """What the student gave, normalised so equal answers group together."""
    for kind in _ANSWER_KINDS:
        for evidence in item.evidence:
            if isinstance(evidence, dict) and evidence.get("kind") == kind:
                text = str(evidence.get("text", ""))
                normalised = re.sub(r"\s+", " ", text).strip().lower()
                if normalised:
                    return normalised[:120]
    return "(no answer found)" if item.machine_status == "missing" else "(no extracted value)"


def histogram(totals: list[Decimal], max_points: Decimal) -> list[dict[str, Any]]:
    width = max_points / HISTOGRAM_BINS if max_points > 0 else Decimal(1)
    counts = [0] * HISTOGRAM_BINS
    for total in totals:
        index = int(total / width) if width else 0
        counts[min(max(index, 0), HISTOGRAM_BINS - 1)] += 1
    return [
        {"lo": _round(width * i), "hi": _round(width * (i + 1)), "count": counts[i]}
        for i in range(HISTOGRAM_BINS)
    ]


def dashboard(session: Session, slug: str) -> dict[str, Any]:
    current = current_rubric(session, slug)
    rubric = current.loaded.rubric
    tallies = {
        item.id: _ItemTally(q.id, item.title, item.points)
        for q in rubric.questions
        for item in q.items
    }
    status_counts: Counter[str] = Counter()
    totals: list[Decimal] = []
    uploaded = 0

    def every_submission() -> Iterator[ScoredSubmission]:
        nonlocal uploaded
        for s in scored_for_assignment(session, current.assignment.id):
            uploaded += 1
            yield s

    counted = counted_per_student(every_submission(), Schedule.of(current.assignment))
    for _, s in sorted(counted.items()):
        status_counts[s.score.status] += 1
        if s.score.total is not None:
            totals.append(s.score.total)
        for item in s.score.items:
            tally = tallies.get(item.item_id)
            if tally is None or not item.counts:
                continue  # an item of an older rubric, or one nothing was computed for
            tally.points.append(item.points)
            tally.needs_review += item.status == "needs_review"
            if item.full_credit:
                tally.full += 1
            else:
                key = answer_key(item)
                tally.wrong[key] += 1
                tally.wrong_example.setdefault(key, (item.points, item.feedback))
    items = []
    for item_id, t in tallies.items():
        n = len(t.points)
        mean = _round(sum(t.points, Decimal(0)) / n) if n else None
        items.append(
            {
                "id": item_id,
                "question": t.question,
                "title": t.title,
                "max_points": t.max_points,
                "scored": n,
                "mean": mean,
                "full_credit_rate": round(t.full / n, 4) if n else None,
                "difficulty": None
                if mean is None or not t.max_points
                else round(1 - float(mean / t.max_points), 4),
                "needs_review": t.needs_review,
                "common_wrong_answers": [
                    {
                        "answer": key,
                        "count": c,
                        "points": t.wrong_example[key][0],
                        "feedback": t.wrong_example[key][1],
                    }
                    for key, c in t.wrong.most_common(WRONG_ANSWER_GROUPS)
                ],
            }
        )
    return {
        "assignment": slug,
        "title": rubric.title,
        "rubric_hash": current.loaded.content_hash,
        "max_points": rubric.max_points,
        "submissions": len(counted),  # one per student: the submission that counts
        "uploads": uploaded,  # every stored submission, replaced ones included
        "scored": len(totals),
        "mean": _round(sum(totals, Decimal(0)) / len(totals)) if totals else None,
        "median": _round(Decimal(statistics.median(totals))) if totals else None,
        "std": _round(statistics.pstdev(totals)) if len(totals) > 1 else None,
        "histogram": histogram(totals, rubric.max_points),
        "status_counts": dict(sorted(status_counts.items())),
        "items": items,
        # Per written item: target, threshold in effect, measured error, automated share.
        "risk_control": risk_control_json(session, current),
    }
