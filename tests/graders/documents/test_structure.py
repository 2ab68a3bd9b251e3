"""The document's outline and the honesty rules around it, one class of writing per test."""

from __future__ import annotations

from decimal import Decimal

from graders.context import GradingResources
from graders.documents import read_submission
from graders.documents.handout import is_handout
from graders.documents.structure import structural_marks, title_label
from graders.engine import grade_submission
from graders.results import Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric, parse_rubric

ATTENTION = load_rubric(BUNDLED_RUBRICS / "cs224n-attention.yaml")
BASICS = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric


def _paths(text: str) -> list[tuple[object, ...]]:
    return [(m.num, m.letter, m.roman) for m in structural_marks(text)]


def test_titles_carry_labels_in_the_ways_students_write_them():
    assert title_label("(a) Copying in attention (3 points)") == {"letter": "a"}
    assert title_label("Q1-2. An average of two") == {"num": 1, "letter": "b"}
    assert title_label("Problem 7") == {"num": 7}
    assert title_label("1.b.ii") == {"num": 1, "letter": "b", "roman": "ii"}
    assert title_label("B3") == {"part": "B", "num": 3}
    assert title_label("Part B") == {"part": "B"}
    assert title_label("Attention exploration (21 points)") == {}


def test_unlabelled_latex_headings_are_numbered_by_level_and_order():
    text = ("\\section{Attention}\n\\subsection{Copying}\nx\n\\subsection{Averaging}\n"
            "\\subsubsection{}\ny\n\\subsubsection{}\nz\n\\section{Positions}\n"
            "\\subsection*{}\nw\n")
    assert _paths(text) == [(1, None, None), (1, "a", None), (1, "b", None), (1, "b", "i"),
                            (1, "b", "ii"), (2, None, None), (2, "a", None)]


def test_exam_class_and_enumerate_items_nest_under_their_part():
    text = ("\\begin{questions}\n\\titledquestion{Attention}[10]\n\\begin{parts}\n\\part[2] a\n"
            "\\begin{subparts}\n\\subpart[1] s\n\\subpart[1] t\n\\end{subparts}\n\\part[3] b\n"
            "\\begin{enumerate}[label=(\\roman*)]\n\\item one\n\\item two\n\\end{enumerate}\n")
    assert _paths(text) == [(1, None, None), (1, "a", None), (1, "a", "i"), (1, "a", "ii"),
                            (1, "b", None), (1, "b", "i"), (1, "b", "ii")]


def test_a_single_title_heading_above_the_questions_is_not_a_question():
    text = "# Homework 5\n\n## Attention\n\n### (a)\nx\n\n## Positions\n\n### (a)\ny\n"
    assert _paths(text) == [(1, None, None), (1, "a", None), (2, None, None), (2, "a", None)]


def test_python_comments_and_code_fences_are_not_headings():
    text = ("## Q1\n\n```python\n# compute the scores\nscores = q @ k.T\n```\n\n"
            "import numpy as np\n# scale by sqrt(d)\nx = np.sqrt(d)\n\n## Q2\nok\n")
    assert _paths(text) == [(1, None, None), (2, None, None)]


def test_typst_headings_and_numbered_lists_only_in_a_typst_document():
    typst = ("#set page(width: auto)\n= Question 1\n== (a)\n+ first\n+ second\n== (b)\n"
             "q = beta (k_a + k_b)\n")
    assert _paths(typst) == [(1, None, None), (1, "a", None), (1, "a", "i"), (1, "a", "ii"),
                             (1, "b", None)]
    assert _paths("= True\nx = 1\n") == []


def test_handout_voice_is_told_from_an_answer():
    assert is_handout("(2 points) Describe the output c.")
    assert is_handout("Suppose you sample the keys many times. What do you expect c to be?")
    assert not is_handout("We can set q = beta (k_a + k_b) with beta large.")
    assert not is_handout("Answer: yes, you get a different output for each order.")
    assert not is_handout("The output is close to v_j because alpha_j is close to one.")


def test_statement_before_an_answer_marker_is_left_out_and_its_labels_ignored():
    text = ("## Q1. Attention\n\n### Q1-3. Drawbacks\n\ni. Design a query q. (2 points)\n\n"
            "ii. What happens to c?\n\nMy answer:\n\ni. q = beta (mu_a + mu_b), beta >> 0.\n\n"
            "ii. c swings between v_a and v_b: high variance.\n")
    parsed = read_submission(text.encode(), "s.md", None, ATTENTION.rubric)
    assert parsed.answers["1c.i"].text.startswith("q = beta (mu_a + mu_b)")
    assert parsed.answers["1c.ii"].text.startswith("c swings between")
    assert "Design" not in parsed.answers["1c.i"].text


