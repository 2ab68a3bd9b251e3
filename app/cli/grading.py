"""`gradeformer grade|submit|import`: grade a file offline, or store and grade submissions."""

from __future__ import annotations

import json
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import Progress
from rich.table import Table

from app.cli.context import console, database, domain_errors, errors, fail, safe, settings
from app.cli.offline import content_type, load_or_fail, read_upload, rubric_file
from app.cli.show import print_shown, shown_json
from app.db.session import unit_of_work
from app.errors import DomainError
from app.grading.batch import grade_jobs
from app.grading.jobs import GradingJob
from app.grading.retry import ProcessPools
from app.grading.worker import WorkerOutcome, grade_document
from app.points import as_number
from app.sanitize import clean
from app.submissions import service as submissions
from app.submissions.filing import staff_student
from app.submissions.upload import Upload
from graders.context import GradingResources
from graders.documents import InvalidDocument, ParsedSubmission, read_submission, sniff_document
from graders.documents.edition import EditionError, check_declared, clean_edition
from graders.documents.strength import doubt_in
from graders.results import ItemResult
from graders.rubric import Rubric


class OutputFormat(StrEnum):
    TABLE = "table"
    JSON = "json"


STUDENT_HOW = "pass --student ID, or name the file after the student (alice.txt for alice)"
HANDOUT_HELP = ("The handout edition this submission answers (one of the rubric's `handouts`): "
                "a question it does not ask is not counted")


def outcome_json(
    slug: str, outcome: WorkerOutcome, handout: str | None = None
) -> dict[str, Any]:
    items: list[ItemResult] = list(outcome.items)
    total = sum((r.points for r in items if r.counts_toward_total), start=Decimal(0))
    # The declared edition only when one is: an undeclared grade prints what it always did.
    edition = {} if handout is None else {"handout": handout}
    return {
        "assignment": slug,
        **edition,
        "total": as_number(total),
        "max_points": as_number(sum((r.max_points for r in items), start=Decimal(0))),
        "items": [
            {
                "id": r.item_id,
                "question": r.question,
                "points": as_number(r.points),
                "max_points": as_number(r.max_points),
                "status": r.status.value,
                "feedback": clean(r.feedback),
                "student_feedback": None if r.student_feedback is None else clean(
                    r.student_feedback
                ),
                "confidence": r.confidence,
            }
            for r in items
        ],
    }


def _table(slug: str, outcome: WorkerOutcome, handout: str | None = None) -> Table:
    data = outcome_json(slug, outcome)
    edition = "" if handout is None else f", handout {safe(handout)}"
    table = Table(
        "item",
        "points",
        "status",
        "conf.",
        "feedback",
        title=f"{slug}{edition}: {data['total']} / {data['max_points']} ({outcome.status})",
    )
    for item in data["items"]:
        table.add_row(
            safe(item["id"]),
            f"{item['points']}/{item['max_points']}",
            item["status"],
            f"{item['confidence']:.2f}",
            safe(item["feedback"], 20_000),
        )
    return table


def _located(
    raw: bytes, file: Path, rubric: Rubric, handout: str | None
) -> ParsedSubmission | None:
    """What the grader read for each question (the same reading grading did), for --show."""
    try:
        return read_submission(raw, file.name, content_type(file), rubric, handout)
    except InvalidDocument:
        return None


def grade(
    file: Annotated[Path, typer.Argument(help="The submission (JSON, text, .py, .ipynb, PDF)")],
    assignment: Annotated[
        str | None, typer.Option(help="Assignment (rubric) slug; default: the --rubric's slug")
    ] = None,
    format: Annotated[OutputFormat, typer.Option(help="table or json")] = OutputFormat.TABLE,
    rubric: Annotated[
        Path | None, typer.Option(help="A rubric file instead of the rubrics folder's")
    ] = None,
    show: Annotated[
        bool, typer.Option(help="Per question the text located and where; per item the evidence")
    ] = False,
    handout: Annotated[str | None, typer.Option(help=HANDOUT_HELP)] = None,
) -> None:
    """Grade one file offline: no database, no server."""
    if assignment is None and rubric is None:
        raise fail("name the rubric: --rubric FILE or --assignment SLUG")
    loaded, text = load_or_fail(rubric_file(assignment or "", rubric))
    slug = assignment or loaded.rubric.slug
    raw = read_upload(file)
    try:
        _, written = sniff_document(raw, file.name, content_type(file))
    except InvalidDocument as exc:
        raise fail(f"{file}: {exc}", 2) from None
    try:
        given = None if handout is None else clean_edition(handout, "--handout")
        edition = check_declared(loaded.rubric.handouts, given, written)
    except (ValueError, EditionError) as exc:
        raise fail(f"{file}: {exc}", 2) from None
    resources = GradingResources(options=settings().grading_options())
    try:
        outcome = grade_document(text, raw, file.name, content_type(file), resources,
                                 handout=edition)
    finally:
        resources.close()
    if outcome.status == "error" or (outcome.error and not outcome.items):
        raise fail(f"{file}: {outcome.error}", 2)
    parsed = _located(raw, file, loaded.rubric, edition) if show else None
    if format is OutputFormat.JSON:
        data = outcome_json(slug, outcome, edition)
        if show:
            data.update(shown_json(parsed, raw, outcome.items))
        print(json.dumps(data, ensure_ascii=False))
    elif show:
        edition_note = "" if edition is None else f", handout {clean(edition, 40)}"
        title = f"{clean(file.name, 200)} — {slug}{edition_note}: " \
            f"{outcome_json(slug, outcome)['total']} / " \
            f"{as_number(loaded.rubric.max_points)} ({outcome.status})"
        print_shown(console, title, loaded.rubric, parsed, raw, outcome.items)
        _say_doubt(outcome)
    else:
        console.print(_table(slug, outcome, edition))
        _say_doubt(outcome)


