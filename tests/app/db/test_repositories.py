"""Repositories and services on both backends: tokens, rubric versions, runs, overrides."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import current_rubric, load_rubric_text, sync_rubric_dir
from app.auth.service import authenticate, create_token, list_tokens, revoke_token
from app.db.models import ApiToken, AuditEntry, GradingRun, ItemScore, Submission
from app.db.session import unit_of_work
from app.errors import Conflict, InvalidInput, NotAuthenticated, NotFound, UnreadableUpload
from app.grading.repository import current_runs, store_outcomes
from app.grading.worker import WorkerOutcome
from app.review.service import delete_override, set_override
from app.submissions.service import accept, get_scored
from app.submissions.upload import Upload
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS

SLUG = "transformer-basics"


def _result(
    item_id: str, question: str, points: str, max_points: str, status: Status
) -> ItemResult:
    return ItemResult(
        item_id=item_id,
        question=question,
        points=Decimal(points),
        max_points=Decimal(max_points),
        status=status,
        grader="numeric",
        grader_version="t",
    )


def test_tokens_are_hashed_authenticate_and_revoke(sessions: sessionmaker[Session]) -> None:
    with unit_of_work(sessions) as session:
        issued = create_token(session, "alice", "student")
    with unit_of_work(sessions) as session:
        stored = session.scalars(select(ApiToken.token_hash)).all()
        assert issued.token not in stored and len(stored) == 1  # only the hash is kept
        assert authenticate(session, issued.token).name == "alice"
        with pytest.raises(NotAuthenticated):
            authenticate(session, issued.token + "x")
        with pytest.raises(Conflict):
            create_token(session, "alice", "instructor")
        with pytest.raises(InvalidInput):
            create_token(session, "carol", "superuser")
    with unit_of_work(sessions) as session:
        revoke_token(session, issued.record.id)
    with unit_of_work(sessions) as session:
        with pytest.raises(NotAuthenticated):
            authenticate(session, issued.token)
        assert list_tokens(session) == []
        assert len(list_tokens(session, include_revoked=True)) == 1
        with pytest.raises(NotFound):
            revoke_token(session, 999)


def test_rubric_versions_follow_the_content(sessions: sessionmaker[Session]) -> None:
    text = (BUNDLED_RUBRICS / f"{SLUG}.yaml").read_text()
    with unit_of_work(sessions) as session:
        first = sync_rubric_dir(session, BUNDLED_RUBRICS)
        assert any(r.assignment.slug == SLUG and r.changed for r in first)
    with unit_of_work(sessions) as session:
        again = load_rubric_text(session, text, "again")
        assert not again.changed  # same bytes: same version
        edited = load_rubric_text(
            session,
            text.replace("title: Transformer basics", "title: Transformer basics (v2)"),
            "v2",
        )
        assert edited.changed
    with unit_of_work(sessions) as session:
        current = current_rubric(session, SLUG)
        assert current.version.id == edited.version.id
        assert current.loaded.rubric.title == "Transformer basics (v2)"
        with pytest.raises(InvalidInput) as bad:
            load_rubric_text(session, "slug: x\ntitle: y\nquestions: []\n", "bad.yaml")
        assert bad.value.extra["problems"]
        with pytest.raises(NotFound):
            current_rubric(session, "no-such-assignment")


def test_accept_store_runs_and_overrides(sessions: sessionmaker[Session]) -> None:
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        prof = create_token(session, "prof", "instructor").user
        alice = create_token(session, "alice", "student").user
    with unit_of_work(sessions) as session:
        raw = b'{"answers": {"B1": "64"}}'
        accepted = accept(
            session, SLUG, Upload(raw, "a.json", "application/json", "mallory"), alice, 10_000
        )
        sid, version_id = accepted.submission.id, accepted.job.rubric_version_id
        assert accepted.submission.student == "alice"  # a student files under their own name
        with pytest.raises(UnreadableUpload):
            accept(session, SLUG, Upload(b"", "e.txt", "text/plain"), alice, 10_000)
    with unit_of_work(sessions) as session:
        stored = session.get(Submission, sid)
        assert stored is not None and stored.raw == raw and stored.size == len(raw)
        assert (session.scalar(select(func.count(AuditEntry.id))) or 0) >= 1
    first = WorkerOutcome(
        status="needs_review",
        rubric_hash="h1",
        items=(
            _result("b1.d_head", "B1", "4", "4", Status.GRADED),
            _result("b1.per_matrix", "B1", "1.33", "3", Status.NEEDS_REVIEW),
        ),
    )
    with unit_of_work(sessions) as session:
        store_outcomes(session, [(sid, version_id, first)])
    with unit_of_work(sessions) as session:
        scored = get_scored(session, sid, alice)
        assert scored.score.total == Decimal("5.33") and scored.score.status == "needs_review"
        set_override(session, sid, "b1.per_matrix", Decimal("2.5"), "Close enough.", prof)
        with pytest.raises(InvalidInput):
            set_override(session, sid, "b1.per_matrix", Decimal("3.01"), "", prof)
        with pytest.raises(InvalidInput):
            set_override(session, sid, "b1.per_matrix", Decimal("1.005"), "", prof)
        with pytest.raises(NotFound):
            set_override(session, sid, "no.such.item", Decimal(1), "", prof)
    second = WorkerOutcome(
        status="graded",
        rubric_hash="h2",
        items=(
            _result("b1.d_head", "B1", "0", "4", Status.GRADED),
            _result("b1.per_matrix", "B1", "0", "3", Status.GRADED),
        ),
    )
    with unit_of_work(sessions) as session:
        store_outcomes(session, [(sid, version_id, second)])
    with unit_of_work(sessions) as session:
        runs = session.scalars(select(GradingRun).where(GradingRun.submission_id == sid)).all()
        assert sorted(r.is_current for r in runs) == [False, True]
        assert current_runs(session, [sid])[sid].rubric_hash == "h2"
        scored = get_scored(session, sid, prof)
        # The override survives the new machine run and is exact.
        assert scored.score.total == Decimal("2.50")
        assert scored.score.status == "graded"
        points = session.scalars(select(ItemScore.points)).all()
        assert Decimal("1.33") in points  # Numeric round trip keeps hundredths exactly
    with unit_of_work(sessions) as session:
        delete_override(session, sid, "b1.per_matrix", prof)
        with pytest.raises(NotFound):
            delete_override(session, sid, "b1.per_matrix", prof)
    with unit_of_work(sessions) as session:
        assert get_scored(session, sid, prof).score.total == Decimal("0.00")
        bob = create_token(session, "bob", "student").user
        with pytest.raises(NotFound):
            get_scored(session, sid, bob)


def test_sqlite_readers_do_not_block_writers(sqlite_db: str) -> None:
    import time

    from app.db.session import make_engine, make_sessionmaker

    engine = make_engine(sqlite_db)
    reader = make_sessionmaker(engine, read_only=True)()
    writers = make_sessionmaker(engine)
    try:
        reader.execute(select(func.count(ApiToken.id))).scalar()  # an open read transaction
        started = time.monotonic()
        with unit_of_work(writers) as session:
            create_token(session, "dora", "student")
        assert time.monotonic() - started < 2  # not waiting on the reader's transaction
    finally:
        reader.close()
        engine.dispose()
