"""Text a LaTeX document typesets but no reader sees: it is blanked, character for character.

`\\phantom{...}` (and `\\hphantom`, `\\vphantom`) takes the room of its argument and draws
nothing; `\\textcolor{white}{...}` draws its argument white on the white page, and
`\\color{white}` everything after it to the end of its group (`{\\color{white} 64}`), the next
`\\color`, or the end of the environment it stands in (unless the document paints a page or a
box in a colour, `\\pagecolor`, `\\colorbox`, ...: white on it shows). White under another
name is white too: a colour defined white (`\\definecolor{paper}{rgb}{1,1,1}`, `{gray}{1}`,
`{HTML}{FFFFFF}`, `{RGB}{255,255,255}`, `{cmyk}{0,0,0,0}`), one let to a white one
(`\\colorlet{paper}{white}`, or a mix all of white, `white!100`, `black!0`), or white given in
place (`\\color[rgb]{1,1,1}`); definitions are followed in the order they stand. `\\scalebox{0}`
and `\\resizebox{0pt}{...}` shrink theirs to nothing; a macro whose body never uses its first
argument (`\\newcommand{\\hide}[1]{}`, `\\def\\hide#1{}`) drops it. A TA reading the
compiled pages sees none of it, and a hostile student hides the expected values there behind a
visible answer, as in a comment (graders/documents/latex_source.py, which calls this after
blanking comments and passes the verbatim spans, left as written). Braces are matched with a
stack in one pass (an escaped `\\{` is no brace); an argument never closed is left as text.
Linear time.
"""

from __future__ import annotations

import functools
import re

_WHITE = frozenset({"white", "White"})
_NAME = r"[A-Za-z!0-9.\-_:]{1,40}"
# a colour argument: a name or a mix (`paper`, `white!100`), or a model and its values
_SPEC = (r"(?:\[[ \t]{0,4}(?P<%s>[A-Za-z/]{1,20})[ \t]{0,4}\][ \t]{0,8})?"
         r"\{[ \t]{0,4}(?P<%s>[^{}\n]{1,80}?)[ \t]{0,4}\}")
# a document that paints a page or a box in a colour may show white text on it: its white is
# not judged
_BACKGROUNDS = ("\\pagecolor", "\\colorbox", "\\fcolorbox", "\\cellcolor", "\\rowcolor",
                "\\columncolor", "\\setbeamercolor", "\\tcolorbox", "\\mdframed")
# one token: a brace, an escaped brace, or a command that hides, each after an even run of
# backslashes (`\\\\phantom` is a line break and a word); every repetition bounded: linear
_ZERO = r"[-+]?(?:0+\.?0*|\.0+)[ \t]{0,4}(?:[a-z]{2}|\\[A-Za-z]{1,20})?"
_TOKEN = (
    r"(?<!\\)(?P<pairs>(?:\\\\)*)(?:(?P<brace>[{}])|\\[{}]"
    r"|\\(?:[hv]?phantom)[ \t]{0,8}(?P<phantom>\{)"
    r"|\\scalebox[ \t]{0,8}\{[ \t]{0,4}" + _ZERO + r"[ \t]{0,4}\}(?:\[[^\]\n]{0,40}\])?"
    r"[ \t]{0,8}(?P<scaled>\{)"
    r"|\\resizebox\*?[ \t]{0,8}(?:\{[ \t]{0,4}" + _ZERO + r"[ \t]{0,4}\}[ \t]{0,8}\{[^{}\n]{0,40}"
    r"\}|\{[^{}\n]{0,40}\}[ \t]{0,8}\{[ \t]{0,4}" + _ZERO + r"[ \t]{0,4}\})[ \t]{0,8}(?P<sized>\{)"
    r"|\\textcolor[ \t]{0,8}" + _SPEC % ("tmodel", "text") + r"[ \t]{0,8}\{"
    r"|\\color[ \t]{0,8}" + _SPEC % ("cmodel", "color") +
    r"|\\(?:definecolor|providecolor)[ \t]{0,8}(?:\[[^\]\n]{0,20}\])?[ \t]{0,8}"
    r"\{[ \t]{0,4}(?P<defined>" + _NAME + r")[ \t]{0,4}\}[ \t]{0,8}"
    r"\{[ \t]{0,4}(?P<model>[A-Za-z/]{1,20})[ \t]{0,4}\}[ \t]{0,8}\{(?P<spec>[^{}\n]{1,80})\}"
    r"|\\colorlet[ \t]{0,8}\{[ \t]{0,4}(?P<let>" + _NAME + r")[ \t]{0,4}\}[ \t]{0,8}"
    r"(?:\[[^\]\n]{0,20}\][ \t]{0,8})?\{[ \t]{0,4}(?P<mix>[^{}\n]{1,80}?)[ \t]{0,4}\}"
    r"|\\end(?![A-Za-z])%s)")
