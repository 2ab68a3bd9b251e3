"""A sub-part label written as its question's number then the letter in brackets, `3(a)`,
`4(b):`, `5(a)`, opening a line (a typed or transcribed page; trial homework 11), in order or
with a question's parts answered out of order (`3(b)` before `3(a)`). Before: `3(a)` was no
label at all (a number needed `.`, `)` or a space before `(a)`), so every question answered
that way was called missing at confidence 1, or found by its content only. A number and a
bracketed letter inside a line (`f(a)`, `matrix 3(a) shows`) stay prose."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: bracketed
title: Bracketed sub-parts
questions:
  - id: Q1
    labels: ["Q1", "1"]
    answer_kind: code
    items: [{id: q1, points: 1, grader: written, config: {reference: [The code.]}}]
  - id: Q2
    labels: ["Q2", "2"]
    answer_kind: numeric
    items:
      - {id: q2.a, points: 1, grader: numeric, config: {expected: 3.6e21, cues: ["(a)"]}}
      - {id: q2.b, points: 1, grader: numeric, config: {expected: 1.4e11, cues: ["(b)"]}}
  - id: Q3
    labels: ["Q3", "3"]
    answer_kind: numeric
    items:
      - {id: q3.a, points: 1, grader: numeric, config: {expected: 262144, cues: ["(a)"]}}
      - {id: q3.b, points: 1, grader: numeric, config: {expected: 2147483648, cues: ["(b)"]}}
  - id: Q4
    labels: ["Q4", "4"]
    answer_kind: prose
    items:
      - {id: q4, points: 1, grader: written, config: {reference: [Bytes cover every text.]}}
""").rubric

PARTS = {
    "Q2": ["C = 6ND = 3.6e21 FLOPs", "D = 20 x 7e9 = 1.4e11 tokens"],
    "Q3": ["2 x 32 x 8 x 128 x 4 = 262,144 bytes", "262,144 x 8192 = 2 GiB"],
    "Q4": ["all 256 bytes are in the vocabulary", "digits are split inconsistently"],
}


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(swapped=st.sets(st.sampled_from(sorted(PARTS))), colon=st.booleans(),
       gap=st.sampled_from([" ", "  ", "\t"]), first=st.sampled_from(["1.", "Q1", "1)"]))
def test_a_number_with_its_letter_in_brackets_labels_the_sub_part(
        swapped: set[str], colon: bool, gap: str, first: str) -> None:
    lines = ["Student   HW 11", "", f"{first} see the code below", "def f(x):", "    return x",
             ""]
    for qid, (a, b) in PARTS.items():
        n = qid[1]
        mark = ":" if colon else ""
        pair = [f"{n}(a){mark}{gap}{a}", f"{n}(b){mark}{gap}{b}"]
        lines += (pair[::-1] if qid in swapped else pair) + [""]
    text = "\n".join(lines)
    parsed = read_submission(text.encode(), "scan.txt", None, RUBRIC)
    for qid, bodies in PARTS.items():
        assert qid in parsed.answers, (text, parsed.missing)
        located = parsed.answers[qid]
        assert located.confidence >= 0.9, (qid, located)
        for body in bodies:
            assert body in located.text, (text, qid, located.text)
        for other, others in PARTS.items():
            if other != qid:
                assert not any(body in located.text for body in others), (qid, located.text)


def test_a_bracketed_letter_inside_a_line_stays_prose() -> None:
    text = ("1. code\n\n2. C = 6ND = 3.6e21 and f(a) is row 3(a) of the table 1.4e11\n\n"
            "3. 262,144 bytes, 2 GiB\n\n4. bytes\n")
    parsed = read_submission(text.encode(), "scan.txt", None, RUBRIC)
    assert "1.4e11" in parsed.answers["Q2"].text, parsed.answers
