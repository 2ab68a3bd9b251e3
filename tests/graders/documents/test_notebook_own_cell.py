"""Notebooks a student builds without a template: the answer written under the question's label
in the same markdown cell ("## Question 1\\nThe model uses 8 heads."), no answer cell after it
(the next cell is code, or the next question). The question's own cell is then the answer, but
its text can be told from the handout's only where the rubric gives the question's prompt: with
a prompt that the text does not repeat it is strong; without one it is found and sent to review;
a cell that only asks (a question, the handout's words) is no answer. A template whose answer
cell follows the question cell keeps that cell as the answer. Generated with nbformat."""

from __future__ import annotations

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from graders.documents import read_submission
from graders.rubric import parse_rubric

PROMPTS = ("Explain why the softmax saturates when the logits grow large.",
           "How many attention heads does the encoder use?")
SUBJECTS = ["The softmax", "Each head", "The encoder", "This layer", "Our model"]
VERBS = ["uses", "keeps", "computes", "spreads", "needs"]
OBJECTS = ["eight heads", "a width of 64", "one weight per key", "the scaled scores",
           "a residual path"]
LABELS = ["## Question {}", "### Question {}", "**Question {}**", "Question {}:"]


def _rubric(prompt: bool) -> str:
    questions = ""
    for i, text in enumerate(PROMPTS, start=1):
        said = f"    prompt: {text!r}\n" if prompt else ""
        questions += (f"  - id: Q{i}\n    labels: [\"Question {i}\"]\n{said}"
                      f"    items:\n      - {{id: q{i}, points: 1, grader: written, "
                      f"config: {{reference: [x]}}}}\n")
    return "slug: own\ntitle: Own cells\nquestions:\n" + questions


def _read(cells: list[object], prompt: bool):  # type: ignore[no-untyped-def]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    return read_submission(raw, "hw.ipynb", None, parse_rubric(_rubric(prompt)).rubric)


sentences = st.builds(lambda s, v, o: f"{s} {v} {o}.", st.sampled_from(SUBJECTS),
                      st.sampled_from(VERBS), st.sampled_from(OBJECTS))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(LABELS), sentences, sentences, st.booleans(), st.booleans())
def test_an_answer_under_the_label_in_the_same_cell_is_found(
    label: str, first: str, second: str, code_between: bool, prompt: bool
) -> None:
    cells: list[object] = [new_markdown_cell("# My transformer notes")]
    cells.append(new_markdown_cell(f"{label.format(1)}\n{first}"))
    if code_between:
        cells.append(new_code_cell("x = 1  # 1. Linear projections"))
    cells.append(new_markdown_cell(f"{label.format(2)}\n{second}"))
    parsed = _read(cells, prompt)
    for qid, said in (("Q1", first), ("Q2", second)):
        answer = parsed.answers[qid]
        assert answer.text.strip() == said, (qid, answer.text)
        assert "x = 1" not in answer.text
        # strong only where the rubric's prompt tells the student's words from the handout's
        assert answer.strength == ("strong" if prompt else "weak"), answer


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(LABELS), sentences)
def test_a_template_answer_cell_after_the_question_cell_is_the_answer(
    label: str, said: str
) -> None:
    cells: list[object] = [new_markdown_cell(f"{label.format(1)}\n{PROMPTS[0]}"),
                           new_markdown_cell(said),
                           new_markdown_cell(f"{label.format(2)}\n{PROMPTS[1]}"),
                           new_markdown_cell(said)]
    parsed = _read(cells, prompt=True)
    assert parsed.answers["Q1"].text.strip() == said
    assert PROMPTS[0] not in parsed.answers["Q1"].text


def test_a_cell_that_only_asks_is_no_answer() -> None:
    cells: list[object] = [new_markdown_cell("## Question 1\nWhy does the softmax saturate?"),
                           new_code_cell("print(1)"),
                           new_markdown_cell("## Question 2\nThe encoder uses eight heads.")]
    parsed = _read(cells, prompt=False)
    assert "Q1" not in parsed.answers
    assert parsed.answers["Q2"].text.strip() == "The encoder uses eight heads."


@pytest.mark.parametrize("prompt", [True, False])
def test_the_handout_statement_then_the_students_words_in_one_cell(prompt: bool) -> None:
    # The statement is recognised as the handout's (it asks "you", it is imperative) and left
    # out; the student's words after it are the answer, strong only with the rubric's prompt.
    cells: list[object] = [
        new_markdown_cell(f"## Question 1\n{PROMPTS[0]} Explain what you see. (2 points)\n\n"
                          "The scaled scores spread the weights."),
        new_markdown_cell("## Question 2\nThe encoder uses eight heads.")]
    parsed = _read(cells, prompt=prompt)
    answer = parsed.answers["Q1"]
    assert answer.text.strip() == "The scaled scores spread the weights."
    assert answer.strength == ("strong" if prompt else "weak"), answer
