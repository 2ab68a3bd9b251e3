"""Answers given in a Markdown table whose first column numbers the questions
(`| Q | part | answer |`, then `| 3 | (a) | 0.00025 |`): no row was a label, so the questions
answered only there were "missing" at confidence 1 (trial homework 4: 7 items of one file).
A table whose header's first cell names questions (Q, Question, #, Problem, No.) labels each
row by its number, rows of one question together; any other table (a schedule's `| step | lr
|`) labels nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric
from tests.graders.documents.numbered import numbered_rubric

QUESTIONS = 4
RUBRIC_TEXT = numbered_rubric("tables", QUESTIONS)
RUBRIC = parse_rubric(RUBRIC_TEXT).rubric

HEADERS = ["Q", "Question", "#", "Problem", "**Q**", "No."]
NUMBERS = ["{n}", "Q{n}", "**{n}**", "{n}."]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(HEADERS), st.sampled_from(NUMBERS), st.booleans(),
       st.integers(1, QUESTIONS))
def test_each_row_of_a_table_of_answers_is_labelled(
        header: str, number: str, split_parts: bool, in_table: int) -> None:
    # the first questions in the table, in order, the others under headings after it (a bare
    # number out of order is no label, in a table as anywhere)
    tabled = list(range(1, in_table + 1))
    rows = []
    for n in tabled:
        cell = number.format(n=n)
        if split_parts:
            rows += [f"| {cell} | (a) | {100 + n} |", f"| {cell} | (b) | {200 + n} |"]
        else:
            rows.append(f"| {cell} | (a) {100 + n}, (b) {200 + n} |")
    head = f"| {header} | part | answer |" if split_parts else f"| {header} | answer |"
    rule = "|---|---|---|" if split_parts else "|---|---|"
    written = [n for n in range(1, QUESTIONS + 1) if n not in tabled]
    prose = "\n\n".join(f"## Q{n}\n(a) {100 + n}\n(b) {200 + n}" for n in written)
    text = "# Homework\n\n" + "\n".join([head, rule, *rows]) + "\n\n" + prose + "\n"
    answers = read_submission(text.encode(), "hw.md", None, RUBRIC).answers
    for n in range(1, QUESTIONS + 1):
        assert f"Q{n}" in answers, text
        got = answers[f"Q{n}"].text
        assert str(100 + n) in got and str(200 + n) in got, (text, got)
        others = [str(100 + m) for m in range(1, QUESTIONS + 1) if m != n]
        assert not any(o in got for o in others), (text, got)


def test_a_table_that_numbers_something_else_labels_nothing() -> None:
    text = ("## Q1\n(a) 101 (b) 201\n\n| step | lr |\n|---|---|\n| 2 | 0.5 |\n| 3 | 0.25 |\n"
            "| 4 | 0.1 |\n")
    answers = read_submission(text.encode(), "hw.md", None, RUBRIC).answers
    assert set(answers) == {"Q1"}, answers


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HEADERS), st.sampled_from(["{n}({p})", "{n} ({p})", "Q{n}({p})",
                                                 "**{n}({p})**", "{n}{p}", "{n}{p})"]),
       st.integers(1, QUESTIONS))
def test_a_row_numbered_with_its_sub_part_is_labelled(header: str, cell: str, in_table: int
                                                      ) -> None:
    # `| 4(a) | N = V*d |` then `| 4(b) | 131,072,000 |` (trial homework 7: before, no such row
    # was a label and the questions answered only there were "missing" at confidence 1)
    from graders.engine import grade_submission
    from graders.rubric import LoadedRubric

    rows = [f"| {cell.format(n=n, p=p)} | {v + n} |" for n in range(1, in_table + 1)
            for p, v in (("a", 100), ("b", 200))]
    text = "# Homework\n\n" + "\n".join([f"| {header} | answer |", "|---|---|", *rows]) + "\n"
    parsed = read_submission(text.encode(), "hw.md", None, RUBRIC)
    for n in range(1, in_table + 1):
        got = parsed.answers[f"Q{n}"].text
        assert str(100 + n) in got and str(200 + n) in got, (text, got)
    loaded = parse_rubric(RUBRIC_TEXT)
    assert isinstance(loaded, LoadedRubric)
    results = {r.item_id: r for r in grade_submission(loaded, parsed).items}
    for n in range(1, in_table + 1):
        for part in "ab":
            assert results[f"q{n}.{part}"].points == 1, (text, results[f"q{n}.{part}"])


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(HEADERS), st.sampled_from(["{n}({p})", "{n}{p}", "Q{n}({p})", "{n}"]),
       st.permutations(list(range(1, QUESTIONS + 1))), st.integers(1, QUESTIONS - 1),
       st.sampled_from(["## {n}", "## Q{n}", "### Question {n}", "### {n}.", "**Q{n}.**"]),
       st.booleans())
def test_a_table_of_answers_in_any_order_before_or_after_headings(
        header: str, cell: str, order: list[int], in_table: int, heading: str,
        table_first: bool) -> None:
    # trial homework 7 (max.md): rows for 1, 4, 5 and 6, then `## 2`, `## 3`, `## 7`: rows out
    # of rubric order were no labels that move, so 4-6 were "missing" at confidence 1
    from graders.engine import grade_submission
    from graders.rubric import LoadedRubric

    tabled, headed = order[:in_table], sorted(order[in_table:])
    if "{p}" in cell:
        rows = [f"| {cell.format(n=n, p=p)} | {v + n} |" for n in tabled
                for p, v in (("a", 100), ("b", 200))]
    else:
        rows = [f"| {cell.format(n=n)} | (a) {100 + n}, (b) {200 + n} |" for n in tabled]
    table = "\n".join([f"| {header} | answer |", "|---|---|", *rows])
    prose = "\n\n".join(f"{heading.format(n=n)}\n(a) {100 + n}\n(b) {200 + n}" for n in headed)
    body = [table, prose] if table_first else [prose, table]
    text = "# Homework\n\n" + "\n\n".join(body) + "\n"
    parsed = read_submission(text.encode(), "hw.md", None, RUBRIC)
    for n in range(1, QUESTIONS + 1):
        assert f"Q{n}" in parsed.answers, (n, parsed.missing, text)
        got = parsed.answers[f"Q{n}"].text
        assert str(100 + n) in got and str(200 + n) in got, (text, got)
        others = [str(v + m) for m in range(1, QUESTIONS + 1) if m != n for v in (100, 200)]
        assert not any(o in got for o in others), (text, got)
        # a row's answer is read without the table's markup, at the row's place in the text
        answer = parsed.answers[f"Q{n}"]
        assert "|" not in got and answer.start is not None and answer.end is not None
        assert len(got) == answer.end - answer.start, (text, got)
    loaded = parse_rubric(RUBRIC_TEXT)
    assert isinstance(loaded, LoadedRubric)
    results = {r.item_id: r for r in grade_submission(loaded, parsed).items}
    for n in range(1, QUESTIONS + 1):
        for part in "ab":
            assert results[f"q{n}.{part}"].points == 1, (text, results[f"q{n}.{part}"])
