"""A hostile student against `gradeformer serve` over real sockets, limits as shipped: multipart
bodies of tens of thousands of tiny parts and JSON bodies nested 200,000 deep sent to every kind
of route (the event loop stays free; a 4xx, never a 500); direction overrides, NUL, overlong
UTF-8 and long names as file names and student ids; a student's token on every staff write, over
and over (403 each time, no grade moved); the answer-key endpoints refusing a student before
looking anything up (the same 403 whether the assignment exists); and one student's burst of
uploads beside another student's single upload."""

from __future__ import annotations

import concurrent.futures
import itertools
import statistics
import threading
import time
from collections.abc import Callable

import httpx
import pytest
from sqlalchemy import select

from app.db.models import GradingRun, Submission
from app.db.session import unit_of_work
from tests.attacks.conftest import SLUG, UPLOAD, Served
from tests.support.pace import stretched

PAGE_UPLOAD = f"/assignments/{SLUG}/submit"
DOC = b"B1: 64\nB2: 2\n"


def _loop_free_while(served: Served, attack: Callable[[], object]) -> tuple[object, float]:
    """`attack`'s result, and the slowest /healthz answered while it ran (a second client)."""
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(attack()))
    slowest = 0.0
    worker.start()
    with httpx.Client(base_url=str(served.client.base_url), timeout=30) as monitor:
        while worker.is_alive():
            began = time.monotonic()
            assert monitor.get("/healthz").status_code == 200
            slowest = max(slowest, time.monotonic() - began)
            time.sleep(0.05)
    worker.join()
    return outcome[0], slowest


def _tiny_parts(count: int) -> tuple[str, bytes]:
    part = b'--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n\r\n'
    file = (b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n'
            b"Content-Type: text/plain\r\n\r\n" + DOC + b"\r\n")
    return "multipart/form-data; boundary=b", part * count + file + b"--b--\r\n"


@pytest.mark.parametrize("path, who", [(UPLOAD, "alice"), (UPLOAD, None), (PAGE_UPLOAD, None),
                                       ("/sign-in", None)])
def test_tens_of_thousands_of_tiny_parts_are_refused_cheaply(served: Served, path: str,
                                                            who: str | None) -> None:
    content_type, body = _tiny_parts(40_000)  # 2 MB
    headers = {"Content-Type": content_type, **(served.auth(who) if who else {})}
    limit = stretched(1.0)
    answer, slowest = _loop_free_while(
        served, lambda: served.client.post(path, content=body, headers=headers))
    assert isinstance(answer, httpx.Response)
    if path == PAGE_UPLOAD:  # signed out: the page answers with its sign-in form
        assert answer.status_code == 200 and "Sign in" in answer.text
    else:
        assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
        assert answer.headers["content-type"] == "application/problem+json"
    assert slowest < limit, (slowest, limit)


NESTED = {"arrays": b"[" * 200_000, "objects": b'{"a":' * 50_000,
          "closed arrays": b"[" * 60_000 + b"]" * 60_000}


@pytest.mark.parametrize("shape", list(NESTED))
@pytest.mark.parametrize("method, path, who", [
    ("PUT", "/api/v1/submissions/1/items/B1.d_head/override", "prof"),
    ("POST", "/api/v1/submissions/1/items/B1.d_head/regrade-requests", "alice"),
    ("PATCH", f"/api/v1/assignments/{SLUG}/schedule", "prof"),
    ("POST", "/api/v1/regrade-requests/1/answer", "prof"),
    ("POST", f"/api/v1/assignments/{SLUG}/items/B1.d_head/groups/1/decision", "prof"),
    ("PUT", "/api/v1/roster", "prof"),
    ("POST", "/api/v1/tokens", None),
    ("POST", UPLOAD, "alice"),  # a JSON document: read in a helper, never here
])
def test_json_nested_200000_deep_is_a_4xx(served: Served, shape: str, method: str, path: str,
                                          who: str | None) -> None:
    headers = {"Content-Type": "application/json", **(served.auth(who) if who else {})}
    limit = stretched(1.0)
    answer, slowest = _loop_free_while(
        served, lambda: served.client.request(method, path, content=NESTED[shape],
                                              headers=headers))
    assert isinstance(answer, httpx.Response)
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    assert answer.headers["content-type"] == "application/problem+json"
    assert slowest < limit, (slowest, limit)