def test_answer_in_another_language_goes_to_review_not_to_a_confident_zero():
    text = ("# 1.\n\n- (a) 如果查询向量与某个键的点积非常大，而与其他键的点积接近零，"
            "那么注意力几乎全部集中在这个位置上，输出近似等于对应的值向量。\n")
    parsed = read_submission(text.encode(), "s.md", None, ATTENTION.rubric)
    answer = parsed.answers["1a.i"]
    assert answer.confidence <= 0.3 and "another language" in answer.note
    outcome = grade_submission(ATTENTION, parsed, GradingResources(options={}))
    item = next(r for r in outcome.items if r.item_id == "1a.i")
    assert item.status is Status.NEEDS_REVIEW


def test_unclaimed_text_where_an_answer_belongs_is_graded_for_review_not_missing():
    # no label and no word of A1's: only its place before A2 says what it answers
    text = ("Honestly I am unsure here, so my attempt stays in plain words without symbols.\n\n"
            "A2. A stack of linear layers is still linear; add a nonlinearity such as ReLU.\n\n"
            "A3. Attention ignores order, so positional encodings add it.\n")
    parsed = read_submission(text.encode(), "s.txt", None, BASICS)
    a1 = parsed.answers["A1"]
    assert a1.text.startswith("Honestly") and a1.method == "order"
    assert a1.confidence < 0.6
    # several questions unplaced after the last answer: order cannot say which, so missing
    assert "A5" in parsed.missing and "B4" in parsed.missing


def test_a_question_some_handouts_do_not_ask_counts_nothing_when_unanswered():
    rubric = parse_rubric("""
slug: editions
title: Editions
handouts: ["2023", "2024"]
questions:
  - id: "1"
    items: [{id: "1", points: 2, grader: written, config: {reference: [a copy of v_j]}}]
  - id: "2"
    handouts: ["2024"]
    items: [{id: "2", points: 1, grader: written, config: {reference: [robust]}}]
""")
    parsed = read_submission(b"1. c is a copy of v_j\n", "s.txt", None, rubric.rubric)
    outcome = grade_submission(rubric, parsed, GradingResources(options={}))
    second = next(r for r in outcome.items if r.item_id == "2")
    assert second.status is Status.MISSING
    assert second.max_points == Decimal(0) and "2023" in second.feedback
    assert outcome.max_points == Decimal(2)


def test_numbering_that_runs_on_from_part_a_into_part_b():
    answers = [
        "A perceptron draws one line; XOR is not linearly separable.",
        "Stacked linear layers collapse to one linear map; use ReLU.",
        "Attention is blind to order; positional encodings add it.",
        "The query is what a token looks for, the key what it offers.",
        "Several heads attend to different relations at once.",
        "Greedy decoding takes the argmax; beam search keeps k hypotheses.",
        "d_head = 768 / 12 = 64 and each projection has 589,824 weights.",
        "e^2 = 7.389, e^1 = 2.718, e^0 = 1, softmax = [0.665, 0.245, 0.090].",
    ]
    text = "\n\n".join(f"Problem {n}. {a}" for n, a in enumerate(answers, start=1))
    parsed = read_submission(text.encode(), "s.txt", None, BASICS)
    assert parsed.answers["B1"].text.startswith("d_head = 768 / 12 = 64")
    assert parsed.answers["B1"].method == "label"
    assert parsed.answers["B2"].text.startswith("e^2 = 7.389")
    assert parsed.answers["A6"].text.startswith("Greedy")


def test_letters_that_start_past_a_name_the_questions_with_those_letters():
    text = ("(d) dev accuracy 1.6%, always predicting London 5.0%\n\n(f) dev accuracy 22.4%\n\n"
            "(g) with RoPE the dev accuracy is 27.0% (e.g. after 650 epochs)\n")
    parsed = read_submission(text.encode(), "s.md", None, ATTENTION.rubric)
    assert parsed.answers["3d"].text.startswith("dev accuracy 1.6%")
    assert parsed.answers["3f"].text == "dev accuracy 22.4%"
    # "e.g." is an abbreviation, not a label (g) inside the answer
    assert parsed.answers["3g"].text.endswith("(e.g. after 650 epochs)")


def test_a_lone_unlabelled_heading_numbers_nothing():
    assert _paths("## Results\n\nNo pretraining: 1.6%\n") == []
