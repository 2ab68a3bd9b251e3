"""The Celery path's API on a real `gradeformer serve` whose broker does not answer (Redis down,
or every publish refused): uploads are stored and acknowledged from the outbox, /healthz
answers, nothing piles up in the server; and an upload that asked to wait for its grade is
never answered as graded (201) when it was only stored."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.attacks.conftest import UPLOAD, Running, started
from tests.support.pace import stretched
from tests.support.ports import free_port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Running]:
    with started(tmp_path_factory, sqlite_template, "celery-down", {
            "GRADEFORMER_EXECUTOR": "celery",
            # a loopback port nothing listens on: every publish is refused at once
            "GRADEFORMER_CELERY_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0"}) as running:
        yield running


def _upload(server: Running, who: str, body: bytes, wait: bool) -> httpx.Response:
    return httpx.post(f"{server.base}{UPLOAD}{'?wait=true' if wait else ''}", content=body,
                      headers={"Authorization": f"Bearer {server.tokens[who]}",
                               "Content-Type": "text/plain"}, timeout=60)


def test_an_upload_that_waits_is_not_answered_as_graded_when_it_was_only_stored(
        server: Running) -> None:
    answer = _upload(server, "alice", b"B1: 64\n", wait=True)
    assert answer.json()["status"] == "queued", answer.text
    assert answer.status_code == 202, answer.text


def test_uploads_are_stored_and_the_server_answers_while_the_broker_is_down(
        server: Running) -> None:
    assert server.process is not None
    descriptors = f"/proc/{server.process.pid}/fd"
    _upload(server, "bob", b"B1: 1\n", wait=False)  # the outbox and its threads, started once
    before = len(os.listdir(descriptors))
    for n, body in enumerate([b"B1: 64\n", b"B1: 64\n" * 20_000] * 2):
        answer = _upload(server, "bob", body + b"%d" % n, wait=False)
        assert answer.status_code == 202, answer.text
    began = time.monotonic()
    assert httpx.get(f"{server.base}/healthz", timeout=10).status_code == 200
    assert time.monotonic() - began < stretched(1.0)
    assert len(os.listdir(descriptors)) <= before + 2
