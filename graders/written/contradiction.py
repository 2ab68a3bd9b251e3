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
role swap).

The signal does not take points by itself: it keeps a high-overlap answer from full credit at
high confidence (the item goes to review, the reason in the feedback).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from graders.written.lexical import STOP_WORDS, stem
from graders.written.text import NON_PREFIX

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


def _antonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for pair in _PAIRS.replace("\n", ";").split(";"):
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


def stem_key(word: str) -> str:
    """A word's key as `words_of` gives it (its stem, the base form's final "e" dropped)."""
    return _stem(word.lower())
# Words that give an order to the two things around them ("A calls B", "A is larger than B").
_DIRECTIONAL = frozenset(_stem(w) for w in re.findall(r"\S+", """
    than before after to into from onto calls call contains contain inherits inherit extends
    extend points point precedes follows sends send receives returns passes pass owns uses
    compared compares over above below under parent child larger smaller greater bigger more
    less higher lower faster slower outputs feeds maps depends"""))
# Negations of a verb or an adjective. Quantifiers ("no single line splits them") negate a
# whole claim in ways word alignment cannot follow, so they are not read as flipping a word.
NEGATORS = frozenset(re.findall(r"\S+", """not never cannot without cant dont doesnt isnt
    arent wont"""))
_QUANTIFIERS = frozenset({"no", "none", "nothing", "neither", "nor"})
_BREAK = re.compile(r"[,;:.!?()]|\b(?:but|whereas|while|although|however|because|so)\b")
_WORD = re.compile(r"[a-z][a-z0-9]*(?:[_'][a-z0-9]+)*")
_MAX_CHARS = 2000  # a sentence longer than this is read only to here (bounded work)
_SIDE = 4  # words either side of a directional word that name what it orders
_MIN_SHARED = 2  # content words an answer sentence shares with the reference to be compared


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
        if self.kind == "antonym":
            return (f"the answer says '{self.answer_word}' where the reference says "
                    f"'{self.reference_word}'")
        return (f"the answer swaps '{self.answer_word}' and '{self.reference_word}' around "
                "compared with the reference")


@lru_cache(maxsize=20_000)
def words_of(text: str) -> tuple[Word, ...]:
    """The words of `text`; a word is negated when a negation governs it: the negation stands
    before it in its clause with no other content word in between ("not separated in every
    case" negates "separated", not "case"); a clause break ends it."""
    text = NON_PREFIX.sub("non", text[:_MAX_CHARS]).lower()  # "non-linear" is one word
    out: list[Word] = []
    pending = quantifier = False  # a negation waits for the content word it governs
    last = 0
    for match in _WORD.finditer(text):
        word = match.group(0)
        if _BREAK.search(text[last:match.start()]):
            pending = quantifier = False
        last = match.end()
        if word in NEGATORS or word.endswith("n't"):
            pending = True
            continue
        quantifier = quantifier or word in _QUANTIFIERS
        if len(word) < 2:
            continue
        content = word not in STOP_WORDS
        negated = pending and content
        out.append(Word(word, _stem(word), match.start(), negated, quantifier and content))
        if content and not word.endswith("ly"):  # "not linearly separable" negates both
            pending = False
    return tuple(out)


def _content(words: Sequence[Word]) -> list[Word]:
    return [w for w in words if w.text not in STOP_WORDS]


def _negation(answer: Sequence[Word], reference: Sequence[Word], shared: set[str]
              ) -> tuple[str, str] | None:
    """A shared word that one side only negates and the other only affirms (a word used both
    ways on one side is left alone: "cannot be separated ...; not separable" is consistent; a
    word under a quantifier's negation, "no children", may be "does not have any children",
    and is not compared)."""
    def polarity(words: Sequence[Word]) -> dict[str, tuple[set[bool | None], str]]:
        out: dict[str, tuple[set[bool | None], str]] = {}
        for w in words:
            if w.key in shared:
                out.setdefault(w.key, (set(), w.text))[0].add(
                    None if w.quantified else w.negated)
        return out
    ours, theirs = polarity(answer), polarity(reference)
    for key in sorted(shared):
        (a, a_text), (r, r_text) = ours[key], theirs[key]
        if len(a) == 1 and len(r) == 1 and a != r and None not in a | r:
            return a_text, r_text
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
    """The first answer sentence that states the opposite of a reference statement, if any."""
    parsed = [(r, words_of(r)) for r in references]
    for sentence in sentences:
        answer = words_of(sentence)
        answer_keys = {w.key for w in _content(answer)}
        for reference, ref_words in parsed:
            shared = answer_keys & {w.key for w in _content(ref_words)}
            found: tuple[str, str] | None
            antonym = _antonym(answer, ref_words)
            if antonym is not None and len(shared) >= _MIN_SHARED - 1:
                return Opposite("antonym", antonym[0], antonym[1], sentence, reference)
            if len(shared) < _MIN_SHARED:
                continue
            found = _negation(answer, ref_words, shared)
            if found is not None:
                return Opposite("negation", found[0], found[1], sentence, reference)
            found = _role_swap(answer, ref_words, shared)
            if found is not None:
                return Opposite("role swap", found[0], found[1], sentence, reference)
    return None


def antonym_pair(sentence: str, reference: str) -> tuple[str, str] | None:
    """An affirmed word of `sentence` whose antonym `reference` affirms (see `_antonym`)."""
    return _antonym(words_of(sentence), words_of(reference))


def role_swap(sentence: str, reference: str) -> tuple[str, str] | None:
    """Two shared words ordered the other way around a directional word (see `_role_swap`)."""
    answer, ref = words_of(sentence), words_of(reference)
    shared = {w.key for w in _content(answer)} & {w.key for w in _content(ref)}
    return _role_swap(answer, ref, shared) if len(shared) >= _MIN_SHARED else None
