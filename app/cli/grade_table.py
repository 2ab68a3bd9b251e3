"""`gradeformer grade-table TABLE.csv --rubric RUBRIC.yaml`: grade a table of short answers.

Rows are `student,question,answer` (a header row names the columns; an LMS quiz export of short
answers, for example), with an optional `points` column for answers an instructor has already
graded; `question` is a question id (or one of its labels) of the rubric. One
result per row goes to stdout (or `--output`): JSON lines
`{"student", "question", "total", "items": [{"id", "points", "max_points", "status",
"confidence", "feedback"}]}`, or CSV with one line per item. A progress bar goes to stderr.

Sentence vectors are kept on disk between runs: by default in the user's cache folder
(`$XDG_CACHE_HOME/gradeformer/embeddings/<model fingerprint>`, at most 512 MB, oldest files
deleted first), memory only if that folder cannot be written; `--embedding-cache DIR` (or
GRADEFORMER_EMBEDDING_CACHE_DIR) names another folder, `--no-embedding-cache` keeps nothing.
Each row's result is kept beside the vectors (`rows/`), keyed by everything it depends on
(graders/written/table_rows.py): a second run over the same table and rubric reads them.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from pathlib import Path
from typing import IO, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from app.cli.context import errors, fail
from app.cli.table_decisions import DecisionsError, read_decisions, with_decisions
from app.cli.table_store import FolderRowStore
from app.points import as_number
from app.sanitize import DEFAULT_LIMIT, csv_cell
from graders.context import GradingResources
from graders.embedding import SentenceEmbedder
from graders.embedding.cache import default_directory, prune, writable
from graders.rubric import RubricError, load_rubric
from graders.written.grader import EMBEDDER_KEY
from graders.written.settings import DEFAULT_TARGET
from graders.written.table import RowResult, TableGrader, TableRow

# A field larger than this is not read into memory (the answer is cut far below it anyway).
MAX_FIELD_CHARS = 1_000_000
COLUMNS = ("student", "question", "answer")
_SWITCH_INTERVAL = 0.0002  # seconds (Python's default is 0.005)
CSV_COLUMNS = ("student", "question", "total", "item", "points", "max_points", "status",
               "confidence", "feedback")


class TableFormat(StrEnum):
    JSONL = "jsonl"
    CSV = "csv"


def _header(reader: Iterator[list[str]]) -> list[str]:
    return [h.strip().lower().lstrip("\ufeff") for h in next(reader, [])]


def _has_points(path: Path) -> bool:
    """Whether the table has a `points` column (a cheap look at its header)."""
    csv.field_size_limit(MAX_FIELD_CHARS)
    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        try:
            return "points" in _header(csv.reader(handle))
        except csv.Error:
            return False


def _rows(path: Path) -> Iterator[TableRow]:
    csv.field_size_limit(MAX_FIELD_CHARS)
    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        reader = csv.reader(handle)
        header = _header(reader)
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise fail(f"{path}: the header must name the columns {', '.join(COLUMNS)} "
                       f"(missing: {', '.join(missing)})", 2)
        where = [header.index(c) for c in COLUMNS]
        points_at = header.index("points") if "points" in header else None
        number = 0
        while True:
            number += 1
            try:
                record = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:  # a field over the bound, or broken quoting: say so, go on
                yield TableRow(student="", question="", answer="",
                               unreadable=f"data row {number} cannot be read: {exc}")
                continue
            if not any(cell.strip() for cell in record):
                continue
            cells = [record[i] if i < len(record) else "" for i in where]
            given = record[points_at] if points_at is not None and points_at < len(record) else ""
            yield TableRow(student=cells[0][:200], question=cells[1][:200], answer=cells[2],
                           points=_points(given))


def _points(text: str) -> Decimal | None:
    """An instructor's points from the optional column: a finite number >= 0, else none."""
    text = text.strip()
    if not text or len(text) > 20:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() and value >= 0 else None


