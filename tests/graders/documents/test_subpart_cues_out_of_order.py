"""Numeric questions with sub-parts, answered out of order (the fifth trial homework: `Q2 (a)
... (b) ...` first, then `Q1 (a) ...`). rubrics.md asks authors to give each item its sub-part's
marker among its cues (`cues: ["(a)", attention]`); those markers were read as content, and a
question whose other sub-part is a derivation (an item without cues) has only `(a)`, so a block
naming `(a)` and `(b)` seemed to answer the other questions more than its own. The block
labelled `Q1` was then not moved to Q1, and Q1 was 'missing' at confidence 1. A sub-part marker
picks a value inside an answer; it is no evidence of which question a passage answers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.documents.labels import find_labels
from graders.rubric import parse_rubric


def _question(n: int, first: str, second: str) -> str:
    if not second:  # a derivation as the second sub-part: its item has no cues
        return f"""
  - id: Q{n}
    labels: ["Q{n}", "{n}"]
    answer_kind: mixed
    items:
      - id: q{n}.a
        points: 1
        grader: numeric
        config: {{expected: {n}.5, cues: ["(a)", {first}], avoid_cues: ["(b)"]}}
      - id: q{n}.b
        points: 1
        grader: symbolic
        config: {{mode: depends_on_difference, target: s, pair: [m, n]}}"""
    return f"""
  - id: Q{n}
    labels: ["Q{n}", "{n}"]
    answer_kind: numeric
    items:
      - id: q{n}.a
        points: 1
        grader: numeric
        config: {{expected: {n}.5, cues: ["(a)", {first}], avoid_cues: ["(b)"]}}
      - id: q{n}.b
        points: 1
        grader: numeric
        config: {{expected: {n}.25, cues: ["(b)", {second}], avoid_cues: ["(a)"]}}"""


RUBRIC = parse_rubric("slug: parts\ntitle: Sub-parts\nquestions:" + "".join([
    _question(1, "angle", ""), _question(2, "norm", "variance"),
    _question(3, "experts", "weights"), _question(4, "bytes", "cache")])).rubric

# bodies that use none of the questions' own cue words: handwriting rarely repeats them
BODIES = {n: (f"{n}.5 rad", f"{n}.25" if n > 1 else "s = cos(m - n)") for n in range(1, 5)}
LAYOUTS = st.sampled_from(["Q{n} (a) {a}\n   (b) {b}", "Q{n}\n(a) {a}\n(b) {b}",
                           "**Q{n}** (a) {a} (b) {b}", "Q{n}. (a) {a}\n(b) {b}",
                           "Q{n} a) {a}\n   b) {b}"])


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.permutations([1, 2, 3, 4]), LAYOUTS)
def test_a_worded_label_with_sub_parts_is_found_in_any_order(order: list[int],
                                                             layout: str) -> None:
    parts = [layout.format(n=n, a=BODIES[n][0], b=BODIES[n][1]) for n in order]
    text = "Homework 5\n\n" + "\n\n".join(parts) + "\n"
    parsed = read_submission(text.encode(), "s.txt", None, RUBRIC)
    assert not parsed.missing, (text, parsed.missing)
    for n in order:
        assert BODIES[n][0] in parsed.answers[f"Q{n}"].text, (text, n,
                                                              parsed.answers[f"Q{n}"].text)


ROMAN_LAYOUTS = st.sampled_from(["Q{n}.i {a}\nQ{n}.ii {b}", "**Q{n}.i** {a}\n\n**Q{n}.ii** {b}",
                                 "Q{n}.i: {a}\nQ{n}.ii: {b}",
                                 "Question {n}.i {a}\nQuestion {n}.ii {b}",
                                 "Problem {n}.i  {a}\n\nProblem {n}.ii  {b}"])


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.permutations([1, 2, 3, 4]), ROMAN_LAYOUTS)
def test_a_worded_number_with_a_roman_sub_part_labels_its_question(order: list[int],
                                                                   layout: str) -> None:
    """`Q3.i`, `**Q2.ii**` (the trial's Markdown and OCR submissions): a worded question
    number and its sub-part in roman numerals, one token. Before, no label at all: the answers
    written out of order were 'missing' at confidence 1, or found by content only."""
    parts = [layout.format(n=n, a=BODIES[n][0], b=BODIES[n][1]) for n in order]
    text = "Homework 5\n\n" + "\n\n".join(parts) + "\n"
    marks = [m for m in find_labels(text) if m.num is not None]
    assert [(m.num, m.letter) for m in marks] == [(n, x) for n in order for x in "ab"], text
    parsed = read_submission(text.encode(), "s.md", None, RUBRIC)
    assert not parsed.missing, (text, parsed.missing)
    for n in order:
        answer = parsed.answers[f"Q{n}"]
        assert BODIES[n][0] in answer.text and BODIES[n][1] in answer.text, (text, n, answer.text)
        assert answer.strength == "strong", (text, n, answer)
