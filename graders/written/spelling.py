"""Misspelt key terms read as the rubric spells them ("seperable" is "separable").

Students misspell the long terms a rubric's patterns and phrasings are written with
("seperable", "sinusodial", "extrapolte", "exponetially"); a pattern then misses the word and
the sentence encoder reads it as other sub-words, so a right answer lost its credit at high
confidence. An answer's word that is not one of the question's words is read as the question's
word one slip away: one vowel for another, two neighbouring letters swapped, or one letter
dropped or doubled. Only long words (a slip in a short word often makes another real word:
"context" / "content") and only the question's own vocabulary: its prompt and its written
items' phrasings, statements, labels, references and wrong claims.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from graders.written.config import WrittenConfig, question_texts
from graders.written.text import Sentence

# Letters of a word that is corrected, and of a word it is corrected to.
MIN_LETTERS = 7
_VOWELS = "aeiouy"
_WORD = re.compile(r"[A-Za-z]+")


def vocabulary(configs: Iterable[WrittenConfig], prompt: str = "") -> frozenset[str]:
    """The question's long words (lower case), from its written items and its prompt."""
    return _words(tuple(question_texts(configs, prompt)))


@lru_cache(maxsize=1024)
def _words(texts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w.lower() for t in texts for w in _WORD.findall(t)
                     if len(w) >= MIN_LETTERS)


def _slips(word: str) -> Iterable[str]:
    """The words one slip away from `word`."""
    for i in range(len(word)):
        yield word[:i] + word[i + 1:]  # a letter dropped from the right word (or doubled)
        if word[i] in _VOWELS:
            yield from (word[:i] + v + word[i + 1:] for v in _VOWELS if v != word[i])
        if i + 1 < len(word) and word[i] != word[i + 1]:
            yield word[:i] + word[i + 1] + word[i] + word[i + 2:]
    for i in range(len(word) + 1):  # a letter missing
        yield from (word[:i] + c + word[i:] for c in "abcdefghijklmnopqrstuvwxyz")


@lru_cache(maxsize=1024)
def _longest(words: frozenset[str]) -> int:
    return max(map(len, words), default=0)


@lru_cache(maxsize=100_000)
def corrected(word: str, words: frozenset[str]) -> str | None:
    """The question's word that `word` (lower case) misspells, or None (none, or several)."""
    # A slip changes a word's length by one letter at most, and the slips of a word are about
    # 30 per letter, each as long as the word: a word longer than the question's longest but
    # one is none of them, and trying them all cost a 50,000-letter word 25 s (quadratic).
    if len(word) < MIN_LETTERS - 1 or len(word) > _longest(words) + 1 or word in words:
        return None
    found = {s for s in _slips(word) if s in words and len(s) >= MIN_LETTERS}
    return found.pop() if len(found) == 1 else None


def respell(sentences: Sequence[Sentence], words: frozenset[str]) -> list[Sentence]:
    """The sentences with their misspelt words of the question's vocabulary corrected (in the
    text read for matching and similarity; what the student wrote is kept for the evidence)."""
    if not words:
        return list(sentences)
    out: list[Sentence] = []
    for sentence in sentences:
        norm = _WORD.sub(lambda m: corrected(m.group(0).lower(), words) or m.group(0),
                         sentence.norm)
        out.append(sentence if norm == sentence.norm else replace(sentence, norm=norm))
    return out
