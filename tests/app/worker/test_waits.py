"""`?wait=true` on the scale path: every waiting caller is answered once its submission is
final, by one polling thread whatever their number (a pool of eight threads let two students'
slow waits hold every thread another student's answer needed)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import wait

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import Assignment, Submission
from app.db.session import unit_of_work
from app.worker.waits import FinalWaits


def _submissions(sessions: sessionmaker[Session], count: int) -> list[int]:
    with unit_of_work(sessions) as session:
        assignment = Assignment(slug="waits", title="Waits")
        session.add(assignment)
        session.flush()
        rows = [Submission(assignment_id=assignment.id, student=f"s{n}", size=1,
                           sha256="0" * 64, raw=b"x") for n in range(count)]
        session.add_all(rows)
        session.flush()
        return [row.id for row in rows]


def _set(sessions: sessionmaker[Session], ids: list[int], status: str) -> None:
    with unit_of_work(sessions) as session:
        session.execute(update(Submission).where(Submission.id.in_(ids)).values(status=status))


def test_many_waits_share_one_thread_and_each_ends_when_its_submission_is_final(
    sessions: sessionmaker[Session]
) -> None:
    ids = _submissions(sessions, 40)
    waits = FinalWaits(sessions, poll=0.02, limit=60)
    threads_before = threading.active_count()
    # Sixty slow waits (each of thirty submissions waited for twice) hold no thread each.
    slow = [waits.until_final(sid) for sid in ids[:30] for _ in range(2)]
    quick = waits.until_final(ids[35])
    assert threading.active_count() == threads_before + 1
    _set(sessions, [ids[35]], "graded")
    assert wait([quick], timeout=10).done and quick.result() is None
    assert not any(f.done() for f in slow)
    _set(sessions, ids[:30], "needs_review")
    assert not wait(slow, timeout=10).not_done
    # A submission deleted meanwhile ends its wait too; a queued one waits on.
    gone, queued = waits.until_final(10**9), waits.until_final(ids[39])
    assert wait([gone], timeout=10).done
    time.sleep(0.1)
    assert not queued.done()
    waits.close()
    assert queued.cancelled() and waits.until_final(ids[39]).cancelled()


def test_a_wait_ends_at_its_limit(sessions: sessionmaker[Session]) -> None:
    ids = _submissions(sessions, 1)
    waits = FinalWaits(sessions, poll=0.02, limit=0.3)
    started = time.monotonic()
    future = waits.until_final(ids[0])
    assert wait([future], timeout=10).done and future.result() is None
    assert time.monotonic() - started >= 0.3
    waits.close()
