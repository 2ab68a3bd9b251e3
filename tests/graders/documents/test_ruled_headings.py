"""A question's heading set off by rules of dashes, equals signs or stars on either side
(`# ---- Q5 ----` in a .py file's comments, `=== Question 2 ===` in a transcript, `***** Problem
3 *****`): how programmers and plain-text writers mark sections. The dash after the number was
read as the label's own punctuation and the rest of the rule then ended it, so no such heading
was a label, and a .py file's written answers were read by content or called missing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric
from tests.graders.documents.numbered import numbered_rubric

N = 5
RUBRIC = parse_rubric(numbered_rubric("ruled", N)).rubric
WORDS = ["Q{n}", "Question {n}", "Problem {n}", "Q {n}", "Task {n}"]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from("-=*"), st.integers(2, 10), st.sampled_from(WORDS), st.booleans(),
       st.sampled_from(["py", "md", "txt"]), st.integers(2, N))
def test_a_heading_between_rules_labels_its_question(
        rule: str, width: int, word: str, closed: bool, suffix: str, count: int) -> None:
    bar = rule * width
    lines: list[str] = []
    for n in range(1, count + 1):
        heading = f"{bar} {word.format(n=n)}" + (f" {bar}" if closed else "")
        lines += [heading, f"(a) {100 + n}", f"(b) {200 + n}", ""]
    if suffix == "py":  # the answers in the comments of a program
        text = "import numpy as np\n\n" + "\n".join(f"# {line}" if line else "" for line in lines)
    else:
        text = "Homework\n\n" + "\n".join(lines)
    parsed = read_submission(text.encode(), f"hw.{suffix}", None, RUBRIC)
    for n in range(1, count + 1):
        answer = parsed.answers.get(f"Q{n}")
        assert answer is not None, (text, parsed.missing)
        assert answer.method == "label", (text, answer)
        assert f"{100 + n}" in answer.text and f"{200 + n}" in answer.text, (text, answer.text)
        assert str(100 + n + 1) not in answer.text, (text, answer.text)  # not the next one's
