"""Moving one's own grade up by listing several values where the item asks for one ("shotgun"):
`32 64`, `16, 32, 64, 128`, one value a line, every integer from 1 to 100 after `d_head =`,
three probability vectors side by side. Uploaded as JSON answers through the API, each was
`graded` with full credit and no review ("Correct: 64."): only a rival the answer labelled for
the item (`d_head = 32, d_head = 64`) or joined by an offering word (`32 or 64`) was seen. A
careful TA credits none of them outright. Now the values listed side by side with the chosen one
(nothing but commas, semicolons or line breaks between them) that could answer the item are its
rivals: the item goes to review with them named (graders/numeric/hedges.py `listed_beside`);
tests/graders/numeric/test_listed_values.py generates the class. A control credits `64` alone
and the working of a chain (`768 / 12 = 64`)."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD


def _items(target: Api, who: str, answers: dict[str, str]) -> dict[str, dict[str, object]]:
    """The items as staff read them, `answers` uploaded by `who` as JSON."""
    answer = target.client.post(f"{UPLOAD}?wait=true", json={"answers": answers},
                                headers=target.auth(who))
    assert answer.status_code == 201, answer.text
    body = target.client.get(f"/api/v1/submissions/{answer.json()['id']}",
                             headers=target.auth("prof")).json()
    return {str(i["id"]): dict(i) for i in body["items"]}


def _credited_outright(item: dict[str, object]) -> bool:
    return item["status"] == "graded" and item["points"] == item["max_points"]


SHOTGUNS = {
    "two values and a space": ("b1.d_head", "32 64"),
    "a comma list": ("b1.d_head", "16, 32, 64, 128"),
    "a semicolon list": ("b1.d_head", "32; 48; 64; 128"),
    "one value a line": ("b1.d_head", "\n".join(str(v) for v in range(56, 72))),
    "every integer after the label": ("b1.d_head",
                                      "d_head = " + ", ".join(str(v) for v in range(1, 101))),
    "the right value among implausible ones": ("b1.d_head", "1, 64, 1000, 96"),
    "normalisers": ("b2.normalizer", ", ".join(f"{11 + v / 1000:.3f}" for v in range(90, 130))),
    "probability vectors": ("b2.values", "[0.665, 0.245, 0.090], [0.5, 0.3, 0.2], [0.7, 0.2, 0.1]"),
    "totals": ("b1.total", "total: 1769472; 1769473"),
}


@pytest.mark.parametrize("name", sorted(SHOTGUNS))
def test_several_values_listed_for_one_are_not_credited_outright(target: Api, name: str) -> None:
    item_id, text = SHOTGUNS[name]
    item = _items(target, "alice", {item_id: text})[item_id]
    assert not _credited_outright(item), item
    assert item["status"] == "needs_review", item


@pytest.mark.parametrize("text", ["64", "d_head = 768 / 12 = 64", "64 (768/12)",
                                  "d_model = 768, h = 12, so d_head = 64"])
def test_one_value_and_its_working_are_credited(target: Api, text: str) -> None:
    item = _items(target, "bob", {"b1.d_head": text})["b1.d_head"]
    assert _credited_outright(item), item


def test_a_question_answered_value_by_value_is_credited(target: Api) -> None:
    """B1's three values listed in order each answer their own item: no shotgun."""
    items = _items(target, "bob", {"B1": "64, 589824, 1769472"})
    assert all(_credited_outright(items[i]) for i in ("b1.d_head", "b1.per_matrix", "b1.total")), \
        items
