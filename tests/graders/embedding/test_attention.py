"""The packed, bucketed forward pass against one text at a time (property-based).

The attention blocks read the fused query/key/value matrix with one gather and write the context
with one scatter (graders/embedding/bert.py, `_Block`); sequences of different lengths share a
padded block. Whatever the mix of lengths, every sequence must come out as if encoded alone.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from graders.embedding import SentenceEmbedder
from graders.embedding.bert import _attention_blocks

HEADS, SIZE = 4, 8
F32 = NDArray[np.float32]


def _alone(qkv: F32) -> F32:
    """Textbook attention of one unpadded sequence (its rows of the fused matrix)."""
    length = len(qkv)
    q, k, v = (qkv[:, i * HEADS * SIZE:(i + 1) * HEADS * SIZE].reshape(length, HEADS, SIZE)
               .transpose(1, 0, 2).astype(np.float64) for i in range(3))
    scores = q @ k.transpose(0, 2, 1)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return (weights @ v).transpose(1, 0, 2).reshape(length, HEADS * SIZE).astype(np.float32)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=60), st.integers(0, 2**32 - 1))
def test_blocks_attend_each_sequence_as_if_alone(sizes: list[int], seed: int) -> None:
    lengths = np.array(sizes, dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    total = int(lengths.sum())
    qkv = np.random.default_rng(seed).standard_normal((total, 3 * HEADS * SIZE),
                                                      dtype=np.float32) * 2
    out = np.full((total + 1, HEADS * SIZE), np.nan, dtype=np.float32)
    blocks = _attention_blocks(starts, lengths, HEADS)
    for block in blocks:
        block.attend(qkv, out, HEADS)
    assert not np.isnan(out[:total]).any()  # every token written, by exactly its block
    for start, length in zip(starts.tolist(), sizes, strict=True):
        expected = _alone(qkv[start:start + length])
        np.testing.assert_allclose(out[start:start + length], expected, atol=1e-5, rtol=1e-4)


_WORDS = st.sampled_from(["attention", "the", "key", "query", "softmax", "is", "not",
                          "linearly", "separable", "stack", "LIFO", "O(n)", "3.14", "über",
                          "transformer", "heads", "in", "parallel", "🙂", "-", "a"])


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(_WORDS, min_size=1, max_size=40).map(" ".join), min_size=1,
                max_size=24, unique=True))
def test_batched_encoding_equals_one_text_at_a_time(embedder: SentenceEmbedder,
                                                    texts: list[str]) -> None:
    together = embedder._encode(texts)
    alone = np.stack([embedder._encode([text])[0] for text in texts])
    assert np.abs(together - alone).max() < 1e-5
    assert together.dtype == np.float32
