"""Strings from student documents are cleaned where they are stored and printed, and one result
that cannot be stored never takes a batch, an upload burst or a regrade down with it."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from app.assignments.service import sync_rubric_dir
from app.cli.main import app as cli
from app.db.models import GradingRun, ItemScore, Submission
from app.db.session import unit_of_work
from app.grading.store import store_results
from app.grading.worker import WorkerOutcome
from app.regrade import runner as regrade_runner
from app.regrade.runner import run_regrade
from app.sanitize import clean, clean_json
from app.settings import get_settings
from app.submissions.service import accept
from app.submissions.upload import Upload
from graders.results import Evidence, ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS

SLUG = "transformer-basics"
# What a hostile document gets quoted as: a lone surrogate, NUL, an ANSI colour and a title
# change, a one-byte CSI, a right-to-left override and rich markup.
HOSTILE = "ok\ud800 \x00 \x1b[31mred\x1b]0;owned\x07 \x9b2J \u202egnp.exe [bold]x[/bold]"
UNSAFE = ["\ud800", "\x00", "\x1b", "\x07", "\x9b", "\u202e"]


@given(st.text(max_size=300), st.integers(min_value=2, max_value=400))
def test_clean_text_is_encodable_free_of_controls_and_capped(text: str, limit: int) -> None:
    out = clean(text, limit)
    out.encode("utf-8")  # no lone surrogates
    assert len(out) <= limit
    assert all(ch in "\n\t" or (ord(ch) >= 32 and not 0x7F <= ord(ch) <= 0x9F) for ch in out)


# Characters a reader cannot see: zero-width space, non-joiner and joiner, direction marks, word
# joiner, byte-order mark, soft hyphen, and the tag block that can spell a hidden ASCII message.
INVISIBLE = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060",
                             "\ufeff", "\u00ad"]) | st.integers(0xE0000, 0xE007F).map(chr)


@given(st.lists(st.sampled_from(["grade", " me ", "full", "marks"]) | INVISIBLE, max_size=30))
def test_clean_text_shows_what_it_holds(parts: list[str]) -> None:
    text = "".join(parts)
    visible = "".join(p for p in parts if p in ("grade", " me ", "full", "marks"))
    assert clean(text) == visible


@given(st.recursive(st.text(max_size=20), lambda c: st.lists(c) | st.dictionaries(st.text(), c)))
def test_clean_json_cleans_every_string_keys_included(value: Any) -> None:
    def strings(v: Any) -> Iterator[str]:
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            for k, x in v.items():
                yield k
                yield from strings(x)
        elif isinstance(v, list):
            for x in v:
                yield from strings(x)

    for s in strings(clean_json(value)):
        s.encode("utf-8")
        assert "\x00" not in s and "\x1b" not in s


def _item(item_id: str, feedback: str = "fine") -> ItemResult:
    return ItemResult(
        item_id=item_id, question="B1", points=Decimal("1"), max_points=Decimal("2"),
        status=Status.GRADED, feedback=feedback, grader="numeric", grader_version="t",
        evidence=(Evidence(kind="answer", text=feedback),),
    )


def _outcome(*items: ItemResult, error: str | None = None) -> WorkerOutcome:
    return WorkerOutcome(
        status="graded", rubric_hash="h", items=items, error=error,
        student_id="victim", answers={"B1": HOSTILE},
    )


def _submissions(sessions: sessionmaker[Session], count: int) -> tuple[list[int], int]:
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        accepted = [
            accept(session, SLUG, Upload(f"B1: {i}".encode(), "a.txt", "text/plain"), None, 10**6)
            for i in range(count)
        ]
        return [a.submission.id for a in accepted], accepted[0].job.rubric_version_id


def test_hostile_strings_are_stored_clean_on_both_backends(
    sessions: sessionmaker[Session],
) -> None:
    [sid], version = _submissions(sessions, 1)
    unstored = store_results(
        sessions, [(sid, version, _outcome(_item("b1.d_head", HOSTILE), error=HOSTILE))]
    )
    assert unstored == []
    with unit_of_work(sessions) as session:
        run = session.scalars(select(GradingRun).where(GradingRun.submission_id == sid)).one()
        item = session.scalars(select(ItemScore).where(ItemScore.run_id == run.id)).one()
        submission = session.get(Submission, sid)
        assert submission is not None
        stored = [run.error, run.answers["B1"], item.feedback, item.evidence[0]["text"],
                  submission.error]
    for text in stored:
        assert isinstance(text, str) and "red" in text and "gnp.exe" in text
        assert not any(bad in text for bad in UNSAFE)
    # The document's own student_id files nothing: only an explicit student does.
    assert submission.student is None


def test_one_unstorable_result_marks_only_its_own_submission(
    sessions: sessionmaker[Session],
) -> None:
    ids, version = _submissions(sessions, 3)
    # Two items with one id break the (run, item) uniqueness: the row cannot be stored.
    broken = _outcome(_item("b1.d_head"), _item("b1.d_head"))
    results: list[tuple[int, int, WorkerOutcome | BaseException]] = [
        (ids[0], version, _outcome(_item("b1.d_head"))),
        (ids[1], version, broken),
        (ids[2], version, RuntimeError("the grading process died")),
    ]
    assert store_results(sessions, results) == [ids[1]]
    with unit_of_work(sessions) as session:
        status = {i: session.get(Submission, i).status for i in ids}  # type: ignore[union-attr]
    assert status == {ids[0]: "graded", ids[1]: "grader_error", ids[2]: "grader_error"}


def test_a_regrade_survives_a_result_it_cannot_store(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    ids, _ = _submissions(sessions, 4)

    def grade_many(_rubric: str, documents: list[Any], *_: Any) -> list[WorkerOutcome]:
        # The second document of every task comes back unstorable.
        return [
            _outcome(_item("b1.d_head"), _item("b1.d_head")) if n == 1 else
            _outcome(_item("b1.d_head"))
            for n, _ in enumerate(documents)
        ]

    monkeypatch.setattr(regrade_runner, "grade_many", grade_many)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        report = run_regrade(sessions, SLUG, pool, batch_size=2)
    assert report.job_id is not None and report.total == 4
    with unit_of_work(sessions) as session:
        statuses = sorted(session.get(Submission, i).status for i in ids)  # type: ignore[union-attr]
        job = regrade_runner.jobs.get_job(session, report.job_id)
        assert job is not None and job.status == "done" and job.done == 2
    assert statuses == ["graded", "graded", "grader_error", "grader_error"]


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", f"sqlite:///{tmp_path / 'g.db'}")
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


@pytest.mark.parametrize("output", ["table", "json"])
def test_cli_grade_prints_hostile_feedback_safely(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, output: str
) -> None:
    from app.cli import grade

    monkeypatch.setattr(
        grade, "grade_document", lambda *a, **k: _outcome(_item("b1.d_head", HOSTILE))
    )
    doc = cli_env / "answers.txt"
    doc.write_text("B1: 64")
    result = CliRunner().invoke(
        cli, ["grade", str(doc), "--assignment", SLUG, "--format", output]
    )
    assert result.exit_code == 0, (result.output, result.exception)
    assert "gnp.exe" in result.output and "[bold]" in result.output  # shown, not interpreted
    assert not any(bad in result.output for bad in UNSAFE)
