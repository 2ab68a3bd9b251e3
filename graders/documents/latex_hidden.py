"""Text a LaTeX document typesets but no reader sees: it is blanked, character for character.

`\\phantom{...}` (and `\\hphantom`, `\\vphantom`) takes the room of its argument and draws
nothing; `\\textcolor{white}{...}` draws its argument white on the white page (white named,
given in a model, `[rgb]{1,1,1}`, `[HTML]{FFFFFF}`, mixed, `white!40`, or defined,
`\\definecolor{bg}{rgb}{1,1,1}`), and `\\color{white}` everything after it to the end of its
group (`{\\color{white} 64}`), the next `\\color`, or the end of the environment it stands in
(unless the document paints a page or a box in a colour, `\\pagecolor`, `\\colorbox`, ...: white
on it shows); `\\scalebox{0}` and `\\resizebox{0pt}{...}` shrink theirs to nothing; a macro whose
body never uses its first argument (`\\newcommand{\\hide}[1]{}`, `\\def\\hide#1{}`) drops it. A
TA reading the compiled pages sees none of it, and a hostile student hides the expected values
there behind a visible answer, as in a comment (graders/documents/latex_source.py, which calls
this after blanking comments and passes the verbatim spans, left as written). Braces are
matched with a stack in one pass (an escaped `\\{` is no brace); an argument never closed is
left as text. Linear time.
"""

from __future__ import annotations

import re

_WHITE = frozenset({"white", "White"})
# a document that paints a page or a box in a colour may show white text on it: its white is
# not judged
_BACKGROUNDS = ("\\pagecolor", "\\colorbox", "\\fcolorbox", "\\cellcolor", "\\rowcolor",
                "\\columncolor", "\\setbeamercolor", "\\tcolorbox", "\\mdframed")
_SPEC = (r"(?:\[[ \t]{0,4}(?P<%s>[A-Za-z]{1,8})[ \t]{0,4}\])?[ \t]{0,8}\{[ \t]{0,4}"
         r"(?P<%s>[A-Za-z!0-9., ]{1,40})[ \t]{0,4}\}")
_ZERO = r"[-+]?(?:0+\.?0*|\.0+)[ \t]{0,4}(?:[a-z]{2}|\\[A-Za-z]{1,20})?"
# one token: a brace, an escaped brace, or a command that hides, each after an even run of
# backslashes (`\\\\phantom` is a line break and a word); every repetition bounded: linear
_TOKEN = (
    r"(?<!\\)(?P<pairs>(?:\\\\)*)(?:(?P<brace>[{}])|\\[{}]"
    r"|\\(?:[hv]?phantom)[ \t]{0,8}(?P<phantom>\{)"
    r"|\\scalebox[ \t]{0,8}\{[ \t]{0,4}" + _ZERO + r"[ \t]{0,4}\}(?:\[[^\]\n]{0,40}\])?"
    r"[ \t]{0,8}(?P<scaled>\{)"
    r"|\\resizebox\*?[ \t]{0,8}(?:\{[ \t]{0,4}" + _ZERO + r"[ \t]{0,4}\}[ \t]{0,8}\{[^{}\n]{0,40}"
    r"\}|\{[^{}\n]{0,40}\}[ \t]{0,8}\{[ \t]{0,4}" + _ZERO + r"[ \t]{0,4}\})[ \t]{0,8}(?P<sized>\{)"
    r"|\\textcolor[ \t]{0,8}" + _SPEC % ("tmodel", "text") + r"[ \t]{0,8}\{"
    r"|\\color[ \t]{0,8}" + _SPEC % ("cmodel", "color") +
    r"|\\end(?![A-Za-z])%s)")
_PLAIN_TOKEN = re.compile(_TOKEN % "")
# a colour named white by a definition (`\definecolor{bg}{rgb}{1,1,1}`, `\colorlet{bg}{white}`)
_DEFINED = re.compile(r"\\(?:definecolor[ \t]{0,8}\{[ \t]{0,4}(?P<name>[A-Za-z0-9]{1,40})"
                      r"[ \t]{0,4}\}"
                      r"[ \t]{0,8}\{[ \t]{0,4}(?P<model>[A-Za-z]{1,8})[ \t]{0,4}\}[ \t]{0,8}\{"
                      r"(?P<spec>[0-9A-Fa-f., ]{1,40})\}|colorlet[ \t]{0,8}\{[ \t]{0,4}"
                      r"(?P<alias>[A-Za-z0-9]{1,40})[ \t]{0,4}\}[ \t]{0,8}\{[ \t]{0,4}"
                      r"(?P<of>[A-Za-z!0-9.]{1,40})[ \t]{0,4}\})")
# a macro of arguments whose body never uses the first: what it is called with is never shown
# (`\newcommand{\hide}[1]{}`, `\def\hide#1{}`); its body is read to its closing brace
_DISCARDS = re.compile(r"\\(?:(?:re)?newcommand|providecommand)\*?[ \t]{0,8}(?:\{[ \t]{0,4}"
                       r"\\(?P<named>[A-Za-z]{1,40})[ \t]{0,4}\}|\\(?P<bare>[A-Za-z]{1,40}))"
                       r"[ \t]{0,8}\[[ \t]{0,4}[1-9][ \t]{0,4}\][ \t]{0,8}\{"
                       r"|\\[gex]?def[ \t]{0,8}\\(?P<def>[A-Za-z]{1,40})[ \t]{0,8}#1"
                       r"[^{}\n]{0,40}\{")
