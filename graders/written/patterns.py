"""Concept patterns: a small regex dialect for phrases, with negation handled per clause.

A pattern is a regular expression (case-insensitive) with three conveniences:
- a space between two words matches any run of whitespace; next to a symbol it is optional,
  so `d_head = d_model / h` also matches `d_head=d_model/h`;
- ` ... ` is a gap of up to six words within the sentence;
- `word*` (a word ending in `*`) matches any word starting with `word`;
- `NOT` (upper case) matches any negation: not, n't, never, cannot, no.
A match preceded in its clause by a negation ("not", "n't", "never", "without", ...) does not
count, unless the pattern itself contains the negation (`not linearly separable`), or a word of
crossing stands between the two or opens the match ("can't handle positions past max_len",
"does not work beyond the maximum length", "can't go | beyond max_len"): the negation then
covers going past the limit, which states the limit.

An element whose own texts state it as what something prevents ("scaling prevents softmax
saturation", "... keeps the scores from growing") is also stated by a result clause that
denies the match ("we divide by sqrt(d_k) so the softmax doesn't saturate", "..., so that
the scores won't blow up"): `find_prevented`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from graders.written.lexical import STOP_WORDS
from graders.written.text import NON_PREFIX

_GAP = r"\W+(?:[\w'’]+\W+){0,6}?"
_NOT = r"(?:not|\w*n['’]t|never|cannot|no)"
# `word*` before the end, a space, `)`, `|` or a ` ... ` gap (already \x00 when this runs).
_STEM = re.compile(r"(?<=[A-Za-z])(?<!\\[A-Za-z])\*(?=$|[\s)|\x00])")
_NEGATOR = re.compile(
    r"(?<![\w'’])(?:not|no|never|cannot|without|neither|nor|none|nothing|unable|fails?\s+to|"
    r"instead\s+of|rather\s+than|unlike|"
    r"\w+n['’]t|cant|dont|doesnt|isnt|arent|wont)(?![\w'’])",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r"[,;:.!?()=]|->|(?<!\w)(?:but|whereas|while|although|however|because|since|so|"
    r"which|hence|thus|therefore|then)(?!\w)",
    re.IGNORECASE,
)
_NEGATION_WINDOW_WORDS = 4
# Between a negation and a match, these say the negation is of going past what the match names
# (a stated limit), not of the match itself.
CROSSING = re.compile(
    r"(?<![\w'’])(?:past|beyond|above|exceed\w*|outside|(?:longer|more|greater|larger|further|"
    r"bigger)\s+than)(?![\w'’])", re.IGNORECASE)


class PatternError(ValueError):
    """A rubric pattern that does not compile."""


_HYPHEN = re.compile(r"(?<=[A-Za-z])-\??(?=[A-Za-z(])")
_CLASS = re.compile(r"(\[[^\]]*\])")


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    source = pattern.strip()
    if not source:
        raise PatternError("empty pattern")
    source = NON_PREFIX.sub("non", source)  # as answers are read ("non-linear" is one word)
    # Answers are read with a hyphen between letters as a space ("warm-up" is "warm up",
    # `text.normalise`): a pattern's hyphen there ('warm-?up', 'pre-LN') matches either, or
    # none; a character class ('memory[- ]saving') is left as written.
    source = "".join(part if part.startswith("[") else _HYPHEN.sub(r"[-\\s]?", part)
                     for part in _CLASS.split(source))
    source = re.sub(r"\s+\.\.\.\s+", "\x00", source)
    source = _STEM.sub(r"\\w*", source)
    source = re.sub(r"(?<![A-Za-z])NOT(?![A-Za-z])", lambda _: _NOT, source)
    out: list[str] = []
    parts = re.split(r"(\s+)", source)
    for index, part in enumerate(parts):
        if not part.isspace():
            out.append(part)
            continue
        before = parts[index - 1][-1:] if index > 0 else ""
        after = parts[index + 1][:1] if index + 1 < len(parts) else ""
        words = (before.isalnum() or before in "_*'") and (after.isalnum() or after in "_\\")
        out.append(r"\s+" if words else r"\s*")
    body = "".join(out).replace("\x00", _GAP)
    head = r"(?<![\w])" if re.match(r"[\w(]", source) else ""
    tail = r"(?![\w])" if re.search(r"\w$", source) else ""
    try:
        return re.compile(f"{head}(?:{body}){tail}", re.IGNORECASE)
    except re.error as exc:
        raise PatternError(f"pattern {pattern!r} does not compile: {exc}") from exc


@dataclass(frozen=True)
class PatternHit:
    pattern: str
    start: int
    end: int
    text: str
    # Stated as what a result clause says will not happen (`find_prevented`).
    prevented: bool = False


def is_negated(text: str, start: int) -> bool:
    """Whether a negation governs the phrase starting at `start` (same clause, a few words back)."""
    before = text[max(0, start - 80) : start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    if breaks:
        before = before[breaks[-1].end() :]
    window = " ".join(before.split()[-_NEGATION_WINDOW_WORDS:])
    negations = list(_NEGATOR.finditer(window))
    # (a clause cut off 80 characters back has no opening to read)
    if negations and (breaks or start <= 80) and \
            _counterfactual_object(before, window, negations[-1]):
        return False
    # (the phrase may itself open on the crossing: "can't handle positions | beyond max_len")
    return bool(negations) and not CROSSING.search(window, negations[-1].end()) and \
        not CROSSING.match(text, start)


# What ends the object of "without": a pronoun is a whole one ("without it"), and a determiner
# after a word of it opens the clause it conditions ("without scaling | the softmax saturates").
OBJECT_PRONOUNS = frozenset({"it", "them", "this", "that", "these", "those"})
_DETERMINERS = frozenset({"the", "a", "an", "each", "every", "all", "most", "some", "many",
                          "its", "their", "our", "any"})
_OPENER = re.compile(r"^\W*(?:\w{1,2}\W+)?$")  # the clause's start, or a label ("b)", "7")
# a condition opening the clause, up to the negation in it: "If we didn't have", "Had we not
# used", "If there were no" (a label may stand before it)
_CONDITION = re.compile(r"^\W*(?:\w{1,2}\W+)?(?:if|had|were)\s+(?:[\w'’]+\s+){0,2}$", re.IGNORECASE)
# negations that govern a verb, whose object follows it ("didn't have it", "not used scaling")
_OF_A_VERB = frozenset({"not", "never"})


def _counterfactual_object(clause: str, window: str, negation: re.Match[str]) -> bool:
    """Whether the negation is a clause-opening "without", or the negation of a condition
    opening the clause ("If we didn't have", "Had we not used", "If there were no"), whose
    object ends before the phrase: "Without it(,) a few experts get every token" and "If we
    didn't have it the experts get every token" state that the experts do (the negation is of
    "it"; "Without X, Y does not happen" is negated by its own "not")."""
    word = negation.group(0).lower()
    opening = clause[:clause.lower().rfind(word)]
    if not (word == "without" and _OPENER.match(opening)) and not _CONDITION.match(opening):
        return False
    after = window[negation.end():].lower().split()
    if word in _OF_A_VERB or word.endswith(("n't", "n’t")):
        after = after[1:]  # the verb it negates: the object follows
    if after and after[0] in OBJECT_PRONOUNS:
        return True
    return any(word in _DETERMINERS and after[i - 1] not in _DETERMINERS
               for i, word in enumerate(after) if i > 0)


def find_affirmed(pattern: str, text: str) -> PatternHit | None:
    """The first match of `pattern` in `text` that is affirmed (not negated)."""
    # A pattern that spells out a negation owns it; otherwise a negation anywhere in the match
    # (inside a gap) or just before it turns the statement around.
    owns_negation = _NEGATOR.search(pattern) is not None
    for match in compile_pattern(pattern).finditer(text):
        if owns_negation:
            return PatternHit(pattern, match.start(), match.end(), match.group(0))
        if _NEGATOR.search(match.group(0)) or is_negated(text, match.start()):
            continue
        return PatternHit(pattern, match.start(), match.end(), match.group(0))
    return None


def negated_in_another_clause(pattern: str, text: str) -> PatternHit | None:
    """A match of `pattern` that `find_affirmed` rejects only for a negation inside it that a
    clause break separates from the match's last clause ("yes - X+P is no longer a permutation
    of the rows, so the outputs differ" for `yes ... differ`): the negation may govern only its
    own clause, so whether the match is stated only a reader can tell."""
    if _NEGATOR.search(pattern) is not None:
        return None
    for match in compile_pattern(pattern).finditer(text):
        inside = match.group(0)
        breaks = list(_CLAUSE_BREAK.finditer(inside))
        if not breaks or is_negated(text, match.start()):
            continue
        last = breaks[-1].end()
        if _NEGATOR.search(inside[last:]) is None and _NEGATOR.search(inside[:last]):
            return PatternHit(pattern, match.start(), match.end(), inside)
    return None


# An element stated as what something prevents, in its own texts.
PREVENTS = re.compile(
    r"(?<![\w'’])(?:prevent\w*|avoid\w*|stops?|stopping|keep\w*(?:\s+\w+){1,3}\s+from)"
    r"(?![\w'’])", re.IGNORECASE)
# A clause of result or purpose, and the negation that opens what it says will not happen:
# "so (that) the softmax doesn't saturate", "so it won't blow up", "so as not to saturate".
_RESULT = re.compile(
    r"(?<![\w'’])(?:so(?:\s+that|\s+as)?|such\s+that|in\s+order)\s+(?:[\w'’]+\s+){0,3}?"
    r"(?:not|\w+n['’]t|cant|dont|doesnt|isnt|arent|wont|never|cannot)\s+(?:\w+\s+)?$",
    re.IGNORECASE)


def find_prevented(pattern: str, text: str) -> PatternHit | None:
    """A match of `pattern` negated only by a result clause's negation that opens it ("so the
    softmax doesn't | saturate"): the clause says what the thing before prevents."""
    if _NEGATOR.search(pattern) is not None:
        return None
    for match in compile_pattern(pattern).finditer(text):
        if _NEGATOR.search(match.group(0)) or not is_negated(text, match.start()):
            continue
        before = text[max(0, match.start() - 160):match.start()]
        opened = [m for m in re.finditer(r"(?<![\w'’])(?:so|such|in)\s", before)]
        if not opened or not _RESULT.match(before, opened[-1].start()) or \
                len(_NEGATOR.findall(before[opened[-1].start():])) != 1:
            continue
        # the step it results from is affirmed ("we do not scale, so the softmax doesn't
        # saturate" says no such thing)
        step = re.split(r"[.;:!?]", before[:opened[-1].start()])[-1]
        if _NEGATOR.search(step) is None:
            return PatternHit(pattern, match.start(), match.end(), match.group(0), True)
    return None


