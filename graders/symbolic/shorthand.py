"""The shorthand of typed and transcribed mathematics, braced for the LaTeX parser.

- LaTeX's own shorthand: a one-token argument needs no braces (`\\frac12`, `\\frac1{\\sqrt{d}}`,
  `\\sqrt2`, `\\frac\\alpha2`), and the parser refuses it;
- a root sign before its operand, as handwriting and OCR give it: `√d_k`, `√(d_k)`, `1/√2`;
  a subscripted name is one operand (`√d_k` is written under one root sign);
- a parenthesised exponent of plain text: `d_k^(-1/2)`, `n^(2)`.

String work over an expression of bounded length (the caller's MAX_EXPRESSION), one pass each;
nothing is evaluated.
"""

from __future__ import annotations

import re

MAX_CHARS = 2000  # longer text is left as it is (the caller refuses it anyway)
_COMMANDS = {"frac": 2, "dfrac": 2, "tfrac": 2, "sqrt": 1}
_COMMAND = re.compile(r"\\(d?frac|tfrac|sqrt)(?![A-Za-z])")
_NAME = re.compile(r"\\?[A-Za-z]+")
_SUBSCRIPT = re.compile(r"_(?:\{[^{}]{0,40}\}|[A-Za-z0-9]{1,12})")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_POWER = re.compile(r"\^\s*\(")


def _group_end(text: str, start: int, opening: str, closing: str) -> int | None:
    """The index after the bracket that closes the one at `start`, or None."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _operand(text: str, i: int, root: bool) -> tuple[str, int] | None:
    """One argument at `i` (spaces skipped): a braced group (its inside), a command, a digit or
    a letter; under a root, a whole number or a name with its subscript."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text):
        return None
    if text[i] == "{":
        end = _group_end(text, i, "{", "}")
        return (text[i + 1:end - 1], end) if end is not None else None
    if root and text[i] == "(":
        end = _group_end(text, i, "(", ")")
        return (text[i + 1:end - 1], end) if end is not None else None
    if text[i] == "\\":
        name = _NAME.match(text, i)
        return (name.group(), name.end()) if name is not None and name.end() > i + 1 else None
    if root:
        token = _NUMBER.match(text, i) or _NAME.match(text, i)
        if token is None:
            return None
        end = token.end()
        sub = _SUBSCRIPT.match(text, end) if not text[i].isdigit() else None
        return text[i:sub.end() if sub else end], sub.end() if sub else end
    return (text[i], i + 1) if text[i].isalnum() else None


def _braced_commands(text: str) -> str:
    out: list[str] = []
    cursor = 0
    for m in _COMMAND.finditer(text):
        if m.start() < cursor:
            continue
        arguments: list[str] = []
        at = m.end()
        for _ in range(_COMMANDS[m.group(1)]):
            found = _operand(text, at, root=m.group(1) == "sqrt")
            if found is None:
                break
            arguments.append(found[0])
            at = found[1]
        if len(arguments) != _COMMANDS[m.group(1)]:
            continue
        out.append(text[cursor:m.start()])
        out.append("\\" + m.group(1) + "".join("{" + _braced_commands(a) + "}" for a in arguments))
        cursor = at
    out.append(text[cursor:])
    return "".join(out)


def _braced_roots(text: str) -> str:
    out: list[str] = []
    cursor = 0
    for i, ch in enumerate(text):
        if ch != "√" or i < cursor:
            continue
        found = _operand(text, i + 1, root=True)
        if found is None:
            continue
        out.append(text[cursor:i] + "\\sqrt{" + _braced_roots(found[0]) + "}")
        cursor = found[1]
    out.append(text[cursor:])
    return "".join(out)


def _braced_powers(text: str) -> str:
    out: list[str] = []
    cursor = 0
    for m in _POWER.finditer(text):
        if m.start() < cursor:
            continue
        end = _group_end(text, m.end() - 1, "(", ")")
        if end is None:
            continue
        out.append(text[cursor:m.start()] + "^{" + _braced_powers(text[m.end():end - 1]) + "}")
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def braced(text: str) -> str:
    """`\\frac1{\\sqrt{d_k}}` -> `\\frac{1}{\\sqrt{d_k}}`, `1/√d_k` -> `1/\\sqrt{d_k}`,
    `d_k^(-1/2)` -> `d_k^{-1/2}`; anything else unchanged."""
    if len(text) > MAX_CHARS:
        return text
    return _braced_powers(_braced_commands(_braced_roots(text)))
