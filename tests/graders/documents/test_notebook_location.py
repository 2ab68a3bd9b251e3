"""Course notebooks as uploaded: a question asked in a markdown cell ("Inline Question N"), an
answer cell after it that opens with a marker ("**Your Answer:**"), code cells around them and
headings that are no questions. Generated here with nbformat (no real student notebook is used);
hypothesis varies the label spellings, the introduction, the marker (in its own cell or at the
end of the question's cell), untouched templates, the code cells between and their numbered
comments."""

from __future__ import annotations

import nbformat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from graders.documents import read_submission
from graders.documents.notebook import answer_cell, render_cells
from graders.rubric import parse_rubric

WORDS = ["alphaword", "betaword", "gammaword", "deltaword"]
CODE_WORD = "codeword"


def _rubric(n: int, phrase: bool, kinds: tuple[str, ...] = ()) -> str:
    questions = ""
    for i in range(1, n + 1):
        label = f'"Inline Question {i}"' if phrase else f'"{i}"'
        kind = kinds[i - 1] if kinds else "prose"
        questions += f"""  - id: IQ{i}
    labels: [{label}]
    answer_kind: {kind}
    items:
      - {{id: iq{i}, points: 1, grader: written, config: {{reference: [x]}}}}
"""
    return "slug: nb\ntitle: Notebook\nquestions:\n" + questions


MARKERS = ["**Your Answer:**", "$\\color{blue}{\\textit Your Answer:}$", "Your answer:",
           "*Your Answer:*", "Answer:"]
PLACEHOLDERS = ["", "*fill this in*", "Fill this in.", "_Your answer here_", "TODO"]
HEADINGS = ["# Transformer Captioning", "# Multi-Headed Attention", "## Positional Encoding",
            "# Setup", "## Overfit the model", "# Self-Attention"]
COMMENTS = ["# 1. Linear projections", "# 2. Split heads", "# 3. Attention scores",
            "# Problem 1: load data", "## 2. Train"]


@st.composite
def notebooks(draw: st.DrawFn) -> tuple[bytes, str, list[bool]]:
    n = draw(st.integers(min_value=2, max_value=4))
    phrase = draw(st.booleans())
    answered = [draw(st.booleans()) for _ in range(n)]
    if not any(answered):
        answered[0] = True
    cells = [new_markdown_cell(draw(st.sampled_from(HEADINGS)) + "\n\nIn this notebook you "
                               "will implement a Transformer."),
             new_code_cell("import numpy as np\n" + draw(st.sampled_from(COMMENTS)))]
    for i in range(1, n + 1):
        for _ in range(draw(st.integers(min_value=0, max_value=2))):
            cells.append(new_markdown_cell(draw(st.sampled_from(HEADINGS))))
            cells.append(new_code_cell(f"{draw(st.sampled_from(COMMENTS))}\nx = {CODE_WORD}"))
        bold = draw(st.sampled_from(["**Inline Question {}**", "## Inline Question {}",
                                     "**Inline Question {}:**", "### INLINE QUESTION {}"]))
        statement = ("Several design decisions were made above. Explain what would happen "
                     "if the following were removed:\n1. Scaling the weights\n2. Dropout")
        marker = draw(st.sampled_from(MARKERS))
        if answered[i - 1]:
            answer = f"The {WORDS[i - 1]} effect follows, because softmax saturates."
        else:
            answer = draw(st.sampled_from(PLACEHOLDERS))
        written = f"{marker}{draw(st.sampled_from([' ', chr(10) * 2]))}{answer}".strip()
        if draw(st.booleans()):  # the answer cell after the question's cell
            cells.append(new_markdown_cell(bold.format(i) + "\n\n" + statement))
            cells.append(new_markdown_cell(written))
        else:  # the template's marker at the end of the question's own cell
            cells.append(new_markdown_cell(f"{bold.format(i)}\n\n{statement}\n\n{written}"))
        for _ in range(draw(st.integers(min_value=0, max_value=2))):
            cells.append(new_code_cell(f"{draw(st.sampled_from(COMMENTS))}\ny = {CODE_WORD}"))
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    return raw, _rubric(n, phrase), answered


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(notebooks())
def test_each_answer_cell_is_its_question_s_answer_and_nothing_else(
    case: tuple[bytes, str, list[bool]],
) -> None:
    raw, rubric_yaml, answered = case
    rubric = parse_rubric(rubric_yaml).rubric
    parsed = read_submission(raw, "hw.ipynb", None, rubric)
    for i, done in enumerate(answered, start=1):
        qid = f"IQ{i}"
        if not done:
            # an untouched template (and the code after it) is no answer
            assert qid not in parsed.answers, (qid, parsed.answers.get(qid))
            continue
        answer = parsed.answers[qid]
        assert WORDS[i - 1] in answer.text, (qid, answer.text)
        others = [w for w in WORDS if w != WORDS[i - 1] and w in answer.text]
        assert not others, (qid, answer.text)
        # code cells and the question's own statement are never the prose answer
        assert CODE_WORD not in answer.text and "```" not in answer.text, answer.text
        assert "Several design decisions" not in answer.text, answer.text
        assert answer.strength == "strong", (qid, answer.weak_reason)


