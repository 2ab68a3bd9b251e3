"""The calibration snapshot and targets on both backends (real SQLite file, real PostgreSQL)."""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from app.calibration import repository
from app.db.models import Assignment
from app.db.session import unit_of_work


def test_a_snapshot_is_replaced_in_place_and_targets_are_per_question(
    sessions: sessionmaker[Session],
) -> None:
    with unit_of_work(sessions) as session:
        assignment = Assignment(slug="risk", title="Risk")
        session.add(assignment)
        session.flush()
        first = repository.snapshot(session, assignment.id)
        assert first is None
        repository.store_snapshot(session, assignment.id, "a" * 64, {"items": {}})
        assert repository.snapshot(session, assignment.id) is not None
        repository.store_snapshot(session, assignment.id, "b" * 64, {"items": {"i": {}}})
        repository.set_target(session, assignment.id, "", 0.1, None)
        repository.set_target(session, assignment.id, "A5", 0.2, None)
        repository.set_target(session, assignment.id, "A5", 0.05, None)
        assignment_id = assignment.id
    with unit_of_work(sessions) as session:
        row = repository.snapshot(session, assignment_id)
        assert row is not None and row.rubric_hash == "b" * 64 and row.body == {"items": {"i": {}}}
        assert repository.targets(session, assignment_id) == {"": 0.1, "A5": 0.05}
