"""A document's title that names the homework and its number ("# HW 4 — Quinn", "## HW4 (Kai)",
"**Assignment 4: decoding**") was read as the label of question 4: question 4 took the whole
numbered list below it ("1. ...", "2. ..." as points of that answer) and the other questions
were not found (trial homework 4: 11 of 20 items to review as "does this answer this
assignment? 3 of 9 questions found"). The homework's number is no question's; a number with a
sub-part ("HW 4a", "HW 1.2") still names one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.documents.titles import title_label
from graders.rubric import parse_rubric

QUESTIONS = 5
RUBRIC = parse_rubric("slug: titled\ntitle: Titled\nquestions:\n" + "".join(
    f"""  - id: Q{n}
    labels: ["Q{n}", "Question {n}", "{n}"]
    answer_kind: numeric
    items:
      - {{id: q{n}, points: 1, grader: numeric, config: {{expected: {100 + n}}}}}
""" for n in range(1, QUESTIONS + 1))).rubric

TITLES = ["# HW {n} — Quinn Adeyemi", "## HW{n} (Kai)", "# Homework {n}", "HW {n} - Lee",
          "**Assignment {n}: decoding**", "# hw {n}", "# Problem Set {n} — Ana"]
LABELS = ["{q}. ", "{q}) ", "**{q}.** ", "### {q}.\n\n"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TITLES), st.integers(1, QUESTIONS), st.sampled_from(LABELS),
       st.booleans())
def test_the_homework_number_in_the_title_is_no_question(
        title: str, number: int, label: str, subparts: bool) -> None:
    body = "\n\n".join(
        label.format(q=q) + (f"(a) {100 + q}" if subparts else f"{100 + q}")
        for q in range(1, QUESTIONS + 1))
    text = title.format(n=number) + "\n\n" + body + "\n"
    submission = read_submission(text.encode(), "hw.md", None, RUBRIC)
    for q in range(1, QUESTIONS + 1):
        answer = submission.answers.get(f"Q{q}")
        assert answer is not None, (text, submission.missing)
        assert str(100 + q) in answer.text and answer.text.count("10") == 1, (text, answer.text)


def test_a_sub_part_after_the_homework_word_is_still_a_question() -> None:
    assert title_label("HW 4a") == {"num": 4, "letter": "a"}
    assert title_label("HW 1.2") == {"num": 1, "letter": "b"}
    assert title_label("HW 4 — Quinn") == {}
