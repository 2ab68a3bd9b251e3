"""Canvas's gradebook CSV.

Canvas imports a gradebook CSV whose first five columns are `Student`, `ID`, `SIS User ID`,
`SIS Login ID` and `Section`, followed by one column per assignment headed `Name (id)` (the id
is Canvas's assignment id; without it Canvas offers to create a new assignment). It matches a row
to a student by `ID` (Canvas's user id), else by `SIS User ID`, else by `SIS Login ID`; the
`Student` name is only shown. Canvas's own export has a `Points Possible` row under the header:
ours has one too (it can be left out), so the file reads like one Canvas produced.
"""

from __future__ import annotations

import csv
import io
import re

from sqlalchemy.orm import Session

from app.assignments.schedule import Schedule
from app.assignments.service import current_rubric
from app.errors import InvalidInput
from app.exports.checks import Rows, check, kept
from app.roster.service import roster_for_assignment
from app.sanitize import csv_cell
from app.submissions.counting import counted_per_student, final_total
from app.submissions.service import scored_for_assignment

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
_CANVAS_ID = re.compile(r"\d{1,20}")
# Characters that would break the `Name (id)` header Canvas parses.
_HEADER_UNSAFE = re.compile(r"[()\r\n,\"]")


def canvas_csv(
    session: Session, slug: str, canvas_assignment_id: str | None, points_possible: bool = True,
    rows: Rows = "all",
) -> str:
    """One row per student: the roster's, and anyone else who submitted (with empty SIS ids,
    which Canvas reports as unmatched); the grade is the counting submission's total after the
    late penalty (empty without one)."""
    canvas_assignment_id = (canvas_assignment_id or "").strip() or None  # an empty form field
    if canvas_assignment_id is not None and not _CANVAS_ID.fullmatch(canvas_assignment_id):
        raise InvalidInput(
            f"The Canvas assignment id {canvas_assignment_id[:40]!r} is not a number "
            "(it is the number in the assignment's Canvas address).")
    current = current_rubric(session, slug)
    assignment = current.assignment
    schedule = Schedule.of(assignment)
    counted = counted_per_student(scored_for_assignment(session, assignment.id), schedule)
    roster = roster_for_assignment(session, assignment.slug)
    found = check(counted, roster, schedule.published)
    title = _HEADER_UNSAFE.sub(" ", assignment.title or slug).strip() or slug
    column = f"{title} ({canvas_assignment_id})" if canvas_assignment_id else title
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CANVAS_COLUMNS, csv_cell(column)])
    if points_possible:
        writer.writerow(["    Points Possible", "", "", "", "",
                         str(current.loaded.rubric.max_points)])
    for student in sorted(set(counted) | set(roster)):
        if not kept(student, found, rows):
            continue
        entry = roster.get(student)
        s = counted.get(student)
        final = None if s is None else final_total(s, schedule)
        writer.writerow(csv_cell(cell) for cell in [
            (entry.name if entry is not None and entry.name else student),
            "" if entry is None else entry.canvas_user_id,
            "" if entry is None else entry.sis_user_id,
            "" if entry is None else entry.sis_login_id,
            "" if entry is None else entry.section,
            "" if final is None else str(final),
        ])
    return out.getvalue()
