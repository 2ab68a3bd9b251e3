"""What answer groups are made of: one submission's answer as grouping sees it, and the readings
of recorded values every kind's key may use. Pure and light (no NumPy): a kind's strategy
(`graders.kind`) builds its group key from these."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

# Student text is hostile: only a bounded prefix is normalised or parsed.
MAX_TEXT = 20_000
MAX_VALUE_TEXT = 400
MAX_NUMBERS = 64

# A word, or one mark that is not a blank: marks are kept when they carry meaning (below),
# prose punctuation is dropped.
_WORD_OR_MARK = re.compile(r"[^\W_]+|[^\w\s]|_")
# A hyphen joining two letters ("linearly-separable") is spelling, and so is an apostrophe
# ("don't"); elsewhere "-" is a minus and "'" a prime (f'(x)).
_JOINING_HYPHEN = re.compile(r"(?<=[^\W\d_])['\u2019-](?=[^\W\d_])")
# Operators and a subscript's underscore change what a formula says; so do brackets around
# an operator (h_{t+1} and h_t + 1, (W2 + W1) x and W2 + W1 x) and a symbol's prime (f'(x) and
# f(x)). Brackets around words or a lone symbol ("(see above)", "(a)", h_{i}) and an
# apostrophe after a word ("students' answers") are prose.
_OPERATORS = frozenset("^/*%-_")
_OPENING, _CLOSING = "([{", ")]}"
_PRIMES = frozenset("'\u2032")
_SYMBOL = re.compile(r"[^\W\d_]\d*")
_THOUSANDS = re.compile(r"(?<=\d)[,\u2009\u202f](?=\d{3}(?!\d))")
_NUMBER = re.compile(
    r"(?P<m>[-+\u2212]?\d{1,40}(?:\.\d{1,40})?)"
    r"(?:\s{0,3}(?:[x×*]|\\times)\s{0,3}10\s{0,2}\^\s{0,2}\{?(?P<p>[-+\u2212]?\d{1,3})\}?"
    r"|[eE](?P<e>[-+\u2212]?\d{1,3}))?"
)
READ_AS = re.compile(r"read as ([^;()]{1,200})")


@dataclass(frozen=True)
class Answer:
    """One submission's answer to the item: `member` is the submission's id."""

    member: int
    document: str  # the file's sha256: copies of one file are one group
    text: str  # the located answer (staff side)
    evidence: tuple[Mapping[str, Any], ...] = ()
    feedback: str = ""  # the grader's staff feedback (what it flagged)

    def evidence_of(self, kind: str) -> list[Mapping[str, Any]]:
        """The grader's evidence of one kind ("value", "expression", "check", "sentence")."""
        return [e for e in self.evidence if isinstance(e, Mapping) and e.get("kind") == kind]


def normalise_text(text: str) -> str:
    """Case, prose punctuation and spacing removed: what two copies of an answer share. Signs
    that change what a formula says stay (every mathematical symbol: =, ≠, <, >, +, −, ×, √,
    ¬, ...; ^ / * % - _; brackets around an operator, a symbol's prime): "W2 W1 = W" and
    "W2 W1 ≠ W", "x > 0" and "x < 0", or "h_{t+1}" and "h_t + 1", are two answers, not one
    answer in two spellings."""
    folded = unicodedata.normalize("NFKC", text[:MAX_TEXT]).casefold()
    folded = _JOINING_HYPHEN.sub(" ", folded.replace("\u2212", "-"))
    tokens = _WORD_OR_MARK.findall(folded)
    formula = _formula_marks(tokens)
    return " ".join(t for i, t in enumerate(tokens) if _kept(t) or i in formula)[:MAX_TEXT]


def _kept(token: str) -> bool:
    return (len(token) > 1 or token.isalnum() or token in _OPERATORS
            or unicodedata.category(token) == "Sm")


def _formula_marks(tokens: list[str]) -> set[int]:
    """The positions of the brackets that enclose an operator (both of a matching pair) and of
    the primes right after a symbol (a letter with digits, or a closing bracket)."""
    # how many operators come before each position: a pair encloses one when the count grows
    before = [0]
    for token in tokens:
        before.append(before[-1] + (len(token) == 1 and not token.isalnum() and _kept(token)))
    kept: set[int] = set()
    opened: list[int] = []
    for i, token in enumerate(tokens):
        if token in _OPENING:
            opened.append(i)
        elif token in _CLOSING and opened and _OPENING.index(tokens[opened[-1]]) == \
                _CLOSING.index(token):
            start = opened.pop()
            if before[i] > before[start + 1]:
                kept.update((start, i))
        elif token in _PRIMES and i and (_SYMBOL.fullmatch(tokens[i - 1])
                                         or tokens[i - 1] in _CLOSING):
            kept.add(i)
    return kept


def _decimal(mantissa: str, exponent: str | None) -> Decimal | None:
    try:
        value = Decimal(mantissa.replace("\u2212", "-"))
        if exponent:
            value = value.scaleb(int(exponent.replace("\u2212", "-")))
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() else None


def parse_numbers(text: str, vector: bool = False) -> list[Decimal]:
    """The numbers of a recorded value ("1,771,776", "[0.67, 0.24]", "5.9 × 10^5"); in a
    vector a comma always separates components."""
    cleaned = text[:MAX_VALUE_TEXT]
    if not vector:
        cleaned = _THOUSANDS.sub("", cleaned)
    found: list[Decimal] = []
    for match in _NUMBER.finditer(cleaned):
        value = _decimal(match.group("m"), match.group("p") or match.group("e"))
        if value is not None:
            found.append(value)
        if len(found) >= MAX_NUMBERS:
            break
    return found


def rounded(value: Decimal, tolerance: Decimal | None, integer: bool) -> str:
    """A value as its group sees it: to the item's tolerance, else exactly."""
    if integer and value == value.to_integral_value():
        return str(int(value))
    if tolerance is not None and tolerance > 0:
        steps = (value / tolerance).to_integral_value(rounding=ROUND_HALF_EVEN)
        value = steps * tolerance
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def reading(note: object, text: object) -> str:
    """The grader's own reading of a recorded value ("read as 589824" in its note), else the
    text it recorded."""
    found = READ_AS.search(str(note)[:MAX_VALUE_TEXT])
    return found.group(1) if found else str(text)
