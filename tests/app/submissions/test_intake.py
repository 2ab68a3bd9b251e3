"""The upload path under concurrency: group commits, exact ids, audit rows, the token cache."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, event, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import current_rubric, load_rubric_text, sync_rubric_dir
from app.auth.cache import TokenCache
from app.auth.service import create_token, hash_token, identify
from app.db.models import ApiToken, AuditEntry, GradingRun, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.errors import NotAuthenticated, NotFound
from app.submissions.intake import SubmissionIntake
from app.submissions.service import prepare
from app.submissions.upload import Upload
from graders.rubric import BUNDLED_RUBRICS
from tests.app.conftest import Api

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"


@pytest.fixture
def database(db_url: str) -> Iterator[tuple[Engine, sessionmaker[Session]]]:
    """A migrated database with the bundled rubrics: SQLite, and PostgreSQL when it runs."""
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
    yield engine, sessions
    engine.dispose()


def _upload(i: int) -> Upload:
    raw = f'{{"student_id": "s{i}", "answers": {{"B1": "{i}"}}}}'.encode()
    return Upload(raw, f"{i}.json", "application/json")


def test_concurrent_uploads_share_transactions_and_each_gets_its_own_row(
    database: tuple[Engine, sessionmaker[Session]],
) -> None:
    engine, sessions = database
    with unit_of_work(sessions) as session:
        alice = create_token(session, "alice", "student").user
    intake = SubmissionIntake(engine)
    commits = 0

    def count_commit(_connection: object) -> None:
        nonlocal commits
        commits += 1

    event.listen(engine, "commit", count_commit)

    async def upload_all() -> list[object]:
        new = [prepare(SLUG, _upload(i), alice, 10_000) for i in range(200)]
        new.insert(50, prepare("no-such-assignment", _upload(999), alice, 10_000))
        return await asyncio.gather(*(intake.store(n, alice) for n in new), return_exceptions=True)

    try:
        results = asyncio.run(upload_all())
    finally:
        intake.close()
    missing = results.pop(50)
    assert isinstance(missing, NotFound) and "no-such-assignment" in missing.detail
    ids = [r.submission_id for r in results]  # type: ignore[attr-defined]
    assert len(set(ids)) == 200
    assert commits < 200  # uploads that arrived together were committed together
    with unit_of_work(sessions) as session:
        rows = {s.id: (s.raw, s.student, s.status) for s in session.scalars(select(Submission))}
        audited = set(
            session.scalars(
                select(AuditEntry.entity_id).where(AuditEntry.action == "submission.create")
            )
        )
        version = current_rubric(session, SLUG).version.id
    assert set(rows) == set(ids) and audited == {str(i) for i in ids}
    for i, result in enumerate(results):
        raw, student, status = rows[result.submission_id]  # type: ignore[attr-defined]
        # Each id is the row holding that request's bytes, filed under the uploading student.
        assert (raw, student, status) == (_upload(i).raw, "alice", "queued")
        assert result.job.raw == raw and result.job.rubric_version_id == version  # type: ignore[attr-defined]


def test_an_upload_is_graded_with_the_rubric_current_when_it_was_stored(
    database: tuple[Engine, sessionmaker[Session]],
) -> None:
    engine, sessions = database
    intake = SubmissionIntake(engine)
    try:
        first = asyncio.run(intake.store(prepare(SLUG, _upload(1), None, 10_000), None))
        edited = (
            (BUNDLED_RUBRICS / f"{SLUG}.yaml").read_text().replace("title: ", "title: Edited ", 1)
        )
        with unit_of_work(sessions) as session:
            new_version = load_rubric_text(session, edited, "edited.yaml").version.id
        second = asyncio.run(intake.store(prepare(SLUG, _upload(2), None, 10_000), None))
    finally:
        intake.close()
    assert first.job.rubric_version_id != new_version
    assert second.job.rubric_version_id == new_version and "Edited" in second.job.rubric.text


def test_the_intake_commits_with_a_full_sync(
    database: tuple[Engine, sessionmaker[Session]],
) -> None:
    engine, _ = database
    if engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL commits durably by default (synchronous_commit)")
    intake = SubmissionIntake(engine)
    try:
        asyncio.run(intake.store(prepare(SLUG, _upload(1), None, 10_000), None))
        connection = intake._connection
        assert connection is not None
        # 2 = FULL: the write-ahead log is on disk before an upload is answered.
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2
        connection.rollback()
    finally:
        intake.close()
    with pytest.raises(Exception, match="shutting down"):
        asyncio.run(intake.store(prepare(SLUG, _upload(2), None, 10_000), None))


def test_token_cache_expires_forgets_and_hands_out_copies(
    database: tuple[Engine, sessionmaker[Session]],
) -> None:
    engine, sessions = database
    with unit_of_work(sessions) as session:
        issued = create_token(session, "alice", "student")
    with engine.connect() as connection:
        identity = identify(connection, issued.token)
        with pytest.raises(NotAuthenticated):
            identify(connection, issued.token + "x")
    assert (identity.id, identity.name, identity.role) == (issued.user.id, "alice", "student")
    first, second = identity.user(), identity.user()
    assert first is not second and (first.id, first.name, first.role) == (
        identity.id,
        "alice",
        "student",
    )
    cache = TokenCache(ttl=0.2)
    cache.put("h", identity)
    assert cache.get("h") == identity
    cache.forget("h")
    assert cache.get("h") is None
    cache.put("h", identity)
    time.sleep(0.25)
    assert cache.get("h") is None
    off = TokenCache(ttl=0)
    off.put("h", identity)
    assert off.get("h") is None


def test_a_token_revoked_behind_the_servers_back_stops_working_within_the_ttl(api: Api) -> None:
    with unit_of_work(api.sessions) as session:
        issued = create_token(session, "dave", "student")
    headers = {"Authorization": f"Bearer {issued.token}"}
    assert api.client.get(UPLOAD, headers=headers).status_code == 200  # now cached
    with unit_of_work(api.sessions) as session:  # as `gradeformer token revoke` would
        session.execute(
            update(ApiToken)
            .where(ApiToken.token_hash == hash_token(issued.token))
            .values(revoked_at=func.now())
        )
    cache: TokenCache = api.client.app.state.token_cache  # type: ignore[attr-defined]
    time.sleep(cache.ttl + 0.05)
    assert api.client.get(UPLOAD, headers=headers).status_code == 401


def test_parallel_uploads_through_the_api_are_all_stored_and_graded_once(api: Api) -> None:
    body = b'{"answers": {"B1": "64", "B2": "11.107"}}'

    def post(i: int) -> int:
        response = api.client.post(
            UPLOAD,
            content=body,
            headers={**api.auth("alice" if i % 2 else "bob"), "content-type": "application/json"},
        )
        assert response.status_code == 202, response.text
        return int(response.json()["id"])

    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(post, range(40)))
    assert len(set(ids)) == 40
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with unit_of_work(api.sessions) as session:
            waiting = session.scalar(
                select(func.count())
                .select_from(Submission)
                .where(Submission.id.in_(ids), Submission.status.in_(("queued", "grading")))
            )
        if not waiting:
            break
        time.sleep(0.2)
    with unit_of_work(api.sessions) as session:
        runs = dict(
            session.execute(
                select(GradingRun.submission_id, func.count())
                .where(GradingRun.submission_id.in_(ids))
                .group_by(GradingRun.submission_id)
            ).all()
        )
    assert runs == dict.fromkeys(ids, 1)
