"""A regrade's fast path (graders.cache.rescore, app.regrade.batches) stores exactly what an
uncached regrade stores.

Each scenario grades the same mixed set in two identical databases, applies the same rubric
edit to both, regrades one with the result cache (the fast path re-scores in the CLI's process
what it can) and the other with every cache off, and compares every stored column of the
current runs and their item scores, the submissions' statuses and the regrade reports.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import case, func, select
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import sync_rubric_dir
from app.db.migrate import upgrade
from app.db.models import GradingRun, ItemScore, Override, RegradeJob, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.grading import worker
from app.regrade.runner import RegradeReport, run_regrade
from app.submissions.service import accept
from app.submissions.upload import Upload
from graders.cache.rescore import Rescorer, StoredRun
from graders.context import GradingResources
from graders.rubric import BUNDLED_RUBRICS
from tests.app.conftest import copy_sqlite_file
from tests.app.regrade.test_cache import (
    ATTENTION,
    DOCUMENTS,
    GRADING,
    KNOWN_MISTAKE,
    POINTS_AND_FEEDBACK,
    RUBRIC,
    SLUG,
    _json,
)

# More of each kind: a wrong carry-forward (b1.total from a wrong b1.per_matrix), free text
# with a missing question, and a program with a known bug.
EXTRA = [
    _json("carry", {"B1": "d_head = 64. Each: 590592. Together: 1771776.",
                    "B2": "Sum = 11.1. softmax = [0.67, 0.24, 0.09]"}),
    (b"Part B\n\n1. d_head = 64, each 49152, total 147456\n\n2. normaliser 11.107\n",
     "short.txt", "text/plain"),
    _json("nobug", {"B3": ATTENTION.replace("axis=-1, keepdims=True)\n    weights = np.exp",
                                            "axis=0, keepdims=True)\n    weights = np.exp")}),
]
ALL = DOCUMENTS[:5] + EXTRA  # the binary upload is refused at upload, never stored

WRITTEN_CONCEPT = (
    ("label: XOR is not linearly separable (no single line splits its classes)",
     "label: XOR cannot be split by one line (it is not linearly separable)"),
)


def _edited(edits: tuple[tuple[str, str], ...]) -> str:
    text = RUBRIC
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


@pytest.fixture
def battery() -> Iterator[str]:
    """A changed copy of the B3 battery beside the real one (batteries live in rubrics/)."""
    real = BUNDLED_RUBRICS / "transformer-basics" / "b3.yaml"
    copy = real.with_name(f"test-{uuid.uuid4().hex[:8]}.yaml")
    text = real.read_text()
    square = "n: 4, m: 4"
    assert square in text
    copy.write_text(text.replace(square, "n: 5, m: 4", 1))
    try:
        yield copy.name
    finally:
        copy.unlink(missing_ok=True)


def _options(tmp_path: Path) -> dict[str, Any]:
    return {**GRADING, "result_cache_path": str(tmp_path / "cache.sqlite")}


def grade_mixed_set(folder: Path) -> None:
    """folder/fast.db: every upload of ALL accepted and graded once through the grading
    processes with the result cache folder/cache.sqlite (each run records its keys). Nothing
    stored names the folder: the cache's keys leave its location out (docs/result-cache.md)."""
    url = f"sqlite:///{folder / 'fast.db'}"
    upgrade(url)
    engine = make_engine(url)
    cached = GradingResources(options=_options(folder))
    try:
        sessions = make_sessionmaker(engine)
        with unit_of_work(sessions) as session:
            sync_rubric_dir(session, BUNDLED_RUBRICS)
            for number, (raw, name, ctype) in enumerate(ALL):
                accept(session, SLUG, Upload(raw, name, ctype, f"s{number}"), None, 1 << 20)
        with pytest.MonkeyPatch.context() as patch, ThreadPoolExecutor(1) as pool:
            patch.setattr(worker, "_resources", cached)
            run_regrade(sessions, SLUG, pool)  # the grading processes: keys recorded
    finally:
        cached.close()
        engine.dispose()


