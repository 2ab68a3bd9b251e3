"""Seed 001's handwritten B3/B4 code, graded against the expert's ranges (../shared)."""

from __future__ import annotations

from decimal import Decimal

import pytest
import yaml

from graders.results import Status
from tests.graders.code.conftest import Grade
from tests.shared_data import shared_path

pytestmark = pytest.mark.shared


def _answers() -> tuple[str, str]:
    [seed] = shared_path("seeds").glob("001_*.txt")
    text = seed.read_text()
    # Stand-in for the answer locator: part B restarts numbering, B3 is "3. Numpy", B4 "4. Numpy".
    b3 = text[text.index("3. Numpy"):text.index("4. Numpy")]
    b4 = text[text.index("4. Numpy"):]
    return b3, b4


def _ranges() -> dict[str, tuple[Decimal, Decimal]]:
    grades = yaml.safe_load(shared_path("eval", "seed-grades.yaml").read_text())
    items = next(v for k, v in grades["transformer-basics"].items() if k.startswith("001_"))
    out = {}
    for item_id, spec in items["items"].items():
        if item_id.startswith(("b3.", "b4.")):
            low, high = spec.get("range", [spec["points"], spec["points"]])
            out[item_id] = (Decimal(str(low)), Decimal(str(high)))
    return out


def test_seed_001_code_lands_in_the_expert_ranges(grade: Grade) -> None:
    b3, b4 = _answers()
    results = {**grade("B3", b3), **grade("B4", b4)}
    for item_id, (low, high) in _ranges().items():
        result = results[item_id]
        assert low <= result.points <= high, (item_id, result.points, result.feedback)
        assert result.status in (Status.GRADED, Status.SUBMISSION_ERROR), item_id


def test_seed_001_b3_names_the_whole_matrix_softmax(grade: Grade) -> None:
    results = grade("B3", _answers()[0])
    assert "whole score matrix instead of each row" in results["b3.row_softmax"].feedback
    notes = [e.text for e in results["b3.interface"].evidence if e.kind == "normalisation"]
    assert "lower-cased `Import` to `import`" in notes
    assert any("`Scores` as `scores`" in n for n in notes)


def test_seed_001_b4_crash_is_the_students_with_the_line(grade: Grade) -> None:
    results = grade("B4", _answers()[1])
    interface = results["b4.interface"]
    assert interface.status is Status.SUBMISSION_ERROR
    assert "NameError: name 'output' is not defined" in interface.feedback
    assert "`return output, weights`" in interface.feedback
    assert any("struck-through text `output = weights @ V`" in e.text
               for e in interface.evidence)
    assert results["b4.causal"].points == 3
