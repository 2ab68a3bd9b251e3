"""How the phrasing matcher reads a claim's words (`graders.written.meaning`): the word counts,
the negations and the antonyms all read the text as `plain_claim` writes it, on both sides (the
answer's stretch and the phrasing), so that a claim said in other words is counted as the
same words and the same polarity. The sentence encoder reads the text as written.
"""

from __future__ import annotations

import re

# Phrases that say one word: "how many" is "the number", "at once" and "at the same time" are
# "simultaneously" (a term of `terms.py`'s "parallel" class), "each time" and "at a time" are
# "each step", "go back" is "backtrack" (a term of the "reconsider" class).
PHRASES = {"how many": "number", "at once": "simultaneously",
           "at the same time": "simultaneously", "in one go": "simultaneously",
           "each time": "each step", "every time": "every step", "at a time": "each step",
           "go back": "backtrack", "goes back": "backtrack", "going back": "backtrack",
           "went back": "backtrack"}
_PHRASE = re.compile(r"\b(?:" + "|".join(PHRASES) + r")\b", re.IGNORECASE)
# A negated absence says the verb "ignores": "has no notion of order", "is blind to word
# order", "doesn't know the positions", "cannot distinguish the positions" claim what
# "ignores the order" claims (and "knows the order" the opposite, `contradiction`), without a
# negation of the words the two share (which would read as the opposite) and with the verb a
# phrasing of the idea uses. Read so on both sides (the answer's stretch and the phrasing)
# wherever words and negations are counted; the encoder reads the text as written.
_ABSENCE = re.compile(
    r"\b(?:(?:has|have|had|having)\s+no\s+(?:(?:real|built[\s-]in|inherent|innate|intrinsic)\s+)?"
    r"(?:notion|idea|sense|concept|knowledge|awareness|understanding|clue)\s+(?:of|about)|"
    r"(?:is|are|was|were)\s+(?:(?:completely|totally|entirely)\s+)?"
    r"(?:blind|oblivious|agnostic|insensitive|indifferent)\s+to|"
    r"(?:is|are|was|were)\s+unaware\s+of|"
    r"(?:cannot|can['’]?t|can\s+not|does\s*n['’]?t|do\s*n['’]?t|did\s*n['’]?t|"
    r"(?:does|do|did)\s+not)\s+(?:know|notice|care\s+about|account\s+for|"
    r"take\s+into\s+account|distinguish(?:\s+between)?|differentiate(?:\s+between)?|"
    r"tell\s+the\s+difference\s+between))\b", re.IGNORECASE)


# A beam width's letter says how many ("keeps the k best sequences", "the top-k candidates"):
# read as "several" (a one-letter word is no word to the word counts).
_WIDTH = re.compile(
    r"\btop[\s-]?[kbn]\b|\b[kbn]\b(?=\s+(?:best|most|top|likeliest|highest|candidate|hypothes"
    r"|sequence|beam|path|partial|option|output))", re.IGNORECASE)
# One against several: a stretch that keeps several where a phrasing keeps a single one ("keeps
# the k best sequences" against the wrong claim "keeps only the single best sequence") claims
# the other thing, in one word the encoder barely sees. Read here, between an answer and a
# phrasing only: an answer that contrasts one head with several ("single-headed attention is
# unreliable, so we need multi-headed attention") says both.
_ONE = re.compile(r"\b(?:single|only\s+one|just\s+one|a\s+lone)\b", re.IGNORECASE)
_SEVERAL = re.compile(r"\b(?:several|multiple|many)\b", re.IGNORECASE)


def one_or_several(clause: str, phrasing: str) -> str | None:
    """The clause's count word where the phrasing says the other, when each says only one."""
    counts = [(bool(_ONE.search(t)), bool(_SEVERAL.search(t))) for t in (clause, phrasing)]
    if counts[0] == (False, True) and counts[1] == (True, False):
        return "'several' where the phrasing says 'single'"
    if counts[0] == (True, False) and counts[1] == (False, True):
        return "'single' where the phrasing says 'several'"
    return None


def plain_claim(text: str) -> str:
    """The text as the word counts and the negation and antonym readers all read it: each
    negated absence written as "ignores" (`_ABSENCE`), each beam width's letter as "several"
    (`_WIDTH`) and each of `PHRASES` as its one word."""
    text = _WIDTH.sub("several", _ABSENCE.sub("ignores", text[:2000]))
    return _PHRASE.sub(lambda m: PHRASES[m.group(0).lower()], text)
