"""Whether an answer states the opposite of a reference statement, from its words.

No sentence-pair (NLI) model ships with its weights on the package registries without PyTorch,
so the signal is built from what the grader has: an answer sentence that shares the reference's
content words (heavy overlap is what makes a wrong answer look right to similarity) and
- turns one of them around with a negation the reference does not have, or drops the
  reference's negation ("is not connected" against "is connected", and the reverse);
- uses the antonym of one of the reference's words instead of it ("separated" where the
  reference says "connected", "decreases" for "increases");
- swaps the roles of two of them around a directional word ("the key is compared with the
  query" against "the query is compared with the key", "B is larger than A" for "A ... than B").

Two kinds of agreement are not read as the opposite (on Mohler they flagged right answers that
both calibrated models called correct): a quantifier's negation said with "not" ("a node that
has no children" and "a node that does not have any children"; a word after "no" in its clause
is not compared), and an enumeration that the reference lists in both orders ("constant
pointer to nonconstant data, nonconstant pointer to constant data" in another order is no
role swap). Both sides are read as claims (`words_of(..., claims=True)`, written grader version
20), so that only a polarity conflict about the same subject and predicate counts: a negated
antonym, "instead of" + verb, a double negation, a condition, the other side of a contrast,
a quantifier or antonym about another word agree (docs/rubrics.md, "May state the opposite").

The signal does not take points by itself: it keeps a high-overlap answer from full credit at
high confidence (the item goes to review, the reason in the feedback).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graders.written import retraction
from graders.written.antonyms import ANTONYMS, CONTRAST, QUANTIFYING, stem_key
from graders.written.claims import NEGATORS, Word, words_of
from graders.written.lexical import STOP_WORDS

# Words that give an order to the two things around them ("A calls B", "A is larger than B").
_DIRECTIONAL = frozenset(stem_key(w) for w in re.findall(r"\S+", """
    than before after to into from onto calls call contains contain inherits inherit extends
    extend points point precedes follows sends send receives returns passes pass owns uses
    compared compares over above below under parent child larger smaller greater bigger more
    less higher lower faster slower outputs feeds maps depends"""))
_SIDE = 4  # words either side of a directional word that name what it orders
_MIN_SHARED = 2  # content words an answer sentence shares with the reference to be compared

# read by the phrasing guards (`meaning`) and the tests from here, where they lived before
__all__ = ["ANTONYMS", "NEGATORS", "Opposite", "Word", "antonym_pair", "opposite_of",
           "role_swap", "words_of"]


@dataclass(frozen=True)
class Opposite:
    """An answer sentence that turns a reference statement around, and how."""

    kind: str  # "negation", "antonym" or "role swap"
    answer_word: str
    reference_word: str
    sentence: str
    reference: str

    def describe(self) -> str:
        if self.kind == "negation":
            return (f"the answer negates '{self.answer_word}' where the reference does not (or "
                    "the reverse)")
        if self.kind == "retraction":
            return (f"the answer takes back or disowns what it says about '{self.answer_word}'"
                    " (a joke, a claim it calls wrong or a myth)")
        if self.kind == "both ways":
            return f"the answer states '{self.answer_word}' both ways, one or the other"
        if self.kind == "antonym":
            return (f"the answer says '{self.answer_word}' where the reference says "
                    f"'{self.reference_word}'")
        return (f"the answer swaps '{self.answer_word}' and '{self.reference_word}' around "
                "compared with the reference")


def _content(words: Sequence[Word]) -> list[Word]:
    return [w for w in words if w.text not in STOP_WORDS]


def _plain(word: Word) -> bool:
    """Whether the word's polarity is its own: negated, or in a clause no negation turns."""
    return word.negated or not word.clause_negated


def _negation(answer: Sequence[Word], reference: Sequence[Word], shared: set[str]
              ) -> tuple[str, str, str] | None:
    """A shared word that one side only negates and the other only affirms (a word used both
    ways on one side is left alone: "cannot be separated ...; not separable" is consistent; a
    word under a quantifier's negation, "no children", may be "does not have any children",
    and is not compared, nor one in a condition unless both say it after "Without X"; a word a
    negation of its clause does not govern, "without passing through ...", is left out)."""
    def polarity(words: Sequence[Word]) -> dict[str, tuple[set[tuple[str, bool] | None], str]]:
        out: dict[str, tuple[set[tuple[str, bool] | None], str]] = {}
        for w in words:  # its frame ("" or "without") and its polarity
            if w.key in shared and _plain(w):
                out.setdefault(w.key, (set(), w.text))[0].add(None if w.quantified or w.conditional
                                                              not in ("", "without")
                                                              else (w.conditional, w.negated))
        return out
    ours, theirs = polarity(answer), polarity(reference)
    for key in sorted(set(ours) & set(theirs)):
        (a, a_text), (r, r_text) = ours[key], theirs[key]
        if len(a) == 1 and len(r) == 1 and a != r and None not in a | r \
                and len({v and v[0] for v in a | r}) == 1 \
                and not _other_side(answer, reference, key):
            return a_text, r_text, key
    return None


