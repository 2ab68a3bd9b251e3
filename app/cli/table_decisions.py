"""`grade-table --decisions FILE`: an instructor's decisions on some answers of the table, kept
apart from it (the file active grading or a spreadsheet produced). An answer is named by its
row's `student` and `question` (the question's id or one of its labels, any case).

- CSV: a header naming `student`, `question`, `points`; one decision per line.
- JSON: a list of `{"student": ..., "question": ..., "points": ...}`, or an object
  `{"<student>": {"<question>": points, ...}, ...}`.

Points are finite numbers >= 0 in hundredths at most. A decided row is graded as if its table
row had that `points` value: it keeps the points, becomes an exemplar of its question and a
calibration point of its threshold before the other rows are scored.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from graders.written.table import TableRow

MAX_BYTES = 50_000_000  # a decisions file larger than this is refused, not read
Key = tuple[str, str]


class DecisionsError(ValueError):
    """The file cannot be read as decisions (the message says where)."""


def _points(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise DecisionsError(f"{where}: points must be a number, got {value!r:.40}")
    try:
        points = Decimal(str(value).strip()[:30])
    except InvalidOperation:
        raise DecisionsError(f"{where}: points must be a number, got {value!r:.40}") from None
    if not points.is_finite() or points < 0 or points != points.quantize(Decimal("0.01")):
        raise DecisionsError(f"{where}: points must be >= 0 in hundredths, got {value!r:.40}")
    return points


def _key(student: Any, question: Any) -> Key:
    return str(student).strip()[:200], str(question).strip().lower()[:200]


def _from_json(data: Any) -> Iterator[tuple[Key, Decimal]]:
    if isinstance(data, list):
        for n, entry in enumerate(data, start=1):
            if not isinstance(entry, dict) or not {"student", "question", "points"} <= set(entry):
                raise DecisionsError(f"entry {n}: needs student, question and points")
            yield _key(entry["student"], entry["question"]), _points(entry["points"],
                                                                      f"entry {n}")
    elif isinstance(data, dict):
        for student, given in data.items():
            if not isinstance(given, dict):
                raise DecisionsError(f"student {student!r:.40}: expected {{question: points}}")
            for question, points in given.items():
                yield _key(student, question), _points(points, f"{student}/{question}")
    else:
        raise DecisionsError("expected a list of decisions or an object of students")


def _from_csv(text: str) -> Iterator[tuple[Key, Decimal]]:
    reader = csv.DictReader(text.splitlines())
    header = [h.strip().lower().lstrip("\ufeff") for h in reader.fieldnames or []]
    if not {"student", "question", "points"} <= set(header):
        raise DecisionsError("the CSV header must name student, question and points")
    reader.fieldnames = header
    for n, row in enumerate(reader, start=2):
        if not any((v or "").strip() for v in row.values()):
            continue
        yield _key(row["student"], row["question"]), _points(row["points"], f"line {n}")


def read_decisions(path: Path) -> dict[Key, Decimal]:
    """(student, question in lower case) -> points; a pair given twice keeps the last."""
    if path.stat().st_size > MAX_BYTES:
        raise DecisionsError(f"larger than {MAX_BYTES} bytes")
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() == ".json" or text.lstrip().startswith(("[", "{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DecisionsError(f"not JSON: {exc}") from None
        return dict(_from_json(data))
    return dict(_from_csv(text))


def with_decisions(rows: Iterable[TableRow], decisions: dict[Key, Decimal],
                   used: set[Key]) -> Iterator[TableRow]:
    """The table's rows, those with a decision carrying its points (`used` collects the
    decisions that named a row)."""
    for row in rows:
        key = _key(row.student, row.question)
        if key in decisions and not row.unreadable:
            used.add(key)
            yield replace(row, points=decisions[key])
        else:
            yield row
