"""Sentences of an answer that are the question's own text: the prompt copied whole or in part
("Why is a stack of linear layers still linear?", "Explain briefly why several heads make the
average more robust."). Students paste the question above their answer, and a hostile one pastes
it alone; its words hold what some patterns look for, so read as the student's claim it earned
credit the answer never stated. Such a sentence is left out of what the written grader reads:
the student's own sentences are graded as if the copy were not there."""

from __future__ import annotations

import re
from collections.abc import Sequence

from graders.written.meaning import question_words
from graders.written.text import Sentence

_TOKEN = re.compile(r"[a-z0-9]+")
# a copied run of the prompt shorter than this is a phrase any answer may share ("the layer")
MIN_COPIED = 4
# a sentence longer than this is read as the student's whatever it holds
MAX_ECHO = 2000


def _tokens(text: str) -> str:
    return " ".join(_TOKEN.findall(text.lower()))


def echoes(sentence: Sentence, copied: Sequence[str], asked: frozenset[str]) -> bool:
    """Whether the sentence is the question's text: its words a run of a sentence of the prompt
    (or of the whole prompt) holding at least half of that sentence's words and MIN_COPIED, or
    a question asked in none but the prompt's content words. A clause of the prompt said as a
    claim ("it is no longer permutation-equivariant" of "... apart (so that it is no longer
    permutation-equivariant)?") is the student's answer, and read."""
    text = sentence.text
    if len(text) > MAX_ECHO:
        return False
    own = _tokens(text)
    count = own.count(" ") + 1 if own else 0
    if count >= MIN_COPIED and any(f" {own} " in f" {part} " and 2 * count >= part.count(" ") + 1
                                   for part in copied):
        return True
    return text.rstrip(" \t\n*_)]").endswith("?") and question_words(text) <= asked


_PROMPT_SENTENCE = re.compile(r"[^.?!]+[.?!]*")


def without_echoes(sentences: Sequence[Sentence], prompt: str) -> list[Sentence]:
    """The sentences that are not the question's text (all of them when there is no prompt)."""
    if not prompt.strip():
        return list(sentences)
    parts = [_tokens(m.group()) for m in _PROMPT_SENTENCE.finditer(prompt[:MAX_ECHO])]
    copied = [p for p in (*parts, _tokens(prompt[:MAX_ECHO])) if p]
    asked = question_words(prompt)
    return [s for s in sentences if not echoes(s, copied, asked)]
