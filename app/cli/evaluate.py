"""`gradeformer evaluate DIR`: grade hand-graded samples and report where the machine disagrees.

What an instructor runs after editing a rubric against a few hand-graded submissions: every file
of DIR with a `<stem>.grades.yaml` beside it is graded offline with the assignment's rubric, and
each item's points are compared with the range a careful grader gave.
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
from app.cli.grading import _content_type, _read, _rubric_file
from app.grading.worker import grade_document
from app.points import as_number
from graders.context import GradingResources
from graders.evaluation import (
    ExpectedGrades,
    FileAgreement,
    GradesError,
    ItemAgreement,
    Summary,
    compare,
    parse_grades,
    summarise,
)
from graders.rubric import RubricError, load_rubric

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


def _without_metadata(raw: bytes, path: Path) -> bytes:
    """A JSON sample's top-level keys starting with `_` describe the sample, not the answer."""
    if path.suffix.lower() != ".json":
        return raw
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw
    if not isinstance(data, dict):
        return raw
    kept = {k: v for k, v in data.items() if not (isinstance(k, str) and k.startswith("_"))}
    return json.dumps(kept, ensure_ascii=False).encode("utf-8")


def _evidence(item: ItemAgreement) -> str:
    result = item.result
    if result is None:
        return "the rubric has no such item"
    pieces = [result.feedback.strip()]
    pieces.extend(e.text.strip() for e in result.evidence[:2] if e.text.strip())
    text = " | ".join(p for p in pieces if p).replace("\n", " ")
    return text if len(text) <= EVIDENCE_CHARS else text[: EVIDENCE_CHARS - 1] + "…"


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


def _file_json(agreement: FileAgreement, slug: str) -> dict[str, Any]:
    expected = agreement.expected
    return {
        "file": agreement.name,
        "assignment": slug,
        "agrees": agreement.agrees,
        "items": len(agreement.items),
        "items_within": agreement.items_within,
        "total": as_number(agreement.total),
        "expected_total": as_number(expected.total),
        "total_range": [as_number(expected.total_low), as_number(expected.total_high)],
        "total_within": agreement.total_within,
        "statuses": dict(agreement.statuses),
        "unnamed_bugs": [{"question": q, "pattern": p} for q, p in agreement.unnamed],
        "disagreements": [_item_json(item) for item in agreement.disagreements],
    }


def _summary_json(summary: Summary) -> dict[str, Any]:
    return {
        "files": summary.files,
        "files_agreeing": summary.files_agreeing,
        "items": summary.items,
        "items_within": summary.items_within,
        "item_share": round(summary.item_share, 4),
        "totals_within": summary.totals_within,
        "bugs": summary.bugs,
        "bugs_named": summary.bugs_named,
        "confident_missing": summary.confident_missing,
    }


def summary_line(summary: Summary) -> str:
    line = (
        f"overall: {summary.items_within}/{summary.items} items within range "
        f"({100 * summary.item_share:.1f}%), {summary.totals_within}/{summary.files} totals "
        f"within range, {summary.files_agreeing}/{summary.files} files agree"
    )
    if summary.bugs:
        line += f", {summary.bugs_named}/{summary.bugs} bugs named"
    if summary.confident_missing:
        line += f", {summary.confident_missing} answered items called missing at confidence ≥ 0.9"
    return line


def _print_file(agreement: FileAgreement, slug: str) -> None:
    expected = agreement.expected
    verdict = "agrees" if agreement.agrees else "disagrees"
    console.print(
        f"[bold]{escape(agreement.name)}[/bold] ({escape(slug)}): {verdict}; "
        f"{agreement.items_within}/{len(agreement.items)} items within range; total "
        f"{as_number(agreement.total)} vs {as_number(expected.total)} "
        f"[{as_number(expected.total_low)}, {as_number(expected.total_high)}]"
        f"{'' if agreement.total_within else ' (out of range)'}",
        highlight=False,
        soft_wrap=True,
    )
    for item in agreement.disagreements:
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
    for question, pattern in agreement.unnamed:
        console.print(
            f"  {escape(question)}: the feedback does not name the bug ({escape(pattern)})",
            highlight=False,
        )


def evaluate(
    folder: Annotated[
        Path, typer.Argument(file_okay=False, exists=True, help="Samples with grades beside them")
    ],
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
    rubrics: dict[str, str] = {}
    agreements: list[tuple[FileAgreement, str]] = []
    resources = GradingResources(options=settings().grading_options())
    try:
        for sample in samples:
            slug = assignment or sample.grades.assignment
            if slug is None:
                raise fail(f"{sample.document}: its grades name no assignment; pass --assignment")
            if slug not in rubrics:
                path = _rubric_file(slug, None)
                try:
                    load_rubric(path)
                except RubricError as exc:
                    raise fail(str(exc)) from None
                rubrics[slug] = path.read_text(encoding="utf-8")
            raw = _without_metadata(_read(sample.document), sample.document)
            outcome = grade_document(
                rubrics[slug], raw, sample.document.name, _content_type(sample.document), resources
            )
            if outcome.error and not outcome.items:
                raise fail(f"{sample.document}: {outcome.error}", 2)
            agreements.append(
                (compare(sample.document.name, sample.grades, outcome.items), slug)
            )
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
    console.print(summary_line(summary), highlight=False, soft_wrap=True)
