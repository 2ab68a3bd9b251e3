"""Nesting, number and disguise bombs in every document format (JSON, notebooks, Markdown with
front matter, PDFs wrapped in other names and padding): each upload is taken or refused with a
4xx (or a 503 saying when to come back), never a 500, and /healthz answers within a second
while they are read."""

from __future__ import annotations

import json
import threading
import time

from app.auth.service import create_token
from app.db.session import unit_of_work
from tests.app.pdfs import text_pdf
from tests.attacks.conftest import UPLOAD, Served
from tests.support.pace import stretched

DEPTH = 200_000
PDF = text_pdf(["B1: 64"] * 150)  # more pages than the reader reads

BOMBS: dict[str, tuple[str, bytes, str]] = {
    "answers nested 200,000 deep": (
        "a.json", b'{"answers": {"b1.d_head": ' + b"[" * DEPTH + b"]" * DEPTH + b"}}",
        "application/json"),
    "notebook metadata nested 200,000 deep": (
        "a.ipynb", b'{"cells": [], "nbformat": 4, "metadata": {"x": ' + b"{\"a\":" * DEPTH
        + b"1" + b"}" * DEPTH + b"}}", "application/x-ipynb+json"),
    "a notebook disguised as text, its key escaped": (
        "a.txt", b'{"\\u0063ells": [' + b"[" * DEPTH + b"]" * DEPTH + b'], "nbformat": 4}',
        "text/plain"),
    "a 100,000-digit integer": (
        "a.json", b'{"answers": {"b1.d_head": 1' + b"0" * 100_000 + b"}}", "application/json"),
    "an exponent of a billion": (
        "a.json", b'{"answers": {"b1.d_head": 1e999999999}}', "application/json"),
    "a notebook of 100,000 empty cells": (
        "a.ipynb", json.dumps({"cells": [{"cell_type": "markdown", "source": "", "metadata": {}}]
                              * 100_000, "nbformat": 4, "metadata": {}}).encode(),
        "application/json"),
    "YAML front matter of aliases": (
        "a.md", b"---\n" + b"".join(b"a%d: &a%d [*a%d, *a%d]\n" % (n + 1, n + 1, n, n)
                                     for n in range(40)) + b"---\nB1: 64\n", "text/markdown"),
    "quotes nested 100,000 deep in Markdown": ("a.md", b"> " * 100_000 + b"B1: 64", "text/plain"),
    "a PDF after a byte-order mark and 4 KiB of blanks, as text": (
        "a.txt", b"\xef\xbb\xbf" + b" \n\t" * 1400 + PDF, "text/plain"),
    "a PDF after 8 KiB of newlines, as Markdown": ("a.md", b"\n" * 8192 + PDF, "text/markdown"),
    "a PDF of 150 pages": ("a.pdf", PDF, "application/pdf"),
    "a PDF named .ipynb": ("a.ipynb", PDF, "application/json"),
}


def upload_at_once(target: Served, bombs: dict[str, tuple[str, bytes, str]],
                   prefix: str) -> tuple[dict[str, tuple[int, str]], float]:
    """Each bomb uploaded by its own new student (`prefix` and a number: one each, so all are
    read at once), all at once, while /healthz is asked every 0.1 s across the socket: each
    bomb's status and first 300 characters, and the slowest /healthz in seconds. Every bomb
    must be answered 202 or a clear refusal (413, 422, 503)."""
    students = [f"{prefix}{n}" for n in range(len(bombs))]
    with unit_of_work(target.sessions) as session:
        tokens = [create_token(session, s, "student").token for s in students]
    answers: dict[str, tuple[int, str]] = {}

    def bomb(name: str, token: str) -> None:
        answer = target.client.post(UPLOAD, files={"file": bombs[name]},
                                    headers={"Authorization": f"Bearer {token}"})
        answers[name] = (answer.status_code, answer.text[:300])

    threads = [threading.Thread(target=bomb, args=(name, token))
               for name, token in zip(bombs, tokens, strict=True)]
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
    wrong = {n: a for n, a in answers.items() if a[0] not in (202, 413, 422, 503)}
    assert not wrong, wrong
    return answers, slowest


def test_bombs_are_answered_and_healthz_stays_under_a_second(served: Served) -> None:
    limit = stretched(1.0)
    answers, slowest = upload_at_once(served, BOMBS, "bomber")
    assert slowest < limit, (slowest, limit)
    print({n: a[0] for n, a in answers.items()}, f"slowest /healthz {slowest:.3f} s")
