"""`gradeformer schedule` and `gradeformer publish` on a migrated SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import app
from app.db.models import Assignment, AuditEntry
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.settings import get_settings
from graders.rubric import BUNDLED_RUBRICS

SLUG = "cs224n-attention"
runner = CliRunner()


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "g.db"
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", f"sqlite:///{path}")
    get_settings.cache_clear()
    run("db", "upgrade")
    run("rubric", "load", str(BUNDLED_RUBRICS / f"{SLUG}.yaml"))
    yield path
    get_settings.cache_clear()


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, (result.output, result.exception)
    return " ".join(result.output.split())  # the console wraps long lines


def _row(path: Path) -> tuple[Assignment, list[str]]:
    engine = make_engine(f"sqlite:///{path}")
    try:
        with unit_of_work(make_sessionmaker(engine)) as session:
            row = session.query(Assignment).filter_by(slug=SLUG).one()
            actions = [a.action for a in session.query(AuditEntry).order_by(AuditEntry.id)]
            session.expunge_all()
            return row, actions
    finally:
        engine.dispose()


def test_schedule_and_publish(db: Path) -> None:
    out = run(
        "schedule", "--assignment", SLUG, "--due", "2026-12-01T23:59:00+00:00",
        "--late-until", "2026-12-04T23:59:00+00:00", "--penalty", "12.5",
        "--max-submissions", "3", "--counts", "best",
    )
    assert "due 2026-12-01T23:59+00:00" in out and "submissions: 3" in out
    row, _ = _row(db)
    assert row.due_at == datetime(2026, 12, 1, 23, 59, tzinfo=UTC)
    assert row.late_penalty_percent == Decimal("12.5") and row.counts == "best"
    assert row.max_submissions == 3 and row.grades_published_at is None

    run("schedule", "--assignment", SLUG, "--max-submissions", "0", "--late-until", "none")
    row, _ = _row(db)
    assert row.max_submissions is None and row.late_until is None and row.due_at is not None

    assert "grades published: 20" in run("publish", "--assignment", SLUG)
    row, actions = _row(db)
    assert row.grades_published_at is not None
    assert "grades published: -" in run("publish", "--assignment", SLUG, "--withdraw")
    row, actions = _row(db)
    assert row.grades_published_at is None
    assert actions[-3:] == ["assignment.schedule", "grades.publish", "grades.withdraw"]


def test_bad_input_is_refused_with_a_message(db: Path) -> None:
    assert "UTC offset" in run("schedule", "--assignment", SLUG, "--due", "2026-12-01", code=1)
    assert "not an ISO" in run("schedule", "--assignment", SLUG, "--due", "friday", code=1)
    assert "must not be after" in run(
        "schedule", "--assignment", SLUG, "--opens", "2026-12-02T00:00:00+00:00",
        "--due", "2026-12-01T00:00:00+00:00", code=1,
    )
    assert "between 1 and 100000" in run(
        "schedule", "--assignment", SLUG, "--max-submissions", str(2**63), code=1)
    assert "no assignment" in run("publish", "--assignment", "nope", code=1).lower()


def test_publishing_names_the_answers_still_in_review(db: Path, tmp_path: Path) -> None:
    run("rubric", "load", str(BUNDLED_RUBRICS / "transformer-basics.yaml"))
    answers = tmp_path / "two-readings.json"
    answers.write_text('{"answers": {"B1": "d_head = 12 maybe 64"}}')
    assert "needs_review" in run("submit", str(answers), "--assignment", "transformer-basics",
                                 "--student", "zed")
    out = run("publish", "--assignment", "transformer-basics")
    assert "warning: 1 answer(s) are still in review (b1.d_head 1)" in out
    assert "grades published: 20" in out  # a warning: scripts still publish
    assert "warning" not in run("publish", "--assignment", SLUG)  # nothing waits there
