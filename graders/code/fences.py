"""Markdown code fences (``` and ~~~) and the languages that mark Python."""

from __future__ import annotations

import ast
import re

_FENCE_MARKERS = ("```", "~~~")
_FENCE_LANG = re.compile(r"[\w+-]*")
# `python`, `py`, `py3`, `python3`, `ipython3`, `Python` (any case), `numpy`, none at all
_PYTHON = re.compile(r"(?:i?py(?:thon)?\d{0,2}|numpy|)", re.IGNORECASE)


def is_python(language: str) -> bool:
    return _PYTHON.fullmatch(language) is not None


def fence_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every closed ``` or ~~~ block, in one pass over the lines: each
    line's next closing line is looked up in a table built from the end, so unclosed fences
    cost nothing extra (a backtracking regex here was quadratic in the number of fences)."""
    lines = text.split("\n")
    bare = [line.strip(" \t\r") for line in lines]
    following: dict[str, list[int]] = {}
    for marker in _FENCE_MARKERS:
        table = [len(lines)] * (len(lines) + 1)
        for index in range(len(lines) - 1, -1, -1):
            table[index] = index if bare[index] == marker else table[index + 1]
        following[marker] = table
    blocks: list[tuple[str, str]] = []
    index = 0
    while index < len(lines):
        opener = lines[index].lstrip(" \t")
        marker = opener[:3]
        if marker in _FENCE_MARKERS:
            close = following[marker][index + 1]
            if close < len(lines):
                info = opener[3:].lstrip(" \t")
                language = _FENCE_LANG.match(info[:40])
                blocks.append((language.group(0) if language else "",
                               "\n".join(lines[index + 1:close])))
                index = close + 1
                continue
        index += 1
    return blocks


def _parses(body: str) -> bool:
    # notebook magics (`%timeit`, `!pip`) are skipped before running, so not judged here
    code = "\n".join(line for line in body.splitlines()
                     if not line.lstrip().startswith(("%", "!")))
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def runnable_cells(text: str) -> tuple[str, int]:
    """The Python code cells of a rendered notebook's text, as fences, without those that do
    not parse, and how many were left out: Jupyter compiles each cell alone, so a cell with a
    SyntaxError fails by itself and the cells after it still run."""
    kept: list[str] = []
    skipped = 0
    for language, body in fence_blocks(text):
        if not is_python(language):
            continue
        if _parses(body):
            kept.append(f"```python\n{body}\n```")
        else:
            skipped += 1
    return "\n\n".join(kept), skipped
