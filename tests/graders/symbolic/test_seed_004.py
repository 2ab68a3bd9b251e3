"""Seed 004 graded end to end for the symbolic and reported-result items."""

from __future__ import annotations

from decimal import Decimal

import pytest
import yaml

from graders.documents import read_submission
from graders.engine import grade_submission
from graders.results import Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.shared_data import shared_path

pytestmark = pytest.mark.shared
SEED = "004_208c69dc545de60d.txt"


def test_symbolic_items_and_reported_results_match_the_expert(resources):
    loaded = load_rubric(BUNDLED_RUBRICS / "cs224n-attention.yaml")
    path = shared_path("seeds", SEED)
    parsed = read_submission(path.read_bytes(), path.name, None, loaded.rubric)
    outcome = grade_submission(loaded, parsed, resources)
    results = {r.item_id: r for r in outcome.items}
    expert = yaml.safe_load(shared_path("eval", "seed-grades.yaml").read_text())
    items = expert["cs224n-attention"][SEED]["items"]
    for item_id in ("1b", "1c.i", "1d.i"):
        spec = items[item_id]
        low, high = spec.get("range", [spec["points"], spec["points"]])
        result = results[item_id]
        assert result.grader == "symbolic"
        assert result.status is Status.GRADED, result.feedback
        assert Decimal(str(low)) <= result.points <= Decimal(str(high)), result.feedback
        assert any(e.kind == "expression" for e in result.evidence)
    for item_id in ("3d", "3d.baseline", "3f", "3g"):
        spec = items[item_id]
        result = results[item_id]
        assert result.grader == "numeric"
        assert spec["verdict"] in result.feedback, result.feedback
        value = next(e for e in result.evidence if e.kind == "value")
        assert value.note.startswith(f"read as {spec['value']:g}"), value.note