def _say_doubt(outcome: WorkerOutcome) -> None:
    """A document that may not answer this assignment is said so, not just scored."""
    doubt = doubt_in(r.feedback for r in outcome.items)
    if doubt:
        console.print(f"needs review: {safe(doubt)}")


def _store_and_grade(
    slug: str, files: list[Path], students: list[str | None], workers: int,
    handout: str | None = None,
) -> list[tuple[Path, int | None, WorkerOutcome | None, str | None]]:
    """Store every readable file, then grade them all in parallel."""
    rows: list[tuple[Path, int | None, WorkerOutcome | None, str | None]] = []
    jobs: list[GradingJob] = []
    limit = settings().max_upload_bytes
    with database() as sessions:
        with domain_errors(), unit_of_work(sessions) as session:
            for path, student in zip(files, students, strict=True):
                try:
                    # the same rule as the API's and the web app's staff uploads
                    named = staff_student(session, slug, student, path.name, STUDENT_HOW)
                    upload = Upload(read_upload(path), path.name, content_type(path), named,
                                    handout)
                    accepted = submissions.accept(session, slug, upload, None, limit)
                except DomainError as exc:
                    if exc.status == 404:
                        raise
                    rows.append((path, None, None, exc.detail))
                    continue
                jobs.append(accepted.job)
                rows.append((path, accepted.submission.id, None, None))
        cfg = settings()
        pools = ProcessPools(workers, cfg.grading_options(), cfg.max_grading_attempts)
        try:
            with Progress(console=errors, transient=True) as progress:
                task = progress.add_task("grading", total=len(jobs))
                outcomes = grade_jobs(sessions, jobs, pools, lambda n: progress.advance(task, n))
        finally:
            pools.close()
    by_id = {job.submission_id: o for job, o in zip(jobs, outcomes, strict=True)}
    return [(p, i, by_id.get(i) if i is not None else None, e) for p, i, _, e in rows]


def submit(
    file: Annotated[Path, typer.Argument()],
    assignment: Annotated[str, typer.Option(help="Assignment slug")],
    student: Annotated[str | None, typer.Option(
        help="File it under this student (default: the file's name, alice.txt: alice)")] = None,
    handout: Annotated[str | None, typer.Option(help=HANDOUT_HELP)] = None,
) -> None:
    """Store a submission in the database and grade it now."""
    [(path, sid, outcome, error)] = _store_and_grade(assignment, [file], [student], 1, handout)
    if sid is None:
        raise fail(f"{path}: {error}", 2)
    status = "grader_error" if outcome is None else outcome.status
    total = "" if outcome is None else f", {outcome_json(assignment, outcome)['total']} points"
    console.print(f"submission {sid}: {status}{total}")
    if outcome is not None:
        _say_doubt(outcome)


def import_folder(
    folder: Annotated[Path, typer.Argument(file_okay=False, exists=True)],
    assignment: Annotated[str, typer.Option(help="Assignment slug")],
    workers: Annotated[int | None, typer.Option(help="Grading processes")] = None,
    handout: Annotated[
        str | None, typer.Option(help="The handout edition every file answers")
    ] = None,
) -> None:
    """Every file of FOLDER becomes a submission; the student id is the file name's stem (with
    a roster loaded, a file named after no student on it is rejected)."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise fail(f"{folder} has no files")
    rows = _store_and_grade(
        assignment, files, [None] * len(files), workers or settings().workers, handout
    )
    table = Table("file", "submission", "status", "total")
    rejected = 0
    for path, sid, outcome, error in rows:
        if sid is None:
            rejected += 1
            table.add_row(safe(path.name), "-", "rejected", safe(error or ""))
        else:
            status = "grader_error" if outcome is None else outcome.status
            total = "" if outcome is None else str(outcome_json(assignment, outcome)["total"])
            table.add_row(safe(path.name), str(sid), status, total)
    console.print(table)
    console.print(f"imported {len(rows) - rejected} of {len(rows)} files")
