"""Bounded similarity work, the answer's location confidence, exemplars and operator options."""

from __future__ import annotations

import time
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.embedding import SentenceEmbedder
from graders.results import Status
from graders.rubric import LoadedRubric, Rubric, parse_rubric
from graders.written import GRADER, shared_embedder
from graders.written.scoring import SimilarityModel
from graders.written.settings import WrittenSettings
from tests.graders.written.conftest import Grade, grade_text


def _embedder(resources: GradingResources, rubric: Rubric) -> SentenceEmbedder:
    question = rubric.questions[0]
    context = GradingContext(rubric=rubric, question=question, resources=resources,
                             submission=ParsedSubmission(text="", format="text", answers={}))
    embedder = shared_embedder(context)
    if embedder is None:
        pytest.skip("sentence-embedding model not installed")
    return embedder


def _counting(embedder: SentenceEmbedder, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = embedder._encode

    def encode(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return real(texts)

    monkeypatch.setattr(embedder, "_encode", encode)
    return calls


CLEAR = """
slug: clear
title: Clear verdicts
questions:
  - id: Q
    prompt: Why can a single perceptron not compute XOR?
    items:
      - id: q.xor
        points: 4
        grader: written
        config:
          reference: [XOR is not linearly separable.]
          elements:
            - {id: separable, patterns: ['NOT linearly separab*']}
          contradictions:
            - patterns: ['XOR ... is linearly separab*']
              feedback: XOR is not linearly separable.
"""


def test_clear_verdicts_embed_nothing(resources: GradingResources,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Full credit or a known wrong claim found by patterns needs no encoder, unless the item
    has wrong claims given by phrasings (which only the encoder can look for)."""
    rubric = parse_rubric(CLEAR).rubric
    calls = _counting(_embedder(resources, rubric), monkeypatch)
    right = f"The four XOR points are not linearly separable (run {time.time_ns()})."
    assert [r.points for r in grade_text(rubric, "Q", right, resources)] == [4]
    wrong = f"XOR is linearly separable with more training data (run {time.time_ns()})."
    assert [r.points for r in grade_text(rubric, "Q", wrong, resources)] == [0]
    assert calls == []  # known wrong claims are clear verdicts too
    phrased = parse_rubric(CLEAR.replace(
        "- patterns: ['XOR ... is linearly separab*']",
        "- phrasings: ['XOR is linearly separable']")).rubric
    again = f"The four XOR points are not linearly separable (run {time.time_ns()})."
    assert [r.points for r in grade_text(phrased, "Q", again, resources)] == [4]
    assert calls  # a wrong claim in plain words is looked for by meaning, after full credit


def test_open_items_share_one_encoding_call(grade: Grade, resources: GradingResources,
                                            transformer_basics: LoadedRubric,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(_embedder(resources, transformer_basics.rubric), monkeypatch)
    text = (f"Attention weights tokens ({time.time_ns()}). Heads look at things. "
            "The diagonal is interesting.")
    results = grade("A4", text)
    assert all(r.points < r.max_points for r in results)
    assert len(calls) == 1


def test_hostile_long_answer_is_bounded_and_says_so(grade: Grade) -> None:
    sentence = "The banana river number {} quickly outputs a green value."
    text = " ".join(sentence.format(i) for i in range(300))  # ~17 kB, 300 sentences
    started = time.perf_counter()
    results = grade("A1", text)
    assert time.perf_counter() - started < 10
    nonseparable = next(r for r in results if r.item_id == "a1.nonseparable")
    assert nonseparable.points == 0
    assert "were not" in nonseparable.feedback and "similarity budget" in nonseparable.feedback


def test_short_answers_are_not_capped(grade: Grade) -> None:
    results = grade("A1", "A perceptron is linear. It cannot do everything. Layers help.")
    assert all("similarity budget" not in r.feedback for r in results)


def test_uncertain_location_sends_written_items_to_review(
    transformer_basics: LoadedRubric, resources: GradingResources
) -> None:
    rubric = transformer_basics.rubric
    question = next(q for q in rubric.questions if q.id == "A1")
    text = "XOR is not linearly separable, so no single line splits its classes."
    for confidence, expected in ((0.4, Status.NEEDS_REVIEW), (0.95, Status.GRADED)):
        answer = LocatedAnswer("A1", text, start=0, end=len(text), confidence=confidence,
                               method="content")
        context = GradingContext(rubric=rubric, question=question, resources=resources,
                                 submission=ParsedSubmission(text=text, format="text",
                                                             answers={"A1": answer}))
        items = [i for i in question.items if i.id == "a1.nonseparable"]
        [result] = GRADER.grade_items(items, answer, context)
        assert result.points == Decimal(4)  # the suggestion is kept for the reviewer
        assert result.status is expected
        located = "location in the document was uncertain" in result.feedback
        assert located is (expected is Status.NEEDS_REVIEW)
        if located:
            assert result.confidence <= confidence


EXEMPLARS = """
slug: t
title: T
questions:
  - id: Q
    prompt: What does beam search keep?
    items:
      - id: q.beam
        points: 4
        grader: written
        config:
          reference: [Beam search keeps the k most probable partial sequences at every step.]
          exemplars:
            - {text: "It keeps only the single best word at each step.", points: 1}
            - {text: "Beam search keeps the k best partial hypotheses at each step.", points: 4}
            - {text: "It stores every possible sequence.", points: 0}
"""


def test_exemplars_pull_the_grade_toward_similar_graded_answers(
    resources: GradingResources
) -> None:
    with_examples = parse_rubric(EXEMPLARS).rubric
    config = with_examples.questions[0].items[0].config
    without = parse_rubric(EXEMPLARS.replace("          exemplars:", "          unused:").split(
        "          unused:")[0]).rubric
    text = "At each step it keeps only the single best word."
    [plain] = grade_text(without, "Q", text, resources)
    [pulled] = grade_text(with_examples, "Q", text, resources)
    assert pulled.points < plain.points or plain.points <= 1
    assert "graded example answers" in pulled.feedback and "1 of 4" in pulled.feedback
    assert len(config["exemplars"]) == 3


def test_a_calibrated_model_from_the_options_is_used(resources: GradingResources) -> None:
    rubric = parse_rubric(EXEMPLARS.split("          exemplars:")[0]).rubric
    text = "It keeps the k best partial sequences."
    generous = {"intercept": 1.0, "weights": {"best": 0.0}}
    stingy = SimilarityModel(0.0, (("best", 0.0),))
    # Same process resources (the loaded model), different options.
    [high] = grade_text(rubric, "Q", text, GradingResources(
        options={"written_similarity_model": generous}, _shared=resources._shared))
    [low] = grade_text(rubric, "Q", text, GradingResources(
        options={"written_similarity_model": stingy}, _shared=resources._shared))
    assert high.points == 4 and low.points == 0
    assert "calibrated similarity" in high.feedback


def test_settings_from_options() -> None:
    settings = WrittenSettings.from_options({
        "written_similarity": "no", "embedding_cache_dir": "/tmp/x", "embedding_max_tokens": 64,
        "written_max_embedded_chars": "2000", "written_max_embedded_sentences": 10})
    assert settings.similarity == "off" and settings.max_tokens == 64
    assert settings.max_chars == 2000 and settings.max_sentences == 10
    assert str(settings.cache_dir) == "/tmp/x"
    assert WrittenSettings.from_options({"written_similarity": "ALWAYS"}).similarity == "always"
    with pytest.raises(ValueError, match="at least 1"):
        WrittenSettings.from_options({"written_max_embedded_chars": 0})


def test_switched_off_similarity_says_so(grade: Grade) -> None:
    off = GradingResources(options={"written_similarity": "off"})
    results = grade("A3", "Self-attention ignores word order.", res=off)
    assert all("switched off" in r.feedback for r in results)


def test_a_persistent_cache_makes_a_new_process_warm(transformer_basics: LoadedRubric,
                                                     tmp_path: Path) -> None:
    rubric = transformer_basics.rubric
    text = f"Attention mixes token vectors somehow ({time.time_ns()})."
    options = {"embedding_cache_dir": str(tmp_path / "embeddings")}
    first = GradingResources(options=options)
    grade_text(rubric, "A3", text, first)
    assert _embedder(first, rubric).texts_encoded > 0
    second = GradingResources(options=options)  # as a new worker process would have
    again = grade_text(rubric, "A3", text, second)
    assert _embedder(second, rubric).texts_encoded == 0
    assert [r.points for r in again] == [r.points for r in grade_text(rubric, "A3", text, first)]
