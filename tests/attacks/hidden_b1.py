"""B1's three items as graded from one upload, for the attacks that hide its values where no
reader of the document sees them (tests/attacks/test_hidden_*.py): hidden, they earn nothing
and the items are `missing`; the same values on the page earn the question's 10 points."""

from __future__ import annotations

from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

B1 = ("b1.d_head", "b1.per_matrix", "b1.total")
Items = list[tuple[str, str, float]]


def b1_items(target: Api, who: str, filename: str, data: bytes, content_type: str) -> Items:
    """(item, status, points) of B1's items, `data` uploaded by `who` and graded."""
    upload = target.client.post(f"{UPLOAD}?wait=true", headers=target.auth(who),
                                files={"file": (filename, data, content_type)})
    assert upload.status_code == 201, upload.text
    body = target.client.get(f"/api/v1/submissions/{upload.json()['id']}",
                             headers=target.auth("prof")).json()
    return [(i["id"], i["status"], float(i["points"] or 0)) for i in body["items"]
            if i["id"] in B1]


def assert_unread(items: Items, *, missing: bool = True) -> None:
    """Nothing earned (and, with `missing`, no answer found for any of the three)."""
    assert len(items) == 3 and all(points == 0 for _, _, points in items), items
    assert not missing or all(status == "missing" for _, status, _ in items), items


def assert_credited(items: Items, *, graded: bool = False) -> None:
    """The question's 10 points (and, with `graded`, every item graded without review)."""
    assert not graded or [status for _, status, _ in items] == ["graded"] * 3, items
    assert sum(points for _, _, points in items) == 10, items
