"""`Part N` headings that number the questions, and the exam parts that group them.

The class: an assignment numbers its questions 1 to N and a student heads each answer `### Part
1` ... `### Part 8` (or `**Part 3:**`, `Part 4.`), in any order, sub-parts `a.`, `(b)` under
them. Every `Part N` was read as an exam-part heading that names no question, so the questions
answered only under such headings were "missing" at confidence 1 (trial homework 7, ray.md:
Q4, Q6, Q7, Q8). `Problem N`, `Exercise N` and `Task N` headings name their question in words.

The safety: an exam's real parts (`## Part 1` then `1.`, `2.`; `## Part A` then `Q1`, `Q2`)
group several questions and stay parts; a prose line that starts with "Part 2 of ..." is no
label.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.locate import locate
from graders.rubric import parse_rubric
from tests.graders.documents.numbered import numbered_rubric

N = 6
RUBRIC = parse_rubric(numbered_rubric("parts", N)).rubric

HEADINGS = ["### Part {n}", "## Part {n}: answers", "**Part {n}**", "Part {n}.", "# Part {n}",
            "### Part {n} (quiz)", "**Part {n}:**", "### Problem {n}", "**Exercise {n}.**",
            "## Task {n}"]
SUBPARTS = ["a. {a}\nb. {b}", "(a) {a}\n(b) {b}", "(a) {a}\n\n(b) {b}", "a) {a}\nb) {b}"]


def _own_values_only(text: str, answers: dict[str, str], numbers: list[int]) -> None:
    for n in numbers:
        assert f"Q{n}" in answers, (n, text)
        got = answers[f"Q{n}"]
        assert str(100 + n) in got and str(200 + n) in got, (n, got, text)
        others = [str(v + m) for m in range(1, N + 1) if m != n for v in (100, 200)]
        assert not any(o in got for o in others), (n, got, text)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(HEADINGS), st.sampled_from(SUBPARTS),
       st.permutations(list(range(1, N + 1))), st.integers(3, N), st.booleans())
def test_part_headings_that_number_the_questions_label_them(
        heading: str, subparts: str, order: list[int], count: int, titled: bool) -> None:
    answered = order[:count]
    blocks = [heading.format(n=n) + "\n" + subparts.format(a=100 + n, b=200 + n)
              for n in answered]
    text = ("## Homework 7 (Ray)\n\n" if titled else "") + "\n\n".join(blocks) + "\n"
    location = locate(text, RUBRIC)
    _own_values_only(text, {q: a.text for q, a in location.answers.items()}, answered)
    for n in answered:
        assert location.answers[f"Q{n}"].method == "label", (n, location.answers, text)


QUESTION_LABELS = ["{n}.", "Q{n}.", "**{n}.**", "Question {n}:", "{n})"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["## Part {p}", "**Part {p}**", "Part {p}:", "### Part {p} (written)"]),
       st.sampled_from(["numbers", "letters", "romans"]), st.sampled_from(QUESTION_LABELS),
       st.integers(1, N - 1), st.booleans())
def test_the_parts_of_an_exam_that_group_numbered_questions_stay_parts(
        heading: str, names: str, label: str, split: int, restart: bool) -> None:
    # part 1 holds questions 1..split, part 2 the others: a part is never one question
    part_names = {"numbers": ("1", "2"), "letters": ("A", "B"), "romans": ("I", "II")}[names]
    groups = [list(range(1, split + 1)), list(range(split + 1, N + 1))]
    blocks = []
    for name, questions in zip(part_names, groups, strict=True):
        lines = [heading.format(p=name)]
        for n in questions:
            lines.append(label.format(n=n) + f"\n(a) {100 + n}\n(b) {200 + n}")
        blocks.append("\n\n".join(lines))
    text = "\n\n".join(blocks) + "\n"
    location = locate(text, RUBRIC)
    _own_values_only(text, {q: a.text for q, a in location.answers.items()},
                     list(range(1, N + 1)))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Part 2 of the proof", "Part 3 of this answer", "Part 1 of it"]),
       st.integers(1, 3))
def test_a_sentence_that_starts_with_part_n_is_no_label(sentence: str, lines: int) -> None:
    body = "\n".join(f"{sentence} uses {100 + k}." for k in range(lines))
    text = f"## Q1\n(a) 101\n(b) 201\n\n{body}\n\n## Q5\n(a) 105\n(b) 205\n"
    location = locate(text, RUBRIC)
    assert set(location.answers) <= {"Q1", "Q5"} or all(
        location.answers[q].method != "label" for q in location.answers
        if q not in ("Q1", "Q5")), (location.answers, text)
