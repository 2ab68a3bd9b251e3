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
    last = text.stdout.strip().splitlines()[-1]
    assert last.startswith("overall: 1/2 items within range (50.0%), 1/2 totals")


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
