"""A submission's declared handout edition, through the real app over HTTP (a real SQLite file,
the app's own process pool and result cache): declared by an upload field or the document,
refused with problem+json when the rubric does not grade it, stored, shown to staff and to the
student, kept apart in the result cache and kept by a regrade (its fast path included)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import load_rubric_text, sync_rubric_dir
from app.db.models import RubricVersion, Submission
from app.db.session import unit_of_work
from app.grading.jobs import claim, job_for
from app.grading.worker import grade_document
from app.regrade.runner import run_regrade
from app.submissions.service import accept
from app.submissions.upload import Upload
from graders.rubric import BUNDLED_RUBRICS
from tests.app.conftest import Api
from tests.app.web.test_pages import _browser

SLUG = "editions-demo"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"


def rubric_text(q1_points: int = 2, q2_points: int = 1, q3_points: int = 1) -> str:
    return f"""
slug: {SLUG}
title: Two editions
handouts: ["2021", "2022"]
questions:
  - id: q1
    labels: ["Q1"]
    answer_kind: numeric
    items: [{{id: q1.value, points: {q1_points}, grader: numeric,
              config: {{expected: 10, kind: integer}}}}]
  - id: q2
    handouts: ["2021"]
    labels: ["Q2"]
    answer_kind: numeric
    items: [{{id: q2.value, points: {q2_points}, grader: numeric,
              config: {{expected: 20, kind: integer}}}}]
  - id: q3
    handouts: ["2022"]
    labels: ["Q3"]
    answer_kind: numeric
    items: [{{id: q3.value, points: {q3_points}, grader: numeric,
              config: {{expected: 30, kind: integer}}}}]
