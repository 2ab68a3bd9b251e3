"""Expression forms the numeric and symbolic graders read alike: full-width punctuation and digits
typed with an East Asian input method (`，`, `（）`, `：`, `１６`), the spellings of μ (`\\micro`,
`\\upmu`, `\\textmu`, the micro sign), norms (`\\|k_a\\|`, `\\lVert k_a \\rVert`, `||k_a||`) and
set braces (`\\{a, b\\}`).

`fold_width` keeps every character's position, so the spans a grader reports still point into
what the student wrote; the other rewrites are for reading an expression, not for locating it.
"""

from __future__ import annotations

import re
import unicodedata

# Full-width forms that NFKC maps to one ASCII character, plus the ideographic comma, full stop
# and space, which NFKC keeps; everything else (superscripts, ligatures, `½`) changes length or
# meaning under NFKC and is left alone.
_IDEOGRAPHIC = {"\u3001": ",", "\u3002": ".", "\u3000": " "}


def _fold_char(ch: str) -> str:
    if "\uff01" <= ch <= "\uff5e":
        folded = unicodedata.normalize("NFKC", ch)
        return folded if len(folded) == 1 else ch
    return _IDEOGRAPHIC.get(ch, ch)


def fold_width(text: str) -> str:
    """Full-width punctuation, digits and letters as their ASCII forms; same length as `text`."""
    if text.isascii():
        return text
    return "".join(_fold_char(ch) for ch in text)


# Invisible format characters (Unicode category Cf) that copying from a web page, a chat or a PDF
# leaves in or around a number or a formula (`6<U+200B>4`): zero-width space, joiners, word joiner,
# soft hyphen, byte order mark, invisible operators, tags, direction marks and controls. The
# prepended concatenation marks (the Arabic number sign U+0600, ...) are Cf too but are drawn.
INVISIBLE_CLASS = ("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
                   "\ufeff\ufff9-\ufffb\U00013430-\U0001343f\U0001bca0-\U0001bca3"
                   "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]")
INVISIBLE = re.compile(INVISIBLE_CLASS)
# ... less the direction overrides (U+202D, U+202E), which reorder what is shown
_SHOWN_IN_ORDER = re.compile(INVISIBLE_CLASS.replace("\u202a-\u202e", "\u202a-\u202c"))


def skip_invisible(text: str, overrides: bool = True) -> str:
    """`text` without its invisible format characters, as every page shows it (shorter: for
    reading an expression, not for locating it); with `overrides` false, a direction override
    is kept (a reader then sees what it hides)."""
    if text.isascii():
        return text
    return (INVISIBLE if overrides else _SHOWN_IN_ORDER).sub("", text)


# Every way of writing the Greek letter mu that is not `\mu` itself: `\micro` (siunitx, and what
# some editors insert for μ), `\upmu` (upgreek), `\textmu` (textcomp), `\muup` (unicode-math).
_MU = re.compile(r"\\(?:micro|upmu|textmu|muup|mup)(?![A-Za-z])")


def standard_mu(text: str) -> str:
    return _MU.sub(r"\\mu", text.replace("\u00b5", "\u03bc"))


# `\|x\|`, `\left\| x \right\|`, `\lVert x \rVert`, `\Vert x \Vert`, `‖x‖`, `||x||`, and the
# subscript of an l2 norm (`\|x\|_2`); the content is short and holds no other bar.
_OPEN = r"(?:\\left\s*)?(?:\\\||\\lVert|\\Vert|‖|\|\|)"
_CLOSE = r"(?:\\right\s*)?(?:\\\||\\rVert|\\Vert|‖|\|\|)"
# the content alternates plain characters and commands (never `\right`, `\rVert`, `\Vert`), so
# each character is matched one way only and the scan stays linear
_NORM = re.compile(_OPEN + r"\s*(?P<inner>(?:[^|‖\\]|\\(?!right|rVert|Vert)[A-Za-z]+){1,80}?)\s*"
                   + _CLOSE + r"(?:_\s*(?:\{\s*2\s*\}|2))?")


NORM_PREFIX = "norm_"


def norm_names(text: str) -> str:
    """A norm as one scalar name the parser reads (`\\|k_a\\|` -> `\\mathrm{norm}_{ka}`, the
    symbol norm_ka): a norm is a positive number, which is all an expression that divides or
    scales by it needs."""
    def name(m: re.Match[str]) -> str:
        inner = re.sub(r"[^A-Za-z0-9]", "", m.group("inner").replace("\\", ""))
        return f"\\mathrm{{{NORM_PREFIX[:-1]}}}_{{{inner}}}" if inner else m.group(0)
    return _NORM.sub(name, text)


# `\sum_{i \in \{a, b\}} k_i` (or `\sum_{i = a, b}`): the sum over a literal set, written out
_SET_SUM = re.compile(
    r"\\sum\s*_\s*\{\s*(?P<index>[A-Za-z])\s*(?:\\in\s*\\\{(?P<members>[\w\s,]{1,40})\\\}"
    r"|=\s*(?P<listed>\w\s*(?:,\s*\w\s*){1,7}))\s*\}\s*"
    r"(?P<body>\\?[A-Za-z]+)\s*_\s*\{?\s*(?P=index)\s*\}?")


def expand_set_sums(text: str) -> str:
    def expand(m: re.Match[str]) -> str:
        members = [x.strip() for x in (m.group("members") or m.group("listed")).split(",")]
        if not all(members):
            return m.group(0)
        return "(" + " + ".join(f"{m.group('body')}_{{{x}}}" for x in members) + ")"
    return _SET_SUM.sub(expand, text)