def _antonym(answer: Sequence[Word], reference: Sequence[Word]) -> tuple[str, str] | None:
    """An affirmed answer word whose antonym the reference affirms (and the answer does not)."""
    ref_affirmed = {w.key: w for w in reference if not w.negated}
    ans_affirmed = {w.key for w in answer if not w.negated}
    for word in answer:
        if word.negated:
            continue
        for opposite in ANTONYMS.get(word.key, ()):
            if opposite in ref_affirmed and opposite not in ans_affirmed \
                    and word.key not in ref_affirmed:
                return word.text, ref_affirmed[opposite].text
    return None


def _opposed(one: Word, other: Word) -> bool:
    """Antonyms (`ANTONYMS`, `CONTRAST`) or one the other with "un" or "non" before it."""
    if other.key in ANTONYMS.get(one.key, ()) or other.key in CONTRAST.get(one.key, ()):
        return True
    return any(a.text.startswith(p) and stem_key(a.text[len(p):]) == b.key
               for a, b in ((one, other), (other, one)) for p in ("un", "non"))


def _telling(word: Word) -> bool:
    """A content word, or one with an antonym ("above", "before" are stop words)."""
    return word.text not in STOP_WORDS or word.key in ANTONYMS


def _other_side(answer: Sequence[Word], reference: Sequence[Word], key: str) -> bool:
    """Whether the answer says the word's claim of the other side of a contrast: its sentence
    has the opposite (`_opposed`) of a word of a reference's sentence part holding `key`
    (its subject may be a clause before, "post-LN normalises the sum, so ... it needs a
    warm-up"), the answer's clause holding `key` not that word, nor that part the answer's
    ("with pre-LN the stream is never normalised" against "post-LN normalises the sum";
    "pre-LN does not need a warm-up, post-LN does" against "post-LN needs a warm-up"; "the
    path is left unnormalised so the gradient passes through it" against "reach every layer
    without passing through a normalisation")."""
    clauses = {w.clause for w in answer if w.key == key}
    ours = {w.key for w in answer if w.clause in clauses}
    for part in sorted({w.part for w in reference if w.key == key and _plain(w)}):
        theirs = [w for w in reference if w.part == part and _telling(w)]
        their_keys = {w.key for w in theirs}
        if any(_opposed(w, o) and o.key not in ours and w.key not in their_keys
               for w in answer if _telling(w) for o in theirs):
            return True
    return False


def _next_content(words: Sequence[Word], i: int) -> str:
    """The key of the first content word after words[i] in its clause ("" when none)."""
    for w in words[i + 1:]:
        if w.clause != words[i].clause:
            break
        if w.text not in STOP_WORDS:
            return w.key
    return ""


def _claim_antonym(answer: Sequence[Word], reference: Sequence[Word]
                   ) -> tuple[str, str] | None:
    """`_antonym` of claims: the two words' clauses negated alike (a negated antonym agrees:
    "cannot be accessed outside the function" and "accessed only inside the function"), not
    in a condition, and the same claim around them: a quantifier ("no", "every") of the
    same word ("no warm-up" is not the opposite of "every layer"), another antonym sharing
    another content word of its clause with the reference's, past the word each qualifies
    ("store the K and V of old tokens" against "each new token computes its own key")."""
    for i, word in enumerate(answer):
        if word.negated or word.conditional or word.key not in ANTONYMS:
            continue
        if any(w.key == word.key and not w.negated for w in reference):
            continue
        for j, other in enumerate(reference):
            if other.negated or other.conditional or other.key not in ANTONYMS[word.key] \
                    or any(w.key == other.key and not w.negated for w in answer) \
                    or word.clause_negated != other.clause_negated:
                continue
            ours, theirs = _next_content(answer, i), _next_content(reference, j)
            if word.key in QUANTIFYING:
                if ours and ours == theirs:
                    return word.text, other.text
                continue
            around = {w.key for w in answer if w.clause == word.clause
                      and w.text not in STOP_WORDS} - {word.key, ours}
            if around & ({w.key for w in reference if w.clause == other.clause
                          and w.text not in STOP_WORDS} - {other.key, theirs}):
                return word.text, other.text
    return None


