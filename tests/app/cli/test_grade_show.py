"""`gradeformer grade FILE --rubric R --show` through the real command, in its own process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.shared_data import REPO

RUBRIC = """\
slug: show-demo
title: Heads and widths
questions:
  - id: Q1
    title: Number of heads
    labels: ["Question 1", "Q1"]
    answer_kind: numeric
    items:
      - {id: q1.heads, points: 2, grader: numeric, config: {expected: 8, kind: integer}}
  - id: Q2
    title: Width of a head
    labels: ["Question 2", "Q2"]
    answer_kind: numeric
    items:
      - {id: q2.width, points: 3, grader: numeric, config: {expected: 64, kind: integer}}
  - id: Q3
    title: Layers
    labels: ["Question 3", "Q3"]
    answer_kind: numeric
    items:
      - {id: q3.layers, points: 1, grader: numeric, config: {expected: 12, kind: integer}}
"""

SUBMISSION = """\
# My homework

## Question 1
The model uses 8 heads. [bold red]not markup[/bold red] \x1b[31mred\x1b[0m

## Question 2
Each head has width 60, since 512 / 8 = 60.
"""


def _grade(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    rubric = tmp_path / "show-demo.yaml"
    rubric.write_text(RUBRIC)
    answer = tmp_path / "answer.md"
    answer.write_text(SUBMISSION)
    # A database the command must never open.
    env = {**os.environ, "GRADEFORMER_DATABASE_URL": f"sqlite:///{tmp_path}/none/g.db"}
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade", str(answer), "--rubric", str(rubric),
         *args],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=240, check=False,
    )


def test_show_prints_located_text_evidence_and_grades_as_plain_text(tmp_path: Path) -> None:
    done = _grade(tmp_path, "--show")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.splitlines()[0] == "answer.md — show-demo: 2 / 6 (graded)"
    assert re.search(r"located by label '[#\s]*Question 1', line 4 \(confidence", out), out
    assert "The model uses 8 heads." in out
    assert re.search(r"q1\.heads: 2/2 graded \(confidence [01]\.\d\d\)\n    feedback: ", out)
    assert "q2.width: 0/3 graded" in out and "60" in out.split("q2.width")[1]
    assert "evidence value: 8 [line 4]" in out
    # Q3 has no answer: what the locator says instead.
    q3 = out.split("Q3 — Layers")[1]
    assert "located: nothing" in q3 and "q3.layers: 0/1 missing" in q3
    # Student text is shown literally and cleaned: no terminal escapes, markup kept as text.
    assert "\x1b" not in out and "[bold red]not markup[/bold red]" in out
    assert not (tmp_path / "none" / "g.db").exists()  # (the result cache lives beside it)


def test_show_with_json_adds_located_answers_and_evidence(tmp_path: Path) -> None:
    done = _grade(tmp_path, "--show", "--format", "json")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["assignment"] == "show-demo" and body["total"] == 2
    q1 = body["located"]["Q1"]
    assert q1["method"] == "label" and q1["where"] == "line 4"
    assert "8 heads" in q1["text"] and "\x1b" not in q1["text"]
    assert body["located"]["Q3"]["method"] is None and body["located"]["Q3"]["missing"]
    assert any("8" in line for line in body["evidence"]["q1.heads"])


def test_grade_without_rubric_or_assignment_says_what_to_pass(tmp_path: Path) -> None:
    answer = tmp_path / "a.md"
    answer.write_text("Q1: 8")
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade", str(answer)],
        capture_output=True, text=True, cwd=REPO, timeout=240, check=False,
    )
    assert done.returncode == 1 and "--rubric FILE or --assignment SLUG" in done.stderr


def test_show_says_which_notebook_cell_an_answer_came_from(tmp_path: Path) -> None:
    def cell(kind: str, source: str) -> dict[str, object]:
        extra = {"outputs": [], "execution_count": None} if kind == "code" else {}
        return {"cell_type": kind, "metadata": {}, "source": source, **extra}

    notebook = {
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [
            cell("markdown", "# Homework"),
            cell("code", ""),  # empty: not read, still counted as Jupyter numbers cells
            cell("markdown", "## Question 1\nThe model uses 8 heads."),
            cell("code", "x = 1"),
            cell("markdown", "## Question 2\nEach head has width 64."),
        ],
    }
    (tmp_path / "show-demo.yaml").write_text(RUBRIC)
    answer = tmp_path / "hw.ipynb"
    answer.write_text(json.dumps(notebook))
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade", str(answer), "--rubric",
         str(tmp_path / "show-demo.yaml"), "--show", "--format", "json"],
        capture_output=True, text=True, cwd=REPO, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    located = shown["located"]
    # the answer shares its question's cell; the code cell after it is not a numeric answer
    assert located["Q1"]["where"] == "cell 3", located["Q1"]
    assert located["Q2"]["where"] == "cell 5", located["Q2"]
    # the rubric gives no prompt, so the cell's text could be the handout's: review, with why
    items = {item["id"]: item for item in shown["items"]}
    assert items["q1.heads"]["status"] == "needs_review", items["q1.heads"]
    assert "question's own cell" in items["q1.heads"]["feedback"], items["q1.heads"]


def test_a_notebook_without_cell_ids_is_graded_without_nbformat_s_warning(tmp_path: Path) -> None:
    """Class: notebooks saved before Jupyter gave cells ids (nbformat 4.4 and earlier, or written
    by a script). nbformat warns about the missing ids on every read, and the warning went to
    the instructor's terminal with the grade, once per notebook."""
    rubric = tmp_path / "show-demo.yaml"
    rubric.write_text(RUBRIC)
    cells = [{"cell_type": "markdown", "metadata": {}, "source": part}
             for part in SUBMISSION.split("\n\n")]
    notebook = tmp_path / "answer.ipynb"
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                    "nbformat_minor": 5}))
    env = {**os.environ, "GRADEFORMER_DATABASE_URL": f"sqlite:///{tmp_path}/none/g.db"}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade", str(notebook), "--rubric", str(rubric)],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    assert "show-demo: 2 / 6" in done.stdout, done.stdout
    assert "Warning" not in done.stderr and "id field" not in done.stderr, done.stderr
