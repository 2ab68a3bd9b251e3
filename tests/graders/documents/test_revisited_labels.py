"""A student who comes back to an earlier question after the last one (`**Q2** Correction: ...`,
`Q2. Note: ...`, `## Question 2` again at the end): the text under that label belongs to Q2, not to
the last answer. A label naming its question in words that stepped back to a number already
answered was dropped as an enumeration, so the revisit was read into the last answer's text
(its values rivals there), and Q2 was graded on its first answer alone. Now the revisit is Q2's:
when its values differ from the first answer's, Q2 is answered twice and goes to review
(repeats.py); a note that restates the same values leaves Q2 as it was."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric
from tests.graders.documents.numbered import numbered_rubric

N = 4
RUBRIC = parse_rubric(numbered_rubric("revisit", N)).rubric
LABELS = ["**Q{n}**", "Q{n}.", "## Q{n}", "**Question {n}**", "### Question {n}:", "Q{n}:"]
REVISITS = ["Correction: the first value is {a} and the second is {b}.",
            "Note: I rechecked this, (a) is {a} and (b) is {b}.",
            "Looking back, I get {a} for the first part and {b} for the second."]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(LABELS), st.sampled_from(REVISITS), st.integers(1, N - 1),
       st.booleans(), st.booleans(), st.sampled_from(["md", "txt"]))
def test_a_label_revisited_after_the_last_answer_belongs_to_its_question(
        label: str, revisit: str, k: int, differ: bool, own_line: bool, suffix: str) -> None:
    lines = ["# Homework 2", ""]
    for n in range(1, N + 1):
        lines += [label.format(n=n), f"(a) {100 + n}", f"(b) {200 + n}", ""]
    a, b = (900 + k, 800 + k) if differ else (100 + k, 200 + k)
    body = revisit.format(a=a, b=b)
    head = label.format(n=k)
    lines += [head, body] if own_line or head.startswith("#") else [f"{head} {body}"]
    text = "\n".join(lines) + "\n"
    parsed = read_submission(text.encode(), f"hw.{suffix}", None, RUBRIC)
    last = parsed.answers[f"Q{N}"]
    assert body not in last.text and str(a) not in last.text, (text, last.text)
    for n in range(1, N + 1):
        answer = parsed.answers[f"Q{n}"]
        assert f"{100 + n}" in answer.text and f"{200 + n}" in answer.text, (text, answer)
        if n == k and differ:
            assert answer.strength == "weak" and "answered twice" in answer.weak_reason, (
                text, answer)
        else:
            assert answer.strength == "strong", (text, n, answer)
