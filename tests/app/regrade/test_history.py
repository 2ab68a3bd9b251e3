"""A regrade re-scored in place (app.grading.repository): the current run keeps its id and its
unchanged rows; its previous state is history, holding only what changed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import GradingRun, ItemScore
from app.db.session import unit_of_work
from app.regrade.runner import run_regrade
from app.web import repository as web_repository
from tests.app.regrade.test_cache import KNOWN_MISTAKE, POINTS_AND_FEEDBACK, SLUG
from tests.app.regrade.test_fast import Setup, _edited


@pytest.fixture
def built(
    regrade_graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Setup]:
    made = Setup(tmp_path, monkeypatch, regrade_graded)
    yield made
    made.close()


def test_a_run_re_scored_in_place_keeps_its_rows_and_its_previous_state_becomes_history(
    built: Setup,
) -> None:
    """The current run keeps its id and its unchanged rows; its previous state becomes a run no
    longer current, holding the old rubric, status, totals and time and the superseded rows of
    the changed items (moved, not copied); the web history lists the current run first."""

    def runs(sessions: sessionmaker[Session]) -> dict[int, list[tuple[Any, ...]]]:
        with unit_of_work(sessions) as session:
            found: dict[int, list[tuple[Any, ...]]] = {}
            for run in session.scalars(select(GradingRun).order_by(GradingRun.id)):
                rows = session.execute(
                    select(ItemScore.item_id, ItemScore.points, ItemScore.max_points,
                           ItemScore.feedback)
                    .where(ItemScore.run_id == run.id).order_by(ItemScore.position)).all()
                found.setdefault(run.submission_id, []).append(
                    (run.id, run.is_current, run.rubric_hash, run.total, run.max_points,
                     run.created_at, [tuple(r) for r in rows]))
            return found

    before = runs(built.fast)
    built.edit(_edited(POINTS_AND_FEEDBACK))
    fast, _ = built.regrade_both()
    assert fast.fast is not None and fast.fast.rescored >= 5
    after = runs(built.fast)
    kept = 0
    for sid, old in before.items():
        (old_id, _, old_hash, old_total, old_max, old_at, old_rows), = old
        new = after[sid]
        current = [r for r in new if r[1]]
        history = [r for r in new if not r[1]]
        assert len(current) == 1 and len(history) == 1
        if current[0][0] != old_id:
            continue  # graded anew by the grading processes: a new whole run, the old kept
        kept += 1
        _, _, new_hash, _, _, new_at, cur_rows = current[0]
        _, _, hist_hash, hist_total, hist_max, hist_at, hist_rows = history[0]
        assert (hist_hash, hist_total, hist_max, hist_at) == (old_hash, old_total, old_max,
                                                              old_at)
        assert new_hash != old_hash and new_at >= old_at
        assert len(cur_rows) == len(old_rows)
        changed = {r[0] for r in hist_rows}
        # What the current run now states differently moved to the history (with any other
        # item of a re-scored group), and the history plus the current run's other rows are
        # the old run, row for row.
        assert {n[0] for o, n in zip(old_rows, cur_rows, strict=True) if o != n} <= changed
        assert changed
        merged = {r[0]: r for r in cur_rows if r[0] not in changed} | {r[0]: r for r in hist_rows}
        assert [merged[r[0]] for r in old_rows] == old_rows
    assert kept >= 5
    with unit_of_work(built.fast) as session:
        sid = next(iter(before))
        listed = web_repository.runs_of(session, sid)
        assert listed[0].is_current and not listed[1].is_current


def test_only_the_rows_that_differ_move_and_the_rest_of_a_re_scored_group_stays(
    built: Setup,
) -> None:
    """A points change of one numeric item re-scores its whole group, but the group's other
    items come out as they were: their rows stay in the current run (same row ids), and only
    the changed item's row moves to the history, replaced by a new one."""

    def rows(sessions: sessionmaker[Session]) -> dict[tuple[int, str], tuple[int, int, Any]]:
        with unit_of_work(sessions) as session:
            return {(sid, item): (row_id, run_id, points) for sid, item, row_id, run_id, points
                    in session.execute(
                        select(GradingRun.submission_id, ItemScore.item_id, ItemScore.id,
                               ItemScore.run_id, ItemScore.max_points)
                        .join(GradingRun, GradingRun.id == ItemScore.run_id)
                        .where(GradingRun.is_current.is_(True))).tuples()}

    before = rows(built.fast)
    built.edit(_edited(POINTS_AND_FEEDBACK[:1]))  # b1.per_matrix: 3 points -> 4
    fast, _ = built.regrade_both()
    assert fast.fast is not None and fast.fast.rescored >= 5
    after = rows(built.fast)
    assert after.keys() == before.keys()
    moved = {key for key in before if after[key][0] != before[key][0]}
    # Every in-place run: the changed item has a new row in the same run, the others of its
    # group (b1.*) and of every other group kept theirs.
    in_place = {sid for sid, _ in before if after[(sid, "b1.per_matrix")][1]
                == before[(sid, "b1.per_matrix")][1]}
    assert len(in_place) >= 5
    for sid in in_place:
        assert (sid, "b1.per_matrix") in moved
        assert after[(sid, "b1.per_matrix")][2] == 4 != before[(sid, "b1.per_matrix")][2]
        kept = [key for key in before if key[0] == sid and key[1] != "b1.per_matrix"]
        assert kept and all(key not in moved for key in kept)
        assert any(item.startswith("b1.") for _, item in kept)
    with unit_of_work(built.fast) as session:
        history = session.execute(
            select(GradingRun.submission_id, ItemScore.item_id)
            .join(GradingRun, GradingRun.id == ItemScore.run_id)
            .where(GradingRun.is_current.is_(False),
                   GradingRun.submission_id.in_(in_place))).tuples().all()
    assert sorted(history) == sorted((sid, "b1.per_matrix") for sid in in_place)


def test_keys_written_as_text_are_the_keys_a_grading_process_records(built: Setup) -> None:
    """The fast path writes a run's new keys as its stored JSON text with the changed keys
    replaced: read back, they are exactly the keys a grading process records for the same
    submission under the new rubric, and a second edit re-scores from them in place."""
    for edits in (POINTS_AND_FEEDBACK, POINTS_AND_FEEDBACK + KNOWN_MISTAKE):
        built.edit(_edited(edits))
        built.use(built.cached)
        fast = run_regrade(built.fast, SLUG, built.pool, options=built.options)
        assert fast.fast is not None and fast.fast.rescored >= 5
        graded = run_regrade(built.slow, SLUG, built.pool)  # the grading processes, cache on
        assert graded.fast is None and graded.cached == graded.total

        def keys(sessions: sessionmaker[Session]) -> dict[int, Any]:
            with unit_of_work(sessions) as session:
                return dict(session.execute(
                    select(GradingRun.submission_id, GradingRun.result_keys)
                    .where(GradingRun.is_current.is_(True))).tuples().all())

        mine, theirs = keys(built.fast), keys(built.slow)
        assert mine == theirs
        assert sum(1 for k in mine.values() if k and k.get("groups")) >= 5
