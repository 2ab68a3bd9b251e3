"""`gradeformer grade FILE`: grade one file offline. No database, no server: this module and what
it imports leave out the web stack, SQLAlchemy and typer (tests/app/cli/test_lazy.py). The typer
command is app/cli/grade_command.py; the entry point runs `grade_file` itself when the command
line is one it reads exactly as typer would (app/cli/fast.py)."""

from __future__ import annotations

import json
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli import context
from app.cli.context import fail, safe, settings
from app.cli.offline import content_type, load_or_fail, read_upload, rubric_file
from app.cli.show import print_shown, shown_json
from app.grading.worker import WorkerOutcome, grade_document, remember_rubric
from app.points import as_number
from app.sanitize import clean
from graders.context import GradingResources
from graders.documents import InvalidDocument, ParsedSubmission, read_submission, sniff_document
from graders.documents.edition import EditionError, check_declared, clean_edition
from graders.documents.strength import doubt_in
from graders.results import ItemResult
from graders.rubric import Rubric

if TYPE_CHECKING:  # rich is imported by the output that uses it, not by `--format json`
    from rich.table import Table


class OutputFormat(StrEnum):
    TABLE = "table"
    JSON = "json"


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


def outcome_table(slug: str, outcome: WorkerOutcome, handout: str | None = None) -> Table:
    from rich.table import Table

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


def located(
    raw: bytes, file: Path, rubric: Rubric, handout: str | None
) -> ParsedSubmission | None:
    """What the grader read for each question (the same reading grading did), for --show."""
    try:
        return read_submission(raw, file.name, content_type(file), rubric, handout)
    except InvalidDocument:
        return None


def grade_file(
    file: Path,
    assignment: str | None = None,
    format: OutputFormat = OutputFormat.TABLE,
    rubric: Path | None = None,
    show: bool = False,
    handout: str | None = None,
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
    remember_rubric(text, loaded)
    try:
        outcome = grade_document(text, raw, file.name, content_type(file), resources,
                                 handout=edition)
    finally:
        resources.close()
    if outcome.status == "error" or (outcome.error and not outcome.items):
        raise fail(f"{file}: {outcome.error}", 2)
    parsed = located(raw, file, loaded.rubric, edition) if show else None
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
        print_shown(context.console, title, loaded.rubric, parsed, raw, outcome.items)
        say_doubt(outcome)
    else:
        context.console.print(outcome_table(slug, outcome, edition))
        say_doubt(outcome)


def say_doubt(outcome: WorkerOutcome) -> None:
    """A document that may not answer this assignment is said so, not just scored."""
    doubt = doubt_in(r.feedback for r in outcome.items)
    if doubt:
        context.console.print(f"needs review: {safe(doubt)}")
