"""Grading by hand over HTTP (issue #31): the points typed are the points stored, every decision
is read back with its undo, an undo restores the state before it (the earlier override or none)
and is audited, an item is edited in place on the submission page, and the review page shows
the rubric item beside the answer."""

from __future__ import annotations

import html
import re
from decimal import Decimal

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.web.document import document_spans
from app.web.evidence import spans
from app.web.markup import pts
from app.web.rubric_panel import rubric_panel
from graders.rubric import BUNDLED_RUBRICS, RubricItem, load_rubric
from graders.written.config import WrittenConfig
from tests.app.conftest import Api
from tests.app.web.test_pages import AMBIGUOUS, SLUG, _browser, _upload
from tests.support.pages import csrf_of

ITEM = "b1.d_head"
REVIEW = f"/assignments/{SLUG}/review"


def _item(api: Api, sid: int) -> dict[str, object]:
    body = api.client.get(f"/api/v1/submissions/{sid}", headers=api.auth("prof")).json()
    return dict(next(i for i in body["items"] if i["id"] == ITEM))


def _decide(prof: TestClient, sid: int, **form: str) -> str:
    token = csrf_of(prof.get(REVIEW).text)
    done = prof.post(f"{REVIEW}/decide", data={
        "submission_id": str(sid), "item_id": ITEM, "csrf": token, **form})
    assert done.status_code == 200, done.text
    return done.text


def _undo_form(page: str) -> dict[str, str]:
    form = re.search(r'<form[^>]*id="undo-form".*?</form>', page, re.S)
    assert form, "the notice offers no undo"
    return dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', form.group(0)))


def _actions(api: Api, sid: int) -> list[str]:
    page = _browser(api, "prof").get(f"/submissions/{sid}").text
    return re.findall(r"<td[^>]*>(override\.[a-z]+)</td>", page)


