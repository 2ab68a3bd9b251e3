"""What students see of a decision is one text everywhere (issue #31, scope 4): for answer
groups accepted as the machine suggested (a confident item and one the machine sent to review)
and for points set with a comment, the student's submission page, their API answer, their
results.json, the staff results.json, the staff submission page's "Student sees:" preview and
the answer groups page all show the same text, and never the stored marker "Group decision:
the machine's suggestion accepted."."""

from __future__ import annotations

import html
import re
from typing import Any

from app.submissions.scoring import ACCEPTED_SUGGESTION
from tests.app.conftest import Api
from tests.app.web.test_pages import SLUG, _browser
from tests.support.pages import csrf_of

ITEM = "b1.d_head"
GROUPS = f"/assignments/{SLUG}/groups/{ITEM}"


def _submit(api: Api, student: str, b1: str) -> int:
    response = api.client.post(
        f"/api/v1/assignments/{SLUG}/submissions",
        params={"wait": "true", "student": student},
        json={"answers": {"B1": b1}},
        headers=api.auth("prof"),
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _group_of(page: str, sid: int) -> tuple[str, str]:
    """(the group's id, its section's HTML) for the group holding submission `sid`."""
    for found in re.finditer(r'<section[^>]*id="group-([0-9a-f]+)"(.*?)</section>', page, re.S):
        if f'data-submission="{sid}"' in found.group(2):
            return found.group(1), found.group(2)
    raise AssertionError(f"no group holds #{sid}")


def _said(page: str) -> str:
    found = re.search(
        rf"data-item='{re.escape(ITEM)}'.*?<span class='said'>(.*?)</span>", page, re.S
    )
    assert found, "no preview for the item"
    return html.unescape(found.group(1))


def _everywhere(api: Api, prof: Any, sid: int, student: str) -> dict[str, str]:
    """The item's text as each place shows it, once the grades are published."""
    mine = api.client.get(f"/api/v1/submissions/{sid}", headers=api.auth(student)).json()
    texts = {"api": next(i["feedback"] for i in mine["items"] if i["id"] == ITEM)}
    for who in (student, "prof"):
        exported = api.client.get(
            f"/api/v1/submissions/{sid}/results.json", headers=api.auth(who)
        ).json()
        texts[f"results.json ({who})"] = next(
            t["output"] for t in exported["tests"] if t["name"].endswith(ITEM)
        )
    texts["staff preview"] = _said(prof.get(f"/submissions/{sid}").text)
    staff = api.client.get(f"/api/v1/submissions/{sid}", headers=api.auth("prof")).json()
    texts["staff api"] = next(i for i in staff["items"] if i["id"] == ITEM)["student_sees"][
        "feedback"
    ]
    page = html.unescape(_browser(api, student).get(f"/submissions/{sid}").text)
    row = page[page.index(f"<b>{ITEM}</b>") :]
    row = row[: row.index("</tr>")]
    texts["student page"] = texts["api"] if texts["api"] in row else row
    return texts


def test_one_text_for_a_decision_on_every_page_in_the_api_and_exports(api: Api) -> None:
    # Confident (graded) answers, review answers (two readings), and one decided with a comment.
    sure = _submit(api, "alice", "d_head = 64")
    unsure = _submit(api, "bob", "d_head = 7 maybe 112")
    prof = _browser(api, "prof")
    page = prof.get(GROUPS).text
    comment = "Seven was the number of heads; d_head is 64."
    for sid, form in ((sure, {"action": "accept"}), (unsure, {"action": "accept"})):
        group, _ = _group_of(page, sid)
        posted = prof.post(
            f"{GROUPS}/decide",
            data={"csrf": csrf_of(page), "group": group, **form},
            follow_redirects=False,
        )
        assert posted.status_code == 303, posted.text
        page = prof.get(GROUPS).text
    published = api.client.post(f"/api/v1/assignments/{SLUG}/publish", headers=api.auth("prof"))
    assert published.status_code == 200, published.text
    try:
        for sid, student in ((sure, "alice"), (unsure, "bob")):
            texts = _everywhere(api, prof, sid, student)
            assert len(set(texts.values())) == 1, texts
            said = texts["api"]
            assert said != ACCEPTED_SUGGESTION and "grader will check" not in said.lower()
            _, section = _group_of(html.unescape(prof.get(GROUPS).text), sid)
            assert f"<q>{said}</q>" in section and ACCEPTED_SUGGESTION not in section
        # The unsure answer: points set by hand with a comment; the comment is the text.
        set_points = api.client.put(
            f"/api/v1/submissions/{unsure}/items/{ITEM}/override",
            json={"points": 1, "comment": comment},
            headers=api.auth("prof"),
        )
        assert set_points.status_code == 200, set_points.text
        assert set(_everywhere(api, prof, unsure, "bob").values()) == {comment}
    finally:
        api.client.delete(f"/api/v1/assignments/{SLUG}/publish", headers=api.auth("prof"))


def test_the_staff_api_says_what_the_student_reads_of_an_item_in_review(api: Api) -> None:
    """`student_feedback` is the machine's text for a decision not made yet; `student_sees` is
    what the student reads: "Being reviewed by course staff.", before and after publication."""
    sid = _submit(api, "alice", "d_head = 16 maybe 64")
    url = f"/api/v1/submissions/{sid}"
    try:
        for published in (False, True):
            if published:
                done = api.client.post(
                    f"/api/v1/assignments/{SLUG}/publish", headers=api.auth("prof")
                )
                assert done.status_code == 200, done.text
            staff = api.client.get(url, headers=api.auth("prof")).json()
            place = next(n for n, i in enumerate(staff["items"]) if i["id"] == ITEM)
            item = staff["items"][place]
            mine = api.client.get(url, headers=api.auth("alice")).json()
            hers = mine["items"][place]  # named by its place until released
            assert item["status"] == "needs_review"
            assert item["student_sees"]["feedback"] == hers["feedback"]
            assert hers["feedback"] == "Being reviewed by course staff."
            assert item["student_sees"]["points"] is None is hers["points"]
            assert item["student_sees"]["published_feedback"] == hers["feedback"]
            assert "student_sees" not in hers and "student_feedback" not in hers
    finally:
        api.client.delete(f"/api/v1/assignments/{SLUG}/publish", headers=api.auth("prof"))
