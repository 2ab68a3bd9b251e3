"""Claims and leases, the rules that make at-least-once delivery grade exactly once: a
duplicate message finds its submission graded or held; a redelivered one (same task id) takes
its claim back; a submission that killed too many attempts becomes grader_error."""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import sync_rubric_dir
from app.db.base import utcnow
from app.db.models import GradingRun, Submission
from app.db.session import unit_of_work
from app.grading.jobs import GradingJob, claim, release, renew, store_if_unfinished, take
from app.grading.worker import WorkerOutcome
from app.submissions.service import accept
from app.submissions.upload import Upload
from graders.rubric import BUNDLED_RUBRICS

OUTCOME = WorkerOutcome(status="graded", rubric_hash="h" * 64)


def _stored(sessions: sessionmaker[Session]) -> GradingJob:
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        raw = json.dumps({"answers": {"b1.d_head": "64"}}).encode()
        return accept(session, "transformer-basics", Upload(raw, "a.json", None), None, 1 << 20).job


def test_one_claim_at_a_time_and_a_redelivery_takes_its_own_back(
    sessions: sessionmaker[Session],
) -> None:
    job = _stored(sessions)
    with unit_of_work(sessions) as session:
        assert isinstance(claim(session, job.submission_id, "task-a", 60, 3), Submission)
    with unit_of_work(sessions) as session:  # a duplicate message: held by a live task
        assert claim(session, job.submission_id, "task-b", 60, 3) == "held"
    with unit_of_work(sessions) as session:  # task-a's message again, after its worker died
        again = claim(session, job.submission_id, "task-a", 60, 3)
        assert isinstance(again, Submission) and again.raw
    with unit_of_work(sessions) as session:  # only the holder's result is stored
        triple = (job.submission_id, job.rubric_version_id, OUTCOME)
        assert store_if_unfinished(session, [triple], holder="task-b") == 0
        assert store_if_unfinished(session, [triple], holder="task-a") == 1
    with unit_of_work(sessions) as session:
        assert claim(session, job.submission_id, "task-c", 60, 3) == "done"
        assert store_if_unfinished(session, [triple]) == 0  # graded: never a second run
        runs = session.scalar(select(func.count()).select_from(GradingRun))
        assert runs == 1


def test_an_expired_claim_is_taken_over_and_too_many_attempts_give_up(
    sessions: sessionmaker[Session],
) -> None:
    job = _stored(sessions)
    with unit_of_work(sessions) as session:
        assert isinstance(claim(session, job.submission_id, "task-a", 60, 3), Submission)
        session.execute(
            update(Submission)
            .where(Submission.id == job.submission_id)
            .values(lease_until=utcnow() - timedelta(seconds=1))
        )
    with unit_of_work(sessions) as session:  # task-a died with its worker: its lease ran out
        assert isinstance(claim(session, job.submission_id, "task-b", 60, 3), Submission)
        session.execute(
            update(Submission).where(Submission.id == job.submission_id).values(attempts=3)
        )
    with unit_of_work(sessions) as session:
        assert claim(session, job.submission_id, "task-b", 60, 3) == "gave up"
    with unit_of_work(sessions) as session:
        row = session.get(Submission, job.submission_id)
        assert row is not None and row.status == "grader_error"
        assert row.error is not None and "died 3 times" in row.error


def test_take_hands_out_only_expired_leases_and_release_frees_at_once(
    sessions: sessionmaker[Session],
) -> None:
    job = _stored(sessions)
    with unit_of_work(sessions) as session:
        renew(session, [job.submission_id], 60)
    with unit_of_work(sessions) as session:
        assert take(session, 60)[0] == []
        everything = take(session, 60, everything=True)[0]
        assert [j.submission_id for j in everything] == [job.submission_id]
        assert take(session, 60, exclude={job.submission_id}, everything=True)[0] == []
        release(session, [job.submission_id])
    with unit_of_work(sessions) as session:
        assert [j.submission_id for j in take(session, 60)[0]] == [job.submission_id]
        assert take(session, 60)[0] == []  # taken: leased to the caller now


def test_the_sweeper_frees_a_dead_holders_claim_for_the_task_it_publishes(
    sessions: sessionmaker[Session],
) -> None:
    """A task that died without its message coming back (it failed to store, cut off from the
    database, and was acknowledged) leaves its claim; once that runs out the sweeper takes the
    submission and publishes a new task, which must be able to claim it: before, the sweeper's
    fresh lease made the dead claim look held, for ever (found by tests/docker/test_faults.py)."""
    job = _stored(sessions)
    with unit_of_work(sessions) as session:
        assert isinstance(claim(session, job.submission_id, "task-dead", 60, 3), Submission)
        session.execute(
            update(Submission)
            .where(Submission.id == job.submission_id)
            .values(lease_until=utcnow() - timedelta(seconds=1))
        )
    with unit_of_work(sessions) as session:
        assert [j.submission_id for j in take(session, 60)[0]] == [job.submission_id]
    with unit_of_work(sessions) as session:  # the republished task
        assert isinstance(claim(session, job.submission_id, "task-new", 60, 3), Submission)
    with unit_of_work(sessions) as session:  # the cut-off holder comes back: nothing stored
        triple = (job.submission_id, job.rubric_version_id, OUTCOME)
        assert store_if_unfinished(session, [triple], holder="task-dead") == 0
        assert store_if_unfinished(session, [triple], holder="task-new") == 1
        runs = session.scalar(select(func.count()).select_from(GradingRun))
        assert runs == 1
