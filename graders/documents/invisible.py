"""Invisible format characters (Unicode category Cf) in labels and cue words: a zero-width space
or word joiner in `Q<U+200B>3`, a soft hyphen in `3<U+00AD>(b)` or `atten<U+00AD>tion`, a byte
order mark or a direction mark before a heading, as copying from a web page, a chat or a PDF
leaves them. Every page shows the document without them, so the locator reads it so
(`graders.notation.INVISIBLE`) and what it found is put back in the text as written: spans in
the document, each answer's text with the characters in place (the numeric grader reads a
number through them and sends a direction override that reorders digits to a reader).

Linear: one pass to find the characters, a binary search per position mapped.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace

from graders.documents.model import LocatedAnswer
from graders.documents.notebook import Cell
from graders.notation import INVISIBLE


class Shown:
    """A text without its invisible format characters, and the way back to the text."""

    def __init__(self, text: str) -> None:
        self.written = text
        self.removed: list[int] = [] if text.isascii() else [
            m.start() for m in INVISIBLE.finditer(text)]
        self.text = INVISIBLE.sub("", text) if self.removed else text
        # where each removed character would stand in the shown text (nondecreasing)
        self._at = [r - j for j, r in enumerate(self.removed)]

    def __bool__(self) -> bool:
        return bool(self.removed)

    def shown(self, position: int) -> int:
        """A position in the written text as a position in the shown text."""
        return position - bisect_left(self.removed, position)

    def written_start(self, position: int) -> int:
        """The written position of the shown character at `position`."""
        return position + bisect_right(self._at, position)

    def written_end(self, position: int) -> int:
        """The written end of a span ending at `position` in the shown text (the characters
        right after the span's last character are not in it)."""
        return position + bisect_left(self._at, position)

    def cells(self, cells: Sequence[Cell]) -> tuple[Cell, ...]:
        return tuple((self.shown(start), self.shown(end), kind) for start, end, kind in cells)

    def answer(self, answer: LocatedAnswer) -> LocatedAnswer:
        """The answer located in the shown text, in the written text."""
        if answer.start is None or answer.end is None:
            return answer
        start, end = self.written_start(answer.start), self.written_end(answer.end)
        text = answer.text
        if len(text) == answer.end - answer.start:  # the span's characters, some blanked
            pieces: list[str] = []
            cursor, taken = start, 0
            for k in range(bisect_left(self.removed, start), bisect_left(self.removed, end)):
                r = self.removed[k]
                pieces += [text[taken:taken + r - cursor], self.written[r]]
                taken += r - cursor
                cursor = r + 1
            text = "".join(pieces) + text[taken:]
        return replace(answer, text=text, start=start, end=end)
