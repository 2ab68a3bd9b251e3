"""The fast encoder against a plain float64 BERT written from the model card, and its threads."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from safetensors.numpy import load_file

from graders.embedding import SentenceEmbedder, model_directory
from graders.embedding.model import work_parts

SENTENCES = [
    "Self-attention by itself ignores the order of the tokens.",
    "Dividing by sqrt(d_k) keeps the variance of the logits near one, so softmax does not "
    "saturate and gradients survive.",
    "XOR is not linearly separable.",
    "A stack of linear layers W2(W1x + b1) + b2 is still one linear map.",
    "ok",
    "stack",
    "The prototype shows the customer what the finished program will do, before it is built.",
    "Ünïcödé, emoji 🙂 and numbers 3.14159 all become word pieces.",
    "A linked list grows one node at a time; an array must be copied when it is full. " * 2,
]

Weights = dict[str, NDArray[np.float64]]


def _layer_norm(x: NDArray[np.float64], w: Weights, name: str) -> NDArray[np.float64]:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w[name + ".weight"] + w[name + ".bias"]


def _dense(x: NDArray[np.float64], w: Weights, name: str) -> NDArray[np.float64]:
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def reference_vector(ids: list[int], w: Weights) -> NDArray[np.float64]:
    """One sentence, float64, no packing, no padding, separate Q/K/V, textbook tanh GELU."""
    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][: len(ids)]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = _layer_norm(x, w, "embeddings.LayerNorm")
    for i in range(6):
        p = f"encoder.layer.{i}."
        q, k, v = (_dense(x, w, p + f"attention.self.{n}").reshape(len(ids), 12, 32)
                   .transpose(1, 0, 2) for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(32.0)
        attention = np.exp(scores - scores.max(-1, keepdims=True))
        attention /= attention.sum(-1, keepdims=True)
        context = (attention @ v).transpose(1, 0, 2).reshape(len(ids), 384)
        x = _layer_norm(_dense(context, w, p + "attention.output.dense") + x, w,
                        p + "attention.output.LayerNorm")
        up = _dense(x, w, p + "intermediate.dense")
        up = 0.5 * up * (1 + np.tanh(np.sqrt(2 / np.pi) * (up + 0.044715 * up**3)))
        x = _layer_norm(_dense(up, w, p + "output.dense") + x, w, p + "output.LayerNorm")
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


@pytest.fixture(scope="module")
def reference(embedder: SentenceEmbedder) -> NDArray[np.float64]:
    directory = model_directory()
    assert json.loads((directory / "config.json").read_text())["num_hidden_layers"] == 6
    weights = {name: array.astype(np.float64)
               for name, array in load_file(str(directory / "model.safetensors")).items()}
    return np.stack([reference_vector(embedder.tokenizer.encode(text).ids, weights)
                     for text in SENTENCES])


@pytest.mark.parametrize("workers", [1, 2])
def test_fast_vectors_match_the_float64_reference(
        embedder: SentenceEmbedder, reference: NDArray[np.float64], workers: int) -> None:
    fast = SentenceEmbedder(model_directory(), max_tokens=embedder.max_tokens, workers=workers)
    fast.min_part_tokens = 16  # a few sentences are enough to use both threads
    cosines = (fast.embed(SENTENCES) * reference).sum(axis=1)
    assert cosines.min() > 1 - 1e-4


def test_threads_give_the_vectors_of_one_thread(embedder: SentenceEmbedder) -> None:
    texts = [f"{s} [{n}]" for n in range(3) for s in SENTENCES]
    one = SentenceEmbedder(model_directory(), workers=1)._encode(texts)
    two_embedder = SentenceEmbedder(model_directory(), workers=2)
    two_embedder.min_part_tokens = 16
    lengths = np.array([len(e.ids) for e in two_embedder.tokenizer.encode_batch(texts)])
    assert len(work_parts(lengths, 2, min_part=16)) > 1
    before = two_embedder._blas.info()
    two = two_embedder._encode(texts)
    assert (one * two).sum(axis=1).min() > 1 - 1e-6
    # The one-thread BLAS limit of the parallel section is lifted afterwards.
    assert two_embedder._blas.info() == before


def test_small_batches_stay_in_the_calling_thread() -> None:
    assert work_parts(np.array([12, 9, 30], dtype=np.int64), workers=2) == [[1, 0, 2]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 128), max_size=300), st.integers(1, 4),
       st.sampled_from([256, 1024, 8192]))
def test_work_parts_cover_each_text_once_within_budget(
        sizes: list[int], workers: int, budget: int) -> None:
    lengths = np.array(sizes, dtype=np.int64)
    parts = work_parts(lengths, workers, budget=budget)
    assert sorted(r for part in parts for r in part) == list(range(len(sizes)))
    ways = max(1, min(workers, sum(sizes) // 256))
    for part in parts:
        assert part and (len(part) == 1 or int(lengths[part].sum()) <= budget // ways)
        assert list(lengths[part]) == sorted(lengths[part])  # similar lengths share a pass
    if ways > 1:  # every worker has work, and no pass is more than one worker's share
        assert len(parts) >= ways
        share = -(-sum(sizes) // ways) + max(sizes)
        assert all(int(lengths[part].sum()) <= share for part in parts)
