"""A .py upload that answers its written and numeric questions in comments.

The class: a homework of code, numbers and prose submitted as one Python file, the non-code
answers as comment blocks under a comment naming the question (`# Question 5`, `# Q6.`,
`## 5)`): they were "missing" at confidence 1.0 (a `#` line beside code is a comment, never a
label). A question that asks no code and is not found in the file is looked for in its comments
alone; code questions still get the whole file.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.documents.submission import comments_only
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: py
title: PY
questions:
  - id: Q1
    labels: ["Q1", "Question 1", "1"]
    answer_kind: code
    items: [{id: q1.x, points: 1, grader: written, config: {elements: [{id: e, patterns: [x]}]}}]
  - id: Q2
    labels: ["Q2", "Question 2", "2"]
    answer_kind: numeric
    items: [{id: q2.n, points: 1, grader: numeric, config: {expected: 1536, kind: integer}}]
  - id: Q3
    labels: ["Q3", "Question 3", "3"]
    answer_kind: prose
    items: [{id: q3.w, points: 1, grader: written, config: {elements: [{id: e, patterns: [x]}]}}]
""").rubric
PROSE = "eps avoids a division by zero when the variance is zero."


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["# Question {n}", "# Q{n}.", "## {n})", "#Q{n}:",
                        "# --- Question {n} ---"]),
       st.sampled_from(["# ", "#", "    # "]), st.booleans(), st.booleans())
def test_comment_answers_of_a_python_file_are_found(
        label: str, prefix: str, code_first: bool, trailing_code: bool) -> None:
    code = "import numpy as np\n\n\ndef f(x):\n    # scale the input\n    return 2 * x\n"
    notes = [label.format(n=2), f"{prefix}(a) 1536 parameters".rstrip(), "",
             label.format(n=3), f"{prefix}{PROSE}"]
    comments = "\n".join(notes) + "\n"
    text = (code + "\n\n" + comments) if code_first else (comments + "\n\n" + code)
    if trailing_code:
        text += "\n\nprint(f(1))\n"
    parsed = read_submission(text.encode(), "hw.py", None, RUBRIC)
    assert "1536" in parsed.answers["Q2"].text, (parsed.missing, text)
    assert PROSE in parsed.answers["Q3"].text, (parsed.missing, text)
    assert "return" not in parsed.answers["Q3"].text
    assert parsed.answers["Q1"].text == text  # the code question: the whole program


def test_comments_only_keeps_offsets_and_drops_code() -> None:
    text = "x = 1  # inline\n# Question 2\n    # 1536\ny = '#'\n"
    kept = comments_only(text)
    assert len(kept) == len(text)
    assert "x = 1" not in kept and "inline" not in kept and "y =" not in kept
    assert kept.splitlines()[1].rstrip() == "Question 2" and kept.splitlines()[2].strip() == "1536"
