"""Statements an answer makes and then disowns, read as the claims they are (for
`contradiction.words_of(..., claims=True)`): a statement denied in front ("it is false that
...", "it is a myth that ...", "a common misconception is that ...") is negated like one after
"not"; a statement taken back after it ("... (just kidding, it is)", "Some say ...; they are
wrong.", "'...' is a common myth") has its polarity turned around. What the answer then
claims is compared with the reference as any claim is, so "It is false that XOR is linearly
separable" still agrees with "XOR is not linearly separable", and "It is false that XOR is not
linearly separable" states its opposite.
"""

from __future__ import annotations

import re

# Said in front of a statement, a denial of it: read as "not".
_DENIED_BEFORE = re.compile(
    r"\b(?:false|untrue|wrong|incorrect|(?:an?\s+)?(?:(?:common|popular|widespread)\s+)?"
    r"(?:myth|misconception|fallacy)(?:\s+is)?)\s+(?:that|to\s+(?:say|claim|think|believe))\b")
# Said after a statement, a retraction of it: a joke, or a verdict that ends its clause on what
# "they" or "it" said or calls it a myth ("Some say ...; they are wrong.", "... is a common
# myth."; not "..., while it is not true in relative encodings": a contrast about another).
_TAKEN_BACK = re.compile(
    r"\b(?:just\s+kidding|only\s+joking|j/?k\b|(?:"
    r"(?:they|that|this|it|which|both)(?:\s+(?:is|are|was|were)|'s|'re)\s+(?:(?:all|simply|"
    r"plainly|just)\s+)?(?:wrong|false|incorrect|untrue|mistaken|not\s+true)|"
    r"(?:is|are|was)\s+(?:an?\s+)?(?:(?:common|popular|widespread|old)\s+)?"
    r"(?:myth|misconception|fallacy))\b(?=\s*(?:[,;:.!?)\]]|$)))")
# words that set one claim against another: "or" before one of them offers no alternative
CONTRASTING = frozenset(re.findall(r"\S+", "but whereas while although however because so "
                                   "unlike than yet"))
_PART = re.compile(r"[;.!?]")
_CONTENT = re.compile(r"[a-z]{3,}")
# the words of a retraction that name no statement of their own ("some say", "they")
_HOLLOW = frozenset({"some", "say", "says", "said", "people", "they", "that", "this", "which",
                     "both", "are", "was", "were", "the", "and", "but", "its", "just"})


def denied_in_front(text: str) -> str:
    """`text` (lower case) with each denial in front of a statement read as "not", its length
    kept."""
    return _DENIED_BEFORE.sub(lambda m: "not".ljust(len(m.group(0))), text)


def taken_back(text: str) -> list[tuple[int, int]]:
    """The spans of `text` (lower case) that a later retraction disowns: the sentence part
    before the retraction, or the part before that when the retraction stands alone in its
    own ("Some say ...; they are wrong.")."""
    spans: list[tuple[int, int]] = []
    for m in _TAKEN_BACK.finditer(text):
        cuts = [p.end() for p in _PART.finditer(text, 0, m.start())]
        start = cuts[-1] if cuts else 0
        if not any(w not in _HOLLOW for w in _CONTENT.findall(text[start:m.start()])):
            end, start = start, cuts[-2] if len(cuts) > 1 else 0
        else:
            end = m.start()
        if start < end:
            spans.append((start, end))
    return spans
