"""Class: an instructor's own rubric, loaded from a folder of theirs (not the operator's rubrics
folder) by one command and graded by another. `gradeformer import` forks its grading processes
before it reads anything, so they never saw the rubric's file: they looked for its code
batteries in the operator's rubrics folder, failed, and the failure (an exception the process
pool could not carry back) read as "the grading process died 3 times" on every submission.
Jobs now carry the rubric's battery files as loaded (tests/app/cli/test_rubric_battery_files.py).
A version stored before they were kept finds them beside its file: when it can no longer be
rebuilt (its battery moved away since) the command is refused in one line with nothing stored,
and in a grading process it is a grader error saying so, once: never a student's zero."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "softmax-temperature"
SLUG = "numpy-softmax-temperature"
RIGHT = """import numpy as np

def softmax(x, *, temperature=1.0):
    z = x / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)
"""
UNSTABLE = """import numpy as np

def softmax(x, *, temperature=1.0):
    e = np.exp(x / temperature)
    return e / e.sum(axis=-1, keepdims=True)
"""


def _gradeformer(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRADEFORMER_DATABASE_URL": f"sqlite:///{tmp / 'g.db'}",
           "GRADEFORMER_WORKERS": "1"}
    # A process of its own for each command, as an instructor runs them: nothing one command
    # read is in the other's memory.
    return subprocess.run(
        [sys.executable, "-c", "from app.cli.main import main; main()", *args],
        cwd=tmp, env=env, capture_output=True, text=True, timeout=300, check=False)


def _statuses(tmp: Path) -> dict[str, tuple[str, str | None]]:
    with sqlite3.connect(tmp / "g.db") as db:
        return {student: (status, error) for student, status, error in
                db.execute("select student, status, error from submissions")}


@pytest.fixture
def course(tmp_path: Path) -> Path:
    own = tmp_path / "my-homework"
    shutil.copytree(EXAMPLE, own)
    hand_ins = tmp_path / "hand-ins"
    hand_ins.mkdir()
    (hand_ins / "amy.py").write_text(RIGHT)
    (hand_ins / "ben.py").write_text(UNSTABLE)
    for args in (("db", "upgrade"), ("rubric", "load", str(own))):
        done = _gradeformer(tmp_path, *args)
        assert done.returncode == 0, done.stderr
    return tmp_path


def test_an_own_rubric_loaded_by_one_command_is_graded_by_another(course: Path) -> None:
    done = _gradeformer(course, "import", "hand-ins", "--assignment", SLUG)
    assert done.returncode == 0, done.stderr
    assert "died" not in done.stderr
    statuses = _statuses(course)
    assert statuses["amy"] == ("graded", None), statuses
    assert statuses["ben"][0] == "graded", statuses
    with sqlite3.connect(course / "g.db") as db:
        points = dict(db.execute(
            "select s.student, sum(i.points) from item_scores i join grading_runs r "
            "on i.run_id = r.id join submissions s on r.submission_id = s.id "
            "group by s.student"))
    assert float(points["amy"]) == 4.0 and float(points["ben"]) < 4.0, points


def test_a_version_stored_without_its_batteries_refuses_the_import_in_one_line_when_they_move(
        course: Path) -> None:
    """A version loaded before versions kept their battery files (0013) still finds them
    beside its file; gone from there, the command is refused in one line."""
    with sqlite3.connect(course / "g.db") as db:
        db.execute("update rubric_versions set battery_files = null")
    (course / "my-homework" / "softmax.yaml").unlink()
    done = _gradeformer(course, "import", "hand-ins", "--assignment", SLUG)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and "died" not in done.stderr, done.stderr
    assert "error: This assignment's rubric cannot be read now" in done.stderr
    assert _statuses(course) == {}  # nothing half-stored


def test_a_grading_process_that_cannot_rebuild_the_rubric_reports_a_grader_error(
        tmp_path: Path) -> None:
    """The rubric moved away between the upload and its grading (or the grading process runs
    where the staff's folder is not): the outcome is data, not an exception the pool cannot
    carry back."""
    from app.grading.worker import RubricText, grade_document

    own = tmp_path / "elsewhere"
    shutil.copytree(EXAMPLE, own)
    source = own / "softmax-temperature.yaml"
    # A text no process parsed before (the parse is remembered per text).
    text = source.read_text() + f"# {tmp_path.name}\n"
    (own / "softmax.yaml").unlink()
    outcome = grade_document(RubricText(text, str(source)), RIGHT.encode(), "amy.py", None)
    assert outcome.status == "grader_error"
    assert outcome.error is not None and "could not be rebuilt" in outcome.error
    assert str(tmp_path) not in outcome.error and not outcome.items


def test_a_version_whose_stored_battery_files_cannot_be_used_says_so(tmp_path: Path) -> None:
    """A version stored with its battery files (they are what it is graded with) that cannot be
    rebuilt from them: the grader error names the stored files, not a folder that moved."""
    from app.grading.worker import RubricText, grade_document

    source = EXAMPLE / "softmax-temperature.yaml"
    text = source.read_text() + f"# {tmp_path.name}\n"
    outcome = grade_document(RubricText(text, str(source), b"not stored files"),
                             RIGHT.encode(), "amy.py", None)
    assert outcome.status == "grader_error" and not outcome.items
    assert outcome.error is not None and "battery files stored with it" in outcome.error
    assert "where it was loaded from" not in outcome.error
