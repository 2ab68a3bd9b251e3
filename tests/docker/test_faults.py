"""Workers across hosts, on containers: 200 uploads (numeric, written and code answers) through
the containerised API, graded by two worker containers while one is killed mid-run, Redis is
restarted (losing its queue), a worker is cut off the network for longer than its lease and the
API is restarted. Every accepted upload is graded exactly once (one grading run, in PostgreSQL),
none is lost."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.docker.stack import Stack, docker, upload
from tests.support.synthetic import submission

pytestmark = [pytest.mark.docker, pytest.mark.slow]

DEADLINE = 20  # a grading's hard limit; a claim lasts DEADLINE + min(60, DEADLINE) = 40 s
CLAIM = 2 * DEADLINE
UPLOADS = 200
GOOD = {"graded", "needs_review", "pending"}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    made = Stack(tmp_path_factory.mktemp("faults"), "gffaults", {
        "GRADEFORMER_GRADING_DEADLINE_SECONDS": str(DEADLINE),
        "GRADEFORMER_GRADING_LEASE_SECONDS": "5",
        "GRADEFORMER_SWEEP_INTERVAL_SECONDS": "1",
        "GRADEFORMER_PUBLISH_TIMEOUT_SECONDS": "1",
        # Every program runs in the sandbox (nothing reused from an earlier submission), so a
        # grading lasts long enough to be caught in progress.
        "GRADEFORMER_RESULT_CACHE": "false",
    })
    try:
        made.up(workers=2)
        yield made
    finally:
        made.down()


class Uploader:
    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.token = stack.token("s-faults")
        self.accepted: list[int] = []
        self.next = 0
        self.refused = 0

    def batch(self, count: int) -> list[int]:
        """Upload until `count` more are accepted (an upload the API did not take is tried
        again: only accepted ones are the service's promise)."""
        got: list[int] = []
        with httpx.Client(base_url=self.stack.base) as client:
            while len(got) < count:
                raw, _, content_type = submission(self.next)
                accepted = upload(client, self.token, raw, content_type)
                if accepted is None:
                    self.refused += 1
                    time.sleep(0.5)
                    continue
                self.next += 1
                got.append(accepted)
        self.accepted += got
        return got


def when_grading(stack: Stack, ids: list[int], timeout: float = 120) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = stack.statuses()
        grading = [i for i in ids if found.get(i) == "grading"]
        if grading:
            return grading
        time.sleep(0.2)
    return []


def fault(name: str, action: Callable[[], None], log: list[str]) -> None:
    began = time.monotonic()
    action()
    log.append(f"{name} ({time.monotonic() - began:.1f} s)")


def test_200_uploads_through_faults_are_graded_exactly_once(stack: Stack) -> None:
    uploads = Uploader(stack)
    log: list[str] = []
    worker1, worker2 = stack.container("worker", 1), stack.container("worker", 2)
    started = time.monotonic()

    # 1. A worker container killed while gradings are in progress, started again later.
    batch = uploads.batch(50)
    assert when_grading(stack, batch), "no grading started"
    fault("worker 1 killed", lambda: docker("kill", worker1), log)
    time.sleep(3)
    docker("start", worker1)

    # 2. Redis restarted: its queue (no persistence) is lost; the outbox publishes again.
    batch = uploads.batch(50)
    when_grading(stack, batch)
    fault("redis restarted", lambda: docker("restart", "-t", "2", stack.container("redis")), log)

    # 3. Worker 2 cut off the network for longer than its claim: another worker takes over.
    batch = uploads.batch(50)
    when_grading(stack, batch)

    def partition() -> None:
        docker("network", "disconnect", stack.network, worker2)
        time.sleep(CLAIM + 15)
        docker("network", "connect", stack.network, worker2)

    fault(f"worker 2 off the network for {CLAIM + 15} s", partition, log)

    # 4. The API restarted with submissions in its outbox; uploads resume when it is back.
    uploads.batch(25)
    fault("api restarted", lambda: docker("restart", "-t", "10", stack.container("api")), log)
    stack.wait_healthy()
    uploads.batch(UPLOADS - len(uploads.accepted))

    found = stack.wait_final(uploads.accepted, timeout=1200)
    elapsed = time.monotonic() - started
    ids = uploads.accepted
    runs = stack.runs_per_submission()
    retried = int(stack.sql(
        f"SELECT count(*) FROM submissions WHERE attempts > 1 AND id IN "
        f"({','.join(map(str, ids))})")[0][0])
    statuses = {s: sum(1 for i in ids if found.get(i) == s) for s in {found.get(i) for i in ids}}
    print(f"\n{len(ids)} accepted ({uploads.refused} uploads refused while the API restarted), "
          f"faults: {'; '.join(log)}; final in {elapsed:.0f} s: {statuses}; retried "
          f"{retried}; runs per submission: {sorted(set(runs.get(i, 0) for i in ids))}")
    assert len(ids) == UPLOADS and len(set(ids)) == UPLOADS
    lost = [i for i in ids if i not in found]
    assert not lost, lost
    assert {found[i] for i in ids} <= GOOD, statuses
    twice = {i: runs.get(i, 0) for i in ids if runs.get(i, 0) != 1}
    assert not twice, twice
    assert retried, "no grading was interrupted by the faults"
