from __future__ import annotations

from decimal import Decimal

import pytest

from graders.context import GradingResources
from graders.embedding import EmbedderUnavailable
from graders.registry import get_grader
from graders.results import Status
from graders.rubric import parse_rubric
from graders.written import GRADER
from graders.written import grader as grader_module
from tests.graders.written.conftest import Grade, grade_text


def test_registered_as_the_written_kind() -> None:
    assert get_grader("written") is GRADER


def test_full_credit_quotes_the_sentence_with_its_span(grade: Grade) -> None:
    prefix = "Name: someone\nQ1 "
    text = "A perceptron draws one line. But XOR is not linearly separable, so it fails."
    result = next(r for r in grade("A1", text, prefix) if r.item_id == "a1.nonseparable")
    assert result.points == Decimal(4) and result.status is Status.GRADED
    document = prefix + text
    sentence = next(e for e in result.evidence if "not linearly separable" in e.text)
    assert sentence.kind == "sentence" and sentence.start is not None and sentence.end is not None
    assert document[sentence.start : sentence.end] == sentence.text


def test_known_wrong_claim_gets_its_points_and_feedback(grade: Grade) -> None:
    text = "A single perceptron fails on XOR because the perceptron has no bias."
    result = next(r for r in grade("A1", text) if r.item_id == "a1.linear_boundary")
    assert result.points == 0
    assert "bias" in result.feedback and result.status is Status.GRADED
    assert any(e.note == "a known wrong claim" for e in result.evidence)


def test_partial_level_from_the_rubric(grade: Grade) -> None:
    text = "Scaling by sqrt(d_k) prevents large dot products that saturate the softmax."
    result = next(r for r in grade("A4", text) if r.item_id == "a4.scaling")
    assert result.points == Decimal(3)
    assert "d_k" in result.feedback


def test_struck_out_words_earn_nothing(grade: Grade) -> None:
    text = ("Greedy takes the most probable token at each step. "
            "~~It can miss the joint probability.~~")
    result = next(r for r in grade("A6", text) if r.item_id == "a6.greedy")
    assert result.points == Decimal(2)


def test_unsure_result_is_review_with_a_suggestion(resources: GradingResources) -> None:
    rubric = parse_rubric("""
slug: t
title: T
review_threshold: 0.98
questions:
  - id: Q
    items:
      - id: q.only
        points: 2
        grader: written
        config:
          reference: [Self-attention ignores the order of the tokens.]
""").rubric
    # Related but not the point: the confidence (a probability of agreeing with a careful
    # grader) stays below a strict threshold, and the suggestion goes to a person.
    [result] = grade_text(rubric, "Q", "Attention compares every token with the others.",
                          resources)
    assert result.status is Status.NEEDS_REVIEW
    assert result.confidence < 0.98
    assert "suggests" in result.feedback and Decimal(0) <= result.points <= Decimal(2)


def test_unrelated_answer_to_a_reference_only_item_scores_zero(resources: GradingResources) -> None:
    rubric = parse_rubric("""
slug: t
title: T
questions:
  - id: Q
    items:
      - id: q.only
        points: 2
        grader: written
        config: {reference: [Beam search keeps the k best partial sequences.]}
""").rubric
    [result] = grade_text(rubric, "Q", "My cat likes to sleep in the sun.", resources)
    assert result.points == 0


def test_without_the_model_patterns_still_grade_and_say_so(
    grade: Grade, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(*args: object, **kwargs: object) -> None:
        raise EmbedderUnavailable("not installed")

    monkeypatch.setattr(grader_module, "load_embedder", unavailable)
    bare = GradingResources(options={})
    text = "Self-attention on its own is permutation-equivariant, so it ignores word order."
    order = next(r for r in grade("A3", text, res=bare) if r.item_id == "a3.order")
    assert order.points == Decimal(3) and order.status is Status.GRADED
    assert "patterns only" in order.feedback and order.confidence < 0.85
    missing = next(r for r in grade("A3", text, res=bare) if r.item_id == "a3.rope")
    assert missing.points == 0 and missing.status is Status.NEEDS_REVIEW


def test_one_answer_is_split_once_for_all_items(grade: Grade) -> None:
    text = "Q = what I look for, K = what I offer to match, V = the content passed on."
    results = grade("A4", text)
    assert [r.item_id for r in results] == ["a4.roles", "a4.scaling", "a4.diagonal"]
    assert results[0].points == Decimal(3)