class Setup:
    """Two identical databases graded once with the cache (each run records its keys).

    `graded` is a folder grade_mixed_set filled (the session's, fixture `regrade_graded`): its
    database (twice) and its result cache are copied into tmp_path, each test's own to edit,
    regrade or break. Without it, the grading runs here, in tmp_path."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 graded: Path | None = None) -> None:
        self.tmp = tmp_path
        self.monkeypatch = monkeypatch
        self.options = _options(tmp_path)
        if graded is None:
            grade_mixed_set(tmp_path)
            graded = tmp_path
        else:
            copy_sqlite_file(graded / "fast.db", tmp_path / "fast.db")
            copy_sqlite_file(graded / "cache.sqlite", tmp_path / "cache.sqlite")
        copy_sqlite_file(graded / "fast.db", tmp_path / "plain.db")
        self.cached = GradingResources(options=self.options)
        self.plain = GradingResources(options=dict(GRADING))
        self.pool = ThreadPoolExecutor(1)
        self.use(self.cached)
        self.fast = make_sessionmaker(make_engine(f"sqlite:///{tmp_path / 'fast.db'}"))
        self.slow = make_sessionmaker(make_engine(f"sqlite:///{tmp_path / 'plain.db'}"))

    def use(self, resources: GradingResources) -> None:
        self.monkeypatch.setattr(worker, "_resources", resources)

    def edit(self, text: str) -> None:
        folder = self.tmp / f"rubrics-{uuid.uuid4().hex[:6]}"
        folder.mkdir()
        (folder / f"{SLUG}.yaml").write_text(text)
        for sessions in (self.fast, self.slow):
            with unit_of_work(sessions) as session:
                sync_rubric_dir(session, folder)

    def regrade_both(self, **kwargs: Any) -> tuple[RegradeReport, RegradeReport]:
        self.use(self.cached)
        fast = run_regrade(self.fast, SLUG, self.pool, options=self.options, **kwargs)
        self.use(self.plain)
        slow = run_regrade(self.slow, SLUG, self.pool, **kwargs)
        assert slow.fast is None and slow.cached == 0  # every cache off
        return fast, slow

    def close(self) -> None:
        self.pool.shutdown()
        self.cached.close()
        self.plain.close()


@pytest.fixture
def setup(
    regrade_graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Setup]:
    built = Setup(tmp_path, monkeypatch, regrade_graded)
    yield built
    built.close()


def stored(sessions: sessionmaker[Session]) -> list[tuple[Any, ...]]:
    """Every column a page, an export or the gradebook reads, in order (ids and times aside)."""
    with unit_of_work(sessions) as session:
        runs = session.execute(
            select(Submission.id, Submission.status, Submission.error, GradingRun.status,
                   GradingRun.error, GradingRun.total, GradingRun.max_points,
                   GradingRun.answers, GradingRun.rubric_hash, GradingRun.rubric_version_id,
                   GradingRun.regrade_job_id)
            .join(GradingRun, GradingRun.submission_id == Submission.id)
            .where(GradingRun.is_current.is_(True))
            .order_by(Submission.id)
        ).all()
        items = session.execute(
            select(GradingRun.submission_id, ItemScore.position, ItemScore.item_id,
                   ItemScore.question_id, ItemScore.points, ItemScore.max_points,
                   ItemScore.status, ItemScore.feedback, ItemScore.student_feedback,
                   ItemScore.evidence, ItemScore.confidence, ItemScore.grader,
                   ItemScore.grader_version)
            .join(GradingRun, GradingRun.id == ItemScore.run_id)
            .where(GradingRun.is_current.is_(True))
            .order_by(GradingRun.submission_id, ItemScore.position)
        ).all()
        counts = session.execute(
            select(GradingRun.submission_id, func.count(),
                   func.sum(case((GradingRun.is_current.is_(True), 1), else_=0)))
            .group_by(GradingRun.submission_id).order_by(GradingRun.submission_id)
        ).all()
    return [tuple(r) for r in runs] + [tuple(r) for r in items] + [tuple(r) for r in counts]


def _same_reports(fast: RegradeReport, slow: RegradeReport) -> None:
    assert fast.total == slow.total and fast.changed == slow.changed
    assert fast.changes == slow.changes


def _code_points() -> tuple[tuple[str, str], ...]:
    marker = "grader: code"
    at = RUBRIC.index(marker)
    start = RUBRIC.rindex("points: ", 0, at)
    line = RUBRIC[start:RUBRIC.index("\n", start)]
    value = int(line.split()[1])
    return ((RUBRIC[start:at + len(marker)],
             RUBRIC[start:at + len(marker)].replace(line, f"points: {value + 1}", 1)),)


@pytest.mark.parametrize("edits,in_place", [
    (POINTS_AND_FEEDBACK, True),
    (KNOWN_MISTAKE, True),
    (WRITTEN_CONCEPT, False),  # the written grader runs in the grading processes
    (None, False),  # a code item's points: its group is graded there too
])
def test_fast_regrade_stores_what_an_uncached_regrade_stores(
    setup: Setup, edits: tuple[tuple[str, str], ...] | None, in_place: bool
) -> None:
    assert stored(setup.fast) == stored(setup.slow)
    setup.edit(_edited(edits if edits is not None else _code_points()))
    fast, slow = setup.regrade_both()
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)
    counts = fast.fast
    assert counts is not None and counts.reused + counts.rescored + counts.sent == len(ALL)
    # The hostile document's endless loop timed out: its code group is not kept, so the
    # grading processes grade it again (as they would without the cache).
    assert counts.sent >= 1
    if in_place:
        assert fast.changed > 0
        assert counts.sent == 1 and counts.rescored >= 5 and counts.groups_run >= 1
    else:
        assert counts.sent > 1
    # The next regrade under the same rubric re-uses every stored score, changes nothing.
    again, _ = setup.regrade_both()
    assert again.changed == 0 and again.fast is not None and again.fast.sent == 1
    assert again.fast.reused == len(ALL) - 1
    assert stored(setup.fast) == stored(setup.slow)


def test_a_battery_change_goes_to_the_grading_processes(setup: Setup, battery: str) -> None:
    text = RUBRIC.replace("battery: transformer-basics/b3.yaml",
                          f"battery: transformer-basics/{battery}")
    assert text != RUBRIC
    setup.edit(text)
    # The submissions that answered B3 (their stored run keeps its code group's key) are
    # known, from the rubric change alone, to need the grading processes: sent untried.
    b3 = [sid for sid, keys in answered_groups(setup.fast).items()
          if "B3/code" in keys]
    attempted: list[int] = []
    real = Rescorer._rescore

    def spy(self: Rescorer, run: StoredRun) -> Any:
        attempted.append(run.submission_id)
        return real(self, run)

    setup.monkeypatch.setattr(Rescorer, "_rescore", spy)
    fast, slow = setup.regrade_both()
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)
    counts = fast.fast
    assert counts is not None and b3 and counts.sent > 1
    assert counts.sent_untried == len(b3) and not set(b3) & set(attempted)
    assert counts.reused + counts.rescored + counts.sent == len(ALL)
    assert f"({len(b3)} without trying" in fast.work_summary()
    # Under the new rubric nothing is left to send untried: the next regrade re-uses them.
    again, _ = setup.regrade_both()
    assert again.fast is not None and again.fast.sent_untried == 0 and again.changed == 0


def answered_groups(sessions: sessionmaker[Session]) -> dict[int, list[str]]:
    """Each submission's recorded group names (its current run's result keys)."""
    with unit_of_work(sessions) as session:
        rows = session.execute(
            select(GradingRun.submission_id, GradingRun.result_keys)
            .where(GradingRun.is_current.is_(True))
        ).all()
    return {sid: sorted((keys or {}).get("groups", {})) for sid, keys in rows}


def test_overrides_are_applied_to_the_fast_path_scores(setup: Setup) -> None:
    for sessions in (setup.fast, setup.slow):
        with unit_of_work(sessions) as session:
            first = session.scalars(select(Submission.id).order_by(Submission.id)).first()
            session.add(Override(submission_id=first, item_id="b1.per_matrix",
                                 points=Decimal("1.5"), comment="checked by hand"))
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    fast, slow = setup.regrade_both()
    assert fast.fast is not None and fast.fast.rescored >= 5  # no calibration context
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)
    overridden = [c for c in fast.changes if c.submission_id == first]
    assert all(i.item_id != "b1.per_matrix" for c in overridden for i in c.items)


def test_dry_run_reports_and_stores_nothing(setup: Setup) -> None:
    before = stored(setup.fast)
    setup.edit(_edited(KNOWN_MISTAKE))
    fast, slow = setup.regrade_both(dry_run=True)
    assert stored(setup.fast) == before
    _same_reports(fast, slow)
    summary = fast.work_summary()
    assert f"{len(ALL)} submissions: " in summary
    assert "re-scored in place" in summary and "1 sent to the grading processes" in summary


def test_without_the_cache_file_every_submission_falls_back(setup: Setup) -> None:
    setup.cached.close()
    for path in setup.tmp.glob("cache.sqlite*"):
        path.unlink()
    setup.cached = GradingResources(options=setup.options)
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    fast, slow = setup.regrade_both()
    assert stored(setup.fast) == stored(setup.slow)
    _same_reports(fast, slow)
    counts = fast.fast
    assert counts is not None
    # Unchanged groups need nothing from the cache; the changed B1 group needs the located
    # answers, which are gone: those submissions go to the grading processes.
    assert counts.sent > 1 and counts.located >= 1


def test_an_interrupted_regrade_resumes_where_it_stopped(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup.edit(_edited(POINTS_AND_FEEDBACK))
    stopping = threading.Event()
    batches: list[int] = []

    def stop_after_first(done: int, total: int) -> None:
        batches.append(done)
        stopping.set()

    setup.use(setup.cached)
    first = run_regrade(setup.fast, SLUG, setup.pool, options=setup.options, batch_size=3,
                        fast_batch=3, progress=stop_after_first, stopping=stopping)
    assert first.job_id is not None and 0 < sum(batches) < len(ALL)
    with unit_of_work(setup.fast) as session:
        job = session.get(RegradeJob, first.job_id)
        assert job is not None and job.status == "running" and job.done == sum(batches)
        job.heartbeat_at = None  # the runner is gone: its lease has aged
    second = run_regrade(setup.fast, SLUG, setup.pool, options=setup.options)
    assert second.resumed and second.total == len(ALL) - sum(batches)
    setup.use(setup.plain)
    run_regrade(setup.slow, SLUG, setup.pool)
    fast_rows, slow_rows = stored(setup.fast), stored(setup.slow)
    # The same scores (the job ids differ: the interrupted job is the fast database's own).
    runs = len(ALL)
    assert [r[:10] for r in fast_rows[:runs]] == [r[:10] for r in slow_rows[:runs]]
    assert fast_rows[runs:] == slow_rows[runs:]
    with unit_of_work(setup.fast) as session:
        job = session.get(RegradeJob, first.job_id)
        assert job is not None and job.status == "done" and job.done == len(ALL)


def _current_runs(sessions: sessionmaker[Session]) -> dict[int, tuple[int, Any]]:
    with unit_of_work(sessions) as session:
        return {sid: (run, keys) for sid, run, keys in session.execute(
            select(GradingRun.submission_id, GradingRun.id, GradingRun.result_keys)
            .where(GradingRun.is_current.is_(True))).tuples()}


@pytest.mark.postgres
def test_the_fast_path_on_postgresql(
    postgres_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SQL copies (INSERT ... SELECT, typed parameters, JSON keys) on PostgreSQL too:
    a fast regrade, then an uncached one of the same rubric, store the same rows."""
    sessions, options, cached, plain, folder = on_postgres(postgres_db, tmp_path)
    try:
        with ThreadPoolExecutor(1) as pool:
            monkeypatch.setattr(worker, "_resources", cached)
            run_regrade(sessions, SLUG, pool)
            with unit_of_work(sessions) as session:
                sync_rubric_dir(session, folder)
            before = _current_runs(sessions)
            fast = run_regrade(sessions, SLUG, pool, options=options)
            assert fast.fast is not None and fast.fast.rescored >= 5 and fast.changed > 0
            # Stored in place (a failed store would have sent them to the grading processes):
            # the runs kept their ids, and their keys (written as JSON text) read back.
            after_fast = _current_runs(sessions)
            in_place = [sid for sid, (run, _) in after_fast.items() if before[sid][0] == run]
            assert len(in_place) >= fast.fast.rescored
            assert all(isinstance(after_fast[sid][1]["groups"], dict) for sid in in_place)
            assert any(after_fast[sid][1] != before[sid][1] for sid in in_place)
            same_as_uncached(sessions, pool, plain, monkeypatch)
    finally:
        cached.close()
        plain.close()
        sessions.kw["bind"].dispose()


