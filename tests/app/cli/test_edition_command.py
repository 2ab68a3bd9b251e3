"""`gradeformer edition set|clear|list` against a real SQLite database: a student's edition set
by staff is the one `submit` stores whatever `--handout` says, setting it names the submissions a
regrade moves, `regrade` grades them under it, and `rubric validate` warns while editions differ
by a question."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from app.cli.main import app
from app.settings import get_settings
from tests.app.submissions.test_handout_editions import SLUG, rubric_text

WRONG_Q2 = b"Q1: 10\n\nQ2: 99\n\nQ3: 30\n"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "g.db"
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", f"sqlite:///{path}")
    monkeypatch.setenv("GRADEFORMER_WORKERS", "1")
    get_settings.cache_clear()
    yield path
    get_settings.cache_clear()


def _run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, (result.output, result.exception)
    return result.output


def _stored(db: Path) -> list[tuple[str | None, str | None, str, float, float]]:
    """Per submission: the edition graded, the one declared, q2's status, points and maximum."""
    engine = create_engine(f"sqlite:///{db}")
    try:
        with engine.connect() as connection:
            rows = connection.execute(text(
                "SELECT s.handout, s.declared_handout, i.status, i.points, i.max_points "
                "FROM submissions s "
                "JOIN grading_runs r ON r.submission_id = s.id AND r.is_current "
                "JOIN item_scores i ON i.run_id = r.id AND i.item_id = 'q2.value' "
                "ORDER BY s.id"))
            return [(h, d, st, float(p), float(m)) for h, d, st, p, m in rows]
    finally:
        engine.dispose()


def test_staff_set_the_edition_and_a_regrade_follows(db: Path, tmp_path: Path) -> None:
    rubric = tmp_path / f"{SLUG}.yaml"
    rubric.write_text(rubric_text())
    validated = _run("rubric", "validate", str(rubric))
    assert "editions differ by question q2, q3" in validated
    _run("db", "upgrade")
    _run("rubric", "load", str(rubric))
    assert "warning: editions differ by question q2, q3" in _run("edition", "list", SLUG)
    sample = tmp_path / "s.md"
    sample.write_bytes(WRONG_Q2)
    _run("submit", str(sample), "--assignment", SLUG, "--student", "s1", "--handout", "2022")
    assert _stored(db) == [("2022", "2022", "missing", 0.0, 0.0)]  # the attack, before

    out = _run("edition", "set", SLUG, "2021", "--student", "s1")
    assert "student s1 is graded under handout 2021" in out
    assert "1 stored submission now graded under another edition" in out
    assert f"gradeformer regrade --assignment {SLUG}" in out
    _run("regrade", "--assignment", SLUG)
    assert _stored(db) == [("2021", "2022", "graded", 0.0, 1.0)]
    # a new upload declaring the other edition is graded under staff's at once
    _run("submit", str(sample), "--assignment", SLUG, "--student", "s1", "--handout", "2022")
    assert _stored(db)[1] == ("2021", "2022", "graded", 0.0, 1.0)

    listed = _run("edition", "list", SLUG)
    assert "*\t-" in listed and "s1\t2021" in listed and "warning" in listed
    assert "every student without their own is graded under handout 2022" in _run(
        "edition", "set", SLUG, "2022")
    assert "warning" not in _run("edition", "list", SLUG)

    refused = _run("edition", "set", SLUG, "2030", "--student", "s1", code=1)
    assert refused.strip().count("\n") == 0
    assert "'2030' is not an edition of this assignment (its editions: 2021, 2022)" in refused

    cleared = _run("edition", "clear", SLUG, "--student", "s1")
    assert "student s1 has no edition of their own: graded under the assignment's" in cleared
    assert "2 stored submissions now graded under another edition" in cleared
    assert "every student without their own is graded under the edition each upload declares" in (
        _run("edition", "clear", SLUG))
    _run("regrade", "--assignment", SLUG)
    assert [row[:3] for row in _stored(db)] == [("2022", "2022", "missing")] * 2