def test_typed_points_are_stored_read_back_and_undone(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    prof = _browser(api, "prof")
    page = _decide(prof, sid, action="points", points="0.5")
    assert _item(api, sid)["points"] == 0.5
    assert re.search(rf"Saved: b1\.d_head of .*#{sid}</a> is now "
                     r"<b id='stored-points'>0\.50?</b> of 4", page)
    undo = _undo_form(page)
    back = prof.post(f"{REVIEW}/undo", data=undo)
    assert back.status_code == 200 and "Undone: b1.d_head" in back.text
    assert "the machine's score" in back.text
    assert _item(api, sid)["override"] is None
    # The undo is audited, and a second post of the same undo changes nothing (409).
    assert _actions(api, sid)[:2] == ["override.undo", "override.set"]
    again = prof.post(f"{REVIEW}/undo", data=undo)
    assert again.status_code == 409 and _item(api, sid)["override"] is None


def test_undo_restores_the_earlier_override_and_refuses_a_stale_one(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    prof = _browser(api, "prof")
    _decide(prof, sid, action="points", points="1.5", comment="first")
    stale = _undo_form(prof.get(f"{REVIEW}?saved={sid}&saved_item={ITEM}").text)
    page = _decide(prof, sid, action="points", points="2", comment="second")
    assert prof.post(f"{REVIEW}/undo", data=stale).status_code == 409  # not the latest change
    assert _item(api, sid)["points"] == 2
    assert prof.post(f"{REVIEW}/undo", data=_undo_form(page)).status_code == 200
    restored = _item(api, sid)
    override = restored["override"]
    assert restored["points"] == 1.5 and isinstance(override, dict)
    assert override["comment"] == "first"


def test_accept_stores_the_machine_suggestion(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    machine = _item(api, sid)["machine_points"]
    page = _decide(_browser(api, "prof"), sid, action="accept", points="1.25")
    assert _item(api, sid)["points"] == machine
    assert "id='stored-points'" in page


def test_the_points_box_comes_before_accept_so_enter_sets_points(api: Api) -> None:
    """A form's Enter submits with its first submit button: it must be "Set points"."""
    _upload(api, "bob", AMBIGUOUS)
    page = _browser(api, "prof").get(REVIEW).text
    form = re.search(r'<form[^>]*id="decide-form".*?</form>', page, re.S)
    assert form is not None
    buttons = re.findall(r'<button type="submit" name="action" value="([a-z]+)"', form.group(0))
    assert buttons[0] == "points"


def test_the_review_page_shows_the_rubric_item(api: Api) -> None:
    _upload(api, "bob", AMBIGUOUS)
    page = _browser(api, "prof").get(REVIEW).text
    rubric = re.search(r"<div class='panel' id='rubric'>.*?</div>\s*</div>", page, re.S)
    assert rubric is not None
    assert "id='item-points'>4 points" in rubric.group(0)
    assert "id='reference'>64<" in rubric.group(0)  # the expected value, staff only


def test_an_item_is_edited_in_place_on_the_submission_page(api: Api) -> None:
    sid = _upload(api, "bob", {"B1": "d_head = 64"})
    assert _item(api, sid)["status"] == "graded"  # a confident item, in no review queue
    prof = _browser(api, "prof")
    token = csrf_of(prof.get(f"/submissions/{sid}").text)
    url = f"/submissions/{sid}/override/set"
    form = {"item_id": ITEM, "points": "1.75", "comment": "Right value, no working."}
    assert prof.post(url, data={**form, "csrf": "0" * 64}).status_code == 403
    assert _item(api, sid)["override"] is None
    saved = prof.post(url, data={**form, "csrf": token})
    assert saved.status_code == 200
    assert "Saved: b1.d_head is now <b id='stored-points'>1.75</b> of 4 points" in saved.text
    assert _item(api, sid)["points"] == 1.75
    assert prof.post(url, data={**form, "points": "NaN", "csrf": token}).status_code == 422
    undone = prof.post(f"/submissions/{sid}/override/undo", data=_undo_form(saved.text))
    assert "Undone: b1.d_head is back to the machine" in undone.text
    assert _item(api, sid)["override"] is None
    bob = _browser(api, "bob")
    assert bob.post(url, data={**form, "csrf": csrf_of(bob.get("/").text)}).status_code == 403


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.decimals(min_value=0, max_value=4, places=2), min_size=1, max_size=4))
def test_undoing_every_decision_in_turn_walks_back_to_the_machine(
    api: Api, chain: list[Decimal]
) -> None:
    """Any run of decisions on one item, undone latest first, passes back through each earlier
    value in turn and ends at the machine's score."""
    sid = _upload(api, "bob", AMBIGUOUS)
    prof = _browser(api, "prof")
    pages = [_decide(prof, sid, action="points", points=str(p)) for p in chain]
    for n in range(len(chain) - 1, -1, -1):
        page = prof.get(f"{REVIEW}?saved={sid}&saved_item={ITEM}").text
        assert prof.post(f"{REVIEW}/undo", data=_undo_form(page)).status_code == 200
        expected = None if n == 0 else float(chain[n - 1])
        now = _item(api, sid)
        assert (now["override"] is None) if expected is None else now["points"] == expected
    assert len(pages) == len(chain)


def _submit(api: Api, student: str, b1: str) -> int:
    response = api.client.post(
        f"/api/v1/assignments/{SLUG}/submissions?wait=true&student={student}",
        json={"answers": {"B1": b1}}, headers=api.auth("prof"))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _group_ids(page: str) -> list[str]:
    return re.findall(r'<section class="group" id="group-([0-9a-f]+)"', page)


def test_a_group_decision_keeps_the_order_shows_its_decider_and_is_undone(api: Api) -> None:
    # The group decided needs review throughout and is the largest: sorted by what needs
    # review, it would drop below the other unsure group once decided.
    unsure = [_submit(api, f"g{n}", "d_head = 12 maybe 64") for n in range(3)]
    others = [_submit(api, f"h{n}", "d_head = 16 maybe 64") for n in range(2)]
    sure = [_submit(api, f"k{n}", "d_head = 64") for n in range(4)]
    assert {_item(api, s)["status"] for s in unsure + others} == {"needs_review"}
    prof = _browser(api, "prof")
    path = f"/assignments/{SLUG}/groups/{ITEM}"
    before = prof.get(path).text
    order = _group_ids(before)

    def holding(page: str, sid: int) -> str:
        return next(g for g in _group_ids(page) if f'data-submission="{sid}"' in
                    page.split(f'id="group-{g}"')[1].split("</section>")[0])

    target = holding(before, unsure[0])
    assert {holding(before, s) for s in unsure} == {target}
    assert order.index(target) < order.index(holding(before, others[0]))
    form = {"csrf": csrf_of(before), "group": target, "action": "set", "points": "1",
            "comment": "Used d_model / h with the wrong h."}
    posted = prof.post(f"{path}/decide", data=form, follow_redirects=False)
    assert posted.status_code == 303
    assert posted.headers["location"].endswith(f"#group-{target}")  # back at the same group
    after = prof.get(posted.headers["location"]).text
    assert _group_ids(after) == order  # nothing moved, though its counts just changed
    section = after.split(f'id="group-{target}"')[1].split("</section>")[0]
    assert re.search(r"Decided: <b>1</b> points for \d+ answers, by [^:<]+: <q>Used d_model",
                     section)
    assert [_item(api, s)["points"] for s in unsure] == [1, 1, 1]
    # Someone decides one member again; the undo restores the other and keeps that one.
    token = csrf_of(after)
    assert prof.post(f"{path}/member", data={"csrf": token, "submission_id": str(unsure[1]),
                                             "points": "3", "group": target}).status_code == 200
    undo = _undo_form(after)
    undone = prof.post(f"{path}/undo", data=undo, follow_redirects=False)
    assert undone.headers["location"].endswith(f"#group-{target}")
    text = prof.get(undone.headers["location"]).text
    assert re.search(r"\d+ answers? back to their state before it; 1 changed since", text)
    assert _item(api, unsure[0])["override"] is None and _item(api, unsure[1])["points"] == 3
    assert prof.post(f"{path}/undo", data=undo).status_code == 409  # once only
    assert all(_item(api, s)["override"] is None for s in [unsure[2], *others, *sure])


WORDS = st.text(st.characters(whitelist_categories=("L", "N", "P", "S")), min_size=1,
                max_size=8)
BREAKS = st.sampled_from([" ", "\n", "\n  ", "\t", " \n", "\r\n"[1:]])


@given(st.lists(WORDS, min_size=1, max_size=12), st.data())
def test_a_sentence_wrapped_over_lines_is_marked_where_it_is(words: list[str],
                                                             data: st.DataObject) -> None:
    """Markdown and LaTeX sources wrap sentences over lines; the grader quotes the sentence
    with single spaces. Its span marks it, in the document and in the located answer."""
    gaps = [data.draw(BREAKS) for _ in words[1:]]
    wrapped = words[0] + "".join(g + w for g, w in zip(gaps, words[1:], strict=True))
    before = data.draw(st.text(alphabet="ab \n", max_size=20))
    document = before + wrapped + "\n\nNext paragraph."
    quoted = " ".join(wrapped.split())
    evidence = [{"kind": "answer", "text": document, "start": 0, "end": len(document)},
                {"kind": "sentence", "text": quoted, "start": len(before),
                 "end": len(before) + len(wrapped), "note": "states the idea"}]
    assert document_spans(document, evidence) == [
        (len(before), len(before) + len(wrapped), "sentence: states the idea")]
    assert spans(document, evidence) == [
        (len(before), len(before) + len(wrapped), "sentence: states the idea")]
    # A span whose text is something else, whitespace aside, marks nothing.
    other = [evidence[0], {**evidence[1], "text": "\x01" + quoted}]
    assert document_spans(document, other) == []


def _bundled(item_id: str) -> RubricItem:
    loaded = load_rubric(BUNDLED_RUBRICS / f"{SLUG}.yaml")
    return next(i for i in loaded.rubric.items() if i.id == item_id)


def test_the_rubric_panel_lists_a_written_items_elements_and_levels() -> None:
    item = _bundled("a4.roles")
    config = WrittenConfig.model_validate(item.config)
    panel = rubric_panel(item)
    assert f"id='item-points'>{pts(item.points)} points" in panel
    for element in config.elements:
        assert f"<code>{html.escape(element.id)}</code>" in panel
    levels = panel.split("<ul class='levels'>")[1].split("</ul>")[0]
    assert levels.count("<li>") == len(config.partial)
    for level in config.partial:
        assert f"<b>{pts(level.points)}</b> when" in levels
    assert "Known wrong statements" in panel
    assert "id='reference'>" in panel  # the reference statements, staff only


def test_the_rubric_panel_lists_a_numeric_items_known_mistakes() -> None:
    item = _bundled("b1.per_matrix")
    panel = rubric_panel(item)
    assert "for 590592: 590,592 counts a bias vector" in panel
    assert "id='reference'>589,824<" in panel
    assert "no such item" in rubric_panel(None)


def test_a_link_cannot_put_words_in_the_notices(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    prof = _browser(api, "prof")
    for notice in ["saved", "undone"]:
        page = prof.get(REVIEW, params={notice: str(sid), f"{notice}_item": "You owe us $500"})
        assert page.status_code == 200 and "You owe us" not in page.text
        shown = prof.get(f"/submissions/{sid}", params={notice: "You owe us $500"})
        assert shown.status_code == 200 and "You owe us" not in shown.text


def test_the_api_undoes_the_latest_decision_step_by_step(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    url = f"/api/v1/submissions/{sid}/items/{ITEM}/override"
    for points, comment in [(1, "one"), (2.5, "two")]:
        assert api.client.put(url, json={"points": points, "comment": comment},
                              headers=api.auth("prof")).status_code == 200
    assert api.client.post(f"{url}/undo", headers=api.auth("bob")).status_code == 403
    first = api.client.post(f"{url}/undo", headers=api.auth("prof"))
    assert first.status_code == 200, first.text
    assert first.json()["override"]["points"] == 1 and first.json()["override"]["comment"] == "one"
    stale = api.client.post(f"{url}/undo", params={"decision": first.json()["undone"]},
                            headers=api.auth("prof"))
    assert stale.status_code == 409  # undone already: not the latest decision
    second = api.client.post(f"{url}/undo", headers=api.auth("prof"))
    assert second.status_code == 200 and second.json()["override"] is None
    assert _item(api, sid)["override"] is None
    assert api.client.post(f"{url}/undo", headers=api.auth("prof")).status_code == 409
    assert api.client.post(f"/api/v1/submissions/999999/items/{ITEM}/override/undo",
                           headers=api.auth("prof")).status_code == 404


def test_math_is_rendered_by_the_apps_own_katex(api: Api) -> None:
    anonymous = TestClient(api.client.app)
    katex = anonymous.get("/static/katex.min.js")
    assert katex.status_code == 200 and katex.headers["content-type"].startswith("text/javascript")
    assert "katex" in katex.text[:2000].lower()
    prof = _browser(api, "prof")
    plain = prof.get(REVIEW, params={"item_id": ITEM})
    _upload(api, "bob", AMBIGUOUS)
    page = prof.get(REVIEW, params={"item_id": ITEM}).text
    assert 'id="answer-math"' not in page  # no delimiters: nothing to render
    assert plain.status_code == 200
    sid = _upload(api, "alice", {"B1": "d_head = 12 maybe 64: $\\frac{768}{12}$ <b>x</b>"})
    waiting = re.search(r"of (\d+) waiting", prof.get(REVIEW, params={"item_id": ITEM}).text)
    assert waiting is not None
    pages = (prof.get(REVIEW, params={"item_id": ITEM, "at": str(n)}).text
             for n in range(int(waiting.group(1))))
    math = next(p for p in pages if f'href="/submissions/{sid}"' in p)
    box = math.split('id="answer-math">')[1].split("</div>")[0]
    assert "$\\frac{768}{12}$ &lt;b&gt;x&lt;/b&gt;" in box  # text for the script, never HTML
    assert math.count("<script") == 1  # web.js loads KaTeX itself, with the page's nonce
