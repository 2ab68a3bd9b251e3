"""Whatever a student declares (the upload field, the document itself, both, or nothing) and
whatever staff set and clear in between (the assignment's edition, a student's), every stored
submission is graded under the student's edition when staff set one, else the assignment's,
else its own declaration: generated sequences through the real services on a SQLite file."""

from __future__ import annotations

import json
import threading

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import load_rubric_text
from app.db.models import Assignment, StudentEdition, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.editions.policy import decide
from app.editions.service import set_edition
from app.errors import UnknownEdition
from app.submissions.intake import SubmissionIntake
from app.submissions.service import accept, prepare
from app.submissions.upload import Upload
from tests.app.submissions.test_handout_editions import SLUG, rubric_text

EDITIONS = [None, "2021", "2022"]
STUDENTS = ["s1", "s2"]
edition = st.sampled_from(EDITIONS)
# A declaration as students write it: the rubric's spelling or another case of it.
declared = st.sampled_from([None, "2021", "2022", " 2022 "])
upload = st.tuples(st.just("upload"), st.sampled_from(STUDENTS), declared,
                   st.sampled_from([None, "2021", "2022"]))
fix = st.tuples(st.just("fix"), edition)
own = st.tuples(st.just("own"), st.sampled_from(STUDENTS), edition)
steps = st.lists(st.one_of(upload, fix, own), min_size=1, max_size=12)


def _upload(session: Session, student: str, field: str | None, in_document: str | None) -> None:
    if in_document is None:
        raw, name, ctype = b"Q1: 10\n\nQ2: 99\n\nQ3: 30\n", "s.md", "text/markdown"
    else:
        raw = json.dumps({"handout": in_document, "answers": {"q1": "10", "q2": "99"}}).encode()
        name, ctype = "s.json", "application/json"
    accept(session, SLUG, Upload(raw, name, ctype, student=student, handout=field), None,
           64 * 1024)


def _reset(sessions: sessionmaker[Session]) -> None:
    with unit_of_work(sessions) as session:
        session.execute(delete(Submission))
        session.execute(delete(StudentEdition))
        session.execute(update(Assignment).values(handout=None))


def _check(sessions: sessionmaker[Session], fixed: str | None, mine: dict[str, str]) -> None:
    with unit_of_work(sessions) as session:
        rows = session.execute(select(Submission.student, Submission.declared_handout,
                                      Submission.handout)).all()
    for student, said, graded in rows:
        assert student is not None
        own = mine.get(student)
        staff = own if own is not None else fixed
        assert graded == (staff if staff is not None else said), (student, said, graded)
        assert graded == decide(fixed, own, said).graded


def test_the_graded_edition_is_staffs_whenever_set(db_url: str) -> None:
    """On SQLite and PostgreSQL (where uploads and changes order by the assignment's row)."""
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    with unit_of_work(sessions) as session:
        load_rubric_text(session, rubric_text(), "<editions>")

    @settings(max_examples=60, deadline=None)
    @given(steps)
    def run(sequence: list[tuple[str | None, ...]]) -> None:
        _reset(sessions)
        fixed: str | None = None
        mine: dict[str, str] = {}
        for step in sequence:
            with unit_of_work(sessions) as session:
                if step[0] == "fix":
                    fixed = step[1]
                    set_edition(session, SLUG, None, fixed)
                elif step[0] == "own":
                    _, who, value = step
                    assert who is not None
                    set_edition(session, SLUG, who, value)
                    if value is None:
                        mine.pop(who, None)
                    else:
                        mine[who] = value
                else:
                    _, who, field, in_document = step
                    assert who is not None
                    try:
                        _upload(session, who, field, in_document)
                    except UnknownEdition:  # the field and the document disagree
                        assert field is not None and in_document is not None
                        assert field.strip() != in_document
            _check(sessions, fixed, mine)

    try:
        run()
    finally:
        engine.dispose()


@given(edition, edition, edition)
def test_decide_prefers_the_student_then_the_assignment(fixed: str | None, own: str | None,
                                                        said: str | None) -> None:
    chosen = decide(fixed, own, said)
    assert chosen.graded == (own or fixed or said)
    assert chosen.declared == said and chosen.by_staff == (own is not None or fixed is not None)
    assert chosen.overridden == (chosen.by_staff and said is not None and said != chosen.graded)


def test_an_upload_in_flight_is_re_decided_by_a_change_made_meanwhile(postgres_db: str) -> None:
    """PostgreSQL: the change waits for the open upload's commit (it read the assignment's row
    FOR SHARE), so the upload's row is graded under the new edition, not its declaration."""
    engine = make_engine(postgres_db)
    sessions = make_sessionmaker(engine)
    try:
        with unit_of_work(sessions) as session:
            load_rubric_text(session, rubric_text(), "<editions>")
        uploading = sessions()
        _upload(uploading, "s1", "2022", None)
        uploading.flush()
        changing = threading.Thread(target=_fix, args=(sessions, "2021"))
        changing.start()
        changing.join(timeout=2)  # it waits for the upload: nothing to see yet either way
        uploading.commit()
        uploading.close()
        changing.join(timeout=60)
        assert not changing.is_alive()
        with unit_of_work(sessions) as session:
            assert session.execute(select(Submission.handout, Submission.declared_handout)
                                   ).one() == ("2021", "2022")
    finally:
        engine.dispose()


def _fix(sessions: sessionmaker[Session], handout: str) -> None:
    with unit_of_work(sessions) as session:
        set_edition(session, SLUG, None, handout)


BATCH_STUDENTS = [f"b{i}" for i in range(6)]


def test_a_batch_of_api_uploads_takes_each_students_edition(db_url: str) -> None:
    """The API's intake stores many uploads per transaction and reads staff's editions once per
    batch: each upload still gets its own student's edition (or the assignment's)."""
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    with unit_of_work(sessions) as session:
        load_rubric_text(session, rubric_text(), "<editions>")
    intake = SubmissionIntake(engine)

    @settings(max_examples=25, deadline=None)
    @given(edition, st.lists(edition, min_size=6, max_size=6),
           st.lists(st.tuples(st.sampled_from(BATCH_STUDENTS), edition), min_size=1,
                    max_size=20))
    def run(fixed: str | None, own: list[str | None],
            uploads: list[tuple[str, str | None]]) -> None:
        _reset(sessions)
        with unit_of_work(sessions) as session:
            set_edition(session, SLUG, None, fixed)
            for student, value in zip(BATCH_STUDENTS, own, strict=True):
                set_edition(session, SLUG, student, value)
        news = [prepare(SLUG, Upload(b"Q1: 10\n", "s.md", "text/markdown", student=who,
                                     handout=said), None, 64 * 1024) for who, said in uploads]
        futures = [intake.submit(new, None) for new in news]
        stored = {f.result(timeout=60).submission_id: u for f, u in zip(futures, uploads,
                                                                        strict=True)}
        mine = {s: v for s, v in zip(BATCH_STUDENTS, own, strict=True) if v is not None}
        with unit_of_work(sessions) as session:
            rows = session.execute(select(Submission.id, Submission.handout,
                                          Submission.declared_handout)).all()
        assert len(rows) == len(uploads)
        for sid, graded, said in rows:
            who, declared = stored[sid]
            assert said == declared
            staff = mine.get(who, fixed)
            assert graded == (staff if staff is not None else declared), (who, staff, declared)

    try:
        run()
    finally:
        intake.close()
        engine.dispose()