def _count(path: Path) -> int:
    """Data rows in the table (a cheap first pass, for the progress bar)."""
    csv.field_size_limit(MAX_FIELD_CHARS)
    count = 0
    with path.open(newline="", encoding="utf-8", errors="replace") as handle:
        reader = csv.reader(handle)
        while True:
            try:
                next(reader)
            except StopIteration:
                break
            except csv.Error:
                pass
            count += 1
    return max(0, count - 1)


def _learn(grader: TableGrader, table: Path, rows: Callable[[], Iterator[TableRow]],
           decided: bool) -> None:
    """First pass: the instructor-graded rows (a `points` column, a decisions file), if any."""
    if not decided and not _has_points(table):
        next(_rows(table), None)  # checks the header's columns before any output is written
        return
    risks = grader.learn(row for row in rows() if row.points is not None)
    for qid, risk in risks.items():
        if risk.threshold is None:
            errors.print(f"{qid}: {risk.calibrated_on} instructor-graded answers become "
                         "exemplars; too few to set its threshold (the rubric's stands)")
        else:
            errors.print(f"{qid}: {risk.calibrated_on} instructor-graded answers become "
                         f"exemplars; auto-grade threshold {risk.threshold:.2f} (error bound "
                         f"{risk.expected_error:.1%}, {risk.auto_share:.0%} of them auto-graded "
                         "in calibration)")


def row_json(result: RowResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "student": result.row.student,
        "question": result.row.question,
        "total": as_number(result.total),
        "items": [
            {"id": r.item_id, "points": as_number(r.points),
             "max_points": as_number(r.max_points), "status": r.status.value,
             "confidence": r.confidence, "feedback": r.feedback}
            for r in result.items
        ],
    }
    if result.error is not None:
        out["error"] = result.error
    return out


def _write(result: RowResult, form: TableFormat, out: IO[str],
           writer: Any) -> None:
    if form is TableFormat.JSONL:
        out.write(json.dumps(row_json(result), ensure_ascii=False) + "\n")
        return
    total = as_number(result.total)
    # every cell as the exports write it: the student and question columns come from the input
    # table and the feedback quotes the answer, so a formula there must not run when opened
    if not result.items:
        writer.writerow(csv_cell(c, DEFAULT_LIMIT) for c in [
            result.row.student, result.row.question, total, "", "", "", "error", "",
            result.error or ""])
    for r in result.items:
        writer.writerow(csv_cell(c, DEFAULT_LIMIT) for c in [
            result.row.student, result.row.question, total, r.item_id, as_number(r.points),
            as_number(r.max_points), r.status.value, r.confidence, r.feedback])


