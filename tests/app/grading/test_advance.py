"""A regrade's runs stored through the driver (app.grading.repository.advance_runs,
app.db.driver): the rows are the ones SQLAlchemy's Core writes for the same results, on SQLite
and PostgreSQL; the stored runs are read back by the index the migration 0008 adds."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, inspect, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import sync_rubric_dir
from app.auth.service import create_token
from app.db.driver import driver_sql
from app.db.migrate import downgrade, upgrade
from app.db.models import GradingRun, ItemScore, Submission
from app.db.session import SQLITE_CACHE_KIB, SQLITE_MMAP_BYTES, make_engine, unit_of_work
from app.grading.repository import (
    DECIDING,
    AdvancedRun,
    advance_runs,
    item_values,
    run_scores,
    store_outcomes,
)
from app.grading.worker import WorkerOutcome
from app.submissions.service import accept
from app.submissions.upload import Upload
from graders.results import Evidence, ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS

SLUG = "transformer-basics"
ITEMS = ("b1.d_head", "b1.per_matrix", "b2.total")
POSITIONS = {item: n for n, item in enumerate(ITEMS)}
RUN_STATUSES = ["graded", "needs_review", "pending", "grader_error"]
# What the sanitiser replaces or keeps: control characters, escapes, bidi overrides, quotes.
TEXT = st.lists(st.sampled_from(["a", "é", "\x00", "\x1b[31m", "\u202e", "\r\n", '"', "\\", "%",
                                 "?", "'", "😀"]), max_size=12).map("".join)


@st.composite
def results(draw: st.DrawFn, item_id: str) -> ItemResult:
    most = draw(st.integers(1, 99_999))
    return ItemResult(
        item_id=item_id, question=item_id.split(".")[0].upper(),
        points=Decimal(draw(st.integers(0, most))) / 100, max_points=Decimal(most) / 100,
        status=draw(st.sampled_from(list(Status))), feedback=draw(TEXT),
        student_feedback=draw(st.none() | TEXT),
        evidence=tuple(Evidence(kind=draw(TEXT), text=draw(TEXT),
                                start=draw(st.none() | st.integers(0, 9)), note=draw(TEXT))
                       for _ in range(draw(st.integers(0, 2)))),
        confidence=draw(st.floats(0, 1)), grader=draw(TEXT), grader_version=draw(TEXT))


def _submissions(sessions: sessionmaker[Session], n: int) -> tuple[list[int], int]:
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        alice = create_token(session, "alice", "student").user
    ids: list[int] = []
    with unit_of_work(sessions) as session:
        for k in range(n):
            accepted = accept(session, SLUG, Upload(b'{"answers": {"B1": "64"}}', f"{k}.json",
                                                    "application/json"), alice, 10_000)
            ids.append(accepted.submission.id)
            version = accepted.job.rubric_version_id
    return ids, version


def _rows(session: Session, run_id: int) -> dict[str, tuple[Any, ...]]:
    return {row[0]: tuple(row[1:]) for row in session.execute(
        select(ItemScore.item_id, ItemScore.position, ItemScore.question_id, ItemScore.points,
               ItemScore.max_points, ItemScore.status, ItemScore.feedback,
               ItemScore.student_feedback, ItemScore.evidence, ItemScore.confidence,
               ItemScore.grader, ItemScore.grader_version)
        .where(ItemScore.run_id == run_id))}


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_rows_stored_through_the_driver_are_the_rows_core_stores(
    sessions: sessionmaker[Session], data: st.DataObject
) -> None:
    """Each example regrades the same runs again: the changed items' new rows, the runs'
    columns and the submissions' statuses read back exactly as SQLAlchemy's Core writes the
    same results, and the superseded rows move to history."""
    with unit_of_work(sessions) as session:
        ids = list(session.scalars(select(Submission.id).order_by(Submission.id)))
        version = session.scalar(select(GradingRun.rubric_version_id).limit(1)) or 0
    if not ids:
        ids, version = _submissions(sessions, 3)
        first = WorkerOutcome(status="graded", rubric_hash="h0", items=tuple(
            ItemResult(item_id=i, question="B1", points=Decimal(1), max_points=Decimal(2),
                       status=Status.GRADED, grader="g", grader_version="v") for i in ITEMS))
        with unit_of_work(sessions) as session:
            store_outcomes(session, [(sid, version, first) for sid in ids])
    with unit_of_work(sessions) as session:
        current = dict(session.execute(
            select(GradingRun.submission_id, GradingRun.id)
            .where(GradingRun.submission_id.in_(ids), GradingRun.is_current.is_(True))
        ).tuples().all())
        before = {sid: _rows(session, run) for sid, run in current.items()}
    shared = data.draw(results("b1.per_matrix"))  # one result object stored for several runs
    runs = []
    for n, sid in enumerate(ids[:2]):
        changed = {"b1.per_matrix": shared}
        if data.draw(st.booleans()):
            changed["b2.total"] = data.draw(results("b2.total"))
        keys = json.dumps({"location": f"l{n}", "answers": 1, "groups": {"B1/numeric": [
            f"group:{data.draw(st.integers(0, 99))}", "b"]}})
        runs.append(AdvancedRun(sid, current[sid], data.draw(st.sampled_from(RUN_STATUSES)),
                                Decimal(data.draw(st.integers(0, 10**6))) / 100,
                                Decimal(data.draw(st.integers(0, 10**6))) / 100, keys, changed))
    seconds = data.draw(st.none() | st.floats(0, 100))
    with unit_of_work(sessions) as session:
        assert advance_runs(session, runs, version, "h1", None, POSITIONS, seconds) == 2
    # The same results written by SQLAlchemy's Core, in runs of a third submission.
    with unit_of_work(sessions) as session:
        expected = {}
        for r in runs:
            core = store_outcomes(session, [(ids[2], version, WorkerOutcome(
                status=r.status, rubric_hash="h1"))])[0]
            session.execute(insert(ItemScore), [
                {"run_id": core.id, "position": POSITIONS[i], "item_id": i, **item_values(result)}
                for i, result in r.changed.items()])
            expected[r.run_id] = _rows(session, core.id)
    with unit_of_work(sessions) as session:
        for r in runs:
            run = session.get(GradingRun, r.run_id)
            assert run is not None and run.is_current
            assert (run.status, run.total, run.max_points, run.rubric_hash, run.error,
                    run.execution_time, run.rubric_version_id) == (
                r.status, r.total, r.max_points, "h1", None, seconds, version)
            assert run.result_keys == json.loads(r.keys)
            assert run.created_at.tzinfo is not None
            rows = _rows(session, r.run_id)
            for item in ITEMS:
                if item in r.changed:
                    assert rows[item] == expected[r.run_id][item]
                else:
                    assert rows[item] == before[r.submission_id][item]
            history = session.scalars(
                select(GradingRun.id).where(GradingRun.submission_id == r.submission_id,
                                            GradingRun.is_current.is_(False))
                .order_by(GradingRun.id.desc())).first()
            assert history is not None
            assert _rows(session, history) == {
                item: before[r.submission_id][item] for item in r.changed}
            submission = session.get(Submission, r.submission_id)
            assert submission is not None and submission.status == r.status


def test_run_scores_reads_the_counts_the_asked_rows_and_the_deciding_ones(
    sessions: sessionmaker[Session],
) -> None:
    ids, version = _submissions(sessions, 2)
    statuses = (Status.GRADED, Status.NEEDS_REVIEW, Status.MISSING)
    outcomes = [WorkerOutcome(status="needs_review", rubric_hash="h", items=tuple(
        ItemResult(item_id=i, question="B1", points=Decimal(n) / 4, max_points=Decimal(3),
                   status=statuses[(n + k) % 3], grader="g", grader_version="v")
        for n, i in enumerate(ITEMS))) for k in range(2)]
    with unit_of_work(sessions) as session:
        runs = store_outcomes(session, [(sid, version, o) for sid, o in zip(ids, outcomes,
                                                                               strict=True)])
        run_ids = [r.id for r in runs]
    with unit_of_work(sessions) as session:
        read = run_scores(session, run_ids, ["b1.d_head", "b1.d_head"])
    for run_id, outcome in zip(run_ids, outcomes, strict=True):
        assert read[run_id].count == len(ITEMS)
        wanted = {r.item_id: r for r in outcome.items
                  if r.item_id == "b1.d_head" or r.status.value in DECIDING}
        assert {item: tuple(score) for item, score in read[run_id].rows.items()} == {
            item: (item, r.points, r.max_points, r.status.value) for item, r in wanted.items()}


@pytest.mark.parametrize(("dialect", "expected"), [
    (sqlite.dialect(), "UPDATE t SET a = ? WHERE b = ?"),
    (postgresql.psycopg.dialect(),  # type: ignore[no-untyped-call]
     "UPDATE t SET a = %s WHERE b = %s"),
])
def test_driver_sql_is_written_in_the_drivers_style(dialect: Dialect, expected: str) -> None:
    assert driver_sql("UPDATE t SET a = ? WHERE b = ?", dialect) == expected
    with pytest.raises(ValueError):
        driver_sql("SELECT 1 WHERE a LIKE '%x'", dialect)


def test_the_status_index_goes_up_and_down(db_url: str) -> None:
    def indexes() -> set[str]:
        engine = make_engine(db_url)
        try:
            return {i["name"] or "" for i in inspect(engine).get_indexes("item_scores")}
        finally:
            engine.dispose()

    assert "ix_item_scores_run_status" in indexes()
    downgrade(db_url, "0007_run_keys")
    assert "ix_item_scores_run_status" not in indexes()
    upgrade(db_url)
    assert "ix_item_scores_run_status" in indexes()


def test_sqlite_connections_cache_a_regrade_batch_and_map_the_file(sqlite_db: str) -> None:
    engine = make_engine(sqlite_db)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("PRAGMA cache_size")).scalar() == -SQLITE_CACHE_KIB
            assert connection.execute(text("PRAGMA mmap_size")).scalar() == SQLITE_MMAP_BYTES
    finally:
        engine.dispose()
