"""Numbered or lettered sub-answers inside one answer ("1) ... 2) ...", "(a) ... (b) ...").

A question whose items are its sub-parts is often answered in one block, the parts marked by
the student. An item with `subpart: b` reads only the text after the marker `b` (up to the
next marker of the same run) when the answer has such a run; otherwise the whole answer.

A marker stands at the start of a line, or after a sentence's end, and is a number (1-99), a
letter (a-h) or a roman numeral (i-viii), in one of the forms `1)`, `(1)`, `1.`, `1:`,
`Q1.`, `Part 1:`, and a letter or numeral after its question's number (`Q7.a`, `7-b`,
`3.ii)`); a run is at least two markers counting up from its first (1, 2, 3 or a, b, c or
i, ii, iii), so a stray "see eq. 1." is not one; or text then a lone second marker (b, 2, ii)
starting a line: the answer was located after its first sub-part's label, and the text before
is that sub-part. One pass over the text, no backtracking (student bytes are hostile).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from graders.documents.invisible import Shown
from graders.documents.labels import place_in_run
from graders.written.text import Sentence

_MARKER = re.compile(
    r"(?:^|(?<=[.!?;])[ \t]+)[ \t]*(?:[*#>-]+[ \t]*)?(?:(?:q|part|question)[ \t]*)?"
    r"(?:\(([0-9]{1,2}|[a-h]|viii|vii|vi|iv|v|iii|ii|i)\)"
    r"|([0-9]{1,2}|[a-h]|viii|vii|vi|iv|v|iii|ii|i)[).:]"
    r"|[0-9]{1,2}[.-]([a-h]|viii|vii|vi|iv|v|iii|ii|i)[).:]?)\**(?=[ \t]|$)",
    re.IGNORECASE | re.MULTILINE)
_MAX_CHARS = 100_000


@dataclass(frozen=True)
class SubAnswer:
    label: str  # lower case: "2", "b", "ii"
    marker: int  # where its marker starts (offsets in the answer's text)
    start: int  # where its text starts, after the marker
    end: int


def _run(found: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The longest run of markers of one kind counting up by one from 1 (1, 2, 3; a, b, c;
    i, ii, iii); markers of other kinds in between (sub-sub-parts) are passed over."""
    best: list[tuple[str, int, int]] = []
    for kind in ("number", "letter", "roman"):
        run: list[tuple[str, int, int]] = []
        for marker in found:
            value = place_in_run(marker[0], kind)
            if value is not None and value == len(run) + 1:
                run.append(marker)
        if len(run) >= 2 and len(run) > len(best):
            best = run
    return best


def _after_first(found: list[tuple[str, int, int]], text: str) -> list[tuple[str, int, int]]:
    """An answer located after its first sub-part's label ("Q7.a  During training ...
    Q7.b  At evaluation ..." read from after "Q7.a"): text, then one marker counting from the
    second (b, 2, ii), at the start of a line, and none other; the text before it is the first
    sub-part."""
    if len(found) != 1 or not text[:found[0][1]].strip() or text[found[0][1] - 1] != "\n":
        return []  # a lone marker after a sentence ("see eq. 2. ...") is none
    label = found[0][0]
    first = next((kind[0] for kind in (("1", "number"), ("a", "letter"), ("i", "roman"))
                  if place_in_run(label, kind[1]) == 2), None)
    return [(first, 0, 0), found[0]] if first is not None else []


@lru_cache(maxsize=20_000)
def sub_answers(text: str) -> tuple[SubAnswer, ...]:
    """The answer's marked sub-answers, in order (none when it has no run of markers). A marker
    is read as shown, through invisible format characters (`(<U+200B>b)`); offsets are in
    `text` as written."""
    text = text[:_MAX_CHARS]
    shown = Shown(text)
    if shown:
        # a marker starts before the invisible characters that precede it
        return tuple(SubAnswer(s.label, shown.written_end(s.marker), shown.written_start(s.start),
                               shown.written_end(s.end)) for s in _sub_answers(shown.text))
    return _sub_answers(text)


def _sub_answers(text: str) -> tuple[SubAnswer, ...]:
    found = [((m.group(1) or m.group(2) or m.group(3)).lower(), m.start(), m.end())
             for m in _MARKER.finditer(text)]
    run = _run(found) or _after_first(found, text)
    return tuple(SubAnswer(label, begin, end, run[i + 1][1] if i + 1 < len(run) else len(text))
                 for i, (label, begin, end) in enumerate(run))


def in_subpart(subpart: str | None, text: str, base: int, sentences: Sequence[Sentence]
               ) -> list[Sentence]:
    """The sentences of sub-answer `subpart` (`base`: the answer's offset), or all of them
    when the answer marks no such sub-answer."""
    if subpart is None:
        return list(sentences)
    wanted = subpart.lower()
    part = next((p for p in sub_answers(text) if p.label == wanted), None)
    if part is None:
        return list(sentences)
    mine = [s for s in sentences if base + part.marker <= s.start < base + part.end]
    return mine or list(sentences)