def grade_table(
    table: Annotated[Path, typer.Argument(help="CSV with columns student,question,answer")],
    rubric: Annotated[Path, typer.Option("--rubric", help="the rubric YAML")],
    form: Annotated[TableFormat, typer.Option("--format", help="jsonl or csv")] = (
        TableFormat.JSONL),
    output: Annotated[Path | None, typer.Option("--output", "-o",
                                                help="write here instead of stdout")] = None,
    progress: Annotated[bool, typer.Option(help="show a progress bar on stderr")] = True,
    target_error: Annotated[float, typer.Option(
        min=0.001, max=0.5, help="error allowed among auto-graded answers of a question with "
        "instructor-graded rows")] = DEFAULT_TARGET,
    embedding_cache: Annotated[Path | None, typer.Option(
        "--embedding-cache", envvar="GRADEFORMER_EMBEDDING_CACHE_DIR",
        help="keep sentence embeddings in this folder (the service's cache folder may be "
        "shared) instead of the user's cache folder: a second run over the same answers "
        "encodes nothing")] = None,
    no_embedding_cache: Annotated[bool, typer.Option(
        "--no-embedding-cache", help="keep embeddings and results in memory only")] = False,
    row_cache: Annotated[bool, typer.Option(
        help="keep each row's result in the cache folder too (reused only for the same "
        "answer, question, rubric, cohort, code and model)")] = True,
    cohort: Annotated[bool, typer.Option(
        help="use each question's other answers in the table as evidence (no grades)")] = True,
    decisions: Annotated[Path | None, typer.Option(
        "--decisions", help="an instructor's points for some answers (CSV student,question,"
        "points or JSON): those rows keep them and become exemplars before the rest is "
        "scored")] = None,
) -> None:
    """Grade a table of short answers (student,question,answer) against a rubric.

    An optional `points` column holds grades an instructor already gave: those rows keep them,
    become exemplars of their question, and set its auto-grade threshold so that the error among
    auto-graded answers stays under --target-error (questions with one written item).
    --decisions FILE gives such points from a file instead (answers named by student and
    question; active grading's decisions, for example).
    """
    if not table.is_file():
        raise fail(f"{table} is not a file", 2)
    try:
        loaded = load_rubric(rubric)
    except RubricError as exc:
        raise fail(str(exc), 2) from None
    folder = _cache_folder(embedding_cache, no_embedding_cache)
    options: dict[str, Any] = {} if folder is None else {"embedding_cache_dir": str(folder)}
    resources = GradingResources(options=options)
    grader = TableGrader(loaded, resources, target=target_error)
    # The encoder's threads need the GIL for a moment between NumPy kernels (thousands of times
    # per forward pass) while this thread grades in Python: with the default 5 ms switch
    # interval each of those moments can wait 5 ms. This process is the command's own.
    sys.setswitchinterval(_SWITCH_INTERVAL)
    given = _decisions(decisions)
    used: set[tuple[str, str]] = set()

    def rows() -> Iterator[TableRow]:
        return with_decisions(_rows(table), given, used) if given else _rows(table)

    _learn(grader, table, rows, bool(given))
    if given:
        errors.print(f"decisions: {len(used)} of {len(given)} name a row of the table",
                     markup=False, highlight=False)
    missing = (grader.use_store(FolderRowStore(folder / "rows"), rows(), cohort)
               if folder is not None and row_cache else None)
    if cohort and missing != 0:
        grader.start_cohorts(rows())  # encoded in the background while rows are graded
    total = _count(table)
    out = output.open("w", newline="", encoding="utf-8") if output else sys.stdout
    writer = csv.writer(out)
    if form is TableFormat.CSV:
        writer.writerow(CSV_COLUMNS)
    bar = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(),
                   TimeRemainingColumn(), console=errors, disable=not progress)
    try:
        with bar:
            task = bar.add_task("rows", total=total)
            for result in grader.grade(rows()):
                _write(result, form, out, writer)
                bar.advance(task)
    finally:
        if output:
            out.close()
        else:
            out.flush()
    grader.save()
    if folder is not None and embedding_cache is None and (missing or _written(resources)):
        prune(folder.parent)


def _decisions(path: Path | None) -> dict[tuple[str, str], Decimal]:
    if path is None:
        return {}
    if not path.is_file():
        raise fail(f"--decisions {path} is not a file", 2)
    try:
        return read_decisions(path)
    except DecisionsError as exc:
        raise fail(f"--decisions {path}: {exc}", 2) from None


def _cache_folder(given: Path | None, off: bool) -> Path | None:
    """The folder vectors (and rows' results) are kept in, or None for memory only."""
    if off:
        return None
    if given is not None:
        try:
            given.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise fail(f"--embedding-cache {given}: cannot make the folder ({exc})", 2) from None
        return given
    folder = default_directory()
    problem = writable(folder)
    if problem is not None:
        errors.print(f"embedding cache {folder} cannot be written ({problem}); keeping "
                     "embeddings in memory only", markup=False, highlight=False, soft_wrap=True)
        return None
    return folder


def _written(resources: GradingResources) -> bool:
    """Whether this run wrote vectors to the folder."""
    embedder: SentenceEmbedder | None = resources.shared(EMBEDDER_KEY, lambda: None)
    return embedder is not None and embedder.cache.written > 0
