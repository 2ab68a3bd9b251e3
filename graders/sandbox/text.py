"""Text a child produced, made safe for every trusted consumer.

Whatever a student's process wrote (exception messages, tracebacks, names, stdout) ends up in a
terminal, a database row, a CSV cell and a web page. One bad string must not break any of them:
lone surrogates raise UnicodeEncodeError when encoded, NUL is refused by PostgreSQL, ANSI and
other control sequences rewrite an instructor's terminal, bidirectional overrides make a line
display as something other than what it holds. So every such string leaves the protocol layer
as valid, printable Unicode of bounded length, and this is the only place that decides how.
"""

from __future__ import annotations

import re
import unicodedata

ELLIPSIS = "…"
# Escape sequences as terminals parse them: CSI (ESC [ ... final byte), OSC (ESC ] ... BEL or
# ESC \), other two-byte escapes. Each alternative is a single run of a character class with no
# nesting, so matching is linear in the input, which is capped before it gets here anyway.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x1b\x9d]\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)
# Format characters that reorder or hide what is displayed (bidirectional overrides and
# isolates, zero-width joiners are harmless but the overrides are not).
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def _clean_char(char: str, multiline: bool) -> str:
    if char in "\n\t":
        return char if multiline else " "
    if char in _BIDI:
        return ""
    category = unicodedata.category(char)
    if category == "Cs":  # a lone surrogate: not encodable in any UTF
        return "\ufffd"
    if category in ("Zl", "Zp"):
        return "\n" if multiline else " "
    return "" if category == "Cc" else char


def clean_text(value: str | bytes, limit: int, *, multiline: bool = False) -> str:
    """`value` as valid UTF-8 text without control characters, at most `limit` characters
    (cut ones end with an ellipsis). Bytes are decoded as UTF-8 with replacement; lone
    surrogates become U+FFFD; escape sequences are removed whole; other control characters are
    dropped (newlines and tabs become spaces unless `multiline`); carriage returns become
    newlines in multi-line text so that no line can overwrite another on a terminal."""
    if limit <= 0:
        return ""
    # Cap before any scanning: the work below is linear, but a child's string may be huge.
    raw = value[: limit * 4 + 64]
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    # The common case (printable text, maybe with newlines and tabs) skips the per-character
    # pass; str.isprintable is False for every control, format, surrogate and separator
    # character other than the ASCII space.
    plain = text.replace("\n", "").replace("\t", "") if multiline else text
    if not plain.isprintable():
        if multiline:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        text = _ESCAPES.sub("", text)
        text = "".join(_clean_char(char, multiline) for char in text)
    if len(text) > limit or len(value) > len(raw):
        text = text[: limit - 1] + ELLIPSIS
    return text
