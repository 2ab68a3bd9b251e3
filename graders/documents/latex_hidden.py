"""Text a LaTeX document typesets but no reader sees: it is blanked, character for character.

`\\phantom{...}` (and `\\hphantom`, `\\vphantom`) takes the room of its argument and draws
nothing; `\\textcolor{white}{...}` draws its argument white on the white page, and
`\\color{white}` everything after it to the end of its group (`{\\color{white} 64}`), the next
`\\color`, or the end of the environment it stands in (unless the document paints a page or a
box in a colour, `\\pagecolor`, `\\colorbox`, ...: white on it shows). A TA reading the
compiled pages sees none of it, and a hostile student hides the expected values there behind a
visible answer, as in a comment (graders/documents/latex_source.py, which calls this after
blanking comments and passes the verbatim spans, left as written). Braces are matched with a
stack in one pass (an escaped `\\{` is no brace); an argument never closed is left as text.
Linear time.
"""

from __future__ import annotations

import re

_WHITE = frozenset({"white", "White"})
# a document that paints a page or a box in a colour may show white text on it: its white is
# not judged
_BACKGROUNDS = ("\\pagecolor", "\\colorbox", "\\fcolorbox", "\\cellcolor", "\\rowcolor",
                "\\columncolor", "\\setbeamercolor", "\\tcolorbox", "\\mdframed")
# one token: a brace, an escaped brace, or a command that hides, each after an even run of
# backslashes (`\\\\phantom` is a line break and a word); every repetition bounded: linear
_TOKEN = re.compile(
    r"(?<!\\)(?P<pairs>(?:\\\\)*)(?:(?P<brace>[{}])|\\[{}]"
    r"|\\(?:[hv]?phantom)[ \t]{0,8}(?P<phantom>\{)"
    r"|\\textcolor[ \t]{0,8}\{[ \t]{0,4}(?P<text>[A-Za-z!0-9.]{1,40})[ \t]{0,4}\}[ \t]{0,8}\{"
    r"|\\color[ \t]{0,8}\{[ \t]{0,4}(?P<color>[A-Za-z!0-9.]{1,40})[ \t]{0,4}\}"
    r"|\\end(?![A-Za-z]))")


class _Group:
    """An open group: where the hiding command it is the argument of starts (or -1), and where
    a `\\color{white}` in force in it started (or -1)."""

    __slots__ = ("hidden_from", "white_from")

    def __init__(self, hidden_from: int = -1) -> None:
        self.hidden_from = hidden_from
        self.white_from = -1


def _regions(text: str, kept: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans typeset invisible, outside the `kept` spans."""
    white = frozenset() if any(name in text for name in _BACKGROUNDS) else _WHITE
    regions: list[tuple[int, int]] = []
    stack = [_Group()]
    span = 0
    for found in _TOKEN.finditer(text):
        at = found.start() + len(found.group("pairs"))
        while span < len(kept) and kept[span][1] <= at:
            span += 1
        if span < len(kept) and kept[span][0] <= at:
            continue
        top = stack[-1]
        if found.group("brace") == "{":
            stack.append(_Group())
        elif found.group("brace") == "}":
            if len(stack) > 1:
                stack.pop()
                if top.white_from >= 0:
                    regions.append((top.white_from, at))
                if top.hidden_from >= 0:
                    regions.append((top.hidden_from, at + 1))
        elif found.group("phantom") is not None:
            stack.append(_Group(at))
        elif found.group("text") is not None:
            stack.append(_Group(at if found.group("text") in white else -1))
        elif found.group("color") in white:
            top.white_from = at if top.white_from < 0 else top.white_from
        elif top.white_from >= 0 and found.group().endswith(("}", "end")):  # colour, \\end
            regions.append((top.white_from, at))
            top.white_from = -1
    regions.extend((group.white_from, len(text)) for group in stack if group.white_from >= 0)
    return regions


def invisible_blanked(text: str, kept: list[tuple[int, int]]) -> str:
    """`text` with what it typesets invisible blanked (spaces, newlines kept); `kept`: spans
    read verbatim, in order."""
    if "phantom" not in text and "white" not in text and "White" not in text:
        return text
    regions = sorted(_regions(text, kept))
    if not regions:
        return text
    chars = list(text)
    done = 0
    for start, end in regions:
        for i in range(max(start, done), end):
            if chars[i] != "\n":
                chars[i] = " "
        done = max(done, end)
    return "".join(chars)
