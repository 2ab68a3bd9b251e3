"""The roster service on both backends: replace per scope, all or nothing, which list counts."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import load_rubric_text
from app.db.session import unit_of_work
from app.errors import InvalidInput, NotFound
from app.roster import service
from graders.rubric import BUNDLED_RUBRICS

SLUG = "transformer-basics"


def test_import_replace_and_scopes(sessions: sessionmaker[Session]) -> None:
    with unit_of_work(sessions) as session:
        load_rubric_text(session, (BUNDLED_RUBRICS / f"{SLUG}.yaml").read_text(), "tb.yaml")
        result = service.import_roster(session, "course", b"student_id,name\na,A\nb,B\n")
        assert (result.scope, result.students) == ("course", 2)
    with unit_of_work(sessions) as session:
        assert set(service.roster_for_assignment(session, SLUG)) == {"a", "b"}
        service.import_roster(session, SLUG, b"student_id,SIS ID\nc,S3\n")
    with unit_of_work(sessions) as session:
        own = service.roster_for_assignment(session, SLUG)
        assert set(own) == {"c"} and own["c"].sis_user_id == "S3"
        assert [r.student_id for r in service.roster_of(session, "course")] == ["a", "b"]

    # A bad file leaves the stored list as it was.
    with pytest.raises(InvalidInput, match="row 3"), unit_of_work(sessions) as session:
        service.import_roster(session, "course", b"student_id\nx\n\xff\n")
    with pytest.raises(NotFound), unit_of_work(sessions) as session:
        service.import_roster(session, "no-such-assignment", b"student_id\nx\n")
    with unit_of_work(sessions) as session:
        assert [r.student_id for r in service.roster_of(session, "course")] == ["a", "b"]
        service.import_roster(session, "course", b"student_id\nz\n")
    with unit_of_work(sessions) as session:
        assert [r.student_id for r in service.roster_of(session, "course")] == ["z"]
