"""A LaTeX document as its compiled pages read: what TeX never typesets is blanked.

A `%` comment (to the end of its line), an `\\iffalse ... \\fi` block (and the branch of any
conditional that what is written decides against: `\\if01`, `\\ifnum 0=1`, a `\\newif` switch
never set true, the `\\else` of `\\iftrue`), a `comment` environment and all that follows
`\\end{document}` are source only: a TA reading the compiled document never sees them, and students
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
from array import array
from bisect import bisect_left

from graders.documents.latex_hidden import invisible_blanked

# Environments whose body TeX reads verbatim (a `%` in them is text), and the one it skips.
_VERBATIM = ("verbatim", "verbatim*", "lstlisting", "minted", "Verbatim", "BVerbatim",
             "LVerbatim", "alltt", "python", "pycode")
_SKIPPED = "comment"
# a conditional TeX decides from what is written: `\\iffalse`, `\\iftrue`, `\\ifnum` of two
# numbers, `\\if` of two characters, or a switch of `\\newif` (the rest is typeset, both ways)
_CONDITION = (r"(?P<const>false|true)(?![A-Za-z])|num[ \t]{0,8}(?P<a>[-+]?[0-9]{1,9})[ \t]{0,8}"
              r"(?P<rel>[<=>])[ \t]{0,8}(?P<b>[-+]?[0-9]{1,9})(?![0-9])"
              r"|(?![A-Za-z])[ \t]{0,8}(?P<c>[^\\\s{}%])[ \t]{0,8}(?P<d>[^\\\s{}%])"
              r"|(?P<flag>[A-Za-z]{1,40})")
MAX_VERB = 1000  # characters an inline `\\verb` span may have (longer: not one)
MAX_URL = 2000  # characters a `\\url` argument may have (longer: not one)
# The next construct that starts or ends a region: a `%` after its run of backslashes (the
# look-behind starts the run only at its first, so a long run is read once), `\\verb`, an
# environment, `\\iffalse`. Linear.
_TOKEN = re.compile(r"(?<!\\)\\*%|\\verb\*?(?=[^A-Za-z*\s])|\\begin\{([A-Za-z*]{1,20})\}"
                    r"|(?<!newif)(?<!newif )\\if(?P<cond>" + _CONDITION + ")"
                    r"|\\(?:url|nolinkurl|href)[ \t]{0,8}\{"
                    r"|\\end[ \t]{0,8}\{document\}")
_END = "\\end"
_IF = re.compile(r"\\if[A-Za-z]*|\\fi(?![A-Za-z])|\\else(?![A-Za-z])")
_FLAG = re.compile(r"\\newif[ \t]{0,8}\\if([A-Za-z]{1,40})")
MAX_FLAGS = 50  # `\\newif` switches judged in one document


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


class _Conditionals:
    """Every conditional's `\\else` (or -1) and end (after its matching `\\fi`, or the end of
    the text), by where it opens: matched with a stack in one pass, made when first asked."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: array[int] | None = None

    def branches(self, start: int) -> tuple[int, int]:
        if self.starts is None:
            self._match()
        assert self.starts is not None
        at = bisect_left(self.starts, start)
        if at == len(self.starts) or self.starts[at] != start:
            return -1, len(self.text)
        return self.elses[at], self.ends[at]

    def _match(self) -> None:
        self.starts, self.elses, self.ends = array("q"), array("q"), array("q")
        stack: list[int] = []  # the open conditionals, by their place in the arrays
        for found in _IF.finditer(self.text):
            word = found.group()
            if word == "\\else":
                if stack and self.elses[stack[-1]] < 0:
                    self.elses[stack[-1]] = found.start()
            elif word == "\\fi":
                if stack:
                    self.ends[stack.pop()] = found.end()
            else:
                stack.append(len(self.starts))
                self.starts.append(found.start())
                self.elses.append(-1)
                self.ends.append(len(self.text))


def _decided(found: re.Match[str], flags: frozenset[str]) -> bool | None:
    """Whether a conditional holds, when what is written decides it."""
    if found.group("const"):
        return found.group("const") == "true"
    if found.group("rel"):
        a, b, rel = int(found.group("a")), int(found.group("b")), found.group("rel")
        return a < b if rel == "<" else a > b if rel == ">" else a == b
    if found.group("c"):
        return found.group("c") == found.group("d")
    return False if found.group("flag") in flags else None


def _false_flags(text: str) -> frozenset[str]:
    """The `\\newif` switches the document never sets true."""
    flags = set()
    for count, found in enumerate(_FLAG.finditer(text)):
        if count >= MAX_FLAGS:
            break
        if f"\\{found.group(1)}true" not in text:
            flags.add(found.group(1))
    return frozenset(flags)


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
    flags = _false_flags(text) if "\\newif" in text else frozenset()
    conditionals = _Conditionals(text)
    blanked = (-1, -1)  # the last branch blanked for a `\\else` (nested ones are in it)
    at = 0
    while True:
        found = _TOKEN.search(text, at)
        if found is None:
            break
        token, name = found.group(), found.group(1)
        start = found.end() - 1 if token.endswith("%") else found.start()
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
        elif found.group("cond") is not None:
            holds = _decided(found, flags)
            if holds is None:  # typeset either way: read
                at = end
                continue
            otherwise, end = conditionals.branches(found.start())
            if holds:  # what `\\else` leads to is not typeset; the rest is read on
                if otherwise >= 0:
                    chars = list(text) if chars is None else chars
                    if blanked[0] <= otherwise <= blanked[1]:  # in one blanked: its rest
                        _blank(chars, blanked[1], end)
                        blanked = (blanked[0], max(blanked[1], end))
                    else:
                        _blank(chars, otherwise, end)
                        blanked = (otherwise, end)
                at = found.end()
                continue
            if otherwise >= 0:  # nor what leads to `\\else`
                end = otherwise + len("\\else")
        elif token.startswith(_END):  # `\\end{document}`: TeX reads nothing after it
            start = end
            end = len(text)
        else:  # another environment: typeset
            at = end
            continue
        chars = list(text) if chars is None else chars
        _blank(chars, start, end)
        at = max(end, found.end())
    return text if chars is None else "".join(chars)
