"""Result-cache poisoning across assignments: the same bytes uploaded to three assignments whose
questions share ids, labels and answers (transformer-basics, cs224n-attention and the older
cs224n-attention-2021 sheet, whose items differ in points and configuration) must be graded by
each assignment as if it had never seen the others: on one server in one order, and on a fresh
server (its own empty cache) in another, every item of each assignment gets the same status,
points and student feedback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.conftest import Api, copy_sqlite
from tests.attacks.conftest import _app_on

ASSIGNMENTS = ["transformer-basics", "cs224n-attention", "cs224n-attention-2021"]
DOCUMENT = json.dumps({"answers": {
    "1a.i": "The query is most similar to k_j, so alpha_j is close to one.",
    "1b": "\\beta (k_a + k_b)", "1c.i": "\\beta (\\mu_a + \\mu_b)",
    "1d.i": ["\\beta \\mu_a", "\\beta \\mu_b"], "3d": "5.0",
    "b1.d_head": "64", "b1.per_matrix": "589824", "B2": "normaliser 3.72, 0.665 0.245 0.090",
}}).encode()


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Api]:
    """A second server: its own database and its own (empty) result cache."""
    yield from _app_on(copy_sqlite(sqlite_template, tmp_path_factory.mktemp("fresh")))


def _grade(api: Api, slug: str) -> list[tuple[str, str, object, str]]:
    answer = api.client.post(f"/api/v1/assignments/{slug}/submissions", params={"wait": "true"},
                             files={"file": ("answers.json", DOCUMENT, "application/json")},
                             headers=api.auth("alice"))
    assert answer.status_code == 201, (slug, answer.text)
    staff = api.client.get(f"/api/v1/submissions/{answer.json()['id']}",
                           headers=api.auth("prof")).json()
    return [(i["id"], i["status"], i["points"], i["student_feedback"] or "")
            for i in staff["items"]]


def test_each_assignment_grades_the_same_bytes_as_if_alone(target: Api, fresh: Api) -> None:
    seen = {slug: _grade(target, slug) for slug in ASSIGNMENTS}
    again = {slug: _grade(fresh, slug) for slug in reversed(ASSIGNMENTS)}
    assert seen["cs224n-attention"] != seen["cs224n-attention-2021"]  # the sheets differ
    for slug in ASSIGNMENTS:  # answers were found and graded: there is something to share
        assert sum(status != "missing" for _, status, _, _ in seen[slug]) >= 3, seen[slug]
    differ = {slug: [(a, b) for a, b in zip(seen[slug], again[slug], strict=True) if a != b]
              for slug in ASSIGNMENTS}
    assert not any(differ.values()), differ
