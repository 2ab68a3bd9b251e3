"""Answer groups, marks that change a formula: a written answer without a reading is grouped by
its normalised text (`graders/answer_keys.normalise_text`), which keeps letters, digits, every
mathematical symbol and `^ / * % -`, and drops every other mark. Brackets, braces, the
underscore and the prime are dropped, yet each changes what a formula says: `h_{t+1}` and
`h_t + 1`, `(W2 + W1) x` and `W2 + W1 x`, `W x / (2 + d)` and `W x / 2 + d`, `f'(x) = 0` and
`f(x) = 0` are one group `by text`, shown to staff as copies of one answer, and one decision on
the group grades both alike. A hostile student writes the wrong formula in the spelling of the
class's right one and rides on its decision (the sixth round closed the same class for signs:
`=`/`≠`, `<`/`>`; `tests/app/groups/test_group_signs.py`).

Now `normalise_text` keeps brackets, braces, the underscore and the prime: each pair is two
groups, or one `by similar` (which staff read as a likeness, not a copy), and
tests/graders/test_grouping_marks.py generates the class."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

SLUG = "transformer-basics"
ITEM = "a2.collapse"
PAIRS = {
    "a subscript or a sum": ("Without activations: h_{t+1} = W2 W1 h_t, one linear map.",
                             "Without activations: h_t + 1 = W2 W1 h_t, one linear map."),
    "brackets around a sum": ("Without activations the layers collapse: y = (W2 + W1) x, one "
                              "linear map.",
                              "Without activations the layers collapse: y = W2 + W1 x, one "
                              "linear map."),
    "a denominator": ("Without activations the product collapses: y = W x / (2 + d), one "
                      "linear map.",
                      "Without activations the product collapses: y = W x / 2 + d, one "
                      "linear map."),
    "a derivative": ("Without activations the layers collapse, f'(x) = W2 W1 for every x: one "
                     "linear map.",
                     "Without activations the layers collapse, f(x) = W2 W1 for every x: one "
                     "linear map."),
}


def _graded(target: Api, student: str, answer: str) -> int:
    response = target.client.post(f"{UPLOAD}?wait=true&student={student}",
                                  json={"answers": {"A2": answer}}, headers=target.auth("prof"))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _group_of(target: Api, submission_id: int) -> tuple[str, str]:
    response = target.client.get(f"/api/v1/assignments/{SLUG}/items/{ITEM}/groups",
                                 headers=target.auth("prof"))
    assert response.status_code == 200, response.text
    for group in response.json()["groups"]:
        if any(m["submission_id"] == submission_id for m in group["members"]):
            return str(group["id"]), str(group["method"])
    raise AssertionError(f"submission {submission_id} is in no group")


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_formulas_apart_by_a_bracket_subscript_or_prime_are_never_one_text_group(
        target: Api, name: str) -> None:
    right, other = PAIRS[name]
    key = name.replace(" ", "-")
    first, second = _graded(target, f"{key}-1", right), _graded(target, f"{key}-2", other)
    one, two = _group_of(target, first), _group_of(target, second)  # both graded: groups final
    assert one[0] != two[0] or one[1] != "text", (one, two)
