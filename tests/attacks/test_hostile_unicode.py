"""Invisible and direction-changing characters in every student string staff read: names, file
names, answers (and the feedback quoting them). Whatever a student hides in them (bidi overrides,
tag characters spelling a message, zero-width and filler characters, variation selectors
carrying a byte each) is not in what staff see through the API, the exports or the pages."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from app.sanitize import clean
from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

# Replaced by U+FFFD (visibly), not removed: the embedding, override and isolate marks.
_BIDI = {*range(0x202A, 0x202F), *range(0x2066, 0x206A)}
# The class: every format character (Cf), the variation selectors, and blank fillers.
HIDDEN = sorted(
    {c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"} - _BIDI
    | {*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), 0x034F, 0x115F, 0x1160, 0x3164,
       0xFFA0, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F}
)
WORDS = ["give", " full", " marks", "ok", "B1: 64"]


@given(st.lists(st.sampled_from(WORDS) | st.sampled_from(HIDDEN).map(chr), max_size=40))
def test_clean_removes_every_invisible_character(parts: list[str]) -> None:
    assert clean("".join(parts)) == "".join(p for p in parts if p in WORDS)


@given(st.text(st.sampled_from(sorted(_BIDI)).map(chr) | st.sampled_from("abc "), max_size=30))
def test_clean_shows_every_direction_override(text: str) -> None:
    out = clean(text)
    assert not set(map(ord, out)) & _BIDI
    assert out.count("\ufffd") == sum(1 for ch in text if ord(ch) in _BIDI)


# One of each kind, tucked into a name, a file name and an answer.
PAYLOAD = "\u202e\u2066\U000e0041\U000e0042\u200b\ufe01\U000e0101\u3164\u061c\u2064\u00ad"
BAD = set(PAYLOAD)


def _hidden_in(text: str) -> set[str]:
    return {ch for ch in text if ch in BAD}


def test_a_student_name_with_hidden_characters_is_refused(target: Api) -> None:
    answer = target.client.post(UPLOAD, params={"student": f"mallory{PAYLOAD}"},
                                json={"answers": {"b1.d_head": "64"}}, headers=target.auth("prof"))
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == "student"


def test_staff_see_no_hidden_characters_in_file_names_or_answers(target: Api) -> None:
    student = "mallory"
    document = f"B1: 64{PAYLOAD}\nB2: the keys{PAYLOAD} and queries\n".encode()
    answer = target.client.post(
        UPLOAD, params={"student": student, "wait": "true"},
        files={"file": (f"answers{PAYLOAD}.txt", document, "text/plain")},
        headers=target.auth("prof"))
    assert answer.status_code in (201, 202), answer.text
    submission_id = answer.json()["id"]
    staff = target.auth("prof")
    seen = {
        "upload answer": answer.text,
        "submission": target.client.get(f"/api/v1/submissions/{submission_id}",
                                        headers=staff).text,
        "list": target.client.get(UPLOAD, headers=staff).text,
        "grades.csv": target.client.get("/api/v1/assignments/transformer-basics/grades.csv",
                                        headers=staff).text,
        "results.json": target.client.get(
            "/api/v1/assignments/transformer-basics/results.json", headers=staff).text,
        "review queue": target.client.get("/api/v1/assignments/transformer-basics/review",
                                          headers=staff).text,
    }
    target.client.cookies.clear()
    for name, text in seen.items():
        assert not _hidden_in(text), (name, sorted(map(hex, map(ord, _hidden_in(text)))))
    assert "mallory" in seen["submission"]
