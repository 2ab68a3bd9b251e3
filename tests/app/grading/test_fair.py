"""One student's burst of uploads does not starve another: jobs take turns by student, in the
grading queue and for the document readers."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from concurrent.futures import Future
from typing import Literal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.grading.local import LocalExecutor
from app.grading.retry import FairQueue
from app.submissions.decoding import DecodeLimits, DocumentReader
from tests.app.fault_helpers import grade_steadily
from tests.app.grading.test_local_faults import Db, db, store  # noqa: F401 - the fixture
from tests.app.pdfs import text_pdf

MIB = 1024 * 1024


# Generating 60 letters or queueing them is not slow: on a host loaded by other work it can
# look so (2 inputs in 2.4 s was seen under two busy loops), and that says nothing about the
# queue's order.
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=60))
def test_owners_take_turns_and_each_keeps_its_order(pushes: list[str]) -> None:
    queue: FairQueue[tuple[str, int]] = FairQueue()
    for n, owner in enumerate(pushes):
        queue.push(owner, (owner, n))
    popped = [queue.pop(lambda _: 0)[1] for _ in range(len(queue))]  # none running
    assert sorted(popped, key=lambda p: p[1]) == [(o, n) for n, o in enumerate(pushes)]
    for owner in set(pushes):
        own = [n for o, n in popped if o == owner]
        assert own == sorted(own)  # first in, first out within an owner
    # round k hands out every owner's k-th job before anyone's (k+1)-th
    rounds = [sum(1 for o2, n2 in popped[:i] if o2 == o) for i, (o, _) in enumerate(popped)]
    assert rounds == sorted(rounds)


def test_floods_take_turns_and_another_students_job_waits_for_the_jobs_already_started(
        db: Db) -> None:  # noqa: F811
    jobs = store(db, 43)
    flood = [dataclasses.replace(j, student="flood") for j in jobs[:30]]
    second = [dataclasses.replace(j, student="second") for j in jobs[30:42]]
    other = dataclasses.replace(jobs[42], student="other")
    names = [f"flood{i}" for i in range(30)] + [f"second{i}" for i in range(12)] + ["other"]
    executor = LocalExecutor(db.sessions, 1, db.settings.grading_options(), 3,
                             grade=grade_steadily)
    finished: list[str] = []
    lock = threading.Lock()

    def note(name: str) -> object:
        def done(_future: Future[None]) -> None:
            with lock:
                finished.append(name)
        return done

    try:
        futures = [executor.enqueue(j, track=True) for j in [*flood, *second, other]]
        for name, future in zip(names, futures, strict=True):
            future.add_done_callback(note(name))  # type: ignore[arg-type]
        for future in futures:
            future.result(timeout=300)
    finally:
        executor.shutdown()
    position = {name: n for n, name in enumerate(finished)}
    # one worker, no job waiting inside the pool: the other student's job is graded after the
    # flood's one that had started and at most the second flood's first, not after forty-two
    assert position["other"] <= 2, finished
    # the two floods take turns: the second's k-th before the first's (k+2)-th (one of the
    # first's had started before the second's came), past ten jobs as well
    assert all(position[f"second{k}"] < position[f"flood{k + 2}"] for k in range(12)), finished


def test_one_student_reads_one_document_at_a_time() -> None:
    reader = DocumentReader(DecodeLimits(seconds=5, max_pages=10, memory_bytes=256 * MIB), 2)
    pdf = text_pdf(["B1: 64"] * 2)
    started: list[str] = []  # the order reads reach a reader (a slot), by file name
    decode = reader._decode

    def recording(kind: Literal["light", "heavy"], raw: bytes, filename: str | None,
                  content_type: str | None) -> tuple[str, str, str | None]:
        started.append((filename or "").removesuffix(".pdf"))
        return decode(kind, raw, filename, content_type)

    reader._decode = recording  # type: ignore[method-assign]

    async def read(owner: str, name: str) -> None:
        await reader.read_document(pdf, f"{name}.pdf", None, owner=owner)

    async def scenario() -> None:
        flood = [asyncio.create_task(read("flood", f"flood{i}")) for i in range(6)]
        await asyncio.sleep(0)  # the flood is queued first
        await read("other", "other")
        await asyncio.gather(*flood)

    try:
        asyncio.run(scenario())
    finally:
        reader.close()
    # two reading slots: the flood takes one at a time, the other student the second at once
    assert started.index("other") <= 1, started
