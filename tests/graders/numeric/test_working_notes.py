"""A value followed by a note in brackets that explains it in words: `b) 197 (196 patches +
CLS)`, `3.72 GB (4 bits + 16/64 bits per weight)`, `640 (512 before the factor)` (trial 10's
fay.md, trial 9's lin.py). The value before the note is the answer; the note's numbers are
working. Before, the note's number was taken as the final value (196, 4), and the item went to
review at 0.5 or was graded 0."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.submission import read_submission
from graders.engine import grade_submission
from graders.results import Status
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: notes
title: Values with notes
questions:
  - id: Q4
    labels: ["Q4", "4"]
    answer_kind: numeric
    items:
      - id: q4.count
        points: 1
        grader: numeric
        config: {expected: 197, kind: integer, cues: ["(b)", sequence, tokens],
                 known_mistakes: [{value: 196, points: 0, feedback: "no class token"}]}
""", "notes.yaml")
# notes in words with a number of their own (never the answer's)
NOTES = ["{n} patches + CLS", "{n} patches + 1 class token", "{n} + the CLS token",
         "i.e. {n} patches plus one", "{n} from the patches, one more for [CLS]"]


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(NOTES), st.sampled_from(["b) ", "(b) ", "(b) sequence length: ", ""]),
       st.sampled_from(["", " tokens"]), st.sampled_from(["(", "["]))
def test_a_note_in_words_after_the_value_is_its_working(note: str, marker: str, unit: str,
                                                        bracket: str) -> None:
    close = ")" if bracket == "(" else "]"
    text = f"## Q4\n\n{marker}197{unit} {bracket}{note.format(n=196)}{close}\n"
    parsed = read_submission(text.encode(), "a.md", "text/markdown", RUBRIC.rubric)
    result = grade_submission(RUBRIC, parsed).items[0]
    assert (result.status, Fraction(result.points)) == (Status.GRADED, 1), (text, result)



SIZES = parse_rubric("""
slug: sizes
title: A size with a note
questions:
  - id: Q4
    labels: ["Q4", "4"]
    answer_kind: numeric
    items:
      - id: q4.bytes
        points: 1
        grader: numeric
        config: {expected: 2147483648, kind: integer, rel_tolerance: 0.002, cues: [bytes, cache]}
""", "sizes.yaml")


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.sampled_from([("2 GiB", "2^31 bytes"), ("2.15 GB", "2^31 bytes"),
                        ("2048 MiB", "2 x 1024 MiB"), ("2 GiB", "16 KiB per token x 131072")]),
       st.sampled_from(["cache: ", "(b) ", "Total: "]))
def test_the_unit_before_a_note_stays_the_values(sized: tuple[str, str], lead: str) -> None:
    value, note = sized
    text = f"## Q4\n\n{lead}{value} ({note}).\n"
    parsed = read_submission(text.encode(), "a.md", "text/markdown", SIZES.rubric)
    result = grade_submission(SIZES, parsed).items[0]
    assert (result.status, Fraction(result.points)) == (Status.GRADED, 1), (text, result)
