"""A stored rubric's code batteries are found beside its file by every process that grades it:
the one that read the file remembers its folder; a grading process gets the file's path with the
job, else looks in the operator's rubrics folder (GRADEFORMER_RUBRICS_DIR)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import app.grading.worker as worker
import graders.rubric as rubric_module
from graders.context import GradingResources
from tests.graders.code.pos_encoding import CORRECT
from tests.shared_data import REPO

EXAMPLE = REPO / "docs" / "examples" / "positional-encoding"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "rubrics")
    # A grading process that never read the rubric's file.
    monkeypatch.setattr(rubric_module, "_rubric_dirs", {})
    monkeypatch.setattr(worker, "_rubrics", {})
    return tmp_path / "rubrics"


def _grade(text: str, options: dict[str, object]) -> worker.WorkerOutcome:
    resources = GradingResources(options={"sandbox_timeout_s": 2.0, **options})
    try:
        raw = json.dumps({"student_id": "s1", "answers": {"PE": CORRECT}}).encode()
        return worker.grade_document(text, raw, "s1.json", "application/json", resources)
    finally:
        resources.close()


def test_a_grading_process_finds_the_battery_in_the_operators_rubrics_folder(
        folder: Path) -> None:
    text = (folder / "numpy-positional-encoding.yaml").read_text()
    outcome = _grade(text, {"rubrics_dir": str(folder)})
    assert outcome.status == "graded", outcome.error
    assert sum(item.points for item in outcome.items) == 7


def test_without_the_folder_the_stored_text_is_a_grader_error(folder: Path) -> None:
    # Data, not an exception: raised in a pool's process it broke the pool ("died 3 times").
    text = (folder / "numpy-positional-encoding.yaml").read_text()
    outcome = _grade(text, {})
    assert outcome.status == "grader_error" and not outcome.items
    assert outcome.error is not None and "could not be rebuilt" in outcome.error


def test_a_grading_process_finds_the_battery_beside_the_file_the_job_names(
        folder: Path) -> None:
    source = folder / "numpy-positional-encoding.yaml"
    raw = json.dumps({"student_id": "s1", "answers": {"PE": CORRECT}}).encode()
    resources = GradingResources(options={"sandbox_timeout_s": 2.0})
    try:
        outcome = worker.grade_document(worker.RubricText(source.read_text(), str(source)), raw,
                                        "s1.json", "application/json", resources)
    finally:
        resources.close()
    assert outcome.status == "graded", outcome.error
    assert sum(item.points for item in outcome.items) == 7


def test_a_rubrics_folder_holding_batteries_beside_rubrics_lists_only_the_rubrics(
        folder: Path, tmp_path: Path) -> None:
    # The docs put a battery beside its rubric: the folder given to `evaluate --rubric` (or
    # GRADEFORMER_RUBRICS_DIR, synced by the service) must not read pe.yaml as a rubric.
    assert [p.name for p in rubric_module.bundled_rubric_paths(folder)] == [
        "numpy-positional-encoding.yaml"]
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "s1.json").write_text(json.dumps({"student_id": "s1", "answers": {"PE": CORRECT}}))
    (samples / "s1.grades.yaml").write_text(
        "assignment: numpy-positional-encoding\ntotal: 7\ntotal_range: [7, 7]\nitems:\n"
        + "".join(f"  {i}: {{points: {p}, range: [{p}, {p}]}}\n" for i, p in (
            ("pe.guard", 1), ("pe.shape", 1), ("pe.dtype", 1), ("pe.values", 3),
            ("pe.odd_dmodel", 1))))
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "evaluate", str(samples), "--rubric", str(folder),
         "--format", "json"],
        capture_output=True, text=True, timeout=240, check=False,
        cwd=REPO,
        env={**os.environ, "GRADEFORMER_DATABASE_URL": f"sqlite:///{tmp_path / 'e.db'}"},
    )
    assert done.returncode == 0, done.stderr
    overall = json.loads(done.stdout)["overall"]
    assert overall["files_agreeing"] == 1 and overall["items_within"] == 5, overall
