"""Two ways of naming questions in one document.

The classes: (1) a student numbers the first answers ("1)", "## 2", "3.") and names the later
ones in words ("**Q6**", "Question 5"): the numbers before the first question named in words,
when that one is not question 1, are the earlier questions, not points of an answer (they were
"missing" at confidence 1.0); (2) one fenced code block answers several code questions, each
opened by a comment naming it in words ("# Q2", "## Question 3: top-k"): each question reads its
own functions (two were "missing", the others ran the block's closing fence as code). One such
comment in a block ("# Problem 1: load data" in a notebook's code cell) is the template's.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.extract import extract_code
from graders.documents.locate import locate
from graders.rubric import parse_rubric

N = 5
RUBRIC = parse_rubric("slug: s\ntitle: S\nquestions:\n" + "".join(
    f"  - id: Q{n}\n    labels: [\"Q{n}\", \"Question {n}\", \"{n}\"]\n    answer_kind: code\n"
    f"    items:\n      - {{id: q{n}.a, points: 1, grader: written, config: "
    f"{{elements: [{{id: e, patterns: [x]}}]}}}}\n" for n in range(1, N + 1))).rubric


def _body(n: int) -> str:
    return f"def f{n}(x):\n    return x + {n}"


@settings(max_examples=120, deadline=None)
@given(st.integers(2, N), st.sampled_from(["{n})", "## {n}", "{n}.", "**{n}.**"]),
       st.sampled_from(["**Q{n}**", "Q{n}.", "Question {n}:", "### Question {n}"]),
       st.booleans())
def test_numbers_before_the_first_question_named_in_words_are_questions(
        switch: int, numbered: str, worded: str, fenced: bool) -> None:
    if numbered.startswith("#"):
        fenced = True  # a "## 2" line beside unfenced code is a Python comment (docs/location.md)
    parts = ["Homework"]
    for n in range(1, N + 1):
        label = (numbered if n < switch else worded).format(n=n)
        body = f"```python\n{_body(n)}\n```" if fenced else _body(n)
        parts.append(f"{label}\n{body}")
    text = "\n\n".join(parts) + "\n"
    location = locate(text, RUBRIC)
    for n in range(1, N + 1):
        answer = location.answers.get(f"Q{n}")
        assert answer is not None, (n, location.missing, text)
        assert f"def f{n}(" in answer.text, (n, answer.text, text)
        assert not [m for m in range(1, N + 1) if m != n and f"def f{m}(" in answer.text], text


@settings(max_examples=120, deadline=None)
@given(st.integers(2, N), st.sampled_from(["# Q{n}", "## Question {n}: part {n}", "#Q{n}",
                                           "# Question {n}"]),
       st.booleans(), st.booleans())
def test_one_code_block_with_a_comment_naming_each_question(
        count: int, comment: str, imports: bool, prose_after: bool) -> None:
    code = ["import numpy as np", ""] if imports else []
    for n in range(1, count + 1):
        code += [comment.format(n=n), _body(n), ""]
    text = "All my code in one block\n\n```python\n" + "\n".join(code) + "\n```\n"
    if prose_after:
        text += "\nThat is all.\n"
    location = locate(text, RUBRIC)
    for n in range(1, count + 1):
        answer = location.answers.get(f"Q{n}")
        assert answer is not None, (n, location.missing, text)
        extracted = extract_code(answer.text)
        assert extracted is not None and f"def f{n}(" in extracted.source, (n, answer.text)
        compile(extracted.source, "answer", "exec")  # no stray fence left in the program


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["```", "~~~"]), st.sampled_from(["", "\n", "\n\n"]),
       st.booleans())
def test_a_fence_cut_off_from_its_other_half_is_left_out(
        marker: str, trailing: str, closing: bool) -> None:
    body = _body(3)
    text = f"{body}\n{marker}{trailing}" if closing else f"{marker}python\n{body}\n"
    extracted = extract_code(text)
    assert extracted is not None
    compile(extracted.source, "answer", "exec")
    assert extracted.source.splitlines().index("def f3(x):") == (0 if closing else 1)


def test_a_numbered_step_comment_in_code_is_no_question() -> None:
    text = "Q1\n```python\n# 1. scores\ndef f1(x):\n    # 2. softmax\n    return x + 1\n```\n"
    location = locate(text, RUBRIC)
    assert "def f1(" in location.answers["Q1"].text and "Q2" not in location.answers


def test_one_comment_naming_a_question_in_a_block_is_no_label() -> None:
    text = "Q1\n```python\n# Problem 2: load data\ndef f1(x):\n    return x + 1\n```\n"
    location = locate(text, RUBRIC)
    assert "def f1(" in location.answers["Q1"].text and "Q2" not in location.answers
