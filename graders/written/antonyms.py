"""The antonym pairs the opposite doubt reads (`graders.written.contradiction`), the two sides of
a contrast a reference may draw, and the stem words are matched by."""

from __future__ import annotations

import re
from functools import lru_cache

from graders.written.lexical import stem

# Antonym pairs of the kind short technical answers turn around. Both words are matched by
# stem, so inflections count ("separates", "separated", "separation" share "separa").
_PAIRS = """
connected separated; connected disconnected; connect separate; join split; joined separated
increase decrease; increases decreases; increasing decreasing; grows shrinks; rise fall
larger smaller; bigger smaller; greater smaller; greater less; more fewer; higher lower
maximum minimum; max min; maximize minimize; largest smallest; highest lowest; most least
before after; first last; beginning end; start end; earlier later; previous next
always never; all none; every no; everything nothing; many few
true false; correct incorrect; valid invalid; possible impossible; able unable
linear nonlinear; finite infinite; dependent independent; sorted unsorted; visible invisible
static dynamic; public private; global local; explicit implicit; direct indirect
inside outside; internal external; input output; push pop; top bottom; head tail
fast slow; faster slower; quick slow; efficient inefficient; short long; shorter longer
same different; similar different; equal unequal; identical different; include exclude
add remove; insert delete; allocate deallocate; open close; enable disable; accept reject
success failure; succeed fail; win lose; positive negative; upper lower; above below
parallel sequential; synchronous asynchronous; stable unstable; mutable immutable
compile runtime; increase reduce; large small; big small; high low; strong weak
attend ignore; large tiny; overfit underfit; underfitting overfitting; vanish explode
know ignore; notice ignore
recent old; recent oldest; recently earliest; newest oldest; latest earliest; new old
"""
_STEM_KEEP = 6
_DOUBLING = ("ing", "ed", "er", "ers")
_DOUBLED = re.compile(r"[a-z]{2}([bdgmnprt])\1$")


@lru_cache(maxsize=100_000)
def _stem(word: str) -> str:
    # The stemmer leaves a base form's final "e" ("remove") but not its inflections' ("removes",
    # "removed"): dropped here, so that "does not remove" negates "removes". Nor does it undo a
    # consonant doubled before a suffix ("running", "stopped", "fitted"): undone here (not
    # "ll", "ss" or "ff", "spelling", "passed", and not on a base of two letters, "added").
    key = stem(word)[:_STEM_KEEP]
    if word.endswith(_DOUBLING) and _DOUBLED.search(key):
        key = key[:-1]
    return key[:-1] if len(key) > 3 and key.endswith("e") else key


def _antonyms(pairs: str = _PAIRS) -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for pair in pairs.replace("\n", ";").split(";"):
        words = pair.split()
        if len(words) != 2:
            continue
        a, b = (_stem(w) for w in words)
        if a == b:
            continue
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in table.items()}


ANTONYMS = _antonyms()
# The two sides of a contrast a reference may draw, not antonyms of one claim: an answer that
# says one side's claim of the other (negated) agrees (`contradiction._other_side`).
CONTRAST = _antonyms("pre post; encoder decoder; training inference; train test; "
                      "forward backward; prefix suffix; past future")
# Quantifiers among the antonyms: opposite only of the same word ("every layer", "no layer").
QUANTIFYING = frozenset(_stem(w) for w in ("every", "all", "no", "none", "always", "never",
                                            "everything", "nothing", "many", "few"))


def stem_key(word: str) -> str:
    """A word's key as `words_of` gives it (its stem, the base form's final "e" dropped)."""
    return _stem(word.lower())