def on_postgres(postgres_db: str, tmp_path: Path) -> tuple[
        sessionmaker[Session], dict[str, Any], GradingResources, GradingResources, Path]:
    """Every upload stored on PostgreSQL, the resources with and without the result cache,
    and a folder holding the rubric edited (points and feedback, a known mistake)."""
    sessions = make_sessionmaker(make_engine(postgres_db))
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        for number, (raw, name, ctype) in enumerate(ALL):
            accept(session, SLUG, Upload(raw, name, ctype, f"s{number}"), None, 1 << 20)
    options = _options(tmp_path)
    folder = tmp_path / "edited"
    folder.mkdir()
    (folder / f"{SLUG}.yaml").write_text(_edited(POINTS_AND_FEEDBACK + KNOWN_MISTAKE))
    return (sessions, options, GradingResources(options=options),
            GradingResources(options=dict(GRADING)), folder)


def same_as_uncached(sessions: sessionmaker[Session], pool: ThreadPoolExecutor,
                     plain: GradingResources, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same rubric regraded without the cache changes nothing and stores the same rows
    (the uncached regrade is a later job: the same rows but for the job ids)."""
    with_fast = stored(sessions)
    monkeypatch.setattr(worker, "_resources", plain)
    slow = run_regrade(sessions, SLUG, pool)
    assert slow.changed == 0
    after = stored(sessions)
    runs = len(ALL)
    assert [r[:10] for r in with_fast[:runs]] == [r[:10] for r in after[:runs]]
    assert with_fast[runs:-runs] == after[runs:-runs]
