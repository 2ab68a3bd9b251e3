"""Location beyond rubric order: answers written out of order, lists that look like labels,
labels of questions the rubric does not have, notes before the first answer, pasted questions."""

from __future__ import annotations

from graders.documents import read_submission
from graders.documents.labels import find_labels
from graders.documents.locate import resolve_paths
from graders.rubric import BUNDLED_RUBRICS, load_rubric

BASICS = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
ATTENTION = load_rubric(BUNDLED_RUBRICS / "cs224n-attention-2021.yaml").rubric

B1 = "d_head = 768/12 = 64, and each of W_Q, W_K, W_V has 768 x 768 = 589,824 weights."
B2 = "softmax: e^2 = 7.389, e^1 = 2.718, e^0 = 1, the sum is 11.107, so [0.665, 0.245, 0.090]."
A2 = ("Stacking linear layers collapses to a single linear map; sigmoid gradients vanish in deep "
      "networks, ReLU keeps a gradient of 1 for positive inputs.")
A3 = ("Self-attention ignores word order, so positional encodings are needed: sinusoidal ones "
      "are fixed, learned absolute ones are limited, RoPE rotates queries and keys.")


def _read(text: str, rubric=BASICS):
    parsed = read_submission(text.encode(), "s.md", None, rubric)
    for answer in parsed.answers.values():
        assert answer.start is not None and parsed.text[answer.start:answer.end] == answer.text
    return parsed


def test_part_b_answered_before_part_a_order_b2_then_b1():
    parsed = _read(f"B2. {B2}\n\nB1. {B1}\n")
    assert parsed.answers["B1"].text == B1
    assert parsed.answers["B2"].text == B2
    assert "out of order" in parsed.answers["B1"].note
    assert "out of order" not in parsed.answers["B2"].note


def test_a3_before_a2_with_clear_labels():
    text = f"Q1 XOR is not linearly separable.\n\nQ3 {A3}\n\nQ2 {A2}\n"
    parsed = _read(text)
    assert parsed.answers["A2"].text == A2
    assert parsed.answers["A3"].text == A3
    assert parsed.answers["A1"].text == "XOR is not linearly separable."
    assert parsed.answers["A2"].method == "label"


def test_sub_parts_travel_with_their_out_of_order_answer():
    text = (f"B2) {B2}\n(b) the largest weight goes to the first token.\n\n"
            f"B1) {B1}\n(b) 589,824 per matrix\n")
    parsed = _read(text)
    assert parsed.answers["B2"].text.startswith("softmax")
    assert "largest weight" in parsed.answers["B2"].text
    assert parsed.answers["B1"].text.startswith("d_head")
    assert "589,824 per matrix" in parsed.answers["B1"].text
    assert "softmax" not in parsed.answers["B1"].text


def test_a_label_without_matching_content_does_not_move():
    # "Q3" says A3 but talks about greedy decoding (A6): no agreement, rubric order decides
    text = ("Q1 XOR is not linearly separable.\n\nQ3 Greedy decoding picks the best token each "
            "step; beam search keeps the top k.\n\nQ2 " + A2 + "\n")
    parsed = _read(text)
    assert not any("out of order" in a.note for a in parsed.answers.values())
    assert parsed.answers["A1"].text == "XOR is not linearly separable."


def test_in_order_document_is_unchanged_by_reordering():
    text = f"Q1 XOR is not linearly separable.\n\nQ2 {A2}\n\nQ3 {A3}\n\nB1 {B1}\n\nB2 {B2}\n"
    parsed = _read(text)
    assert [parsed.answers[q].text for q in ("A2", "A3", "B1", "B2")] == [A2, A3, B1, B2]
    assert not any("out of order" in a.note for a in parsed.answers.values())


def test_a_numbered_list_inside_an_answer_is_not_a_question_label():
    marks = find_labels("2) d) first\n\n3) a) next\n\nb) 1) one reason\n\n2) another reason\n")
    paths = [path for _, path in resolve_paths(marks)]
    assert (None, 2, None, None) not in paths  # stepping back to 2, already answered: a list
    assert paths[-1] == (None, 3, "b", None)


def test_restart_at_one_and_first_visit_backwards_are_kept():
    marks = find_labels("1. a\n\n3. b\n\n2. c\n\n1. d\n")
    assert [path[1] for _, path in resolve_paths(marks)] == [1, 3, 2, 1]


def test_labels_of_questions_the_rubric_does_not_have_are_not_answers():
    text = ("1) a) k_j^T q >> k_i^T q for every other key, so c = v_j.\n\n"
            "2) d) Correct: 10 out of 500: 2.0%. London baseline: 5.0%.\n\n"
            "3) a) The pretrained model reached a higher accuracy because it saw more data.\n\n"
            "b) It can spread misinformation.\n")
    parsed = _read(text, ATTENTION)
    assert "pretrained" not in parsed.answers["2d"].text
    assert "2f" in parsed.missing
    assert all("misinformation" not in a.text for a in parsed.answers.values())


def test_notes_before_the_first_answer_are_not_an_answer():
    notes = "\n\n".join(f"Lecture note {i}: a tensor of shape (b, l, d) goes through a layer."
                        for i in range(40))
    parsed = _read(notes + "\n\n1) a) k_j^T q >> k_i^T q for all i != j, so c = v_j.\n", ATTENTION)
    assert parsed.answers["1a"].text.startswith("k_j^T q")
    assert all("Lecture note" not in a.text for a in parsed.answers.values())


def test_a_pasted_question_marked_with_points_is_left_out_of_the_answer():
    text = ("(b) (4 points) An average of two: give a query q such that c is about the average.\n\n"
            "q = \\beta (k_a + k_b) with \\beta \\gg 0, since k_a^T q = k_b^T q = \\beta.\n")
    parsed = _read(text, ATTENTION)
    assert parsed.answers["1b"].text.startswith("q = \\beta")
    assert "pasted question" in parsed.answers["1b"].note
    # a lone statement is the question, not an answer: never graded, and the reason says so
    alone = _read("(b) (4 points) An average of two.\n", ATTENTION)
    assert "1b" not in alone.answers
    assert "only the question's own wording" in alone.missing["1b"]
