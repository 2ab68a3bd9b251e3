"""`gradeformer submit|import`: store submissions and grade them (offline `grade`: cli/grade.py).

What the command needs only once its grading processes are starting (storing the uploads,
the progress bar and the table: rich, the submissions service and starlette's upload types,
about 50 ms of imports) is imported then, not with this module: until the processes start,
everything the command does is on the way to its first result (docs/benchmarks.md, issue #32's
seventh sitting)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from app.assignments.service import current_rubric
from app.cli.context import (
    collector_paused,
    console,
    database,
    domain_errors,
    errors,
    fail,
    safe,
    settings,
)
from app.cli.grade import HANDOUT_HELP, outcome_json, say_doubt
from app.db.session import unit_of_work
from app.grading.processes import ProcessPools
from app.grading.worker import WorkerOutcome, warm

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from app.grading.jobs import GradingJob

Row = tuple[Path, int | None, WorkerOutcome | None, str | None]

STUDENT_HOW = "pass --student ID, or name the file after the student (alice.txt for alice)"


def _start_early(pools: ProcessPools, kinds: list[str]) -> threading.Thread:
    """Start the grading processes (and the fork server they come from, its preloads for
    `kinds` imported) on a thread, while this one stores the uploads: on a machine with a
    core to spare their start-up no longer comes after storing. Each process's call starts
    what the kinds keep for its life (a code rubric's sandbox: app.grading.worker.warm)
    instead of on its first document. The pool is made here, so that everything it imports
    is imported by this thread (two threads importing modules that import each other can see
    them half made); the other only submits. Join it before closing `pools`."""
    pool = pools.get()

    def start() -> None:
        for _ in range(pools.workers):  # one call each: a process per call while none is idle
            pool.submit(warm, kinds)

    thread = threading.Thread(target=start, name="grading-processes", daemon=True)
    thread.start()
    return thread


def _store(sessions: sessionmaker[Session], slug: str, files: list[Path],
           students: list[str | None], handout: str | None, limit: int,
           ) -> tuple[list[Row], list[GradingJob]]:
    """Store every readable file as a submission (one transaction): a row per file, and the
    stored ones' grading jobs."""
    with collector_paused():  # imported now, beside the grading processes' start (above)
        from app.cli.offline import UnreadableFile, content_type, read_within
        from app.errors import DomainError
        from app.submissions import service as submissions
        from app.submissions.filing import staff_student
        from app.submissions.upload import Upload

    rows: list[Row] = []
    jobs: list[GradingJob] = []
    with domain_errors(), unit_of_work(sessions) as session:
        for path, student in zip(files, students, strict=True):
            try:
                # the same rule as the API's and the web app's staff uploads
                named = staff_student(session, slug, student, path.name, STUDENT_HOW)
                upload = Upload(read_within(path, limit), path.name, content_type(path), named,
                                handout)
                accepted = submissions.accept(session, slug, upload, None, limit)
            except UnreadableFile as exc:  # this file's row; the others are still stored
                rows.append((path, None, None, exc.reason))
                continue
            except DomainError as exc:
                if exc.status == 404:
                    raise
                rows.append((path, None, None, exc.detail))
                continue
            jobs.append(accepted.job)
            rows.append((path, accepted.submission.id, None, None))
    return rows, jobs


@contextmanager
def _store_and_grade(
    slug: str, files: list[Path], students: list[str | None], workers: int,
    handout: str | None = None,
) -> Iterator[list[Row]]:
    """Store every readable file, then grade them all in parallel. The caller reports the
    rows while the grading processes exit (they are let go once every result is in, and
    waited for when the caller is done)."""
    cfg = settings()
    with database() as sessions:
        with domain_errors(), unit_of_work(sessions) as session:
            # The kinds its processes grade: each warms them before its first document (the
            # fork server, started with the command, preloaded app.grading.preload's COMMAND_KINDS).
            rubric = current_rubric(session, slug).loaded.rubric
            kinds = sorted({item.grader for item in rubric.items()})
        pools = ProcessPools(workers, cfg.grading_options(), cfg.max_grading_attempts, kinds)
        starting = _start_early(pools, kinds)
        try:
            rows, jobs = _store(sessions, slug, files, students, handout, cfg.max_upload_bytes)
            with collector_paused():
                from rich.progress import Progress

                from app.grading.local import grade_jobs

            with Progress(console=errors, transient=True) as progress:
                task = progress.add_task("grading", total=len(jobs))
                outcomes = grade_jobs(sessions, jobs, pools, lambda n: progress.advance(task, n),
                                      finished=pools.release)
            by_id = {job.submission_id: o for job, o in zip(jobs, outcomes, strict=True)}
            yield [(p, i, by_id.get(i) if i is not None else None, e) for p, i, _, e in rows]
        finally:
            starting.join()
            pools.close()


def submit(
    file: Annotated[Path, typer.Argument()],
    assignment: Annotated[str, typer.Option(help="Assignment slug")],
    student: Annotated[str | None, typer.Option(
        help="File it under this student (default: the file's name, alice.txt: alice)")] = None,
    handout: Annotated[str | None, typer.Option(help=HANDOUT_HELP)] = None,
) -> None:
    """Store a submission in the database and grade it now."""
    with _store_and_grade(assignment, [file], [student], 1, handout) as graded:
        [(path, sid, outcome, error)] = graded
        if sid is None:
            raise fail(f"{path}: {error}", 2)
        status = "grader_error" if outcome is None else outcome.status
        total = "" if outcome is None else f", {outcome_json(assignment, outcome)['total']} points"
        console.print(f"submission {sid}: {status}{total}")
        if outcome is not None:
            say_doubt(outcome)


def import_folder(
    folder: Annotated[Path, typer.Argument(file_okay=False, exists=True)],
    assignment: Annotated[str, typer.Option(help="Assignment slug")],
    workers: Annotated[int | None, typer.Option(help="Grading processes")] = None,
    handout: Annotated[
        str | None, typer.Option(help="The handout edition every file answers")
    ] = None,
) -> None:
    """Every file of FOLDER becomes a submission; the student id is the file name's stem.

    With a roster loaded, a file named after no student on it is rejected, and so is a symbolic
    link: only what was handed in is read."""
    entries = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    # A link in a hand-in folder (a student's repository clones one as git stores it) points
    # wherever its author chose: /etc/passwd, the grader's keys. Never read, never stored.
    links = [p for p in entries if p.is_symlink()]
    files = [p for p in entries if not p.is_symlink()]
    if not entries:
        raise fail(f"{folder} has no files")
    with _store_and_grade(assignment, files, [None] * len(files),
                          workers or settings().workers, handout) as rows:
        with collector_paused():
            from rich.table import Table

        table = Table("file", "submission", "status", "total")
        rejected = len(links)
        for path in links:
            table.add_row(safe(path.name), "-", "rejected", "a symbolic link: not read")
        for path, sid, outcome, error in rows:
            if sid is None:
                rejected += 1
                table.add_row(safe(path.name), "-", "rejected", safe(error or ""))
            else:
                status = "grader_error" if outcome is None else outcome.status
                total = "" if outcome is None else str(outcome_json(assignment, outcome)["total"])
                table.add_row(safe(path.name), str(sid), status, total)
        console.print(table)
        console.print(f"imported {len(entries) - rejected} of {len(entries)} files")
