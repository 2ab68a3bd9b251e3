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
from collections.abc import Sequence

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


_AUXILIARY = frozenset(re.findall(r"\S+", "is are was were be been can could will would should "
                                  "may might must does do did has have had"))


def turned(words: Sequence[tuple[int, str, bool, int]], spans: Sequence[tuple[int, int]],
           stop_words: frozenset[str]) -> set[int]:
    """Which words (start, text, negated, clause) a retraction of `spans` turns around: in each
    clause a negation governs, the words it governs (the negation is taken back); in another,
    the words a "not" would govern after its first auxiliary ("can represent" -> "can not
    represent"), or, with no auxiliary to place it after, all its content words."""
    inside = [i for i, w in enumerate(words) if any(s <= w[0] < e for s, e in spans)]
    out: set[int] = set()
    for clause in sorted({words[i][3] for i in inside}):
        members = [i for i in inside if words[i][3] == clause]
        negated = {i for i in members if words[i][2]}
        if negated:
            out |= negated
            continue
        auxiliary = next((k for k, i in enumerate(members) if words[i][1] in _AUXILIARY), -1)
        if auxiliary < 0:  # no verb to place the "not" after: every content word
            out |= {i for i in members if words[i][1] not in stop_words}
            continue
        for i in members[auxiliary + 1:]:
            if words[i][1] in stop_words:
                continue
            out.add(i)
            if not words[i][1].endswith("ly"):  # "not linearly separable" negates both
                break
    return out


def _alone(sentence: str) -> bool:
    """Whether the sentence is only a retraction ("Just kidding.", "They are wrong!")."""
    m = _TAKEN_BACK.search(sentence.lower())
    return m is not None and not any(
        w not in _HOLLOW for w in _CONTENT.findall(sentence.lower()[:m.start()]))


def with_retractions(sentences: Sequence[str]) -> list[str]:
    """The sentences, each joined to a retraction standing alone as the next one ("XOR is not
    linearly separable. Just kidding."), so that it is read as taken back."""
    return [f"{s}{'' if s.rstrip()[-1:] in '.!?;' else ';'} {sentences[i + 1]}"
            if i + 1 < len(sentences) and _alone(sentences[i + 1]) else s
            for i, s in enumerate(sentences)]
