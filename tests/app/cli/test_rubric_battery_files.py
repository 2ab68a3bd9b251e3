"""Class: the folder an instructor loaded a rubric from changes after `gradeformer rubric load`
(a battery's reference edited in place, the folder moved or deleted, a grading process on
another machine). A loaded version keeps its batteries' files as they were loaded, so grading
under it (`import`, `regrade`) never reads the folder: the same version grades the same way,
and an edit counts once the rubric is loaded again, as a new version, from the next regrade."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from graders.rubric_files import MAX_FOLDER_BYTES
from tests.app.cli.test_import_own_rubric import EXAMPLE, RIGHT, SLUG, _gradeformer


def _ok(tmp: Path, *args: str) -> str:
    done = _gradeformer(tmp, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _grades(tmp: Path) -> dict[str, tuple[str, float, int]]:
    """Student -> (status, points, rubric version id) of their latest run."""
    with sqlite3.connect(tmp / "g.db") as db:
        return {student: (status, float(total), version) for student, status, total, version in
                db.execute("select s.student, r.status, r.total, r.rubric_version_id "
                           "from grading_runs r join submissions s on r.submission_id = s.id "
                           "where r.id = (select max(id) from grading_runs "
                           "where submission_id = s.id)")}


def _hand_in(tmp: Path, folder: str, student: str) -> str:
    (tmp / folder).mkdir()
    (tmp / folder / f"{student}.py").write_text(RIGHT)
    return folder


@pytest.fixture
def loaded(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "my-homework")
    _ok(tmp_path, "db", "upgrade")
    assert "loaded" in _ok(tmp_path, "rubric", "load", "my-homework")
    return tmp_path


def test_grading_reads_the_batteries_as_loaded_whatever_happens_to_the_folder(
        loaded: Path) -> None:
    own = loaded / "my-homework"
    # The reference edited in place (it now halves the logits too), not loaded again.
    module = own / "softmax.py"
    edited = module.read_text().replace("    z = x / temperature\n    e = np.exp(z - z.max(axis=-1",
                                        "    z = x / (2 * temperature)\n    e = np.exp(z - z.max("
                                        "axis=-1", 1)
    assert edited != module.read_text()
    module.write_text(edited)
    _ok(loaded, "import", _hand_in(loaded, "week-1", "amy"), "--assignment", SLUG)
    first = _grades(loaded)["amy"]
    assert first[:2] == ("graded", 4.0), first
    # The folder moved away: a grading process never finds it.
    own.rename(loaded / "moved")
    _ok(loaded, "import", _hand_in(loaded, "week-2", "ben"), "--assignment", SLUG)
    assert _grades(loaded)["ben"] == first

    # Loaded again from where it is now: its edit is a new version, graded from the regrade on.
    assert "loaded" in _ok(loaded, "rubric", "load", "moved")
    shutil.rmtree(loaded / "moved")
    listed = _ok(loaded, "rubric", "list", "--all", "--files")
    assert listed.count(SLUG) == 2 and listed.count("softmax.py") == 2, listed
    _ok(loaded, "regrade", "--assignment", SLUG)
    after = _grades(loaded)
    assert {g[2] for g in after.values()} != {first[2]}, after
    # The edited reference disagrees with a right answer on every value.
    assert all(status == "graded" and points < 4.0 for status, points, _ in after.values()), after


def test_a_battery_folder_over_the_bound_is_refused_at_load_in_one_line(
        tmp_path: Path) -> None:
    own = tmp_path / "big-homework"
    shutil.copytree(EXAMPLE, own)
    (own / "tables.py").write_text("# generated\n" + "X = 0\n" * (MAX_FOLDER_BYTES // 6 + 1))
    _ok(tmp_path, "db", "upgrade")
    done = _gradeformer(tmp_path, "rubric", "load", "big-homework")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "battery folder" in lines[0] and "bytes" in lines[0], lines
    with sqlite3.connect(tmp_path / "g.db") as db:
        assert db.execute("select count(*) from rubric_versions").fetchone() == (0,)
