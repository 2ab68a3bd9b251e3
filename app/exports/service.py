"""Gradebook CSV (one row per student) and Gradescope-style results.json (one per submission)."""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from app.assignments.service import current_rubric
from app.points import as_number
from app.sanitize import clean
from app.submissions.service import ScoredSubmission, scored_for_assignment

# A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(...) leaks
# data when clicked; DDE payloads run commands). Tab and CR start formulas in some too.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?\d{1,30}(\.\d{1,30})?")


def csv_cell(value: object) -> str:
    """A cell a spreadsheet shows as text: formula-like text gets a leading apostrophe (the
    OWASP advice), numbers stay numbers."""
    text = clean("" if value is None else str(value), 1000)
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def student_key(s: ScoredSubmission) -> str:
    return s.submission.student or f"submission-{s.submission.id}"


def gradebook_csv(session: Session, slug: str) -> str:
    current = current_rubric(session, slug)
    questions = [q.id for q in current.loaded.rubric.questions]
    latest: dict[str, ScoredSubmission] = {}
    for s in scored_for_assignment(session, current.assignment.id):
        latest[student_key(s)] = s  # id order: the last one is the newest
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [csv_cell(c) for c in ["student", "submission_id", "status", *questions, "total",
                               "max_points"]]
    )
    for student in sorted(latest):
        s = latest[student]
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
                s.submission.id,
                s.score.status,
                *[str(per_question.get(q, Decimal("0.00"))) if graded else "" for q in questions],
                "" if s.score.total is None else str(s.score.total),
                "" if s.score.max_points is None else str(s.score.max_points),
            ]
        )
    return out.getvalue()


def gradescope_results(s: ScoredSubmission) -> dict[str, Any]:
    tests: list[dict[str, Any]] = []
    for number, item in enumerate(s.score.items, start=1):
        output = item.feedback
        if item.override is not None:
            output = f"{output}\n(Score set by an instructor.)".strip()
        tests.append(
            {
                "name": f"{item.question} {item.item_id}",
                "number": str(number),
                "score": as_number(item.points if item.counts else Decimal(0)),
                "max_score": as_number(item.max_points),
                "status": "passed" if item.full_credit else "failed",
                "output": output,
                "tags": [item.question, item.grader, item.status],
                "visibility": "visible",
            }
        )
    result: dict[str, Any] = {
        "score": as_number(s.score.total or Decimal(0)),
        "output": s.submission.error or f"Status: {s.score.status}.",
        "tests": tests,
        "extra_data": {
            "submission_id": s.submission.id,
            "student": s.submission.student,
            "status": s.score.status,
            "rubric_hash": None if s.run is None else s.run.rubric_hash,
        },
    }
    return result
