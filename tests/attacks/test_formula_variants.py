"""Formula injection, more dresses: a formula behind any character a spreadsheet or an import
may trim (every Unicode space and separator, not only the ASCII ones: U+2003, U+2028, U+205F,
U+1680, ...), behind vertical tabs and form feeds, the DDE payloads in their several spellings,
and a formula split over lines. Written into every CSV the service writes, through a student's
name and file name: each such cell is text (a leading apostrophe)."""

from __future__ import annotations

import csv
import io
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from app.sanitize import csv_cell
from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD

SPACES = sorted(chr(c) for c in range(sys.maxunicode + 1)
                if chr(c).isspace() or unicodedata.category(chr(c)) in ("Zs", "Zl", "Zp"))
SIGNS = "=+-@\uff1d\uff0b\uff0d\uff20\ufe62\ufe63\ufe66\u207a\u207b\u208a\u208b\u2212"
PAYLOADS = ["cmd|' /C calc'!A0", "DDE(\"cmd\";\"/C calc\";\"!A0\")", "1+1",
            "HYPERLINK(\"http://evil.invalid\",\"x\")", "MSEXCEL|'\\..\\..\\Windows\\"
            "System32\\cmd.exe /c calc'!''", "SUM(1,1)"]


def runs_as_formula(cell: str) -> bool:
    """What a spreadsheet that trims every kind of space on import would evaluate; a sign
    look-alike (U+2212, the small and superscript signs) counts as the sign."""
    bare = cell.lstrip("".join(SPACES))
    if not bare or bare[0] not in SIGNS:
        return False
    number = bare.lstrip("+-\uff0b\uff0d\u2212").replace(".", "", 1)
    return not (number.isascii() and number.isdigit())


@given(st.lists(st.sampled_from(SPACES), min_size=1, max_size=3), st.sampled_from(SIGNS),
       st.sampled_from(PAYLOADS))
def test_a_formula_behind_any_space_is_written_as_text(dress: list[str], sign: str,
                                                        payload: str) -> None:
    cell = csv_cell("".join(dress) + sign + payload)
    assert cell.startswith("'") or not runs_as_formula(cell), repr(cell)


@given(st.sampled_from("+-"), st.text("\u0660\u0661\u06f1\u0967\uff11", min_size=1, max_size=4))
def test_a_number_in_other_digits_is_not_taken_for_a_number(sign: str, digits: str) -> None:
    cell = csv_cell(sign + digits)
    assert cell.startswith("'"), repr(cell)


def _cells(text: str) -> list[str]:
    return [c for row in csv.reader(io.StringIO(text)) for c in row]


NAMES = ["\u2003=HYPERLINK(\"http://evil.invalid\")", "\u2028+SUM(1,1)", "\u205f@cmd|'/C calc'!A0",
         "\u3000\u2212cmd|'/C calc'!A0"]


def test_the_exports_write_names_and_files_dressed_like_formulas_as_text(target: Api) -> None:
    for name in NAMES:
        for student in (name, "formula-file"):  # the name itself, else only the file's name
            answer = target.client.post(
                UPLOAD, params={"student": student},
                files={"file": (f"{name}.txt", b"B1: 64\n", "text/plain")},
                headers=target.auth("prof"))
            assert answer.status_code in (202, 422), answer.text
    for export in ("export.csv", "canvas.csv"):
        answer = target.client.get(f"/api/v1/assignments/{SLUG}/{export}",
                                    headers=target.auth("prof"))
        assert answer.status_code == 200, answer.text
        risky = [c for c in _cells(answer.text) if runs_as_formula(c)]
        assert not risky, (export, risky)
