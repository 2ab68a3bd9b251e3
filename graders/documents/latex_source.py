"""A LaTeX document as its compiled pages read: what TeX never typesets is blanked.

A `%` comment (to the end of its line), an `\\iffalse ... \\fi` block and a `comment`
environment are source only: a TA reading the compiled document never sees them, and students
leave earlier attempts in them (`% d_head = 32`) as often as a hostile one hides the expected
value there behind a visible answer. Each character of them becomes a space (newlines kept), so
the text keeps its length and every later offset: evidence spans still point into the uploaded
source. An escaped `\\%` is a percent sign; verbatim environments (`verbatim`, `lstlisting`,
`minted`, ...) and `\\verb|...|` hold code, where `%` is an operator, and are kept as written.
The argument of `\\url{...}` and the URL of `\\href{...}{...}` are verbatim too (`%20` in a URL
is no comment).

Text TeX typesets but nobody sees is blanked the same way: the argument of `\\phantom`,
`\\hphantom` and `\\vphantom` (space of the text's size, drawn empty), of
`\\textcolor{white}{...}`, and what follows `\\color{white}` to the end of its group (or the
next colour, or an environment's end). Two passes over the text: linear time on any input.
"""

from __future__ import annotations

import re

from graders.documents.latex_hidden import invisible_blanked

# Environments whose body TeX reads verbatim (a `%` in them is text), and the one it skips.
_VERBATIM = ("verbatim", "verbatim*", "lstlisting", "minted", "Verbatim", "BVerbatim",
             "LVerbatim", "alltt", "python", "pycode")
_SKIPPED = "comment"
MAX_VERB = 1000  # characters an inline `\\verb` span may have (longer: not one)
MAX_URL = 2000  # characters a `\\url` argument may have (longer: not one)
# The next construct that starts or ends a region: a `%` after its run of backslashes (the
# look-behind starts the run only at its first, so a long run is read once), `\\verb`, an
# environment, `\\iffalse`. Linear.
_TOKEN = re.compile(r"(?<!\\)\\*%|\\verb\*?(?=[^A-Za-z*\s])|\\begin\{([A-Za-z*]{1,20})\}"
                    r"|\\iffalse(?![A-Za-z])|\\(?:url|nolinkurl|href)[ \t]{0,8}\{")
_IF = re.compile(r"\\if[A-Za-z]*|\\fi(?![A-Za-z])")


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


def _if_end(text: str, start: int) -> int:
    """Where the `\\iffalse` block opened before `start` ends (after its matching `\\fi`), or
    the end of the text; nested conditionals are counted."""
    depth = 1
    for found in _IF.finditer(text, start):
        depth += -1 if found.group() == "\\fi" else 1
        if depth == 0:
            return found.end()
    return len(text)


def typeset_text(text: str) -> str:
    """`text` with every comment, `\\iffalse` block and comment environment blanked, and what
    is typeset invisible (graders/documents/latex_hidden.py)."""
    kept: list[tuple[int, int]] = []
    text = _uncommented(text, kept)
    return invisible_blanked(text, kept)


def _next(text: str, char: str, start: int, nexts: dict[str, int]) -> int:
    """Where `char` next stands at or after `start` (the text's length if nowhere), remembered:
    asked at starts that only grow, the text is scanned once for each."""
    if nexts.get(char, -1) < start:
        found = text.find(char, start)
        nexts[char] = len(text) if found < 0 else found
    return nexts[char]


def _uncommented(text: str, kept: list[tuple[int, int]]) -> str:
    """`text` with every comment, `\\iffalse` block and comment environment blanked; the spans
    read verbatim are added to `kept`."""
    chars: list[str] | None = None
    nexts: dict[str, int] = {}
    at = 0
    while True:
        found = _TOKEN.search(text, at)
        if found is None:
            break
        token, name = found.group(), found.group(1)
        end = found.end()
        if token.endswith("%"):
            if len(token) % 2 == 0:  # `\\%` (an odd run of backslashes): a percent sign
                at = end
                continue
            end = text.find("\n", end)
            end = len(text) if end < 0 else end
        elif token.startswith("\\verb"):
            # its span ends at the delimiter's next use on the line, looked for only so far
            line = text.find("\n", end, end + MAX_VERB)
            close = text.find(text[end], end + 1, end + MAX_VERB if line < 0 else line)
            at = end + 1 if close < 0 else close + 1
            kept.append((found.start(), at))
            continue
        elif token.endswith("{"):  # a URL: verbatim to its closing brace, on its line
            close, line = _next(text, "}", end, nexts), _next(text, "\n", end, nexts)
            at = end if close - end > MAX_URL or line < close or close == len(text) else close + 1
            kept.append((found.start(), at))
            continue
        elif name in _VERBATIM:
            close = text.find(f"\\end{{{name}}}", end)
            at = len(text) if close < 0 else close
            kept.append((found.start(), at))
            continue
        elif name == _SKIPPED:
            close = text.find("\\end{comment}", end)
            end = len(text) if close < 0 else close + len("\\end{comment}")
        elif token == "\\iffalse":
            end = _if_end(text, end)
        else:  # another environment: typeset
            at = end
            continue
        chars = list(text) if chars is None else chars
        _blank(chars, found.end() - 1 if token.endswith("%") else found.start(), end)
        at = max(end, found.end())
    return text if chars is None else "".join(chars)