def _sides(words: Sequence[Word], shared: set[str]
           ) -> list[tuple[str, frozenset[str], frozenset[str]]]:
    """For each directional word, the shared content words a few words left and right of it."""
    out = []
    for i, word in enumerate(words):
        if word.key not in _DIRECTIONAL:
            continue
        if any(w.text == "by" for w in words[max(0, i - 2):i + 2]):
            continue  # a passive ("is called by") turns the order around itself
        left = frozenset(w.key for w in words[max(0, i - _SIDE):i]
                         if w.key in shared and w.text not in STOP_WORDS)
        right = frozenset(w.key for w in words[i + 1:i + 1 + _SIDE]
                          if w.key in shared and w.text not in STOP_WORDS)
        if left and right:
            out.append((word.key, left, right))
    return out


def _role_swap(answer: Sequence[Word], reference: Sequence[Word], shared: set[str]
               ) -> tuple[str, str] | None:
    """Two shared words on either side of the same directional word, in the opposite order,
    and not also in the answer's order elsewhere in the reference (an enumeration, "constant
    pointer to nonconstant data, nonconstant pointer to constant data", has both)."""
    theirs = _sides(reference, shared)
    for middle, left, right in _sides(answer, shared):
        for other, ref_left, ref_right in theirs:
            if other != middle:
                continue
            moved_left = (left & ref_right) - ref_left
            moved_right = (right & ref_left) - ref_right
            if moved_left and moved_right and not any(
                    m == middle and moved_left & also_left and moved_right & also_right
                    for m, also_left, also_right in theirs):
                return min(moved_left), min(moved_right)
    return None


def opposite_of(sentences: Sequence[str], references: Sequence[str]) -> Opposite | None:
    """The first answer sentence that states the opposite of a reference statement, if any:
    both read as claims (`words_of(..., claims=True)`), an opposite about the same subject and
    predicate (`_claim_antonym`, `_negation` and `_other_side`)."""
    parsed = [(r, words_of(r, claims=True)) for r in references]
    for sentence in retraction.with_retractions(sentences):
        answer = words_of(sentence, claims=True)
        answer_keys = {w.key for w in _content(answer)}
        for reference, ref_words in parsed:
            shared = answer_keys & {w.key for w in _content(ref_words)}
            found: tuple[str, str] | None
            antonym = _claim_antonym(answer, ref_words)
            if antonym is not None and len(shared) >= _MIN_SHARED - 1:
                return Opposite("antonym", antonym[0], antonym[1], sentence, reference)
            if len(shared) < _MIN_SHARED:
                continue
            negated = _negation(answer, ref_words, shared)
            if negated is not None:
                kind = "retraction" if any(w.retracted and w.key == negated[2]
                                           for w in answer) else "negation"
                return Opposite(kind, negated[0], negated[1], sentence, reference)
            both = _both_ways(answer, shared)
            if both is not None:
                return Opposite("both ways", both, both, sentence, reference)
            found = _role_swap(answer, ref_words, shared)
            if found is not None:
                return Opposite("role swap", found[0], found[1], sentence, reference)
    return None


def _both_ways(answer: Sequence[Word], shared: set[str]) -> str | None:
    """A shared word the answer affirms and then, right after an "or", negates (or the
    reverse) in one clause ("XOR is either linearly separable or not linearly separable"):
    both claims offered, neither made. A contrast between them ("can separate AND or OR but
    cannot separate XOR") makes two claims, not one offered both ways."""
    for i, word in enumerate(answer):
        if word.key not in shared or word.text in STOP_WORDS or word.quantified \
                or word.conditional:
            continue
        after_or = -1  # words since the last "or", -1 before any
        for later in answer[i + 1:]:
            if later.clause != word.clause or later.text in retraction.CONTRASTING:
                break
            after_or = 0 if later.text == "or" else after_or + (after_or >= 0)
            if 0 < after_or <= 3 and later.key == word.key \
                    and later.negated != word.negated and not later.quantified \
                    and not later.conditional:
                return word.text
    return None


def antonym_pair(sentence: str, reference: str) -> tuple[str, str] | None:
    """An affirmed word of `sentence` whose antonym `reference` affirms (see `_antonym`)."""
    return _antonym(words_of(sentence), words_of(reference))


def role_swap(sentence: str, reference: str) -> tuple[str, str] | None:
    """Two shared words ordered the other way around a directional word (see `_role_swap`)."""
    answer, ref = words_of(sentence), words_of(reference)
    shared = {w.key for w in _content(answer)} & {w.key for w in _content(ref)}
    return _role_swap(answer, ref, shared) if len(shared) >= _MIN_SHARED else None
