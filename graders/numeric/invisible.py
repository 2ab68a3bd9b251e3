"""Invisible format characters (Unicode category Cf) in or around a number, as copying from a web
page, a chat or a PDF leaves them: zero-width space, joiner and non-joiner, word joiner, soft
hyphen, byte order mark, invisible operators, tags and the direction marks, embeddings, overrides
and isolates. Every page shows `6<U+200B>4` as 64, so the reader joins the digits on either side.

The prepended concatenation marks (the Arabic number sign U+0600, the Syriac abbreviation mark,
...) are Cf too but are drawn, so they are not skipped.

A direction override (U+202D, U+202E) reorders what is shown: `<U+202E>46<U+202C>` shows as 64.
The value is read in the order it was typed (as the app cleans it for staff: the override shown
as a replacement character), and `overridden` tells the grader to send it to a reader.
"""

from __future__ import annotations

import re

from graders.notation import INVISIBLE, INVISIBLE_CLASS, skip_invisible

__all__ = ["INVISIBLE", "INVISIBLE_CLASS", "overridden", "skip_invisible"]

# an override's reach: to its closing pop (U+202C) or the end of the paragraph, whichever
# comes first (embeddings and isolates nested inside it are closed with it: UAX #9, X6a/X8)
_OVERRIDE = re.compile("[\u202d\u202e][^\u202c\n\u2029]*")
_DIGIT = re.compile(r"\d")


def overridden(text: str, start: int, end: int) -> bool:
    """Whether a direction override reaches two or more digits of `text[start:end]`: shown in an
    order other than the one typed."""
    if text.isascii():
        return False
    for m in _OVERRIDE.finditer(text, 0, end):
        lo, hi = max(start, m.start()), min(end, m.end())
        if lo < hi and len(_DIGIT.findall(text, lo, hi)) >= 2:
            return True
    return False
