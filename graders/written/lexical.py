"""Words that carry content: stop words to leave out, and a crude stemmer to match inflections."""

from __future__ import annotations

from functools import lru_cache

_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es", "ly", "s")
_STEM_LENGTH = 6
STOP_WORDS = frozenset(
    """a about above after again all also am an and any are as at be because been before being
    below between both but by can cannot could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    me more most my no nor not of off on once only or other our out over own same she should so
    some such than that the their them then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you your
    yes e g eg ie etc one use used using""".split()  # noqa: SIM905
)


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    return word[:_STEM_LENGTH]
