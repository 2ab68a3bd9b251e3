"""Class: two answers that say opposite things in one group presented as one text. A written
answer without a reading is grouped by its normalised text, and normalising dropped every
mark that is not a letter or a digit: "W2 W1 x = W x" and "W2 W1 x ≠ W x", "x > 0" and
"x < 0", "(W2 W1) x" and "(W2 - W1) x" were one group `by text`, so one decision on the
representative graded the other the same way, shown to staff as copies. Now such answers are
two groups, or one only when the embedding model finds them alike and the grader's verdicts
agree (`by similar`, which staff read as a likeness, not a copy)."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.app.groups.test_api import _group_of, _groups, _submit

PAIRS = {
    "equal or not": ("Stacked linear layers: W2 W1 x = W x, one linear map.",
                     "Stacked linear layers: W2 W1 x ≠ W x, one linear map."),
    "greater or less": ("The product is linear since relu(x) = x for x > 0.",
                        "The product is linear since relu(x) = x for x < 0."),
    "signs inserted": ("Without activations the layers collapse: y = W2 (W1 x) = (W2 W1) x",
                       "Without activations the layers collapse: y = W2 + (W1 x) = (W2 - W1) x"),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_answers_apart_by_a_sign_are_never_one_text_group(api: Api, name: str) -> None:
    first, second = PAIRS[name]
    key = name.replace(" ", "-")
    one = _submit(api, f"{key}-1", {"A2": first})
    other = _submit(api, f"{key}-2", {"A2": second})
    body = _groups(api, "a2.collapse")
    group, its = _group_of(body, one), _group_of(body, other)
    assert group["id"] != its["id"] or group["method"] != "text", group
