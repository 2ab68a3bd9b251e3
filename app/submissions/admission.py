"""Which uploads of a batch may be stored, decided in the writing transaction against the rows
already stored and the uploads earlier in the batch: the assignment's schedule and submission
limit, and the student's uploads in progress.

A student's upload stays in progress after its 202 while its job waits for grading or is
being graded: those count against the same limit as bodies still arriving
(`uploads_in_progress`), across every assignment. Without that a student who uploads within the
rate would keep piling up waiting jobs (20 a minute), and on the Celery path a student's 64th
and later waiting jobs share the broker's last priority level first in, first out with other
such students' (app/worker/fair_redis.py): with at most this many waiting, a student's turn
number never gets near it. Staff are exempt: they file work for many students.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy.orm import Session

from app.auth.roles import is_staff
from app.db.models import Assignment, User
from app.submissions import repository
from app.submissions.limits import TooManyRequests
from app.submissions.service import check_upload_allowed

RETRY_SECONDS = 10


class JobsWaiting(TooManyRequests):
    """The student already has as many uploads waiting or grading as they may: the request
    holds the upload back a while for one of them to be graded (app/submissions/receive.py),
    then answers this 429."""


class Admission:
    def __init__(self, session: Session, now: datetime, in_progress: int | None,
                 uploaders: Iterable[User | None]) -> None:
        self._session = session
        self._now = now
        self._in_progress = in_progress
        self._assignments: dict[int, Assignment | None] = {}
        self._earlier: dict[tuple[int, int], int] = {}
        students = sorted({u.id for u in uploaders if u is not None and not is_staff(u)})
        self._waiting: dict[int, int] = {}
        if in_progress is not None and students:
            repository.hold_uploaders(session, students)
            self._waiting = repository.count_waiting_by(session, students)

    def admit(self, assignment_id: int, uploader: User) -> None:
        """Count one more upload by `uploader` to the assignment, or raise why it may not be
        stored (the schedule's 403 or 409, else 429 with as many in progress as allowed)."""
        if assignment_id not in self._assignments:
            self._assignments[assignment_id] = self._session.get(Assignment, assignment_id)
        assignment = self._assignments[assignment_id]
        key = (assignment_id, uploader.id)
        if assignment is not None:
            check_upload_allowed(self._session, assignment, uploader, self._now,
                                 self._earlier.get(key, 0))
        if self._in_progress is not None and not is_staff(uploader):
            waiting = self._waiting.get(uploader.id, 0)
            if waiting >= self._in_progress:
                raise JobsWaiting(
                    f"You have {waiting} uploads waiting to be graded or being graded; upload "
                    "again once one of them is graded.", retry_after=RETRY_SECONDS)
            self._waiting[uploader.id] = waiting + 1
        self._earlier[key] = self._earlier.get(key, 0) + 1
