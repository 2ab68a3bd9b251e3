"""A sentence's words with the negations that govern them, read plainly or as claims: the
reading the opposite doubt (`contradiction`) and the phrasing guards (`meaning`) compare."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from graders.written import retraction
from graders.written.antonyms import stem_key
from graders.written.lexical import STOP_WORDS
from graders.written.patterns import OBJECT_PRONOUNS
from graders.written.text import NON_PREFIX

# Negations of a verb or an adjective. Quantifiers ("no single line splits them") negate a
# whole claim in ways word alignment cannot follow, so they are not read as flipping a word.
NEGATORS = frozenset(re.findall(r"\S+", """not never cannot without cant dont doesnt isnt
    arent wont"""))
_QUANTIFIERS = frozenset({"no", "none", "nothing", "neither", "nor"})
_BREAK = re.compile(r"[,;:.!?()]|\b(?:but|whereas|while|although|however|because|so)\b")
_PART = re.compile(r"[;.!?]")  # a sentence part: what a condition opening it governs
# Said before a word, a negation of it (read so in claims only: the phrasing matcher has its
# own reading of them).
_AGREEING = re.compile(r"\b(?:no\s+need\s+to|need\s+not|no\s+longer|(?:instead\s+of|rather\s+than|"
                       r"avoid(?:s|ed|ing)?)(?=\s+[a-z]+(?:ing|ed|ions?)\b)|"
                       r"sav(?:e|es|ed|ing)(?=\s+[a-z]+(?:ing|ed)\b))\b")
_CONDITIONS = frozenset({"if", "unless", "when", "whenever", "otherwise", "without"})
_COORDINATION = frozenset({"and", "or"})
_WORD = re.compile(r"[a-z][a-z0-9]*(?:[_'][a-z0-9]+)*")
_MAX_CHARS = 2000  # a sentence longer than this is read only to here (bounded work)


@dataclass(frozen=True)
class Word:
    text: str
    key: str  # stem
    start: int
    negated: bool
    # After a quantifier's negation in its clause ("no children", "if no constructor is
    # provided"): not read as negated, but it may be the same claim as "does not have any
    # children" or "if a constructor is not provided".
    quantified: bool = False
    clause: int = 0  # which clause of the text (`_BREAK` separates them)
    part: int = 0  # which sentence part (`_PART` separates them)
    # Read as a claim (`words_of(..., claims=True)`): an odd number of negations in its clause,
    # wherever they stand ("outside the function it cannot be accessed"); and whether it is
    # part of a condition, the word opening it ("if ... not provided", "Without the cache, ...").
    clause_negated: bool = False
    conditional: str = ""
    # Its polarity turned around by a later retraction of its statement (claims only: "...
    # (just kidding)", "Some say ...; they are wrong", "... is a myth").
    retracted: bool = False



@lru_cache(maxsize=20_000)
def words_of(text: str, claims: bool = False) -> tuple[Word, ...]:
    """The words of `text`; a word is negated when a negation governs it: the negation stands
    before it in its clause with no other content word in between ("not separated in every
    case" negates "separated", not "case"); a clause break ends it.

    Read as claims (`claims`, the opposite doubt), three more agreements: "no need to",
    "need not" and "no longer" negate what follows, and so do "instead of", "rather than",
    "avoids" before a verb or an action ("cached instead of recomputed" is "not recomputed",
    "avoiding recomputation" "no recomputation") and "saves" before a verb ("saves
    recomputing"); a second negation in a clause turns the first
    back ("does not diverge without a warm-up" affirms the warm-up; "and" and "or" start a
    new count); and a condition is no claim: the words of an "if", "unless", "when" or
    "otherwise" clause, and when such a clause or "without" opens a sentence part ("Without
    the cache, each token recomputes the prefix; ..."), those of the whole part."""
    text = NON_PREFIX.sub("non", text[:_MAX_CHARS]).lower()  # "non-linear" is one word
    if claims:
        text = _AGREEING.sub(lambda m: "not".ljust(len(m.group(0))), text)
        text = retraction.denied_in_front(text)
    read: list[tuple[re.Match[str], bool, bool, int, int, str]] = []
    pending = quantifier = False  # a negation waits for the content word it governs
    last = clause = part = negations = 0
    negations_in: dict[int, int] = {}
    condition = opener = ""  # "" none, "clause" to the clause's end, "part" to the part's end
    opening, previous = True, ""
    for match in _WORD.finditer(text):
        word, gap = match.group(0), text[last:match.start()]
        if _BREAK.search(gap):
            pending = quantifier = False
            clause, negations = clause + 1, 0
            condition = "" if condition == "clause" else condition
        if _PART.search(gap):
            opening, condition, part = True, "", part + 1
        # a label before it ("(b) Without the cache, ...") does not stop a part's opening
        last, first, opening = match.end(), opening, opening and len(word) < 2
        if claims and word in _CONDITIONS and (first or word != "without"):
            condition, opener = "part" if first else "clause", word
            continue
        if word in NEGATORS or word.endswith("n't"):
            previous, pending, negations = word, True, negations + 1
            negations_in[clause] = negations_in.get(clause, 0) + 1
            continue
        if claims and word in _COORDINATION:
            negations = 0
        pending, previous = pending and not (  # "without it": "it" is the whole object
            previous == "without" and word in OBJECT_PRONOUNS), word
        quantifier = quantifier or word in _QUANTIFIERS
        if len(word) < 2:
            continue
        content = word not in STOP_WORDS
        negated = pending and content and (not claims or negations % 2 == 1)
        read.append((match, negated, quantifier and content, clause, part, condition and opener))
        if content and not word.endswith("ly"):  # "not linearly separable" negates both
            pending = False
    words = tuple(Word(m.group(0), stem_key(m.group(0)), m.start(), negated, quantified, clause,
                       part, negations_in.get(clause, 0) % 2 == 1, conditional)
                  for m, negated, quantified, clause, part, conditional in read)
    return _retracted(words, retraction.taken_back(text)) if claims else words


def _retracted(words: tuple[Word, ...], spans: Sequence[tuple[int, int]]) -> tuple[Word, ...]:
    """The words of statements a later retraction disowns, their polarity turned around."""
    if not spans:
        return words
    flip = retraction.turned([(w.start, w.text, w.negated, w.clause) for w in words], spans,
                             STOP_WORDS)
    return tuple(replace(w, negated=w.negated != (i in flip), clause_negated=not w.clause_negated,
                         retracted=True)
                 if any(s <= w.start < e for s, e in spans) else w for i, w in enumerate(words))
