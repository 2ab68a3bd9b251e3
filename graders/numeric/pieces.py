"""A run of the converted text as values: the run as one value (`768/12`), or a value with a
bracketed working note (`590592 (768*768 + bias)`), or a row of values (`0.665 0.245 0.090`);
never the coefficient of a formula (`2.1 GFLOPs (4·T²·d)`)."""

from __future__ import annotations

import re

from graders.numeric.arith import EvalError, Evaluated, evaluate
from graders.numeric.spans import balanced

# A minus written against the number (`-0.416`, `−0.416`, `-(1/4)`) is its sign; a spaced dash
# (`answer - 0.416`) and an operator left at a piece's edge (`* 5`) are not.
_SIGN = re.compile(r"-(?=[\d.(])")


def _clean_piece(raw: str) -> str:
    # a full stop ending the sentence before the value (`the end. 64`, `i.e. 64`), not a
    # decimal point (`.5`)
    stripped = _STOP_BEFORE.sub("", raw.strip())
    stripped = _STOP_AFTER_MARKUP.sub("", stripped)  # `**3,152,384**.`: bold, then the stop
    sign = "-" if _SIGN.match(stripped.lstrip("*/^ ")) else ""  # `**-0.4**`: bold, signed
    piece = sign + balanced(stripped.strip("*/^+- \t\n"))
    # the full stop ending a sentence, after the value or its scale word (`1.77 million.`)
    return _FULL_STOP.sub("", piece)


_STOP_BEFORE = re.compile(r"^\.+\s+")
_STOP_AFTER_MARKUP = re.compile(r"(?<=\*)\s*\.+$")
# `4·T²·d`, `(2 × d_model`: an operator between the number and a name (a name reads as a
# separator, so the run ends in the operator): the number is a coefficient, not a value
_COEFFICIENT = re.compile(r"(?<!\*)[*/]\s*$")


# a name raised to a power right after the number: `4T^2d`, `4 n^2 d`, `2d_{model}^2`
BEFORE_A_POWER = re.compile(r"[ \t]?[A-Za-z](?:_\{?\w{1,8}\}?)?[ \t]?\^")


def _is_coefficient(run: str) -> bool:
    """`4 * ` before a name; not `*1,000*`, a value in italics."""
    return _COEFFICIENT.search(run) is not None and not run.strip().startswith("*")
_FULL_STOP = re.compile(r"(?:(?<=[\d%)])|(?<=illion)|(?<=housand))\s*\.+$")


_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)%?"
_ROW = re.compile(rf"(?:{_NUM}[ \t]+){{1,63}}{_NUM}")
# A value followed by a bracketed working note: `590592 (768*768 + bias)`.
_REMARK = re.compile(
    r"^(?P<head>[^()\[\]]*?(?:[\d%.]|illion|housand))\s+[(\[](?P<inner>[^()\[\]]*)[)\]]?\s*$")


# `64 (768 / 12)`: a plain value, a space, then its working in brackets; `3(589824)` and
# `3 × (768)` stay products
_NOTE_AFTER_VALUE = re.compile(r"^[-+]?(?:\d+(?:\.\d+)?|\.\d+)%?\s+[(\[]")


def evaluated_pieces(run: str) -> list[tuple[str, Evaluated]]:
    """The run as one value; failing that, a value with a bracketed note that does not
    evaluate (`590592 (768*768 + bias)`) gives the value and, if it evaluates, the note."""
    whole = _clean_piece(run)
    if not re.search(r"\d", whole):
        return []
    remark = _REMARK.match(run.strip())
    if remark is not None and _NOTE_AFTER_VALUE.match(run.strip()):
        return _remark_pieces(remark)
    if _is_coefficient(run):  # `2.1 GFLOPs (4·T²·d)`: the value, never the coefficient
        return _remark_pieces(remark) if remark is not None else []
    try:
        return [(whole, evaluate(whole.rstrip("% ")))]
    except (ZeroDivisionError, OverflowError):
        return []
    except EvalError:
        if _ROW.fullmatch(whole):  # `0.665 0.245 0.090`: a row of values, each its own
            return [(token, evaluate(token.rstrip("%"))) for token in whole.split()]
        if remark is None:
            return []
        return _remark_pieces(remark)


def _remark_pieces(remark: re.Match[str]) -> list[tuple[str, Evaluated]]:
    found: list[tuple[str, Evaluated]] = []
    for part in (remark.group("head"), remark.group("inner")):
        if _is_coefficient(part):
            continue
        piece = _clean_piece(part)
        if not re.search(r"\d", piece):
            continue
        try:
            found.append((piece, evaluate(piece.rstrip("% "))))
        except (EvalError, ZeroDivisionError, OverflowError):
            continue
    return found
