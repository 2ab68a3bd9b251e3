"""`gradeformer evaluate` through the real command, on samples made here and on ../shared/real."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.shared_data import REPO, shared_path


def _cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        capture_output=True, text=True, cwd=cwd, timeout=240, check=False,
    )


def _sample(folder: Path, stem: str, answers: dict[str, str], grades: dict[str, object]) -> None:
    (folder / f"{stem}.json").write_text(json.dumps({"_source": {"note": "metadata"},
                                                     "answers": answers}))
    (folder / f"{stem}.grades.yaml").write_text(yaml.safe_dump(grades))


def test_evaluate_reports_agreement_and_each_disagreement(tmp_path: Path) -> None:
    _sample(tmp_path, "right", {"b1.d_head": "64"}, {
        "assignment": "transformer-basics", "total": 4, "total_range": [0, 40],
        "items": {"b1.d_head": {"points": 4, "range": [4, 4]}},
    })
    _sample(tmp_path, "wrong", {"b1.d_head": "65"}, {
        "assignment": "transformer-basics", "total": 4, "total_range": [4, 4],
        "items": {"b1.d_head": {"points": 4, "range": [4, 4], "note": "hand grade"}},
    })
    done = _cli("evaluate", str(tmp_path), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    by_file = {f["file"]: f for f in report["files"]}
    assert by_file["right.json"]["agrees"] and by_file["right.json"]["disagreements"] == []
    wrong = by_file["wrong.json"]
    assert not wrong["agrees"] and not wrong["total_within"]
    [item] = wrong["disagreements"]
    assert item["id"] == "b1.d_head" and item["points"] == 0 and item["range"] == [4, 4]
    assert item["evidence"]
    assert report["overall"]["items"] == 2 and report["overall"]["items_within"] == 1

    text = _cli("evaluate", str(tmp_path))
    assert text.returncode == 0, text.stderr
    [overall] = [line for line in text.stdout.splitlines() if line.startswith("overall:")]
    assert overall.startswith("overall: 1/2 answered items within range (50.0%), 1/2 totals")
    # The wrong value is decided by the machine alone (graded, at 0.75: not confidently).
    assert text.stdout.strip().splitlines()[-1] == (
        "auto-graded: 1/2 answered items out of range (50.0%); out of range and auto-graded at "
        "confidence ≥ 0.8: 0"
    )


def test_evaluate_refuses_a_folder_without_grades_in_one_line(tmp_path: Path) -> None:
    done = _cli("evaluate", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "grades.yaml" in done.stderr


def test_evaluate_names_a_broken_grades_file(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "a.grades.yaml").write_text("total: [1\n")
    done = _cli("evaluate", str(tmp_path))
    assert done.returncode == 1 and "a.grades.yaml" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.shared
@pytest.mark.parametrize("corpus", ["cs224n-attention", "code"])
def test_evaluate_runs_on_the_development_corpus(corpus: str) -> None:
    folder = shared_path("real", corpus)
    done = _cli("evaluate", str(folder), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    overall = report["overall"]
    assert overall["files"] == len(list(folder.glob("*.grades.yaml")))
    # The bars of issues #8 and #10 on the development corpus: a regression fails here.
    assert overall["item_share"] >= 0.92, report
    assert overall["totals_within"] >= overall["files"] - 1, report
    assert overall["confident_missing"] == 0, report
    assert overall["bugs_named"] == overall["bugs"], report


RUBRIC = """\
slug: evaluate-demo
title: Three numbers
questions:
  - id: Q1
    labels: ["Q1"]
    answer_kind: numeric
    items:
      - {id: q1.heads, points: 2, grader: numeric, config: {expected: 8, kind: integer}}
  - id: Q2
    labels: ["Q2"]
    answer_kind: numeric
    items:
      - {id: q2.width, points: 3, grader: numeric, config: {expected: 64, kind: integer}}
  - id: Q3
    labels: ["Q3"]
    answer_kind: numeric
    items:
      - {id: q3.layers, points: 1, grader: numeric, config: {expected: 12, kind: integer}}
