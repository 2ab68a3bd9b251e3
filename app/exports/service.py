"""Gradebook CSV (one row per student) and Gradescope-style results.json (one per submission)."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from app.assignments.schedule import Schedule
from app.assignments.service import current_rubric, require_assignment
from app.db.models import RosterStudent
from app.exports.checks import ExportCheck, Rows, check, kept
from app.points import as_number
from app.roster.service import roster_for_assignment
from app.sanitize import csv_cell
from app.submissions.counting import counted_per_student, final_total
from app.submissions.service import ScoredSubmission, scored_for_assignment
from app.submissions.visibility import AssignmentView, student_error, student_score

# After the question columns: the late penalty, the grade after it, and whether students can see
# it yet (a gradebook imported before publication must not look final).
LATE_COLUMNS = ["days_late", "penalty_percent", "final_total", "published"]
# The identifiers an LMS matches a row by (from the roster; empty for a student not on it).
LMS_COLUMNS = ["name", "email", "sis_user_id", "sis_login_id", "section"]


def lms_cells(entry: RosterStudent | None) -> list[str]:
    if entry is None:
        return ["" for _ in LMS_COLUMNS]
    return [entry.name, entry.email, entry.sis_user_id, entry.sis_login_id, entry.section]


def export_check(session: Session, slug: str) -> ExportCheck:
    """What the assignment's exports would ship that is not final (app/exports/checks.py)."""
    assignment = require_assignment(session, slug)
    schedule = Schedule.of(assignment)
    counted = counted_per_student(scored_for_assignment(session, assignment.id), schedule)
    return check(counted, roster_for_assignment(session, slug), schedule.published)


def gradebook_csv(session: Session, slug: str, rows: Rows = "all") -> str:
    current = current_rubric(session, slug)
    questions = [q.id for q in current.loaded.rubric.questions]
    schedule = Schedule.of(current.assignment)
    # One row per student: the submission that counts (latest, best or chosen).
    latest = counted_per_student(scored_for_assignment(session, current.assignment.id), schedule)
    roster = roster_for_assignment(session, current.assignment.slug)
    found = check(latest, roster, schedule.published)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [csv_cell(c) for c in ["student", *LMS_COLUMNS, "submission_id", "status", *questions,
                               "total", "max_points", *LATE_COLUMNS]]
    )
    # Every student with a submission, and every roster student (without one: empty grade).
    for student in sorted(set(latest) | set(roster)):
        if not kept(student, found, rows):
            continue
        entry = roster.get(student)
        if student not in latest:
            blanks = ["", "no_submission", *["" for _ in questions], "", "", "", "", ""]
            published = "yes" if schedule.published else "no"
            writer.writerow(csv_cell(c) for c in [student, *lms_cells(entry), *blanks, published])
            continue
        s = latest[student]
        submitted = s.submission.created_at
        final = final_total(s, schedule)
        per_question: dict[str, Decimal] = {}
        for item in s.score.items:
            if item.counts:
                per_question[item.question] = (
                    per_question.get(item.question, Decimal(0)) + item.points
                )
        graded = bool(s.score.items)
        writer.writerow(
            csv_cell(cell)
            for cell in [
                student,
                *lms_cells(entry),
                s.submission.id,
                s.score.status,
                *[str(per_question.get(q, Decimal("0.00"))) if graded else "" for q in questions],
                "" if s.score.total is None else str(s.score.total),
                "" if s.score.max_points is None else str(s.score.max_points),
                schedule.days_late(submitted),
                str(schedule.penalty_percent(submitted)),
                "" if final is None else str(final),
                "yes" if schedule.published else "no",
            ]
        )
    return out.getvalue()


def _execution_time(s: ScoredSubmission) -> float | None:
    seconds = None if s.run is None else s.run.execution_time
    return None if seconds is None else round(seconds, 3)


def gradescope_results(s: ScoredSubmission, view: AssignmentView, staff: bool) -> dict[str, Any]:
    """Gradescope's results.json. Every `output` is the student-facing message (Gradescope shows
    it to students) and every test carries the rubric item's visibility. A student's own copy
    holds only the tests released to them, and a score only once their total is."""
    student = student_score(s, view)
    tests: list[dict[str, Any]] = []
    for number, (item, shown) in enumerate(zip(s.score.items, student.items, strict=True), 1):
        if not staff and not shown.released:
            continue
        test: dict[str, Any] = {
            "name": f"{item.question} {item.item_id}",
            "number": str(number),
            "max_score": as_number(item.max_points),
            "output": shown.feedback,
            "tags": [item.question],
            "visibility": view.visibility(item.item_id),
        }
        if staff or shown.points is not None:
            test["score"] = as_number(item.points if item.counts else Decimal(0))
            test["status"] = "passed" if item.full_credit else "failed"
        if staff:
            test["extra_data"] = {"status": item.status, "staff_feedback": item.feedback}
        tests.append(test)
    result: dict[str, Any] = {
        "output": (s.submission.error if staff else student_error(s))
        or f"Status: {s.score.status}.",
        "tests": tests,
        # Staff only: a program can choose how long it runs from its hidden inputs.
        "execution_time": _execution_time(s) if staff else None,
        "extra_data": {
            "submission_id": s.submission.id,
            "student": s.submission.student,
            "status": s.score.status,
            "days_late": student.days_late,
            "penalty_percent": as_number(student.penalty_percent),
        },
    }
    total = final_total(s, view.schedule) if staff else student.total
    if total is not None:
        result["score"] = as_number(total)
    if staff:
        result["extra_data"]["rubric_hash"] = None if s.run is None else s.run.rubric_hash
    return result
