"""Grading bombs: answers that read in linear time but cost a grader quadratic time. Each is a
long run of one unit, the class a hostile student types to make a pattern scan the rest of the
answer from every position: a word of 300,000 letters (the spelling corrector tried every slip
of it; the primed-name pattern split it every way), abbreviations or list numbers repeated
("e.g. A ", "1. A ": each full stop it did not end a sentence at searched the sentence so far),
blank lines and unclosed display math (each line searched all the others), a run of full stops
in a numeric answer (each one read the rest of the run), and a symbolic answer of one long
word (the declared-scalar pattern read it from each letter). Before the fixes each took from
minutes to hours of a grading process for 100 to 400 KB (56 KB of "e.g. A " took 50 s), and
the per-document limit cut it off with nothing graded: one cheap upload held a grading process
for the whole limit, and every student behind it waited.

Here the per-document limit is 30 s, not the shipped 120: each upload is graded within it (the
right answer beside the bomb is credited, the document is not cut off), and /healthz answers
within a second meanwhile."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.auth.service import create_token
from app.db.session import unit_of_work
from tests.app.conftest import Api, copy_sqlite
from tests.attacks.conftest import _app_on
from tests.attacks.test_document_bombs_deep import until_final
from tests.support.pace import stretched

DEADLINE = 30.0
TRANSFORMER = "/api/v1/assignments/transformer-basics/submissions"
CS224N = "/api/v1/assignments/cs224n-attention/submissions"


def _json(answers: dict[str, str]) -> tuple[str, bytes, str]:
    return "a.json", json.dumps({"answers": answers}).encode(), "application/json"


def _written(text: str) -> tuple[str, tuple[str, bytes, str], str]:
    """A transformer-basics upload: the bomb in a written answer beside a right number."""
    return TRANSFORMER, _json({"a1.nonseparable": text, "b1.d_head": "64"}), "b1.d_head"


BOMBS: dict[str, tuple[str, tuple[str, bytes, str], str]] = {
    "a word of 300,000 letters": _written("a" * 300_000),
    "a word of 300,000 letters and a prime": _written("ab" * 150_000 + "'"),
    "'e.g. A ' 30,000 times": _written("e.g. A " * 30_000),
    "'1. A ' 30,000 times": _written("1. A " * 30_000),
    "'Fig. A ' 30,000 times": _written("Fig. A " * 30_000),
    "200,000 blank lines": _written("Word\n" + "\n" * 200_000),
    "unclosed display math on 60,000 lines": _written("$$\n" * 60_000),
    "unclosed bracket math on 60,000 lines": _written("\\[\n" * 60_000),
    "200,000 full stops in a numeric answer": (
        TRANSFORMER, _json({"b1.d_head": "64", "b1.total": "." * 200_000}), "b1.d_head"),
    "a Markdown answer of 200,000 full stops": (
        TRANSFORMER, ("a.md", b"## B1\n\nd_head = 64\n\n" + b"." * 200_000 + b"\n",
                      "text/markdown"), "b1.d_head"),
    "a symbolic answer of one 300,000-letter word": (
        CS224N, _json({"1b": "a" * 300_000, "1c.i": "W" * 300_000}), ""),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Api]:
    yield from _app_on(copy_sqlite(sqlite_template, tmp_path_factory.mktemp("attack")),
                       document_seconds=DEADLINE)


def _upload_all(target: Api) -> tuple[dict[str, tuple[int, str]], float]:
    """Each bomb by its own new student, all at once, /healthz asked every 0.1 s meanwhile:
    each bomb's status and body, and the slowest /healthz."""
    with unit_of_work(target.sessions) as session:
        tokens = {name: create_token(session, f"gbomb{n}", "student").token
                  for n, name in enumerate(BOMBS)}
    answers: dict[str, tuple[int, str]] = {}

    def send(name: str) -> None:
        url, document, _ = BOMBS[name]
        answer = target.client.post(url, files={"file": document},
                                    headers={"Authorization": f"Bearer {tokens[name]}"})
        answers[name] = (answer.status_code, answer.text)

    threads = [threading.Thread(target=send, args=(name,)) for name in BOMBS]
    for thread in threads:
        thread.start()
    slowest = 0.0
    while any(t.is_alive() for t in threads):
        began = time.monotonic()
        assert target.client.get("/healthz").status_code == 200
        slowest = max(slowest, time.monotonic() - began)
        time.sleep(0.1)
    for thread in threads:
        thread.join()
    return answers, slowest


@pytest.mark.timeout(600)  # before the fixes, eleven documents each ran to the 30 s limit
def test_answers_that_cost_a_grader_quadratic_time_are_graded_within_the_limit(
        graded: Api) -> None:
    limit = stretched(1.0)
    answers, slowest = _upload_all(graded)
    refused = {n: a for n, a in answers.items() if a[0] != 202}
    assert not refused, refused
    broken = {}
    for name, (_, text) in answers.items():
        final = until_final(graded, json.loads(text)["id"], seconds=len(BOMBS) * DEADLINE + 60)
        items = {i["id"]: i for i in final["items"]}  # type: ignore[attr-defined]
        right = BOMBS[name][2]
        if (final["status"] in ("queued", "grading", "grader_error") or not items
                or "per-document limit" in str(final.get("error"))
                or any(i["status"] == "grader_error" for i in items.values())
                or (right and items[right]["points"] != items[right]["max_points"])):
            broken[name] = (final["status"], final.get("error"),
                            {k: (i["status"], i["points"]) for k, i in items.items()})
    assert not broken, broken
    assert slowest < limit, (slowest, limit)
