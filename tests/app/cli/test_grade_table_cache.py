"""`gradeformer grade-table`'s cache folder (by default the user's, else `--embedding-cache DIR`):
a second run over the same answers reads every vector (and every row's result) from it and
writes the same output (the real CLI, child processes; XDG_CACHE_HOME is a temporary folder)."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared_data import REPO

RUBRIC = """
slug: quiz
title: Quiz
review_threshold: 0.6
questions:
  - id: heads
    prompt: Why use several attention heads?
    items:
      - id: heads.why
        points: 5
        grader: written
        config:
          reference: ["Several heads attend to different positions or relations in parallel."]
"""
ANSWERS = ["Different heads look at different positions in parallel.",
           "Each head learns its own relation. They run at the same time.",
           "Because the softmax is expensive.", "", "Heads attend to the same token."]


def _run(tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> str:
    table = tmp_path / "t.csv"
    with table.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "question", "answer"])
        writer.writerows([f"s{i}", "heads", a] for i, a in enumerate(ANSWERS))
    (tmp_path / "r.yaml").write_text(RUBRIC)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade-table", str(table), "--rubric",
         str(tmp_path / "r.yaml"), "--no-progress", *extra], cwd=REPO,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", **(env or {})}, capture_output=True,
        text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _model_installed() -> bool:
    from graders.embedding import EmbedderUnavailable, model_directory

    try:
        model_directory()
    except EmbedderUnavailable:
        return False
    return True


@pytest.mark.skipif(not _model_installed(), reason="the MiniLM model package is not installed")
def test_second_run_reads_the_folder_and_gives_the_same_output(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    plain = _run(tmp_path)
    first = _run(tmp_path, "--embedding-cache", str(cache))
    files = {p: p.stat().st_mtime_ns for p in cache.rglob("*.f32")}
    assert files  # the sentences and words were written
    second = _run(tmp_path, env={"GRADEFORMER_EMBEDDING_CACHE_DIR": str(cache)})
    assert plain == first == second
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*.f32")} == files  # nothing new


@pytest.mark.skipif(not _model_installed(), reason="the MiniLM model package is not installed")
def test_foreign_files_in_the_folder_are_ignored(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    expected = _run(tmp_path, "--embedding-cache", str(cache))
    for path in cache.rglob("*.f32"):
        path.write_bytes(b"\x00" * 7)  # torn or foreign: a miss, encoded again
    # Without the rows' results, which would answer without reading a vector.
    assert _run(tmp_path, "--embedding-cache", str(cache), "--no-row-cache") == expected
    for path in cache.rglob("*.json"):
        path.write_bytes(b'{"x": [{"item_id": "heads.why"}]}')  # foreign rows: graded again
    assert _run(tmp_path, "--embedding-cache", str(cache)) == expected


def test_a_cache_folder_that_cannot_be_made_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    (tmp_path / "r.yaml").write_text(RUBRIC)
    (tmp_path / "t.csv").write_text("student,question,answer\ns,heads,They run in parallel.\n")
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade-table", str(tmp_path / "t.csv"),
         "--rubric", str(tmp_path / "r.yaml"), "--embedding-cache", str(blocker / "cache")],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert "--embedding-cache" in done.stderr and done.stdout == ""


def _files(folder: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


@pytest.mark.skipif(not _model_installed(), reason="the MiniLM model package is not installed")
def test_by_default_a_second_run_reads_the_user_cache_folder(tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    env = {"XDG_CACHE_HOME": str(xdg)}
    plain = _run(tmp_path, "--no-embedding-cache", env=env)
    assert not xdg.exists()  # memory only: nothing written
    first = _run(tmp_path, env=env)
    [folder] = (xdg / "gradeformer" / "embeddings").iterdir()  # named by the model fingerprint
    assert list(folder.rglob("*.f32")) and list((folder / "rows").rglob("*.json"))
    files = _files(xdg)
    second = _run(tmp_path, env=env)
    vectors_only = _run(tmp_path, "--no-row-cache", env=env)
    assert plain == first == second == vectors_only
    assert _files(xdg) == files  # nothing written again


@pytest.mark.skipif(not _model_installed(), reason="the MiniLM model package is not installed")
def test_a_changed_answer_regrades_its_question(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    _run(tmp_path, env=env)
    ANSWERS[1] = "Heads split the work: each attends to its own positions."
    try:
        assert _run(tmp_path, env=env) == _run(tmp_path, "--no-embedding-cache", env=env)
    finally:
        ANSWERS[1] = "Each head learns its own relation. They run at the same time."


def test_an_unwritable_user_cache_folder_falls_back_to_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    env = {"XDG_CACHE_HOME": str(blocker)}
    table = tmp_path / "t.csv"
    table.write_text("student,question,answer\ns,heads,They run in parallel.\n")
    (tmp_path / "r.yaml").write_text(RUBRIC)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade-table", str(table), "--rubric",
         str(tmp_path / "r.yaml"), "--no-progress"], cwd=REPO,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", **env}, capture_output=True,
        text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    [line] = done.stderr.splitlines()
    assert "cannot be written" in line and "memory only" in line
    assert len(done.stdout.splitlines()) == 1


@pytest.mark.skipif(not _model_installed(), reason="the MiniLM model package is not installed")
def test_two_runs_at_once_share_the_folder(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    expected = _run(tmp_path, "--no-embedding-cache", env=env)
    table, rubric = tmp_path / "t.csv", tmp_path / "r.yaml"
    runs = [subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "grade-table", str(table), "--rubric",
         str(rubric), "--no-progress"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", **env}, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-2000:] for _, err in outputs]
    assert [out for out, _ in outputs] == [expected, expected]
    assert _run(tmp_path, env=env) == expected  # and what they left is read back
    assert not list((tmp_path / "xdg").rglob("*.tmp"))  # no temporary file left behind
