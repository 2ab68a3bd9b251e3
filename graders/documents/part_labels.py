"""`Part N` headings that number the questions, told from the parts of an exam.

A student whose handout numbers its questions 1 to 8 may head each answer `### Part 1` ...
`### Part 8` (or `**Part 3:**`, `Part 4.`), in any order, with only sub-parts (`a.`, `(b)`)
under them. An exam's real parts group several questions: numbered ones under each (`## Part 1`
then `1.`, `2.`), or parts named by letters or roman numerals (`Part A`, `Part II`). So the
part headings of a document are read as the labels of questions N when every part label of the
document carries a number, there are at least two of them, all different, and no question
number is written under any of them; otherwise they stay parts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from graders.documents.labels import LabelMark

_MIN_PARTS = 2
# what may follow "Part 3" on its line for it to head an answer: nothing, punctuation, a title in
# brackets, or markup; "Part 2 of the proof ..." is a sentence
_AFTER_PART = re.compile(r"[ \t]*(?:$|[:.)\-(*_#\u2013\u2014])")


def numbered_parts(marks: Sequence[LabelMark], text: str) -> frozenset[str]:
    """The part numbers (as written: "3") to read as question numbers; empty when the document's
    parts are an exam's parts (or it has none). `marks`: the outline's and the text's labels
    (a heading line may be in both)."""
    parts = [m for m in marks if m.part is not None and m.question is None]
    if any(m.num is not None or not str(m.part).isdigit() for m in parts):
        return frozenset()  # "B2", "Part A", "Part II", a numbered question inside a part
    # the part labels themselves (not the outline's sub-parts under them), one per line
    heads = {m.start: str(m.part) for m in parts if m.heading or not m.structural}
    values = list(heads.values())
    if len(values) < _MIN_PARTS or len(set(values)) != len(values):
        return frozenset()
    if any(not m.structural and not _heads_its_line(m, text) for m in parts):
        return frozenset()
    first = min(heads)
    for m in marks:
        if m.start <= first or m.part is not None or m.prompted:
            continue
        # a question number, or a question named in words, under a part: parts group questions
        if (m.num is not None and not (m.inline or m.paren or m.prose)) or m.question is not None:
            return frozenset()
    return frozenset(values)


def _heads_its_line(mark: LabelMark, text: str) -> bool:
    end = text.find("\n", mark.end)
    rest = text[mark.start:end if end >= 0 else len(text)]
    at = rest.lower().find("part")
    if at < 0:
        return False
    after = re.match(r"part[ \t]+\d{1,2}", rest[at:], re.IGNORECASE)
    return after is not None and _AFTER_PART.match(rest, at + after.end()) is not None


def as_questions(marks: Sequence[LabelMark], parts: frozenset[str]) -> list[LabelMark]:
    """`marks` with each part in `parts` read as the question of its number (its heading, and the
    sub-parts of the outline under it)."""
    if not parts:
        return list(marks)
    out: list[LabelMark] = []
    for m in marks:
        if m.part is None or m.part not in parts or m.num is not None:
            out.append(m)
            continue
        # the outline's part heading sets a number now (level 1); its sub-parts keep theirs
        out.append(replace(m, part=None, num=int(m.part), heading=False, declared=True,
                           level=1 if m.heading and m.structural else m.level, by_order=False))
    return out