"""


def test_evaluate_with_rubric_counts_answered_items_and_lists_the_others_apart(
    tmp_path: Path,
) -> None:
    rubric = tmp_path / "rubrics" / "demo.yaml"
    rubric.parent.mkdir()
    rubric.write_text(RUBRIC)
    samples = tmp_path / "samples"
    samples.mkdir()
    # q1 answered and right; q2 marked unanswered yet the file holds a right value (so the
    # machine gives points); q3 never asked of this file (not listed) and answered right.
    _sample(samples, "a", {"Q1": "8", "Q2": "64", "Q3": "12"}, {
        "assignment": "evaluate-demo", "total": 2, "total_range": [2, 2],
        "items": {"q1.heads": {"points": 2, "range": [2, 2]},
                  "q2.width": {"points": 0, "range": [0, 0], "note": "not answered"}},
    })
    # Every item listed; q2 is a real zero ([0, 0] with no unanswered note): counted.
    _sample(samples, "b", {"Q1": "8", "Q2": "65", "Q3": "11"}, {
        "total": 2, "total_range": [2, 2],
        "items": {"q1.heads": 2, "q2.width": {"points": 0, "range": [0, 0], "note": "wrong"},
                  "q3.layers": {"points": 0, "range": [0, 0], "answered": False}},
    })
    for where in (rubric, rubric.parent):  # a file or a folder of rubrics
        done = _cli("evaluate", str(samples), "--rubric", str(where), "--format", "json")
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        by_file = {f["file"]: f for f in report["files"]}
        a, b = by_file["a.json"], by_file["b.json"]
        assert (a["items"], a["items_listed"], a["not_counted"]) == (1, 2, ["q2.width"])
        assert [i["id"] for i in a["unanswered_given_points"]] == ["q2.width"]
        assert [(i["id"], i["points"]) for i in a["unasked_given_points"]] == [("q3.layers", 1)]
        assert (b["items"], b["items_within"], b["not_counted"]) == (2, 2, ["q3.layers"])
        assert b["unanswered_given_points"] == [] and b["unasked_given_points"] == []
        overall = report["overall"]
        assert (overall["items"], overall["items_within"]) == (3, 3)
        assert (overall["items_listed"], overall["items_listed_within"]) == (5, 4)
        assert (overall["unanswered_given_points"], overall["unasked_given_points"]) == (1, 1)

    text = _cli("evaluate", str(samples), "--rubric", str(rubric))
    assert text.returncode == 0, text.stderr
    assert "unasked items given points: q3.layers 1/1" in text.stdout
    assert "unanswered items given points:" in text.stdout
    assert "not counted: 2 of 5 listed items" in text.stdout
    assert "apart: 1 unanswered items given points, 1 unasked items given points" in text.stdout


def test_evaluate_refuses_grades_for_an_assignment_not_given(tmp_path: Path) -> None:
    rubric = tmp_path / "demo.yaml"
    rubric.write_text(RUBRIC)
    samples = tmp_path / "samples"
    samples.mkdir()
    _sample(samples, "a", {"Q1": "8"}, {"assignment": "other", "total": 2, "items": {}})
    done = _cli("evaluate", str(samples), "--rubric", str(rubric))
    assert done.returncode == 1
    assert "'other' is not among the rubrics given (evaluate-demo)" in done.stderr


@pytest.mark.shared
@pytest.mark.parametrize("corpus", ["written", "code"])
def test_evaluate_counts_answered_items_on_the_new_homework(corpus: str) -> None:
    home = shared_path("real", "new-homework")
    done = _cli("evaluate", str(home / corpus), "--rubric", str(home / "rubrics"),
                "--format", "json")
    assert done.returncode == 0, done.stderr
    overall = json.loads(done.stdout)["overall"]
    grades = [yaml.safe_load(p.read_text()) for p in (home / corpus).glob("*.grades.yaml")]
    assert overall["items_listed"] == sum(len(g["items"]) for g in grades)
    # What the data marks as unanswered ([0, 0], "nothing in this document") is not counted.
    nothing = sum(1 for g in grades for item in g["items"].values()
                  if isinstance(item, dict) and "nothing in this document" in item.get("note", "")
                  and item.get("range") == [0, 0])
    assert overall["items"] == overall["items_listed"] - nothing
    assert overall["confident_wrong"] <= overall["auto_graded_wrong"] <= overall["auto_graded"]


def test_evaluate_prints_no_terminal_escape_from_a_sample(tmp_path: Path) -> None:
    _sample(tmp_path, "hostile", {"b1.d_head": "\x1b]0;owned\x07\x1b[2J 65 \u202e"}, {
        "assignment": "transformer-basics", "total": 4,
        "items": {"b1.d_head": {"points": 4, "range": [4, 4]}},
    })
    done = _cli("evaluate", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "b1.d_head: 0" in done.stdout  # the disagreement, with its evidence
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout and "\u202e" not in done.stdout
