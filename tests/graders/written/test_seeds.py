"""The real seeds' written items, end to end, against the expert's ranges (../shared)."""

from __future__ import annotations

from decimal import Decimal
from functools import cache

import pytest
import yaml

from graders.context import GradingResources
from graders.documents import read_submission
from graders.engine import GradingOutcome, grade_submission
from graders.results import Status
from graders.rubric import bundled_rubric_paths, load_rubric
from tests.shared_data import shared_path

pytestmark = pytest.mark.shared

SEEDS = {
    "transformer-basics": ["000_02a58be4e6a68d79.txt", "001_ee2365db649ca309.txt"],
    "cs224n-attention": ["004_208c69dc545de60d.txt"],
}


@cache
def _outcome(slug: str, seed: str) -> GradingOutcome:
    path = next((p for p in bundled_rubric_paths() if p.stem == slug), None)
    if path is None:
        pytest.skip(f"rubric {slug} is not bundled yet")
    loaded = load_rubric(path)
    parsed = read_submission(shared_path("seeds", seed).read_bytes(), seed, "text/plain",
                             loaded.rubric)
    return grade_submission(loaded, parsed, GradingResources(options={}))


@pytest.mark.parametrize(("slug", "seed"), [(s, f) for s, fs in SEEDS.items() for f in fs])
def test_written_items_within_the_expert_range(slug: str, seed: str) -> None:
    expected = yaml.safe_load(shared_path("eval", "seed-grades.yaml").read_text())[slug][seed]
    outcome = _outcome(slug, seed)
    written = [r for r in outcome.items if r.grader == "written"]
    assert written, "no written item was graded"
    wrong = []
    for result in written:
        spec = expected["items"].get(result.item_id)
        if spec is None:
            continue
        low, high = spec.get("range", [spec["points"], spec["points"]])
        inside = Decimal(str(low)) <= result.points <= Decimal(str(high))
        if not inside or result.status in (Status.GRADER_ERROR, Status.PENDING):
            wrong.append(f"{result.item_id}: {result.points} not in [{low}, {high}] "
                         f"({result.status}) {result.feedback}")
    assert not wrong, "\n".join(wrong)