"""


MARKDOWN = b"Q1: 10\n\nQ2: 20\n\nQ3: 30\n"


@pytest.fixture(scope="module")
def editions(api: Api) -> Api:
    with unit_of_work(api.sessions) as session:
        load_rubric_text(session, rubric_text(), "<editions>")
    return api


def _upload(api: Api, who: str = "alice", *, query: str = "", data: dict[str, str] | None = None,
            raw: bytes = MARKDOWN, name: str = "s.md", ctype: str = "text/markdown") -> Any:
    return api.client.post(f"{UPLOAD}?wait=true{query}", files={"file": (name, raw, ctype)},
                           data=data or {}, headers=api.auth(who))


def _items(api: Api, submission: int, who: str = "prof") -> tuple[dict[str, Any], dict[str, Any]]:
    body = api.client.get(f"/api/v1/submissions/{submission}", headers=api.auth(who)).json()
    # keyed by the item's id: a student reads an unreleased item by its place (q2), in order
    staff = api.client.get(f"/api/v1/submissions/{submission}", headers=api.auth("prof")).json()
    return body, {s["id"]: i for s, i in zip(staff["items"], body["items"], strict=True)}


def test_an_upload_field_declares_the_edition_for_staff_and_the_student(editions: Api) -> None:
    response = _upload(editions, data={"handout": "2022"})
    assert response.status_code == 201, response.text
    sid = response.json()["id"]
    staff, items = _items(editions, sid)
    assert staff["handout"] == "2022"
    assert items["q2.value"]["max_points"] == 0 and items["q2.value"]["status"] == "missing"
    assert "2022 handout, declared with this submission, does not ask q2" in (
        items["q2.value"]["feedback"])
    assert items["q3.value"]["points"] == 1 and staff["max_points"] == 3
    student, own = _items(editions, sid, "alice")
    assert student["handout"] == "2022"
    # before any release the student already reads why the part counts for nothing
    assert own["q2.value"]["feedback"] == "Not counted: your handout (2022) does not ask part q2."
    listed = editions.client.get(UPLOAD, headers=editions.auth("prof")).json()
    assert {s["id"]: s["handout"] for s in listed}[sid] == "2022"
    for who in ("prof", "alice"):  # the submission page, signed in
        browser = _browser(editions, who)
        page = browser.get(f"/submissions/{sid}").text
        assert "<td>handout</td><td>2022</td>" in page.replace(" ", ""), page[:3000]
        if who == "alice":
            assert "Not counted: your handout (2022) does not ask part q2." in page


def test_a_json_submission_declares_it_itself_and_a_query_field_agrees(editions: Api) -> None:
    raw = json.dumps({"handout": "2021", "answers": {"q1": "10", "q2": "20", "q3": "30"}})
    response = _upload(editions, raw=raw.encode(), name="s.json", ctype="application/json",
                       query="&handout=2021")
    assert response.status_code == 201, response.text
    staff, items = _items(editions, response.json()["id"])
    assert staff["handout"] == "2021" and items["q3.value"]["max_points"] == 0
    assert items["q2.value"]["points"] == 1


@pytest.mark.parametrize(("slug", "query", "raw", "allowed", "says"), [
    (SLUG, "&handout=2030", MARKDOWN, ["2021", "2022"], "its editions: 2021, 2022"),
    ("transformer-basics", "&handout=2021", MARKDOWN, [], "no handout editions"),
    (SLUG, "&handout=2021", b'{"handout": "2022", "answers": {"q1": "10"}}', ["2021", "2022"],
     "the document declares '2022'"),
    (SLUG, "", b'{"handout": "1999", "answers": {"q1": "10"}}', ["2021", "2022"],
     "document declares handout '1999'"),
])
def test_an_edition_the_rubric_does_not_grade_is_a_422_naming_its_editions(
    editions: Api, slug: str, query: str, raw: bytes, allowed: list[str], says: str
) -> None:
    response = editions.client.post(
        f"/api/v1/assignments/{slug}/submissions?wait=true{query}", content=raw,
        headers={**editions.auth("bob"), "content-type": "application/json"
                 if raw.startswith(b"{") else "text/markdown"})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["type"].endswith("/unknown-handout") and problem["allowed"] == allowed
    assert says in problem["detail"]


@pytest.mark.parametrize(("value", "says"), [
    ("2" * 41, "longer than 40 characters"),
    ("20\u200b21", "control or invisible characters"),
])
def test_a_declared_value_is_bounded_and_printable(editions: Api, value: str, says: str) -> None:
    response = _upload(editions, "bob", data={"handout": value})
    assert response.status_code == 422 and says in response.json()["detail"]


def test_without_a_declaration_grading_is_as_before(editions: Api) -> None:
    response = _upload(editions, "bob")
    assert response.status_code == 201
    staff, _ = _items(editions, response.json()["id"])
    # both edition-only questions answered under their own labels: graded (as before)
    assert staff["handout"] is None and staff["max_points"] == 4 and staff["total"] == 4


def test_the_same_bytes_for_two_editions_share_no_cached_reading(editions: Api) -> None:
    totals = {}
    for edition in ("2021", "2022", "2021"):
        response = _upload(editions, data={"handout": edition})
        staff, items = _items(editions, response.json()["id"])
        totals.setdefault(edition, set()).add((staff["total"], items["q2.value"]["max_points"],
                                               items["q3.value"]["max_points"]))
    assert totals == {"2021": {(3, 1, 0)}, "2022": {(3, 0, 1)}}


def _stored_items(api: Api) -> dict[int, tuple[str | None, Any]]:
    """Per submission of the assignment: its declared edition and its current scores."""
    out: dict[int, tuple[str | None, Any]] = {}
    with unit_of_work(api.sessions) as session:
        subs = session.scalars(select(Submission).order_by(Submission.id)).all()
        ids = [(s.id, s.handout) for s in subs if s.status != "error"]
    for sid, handout in ids:
        body, items = _items(api, sid)
        if body["assignment"] == SLUG:
            out[sid] = (handout, {k: (v["points"], v["max_points"], v["status"],
                                      v["feedback"]) for k, v in items.items()})
    return out


def test_a_regrade_keeps_each_submission_s_edition(editions: Api) -> None:
    for fields in ({"handout": "2021"}, {"handout": "2022"}, {}):
        assert _upload(editions, "bob", data=fields).status_code == 201
    # q2 unanswered by a student whose edition asks it: missing, out of its points
    assert _upload(editions, "bob", data={"handout": "2021"}, raw=b"Q1: 10\n").status_code == 201
    before = _stored_items(editions)
    assert {h for h, _ in before.values()} == {"2021", "2022", None}
    with unit_of_work(editions.sessions) as session:
        load_rubric_text(session, rubric_text(3, 2, 2), "<editions v2>")
    options = editions.settings.grading_options()
    with ThreadPoolExecutor(1) as pool:
        report = run_regrade(editions.sessions, SLUG, pool, options=options)
    # every stored run is re-scored from its keys in this process (the location key names the
    # stored edition), none sent to the grading processes
    assert report.fast is not None and report.fast.sent == 0
    assert report.fast.rescored == len(before)
    after = _stored_items(editions)
    with unit_of_work(editions.sessions) as session:
        raws = {s.id: (s.raw, s.filename, s.content_type)
                for s in session.scalars(select(Submission)) if s.id in after}
    for sid, (handout, items) in after.items():
        assert handout == before[sid][0]
        assert items["q1.value"][1] == 3
        # what the grading processes give this upload under the new rubric, uncached
        raw, name, ctype = raws[sid]
        fresh = grade_document(rubric_text(3, 2, 2), raw, name, ctype, handout=handout)
        assert items == {r.item_id: (int(r.points), int(r.max_points), r.status.value,
                                     r.feedback) for r in fresh.items}


def _notebook(edition: str) -> bytes:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell(text) for text in ("Q1: 10", "Q2: 20")]
    notebook.metadata["gradeformer"] = {"handout": edition}
    return nbformat.writes(notebook).encode()


def test_a_notebook_declares_it_in_its_metadata_read_in_the_child(editions: Api) -> None:
    # a notebook is read by the upload's child process: the edition comes back from it
    response = _upload(editions, "bob", raw=_notebook("2022"), name="s.ipynb",
                       ctype="application/x-ipynb+json")
    assert response.status_code == 201, response.text
    staff, items = _items(editions, response.json()["id"])
    assert staff["handout"] == "2022" and items["q2.value"]["max_points"] == 0
    refused = _upload(editions, "bob", raw=_notebook("1999"), name="s.ipynb",
                      ctype="application/x-ipynb+json")
    assert refused.status_code == 422 and refused.json()["allowed"] == ["2021", "2022"]


def test_an_undeclared_student_reads_the_neutral_message_before_release(editions: Api) -> None:
    response = _upload(editions, raw=b"Q1: 10\n")
    _, own = _items(editions, response.json()["id"], "alice")
    assert own["q2.value"]["feedback"] == "No answer was found for this part."


def test_every_way_to_grade_a_stored_submission_carries_its_edition(
    sessions: sessionmaker[Session],
) -> None:
    """The CLI's accept, a Celery task's claim and the sweeper's re-queued job (job_for)."""
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        job = accept(session, "cs224n-attention", Upload(b"1a. It copies v_j.\n", "a.md", None,
                                                          None, "2023"), None, 1 << 20).job
    assert job.handout == "2023"
    with unit_of_work(sessions) as session:
        assert claim(session, job.submission_id, "task-a", 60, 3).handout == "2023"
        submission = session.get(Submission, job.submission_id)
        assert submission is not None
        version = session.get(RubricVersion, job.rubric_version_id)
        assert version is not None and job_for(submission, version).handout == "2023"


