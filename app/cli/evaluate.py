"""`gradeformer evaluate DIR`: grade hand-graded samples and report where the machine disagrees.

What an instructor runs after editing a rubric against a few hand-graded submissions: every file
of DIR with a `<stem>.grades.yaml` beside it is graded offline with the assignment's rubric (from
--rubric, else the rubrics folder), and each answered item's points are compared with the range a
careful grader gave (graders/evaluation.py says which items count).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.markup import escape

from app.cli.context import console, fail, settings
from app.cli.offline import content_type, given_rubrics, load_or_fail, read_upload, rubric_file
from app.grading.worker import grade_document
from app.points import as_number
from app.sanitize import clean
from graders.context import GradingResources
from graders.evaluation import (
    CONFIDENT,
    ExpectedGrades,
    FileAgreement,
    GradesError,
    ItemAgreement,
    Summary,
    compare,
    parse_grades,
    summarise,
)
from graders.results import ItemResult

GRADES_SUFFIX = ".grades.yaml"
EVIDENCE_CHARS = 160


class EvaluateFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


@dataclass(frozen=True)
class Sample:
    document: Path
    grades: ExpectedGrades


def _samples(folder: Path) -> list[Sample]:
    samples: list[Sample] = []
    for grades_path in sorted(folder.glob(f"*{GRADES_SUFFIX}")):
        stem = grades_path.name[: -len(GRADES_SUFFIX)]
        documents = sorted(
            p for p in folder.glob(f"{stem}.*") if p.is_file() and p != grades_path
        )
        if not documents:
            raise fail(f"{grades_path}: no submission named {stem}.* beside it")
        try:
            data = yaml.safe_load(grades_path.read_text(encoding="utf-8"))
            grades = parse_grades(data)
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise fail(f"{grades_path}: not readable YAML ({type(exc).__name__})") from None
        except GradesError as exc:
            raise fail(f"{grades_path}: {exc}") from None
        samples.append(Sample(documents[0], grades))
    return samples


def _evidence(item: ItemAgreement) -> str:
    result = item.result
    if result is None:
        return "the rubric has no such item"
    pieces = [result.feedback.strip()]
    pieces.extend(e.text.strip() for e in result.evidence[:2] if e.text.strip())
    text = " | ".join(p for p in pieces if p).replace("\n", " ")
    return clean(text, EVIDENCE_CHARS)  # quotes the student: no terminal escapes


def _item_json(item: ItemAgreement) -> dict[str, Any]:
    result = item.result
    return {
        "id": item.expected.item_id,
        "points": None if item.points is None else as_number(item.points),
        "expected": as_number(item.expected.points),
        "range": [as_number(item.expected.low), as_number(item.expected.high)],
        "within": item.within,
        "status": None if result is None else result.status.value,
        "confidence": None if result is None else result.confidence,
        "evidence": _evidence(item),
        "note": item.expected.note,
    }


def _given_points(result: ItemResult) -> str:
    return f"{result.item_id} {as_number(result.points)}/{as_number(result.max_points)}"


def _file_json(agreement: FileAgreement, slug: str) -> dict[str, Any]:
    expected = agreement.expected
    return {
        "file": agreement.name,
        "assignment": slug,
        "agrees": agreement.agrees,
        "items": len(agreement.counted),
        "items_within": agreement.items_within,
        "items_listed": len(agreement.items),
        "not_counted": [item.expected.item_id for item in agreement.items if not item.counted],
        "total": as_number(agreement.total),
        "expected_total": as_number(expected.total),
        "total_range": [as_number(expected.total_low), as_number(expected.total_high)],
        "total_within": agreement.total_within,
        "statuses": dict(agreement.statuses),
        "unnamed_bugs": [{"question": q, "pattern": p} for q, p in agreement.unnamed],
        "disagreements": [_item_json(item) for item in agreement.disagreements],
        "unanswered_given_points": [_item_json(i) for i in agreement.unanswered_given_points],
        "unasked_given_points": [
            {"id": r.item_id, "points": as_number(r.points), "status": r.status.value,
             "confidence": r.confidence}
            for r in agreement.unasked_given_points
        ],
    }


def _summary_json(summary: Summary) -> dict[str, Any]:
    return {
        "files": summary.files,
        "files_agreeing": summary.files_agreeing,
        "items": summary.items,
        "items_within": summary.items_within,
        "item_share": round(summary.item_share, 4),
        "items_listed": summary.items_listed,
        "items_listed_within": summary.items_listed_within,
        "totals_within": summary.totals_within,
        "auto_graded": summary.auto_graded,
        "auto_graded_wrong": summary.auto_graded_wrong,
        "auto_graded_error": round(summary.auto_graded_error, 4),
        "confident_wrong": summary.confident_wrong,
        "unanswered_given_points": summary.unanswered_given_points,
        "unasked_given_points": summary.unasked_given_points,
        "bugs": summary.bugs,
        "bugs_named": summary.bugs_named,
        "confident_missing": summary.confident_missing,
    }


def summary_lines(summary: Summary) -> list[str]:
    """The summary: answered items, then what the machine decided alone, then what is not
    counted; the first line starts `overall:`, the last is the headline risk."""
    line = (
        f"overall: {summary.items_within}/{summary.items} answered items within range "
        f"({100 * summary.item_share:.1f}%), {summary.totals_within}/{summary.files} totals "
        f"within range, {summary.files_agreeing}/{summary.files} files agree"
    )
    if summary.bugs:
        line += f", {summary.bugs_named}/{summary.bugs} bugs named"
    if summary.confident_missing:
        line += f", {summary.confident_missing} answered items called missing at confidence ≥ 0.9"
    lines = [line]
    uncounted = summary.items_listed - summary.items
    if uncounted:
        lines.append(
            f"not counted: {uncounted} of {summary.items_listed} listed items (unanswered, or "
            f"worth 0); {summary.items_listed_within}/{summary.items_listed} listed items within "
            f"range"
        )
    apart = []
    if summary.unanswered_given_points:
        apart.append(f"{summary.unanswered_given_points} unanswered items given points")
    if summary.unasked_given_points:
        apart.append(f"{summary.unasked_given_points} unasked items given points")
    if apart:
        lines.append("apart: " + ", ".join(apart))
    lines.append(
        f"auto-graded: {summary.auto_graded_wrong}/{summary.auto_graded} answered items out of "
        f"range ({100 * summary.auto_graded_error:.1f}%); out of range and auto-graded at "
        f"confidence ≥ {CONFIDENT}: {summary.confident_wrong}"
    )
    return lines


def _print_item(item: ItemAgreement) -> None:
    result = item.result
    got = "—" if item.points is None else str(as_number(item.points))
    status = "" if result is None else f" {result.status.value} @{result.confidence:.2f}"
    console.print(
        f"  {escape(item.expected.item_id)}: {got}{status}, expected "
        f"[{as_number(item.expected.low)}, {as_number(item.expected.high)}] "
        f"— {escape(_evidence(item))}",
        highlight=False,
        soft_wrap=True,
    )


def _print_file(agreement: FileAgreement, slug: str) -> None:
    expected = agreement.expected
    verdict = "agrees" if agreement.agrees else "disagrees"
    console.print(
        f"[bold]{escape(agreement.name)}[/bold] ({escape(slug)}): {verdict}; "
        f"{agreement.items_within}/{len(agreement.counted)} answered items within range; total "
        f"{as_number(agreement.total)} vs {as_number(expected.total)} "
        f"[{as_number(expected.total_low)}, {as_number(expected.total_high)}]"
        f"{'' if agreement.total_within else ' (out of range)'}",
        highlight=False,
        soft_wrap=True,
    )
    for item in agreement.disagreements:
        _print_item(item)
    for question, pattern in agreement.unnamed:
        console.print(
            f"  {escape(question)}: the feedback does not name the bug ({escape(pattern)})",
            highlight=False,
        )
    if agreement.unanswered_given_points:
        console.print("  unanswered items given points:", highlight=False)
        for item in agreement.unanswered_given_points:
            _print_item(item)
    if agreement.unasked_given_points:
        console.print(
            "  unasked items given points: "
            + escape(", ".join(_given_points(r) for r in agreement.unasked_given_points)),
            highlight=False,
            soft_wrap=True,
        )


def _rubric_of(sample: Sample, assignment: str | None, given: dict[str, str],
               found: dict[str, str]) -> tuple[str, str]:
    """The sample's assignment slug and rubric text: --assignment, else its grades' own; from
    the rubrics given (the only one, when the grades name none), else the rubrics folder."""
    slug = assignment or sample.grades.assignment
    if given:
        if slug is None and len(given) == 1:
            slug = next(iter(given))
        if slug is None:
            raise fail(f"{sample.document}: its grades name no assignment; pass --assignment")
        if slug not in given:
            raise fail(f"{sample.document}: assignment {slug!r} is not among the rubrics given "
                       f"({', '.join(sorted(given))})")
        return slug, given[slug]
    if slug is None:
        raise fail(f"{sample.document}: its grades name no assignment; pass --assignment or "
                   "--rubric")
    if slug not in found:
        found[slug] = load_or_fail(rubric_file(slug, None))[1]
    return slug, found[slug]


def evaluate(
    folder: Annotated[
        Path, typer.Argument(file_okay=False, exists=True, help="Samples with grades beside them")
    ],
    rubric: Annotated[
        list[Path] | None,
        typer.Option(help="A rubric file or a folder of them (repeatable); default: the "
                     "rubrics folder (GRADEFORMER_RUBRICS_DIR)"),
    ] = None,
    assignment: Annotated[
        str | None,
        typer.Option(help="Assignment slug (default: each grades file's `assignment` key)"),
    ] = None,
    format: Annotated[EvaluateFormat, typer.Option(help="text or json")] = EvaluateFormat.TEXT,
) -> None:
    """Grade every file of FOLDER that has a <stem>.grades.yaml and report the agreement."""
    samples = _samples(folder)
    if not samples:
        raise fail(f"{folder} has no *{GRADES_SUFFIX} files")
    given = given_rubrics(rubric or [])
    found: dict[str, str] = {}
    agreements: list[tuple[FileAgreement, str]] = []
    resources = GradingResources(options=settings().grading_options())
    try:
        for sample in samples:
            slug, text = _rubric_of(sample, assignment, given, found)
            document = sample.document
            outcome = grade_document(
                text, read_upload(document), document.name, content_type(document), resources
            )
            if outcome.error and not outcome.items:
                raise fail(f"{document}: {outcome.error}", 2)
            agreements.append((compare(document.name, sample.grades, outcome.items), slug))
    finally:
        resources.close()
    summary = summarise([a for a, _ in agreements])
    if format is EvaluateFormat.JSON:
        print(json.dumps({
            "files": [_file_json(a, slug) for a, slug in agreements],
            "overall": _summary_json(summary),
        }, ensure_ascii=False))
        return
    for agreement, slug in agreements:
        _print_file(agreement, slug)
    for line in summary_lines(summary):
        console.print(line, highlight=False, soft_wrap=True, markup=False)
