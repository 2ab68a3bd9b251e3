"""Token-level alignment of an answer with the reference, from contextual word-piece vectors.

BERTScore-style (Zhang et al. 2020): each content word piece of the reference is matched with
its closest piece of the answer by the cosine of their *contextual* vectors (the encoder's last
hidden states, `graders/embedding/tokens.py`), and the reverse. The class of writing it
handles: an answer on the topic, using the reference's vocabulary or near it, that says
something else about it ("It removes items in random order." against "A stack removes the most
recently added item first."). The static word alignment (`features.py`, `align_*`) sees the
same words and scores it high; in context, "removes" and "items" next to "random order" are not
the reference's "removes" and "item" next to "most recently added", and the reference's "most
recently added first" has no close piece in the answer.

Content pieces only: pieces of stop words, of words of the question (demoted, as in
`features.py`: repeating the question earns nothing) and of punctuation are left out. The
vectors come from the forward pass that gave the sentence vectors, so this costs no encoding.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from graders.embedding import SentenceEmbedder
from graders.embedding.tokens import TokenVectors
from graders.written.lexical import STOP_WORDS, stem

ALIGNMENT_FEATURES = ("ctx_recall", "ctx_precision")


@lru_cache(maxsize=50_000)
def _content_rows(words: tuple[str, ...], demoted: frozenset[str]) -> tuple[int, ...]:
    return tuple(i for i, word in enumerate(words)
                 if word not in STOP_WORDS and any(c.isalnum() for c in word)
                 and stem(word) not in demoted)


def content_pieces(tokens: Sequence[TokenVectors], demoted: AbstractSet[str]
                   ) -> NDArray[np.float32]:
    """The content pieces' unit vectors of these texts, stacked (pieces, hidden)."""
    parts = [t.vectors[list(rows)] for t in tokens
             if (rows := _content_rows(t.words, frozenset(demoted)))]
    if not parts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.concatenate(parts).astype(np.float32)


def contextual_alignment(embedder: SentenceEmbedder, references: Sequence[str],
                         answer_texts: Sequence[str], demoted: AbstractSet[str]
                         ) -> dict[str, float]:
    """`ctx_recall`: the mean over the reference's content pieces of the best cosine with the
    answer's; `ctx_precision`: the reverse. Both 0 when either side has no content piece."""
    found = embedder.token_vectors([*references, *answer_texts])
    wanted = content_pieces(found[:len(references)], demoted)
    given = content_pieces(found[len(references):], demoted)
    if not len(wanted) or not len(given):
        return {"ctx_recall": 0.0, "ctx_precision": 0.0}
    scores = wanted @ given.T
    return {"ctx_recall": float(scores.max(axis=1).mean()),
            "ctx_precision": float(scores.max(axis=0).mean())}
