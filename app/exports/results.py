"""results.json for a whole assignment: every student's Gradescope-style results and LMS ids."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.assignments.service import current_rubric
from app.exports.service import gradescope_results, lms_cells
from app.points import as_number
from app.roster.service import roster_for_assignment
from app.submissions.counting import counted_per_student
from app.submissions.service import scored_for_assignment
from app.submissions.visibility import assignment_view


def assignment_results(session: Session, slug: str, now: datetime) -> dict[str, Any]:
    """Staff's results.json for every student: the roster's and anyone who submitted, each with
    their LMS ids and the Gradescope-style results of the submission that counts (null for a
    roster student without one)."""
    current = current_rubric(session, slug)
    assignment = current.assignment
    view = assignment_view(session, assignment, now)
    counted = counted_per_student(scored_for_assignment(session, assignment.id), view.schedule)
    roster = roster_for_assignment(session, assignment.slug)
    students: list[dict[str, Any]] = []
    for student in sorted(set(counted) | set(roster)):
        name, email, sis_user_id, sis_login_id, section = lms_cells(roster.get(student))
        s = counted.get(student)
        students.append({
            "student_id": student,
            "name": name,
            "email": email,
            "sis_user_id": sis_user_id,
            "sis_login_id": sis_login_id,
            "section": section,
            "canvas_user_id": "" if student not in roster else roster[student].canvas_user_id,
            "on_roster": student in roster,
            "submission_id": None if s is None else s.submission.id,
            "results": None if s is None else gradescope_results(s, view, staff=True),
        })
    return {
        "assignment": assignment.slug,
        "title": assignment.title,
        "max_score": as_number(current.loaded.rubric.max_points),
        "rubric_hash": current.version.content_hash,
        "students": students,
    }
