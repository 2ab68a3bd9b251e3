"""Answer groups over HTTP: grouping, group decisions (one audited override per member),
exclusions, the counted submission only, students kept out, the page's escaping and CSRF."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db.models import AuditEntry, Override
from app.db.session import unit_of_work
from tests.app.conftest import Api
from tests.support.synthetic import ATTENTION_NO_SCALE, ATTENTION_OK

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> "quoted" & more'


def _submit(api: Api, student: str, answers: dict[str, str]) -> int:
    response = api.client.post(
        f"{UPLOAD}?wait=true&student={student}", json={"answers": answers},
        headers=api.auth("prof"),
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _groups(api: Api, item: str, who: str = "prof") -> dict[str, Any]:
    response = api.client.get(f"/api/v1/assignments/{SLUG}/items/{item}/groups",
                              headers=api.auth(who))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _group_of(body: dict[str, Any], submission_id: int) -> dict[str, Any]:
    for group in body["groups"]:
        if any(m["submission_id"] == submission_id for m in group["members"]):
            return dict(group)
    raise AssertionError(f"submission {submission_id} is in no group")


def _ids(group: dict[str, Any]) -> set[int]:
    return {int(m["submission_id"]) for m in group["members"]}


def _overrides(api: Api, item: str) -> dict[int, Override]:
    with unit_of_work(api.sessions) as session:
        rows = session.scalars(select(Override).where(Override.item_id == item)).all()
        session.expunge_all()
    return {o.submission_id: o for o in rows}


def test_numeric_answers_group_by_value_and_one_decision_grades_the_group(api: Api) -> None:
    same = [_submit(api, f"num{n}", {"B1": text}) for n, text in
            enumerate(["d_head = 64", "d_head = 64.", "768/12 = 64", "d_head = 64.0"])]
    wrong = [_submit(api, f"num-w{n}", {"B1": "d_head = 12"}) for n in range(2)]
    body = _groups(api, "b1.d_head")
    assert body["grader"] == "numeric"
    sixty_four = _group_of(body, same[0])
    assert set(same) <= _ids(sixty_four) and not set(wrong) & _ids(sixty_four)
    assert sixty_four["method"] == "value" and sixty_four["signature"] == "64"
    twelve = _group_of(body, wrong[0])
    assert set(wrong) <= _ids(twelve) and twelve["signature"] == "12"
    assert sum(s["count"] for s in twelve["suggestions"]) == twelve["size"]
    all_members = [m["submission_id"] for g in body["groups"] for m in g["members"]]
    assert len(all_members) == len(set(all_members))  # a partition

    url = f"/api/v1/assignments/{SLUG}/items/b1.d_head/groups/{twelve['id']}/decision"
    excluded = wrong[1]
    with unit_of_work(api.sessions) as session:
        audits_before = session.scalar(select(func.count(AuditEntry.id)))
    decided = api.client.post(url, json={"points": 1, "comment": "Right idea, wrong h.",
                                         "exclude": [excluded]}, headers=api.auth("prof"))
    assert decided.status_code == 200, decided.text
    assert set(decided.json()["decided"]) == _ids(twelve) - {excluded}
    assert decided.json()["excluded"] == [excluded]
    overrides = _overrides(api, "b1.d_head")
    for sid in _ids(twelve) - {excluded}:
        assert str(overrides[sid].points) == "1.00"
        assert overrides[sid].comment == "Right idea, wrong h."
    assert excluded not in overrides
    with unit_of_work(api.sessions) as session:
        audits_after = session.scalar(select(func.count(AuditEntry.id)))
        actions = session.scalars(select(AuditEntry.action).order_by(AuditEntry.id.desc())
                                  .limit(len(_ids(twelve)))).all()
    assert (audits_after or 0) - (audits_before or 0) == len(_ids(twelve))  # n-1 overrides + 1
    assert actions[0] == "groups.decide" and set(actions[1:]) == {"override.set"}
    # The excluded member still needs deciding: a second decision takes only it; the others
    # keep their decision unless asked to replace it.
    again = api.client.post(url, json={"accept": True}, headers=api.auth("prof"))
    assert again.status_code == 200
    assert again.json()["decided"] == [excluded]
    assert set(again.json()["kept"]) == _ids(twelve) - {excluded}
    student_view = api.client.get(f"/api/v1/submissions/{excluded}", headers=api.auth("prof"))
    item = next(i for i in student_view.json()["items"] if i["id"] == "b1.d_head")
    assert item["points"] == _overrides(api, "b1.d_head")[excluded].points
    done = api.client.post(url, json={"accept": True}, headers=api.auth("prof"))
    assert done.status_code == 409  # nothing left to decide in this group

    # Afterwards, one member is an exception: an ordinary override on that answer alone.
    one = api.client.put(f"/api/v1/submissions/{wrong[0]}/items/b1.d_head/override",
                         json={"points": 0.5}, headers=api.auth("prof"))
    assert one.status_code == 200
    regrouped = _group_of(_groups(api, "b1.d_head"), wrong[0])
    member = next(m for m in regrouped["members"] if m["submission_id"] == wrong[0])
    assert member["decided"] and member["points"] == 0.5
    assert member["points"] != member["suggested_points"]
    accepted = next(m for m in regrouped["members"] if m["submission_id"] == excluded)
    assert accepted["decided"] and accepted["points"] == accepted["suggested_points"]


def test_bad_decisions_are_refused_with_problems(api: Api) -> None:
    sid = _submit(api, "bad1", {"B1": "d_head = 32"})
    other = _submit(api, "bad2", {"B1": "d_head = 48"})
    group = _group_of(_groups(api, "b1.d_head"), sid)
    base = f"/api/v1/assignments/{SLUG}/items/b1.d_head/groups"
    url = f"{base}/{group['id']}/decision"
    for body, code in [
        ({"accept": True, "points": 1}, 422),
        ({}, 422),
        ({"points": 5}, 422),  # the item is worth 4
        ({"points": "1.005"}, 422),
        ({"accept": True, "exclude": [other]}, 422),  # not a member
        ({"accept": True, "exclude": [sid]}, 409),  # nobody left
    ]:
        response = api.client.post(url, json=body, headers=api.auth("prof"))
        assert response.status_code == code, (body, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
    assert api.client.post(f"{base}/0123456789abcdef/decision", json={"accept": True},
                           headers=api.auth("prof")).status_code == 404
    missing = api.client.get(f"/api/v1/assignments/{SLUG}/items/zz.nope/groups",
                             headers=api.auth("prof"))
    assert missing.status_code == 404
    assert sid not in _overrides(api, "b1.d_head")


def test_students_cannot_see_or_decide_groups(api: Api) -> None:
    sid = _submit(api, "alice", {"B1": "d_head = 64"})
    group = _group_of(_groups(api, "b1.d_head"), sid)
    base = f"/api/v1/assignments/{SLUG}/items/b1.d_head/groups"
    for who in ("alice", "bob"):
        assert api.client.get(base, headers=api.auth(who)).status_code == 403
        assert api.client.get(f"{base}/{group['id']}", headers=api.auth(who)).status_code == 403
        posted = api.client.post(f"{base}/{group['id']}/decision", json={"accept": True},
                                 headers=api.auth(who))
        assert posted.status_code == 403
    assert api.client.get(base).status_code == 401
    # The page: without a session it is the sign-in form, with nothing of the answers.
    page = api.client.get(f"/assignments/{SLUG}/groups/b1.d_head", cookies={})
    assert page.status_code == 200 and 'name="token"' in page.text
    assert "d_head = 64" not in page.text and "Answer groups" not in page.text
    # A student may sign in (to see their own work), and is refused the groups page.
    student = TestClient(api.client.app)  # its own cookies; the app is already running
    student.post("/sign-in", data={"token": api.tokens["alice"], "next": "/"})
    refused = student.get(f"/assignments/{SLUG}/groups/b1.d_head")
    assert refused.status_code == 403
    assert "d_head = 64" not in refused.text and "Answer groups" not in refused.text
    assert sid not in _overrides(api, "b1.d_head")


def test_only_the_counted_submission_is_grouped(api: Api) -> None:
    first = _submit(api, "again", {"B1": "d_head = 12"})
    latest = _submit(api, "again", {"B1": "d_head = 64"})
    body = _groups(api, "b1.d_head")
    everyone = {m["submission_id"] for g in body["groups"] for m in g["members"]}
    assert latest in everyone and first not in everyone


def test_copies_of_one_file_and_equal_texts_share_a_group(api: Api) -> None:
    text = {"A5": "Heads are good because more heads means more parameters, I think."}
    copies = [_submit(api, f"copy{n}", text) for n in range(3)]
    shouted = _submit(api, "copy-loud", {"A5": "HEADS are good because more heads means more "
                                               "parameters -- I think!"})
    group = _group_of(_groups(api, "a5.why_heads"), copies[0])
    assert set(copies) | {shouted} <= _ids(group)
    assert group["method"] in ("text", "similar")


def test_code_answers_group_by_behaviour_on_the_tests(api: Api) -> None:
    ok = "```python\n" + ATTENTION_OK + "```"
    commented = "```python\n# my version\n" + ATTENTION_OK.replace("    ", "  ") + "```"
    unscaled = "```python\n" + ATTENTION_NO_SCALE + "```"
    a = _submit(api, "code1", {"B3": ok})
    b = _submit(api, "code2", {"B3": commented})
    c = _submit(api, "code3", {"B3": unscaled})
    body = _groups(api, "b3.scaling")
    good = _group_of(body, a)
    assert b in _ids(good) and c not in _ids(good)
    assert good["method"] == "behaviour" and "pass" in good["signature"]
    assert "fail" in _group_of(body, c)["signature"]


def _signed_in_page(api: Api, path: str) -> str:
    response = api.client.post("/sign-in", data={"token": api.tokens["prof"], "next": path})
    assert response.status_code == 200 and path in str(response.url), response.text
    return response.text


def test_the_page_escapes_student_text_and_needs_its_csrf_token(api: Api) -> None:
    sid = _submit(api, "hostile", {"A5": HOSTILE})
    path = f"/assignments/{SLUG}/groups/a5.why_heads"
    page = _signed_in_page(api, path)
    assert "<script>alert" not in page and "onerror=alert(1)>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    nonce = re.search(r'<script nonce="([^"]+)"', page)
    assert nonce is not None and page.count("<script") == 1
    # In the web app's layout: the shared nav (with this link), stylesheet and script.
    assert f'<a href="/assignments/{SLUG}/groups">Answer groups</a>' in page
    assert 'src="/static/web.js"' in page and 'href="/static/web.css"' in page
    response = api.client.get(path)
    assert f"'nonce-{nonce.group(1)}'" not in response.headers["content-security-policy"]
    assert "'nonce-" in response.headers["content-security-policy"]
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    group = re.search(
        rf'id="decide-([0-9a-f]+)">(?:(?!</section>).)*?value="{sid}" form="decide-\1"', page,
        re.S)
    assert csrf is not None
    group_id = _group_of(_groups(api, "a5.why_heads"), sid)["id"]
    # The member's exclusion box belongs to its own group's decision form.
    assert group is not None and group.group(1) == group_id
    form = {"csrf": csrf.group(1), "group": group_id, "action": "set", "points": "1.5",
            "comment": "Parameters are not why."}
    forged = api.client.post(f"{path}/decide", data={**form, "csrf": "0" * 64},
                             follow_redirects=False)
    assert forged.status_code == 403
    assert sid not in _overrides(api, "a5.why_heads")
    posted = api.client.post(f"{path}/decide", data=form, follow_redirects=False)
    assert posted.status_code == 303, posted.text
    assert str(_overrides(api, "a5.why_heads")[sid].points) == "1.50"
    after = api.client.get(posted.headers["location"])
    assert "Decided" in after.text, re.findall(r"decided[^<]{0,80}", after.text)[:5]
    assert "1.5 decided" in after.text



def test_the_page_overrides_one_member_and_lists_items_to_review(api: Api) -> None:
    sid = _submit(api, "member1", {"B1": "d_head = 16"})
    path = f"/assignments/{SLUG}/groups/b1.d_head"
    page = _signed_in_page(api, path)
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert csrf is not None
    form = {"csrf": csrf.group(1), "submission_id": str(sid), "points": "2",
            "comment": "Half: right formula."}
    posted = api.client.post(f"{path}/member", data=form, follow_redirects=False)
    assert posted.status_code == 303
    assert str(_overrides(api, "b1.d_head")[sid].points) == "2.00"
    assert f"Submission {sid} set by hand." in api.client.get(posted.headers["location"]).text
    # Another assignment's path cannot reach this submission.
    other = api.client.post("/assignments/cs224n-attention/groups/b1.d_head/member",
                            data=form, follow_redirects=False)
    assert other.status_code == 404
    bad = api.client.post(f"{path}/member", data={**form, "points": "lots"},
                          follow_redirects=False)
    assert bad.status_code == 422
    index = api.client.get(f"/assignments/{SLUG}/groups")
    link = f'href="/assignments/{SLUG}/groups/a5.why_heads"'
    assert index.status_code == 200 and link in index.text
    assert re.search(r'id="needs-review">\d+<', index.text)


def test_with_best_counting_the_best_submission_is_grouped(api: Api) -> None:
    schedule = f"/api/v1/assignments/{SLUG}/schedule"
    better = _submit(api, "best1", {"B1": "d_head = 64"})
    worse = _submit(api, "best1", {"B1": "d_head = 12"})
    assert api.client.patch(schedule, json={"counts": "best"},
                            headers=api.auth("prof")).status_code == 200
    try:
        everyone = {m["submission_id"] for g in _groups(api, "b1.d_head")["groups"]
                    for m in g["members"]}
        assert better in everyone and worse not in everyone
    finally:
        api.client.patch(schedule, json={"counts": "latest"}, headers=api.auth("prof"))
    everyone = {m["submission_id"] for g in _groups(api, "b1.d_head")["groups"]
                for m in g["members"]}
    assert worse in everyone and better not in everyone


def test_a_group_decision_never_raises_an_answer_the_machine_judged_otherwise(
        api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Were a turned-around answer grouped with right ones (the grouping keeps them apart, see
    tests/graders/test_grouping.py; here it is forced together), one decision of full points
    would not reach it unasked: the API refuses naming it, or holds it back, or the instructor
    confirms it; the page shows it flagged and holds it back unless the box is ticked."""
    from app.groups import service
    from graders.grouping import Group

    right = [_submit(api, f"ord{n}", {"A3": "Self-attention by itself ignores word order, so "
                                            "order information must be injected."})
             for n in range(2)]
    turned = _submit(api, "ord-turned", {"A3": "Self-attention by itself does not ignore word "
                                               "order, so no order information is injected."})
    members = tuple(sorted([*right, turned]))

    def one_group(kind: str, config: Any, answers: Any, embed: Any = None) -> list[Group]:
        return [Group("00000000000000aa", "similar", "forced", members, right[0])]

    monkeypatch.setattr(service, "group_answers", one_group)
    body = _groups(api, "a3.order")
    flagged = {m["submission_id"]: m["disputed"] for m in body["groups"][0]["members"]}
    assert flagged[turned] and not flagged[right[0]] and not flagged[right[1]], flagged
    url = f"/api/v1/assignments/{SLUG}/items/a3.order/groups/00000000000000aa/decision"
    refused = api.client.post(url, json={"points": 3}, headers=api.auth("prof"))
    assert refused.status_code == 409 and str(turned) in refused.json()["disputed"]
    assert not _overrides(api, "a3.order")  # nothing half-done
    held = api.client.post(url, json={"points": 3, "disputed": "hold"}, headers=api.auth("prof"))
    assert held.status_code == 200 and held.json()["held_back"] == [turned]
    assert set(_overrides(api, "a3.order")) == set(right)
    confirmed = api.client.post(url, json={"points": 3, "disputed": "confirm",
                                           "replace_decided": True}, headers=api.auth("prof"))
    assert confirmed.status_code == 200 and turned in confirmed.json()["decided"]
    # the page: the member is flagged, the box to confirm is there
    page = TestClient(api.client.app)
    page.post("/sign-in", data={"token": api.tokens["prof"], "next": "/"})
    html = page.get(f"/assignments/{SLUG}/groups/a3.order").text
    assert "⚑" in html and 'name="confirm_disputed"' in html
