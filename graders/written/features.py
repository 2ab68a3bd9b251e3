"""How an answer compares with an item's reference statements, as a few numbers.

The features follow the short-answer grading literature (Mohler et al. 2011, Sultan et al.
2016): sentence-level semantic similarity (the closest stretch and the whole answer), word-level
alignment (each reference content word against the answer's, by exact stem or by embedding
cosine), the same alignment of the words' contextual vectors (`alignment.py`), content-word
overlap and the length ratio. Words of the question are demoted (left
out): repeating the question earns nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

import numpy as np

from graders.written.alignment import ALIGNMENT_FEATURES, contextual_alignment
from graders.written.lexical import STOP_WORDS, stem
from graders.written.similarity import AnswerVectors

FEATURES = ("best", "whole", "recall", "precision", "align_recall", "align_precision",
            "bow", "length", "hits_recall", "hits_precision", *ALIGNMENT_FEATURES)
# Word cosine from which an aligned pair counts as the same word (a synonym or an inflection).
_HIT = 0.7
_WORD = re.compile(r"[a-z][a-z0-9]*(?:[_'][a-z0-9]+)*")
_MAX_WORDS = 80  # content words aligned per text: an answer's gist, and a bound on the work


def content_words(text: str, demoted: AbstractSet[str]) -> dict[str, str]:
    """Content words of `text` by stem (first spelling kept), minus stop words and `demoted`."""
    return dict(_content_words(text, frozenset(demoted)))


# A table of answers asks for the same reference's and prompt's words thousands of times.
@lru_cache(maxsize=20_000)
def _content_words(text: str, demoted: frozenset[str]) -> tuple[tuple[str, str], ...]:
    words: dict[str, str] = {}
    for word in _WORD.findall(text.lower()):
        if word in STOP_WORDS or len(word) < 2:
            continue
        key = stem(word)
        if key not in demoted and key not in words:
            words[key] = word
            if len(words) >= _MAX_WORDS:
                break
    return tuple(words.items())


@lru_cache(maxsize=4096)
def question_stems(prompt: str) -> frozenset[str]:
    return frozenset(content_words(prompt, frozenset()))


def feature_targets(references: Sequence[str], answer: str, prompt: str) -> list[str]:
    """Every text the features embed besides the answer's own units."""
    demoted = question_stems(prompt)
    words = set(content_words(" ".join(references), demoted).values())
    words |= set(content_words(answer, demoted).values())
    return [*references, *sorted(words)]


def _alignment(vectors: AnswerVectors, left: list[str], right: list[str]
               ) -> tuple[float, float, float, float]:
    """Mean best cosine of each left word with the right words, and the reverse; then the
    shares of left and of right words whose best match counts as the same word."""
    if not left or not right:
        return 0.0, 0.0, 0.0, 0.0
    scores = vectors.vectors_of(left) @ vectors.vectors_of(right).T
    rows, columns = scores.max(axis=1), scores.max(axis=0)
    return (float(rows.mean()), float(columns.mean()), float((rows >= _HIT).mean()),
            float((columns >= _HIT).mean()))


def reference_features(vectors: AnswerVectors, references: Sequence[str], answer: str,
                       prompt: str) -> dict[str, float]:
    demoted = question_stems(prompt)
    wanted = content_words(" ".join(references), demoted)
    given = content_words(answer, demoted)
    closest = vectors.closest(list(references))
    whole = vectors.whole(list(references))
    shared = len(set(wanted) & set(given))
    align_recall, align_precision, hits_recall, hits_precision = _alignment(
        vectors, list(wanted.values()), list(given.values()))
    bow = 0.0
    if wanted and given:
        a = vectors.vectors_of(list(wanted.values())).sum(axis=0)
        b = vectors.vectors_of(list(given.values())).sum(axis=0)
        bow = float(a @ b / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-9))
    length = math.log((1 + len(given)) / (1 + len(wanted)))
    singles = [u.text for u in vectors.units if len(u.sentences) == 1]
    return {
        **contextual_alignment(vectors.embedder, references, singles, demoted),
        "best": closest.score if closest is not None else 0.0,
        "whole": whole if whole is not None else 0.0,
        "recall": shared / len(wanted) if wanted else 0.0,
        "precision": shared / len(given) if given else 0.0,
        "align_recall": align_recall,
        "align_precision": align_precision,
        "bow": bow,
        "length": max(-2.0, min(2.0, length)),
        "hits_recall": hits_recall,
        "hits_precision": hits_precision,
    }
