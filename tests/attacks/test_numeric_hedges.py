"""Moving one's own grade up with a numeric answer that names the right value without giving
it: `65, not 64`, `≠ 64`, `!= 64`, `64 or 65`, `64 (or maybe ６５)` (the rival in full-width
digits), `64 <- no wait, 32`. A careful TA gives none of these full credit outright; uploaded
as JSON answers (a supported format) each was `graded`, 4 of 4, "Correct: 64.", with no review.
(`32 or 64` and `63, 64 or 65` are `needs_review` with their conflict named: which rival is
seen depends on its order and its digits.)

Beside them, an answer in other digits (`𝟔𝟒`, mathematical bold, which NFKC reads as 64;
`٦٤`, Arabic-Indic) was `missing`, 0 points, "No value ... was found in your answer": that
status promises there is no answer, and there is one (a human should see it: `needs_review`).

Fixed in numeric 1.10 (graders/numeric/hedges.py): each such answer is at least
`needs_review`, the reason named; tests/graders/numeric/test_hedged_values.py generates the
class."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

ITEM = "b1.d_head"  # expected 64, 4 points
HEDGES = {
    "the right value negated after another": "65, not 64",
    "the right value in brackets, negated": "65 (not 64)",
    "not equal to the right value": "≠ 64",
    "not equal, in ASCII": "!= 64",
    "the right value or another": "64 or 65",
    "the rival in full-width digits": "64 (or maybe ６５)",
    "taken back": "64 <- no wait, 32",
}


def _item(target: Api, who: str, text: str) -> dict[str, object]:
    """B1's d_head item as staff read it, `text` uploaded by `who` as its JSON answer."""
    answer = target.client.post(f"{UPLOAD}?wait=true", json={"answers": {ITEM: text}},
                                headers=target.auth(who))
    assert answer.status_code == 201, answer.text
    body = target.client.get(f"/api/v1/submissions/{answer.json()['id']}",
                             headers=target.auth("prof")).json()
    return dict(next(i for i in body["items"] if i["id"] == ITEM))


@pytest.mark.parametrize("name", sorted(HEDGES))
def test_a_negated_or_hedged_right_value_is_not_graded_correct(target: Api, name: str) -> None:
    item = _item(target, "alice", f"d_head = {HEDGES[name]}")
    assert not (item["status"] == "graded" and item["points"] == item["max_points"]), item


def test_the_right_value_alone_is_graded_correct(target: Api) -> None:
    """The same path credits a plain right answer (the test above can pass)."""
    item = _item(target, "bob", "d_head = 64")
    assert item["status"] == "graded" and item["points"] == item["max_points"], item


@pytest.mark.parametrize("digits", ["\U0001d7d4\U0001d7d2", "\u0666\u0664"])
def test_an_answer_in_other_digits_is_not_called_missing(target: Api, digits: str) -> None:
    item = _item(target, "alice", f"d_head = {digits}")
    assert item["status"] != "missing", item
