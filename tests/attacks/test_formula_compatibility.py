"""Formula injection by every sign's compatibility look-alike. The exports already wrote as
text a formula behind the full-width signs and the small and raised plus and minus, the look-
alikes an autocorrecting import or a normalising step (NFKC) turns into the signs; the raised
and lowered equals (U+207C, U+208C), the small commercial at (U+FE6B) and the Hebrew
alternative plus (U+FB29) are the same class and were written as they came. Here the class is
every character whose NFKC form is `=`, `+`, `-` or `@`, generated from the Unicode tables:
each, behind any blank, starts a cell the exports write as text, through the API's exports as
well as `csv_cell`."""

from __future__ import annotations

import csv
import io
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from app.sanitize import _FORMULA_START, csv_cell
from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD

LOOK_ALIKES = sorted(chr(c) for c in range(sys.maxunicode + 1)
                     if not 0xD800 <= c <= 0xDFFF
                     and unicodedata.normalize("NFKC", chr(c)) in ("=", "+", "-", "@"))
BLANKS = ["", " ", "\u3000", "\u2003", "\n"]
PAYLOADS = ["HYPERLINK(\"http://evil.invalid\",\"x\")", "cmd|' /C calc'!A0", "1+1", "SUM(A1:A9)"]


def test_the_class_is_what_the_tables_say() -> None:
    assert {"\u207c", "\u208c", "\ufe6b", "\ufb29", "\uff1d", "\u207a"} <= set(LOOK_ALIKES)
    assert set(LOOK_ALIKES) <= set(_FORMULA_START)


@given(st.sampled_from(BLANKS), st.sampled_from(LOOK_ALIKES), st.sampled_from(PAYLOADS))
def test_a_formula_behind_any_look_alike_of_a_sign_is_text(blank: str, sign: str,
                                                          payload: str) -> None:
    cell = csv_cell(blank + sign + payload)
    assert cell.startswith("'"), repr(cell)


def test_the_exports_write_a_name_behind_each_look_alike_as_text(target: Api) -> None:
    names = {sign + "HYPERLINK(\"http://evil.invalid\")" for sign in LOOK_ALIKES}
    for name in sorted(names):
        answer = target.client.post(UPLOAD, params={"student": name},
                                    files={"file": ("a.txt", b"B1: 64\n", "text/plain")},
                                    headers=target.auth("prof"))
        assert answer.status_code in (202, 422), answer.text
    for export in ("export.csv", "canvas.csv"):
        answer = target.client.get(f"/api/v1/assignments/{SLUG}/{export}",
                                   headers=target.auth("prof"))
        assert answer.status_code == 200, answer.text
        cells = [c for row in csv.reader(io.StringIO(answer.text)) for c in row]
        risky = [c for c in cells if c[:1] in LOOK_ALIKES]
        assert not risky, (export, risky)
        shown = [c for c in cells if "HYPERLINK" in c]
        assert len(shown) >= len(names), (export, len(shown))
