"""Vectors as students write them: `[0.665, 0.245, 0.090]`, `(0.665; 0.245; 0.090)`, numpy's
`[0.665 0.245 0.09]`, `\\begin{bmatrix}...\\end{bmatrix}` anywhere in a statement, and bare lists
(`0.665, 0.245 and 0.090`, `66.5 %, 24.5 % and 9.0 %`, one value per line)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graders.numeric.arith import EvalError, Number, evaluate
from graders.numeric.latex import SEP, glue_digit_groups, to_arith

MAX_INNER = 400
MAX_ELEMENTS = 64
MAX_VECTORS = 500  # an answer has a few; a flood of them is not read further

_BRACKET = re.compile(
    r"\\begin\{[a-zA-Z]{0,2}matrix\*?\}|\\begin\{array\}(?:\{[^{}]{0,20}\})?"
    r"|\\end\{[a-zA-Z]{0,2}matrix\*?\}|\\end\{array\}|[\[\]()]|\\[{}]"
)
# a set written with plain braces in prose (`experts {2, 4}`); not a LaTeX group, which follows
# a command, a name, a power or a subscript (`\\frac{2}{4}`, `x^{2}`, `W_{1,2}`)
_PLAIN_SET = re.compile(r"(?<![\\A-Za-z0-9^_}])\{([^{}\n]{1,200})\}")
_NUMBER_TOKEN = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d{1,3})?%?")


@dataclass(frozen=True)
class BracketVector:
    start: int
    end: int
    values: tuple[Number, ...]
    percent: bool


def scalar(text: str) -> tuple[Number, bool, bool] | None:
    """A single arithmetic run: (value, is an expression, is a percentage)."""
    arith = to_arith(text)
    if arith is None or SEP in arith:
        return None
    arith = arith.strip()
    percent = arith.endswith("%")
    arith = arith.rstrip("% ")
    try:
        result = evaluate(arith)
    except (EvalError, ZeroDivisionError, OverflowError):
        return None
    return result.value, result.operators > 0, percent


def split_elements(inner: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    cursor = 0
    i = 0
    while i < len(inner):
        ch = inner[i]
        if ch == "\\" and inner[i + 1:i + 2] in (",", ";", ":", "!", " "):
            i += 2  # a LaTeX space (`0.925,\,0.025`): its comma separates nothing
            continue
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth = max(0, depth - 1)
        elif depth == 0 and (ch in ",;&" or inner.startswith("\\\\", i)):
            parts.append(inner[cursor:i])
            i += 2 if ch == "\\" else 1
            cursor = i
            continue
        i += 1
    parts.append(inner[cursor:])
    return [p for p in (p.strip() for p in parts) if p]


def vector_values(inner: str) -> tuple[tuple[Number, ...], bool] | None:
    """The elements of a bracketed group, or None unless it is two or more numbers."""
    elements = split_elements(glue_digit_groups(inner))
    if len(elements) == 1:
        tokens = elements[0].split()
        if len(tokens) > 1 and all(_NUMBER_TOKEN.fullmatch(t) for t in tokens):
            elements = tokens  # numpy prints a vector without commas
    if not 2 <= len(elements) <= MAX_ELEMENTS:
        return None
    values: list[Number] = []
    percents = 0
    for element in elements:
        read = scalar(element)
        if read is None:
            return None
        value, _, percent = read
        percents += percent
        values.append(value / 100 if percent else value)
    return tuple(values), percents > 0


def bracket_vectors(masked: str) -> list[BracketVector]:
    """Every bracketed group of two or more numbers, outermost first; one pass over the brackets
    (a stack), so unbalanced or hostile nesting costs linear time."""
    pairs: list[tuple[int, int, int, int]] = []
    stack: list[tuple[int, int]] = []
    for m in _BRACKET.finditer(masked):
        token = m.group(0)
        # `\{2, 4\}` (LaTeX's set braces, `\left\{` too) lists values as brackets do
        if token in "[(" or token == "\\{" or token.startswith("\\begin"):
            stack.append((m.start(), m.end()))
        elif stack:
            open_start, open_end = stack.pop()
            if m.start() - open_end <= MAX_INNER:
                pairs.append((open_start, open_end, m.start(), m.end()))
        if len(stack) > 200:
            stack = stack[-200:]
    pairs.extend((m.start(), m.start() + 1, m.end() - 1, m.end())
                 for m in _PLAIN_SET.finditer(masked))
    pairs.sort()
    found: list[BracketVector] = []
    covered = -1
    for open_start, open_end, close_start, close_end in pairs:
        if open_start < covered:
            continue
        parsed = vector_values(masked[open_end:close_start])
        if parsed is not None:
            found.append(BracketVector(open_start, close_end, parsed[0], parsed[1]))
            covered = close_end
            if len(found) >= MAX_VECTORS:
                break
    return found


_GAP_ALLOWED = re.compile(r"(?:[,;&|]|\\\\|\\q?quad)?(?:and|und|et)?", re.IGNORECASE)
_LINE_NOISE = re.compile(r"[\s\-*•+,;.|]*")


@dataclass(frozen=True)
class Listed:
    """A scalar that may belong to a bare list."""

    start: int
    end: int
    value: Number
    percent: bool


def _alone_on_line(masked: str, start: int, end: int) -> bool:
    line_start = masked.rfind("\n", 0, start) + 1
    line_end = masked.find("\n", end)
    line_end = len(masked) if line_end < 0 else line_end
    return bool(_LINE_NOISE.fullmatch(masked[line_start:start])
                and _LINE_NOISE.fullmatch(masked[end:line_end]))


# the word (or `#`) each value of a list repeats before it: `expert 2 and expert 4`, `#2, #4`
_REPEATED = re.compile(r"[,;&]?(?:and)?(#|[A-Za-z]{2,20})", re.IGNORECASE)


def _repeats_its_word(masked: str, left: Listed, gap: str) -> bool:
    """The gap is a separator and the word that also stands right before the left value."""
    m = _REPEATED.fullmatch(gap)
    if m is None:
        return False
    word = m.group(1).lower()
    before = masked[max(0, left.start - len(word) - 1):left.start].lower().rstrip()
    return before.endswith(word) and (word == "#" or not before[:-len(word)][-1:].isalpha())


def _joins(masked: str, left: Listed, right: Listed) -> bool:
    gap = masked[left.end:right.start]
    if len(gap) > 40 or left.percent != right.percent:
        return False
    squeezed = "".join(gap.split())
    if not _GAP_ALLOWED.fullmatch(squeezed) and not (
            "\n" not in gap and _repeats_its_word(masked, left, squeezed)):
        return False
    if "\n" in gap:  # one value per row: each row holds nothing but its value
        return _alone_on_line(masked, left.start, left.end) and \
            _alone_on_line(masked, right.start, right.end)
    return True


def bare_lists(masked: str, scalars: Sequence[Listed]) -> list[list[int]]:
    """Maximal runs (indices into `scalars`, which are in text order) of two or more values
    separated only by commas, semicolons, `and`, `&`, or line breaks between lone values."""
    runs: list[list[int]] = []
    current: list[int] = []
    for index, item in enumerate(scalars):
        if current and _joins(masked, scalars[current[-1]], item):
            current.append(index)
            continue
        if len(current) >= 2:
            runs.append(current)
        current = [index]
    if len(current) >= 2:
        runs.append(current)
    return [run[:MAX_ELEMENTS] for run in runs]
