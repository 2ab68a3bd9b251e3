"""What the reader of values sees of an answer: the text, same length, with struck-through text,
`$`, Markdown bullets, emphasis and bold, circled numbers and the labels opening lines blanked,
Python's digit groups as thousands separators and OCR's letters in numbers as digits. Positions
are kept, so values are quoted from the text as written."""

from __future__ import annotations

import re

from graders.numeric.latex import read_ocr_digits


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


_STRUCK = re.compile(r"~~[^~]{0,2000}~~|<(s|del|strike)>[^<]{0,2000}</\1>", re.I)
_CIRCLED = re.compile(r"\\textcircled\{[^{}]{0,4}\}")
# a label opening a line, its sub-part letter written against the number included (`3b)`,
# `Q3.a:`, `Q5b`): the number of a question is not a value
_LINE_LABEL = re.compile(
    r"(?m)^[ \t>*\-]*(?:Q\d{1,2}(?:\.?[a-h])?[.):]?|\d{1,2}\.?[a-h][.):]|\d{1,2}[.)](?!\d)"
    r"|\(?[a-h]\)|\(?(?:i|ii|iii|iv|v|vi)\))\**[ \t]"
)
# Markdown bold (`**(c)** 0.002`, `q = **31**`) is no power: it opens after no name, number or
# bracket and before text, and closes after text and before no name, number or bracket;
# Python's `2**10`, `x ** 2` and `(b-1)**2` stay
_BOLD = re.compile(r"(?<![\w)\]}*])\*\*(?=[^\s*])|(?<=[^\s*])\*\*(?![\w(\[{*])")


# a Markdown bullet (`- 0.245`) is not a minus sign; `-0.245` still is
_BULLET = re.compile(r"(?m)^[ \t>]*[-*+•][ \t]+")
# Markdown emphasis written with underscores against a number (`__589,824__`, `_0.25_`,
# `= __64__.`) is no subscript: an underscore that follows no name, brace or backslash and comes
# before a digit, or follows a digit (or `%`) and comes before no name. A subscript follows a
# name (`d_k`, `W_{Q}`); a Python literal's `10_000` is left to the number reader.
_EMPHASIS = re.compile(r"(?<![\w\\}\])])_{1,2}(?=[-+]?\.?\d)|(?<=[\d%])_{1,2}(?!\w)")
# Python's digit groups (`1_769_472`, PEP 515) read as thousands separators
_PY_GROUPS = re.compile(r"(?<![\w.])\d{1,3}(?:_\d{3})+(?![\w.])")


def _grouped(m: re.Match[str]) -> str:
    return m.group(0).replace("_", ",")


def mask(text: str) -> str:
    """Same length as `text`; struck-through text, `$` and label prefixes become spaces, OCR's
    letters in numbers digits."""
    masked = _STRUCK.sub(_blank, text)
    masked = masked.replace("$", " ")
    masked = _CIRCLED.sub(_blank, masked)
    masked = _BULLET.sub(_blank, masked)
    masked = _EMPHASIS.sub(_blank, masked)
    masked = _PY_GROUPS.sub(_grouped, masked)
    masked = _BOLD.sub(_blank, masked)
    masked = read_ocr_digits(masked)  # `2O.8 GB`: the digits found where written, unit and all
    return _LINE_LABEL.sub(_blank, masked)
