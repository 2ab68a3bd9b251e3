"""The 2021-2022 attention rubric on the two seeds that answer it (002, 003), end to end.

No expert grades exist for these seeds, so this checks what can be checked without them: the
rubric's points, that every item is graded or sent to review (never a grader error or
pending), and that what is not asked in a seed's handout version is missing, not invented.
Where each answer starts is pinned by the golden files of test_locate_seeds.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest

from graders.context import GradingResources
from graders.documents import read_submission
from graders.engine import GradingOutcome, grade_submission
from graders.results import Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.shared_data import shared_path

LOADED = load_rubric(BUNDLED_RUBRICS / "cs224n-attention-2021.yaml")


class _Graded:
    """Each seed graded once per module, with one set of resources (as a worker would)."""

    def __init__(self) -> None:
        self.resources = GradingResources()
        self.outcomes: dict[str, GradingOutcome] = {}

    def __call__(self, seed: str) -> GradingOutcome:
        if seed not in self.outcomes:
            path = shared_path("seeds", seed)
            parsed = read_submission(path.read_bytes(), path.name, "text/plain", LOADED.rubric)
            self.outcomes[seed] = grade_submission(LOADED, parsed, self.resources)
        return self.outcomes[seed]


@pytest.fixture(scope="module")
def graded() -> Iterator[_Graded]:
    grader = _Graded()
    yield grader
    grader.resources.close()


def test_rubric_scores_21_points_and_reports_accuracies_unscored():
    rubric = LOADED.rubric
    assert rubric.max_points == Decimal(21)
    scored = {item.grader for item in rubric.items() if item.points > 0}
    assert scored == {"written", "symbolic"}
    assert all(item.points == 0 for item in rubric.items() if item.grader == "numeric")
    symbolic = {item.id for item in rubric.items() if item.grader == "symbolic"}
    assert symbolic == {"1b.q", "1c.i", "1d.i"}
    for item in rubric.items():
        if item.grader == "written":
            assert item.config.get("reference"), item.id


@pytest.mark.shared
@pytest.mark.parametrize(("seed", "unasked", "out_of"), [
    # 2022 handout: no 1e (3 points), so graded out of 18
    ("002_ac63fb4f2dd973a5.txt", {"1e.c2", "1e.why"}, 18),
    # 2021 handout: no extraction matrix 1b.i (2 points), so graded out of 19
    ("003_7c8f698f1dade37d.txt", {"1b.i", "2d", "2d.baseline", "2f", "2g.i"}, 19),
])
def test_seed_graded_end_to_end(
    seed: str, unasked: set[str], out_of: int, graded: _Graded
) -> None:
    outcome = graded(seed)
    assert outcome.max_points == Decimal(out_of)
    for result in outcome.items:
        where = f"{result.item_id}: {result.status} {result.feedback}"
        assert result.status not in (Status.GRADER_ERROR, Status.PENDING), where
        if result.item_id in unasked:
            assert result.status is Status.MISSING, where
        else:
            assert result.status is not Status.MISSING, where


@pytest.mark.shared
def test_seed_002_reported_accuracies_are_read(graded: _Graded) -> None:
    results = {r.item_id: r for r in graded("002_ac63fb4f2dd973a5.txt").items}
    assert "Reported 2.0 %" in results["2d"].feedback
    assert "Reported 5.0 %: correct" in results["2d.baseline"].feedback
    assert "Reported 14.39 %" in results["2f"].feedback
    assert "Reported 8.79 %" in results["2g.i"].feedback
    for item_id in ("1b.q", "1c.i"):
        assert results[item_id].points == results[item_id].max_points, results[item_id].feedback