MAX_BODY = 2000  # characters of a macro's body read for its use of its argument
MAX_MACROS = 20  # discarding macros judged in one document
MAX_DEFINITIONS = 200  # macro definitions read in one document (a long one has a few dozen)
_MODELS = {"rgb": ("1", 3), "RGB": ("255", 3), "gray": ("1", 1), "cmyk": ("0", 4),
           "cmy": ("0", 3)}


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _model_white(model: str, spec: str) -> bool:
    """Whether the colour `spec` of xcolor's `model` is white."""
    spec = "".join(spec.split())
    if model == "HTML":
        return spec.upper() == "FFFFFF"
    value, count = _MODELS.get(model, ("", 0))
    parts = [_number(part) for part in spec.split(",")]
    return len(parts) == count and all(part == float(value) for part in parts)


def _named_white(spec: str, names: frozenset[str]) -> bool:
    """Whether an xcolor expression (`white`, `white!40`, `black!0`, `white!100!black`) is
    white: `c!p!d` is p% of c and the rest of d (white when d is left out)."""
    parts = "".join(spec.split()).split("!")
    white = parts[0] in names
    for at in range(1, len(parts), 2):
        share = _number(parts[at])
        if share is None:
            return False
        other = parts[at + 1] in names if at + 1 < len(parts) else True
        white = (white or share == 0) and (other or share == 100)
    return white


def _white_names(text: str) -> frozenset[str]:
    """White's names in this document: `white`, and those it defines white."""
    names = set(_WHITE)
    if "\\definecolor" not in text and "\\colorlet" not in text:
        return _WHITE
    for count, found in enumerate(_DEFINED.finditer(text)):
        if count >= MAX_DEFINITIONS:
            break
        if found.group("name") and _model_white(found.group("model"), found.group("spec")):
            names.add(found.group("name"))
        elif found.group("alias") and _named_white(found.group("of"), frozenset(names)):
            names.add(found.group("alias"))
    return frozenset(names)


def _body_end(text: str, start: int) -> int:
    """Where the group opened just before `start` closes (within MAX_BODY), or -1."""
    depth = 1
    for at in range(start, min(len(text), start + MAX_BODY)):
        char = text[at]
        if char == "\\":
            continue
        if char == "{" and text[at - 1] != "\\":
            depth += 1
        elif char == "}" and text[at - 1] != "\\":
            depth -= 1
            if depth == 0:
                return at
    return -1


def _token_pattern(text: str) -> re.Pattern[str]:
    """The token pattern, with the calls of the macros this document defines to discard their
    first argument."""
    names: set[str] = set()
    if "command" not in text and "def" not in text:
        return _PLAIN_TOKEN
    for count, found in enumerate(_DISCARDS.finditer(text)):
        if count >= MAX_DEFINITIONS:
            break
        end = _body_end(text, found.end())
        if end >= 0 and "#1" not in text[found.end():end]:
            names.add(found.group("named") or found.group("bare") or found.group("def"))
        if len(names) >= MAX_MACROS:
            break
    if not names:
        return _PLAIN_TOKEN
    called = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return re.compile(_TOKEN % rf"|\\(?:{called})(?![A-Za-z])[ \t]{{0,8}}(?P<drop>\{{)")


def _white(model: str | None, spec: str, names: frozenset[str]) -> bool:
    if model is None and (spec in names or "!" not in spec):  # a name: the common case
        return spec in names
    return bool(names) and (_named_white(spec, names) if model is None
                            else _model_white(model, spec))


_HIDERS = frozenset({"phantom", "scaled", "sized", "drop"})  # each its token's last group


class _Group:
    """An open group: where the hiding command it is the argument of starts (or -1), and where
    a `\\color{white}` in force in it started (or -1)."""

    __slots__ = ("hidden_from", "white_from")

    def __init__(self, hidden_from: int = -1) -> None:
        self.hidden_from = hidden_from
        self.white_from = -1


def _regions(text: str, kept: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans typeset invisible, outside the `kept` spans."""
    white = frozenset() if any(name in text for name in _BACKGROUNDS) else _white_names(text)
    regions: list[tuple[int, int]] = []
    stack = [_Group()]
    span = 0
    for found in _token_pattern(text).finditer(text):
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
        elif found.lastgroup in _HIDERS:
            stack.append(_Group(at))
        elif found.group("text") is not None:
            hides = _white(found.group("tmodel"), found.group("text"), white)
            stack.append(_Group(at if hides else -1))
        elif found.group("color") is not None and _white(found.group("cmodel"),
                                                          found.group("color"), white):
            top.white_from = at if top.white_from < 0 else top.white_from
        elif top.white_from >= 0 and found.group().endswith(("}", "end")):  # colour, \\end
            regions.append((top.white_from, at))
            top.white_from = -1
    regions.extend((group.white_from, len(text)) for group in stack if group.white_from >= 0)
    return regions


def invisible_blanked(text: str, kept: list[tuple[int, int]]) -> str:
    """`text` with what it typesets invisible blanked (spaces, newlines kept); `kept`: spans
    read verbatim, in order."""
    if not any(word in text for word in ("phantom", "color", "box", "def", "command")):
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
