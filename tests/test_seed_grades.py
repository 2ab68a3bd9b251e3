"""The real seeds, graded end to end, against an expert's item-by-item grades and ranges.

This is the product's accuracy check: reading the OCR transcript, locating every answer, and
every grader together. The expert grades live in ../shared/eval/seed-grades.yaml.
"""

from __future__ import annotations

import fnmatch
from decimal import Decimal
from functools import cache
from typing import Any

import pytest
import yaml

from graders.context import GradingResources
from graders.documents import read_submission
from graders.engine import GradingOutcome, grade_submission
from graders.results import ItemResult, Status
from graders.rubric import bundled_rubric_paths, load_rubric
from tests.shared_data import SHARED, shared_path

pytestmark = pytest.mark.shared


def _expected() -> list[tuple[str, str, str, dict[str, Any]]]:
    path = SHARED / "eval" / "seed-grades.yaml"
    if not path.exists():
        return []
    data = yaml.safe_load(path.read_text())
    cases = []
    for slug, seeds in data.items():
        for seed, spec in seeds.items():
            for pattern, expected in spec["items"].items():
                cases.append((slug, seed, pattern, expected))
    return cases


@cache
def _resources() -> GradingResources:
    return GradingResources(options={})


@cache
def _graded(slug: str, seed: str) -> GradingOutcome:
    rubric_path = next((p for p in bundled_rubric_paths() if p.stem == slug), None)
    if rubric_path is None:
        pytest.fail(f"no bundled rubric {slug!r}")
    loaded = load_rubric(rubric_path)
    raw = shared_path("seeds", seed).read_bytes()
    parsed = read_submission(raw, seed, "text/plain", loaded.rubric)
    return grade_submission(loaded, parsed, _resources())


def _matching(outcome: GradingOutcome, pattern: str) -> list[ItemResult]:
    found = [r for r in outcome.items if fnmatch.fnmatchcase(r.item_id, pattern)]
    assert found, f"the rubric has no item matching {pattern!r}"
    return found


@pytest.mark.parametrize(
    ("slug", "seed", "pattern", "expected"),
    _expected()
    or [pytest.param("", "", "", {}, marks=pytest.mark.skip(reason="../shared is absent"))],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_seed_item_within_expert_range(
    slug: str, seed: str, pattern: str, expected: dict[str, Any]
) -> None:
    outcome = _graded(slug, seed)
    for result in _matching(outcome, pattern):
        where = f"{seed} {result.item_id}: {result.points} ({result.status}) {result.feedback}"
        assert result.status not in (Status.GRADER_ERROR, Status.PENDING), where
        if "status" in expected:
            assert result.status == Status(expected["status"]), where
        if "points" in expected:
            low, high = expected.get("range", [expected["points"], expected["points"]])
            assert Decimal(str(low)) <= result.points <= Decimal(str(high)), where
        if "value" in expected:
            shown = " ".join(e.text for e in result.evidence) + " " + result.feedback
            assert str(expected["value"]) in shown, where
            assert result.status is not Status.MISSING, where
        if expected.get("verdict") == "plausible":
            assert result.status is Status.GRADED, where
