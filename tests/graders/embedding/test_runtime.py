"""The fast forward pass against the exact one, the token cap, and how texts are batched."""

from __future__ import annotations

import numpy as np
import pytest

from graders.embedding import SentenceEmbedder, load_embedder, model_directory
from graders.embedding.bert import gelu_exact, gelu_inplace
from graders.embedding.model import token_chunks

SENTENCES = [
    "Self-attention by itself ignores the order of the tokens.",
    "Dividing by sqrt(d_k) keeps the variance of the logits near one, so softmax does not "
    "saturate and gradients survive.",
    "XOR is not linearly separable.",
    "A stack of linear layers W2(W1x + b1) + b2 is still one linear map.",
    "ok",
]


def test_tanh_gelu_is_close_to_erf_gelu() -> None:
    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    assert np.abs(gelu_inplace(x.copy()) - gelu_exact(x)).max() < 1e-3


def test_fast_vectors_within_1e_3_cosine_of_exact_gelu(embedder: SentenceEmbedder) -> None:
    exact = SentenceEmbedder(model_directory(), max_tokens=embedder.max_tokens, exact_gelu=True)
    fast, slow = embedder._encode(SENTENCES), exact._encode(SENTENCES)
    assert (fast * slow).sum(axis=1).min() > 1 - 1e-3
    assert exact.model_id != embedder.model_id  # never share cache entries


def test_packed_batch_equals_each_text_alone(embedder: SentenceEmbedder) -> None:
    together = embedder._encode(SENTENCES)
    for row, text in enumerate(SENTENCES):
        alone = embedder._encode([text])[0]
        assert float(alone @ together[row]) > 1 - 1e-5


def test_long_text_is_cut_to_the_token_cap() -> None:
    small = load_embedder(max_tokens=16)
    assert small.token_count("word " * 500) == 16
    before = small.texts_truncated
    vectors = small.embed(["word " * 500, "short text"])
    assert small.texts_truncated == before + 1 and vectors.shape == (2, 384)
    assert small.model_id.endswith("|16")


def test_token_cap_is_validated() -> None:
    with pytest.raises(ValueError, match="at least 8"):
        SentenceEmbedder(model_directory(), max_tokens=4)


def test_chunks_respect_the_token_budget_shortest_first() -> None:
    lengths = np.array([100, 5, 60, 7, 100], dtype=np.int64)
    chunks = token_chunks(lengths, budget=120)
    assert chunks == [[1, 3, 2], [0], [4]]
    assert all(int(lengths[c].sum()) <= 120 for c in chunks)
