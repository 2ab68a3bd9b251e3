"""Submitting from the browser over HTTP: the student's page (handout without the answer key,
schedule, upload form), the plain form post and its result, refusals in words (CSRF, size,
schedule, rate), and staff uploads that always name their student."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from app.db.session import make_engine, make_sessionmaker
from app.main import create_app
from app.settings import Settings
from app.submissions.filing import student_from_name
from app.submissions.visibility import StudentItem
from app.web.submit import part_rows, wrong_assignment
from graders.documents.formats import ACCEPTED_EXTENSIONS
from graders.documents.model import LocatedAnswer
from graders.documents.strength import assignment_doubt
from graders.rubric import Rubric
from tests.app.conftest import Api, copy_sqlite, make_tokens
from tests.support.pages import csrf_of

SLUG = "transformer-basics"
SUBMIT = f"/assignments/{SLUG}/submit"
ANSWERS = b"A1. XOR is not linearly separable; a hidden layer with a non-linearity fixes it.\n"
JSON = {"Accept": "application/json"}


def _browser(app: object, token: str) -> TestClient:
    client = TestClient(app)  # type: ignore[arg-type]
    signed = client.post("/sign-in", data={"token": token, "next": "/"}, follow_redirects=False)
    assert signed.status_code == 303
    return client



def _post(client: TestClient, csrf: str, name: str = "mine.txt", body: bytes = ANSWERS,
          headers: dict[str, str] | None = None, **fields: str) -> object:
    return client.post(SUBMIT, data={"csrf": csrf, **fields}, files={"file": (name, body)},
                       headers=headers or {}, follow_redirects=False)


def _graded(api: Api, submission_id: int) -> dict[str, object]:
    for _ in range(300):
        got = api.client.get(f"/api/v1/submissions/{submission_id}", headers=api.auth("prof"))
        if got.json()["status"] not in ("queued", "grading"):
            return dict(got.json())
        time.sleep(0.1)
    raise AssertionError("not graded in 30 s")


def test_the_student_page_shows_the_handout_but_never_the_answer_key(api: Api) -> None:
    alice = _browser(api.client.app, api.tokens["alice"])
    home = alice.get("/")
    assert f'href="{SUBMIT}"' in home.text  # every assignment links to its page
    page = alice.get(SUBMIT)
    assert page.status_code == 200
    assert "Why can a single perceptron not compute XOR" in page.text  # a prompt
    assert "XOR is not linearly separable" not in page.text  # an item title (a solution)
    assert "reference" not in page.text.lower()
    assert 'enctype="multipart/form-data"' in page.text and 'type="file"' in page.text
    assert ".ipynb" in page.text and "submissions left" in page.text


def test_a_plain_form_post_stores_the_file_and_shows_the_result(api: Api) -> None:
    alice = _browser(api.client.app, api.tokens["alice"])
    csrf = csrf_of(alice.get(SUBMIT).text)
    posted = _post(alice, csrf, student="bob")  # a student cannot file under another name
    assert posted.status_code == 303  # type: ignore[attr-defined]
    where = posted.headers["location"]  # type: ignore[attr-defined]
    submission_id = int(re.search(r"submission=(\d+)", where).group(1))  # type: ignore[union-attr]
    assert _graded(api, submission_id)["student"] == "alice"
    result = alice.get(where)
    assert 'id="result"' in result.text and "Received and checked" in result.text
    # One question of many answered: the page asks whether this is the right file.
    assert 'id="doubt"' in result.text and "questions found" in result.text
    # Staff text stays on staff pages: the machine's own doubt wording, evidence, confidence.
    staff_view = api.client.get(f"/api/v1/submissions/{submission_id}", headers=api.auth("prof"))
    for item in staff_view.json()["items"]:
        if item["feedback"] and item["feedback"] != item.get("student_feedback"):
            assert item["feedback"] not in result.text
    assert "a grader should check" not in result.text and "confidence" not in result.text
    assert '<span class="badge">counts</span>' in result.text
    bob = _browser(api.client.app, api.tokens["bob"])
    assert bob.get(f"{SUBMIT}?submission={submission_id}").status_code == 404


def test_refusals_are_words_and_store_nothing(api: Api) -> None:
    alice = _browser(api.client.app, api.tokens["alice"])
    before = len(api.client.get(f"/api/v1/assignments/{SLUG}/submissions",
                                headers=api.auth("prof")).json())
    forged = _post(alice, "0" * 64)
    assert forged.status_code == 403 and "security token" in forged.text  # type: ignore[attr-defined]
    csrf = csrf_of(alice.get(SUBMIT).text)
    big = _post(alice, csrf, body=b"x" * (api.settings.max_upload_bytes + 1), headers=JSON)
    assert big.status_code == 413  # type: ignore[attr-defined]
    assert "larger than the limit" in big.json()["detail"]  # type: ignore[attr-defined]
    odd = _post(alice, csrf, name="answers.docx", headers=JSON)
    assert odd.status_code == 422 and ".docx" in odd.json()["detail"]  # type: ignore[attr-defined]
    after = len(api.client.get(f"/api/v1/assignments/{SLUG}/submissions",
                               headers=api.auth("prof")).json())
    assert after == before


def test_a_staff_upload_always_names_its_student(api: Api) -> None:
    prof = _browser(api.client.app, api.tokens["prof"])
    page = prof.get(f"/assignments/{SLUG}/submissions")
    assert 'id="upload-form"' in page.text and "multiple" in page.text
    csrf = csrf_of(page.text)
    nameless = _post(prof, csrf, name=".txt", headers=JSON, student="@name")
    assert nameless.status_code == 422  # type: ignore[attr-defined]
    unnamed = _post(prof, csrf, headers=JSON)  # no student at all
    assert unnamed.status_code == 422  # type: ignore[attr-defined]
    assert "No student" in unnamed.json()["detail"]  # type: ignore[attr-defined]
    stem = _post(prof, csrf, name="carol.txt", headers=JSON, student="@name")
    assert stem.status_code == 202, stem.text  # type: ignore[attr-defined]
    first = stem.json()["id"]  # type: ignore[attr-defined]
    chosen = _post(prof, csrf, name="whatever.txt", student="dave")
    assert chosen.status_code == 303  # type: ignore[attr-defined]
    second = int(chosen.headers["location"].rsplit("=", 1)[1])  # type: ignore[attr-defined]
    assert _graded(api, first)["student"] == "carol"
    assert _graded(api, second)["student"] == "dave"
    rows = prof.get(f"/assignments/{SLUG}/batch.json?ids={first},{second}").json()
    assert [r["student"] for r in rows] == ["carol", "dave"]
    assert all(r["final"] and "right assignment?" in r["doubt"] for r in rows)
    shown = prof.get(f"/assignments/{SLUG}/submissions?batch={first},{second}")
    assert "is this the right assignment?" in shown.text
    alice = _browser(api.client.app, api.tokens["alice"])
    assert alice.get(f"/assignments/{SLUG}/batch.json?ids={first}").status_code == 403


def test_the_schedule_refuses_in_words(api: Api) -> None:
    limit = api.client.patch(f"/api/v1/assignments/{SLUG}/schedule", json={
        "max_submissions": 1, "due_at": "2099-05-01T17:00:00Z",
        "late_until": "2099-05-03T17:00:00Z", "late_penalty_percent": "10"},
        headers=api.auth("prof"))
    assert limit.status_code == 200, limit.text
    try:
        bob = _browser(api.client.app, api.tokens["bob"])
        before = bob.get(SUBMIT).text
        assert "2099-05-01 17:00 UTC" in before
        assert "late uploads until 2099-05-03 17:00 UTC, 10% off per started day" in before
        assert "<b id='remaining'>1</b> of 1" in before
        csrf = csrf_of(before)
        assert _post(bob, csrf).status_code == 303  # type: ignore[attr-defined]
        page = bob.get(SUBMIT)
        assert 'id="closed"' in page.text and "used all 1 submissions" in page.text
        again = _post(bob, csrf, headers=JSON)
        assert again.status_code == 409  # type: ignore[attr-defined]
        assert "used all 1" in again.json()["detail"]  # type: ignore[attr-defined]
    finally:
        api.client.patch(f"/api/v1/assignments/{SLUG}/schedule", json={
            "max_submissions": None, "due_at": None, "late_until": None}, headers=api.auth("prof"))


@pytest.fixture
def strict_app(
    sqlite_template: Path, tmp_path: Path
) -> Iterator[tuple[TestClient, dict[str, str]]]:
    url = copy_sqlite(sqlite_template, tmp_path)
    settings = Settings(database_url=url, workers=1, upload_burst=1, uploads_per_minute=1)
    engine = make_engine(url)
    with TestClient(create_app(settings)) as client:
        yield client, make_tokens(make_sessionmaker(engine))
    engine.dispose()


def test_too_many_uploads_say_when_to_come_back(
    strict_app: tuple[TestClient, dict[str, str]],
) -> None:
    client, tokens = strict_app
    alice = _browser(client.app, tokens["alice"])
    csrf = csrf_of(alice.get(SUBMIT).text)
    assert _post(alice, csrf, headers=JSON).status_code == 202  # type: ignore[attr-defined]
    second = _post(alice, csrf, headers=JSON)
    assert second.status_code == 429  # type: ignore[attr-defined]
    assert "try again in" in second.json()["detail"]  # type: ignore[attr-defined]
    assert second.headers["Retry-After"]  # type: ignore[attr-defined]
    plain = _post(alice, csrf)
    assert plain.status_code == 429 and "Too many uploads" in plain.text  # type: ignore[attr-defined]


# Student ids as course rosters spell them (letters, digits, _ - . @ +), and the file names staff
# export from an LMS or a shared folder: the id with an accepted ending, maybe inside folders
# (Windows browsers once sent C:\fakepath\ before the name).
STUDENT_IDS = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.@+\-]{0,40}", fullmatch=True)


@given(STUDENT_IDS, st.sampled_from(ACCEPTED_EXTENSIONS),
       st.sampled_from(["", "hw1/", "C:\\fakepath\\", "/home/ta/downloads/"]))
def test_a_file_is_filed_under_its_name_without_the_last_ending(
    student: str, ending: str, folder: str
) -> None:
    assert student_from_name(f"{folder}{student}{ending}") == student


@given(st.sampled_from(ACCEPTED_EXTENSIONS))
def test_a_file_named_only_by_its_ending_names_no_student(ending: str) -> None:
    assert student_from_name(ending) == "" and student_from_name(f"  {ending}") == ""


@given(st.integers(min_value=1, max_value=40).flatmap(
    lambda total: st.tuples(st.integers(min_value=0, max_value=total), st.just(total))))
def test_the_machines_doubt_reads_as_questions_found(counts: tuple[int, int]) -> None:
    found, total = counts
    questions = [
        {"id": f"Q{n}", "items": [{"id": f"q{n}", "points": 1, "grader": "written"}]}
        for n in range(total)
    ]
    rubric = Rubric.model_validate({"slug": "hw", "title": "HW", "questions": questions})
    answers = {f"Q{n}": LocatedAnswer(f"Q{n}", "an answer") for n in range(found)}
    doubt = assignment_doubt(rubric, answers)
    shown = wrong_assignment([f"Staff notes. {doubt}" if doubt else "Fine."])
    if 2 * found >= total:
        assert shown is None
    else:
        assert shown == f"{found} of {total} questions found: is this the right assignment?"


def test_with_a_roster_a_staff_upload_goes_to_a_listed_student(api: Api) -> None:
    other = "cs224n-attention"
    roster = "Student ID,Full Name\r\nzoe,Zoe Zed\r\nyann,Yann Y\r\n"
    put = api.client.put(f"/api/v1/assignments/{other}/roster", content=roster.encode(),
                         headers={**api.auth("prof"), "Content-Type": "text/csv"})
    assert put.status_code == 200, put.text
    prof = _browser(api.client.app, api.tokens["prof"])
    page = prof.get(f"/assignments/{other}/submissions")
    assert '<option value="zoe">zoe (Zoe Zed)</option>' in page.text
    csrf = csrf_of(page.text)
    url = f"/assignments/{other}/submit"
    stranger = prof.post(url, data={"csrf": csrf, "student": "@name"}, headers=JSON,
                         files={"file": ("xavier.txt", ANSWERS)})
    assert stranger.status_code == 422
    assert "xavier is not on the roster" in stranger.json()["detail"]
    listed = prof.post(url, data={"csrf": csrf, "student": "@name"}, headers=JSON,
                       files={"file": ("zoe.txt", ANSWERS)})
    chosen = prof.post(url, data={"csrf": csrf, "student": "yann"}, headers=JSON,
                       files={"file": ("scan.txt", ANSWERS)})
    assert (listed.status_code, chosen.status_code) == (202, 202)
    assert (listed.json()["student"], chosen.json()["student"]) == ("zoe", "yann")


# A submission's parts as its student reads them: parts of a few questions, each waiting (no
# points, one of the neutral messages) or shown (points, its own feedback, maybe a title).
_PARTS = st.lists(st.tuples(
    st.sampled_from(["A1", "A2", "B3"]),
    st.sampled_from(["Being reviewed by course staff.", "No answer was found for this part.",
                     "Full credit."]),
    st.booleans(), st.booleans()), max_size=30)


@given(_PARTS)
def test_parts_waiting_alike_share_a_row_and_every_other_part_has_its_own(
    parts: list[tuple[str, str, bool, bool]]
) -> None:
    items = [StudentItem(id=f"{q} part {n}", question=q, status="graded", max_points=Decimal(2),
                         points=Decimal(1) if shown else None, feedback=said, released=shown,
                         title="A title" if titled else None, solution=None)
             for n, (q, said, shown, titled) in enumerate(parts)]
    rows = part_rows(items)
    counted = 0
    for name, _, _ in rows:
        many = re.search(r"\((\d+) parts\)", name)
        counted += int(many.group(1)) if many else 1
        assert (many is None) == ("part " in name)
    assert counted == len(items)
    # a row is shared only by neighbours of one question that wait with the same message
    expected = 0
    for n, item in enumerate(items):
        waiting = item.points is None and item.title is None
        before = items[n - 1] if n else None
        expected += not (waiting and before is not None and before.points is None
                         and before.title is None and before.question == item.question
                         and before.feedback == item.feedback)
    assert len(rows) == expected