_PLAIN_TOKEN = re.compile(_TOKEN % "")

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


@functools.lru_cache(maxsize=256)
def _white_values(model: str, spec: str) -> bool:
    """Whether values in a model (`rgb` `1,1,1`, `gray` `1`, `HTML` `FFFFFF`, ...) are white;
    a list of models (`rgb/cmyk`) only when every one of them is."""
    models, specs = model.split("/"), spec.split("/")
    if len(models) != len(specs):
        return False
    return all(_white_value(m.strip(), s.strip()) for m, s in zip(models, specs, strict=True))


_TOP = {"rgb": 1.0, "gray": 1.0, "RGB": 255.0, "Gray": 15.0}  # the most of each value


def _white_value(model: str, spec: str) -> bool:
    if model == "HTML":
        return spec.upper() == "FFFFFF"
    if model == "named":
        return spec in _WHITE
    try:
        values = [float(v) for v in spec.replace(" ", ",").split(",") if v]
    except ValueError:
        return False
    if model in _TOP:
        return len(values) == (1 if model.endswith(("gray", "Gray")) else 3) and \
            all(v >= _TOP[model] for v in values)
    if model in ("cmyk", "cmy"):
        return len(values) == len(model) and all(v <= 0 for v in values)
    if model in ("hsb", "HSB"):  # no saturation, full brightness
        top = 1.0 if model == "hsb" else 240.0
        return len(values) == 3 and values[1] <= 0 and values[2] >= top
    return False


def _white_mix(mix: str, white: set[str]) -> bool:
    """Whether a colour expression is white: a white name, or a mix all of white (`white!100`,
    `black!0`, `white!100!black`, `red!0!white`); a longer mix is not judged."""
    parts = [part.strip() for part in mix.split("!")]
    if len(parts) == 1:
        return parts[0] in white
    try:
        share = float(parts[1])
    except ValueError:
        return False
    other = parts[2] if len(parts) == 3 else "white" if len(parts) == 2 else ""
    return bool(other) and (share <= 0 or parts[0] in white) and (share >= 100 or other in white)


# a text without any of these draws nothing invisible
_NEEDLES = ("phantom", "white", "White", "definecolor", "providecolor", "colorlet", "color[",
            "box", "def", "command")
_HIDERS = frozenset({"phantom", "scaled", "sized", "drop"})  # each its token's last group


class _Group:
    """An open group: where the hiding command it is the argument of starts (or -1), and where
    a `\\color{white}` in force in it started (or -1)."""

    __slots__ = ("hidden_from", "white_from")

    def __init__(self, hidden_from: int = -1) -> None:
        self.hidden_from = hidden_from
        self.white_from = -1


def _is_white(model: str | None, spec: str, white: set[str], painted: bool) -> bool:
    if painted:
        return False
    if not model:
        return spec in white or ("!" in spec and _white_mix(spec, white))
    return _white_values(model, spec)


def _define(found: re.Match[str], white: set[str], painted: bool) -> None:
    """Follow `\\definecolor` or `\\colorlet`: whether the name now draws white."""
    if found.group("defined") is not None:
        name = found.group("defined")
        drawn_white = _is_white(found.group("model"), found.group("spec").strip(), white, painted)
    else:
        name = found.group("let")
        drawn_white = _is_white(None, found.group("mix"), white, painted)
    if drawn_white:
        white.add(name)
    else:
        white.discard(name)


def _regions(text: str, kept: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans typeset invisible, outside the `kept` spans."""
    painted = any(name in text for name in _BACKGROUNDS)
    white = set() if painted else set(_WHITE)  # names that draw white, in the order defined
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
        elif found.group("defined") is not None or found.group("let") is not None:
            _define(found, white, painted)
        elif found.group("text") is not None:
            hidden = _is_white(found.group("tmodel"), found.group("text"), white, painted)
            stack.append(_Group(at if hidden else -1))
        elif found.group("color") is not None and \
                _is_white(found.group("cmodel"), found.group("color"), white, painted):
            top.white_from = at if top.white_from < 0 else top.white_from
        elif top.white_from >= 0 and found.group().endswith(("}", "end")):  # colour, \\end
            regions.append((top.white_from, at))
            top.white_from = -1
    regions.extend((group.white_from, len(text)) for group in stack if group.white_from >= 0)
    return regions


def invisible_blanked(text: str, kept: list[tuple[int, int]]) -> str:
    """`text` with what it typesets invisible blanked (spaces, newlines kept); `kept`: spans
    read verbatim, in order."""
    if not any(needle in text for needle in _NEEDLES):
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