def test_heading_order_alone_is_weak_and_sent_to_review() -> None:
    """Labels "1", "2" and a notebook whose question cells carry no label: its headings are
    counted in order, which is weak evidence."""
    rubric = parse_rubric(_rubric(2, phrase=False)).rubric
    cells = [new_markdown_cell("# Attention\n\nWe will implement attention."),
             new_markdown_cell("The alphaword effect follows, because softmax saturates."),
             new_markdown_cell("# Positional encodings"),
             new_markdown_cell("The betaword effect follows, since order matters.")]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    parsed = read_submission(raw, "hw.ipynb", None, rubric)
    for answer in parsed.answers.values():
        assert answer.strength == "weak"
        assert "heading order" in answer.weak_reason or "content" in answer.weak_reason


def test_code_is_the_answer_only_to_a_question_that_asks_for_code() -> None:
    rubric = parse_rubric(_rubric(2, phrase=True, kinds=("code", "prose"))).rubric
    cells = [new_markdown_cell("**Inline Question 1**\n\nImplement the forward pass."),
             new_code_cell("def forward(x):\n    # 1. Linear projections\n    return x"),
             new_markdown_cell("**Inline Question 2**\n\nWhy does it work?"),
             new_code_cell("# 2. just code\nprint(1)")]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    parsed = read_submission(raw, "hw.ipynb", None, rubric)
    assert "def forward" in parsed.answers["IQ1"].text
    assert "IQ2" not in parsed.answers
    assert "only code" in parsed.missing["IQ2"]


def test_a_notebook_of_another_assignment_is_doubted_not_graded_zero() -> None:
    rubric = parse_rubric(_rubric(4, phrase=True)).rubric
    cells = [new_markdown_cell("# Linear regression\n\nFit a line."),
             new_markdown_cell("**Inline Question 1**\n\nWhat is the slope?"),
             new_markdown_cell("**Your Answer:** The alphaword slope is positive.")]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    parsed = read_submission(raw, "hw.ipynb", None, rubric)
    assert parsed.doubt.startswith("does this answer this assignment? 1 of 4 questions found")
    assert all(a.doubt == parsed.doubt for a in parsed.answers.values())


def test_answer_markers_and_untouched_templates() -> None:
    assert answer_cell("**Your Answer:** It scales.") == "It scales."
    assert answer_cell("$\\color{blue}{\\textit Your Answer:}$ It saturates.") == "It saturates."
    assert answer_cell("$\\color{blue}{\\textit Your Answer:}$ *fill this in*") == ""
    assert answer_cell("**Your Answer:**\n\n") == ""
    assert answer_cell("Answer the following questions about attention.") is None
    assert answer_cell("The answer is 5.") is None
    text = render_cells([{"cell_type": "markdown", "source": "**Your Answer:** yes"},
                         {"cell_type": "code", "source": "# 1. Linear projections"}])
    assert text == "Answer: yes\n\n```python\n# 1. Linear projections\n```"
