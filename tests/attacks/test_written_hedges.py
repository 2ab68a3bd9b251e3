"""Moving one's own grade up with a written answer that states the reference and takes it back
or hedges it: "XOR is either linearly separable or not linearly separable" (both sides, so
either is "said"), "XOR is not linearly separable (just kidding, it is)", "Some say XOR is not
linearly separable; they are wrong.", "It is false that XOR is not linearly separable.", a
quotation called a myth, `<s>not</s>` struck through in HTML (`~~not~~` in Markdown is read as
the contradiction it shows). A careful TA gives none of these full credit outright; uploaded as
JSON answers each was `graded`, 4 of 4, "Full credit.", with no review ("I do not believe
that ..." is `needs_review`, its negation named).

Fixed in written 23 (graders/written/retraction.py, through the opposite check): each such
answer is at least `needs_review`; tests/graders/written/test_retracted_claims.py generates the
class."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

ITEM = "a1.nonseparable"  # "XOR is not linearly separable", 4 points
TAKEN_BACK = {
    "both sides": "XOR is either linearly separable or not linearly separable.",
    "taken back in brackets": "XOR is not linearly separable (just kidding, it is).",
    "attributed, then denied": "Some say XOR is not linearly separable; they are wrong.",
    "denied in front": "It is false that XOR is not linearly separable.",
    "called a myth": '"XOR is not linearly separable" is a common myth.',
    "struck through in HTML": "XOR is <s>not</s> linearly separable.",
}


def _item(target: Api, who: str, text: str) -> dict[str, object]:
    answer = target.client.post(f"{UPLOAD}?wait=true", json={"answers": {ITEM: text}},
                                headers=target.auth(who))
    assert answer.status_code == 201, answer.text
    body = target.client.get(f"/api/v1/submissions/{answer.json()['id']}",
                             headers=target.auth("prof")).json()
    return dict(next(i for i in body["items"] if i["id"] == ITEM))


@pytest.mark.parametrize("name", sorted(TAKEN_BACK))
def test_a_hedged_or_retracted_reference_is_not_graded_correct(target: Api, name: str) -> None:
    item = _item(target, "alice", TAKEN_BACK[name])
    assert not (item["status"] == "graded" and item["points"] == item["max_points"]), item


def test_the_reference_said_plainly_is_graded_correct(target: Api) -> None:
    """The same path credits the plain statement (the test above can pass)."""
    item = _item(target, "bob", "XOR is not linearly separable.")
    assert item["status"] == "graded" and item["points"] == item["max_points"], item
