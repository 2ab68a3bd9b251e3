"""A formula's evaluation in numbers: "(a) N = V d (b) N = 32000 x 4096 = 131,072,000".

A question that asks for a formula and then its value for given sizes is answered with the
target assigned twice, the formula first and the number after it. The number is the next
sub-part's answer, not the formula: where the expected expression has symbols and the answer
assigns the target a formula too, its assignments that are numbers alone are passed over.

A number here: digits with `.`, `,`, spaces and thin spaces, the operators `* / + - − ^ ( )`,
`x`, `×`, `·`, `\\cdot`, `\\times` between numbers, `\\frac` of numbers, powers typed as
superscripts (`2048²`), `≈` or `\\approx` before the value rounded, an exponent's `e`, and
OCR's `O` and `l` for 0 and 1 beside digits (`32 OOO`, `l31,O72`). Any other letter is a
symbol. Linear scans of a bounded expression.
"""

from __future__ import annotations

import re

from graders.symbolic.expressions import Assignment

MAX_EXPRESSION = 400

# a fraction of numbers (`\\frac{1 - 0.8^{5}}{0.2}`) is a number too
_LATEX = re.compile(r"\\(?:cdot|times|approx|left|right|[dt]?frac|[,;:! ])|[{}$]")
# `2048²`: a power typed as a superscript; `≈ 2.15e9`: the value rounded, as a chain ends; the
# minus sign (U+2212) as typeset text has it
_ALLOWED = re.compile(r"[0-9\s.,×·*/^()+\-−=≈⁰¹²³⁴⁵⁶⁷⁸⁹⁻]*")
_OCR_WORD = re.compile(r"\b[Ol]+\b|(?<=[0-9,])[Ol]+|[Ol]+(?=[0-9,])")
_WORD = re.compile(r"[A-Za-z]+")


def _beside(text: str, start: int, end: int) -> tuple[str, str]:
    return text[:start].rstrip()[-1:], text[end:].lstrip()[:1]


def _ocr_digits(text: str) -> str:
    """OCR's `O` and `l` for 0 and 1 in a word of those letters beside a digit or a comma."""
    def digits(match: re.Match[str]) -> str:
        word = match.group()
        before, after = _beside(text, match.start(), match.end())
        near = before.isdigit() or after.isdigit() or "," in (before, after)
        return word.replace("O", "0").replace("l", "1") if near else word
    return _OCR_WORD.sub(digits, text)


def is_number(expression: str) -> bool:
    """Whether the expression is a number written out (no symbol in it)."""
    text = _ocr_digits(_LATEX.sub(" ", expression[:MAX_EXPRESSION]))
    if not any(c.isdigit() for c in text):
        return False
    pieces, last = [], 0
    for match in _WORD.finditer(text):
        before, after = _beside(text, match.start(), match.end())
        if match.group() not in ("x", "e", "E") or not before.isdigit() or not (
                after.isdigit() or (after != "" and after in "+-")):
            return False
        pieces.append(text[last:match.start()])
        last = match.end()
    pieces.append(text[last:])
    return all(_ALLOWED.fullmatch(piece) for piece in pieces)


def has_symbol(expression: str) -> bool:
    """Whether the expected expression names a symbol (a letter outside a number)."""
    return bool(expression.strip()) and not is_number(expression) and bool(
        _WORD.search(expression[:MAX_EXPRESSION]))


def drop_evaluations(found: list[Assignment], expected: str) -> list[Assignment]:
    """The assignments to grade: all, unless the expected expression has symbols and some
    assignment is a formula, when those that are numbers alone are passed over."""
    numbers = [is_number(a.expression) for a in found]
    if not has_symbol(expected) or all(numbers) or not any(numbers):
        return found
    return [a for a, number in zip(found, numbers, strict=True) if not number]


# `V x d`: an x standing alone between two operands, where the expected expression has no
# symbol x, is the times sign (handwriting and OCR write it so); `W x + b` keeps its x
_TIMES_X = re.compile(r"(?<=[A-Za-z0-9})\]])[ \t]+[xX][ \t]+(?=[A-Za-z0-9\\({])")
_SYMBOL_X = re.compile(r"(?<![A-Za-z\\])x(?![A-Za-z])")


def times_x(student: str, expected: str) -> str:
    """The student's expression with a lone `x` between operands read as times, unless the
    expected expression names a symbol x."""
    if _SYMBOL_X.search(expected):
        return student
    return _TIMES_X.sub(r" \\cdot ", student[:MAX_EXPRESSION * 10])
