"""Where in the answer an arithmetic piece was written: `to_arith` rewrites the text (digit groups
glued, `\\times` to `*`), so the digits it read are found again, in order, in the original."""

from __future__ import annotations

import re
from functools import lru_cache

from graders.numeric.invisible import INVISIBLE_CLASS

_LITERAL = re.compile(r"\d+(?:\.\d+)?|\.\d+")
# what may separate digit groups in the source: 589,824 / 589 824 / 589\,824 / 589{,}824
_GROUP_SEP = r"(?:,|\\[,;! ]|\{,\}|~|\.|[ \t\u2009\u202f\u00a0'])?"
_SKIP = INVISIBLE_CLASS + "*"
_OPENERS = re.compile(r"(?:\\(?:boxed|frac|dfrac|tfrac|cfrac|sqrt)\s*\{|\be\s*\^\s*\{?|[({\[])\s*$")
_SCALE_TAIL = re.compile(r"\s*(?:thousand|million|billion|trillion)\b|(?-i:[KMB])(?![A-Za-z0-9_])"
                         r"|[ \t]{0,3}[kmgt]flops?\b", re.IGNORECASE)
_PERCENT_TAIL = re.compile(r"\s*\\?%")


@lru_cache(maxsize=512)
def _shape_pattern(groups: tuple[int, ...], decimals: int | None) -> re.Pattern[str]:
    """A number written with digit groups of these lengths (and this many decimals): one
    pattern for every number of the shape, so that distinct numbers (`1, 2, ..., 3000`) do not
    cost a compilation each."""
    # invisible format characters may stand between any two characters (`6<U+200B>4`)
    body = (_SKIP + _GROUP_SEP + _SKIP).join(_SKIP.join([r"\d"] * n) for n in groups) \
        + ("" if decimals is None else _SKIP + r"\." + _SKIP + _SKIP.join([r"\d"] * decimals))
    return re.compile(r"(?<![\d.])" + body + r"(?![\d])")


def _find_literal(masked: str, literal: str, start: int, end: int) -> re.Match[str] | None:
    """The first place in `masked[start:end]` where `literal` (`589824`, `0.665`) was written,
    in digit groups or with invisible characters between its digits: the first number of its
    shape whose digits are the literal's (separators hold no digit, so a shape's match at a
    place reads the same digits however it is parsed)."""
    whole, dot, decimals = literal.partition(".")
    groups: list[int] = []
    while len(whole) > 3:
        groups.insert(0, 3)
        whole = whole[:-3]
    groups.insert(0, len(whole))
    pattern = _shape_pattern(tuple(groups), len(decimals) if dot else None)
    digits = literal.replace(".", "")
    while True:
        m = pattern.search(masked, start, end)
        if m is None or _DIGITS.sub("", m.group()) == digits:
            return m
        start = m.start() + 1


_DIGITS = re.compile(r"\D+")


def written_span(masked: str, start: int, end: int, piece: str) -> tuple[int, int] | None:
    """Where in `masked[start:end]` the numbers of the arithmetic `piece` were written: from its
    first digit to its last (with an operator, `\\frac{` or `e^` before it and the braces,
    percent sign or scale word that close it), or None when they cannot be found in order."""
    literals = _LITERAL.findall(piece)
    if not literals:
        return None
    first = last = None
    cursor = start
    for literal in literals:
        m = _find_literal(masked, literal, cursor, end)
        if m is None:
            return None
        if first is None:
            first = m.start()
        last = cursor = m.end()
    assert first is not None and last is not None
    while True:  # widen to the command or bracket that opens the expression
        opener = _OPENERS.search(masked, max(start, first - 12), first)
        if opener is None or opener.start() < start:
            break
        first = opener.start()
    depth = sum(masked.count(c, first, last) for c in "({[") \
        - sum(masked.count(c, first, last) for c in ")}]")
    while depth > 0 and last < end:
        ch = masked[last]
        if ch in ")}]":
            depth -= 1
        elif ch in "({[":
            depth += 1
        last += 1
    if piece.endswith("%"):
        tail = _PERCENT_TAIL.match(masked, last, end)
        last = tail.end() if tail is not None else last
    scale = _SCALE_TAIL.match(masked, last, end)
    if scale is not None:
        last = scale.end()
    return first, last


def balanced(piece: str) -> str:
    """Drop parentheses left unmatched where a run was cut out of a longer expression."""
    keep = [True] * len(piece)
    opened: list[int] = []
    for i, ch in enumerate(piece):
        if ch == "(":
            opened.append(i)
        elif ch == ")":
            if opened:
                opened.pop()
            else:
                keep[i] = False
    for i in opened:
        keep[i] = False
    return "".join(ch for ch, k in zip(piece, keep, strict=True) if k).strip()