# Regrading the same answers is common (a rubric edit, a bulk regrade): remember the outcomes.
@lru_cache(maxsize=200_000)
def find_any(patterns: tuple[str, ...], text: str) -> PatternHit | None:
    for pattern in patterns:
        hit = find_affirmed(pattern, text)
        if hit is not None:
            return hit
    return None


# A group of alternative words before another word of the pattern: a qualifier ("(input|token|
# word) (embedding*|tensor)"), which an answer may leave out ("added to the embeddings").
_QUALIFIER = re.compile(r"\((?:[A-Za-z_]+\|)+[A-Za-z_]+\) (?=[\w(])")
# What a pattern keeps once a qualifier is dropped: at least this many words or word groups,
# not counting function words ("(set|bag) of (tokens|words)" without its head noun is "of
# (tokens|words)", which any "the position of each word" matches).
_KEPT_WORDS = 2


@lru_cache(maxsize=4096)
def without_qualifier(pattern: str) -> tuple[str, ...]:
    """The pattern with one of its qualifier groups left out, each way it can be (never one
    of fewer than `_KEPT_WORDS` words or groups, which would match almost anything)."""
    out = []
    for match in _QUALIFIER.finditer(pattern):
        relaxed = pattern[:match.start()] + pattern[match.end():]
        kept = re.findall(r"\((?:[^()]*)\)(?!\?)|(?<![\w(|])[A-Za-z]\w*\*?(?![\w|)])", relaxed)
        content = [k for k in kept if k.rstrip("*").lower() not in STOP_WORDS]
        if len(content) >= _KEPT_WORDS:
            out.append(relaxed)
    return tuple(out)
