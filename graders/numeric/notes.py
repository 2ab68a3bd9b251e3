"""Bracketed notes in words after a value: `197 (196 patches + CLS)`, `3.72 GB (4 bits + 16/64
bits per weight)`, `197 [i.e. 196 patches plus one]`. The note explains the value before it."""

from __future__ import annotations

import re

# a value, at most two words (its unit), then a bracket and at most three words before the
# note's first number: `197 (196 ...`, `3.72 GB  (4 ...`, `197 [i.e. 196 ...`
_BEFORE_NOTE = re.compile(r"[ \t]*(?:[A-Za-z%]{1,12}[ \t]*){0,2}[(\[][ \t]*"
                          r"(?:[A-Za-z.,:]{1,12}[ \t]*){0,3}")
_NOTE_WORD = re.compile(r"[A-Za-z]{2,}")
# Words before a note's first number that make it no explanation but another value offered or
# the value taken back (`64 (or maybe 65)`, `2 (correction: 3)`, `64 (not 65)`): those values
# are no working; graders/numeric/hedges.py reads them as rivals.
_NOT_A_NOTE = re.compile(r"\b(?:or|maybe|perhaps|possibly|else|not|never|correction|actually"
                         r"|wait|scratch|mean|make|oops|sorry|rather|instead)\b", re.IGNORECASE)


def notes_in_words(masked: str, end: int, spans: list[tuple[int, int]]
                   ) -> list[tuple[int, range, int]]:
    """Each bracketed note in words right after a value (`197 (196 patches + CLS)`, `3.72 GB (4
    bits + 16/64 bits per weight)`): the value's index among `spans` (the values' spans in a
    statement ending at `end`, in order), the indices of the values inside the note, which
    explain it (they are working, and the value before them stays the statement's final one),
    and where the note's bracket opens (the words before it, `GiB` in `2 GiB (2^31 bytes)`, are
    the value's unit)."""
    found: list[tuple[int, range, int]] = []
    i = 1
    while i < len(spans):
        (_, before_end), (note_start, _) = spans[i - 1], spans[i]
        opened = max(masked.rfind("(", before_end, note_start + 1),
                     masked.rfind("[", before_end, note_start + 1))
        if opened < 0 or note_start < before_end \
                or not _BEFORE_NOTE.fullmatch(masked, before_end, max(opened + 1, note_start)):
            i += 1
            continue
        closed = masked.find(")" if masked[opened] == "(" else "]", opened, end)
        closed = end if closed < 0 else closed
        if not _NOTE_WORD.search(masked, opened, closed) \
                or _NOT_A_NOTE.search(masked, opened, note_start):
            i += 1
            continue
        first = i
        while i < len(spans) and spans[i][0] < closed:
            i += 1
        found.append((first - 1, range(first, i), opened))
    return found
