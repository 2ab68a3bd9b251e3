"""Label paths: which rubric questions a label names, and how a document's numbering runs.

A path is (part, number, letter, roman). Labels from the document's outline (`structure.py`)
arrive with their full path; labels found in the text are read in the context of the last
outline label and of the numbering so far.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graders.documents.assign import EXACT, LETTER_ONLY, PARENT, SUBPART, Path
from graders.documents.labels import LETTERS, ROMANS, WORDED, LabelMark
from graders.rubric_model import Question

_LABEL_KEY = re.compile(
    r"^(?:([a-h])(?=\d))?(?:inlinequestion|q|question|problem|exercise|ex|task)?(\d{1,2})"
    r"([a-h])?(viii|vii|vi|iv|ix|iii|ii|i|v|x)?$"
)


def question_keys(question: Question) -> list[Path]:
    """The label paths a question answers to, from its id and its declared labels."""
    keys: list[Path] = []
    for label in (question.id, *question.labels):
        compact = re.sub(r"[^a-z0-9]", "", label.lower())
        m = _LABEL_KEY.match(compact)
        if m:
            part = m.group(1).upper() if m.group(1) else None
            key: Path = (part, int(m.group(2)), m.group(3), m.group(4))
            if key not in keys:
                keys.append(key)
    if question.part and keys:
        keys = [(k[0] or None, k[1], k[2], k[3]) for k in keys]
    return keys


def _seq(path: Path) -> list[object]:
    out: list[object] = []
    for value in path[1:]:
        if value is None:
            break
        out.append(value)
    return out


def path_match(path: Path, keys: Sequence[Path], question_part: str) -> float:
    best = 0.0
    for key in keys:
        unit_part, key_part = path[0], key[0]
        if unit_part and key_part and unit_part != key_part:
            continue
        if unit_part and not key_part and question_part and unit_part != question_part.upper():
            continue
        unit_seq, key_seq = _seq(path), _seq(key)
        if not unit_seq and path[1] is None and path[2] is not None and key[2] == path[2]:
            # "(d)" with no question number before it: the letter of some question; order and
            # content decide which
            if path[3] is None or path[3] == key[3] or key[3] is None:
                best = max(best, LETTER_ONLY)
            continue
        if not unit_seq or not key_seq:
            continue
        if unit_seq == key_seq:
            score = EXACT
        elif unit_seq[: len(key_seq)] == key_seq:
            score = SUBPART
        elif key_seq[: len(unit_seq)] == unit_seq:
            score = PARENT
        else:
            continue
        best = max(best, score)
    return best


def _next_letter(letter: str | None) -> str:
    return "a" if letter is None else chr(ord(letter) + 1)


def _roman_index(roman: str | None) -> int:
    return -1 if roman is None else ROMANS.index(roman)


_EMPTY_HEADING = 80  # characters between a letter label and its first numbered sub-part


def _opens_subparts(
    mark: LabelMark, accepted: Sequence[tuple[LabelMark, Path]], text: str | None
) -> bool:
    """A "1)" whose previous label is a letter heading with nothing written under it."""
    if text is None or mark.num != 1 or not accepted:
        return False
    previous, path = accepted[-1]
    if path[2] is None or path[3] is not None or previous.num is not None:
        return False
    between = mark.start - previous.end
    # a heading's own markup may trail its label (`$(b)$`, `**(b)**:`); nothing else may
    gap = text[previous.end:mark.start]
    return 0 <= between <= _EMPTY_HEADING and not gap.strip(" \t\r\n$*_:.")


def resolve_paths(
    marks: Sequence[LabelMark], text: str | None = None
) -> list[tuple[LabelMark, Path]]:
    """Follow the numbering through the document; drop labels that do not continue it.

    Dropped: inline labels out of sequence, and a number stepping back to one already answered
    ("2) ..." in a list inside 3(b), after 2(d)-(g) were answered): an enumeration, not a
    question. A step back to a number not seen yet (A3 before A2) and a restart at 1 (part B)
    are kept. Numbers that start at 1 right under a letter heading with no text of its own
    ("(b)" then "1) ...", "2) ..." or "(1) ...", "(2) ...") number that letter's sub-parts
    (needs `text`); a line-opening "(1)" anywhere else is an equation number and is dropped.
    """
    part: str | None = None
    num: int | None = None
    letter: str | None = None
    roman: str | None = None
    visited: set[tuple[str | None, int]] = set()
    accepted: list[tuple[LabelMark, Path]] = []
    # the level the last outline label set: a label in its text must be deeper ("i." under a
    # lettered subsection) or it is an enumeration inside the answer, not a new question
    outline_level = 0
    letter_indent: int | None = None  # indentation of the list item that set the letter
    numbered_subparts = False  # "1)", "2)" under the current letter are its sub-parts
    for mark in marks:
        if mark.heading:
            part, num, letter, roman = mark.part, None, None, None
            outline_level = 0
            accepted.append((mark, (part, None, None, None)))
            continue
        if mark.structural:
            new: Path = (mark.part or part, mark.num if mark.num is not None else num,
                         mark.letter, mark.roman)
            part, num, letter, roman = new
            outline_level = mark.level or 0
            if num is not None:
                visited.add((part, num))
            accepted.append((mark, new))
            continue
        m_letter, m_roman = mark.letter, mark.roman
        if (mark.num is not None and m_letter is None and m_roman is None and letter is not None
                and 1 <= mark.num <= len(ROMANS) and not mark.inline
                and (_opens_subparts(mark, accepted, text)
                     or (numbered_subparts and mark.num == _roman_index(roman) + 2))):
            numbered_subparts = True
            roman = ROMANS[mark.num - 1]
            accepted.append((mark, (part, num, letter, roman)))
            continue
        if mark.paren:
            continue  # "(1)" elsewhere numbers an equation, not a question
        if (mark.num is not None and m_letter is None and m_roman is None and letter is not None
                and letter_indent is not None and mark.bullet and mark.indent > letter_indent
                and 1 <= mark.num <= len(ROMANS)):
            # a numbered item nested under a lettered one is that letter's sub-part
            roman = ROMANS[mark.num - 1]
            accepted.append((mark, (part, num, letter, roman)))
            continue
        if mark.depth <= outline_level and (mark.inline or mark.num is None or (
                not mark.declared and WORDED.match(mark.raw) is None)):
            # a label inside an outline heading's text must be deeper, unless it names a
            # question in words ("**Inline Question 2**" after "## Inline Question 1")
            continue
        if mark.num is None and m_letter is None and m_roman == "i" and letter == "h":
            m_letter, m_roman = "i", None  # after (h) an "(i)" is the next letter
        if mark.prose and (mark.part is not None or (part, mark.num) in visited
                           or not 1 <= (mark.num or 0) - (num or 0) <= 2):
            continue  # a number before prose labels only the next question (or the one after)
        if mark.num is not None:
            new = (mark.part or part, mark.num, m_letter, m_roman)
            # a question named in words at a line's start is a question even when it steps
            # back (`**Q2** Correction: ...` after Q4: the student revisits Q2)
            revisit = not mark.inline and (mark.declared or WORDED.match(mark.raw) is not None)
            if (num is not None and 1 < mark.num < num and mark.part is None
                    and (part, mark.num) in visited and not revisit):
                continue
        elif m_letter is not None:
            expected = _next_letter(letter)
            gap = ord(m_letter) - ord(expected)
            # the first letter under a number may be any (answers start at "(d)" when (a)-(c)
            # asked for nothing written); after that, letters step forward
            allowed = gap == 0 if mark.inline else (
                0 <= gap <= 2 or m_letter == "a" or letter is None)
            if not allowed or m_letter not in LETTERS:
                continue
            new = (part, num, m_letter, m_roman)
        else:
            gap = _roman_index(m_roman) - (_roman_index(roman) + 1)
            allowed = gap == 0 if mark.inline else (0 <= gap <= 1 or m_roman == "i")
            if not allowed:
                continue
            new = (part, num, letter, m_roman)
        if new[2] is not None and new[2] != letter:
            letter_indent = mark.indent if mark.bullet else None
            numbered_subparts = False
        part, num, letter, roman = new
        if num is not None:
            visited.add((part, num))
        accepted.append((mark, new))
    return accepted