HOSTILE_NAMES = {
    "a direction override": "exe.\u202etxt",
    "NUL": "a\x00b.txt",
    "overlong UTF-8 dots and slash": b"\xc0\xae\xc0\xae\xc0\xafa.txt".decode("latin-1"),
    "a lone surrogate, escaped": "%ED%A0%80.txt",
    "4,000 letters": "a" * 4_000 + ".txt",
    "zero-width and tag characters": "a\u200b\U000e0041.txt",
}


@pytest.mark.parametrize("name", list(HOSTILE_NAMES))
def test_hostile_file_names_are_refused_or_stored_clean(served: Served, name: str) -> None:
    raw = HOSTILE_NAMES[name]
    head = (f'--b\r\nContent-Disposition: form-data; name="file"; filename="{raw}"\r\n'
            "Content-Type: text/plain\r\n\r\n").encode("utf-8", "surrogatepass")
    answer = served.client.post(UPLOAD, content=head + DOC + b"\r\n--b--\r\n", headers={
        "Content-Type": "multipart/form-data; boundary=b", **served.auth("alice")})
    assert answer.status_code < 500, answer.text[:300]
    if answer.status_code >= 400:
        assert answer.headers["content-type"] == "application/problem+json"
        return
    stored = served.client.get(f"/api/v1/submissions/{answer.json()['id']}",
                               headers=served.auth("alice")).json()["filename"]
    # Kept to its first 500 characters (the 4,000 letters), nothing unprintable, no folder.
    assert stored is None or (stored.isprintable() and "/" not in stored
                              and len(stored) <= 500), stored


@pytest.mark.parametrize("student", ["alice\u202e", "ali\x00ce", "alice\u200b", "a" * 201])
def test_student_ids_hiding_characters_are_refused(served: Served, student: str) -> None:
    """A staff upload filed under a name from a student's file (alice.txt: alice) or typed."""
    answer = served.client.post(UPLOAD, params={"student": student}, content=DOC,
                                headers={"Content-Type": "text/plain", **served.auth("prof")})
    assert answer.status_code == 422, (answer.status_code, answer.text[:300])
    assert answer.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("filename", ["\u0430lice.txt",  # a Cyrillic a
                                      "Alice.txt", "alice\uff0etxt", "../alice.txt/x.txt"])
def test_a_student_id_that_only_looks_like_anothers_is_never_theirs(served: Served,
                                                                    filename: str) -> None:
    """Filed under the name as spelled (no roster here), so alice never sees it as hers."""
    answer = served.client.post(UPLOAD, files={"file": (filename, DOC, "text/plain")},
                                headers=served.auth("prof"))
    assert answer.status_code < 500, answer.text[:300]
    if answer.status_code >= 400:
        return
    seen = served.client.get(f"/api/v1/submissions/{answer.json()['id']}",
                             headers=served.auth("alice"))
    assert seen.status_code in (403, 404), seen.text[:300]


def _submission(served: Served) -> int:
    answer = served.client.post(UPLOAD, params={"wait": "true"}, content=DOC,
                                headers={"Content-Type": "text/plain", **served.auth("bob")})
    assert answer.status_code in (201, 202), answer.text
    submission_id: int = answer.json()["id"]
    return submission_id


def test_a_students_token_on_every_staff_write_is_403_every_time(served: Served) -> None:
    mine = _submission(served)
    before = served.client.get(f"/api/v1/submissions/{mine}", headers=served.auth("bob")).json()
    item = f"/api/v1/submissions/{mine}/items/B1.d_head"
    writes = [
        ("PUT", f"{item}/override", {"points": 100, "comment": "mine"}),
        ("POST", f"{item}/override/undo", None),
        ("DELETE", f"{item}/override", None),
        ("POST", f"/api/v1/assignments/{SLUG}/regrade", {}),
        ("POST", f"/api/v1/assignments/{SLUG}/publish", None),
        ("DELETE", f"/api/v1/assignments/{SLUG}/publish", None),
        ("PATCH", f"/api/v1/assignments/{SLUG}/schedule", {"due_at": None}),
        ("POST", "/api/v1/regrade-requests/1/answer", {"decision": "accepted"}),
        ("PUT", f"/api/v1/submissions/{mine}/chosen", None),
    ]

    def send(write: tuple[str, str, object]) -> int:
        method, path, body = write
        return served.client.request(method, path, json=body,
                                     headers=served.auth("bob")).status_code

    sent = writes * 10
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(send, sent))
    assert set(statuses) == {403}, [(w[0], w[1], s) for w, s in zip(sent, statuses, strict=True)
                                    if s != 403]
    after = served.client.get(f"/api/v1/submissions/{mine}", headers=served.auth("bob")).json()
    assert after == before


