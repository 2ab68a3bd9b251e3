"""A notebook question answered twice: values its code prints and the student's written answer.

Students who compute their answers in a notebook often also write them out, under the
question's own heading or in the cell after the code: `print(f"2a {x}")` gives `2a 640.0`
(rendered as the question's `(a) 640.0`, graders/documents/printed_labels.py) and the markdown
says `(a) 640`. The written statement is the answer an instructor grades; what the code prints
is how the student got there. So, for a question whose answer holds both, or whose label
stands twice (once over printed values, once over a written answer), the written answer is read:
a printed line giving a part the written answer also gives is blanked in the answer's text
(spaces, offsets kept), and the written run is chosen over the printed one. Where the two give
different values for a part, the answer goes to review showing both. Parts only printed stay
the answer's. Linear in the answer's length; at most `MAX_PARTS` parts compared.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal, InvalidOperation

from graders.documents.assign import Unit
from graders.documents.model import LocatedAnswer
from graders.documents.printed_labels import labelled
from graders.documents.strength import weak
from graders.rubric_model import Question

PRINTED = "printed"  # a notebook cell's kind for blocks rendered from printed answer lines
MAX_PARTS = 26
_STRETCH = 200  # characters of a written part searched for its values
_MARKER = re.compile(r"(?<![A-Za-z0-9])\(?(?P<part>[a-h])\)")
_NUMBER = re.compile(r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d{1,40})(?:\.\d{1,40})?(?:[eE][-+]?\d{1,3})?")
_OUT = re.compile(r"^Out:[^\n]*$", re.MULTILINE)  # a code cell's short output (notebook.OUTPUT)


def _value(text: str) -> Decimal | str | None:
    found = _NUMBER.search(text)
    if found is None:
        return None
    raw = found.group().replace(",", "").replace("−", "-")
    try:
        return Decimal(raw)
    except InvalidOperation:
        return raw


def _prose(text: str) -> str:
    """The text without its code fences and their output lines."""
    return _OUT.sub("", "".join(text.split("```")[0::2]))


Written = dict[str, tuple[frozenset[Decimal | str], str]]


def written_parts(text: str) -> Written:
    """Each sub-part the written text gives (`(a) 640`, `**(b)** 260`, `c) 0.5`): the values
    in its first `_STRETCH` characters before the next marker (`(a) 2 x 320 = 640`: 2, 320 and
    640), and its first line as written."""
    text = _prose(text)
    markers = list(itertools.islice(_MARKER.finditer(text), MAX_PARTS * 4))
    parts: Written = {}
    for k, found in enumerate(markers):
        end = markers[k + 1].start() if k + 1 < len(markers) else len(text)
        stretch = text[found.end():min(end, found.end() + _STRETCH)]
        values = frozenset(v for m in _NUMBER.finditer(stretch) if (v := _value(m.group()))
                           is not None)
        part = found.group("part")
        if values and part not in parts:
            parts[part] = (values, stretch.strip().splitlines()[0][:60])
    return parts


def _printed_lines(text: str) -> list[tuple[int, int, str, str]]:
    """(start, end, part, value) of each printed answer line in a printed block's text."""
    lines: list[tuple[int, int, str, str]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        found = labelled(line)
        if found is not None:
            lines.append((pos, pos + len(line.rstrip("\n")), found[1], found[2]))
        pos += len(line)
    return lines


Block = tuple[int, int, str]  # a printed block: start, end, the question it answers ("" unsure)


def printed_blocks(cells: Sequence[tuple[int, int, str]]) -> list[Block]:
    return [(s, e, kind.partition(":")[2]) for s, e, kind in cells if kind.startswith(PRINTED)]


def disagreements(printed: list[tuple[str, str]], written: Written) -> list[str]:
    """`(a): written '640', printed '600'` for each part whose printed value the written one
    does not state."""
    found: list[str] = []
    for part, value in dict.fromkeys(printed):
        if part in written and _value(value) not in written[part][0]:
            found.append(f"({part}): written {written[part][1]!r}, printed {value!r}")
    return found


def reconciled(text: str, answer: LocatedAnswer, printed: Sequence[Block],
               number: str | None) -> LocatedAnswer:
    """`answer` with its written parts read over printed ones: `printed` are the document's
    printed blocks, `number` the question's number (None: not known, or shared by another
    question). A printed line in the answer giving a part the written text gives is blanked;
    the printed blocks of the question elsewhere in the notebook (a run set aside, lines
    before an answer marker or after code that ends the answer) are compared too. Unchanged
    when the answer holds no written part."""
    if number is None or answer.start is None or answer.end is None or \
            answer.text != text[answer.start:answer.end]:
        return answer
    inside = [(s, e, q) for s, e, q in printed if answer.start <= s and e <= answer.end]
    chars = list(answer.text)
    for s, e, _ in inside:  # the written text: the answer less its printed blocks
        chars[s - answer.start:e - answer.start] = [" "] * (e - s)
    written = written_parts("".join(chars))
    if not written:
        return answer
    shown = list(answer.text)
    pairs: list[tuple[str, str]] = []
    for s, e, question in printed:
        if question not in (number, "") or (question == "" and (s, e, question) not in inside):
            continue
        for ls, le, part, value in _printed_lines(text[s:e]):
            pairs.append((part, value))
            if (s, e, question) in inside and part in written:  # the written part is read
                at = s - answer.start
                shown[at + ls:at + le] = [" "] * (le - ls)
    if not pairs:
        return answer
    kept = replace(answer, text="".join(shown))
    differ = disagreements(pairs, written)
    if not differ:
        return kept
    return weak(kept, "the notebook prints another value than the written answer gives "
                      f"({'; '.join(differ[:4])}): graded from the written answer")


def _merged(printed: Sequence[Block]) -> list[tuple[int, int]]:
    """The printed blocks joined where they stand next to each other (a heading and its lines
    are two blocks: cells are joined by a blank line)."""
    merged: list[tuple[int, int]] = []
    for s, e, _ in sorted(printed):
        if merged and s <= merged[-1][1] + 2:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def written_run(text: str, runs: list[list[int]], run: list[int], units: Sequence[Unit],
                qi: int, printed: Sequence[Block]) -> list[int]:
    """The units to read for question `qi`: `run` (the locator's choice) less its printed
    units whose sub-part the student's written units in it give too; or, where `run` is all
    printed lines, another run under the question's own label that the student wrote with a
    value in it."""
    merged = _merged(printed)

    def is_printed(i: int) -> bool:
        return any(s <= units[i].start and units[i].end <= e for s, e in merged)

    if all(is_printed(i) for i in run):
        for other in runs:
            if other is run or all(is_printed(i) for i in other) or \
                    not any(units[i].label_scores[qi] > 0 for i in other):
                continue
            body = text[units[other[0]].start:units[other[-1]].end]
            if written_parts(body) or re.search(r"\d", _prose(body)):
                return other
        return run
    def letter(i: int) -> str | None:
        mark = units[i].mark
        return mark.letter if mark is not None else None

    given = {letter(i) for i in run if not is_printed(i)} - {None}
    kept = [i for i in run if not (is_printed(i) and letter(i) in given)]
    return kept if kept and any(units[i].label_scores[qi] > 0 for i in kept) else run


def question_numbers(questions: Sequence[Question]) -> list[str | None]:
    """Each question's number as printed labels give it (`Q2`, `Question 2`: "2"); None where
    it has none, or shares it with another question (part A's 2 and part B's 2)."""
    numbers: list[str | None] = []
    for question in questions:
        found = next((m for name in (question.id, *question.labels)
                      if (m := re.search(r"\d{1,3}", name)) is not None), None)
        numbers.append(found.group().lstrip("0") or "0" if found else None)
    shared = {n for n in numbers if n is not None and numbers.count(n) > 1}
    return [None if n in shared else n for n in numbers]


def written_over_printed(text: str, questions: Sequence[Question],
                         answers: dict[str, LocatedAnswer], printed: Sequence[Block]) -> None:
    """Each answer `reconciled` in place."""
    if not printed:
        return
    for question, number in zip(questions, question_numbers(questions), strict=True):
        if question.id in answers:
            answers[question.id] = reconciled(text, answers[question.id], printed, number)


__all__ = ["PRINTED", "disagreements", "printed_blocks", "question_numbers", "reconciled",
           "written_over_printed", "written_parts", "written_run"]
