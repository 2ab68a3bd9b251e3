from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from graders.embedding import (
    EmbedderUnavailable,
    SentenceEmbedder,
    files,
    load_embedder,
    model_directory,
)


def _cos(embedder: SentenceEmbedder, a: str, b: str) -> float:
    va, vb = embedder.embed([a, b])
    return float(va @ vb)


def test_matches_the_published_similarities(embedder: SentenceEmbedder) -> None:
    # The sentence-transformers documentation prints these cosine scores for all-MiniLM-L6-v2
    # (semantic textual similarity example); a wrong layer, pooling or mask would not match.
    assert _cos(embedder, "The new movie is awesome", "The new movie is so great") == pytest.approx(
        0.8939, abs=2e-3)
    assert _cos(embedder, "The cat sits outside", "The dog plays in the garden") == pytest.approx(
        0.2838, abs=2e-3)
    assert _cos(embedder, "A man is playing guitar", "A woman watches TV") == pytest.approx(
        -0.0327, abs=2e-3)


def test_unit_norm_float32_and_deterministic(embedder: SentenceEmbedder) -> None:
    texts = ["Self-attention ignores word order.", "Beam search keeps k hypotheses."]
    first = embedder._encode(texts)
    second = embedder._encode(list(reversed(texts)))[::-1]
    assert first.dtype == np.float32 and first.shape == (2, 384)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first, second)


def test_padding_does_not_change_a_sentence(embedder: SentenceEmbedder) -> None:
    short, long = "XOR is not linearly separable.", (
        "A single perceptron thresholds a weighted sum of its inputs, so its boundary is a line.")
    encodings = embedder.tokenizer.encode_batch([short, long])
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((2, width), dtype=np.int64)
    mask = np.zeros((2, width), dtype=np.int64)
    for row, encoding in enumerate(encodings):
        ids[row, : len(encoding.ids)] = encoding.ids
        mask[row, : len(encoding.ids)] = 1
    batched = embedder.encoder.forward(ids, mask)
    n = len(encodings[0].ids)
    alone = embedder.encoder.forward(ids[:1, :n], mask[:1, :n])
    assert np.allclose(batched[0, :n], alone[0], atol=1e-4)


def test_paraphrase_is_closer_than_unrelated(embedder: SentenceEmbedder) -> None:
    reference = "Greedy decoding picks the most probable token at every step."
    paraphrase = "At each step greedy search takes the single highest-probability word."
    unrelated = "ReLU has derivative one for positive inputs."
    close, far = _cos(embedder, reference, paraphrase), _cos(embedder, reference, unrelated)
    assert close > 0.55 and far < 0.3 and close - far > 0.4


def test_tokenizer_ids_follow_the_vocabulary(embedder: SentenceEmbedder) -> None:
    vocab = (model_directory() / "vocab.txt").read_text().splitlines()
    encoding = embedder.tokenizer.encode("Attention is all you need")
    assert [vocab[i] for i in encoding.ids] == encoding.tokens
    assert encoding.tokens[0] == "[CLS]" and encoding.tokens[-1] == "[SEP]"
    assert encoding.tokens[1:-1] == ["attention", "is", "all", "you", "need"]


def test_cache_returns_the_same_vector_without_encoding(embedder: SentenceEmbedder) -> None:
    text = "a sentence used only by the cache test"
    first = embedder.embed_one(text)
    encoded = embedder.texts_encoded
    again = embedder.embed([text, text])
    assert embedder.texts_encoded == encoded
    assert np.array_equal(again[0], first) and np.array_equal(again[1], first)


def test_missing_package_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == files.MODEL_PACKAGE
                        else real(name, *a))
    with pytest.raises(EmbedderUnavailable, match="not installed"):
        load_embedder()


def test_a_cache_folder_that_cannot_be_made_costs_the_cache_not_the_model(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, embedder: SentenceEmbedder
) -> None:
    """A mistyped or read-only cache folder used to read as 'model not installed', and every
    written answer was then graded on patterns only. (A file where a folder should be: root
    ignores permission bits, so this is the failure a test can make as any user.)"""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with caplog.at_level("WARNING", logger="graders.embedding.cache"):
        loaded = load_embedder(blocker / "embeddings")
    assert "kept in memory only" in caplog.text
    sentence = "Attention weights sum to one over the keys."
    assert np.array_equal(loaded.embed([sentence])[0], embedder.embed([sentence])[0])