ANSWER_KEYS = ["/api/v1/assignments/{slug}/dashboard", "/api/v1/assignments/{slug}/export.csv",
               "/api/v1/assignments/{slug}/canvas.csv", "/api/v1/assignments/{slug}/results.json",
               "/api/v1/assignments/{slug}/review", "/api/v1/assignments/{slug}/exemplars",
               "/api/v1/assignments/{slug}/items/B1.d_head/groups",
               "/api/v1/assignments/{slug}/risk", "/api/v1/assignments/{slug}/regrade-requests"]


@pytest.mark.parametrize("path", ANSWER_KEYS)
def test_answer_key_endpoints_refuse_a_student_before_looking_anything_up(
        served: Served, path: str) -> None:
    """The same 403 for the assignment and for one that does not exist (no oracle of what
    exists), answered as fast as /healthz (nothing read: median of 15 each, generous)."""
    answers = {slug: served.client.get(path.format(slug=slug), headers=served.auth("alice"))
               for slug in (SLUG, "no-such-assignment")}
    assert {a.status_code for a in answers.values()} == {403}, {
        s: (a.status_code, a.text[:200]) for s, a in answers.items()}
    details = {a.json()["detail"] for a in answers.values()}
    assert len(details) == 1, details

    def median(url: str, headers: dict[str, str]) -> float:
        times = []
        for _ in range(15):
            began = time.monotonic()
            served.client.get(url, headers=headers)
            times.append(time.monotonic() - began)
        return statistics.median(times)

    refused = median(path.format(slug=SLUG), served.auth("alice"))
    assert refused < max(0.25, 10 * median("/healthz", {}))


def test_a_burst_of_one_students_uploads_delays_anothers_by_one_job(served: Served) -> None:
    """alice fires 16 uploads at once (four may be in progress: the rest 429 at once), each
    graded before it is answered; bob's one upload, sent while hers wait, is graded before all
    but the one of hers being graded when it came (and one more that may be between the
    reader and the pool). Each document differs: the result cache answers none of them.

    Both ends are the server's: when bob's submission was stored (he came) and when each run
    was stored; only her jobs finished after he came count. Two clean-clone CI runs (xdist, two
    loaded cores) counted every job of hers stored before his, 3 each time, which includes any
    finished before his request, sent 0.2 s after hers, reached the server: those did not delay
    him. The message gives every (came, graded) in seconds, should it fail again."""
    numbers = itertools.count()

    def upload(who: str, lines: int) -> tuple[int, int | None]:
        document = b"B1: 64\nB2: %d\n" % next(numbers) + b"B3: words of an answer\n" * lines
        answer = served.client.post(UPLOAD, params={"wait": "true"}, content=document,
                                    headers={"Content-Type": "text/plain", **served.auth(who)})
        return answer.status_code, answer.json().get("id") if answer.status_code == 201 else None

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        burst = [pool.submit(upload, "alice", 1000) for _ in range(16)]
        time.sleep(0.2)
        bobs, bob_id = upload("bob", 1)
        alices = [f.result() for f in burst]
    assert bobs == 201 and bob_id is not None
    assert sorted(status for status, _ in alices) == [201] * 4 + [429] * 12, alices
    with unit_of_work(served.sessions) as session:
        stored = dict(session.execute(select(GradingRun.submission_id, GradingRun.created_at)
                                      .where(GradingRun.is_current.is_(True))).all())
        came = dict(session.execute(select(Submission.id, Submission.created_at)).all())
    hers = [sid for status, sid in alices if status == 201 and sid is not None]
    ahead = [sid for sid in hers if came[bob_id] <= stored[sid] < stored[bob_id]]
    first = min(came.values())
    seconds = {("bob" if sid == bob_id else "alice", sid):
               tuple(round((at[sid] - first).total_seconds(), 3) for at in (came, stored))
               for sid in [*hers, bob_id]}
    assert len(ahead) <= 2, (len(ahead), "of alice's jobs were graded after bob came, before him",
                             seconds)
