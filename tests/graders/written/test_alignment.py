"""Token-level alignment from contextual vectors (`alignment.py`) and their store (`tokens.py`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.embedding import SentenceEmbedder
from graders.embedding.tokens import TokenStore, TokenVectors
from graders.written.alignment import content_pieces, contextual_alignment
from graders.written.features import question_stems

ROOT = Path(__file__).resolve().parents[3]
STACK = "A stack removes the most recently added item first."
QUESTION = "In what order does a stack remove items?"



def _tokens(words: list[str], dimension: int = 8, seed: int = 0) -> TokenVectors:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(len(words), dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return TokenVectors(vectors.astype(np.float16), tuple(words))


words = st.lists(st.text(min_size=0, max_size=12), min_size=0, max_size=20)


@settings(max_examples=60, deadline=None)
@given(words)
def test_stored_pieces_read_back_from_disk(tmp_path_factory: pytest.TempPathFactory,
                                           chosen: list[str]) -> None:
    directory = tmp_path_factory.mktemp("tokens")
    tokens = _tokens(chosen)
    TokenStore(8, directory=directory).put("ab" + "0" * 62, tokens)
    found = TokenStore(8, directory=directory).get("ab" + "0" * 62)  # a fresh store: disk only
    assert found is not None
    assert found.words == tuple(w.replace("\x1f", " ") for w in chosen)
    assert np.array_equal(found.vectors, tokens.vectors)


def test_a_torn_or_foreign_file_is_a_miss(tmp_path: Path) -> None:
    store = TokenStore(8, directory=tmp_path)
    key = "cd" + "1" * 62
    store.put(key, _tokens(["stack", "pop"]))
    path = tmp_path / key[:2] / f"{key}.tok"
    raw = path.read_bytes()
    for broken in (raw[:3], raw[:20], raw[:4] + raw[4:-3], b"\xff" * len(raw)):
        path.write_bytes(broken)
        assert TokenStore(8, directory=tmp_path).get(key) is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=30),
       st.integers(min_value=1, max_value=100))
def test_memory_is_bounded_by_pieces(sizes: list[int], bound: int) -> None:
    store = TokenStore(8, max_pieces=bound)
    for i, size in enumerate(sizes):
        store.put(f"{i:064d}", _tokens(["w"] * size, seed=i))
    held = [store.get(f"{i:064d}") for i in range(len(sizes))]
    kept = [t for t in held if t is not None]
    assert kept, "the last text put is always kept"
    assert held[-1] is not None
    assert sum(len(t.words) for t in kept) <= max(bound, sizes[-1])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["the", "stack", "order", "removes", ",", "(", "o",
                                 "most", "items", "added", "x1", "", "é"]), max_size=25))
def test_content_pieces_leave_out_stop_question_and_punctuation(chosen: list[str]) -> None:
    demoted = question_stems(QUESTION)
    pieces = content_pieces([_tokens(chosen)], demoted)
    expected = [w for w in chosen if w in ("removes", "most", "added", "x1", "o", "é")]
    # "most" is a stop word, "stack"/"order"/"items" are the question's, "," and "(" punctuation
    expected = [w for w in expected if w not in ("most",)]
    assert len(pieces) == len(expected)
    if len(pieces):
        assert np.allclose(np.linalg.norm(pieces, axis=1), 1.0, atol=1e-2)


def test_same_words_in_another_order_of_events_align_worse(embedder: SentenceEmbedder) -> None:
    demoted = question_stems(QUESTION)
    same = contextual_alignment(embedder, [STACK], [STACK], demoted)
    assert same["ctx_recall"] == pytest.approx(1.0, abs=2e-3)
    assert same["ctx_precision"] == pytest.approx(1.0, abs=2e-3)
    right = contextual_alignment(embedder, [STACK],
                                 ["It removes the most recently added item first."], demoted)
    wrong = contextual_alignment(embedder, [STACK], ["It removes items in random order."],
                                 demoted)
    assert wrong["ctx_recall"] < right["ctx_recall"] - 0.3
    assert wrong["ctx_precision"] < right["ctx_precision"] - 0.2
    only_question = contextual_alignment(embedder, [STACK], ["Stack items in order."],
                                         demoted)
    assert only_question == {"ctx_recall": 0.0, "ctx_precision": 0.0}


hostile = st.text(alphabet=st.sampled_from(list("ab é.,;()0 \n\x1f-")), min_size=1, max_size=300)


@settings(max_examples=15, deadline=None)
@given(hostile)
def test_any_answer_gives_bounded_alignment(embedder: SentenceEmbedder, text: str) -> None:
    found = contextual_alignment(embedder, [STACK], [text], frozenset())
    for value in found.values():
        assert -1.0 - 1e-3 <= value <= 1.0 + 1e-3


def test_pieces_come_from_the_sentence_pass_and_a_warm_run_reads_them(
        embedder: SentenceEmbedder) -> None:
    texts = ["A queue removes the oldest item first, unlike a stack.", "Heaps keep order."]
    embedder.embed(texts)
    encoded = embedder.texts_encoded
    found = embedder.token_vectors(texts)
    assert embedder.texts_encoded == encoded  # no forward pass of its own
    assert found[0].words[:3] == ("a", "queue", "removes")
    assert found[0].vectors.shape == (len(found[0].words), embedder.dimension)


_CHILD = """
import sys
from pathlib import Path
from graders.embedding import load_embedder
embedder = load_embedder(Path(sys.argv[1]))
texts = ["A queue removes the oldest item first.", "A stack pops the newest."]
if sys.argv[2] == "fill":
    embedder.embed(texts)
else:
    found = embedder.token_vectors(texts)
    print(embedder.texts_encoded, found[1].words)
"""


def test_a_fresh_process_with_the_disk_cache_never_encodes(embedder: SentenceEmbedder,
                                                           tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for step in ("fill", "read"):
        done = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path), step], env=env,
                              capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.split()[0] == "0"
    assert "'pops'" in done.stdout


@settings(max_examples=20, deadline=None)
@given(hostile)
def test_every_kept_piece_names_a_word_of_its_text(embedder: SentenceEmbedder, text: str) -> None:
    [found] = embedder.token_vectors([text])
    encoded = embedder.texts_encoded
    assert found.vectors.shape == (len(found.words), embedder.dimension)
    assert len(found.words) <= embedder.max_tokens
    for word in found.words:
        assert word and len(word) <= 64 and word in text.lower()
    norms = np.linalg.norm(found.vectors.astype(np.float32), axis=1)
    assert np.allclose(norms, 1.0, atol=2e-3)
    [again] = embedder.token_vectors([text])
    assert embedder.texts_encoded == encoded and again.words == found.words
