"""One question's label heading two answers that disagree.

A student who writes `## B1` twice, with different values under each (a first attempt left
in, or one answer for every reading of the question), has answered B1 twice: a TA credits
neither outright. The answer the locator joins (or the section it keeps) goes to review, its
reason naming both. Repeats that are not rival answers stay as they are: a section whose
values are all among the other's (the same answer twice, a question restated and then
answered, a notebook heading above its code cell and again above the written answer), a
heading marked as a continuation (`B1 (continued)`), a label whose line names a different sub-part
(`## Problem 2(a)`, `## Problem 2(b)`), and a label with no value of its own under it (a table
of contents' entry, the question's prompt pasted: its givens are not answers).

Only stated values are compared; two prose answers under one label are left joined.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from graders.documents.assign import Unit
from graders.documents.code_spans import fence_spans

MAX_SECTIONS = 12  # sections of one label compared (a longer list is a table of contents)
_SECTION_CHARS = 4000  # characters of a section read for its values
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?!\d)|\d{1,40}(?:\.\d{1,40})?")
_CONTINUED = re.compile(r"\bcont(?:inued|inues|\.|'d|d)?(?![a-z])", re.IGNORECASE)
_OUT = re.compile(r"^Out:[^\n]{0,400}$", re.MULTILINE)  # a notebook cell's printed output
# the sub-part written on the label's line after its number: `Problem 2(a)`, `Problem 2b:`
_SUBPART = re.compile(r"(\d{1,3})(?:[ \t]?\(([a-h]|[ivx]{1,4})\)|([a-h])(?![A-Za-z0-9])"
                      r"|[ \t]([a-h])(?=[:.)]))")
_PAGE_NUMBER = re.compile(r"[ \t]{0,20}[.·…]{3,200}[ \t]{0,20}\d{1,4}[ \t]{0,20}(?:\n|$)")


def values_of(text: str) -> frozenset[Decimal]:
    """The numbers a passage states (`589{,}824` and `589,824` alike)."""
    plain = text.replace("{,}", ",")
    found: set[Decimal] = set()
    for match in _NUMBER.finditer(plain):
        try:
            found.add(Decimal(match.group().replace(",", "")))
        except InvalidOperation:  # pragma: no cover - the pattern only matches numbers
            continue
    return frozenset(found)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _body(text: str, section: Sequence[Unit], fences: Sequence[tuple[int, int]]) -> str:
    """A section's prose: its units' text without their labels (nor the headings between
    them), fenced code and printed output blanked, a page number after the label's dotted
    leader (a table of contents' entry, `B1 ..... 3`) left out."""
    pieces: list[str] = []
    read = 0
    for unit in section:
        start = max(unit.start, unit.mark.end if unit.mark is not None else 0)
        end = min(unit.end, start + _SECTION_CHARS - read)
        if end <= start:
            break
        piece = text[start:end]
        for fence_start, fence_end in fences:
            if fence_end > start and fence_start < end:
                a, b = max(fence_start, start) - start, min(fence_end, end) - start
                piece = piece[:a] + " " * (b - a) + piece[b:]
        pieces.append(piece)
        read += end - start
    body = "\n".join(pieces)
    page = _PAGE_NUMBER.match(body)
    if page is not None:
        body = body[page.end():]
    return _OUT.sub("", body)


def _subpart(raw: str, num: int | None) -> str | None:
    """The sub-part a label names on its own line after the question's number (`## Problem
    2(a)` and `## Problem 2(b)` are two parts of question 2, not two answers to it)."""
    for found in _SUBPART.finditer(raw[:200]):
        if num is None or found.group(1) == str(num):
            return found.group(2) or found.group(3) or found.group(4)
    return None


def _sections(text: str, qi: int,
              runs: Sequence[Sequence[Unit]]) -> list[tuple[str | None, list[Unit]]]:
    """The question's units cut where its own label (the same label as the first) comes
    again: each section opens with that label, and is keyed by the sub-part its label's
    line names."""
    first = next((u for run in runs for u in run
                  if u.mark is not None and u.label_scores[qi] > 0), None)
    if first is None:
        return []
    sections: list[tuple[str | None, list[Unit]]] = []
    for run in runs:
        opened = False
        for unit in run:
            mark = unit.mark
            if (mark is not None and unit.label_scores[qi] > 0
                    and (unit.path == first.path or _revisits(unit, first, sections, opened))
                    and not (sections and _continued(text, mark.start))):
                sections.append((_subpart(mark.raw, mark.num), []))
                opened = True
                if len(sections) > MAX_SECTIONS:
                    return []
            if opened:
                sections[-1][1].append(unit)
    return sections


def _revisits(unit: Unit, first: Unit, sections: Sequence[object], opened: bool) -> bool:
    """A later stretch of the document opened by the question's own label, without a sub-part
    (`**Q2**` after Q4, where Q2's first answer opened at its `(a)`): the student comes back to
    the question, as much a second answer as the same label again."""
    return (bool(sections) and not opened and unit.path is not None and first.path is not None
            and unit.path[:2] == first.path[:2] and unit.path[2:] == (None, None))


def _continued(text: str, start: int) -> bool:
    """`B1 (continued)`: the label's line, or the heading line above it, says so."""
    above = text.rfind("\n", 0, max(0, text.rfind("\n", 0, start)))
    end = text.find("\n", start)
    return _CONTINUED.search(text[max(0, above, start - 300):end if end >= 0 else len(text)]
                             [-600:]) is not None


def answered_twice(
    text: str, question_id: str, prompt: str, qi: int, runs: Sequence[Sequence[Unit]],
    prose: bool = False,
) -> str | None:
    """Why the question's answer is doubtful when its own label heads two sections that both
    state values of their own and neither's values are all among the other's, or, for a
    `prose` question, two sections that each explain in words of their own and mostly in
    different words; None otherwise. `runs`: the question's units, the located answer's and
    any other stretch under its label, in document order."""
    sections = _sections(text, qi, runs)
    if len(sections) < 2:
        return None
    givens = values_of(prompt)
    fences = fence_spans(text)
    answers: list[tuple[str | None, int, frozenset[Decimal]]] = []
    explained: list[tuple[str | None, int, frozenset[str]]] = []
    asked = _words_of(prompt)
    for part, section in sections:
        body = _body(text, section, fences)
        stated = values_of(body) - givens
        head = section[0]
        line = _line_of(text, head.mark.start if head.mark else head.start)
        if stated:
            answers.append((part, line, stated))
        words = _words_of(body) - asked
        if prose and len(words) >= MIN_PROSE_WORDS:
            explained.append((part, line, words))
    for k, (part, line, words) in enumerate(explained):
        for later_part, later_line, later in explained[k + 1:]:
            if part == later_part and len(words & later) < SAME_PROSE * min(len(words),
                                                                            len(later)):
                return (f"{question_id} is answered twice in words (under its label at line "
                        f"{line}, and again at line {later_line}, each in words of its own): "
                        "which answer does the student stand by, or do both count?")
    for k, (part, line, stated) in enumerate(answers):
        for other_part, other_line, other in answers[k + 1:]:
            if part == other_part and not stated <= other and not other <= stated:
                return (f"{question_id} is answered twice (under its label at line {line}: "
                        f"{_shown(stated)}; again at line {other_line}: {_shown(other)}): "
                        "which answer does the student stand by?")
    return None


MIN_PROSE_WORDS = 6  # content words of its own that make a section an explanation
SAME_PROSE = 0.6  # shared share of the shorter section's words: the same answer written twice
_WORD = re.compile(r"[A-Za-z]{4,30}")


def _words_of(text: str) -> frozenset[str]:
    """A passage's content words (four letters or more, lower case; a bounded pattern)."""
    return frozenset(w.lower() for w in _WORD.findall(text[:_SECTION_CHARS]))


def _shown(values: frozenset[Decimal]) -> str:
    shown = ", ".join(f"{v:,}" for v in sorted(values)[:4])
    return shown + (", ..." if len(values) > 4 else "")


__all__ = ["MAX_SECTIONS", "answered_twice", "values_of"]