def test_an_idempotency_key_names_one_edition(editions: Api) -> None:
    """A retry repeats the first request: the same key with another declared edition is another
    upload (409), not an answer about the first."""
    key = {**editions.auth("bob"), "Idempotency-Key": "edition-retry-1"}
    first = editions.client.post(f"{UPLOAD}?handout=2022", headers=key,
                                 files={"file": ("s.md", MARKDOWN, "text/markdown")})
    assert first.status_code == 202, first.text
    again = editions.client.post(f"{UPLOAD}?handout=2022", headers=key,
                                 files={"file": ("s.md", MARKDOWN, "text/markdown")})
    assert again.status_code in (200, 202) and again.json()["id"] == first.json()["id"]
    other = editions.client.post(f"{UPLOAD}?handout=2021", headers=key,
                                 files={"file": ("s.md", MARKDOWN, "text/markdown")})
    assert other.status_code == 409 and "handout edition" in other.json()["detail"]
    assert other.json()["submission_id"] == first.json()["id"]


def test_an_idempotency_key_retry_with_the_same_edition_in_other_words_is_a_replay(
        editions: Api) -> None:
    """The edition compared is the one the rubric resolves: another case of the same edition,
    or the field naming what the document itself declares, repeats the first upload."""
    key = {**editions.auth("bob"), "Idempotency-Key": "edition-retry-2"}
    document = json.dumps({"handout": "2021", "answers": {"q1": "10"}}).encode()
    first = editions.client.post(UPLOAD, headers=key,
                                 files={"file": ("s.json", document, "application/json")})
    assert first.status_code == 202, first.text
    for field in ("2021", None):
        again = editions.client.post(
            UPLOAD, headers=key, data={} if field is None else {"handout": field},
            files={"file": ("s.json", document, "application/json")})
        assert again.status_code in (200, 202), again.text
        assert again.json()["id"] == first.json()["id"]
    other = editions.client.post(UPLOAD, headers=key, data={"handout": "2022"},
                                 files={"file": ("s.json", document, "application/json")})
    # the field and the document disagree: refused for what it is, not answered as the first
    assert other.status_code == 422 and other.json()["type"].endswith("/unknown-handout")


def test_concurrent_retries_naming_two_editions_store_one_and_refuse_the_other(
        editions: Api) -> None:
    """Two requests with one key and the same bytes, sent at once (one write batch, or two),
    declaring different editions: one is stored, the other is a 409 naming it, never a 2xx
    about an upload it is not."""
    key = {**editions.auth("bob"), "Idempotency-Key": "edition-race-1"}

    def send(edition: str) -> Any:
        return editions.client.post(UPLOAD, headers=key, data={"handout": edition},
                                    files={"file": ("s.md", MARKDOWN, "text/markdown")})

    for _ in range(3):
        key["Idempotency-Key"] += "x"
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(send, ["2021", "2022"]))
        codes = sorted(a.status_code for a in answers)
        assert codes == [202, 409], [a.text for a in answers]
        stored = next(a for a in answers if a.status_code == 202).json()["id"]
        refused = next(a for a in answers if a.status_code == 409).json()
        assert refused["submission_id"] == stored and "handout edition" in refused["detail"]
        assert refused["type"].endswith("/conflict")
        with unit_of_work(editions.sessions) as session:
            rows = session.scalars(select(Submission.id).where(
                Submission.idempotency_key == key["Idempotency-Key"])).all()
        assert rows == [stored]
