"""Location on synthetic documents: each of the label habits the seeds show, in isolation."""

from __future__ import annotations

from graders.documents import read_submission
from graders.rubric import BUNDLED_RUBRICS, load_rubric

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric


def _read(text: str):
    return read_submission(text.encode(), "s.md", None, RUBRIC)


def test_explicit_part_labels():
    parsed = _read("B1. d_head = 768/12 = 64\n\nB2) softmax = [0.665, 0.245, 0.090]\n")
    assert parsed.answers["B1"].text.startswith("d_head")
    assert parsed.answers["B2"].text.startswith("softmax")
    assert "A1" in parsed.missing


def test_restarted_numbering_goes_to_part_b_by_order():
    text = (
        "1. XOR is not linearly separable so a perceptron fails.\n\n"
        "2. A stack of linear layers is linear; vanishing gradients; ReLU vs sigmoid.\n\n"
        "1. d_head = 768/12 = 64, each W_Q has 589,824 weights\n\n"
        "2. softmax: e^2 = 7.389, sum 11.107, [0.665, 0.245, 0.090]\n"
    )
    parsed = _read(text)
    assert parsed.answers["A1"].text.startswith("XOR")
    assert parsed.answers["A2"].text.startswith("A stack")
    assert parsed.answers["B1"].text.startswith("d_head")
    assert parsed.answers["B2"].text.startswith("softmax")
    assert "A3" in parsed.missing


def test_sub_labels_stay_with_their_question():
    text = "Q1 (a) d_head = 64\n(b) 768 x 768 = 589,824 per matrix\n(c) total 1,769,472\n"
    parsed = _read(text.replace("Q1", "B1"))
    b1 = parsed.answers["B1"]
    assert "(b) 768 x 768" in b1.text and "1,769,472" in b1.text


def test_missing_label_found_by_content():
    text = (
        "Q1 A perceptron draws one line; XOR is not linearly separable.\n\n"
        "Self-attention ignores word order, so positional encodings are needed: sinusoidal "
        "ones are fixed, learned absolute ones are limited, RoPE rotates queries and keys.\n\n"
        "Q4 The query is what a token looks for, the key what it offers, the value what it "
        "passes on; divide by sqrt(d_k) to keep the softmax from saturating.\n"
    )
    parsed = _read(text)
    assert parsed.answers["A3"].text.startswith("Self-attention ignores")
    assert parsed.answers["A3"].method == "content"
    assert parsed.answers["A1"].text.endswith("separable.")
    assert parsed.answers["A4"].text.startswith("The query")


def test_no_labels_at_all_uses_content_with_lower_confidence():
    text = (
        "The perceptron cannot do XOR: it is not linearly separable; a hidden layer with a "
        "non-linear activation fixes it.\n\n"
        "Greedy decoding takes the most probable token each step; beam search keeps the top k "
        "sequences.\n"
    )
    parsed = _read(text)
    assert parsed.answers["A1"].text.startswith("The perceptron")
    assert parsed.answers["A6"].text.startswith("Greedy")
    assert parsed.answers["A1"].method == "content"
    assert parsed.answers["A1"].confidence < 0.9


def test_duplicate_label_decided_by_content():
    text = (
        "Q5 Several heads attend to different subspaces in parallel.\n\n"
        "Q6 d_model is the width, h the number of heads, d_head = d_model / h.\n\n"
        "Q6 Greedy decoding picks the best token each step; beam search keeps the top k.\n"
    )
    parsed = _read(text)
    assert "d_head = d_model / h" in parsed.answers["A5"].text
    assert parsed.answers["A6"].text.startswith("Greedy")


def test_answers_run_together_under_one_label_are_split_by_content():
    text = (
        "5. Multiple heads attend to different subspaces; d_model, h and d_head = d_model/h.\n\n"
        "Greedy decoding picks the arg-max token; beam search keeps the top k sequences and "
        "finds a higher joint probability.\n"
    )
    parsed = _read(text)
    assert parsed.answers["A5"].text.startswith("Multiple heads")
    assert parsed.answers["A6"].text.startswith("Greedy decoding")


def test_spans_point_into_the_document_and_missing_has_a_reason():
    text = "Q1 XOR is not linearly separable.\n"
    parsed = _read(text)
    a1 = parsed.answers["A1"]
    assert a1.start is not None and a1.end is not None
    assert parsed.text[a1.start:a1.end] == a1.text
    assert "B3" in parsed.missing and "def attention" in parsed.missing["B3"]


def test_hostile_text_is_located_quickly_without_executing(tmp_path):
    marker = tmp_path / "pwned"
    evil = f"__import__('os').system('touch {marker}')"
    text = f"Q1 {evil}\n\nQ2 " + "{" * 3000 + "x" + "}" * 3000 + "\n\nQ3 10^{{10^{{10}}}} (10^9)!\n"
    parsed = _read(text)
    assert evil in parsed.answers["A1"].text
    assert not marker.exists()
