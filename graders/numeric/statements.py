"""An answer cut into statements (lines, `\\\\`, `;`, sentences) and a statement into the sides
of its relations (`=`, `≈`, `~`, `\\approx`, `→`, `is`), never inside braces, brackets or
matrices, so `[0.665, 0.245, 0.090]` and `\\frac{768}{12}` stay whole."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    start: int
    end: int


_ENV = re.compile(r"\\(begin|end)\{[a-zA-Z*]+\}")
# a sentence ends at a full stop after a word or a value (`sum = 11.107. softmax = ...`), not
# inside `e.g.`/`i.e.` and not at a decimal point
_SPLIT = re.compile(
    r"\n|\\\\|\\q?quad\b|;|(?<=[a-z])\.\s+(?=[A-Z])|(?P<after_value>\.+\s+(?=[A-Za-z\\]))"
)


def _after_value(masked: str, i: int) -> bool:
    """The full stop at `i` follows a value (`11.107.`, `[...].`, `$64$.`), not an abbreviation."""
    before = masked[max(0, i - 4):i].rstrip()
    return bool(before) and (before[-1].isdigit() or before[-1] in ")]}%")


def split_statements(masked: str) -> list[Span]:
    """Statements end at line breaks, `\\\\`, `\\quad`, `;` and sentence ends, but not inside
    braces or matrices."""
    cuts: list[int] = []
    depth = 0
    env = 0
    i = 0
    n = len(masked)
    while i < n:
        ch = masked[i]
        if ch == "\\" and i + 1 < n:
            m = _ENV.match(masked, i)
            if m:
                env += 1 if m.group(1) == "begin" else -1
                env = max(env, 0)
                i = m.end()
                continue
            if masked[i + 1] in "{},;:! ":  # an escaped brace or a LaTeX space (`1\\;769`)
                i += 2
                continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if depth == 0 and env == 0 and ch in "\n\\;.":
            m = _SPLIT.match(masked, i)
            if m and m.group("after_value") and not _after_value(masked, i):
                m = None
            if m and m.end() > i:
                cuts.append(i)
                cuts.append(m.end())
                i = m.end()
                continue
            if ch == ".":
                # No later full stop of this run ends a statement where its first did not
                # (each follows a full stop, neither a word nor a value); matching at each
                # one read the rest of the run again: quadratic in a run of dots.
                while i + 1 < n and masked[i + 1] == ".":
                    i += 1
        i += 1
    bounds = [0, *cuts, n]
    statements = []
    for k in range(0, len(bounds) - 1, 2):
        s, e = bounds[k], bounds[k + 1]
        if masked[s:e].strip():
            statements.append(Span(s, e))
    return statements


RELATION = re.compile(
    r"=|≈|≃|→|⇒|⟹|(?<!\d)~|~(?=\s)|\\approx\b|\\simeq\b|\\sim\b|\\rightarrow\b|\\Rightarrow\b|"
    r"\\to\b|\\implies\b|\\longrightarrow\b|\\Longrightarrow\b|\\equiv\b|:(?=\s)|"
    r"\s(?:is|equals|gives|are)\s"
)


def split_sides(masked: str, start: int, end: int) -> list[tuple[int, int]]:
    sides: list[tuple[int, int]] = []
    depth = 0
    cursor = start
    i = start
    while i < end:
        ch = masked[i]
        if ch == "\\" and i + 1 < end and masked[i + 1] in "{}":
            i += 2
            continue
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = RELATION.match(masked, i)
            if m and m.end() > i:
                sides.append((cursor, i))
                cursor = i = m.end()
                continue
        i += 1
    sides.append((cursor, end))
    return [(s, e) for s, e in sides if masked[s:e].strip()]
