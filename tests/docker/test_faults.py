"""Workers across hosts, on containers: 200 uploads (numeric, written and code answers) through
the containerised API, graded by two worker containers while one is killed mid-run, Redis is
restarted (losing its queue), a worker is cut off the network for longer than its lease and the
API is restarted. Every accepted upload is graded exactly once (one grading run, in PostgreSQL),
none is lost, none is left ungraded; each fault strikes while work is in flight (checked, not
assumed): the killed and the cut-off worker each held a grading that another claim then finished,
Redis and the API went down with uploads still waiting."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.docker.stack import Stack, docker, logs, upload
from tests.support.synthetic import submission

pytestmark = [pytest.mark.docker, pytest.mark.slow]

DEADLINE = 20  # a grading's hard limit; a claim lasts DEADLINE + min(60, DEADLINE) = 40 s
CLAIM = 2 * DEADLINE
UPLOADS = 200
# Graded, or graded with items a human confirms; never `pending` (a grader kind missing),
# `grader_error` or `error`: every answer of these uploads can be graded in the image.
GOOD = {"graded", "needs_review"}


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


def when_grading(stack: Stack, ids: list[int], busy: int = 1, timeout: float = 300) -> bool:
    """Wait until `busy` of `ids` are being graded (with one grading process per worker, 2
    means both workers hold one)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = stack.statuses()
        if sum(1 for i in ids if found.get(i) == "grading") >= busy:
            return True
        time.sleep(0.2)
    return False


def held(stack: Stack) -> dict[int, int]:
    """The submissions being graded now, with the attempts counted so far (a claim counts one)."""
    rows = stack.sql("SELECT id, attempts FROM submissions WHERE status = 'grading'")
    return {int(i): int(a) for i, a in rows}


def in_flight(stack: Stack, ids: list[int]) -> int:
    """How many of `ids` are not final yet (queued or being graded)."""
    found = stack.statuses()
    return sum(1 for i in ids if found.get(i) in ("queued", "grading"))


def fault(name: str, action: Callable[[], None], log: list[str]) -> None:
    began = time.monotonic()
    action()
    log.append(f"{name} ({time.monotonic() - began:.1f} s)")


def test_200_uploads_through_faults_are_graded_exactly_once(stack: Stack) -> None:
    uploads = Uploader(stack)
    log: list[str] = []
    worker1, worker2 = stack.container("worker", 1), stack.container("worker", 2)
    started = time.monotonic()

    # 1. A worker container killed while both workers grade, started again later: what it held
    # right after the kill is claimed again by a live worker.
    batch = uploads.batch(50)
    assert when_grading(stack, batch, busy=2), "the two workers never graded at once"
    fault("worker 1 killed", lambda: docker("kill", worker1), log)
    at_kill = held(stack)
    log.append(f"{len(at_kill)} being graded at the kill")
    time.sleep(3)
    docker("start", worker1)

    # 2. Redis restarted with uploads waiting in its queue (no persistence: lost with it); the
    # outbox (the sweeper) publishes them again.
    uploads.batch(50)
    assert when_grading(stack, uploads.accepted), "no grading in progress"
    waiting = in_flight(stack, uploads.accepted)
    assert waiting, "everything was graded before Redis restarted"
    fault(f"redis restarted with {waiting} in flight",
          lambda: docker("restart", "-t", "2", stack.container("redis")), log)

    # 3. Worker 2 cut off the network while it grades, for longer than its claim: another
    # worker claims what it held and grades it; worker 2's late result is dropped.
    uploads.batch(50)
    assert when_grading(stack, uploads.accepted, busy=2), "the two workers never graded at once"
    at_partition: dict[int, int] = {}

    def partition() -> None:
        docker("network", "disconnect", stack.network, worker2)
        at_partition.update(held(stack))
        time.sleep(CLAIM + 15)
        docker("network", "connect", stack.network, worker2)

    fault(f"worker 2 off the network for {CLAIM + 15} s", partition, log)
    log.append(f"{len(at_partition)} being graded at the cut")

    # 4. The API restarted with uploads in flight (its outbox); uploads resume when it is back.
    uploads.batch(25)
    waiting = in_flight(stack, uploads.accepted)
    assert waiting, "everything was graded before the API restarted"
    fault(f"api restarted with {waiting} in flight",
          lambda: docker("restart", "-t", "10", stack.container("api")), log)
    stack.wait_healthy()
    uploads.batch(UPLOADS - len(uploads.accepted))

    found = stack.wait_final(uploads.accepted, timeout=1200)
    elapsed = time.monotonic() - started
    ids = uploads.accepted
    runs = stack.runs_per_submission()
    attempts = {int(i): int(a) for i, a in stack.sql(
        f"SELECT id, attempts FROM submissions WHERE id IN ({','.join(map(str, ids))})")}
    statuses = {s: sum(1 for i in ids if found.get(i) == s) for s in {found.get(i) for i in ids}}
    code = dict(stack.sql(
        "SELECT i.status, count(*) FROM item_scores i JOIN grading_runs r ON r.id = i.run_id "
        "WHERE r.is_current AND i.grader = 'code' GROUP BY i.status"))
    not_run = int(stack.sql(
        "SELECT count(*) FROM item_scores WHERE feedback LIKE '%student code was not run%'"
    )[0][0])
    # Celery's INFO line for a task that stored its run ends in the run's status (a duplicate
    # message ends in 'done', 'held' or 'superseded').
    stored = re.compile(r" succeeded in [\d.]+s: '(?:graded|needs_review)'")
    tasks = {name: len(stored.findall(logs(container, tail=100_000)))
             for name, container in (("worker 1", worker1), ("worker 2", worker2))}
    print(f"\n{len(ids)} accepted ({uploads.refused} uploads refused while the API restarted), "
          f"faults: {'; '.join(log)}; final in {elapsed:.0f} s: {statuses}; claimed more than "
          f"once: {sum(1 for i in ids if attempts[i] > 1)}; runs per submission: "
          f"{sorted(set(runs.get(i, 0) for i in ids))}; code items by status: {code}; "
          f"runs stored per worker: {tasks}")
    assert len(ids) == UPLOADS and len(set(ids)) == UPLOADS
    lost = [i for i in ids if i not in found]
    assert not lost, lost
    ungraded = {i: found[i] for i in ids if found[i] not in GOOD}
    assert not ungraded, ungraded
    twice = {i: runs.get(i, 0) for i in ids if runs.get(i, 0) != 1}
    assert not twice, twice
    # Student code ran (in the workers' sandbox), never refused for missing layers.
    assert code.get("graded") and not not_run, (code, not_run)
    assert all(tasks.values()), tasks
    # The kill and the cut each interrupted a grading that a later claim finished.
    for name, before in (("the kill", at_kill), ("the cut", at_partition)):
        again = [i for i, n in before.items() if attempts.get(i, 0) > n]
        assert again, f"no grading held at {name} was claimed again: {before}"
