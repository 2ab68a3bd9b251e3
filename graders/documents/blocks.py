"""From text to scored-unit candidates: the document's labels (outline first, then the labels
written in the text), the handout text around them left out, cut into paragraphs.

Three kinds of handout text never become units: the statement before an answer marker
("Answer:", "My answer:", `\\begin{solution}`), the introduction of an outline heading whose
first child label follows (a section's preamble before its "(a)"), and the leading paragraphs
of a block that read as the question (`handout.is_handout`).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from graders.documents.assign import (
    DUPLICATE_RELIABILITY,
    INLINE_RELIABILITY,
    Path,
    Unit,
    names_its_number,
)
from graders.documents.handout import is_handout
from graders.documents.labels import LETTERS, ROMANS, WORDED, LabelMark, find_labels
from graders.documents.part_labels import as_questions, numbered_parts
from graders.documents.paths import resolve_paths
from graders.documents.structure import ANSWER_ENV, ANSWER_MARK, read_outline
from graders.documents.tables import only_table_head

# Location reads at most this much of a document; a solution set is 5-60 kB, and past the cap
# the rest is reported, not read (hostile uploads of megabytes of labels must stay bounded).
MAX_CHARS = 200_000
# Labels and paragraphs beyond these counts are merged into the unit before them: the
# assignment is quadratic in the questions and linear in the units, so this bounds its cost.
MAX_MARKS = 400
MAX_UNITS = 1200

_MARKER_LINE = re.compile(r"(?m)^[^\n]{0,160}")


@dataclass(frozen=True)
class Outline:
    accepted: list[tuple[LabelMark, Path]]
    intro: frozenset[int]  # indices in `accepted` whose own text is only an introduction
    answered: frozenset[int]  # indices whose statement ended at an answer marker
    handout_spans: tuple[tuple[int, int], ...]  # statements before an answer marker


def answer_markers(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line that opens an answer: "Answer:", `\\begin{solution}`, ..."""
    found: list[tuple[int, int]] = []
    for line in _MARKER_LINE.finditer(text):
        m = ANSWER_ENV.match(line.group(0)) or ANSWER_MARK.match(line.group(0))
        if m:
            found.append((line.start(), line.start() + m.end()))
    return found


def outline(
    text: str, depth: int = 3, named: Sequence[LabelMark] = (),
    prompted: Sequence[LabelMark] = (),
) -> Outline:
    """`depth`: the deepest level the rubric's questions have (see structure.scan). `named`:
    lines that open with a question's phrase label (they replace any other reading of their
    line); `prompted`: lines that repeat a question's prompt (used where nothing else labels
    the line)."""
    outline_marks, front = read_outline(text, depth)
    # a numbered list in front matter is a list of steps; a question named in words is a
    # question wherever it stands
    written = [m for m in find_labels(text)
               if not _inside(front, m.start) or WORDED.match(m.raw) is not None]
    parts = numbered_parts([*outline_marks, *written, *named, *prompted], text)
    outline_marks, written = as_questions(outline_marks, parts), as_questions(written, parts)
    in_words = named_in_words([*outline_marks, *named, *written], len(text))
    struct = one_family(_with_named(outline_marks, named, [m for m in prompted if m.structural]),
                        in_words)
    markers = answer_markers(text)
    marker_starts = [s for s, _ in markers]
    handout: list[tuple[int, int]] = []
    answered: set[int] = set()
    adjusted: list[LabelMark] = []
    for i, mark in enumerate(struct):
        block_end = struct[i + 1].start if i + 1 < len(struct) else len(text)
        k = bisect.bisect_left(marker_starts, mark.end)
        if k < len(markers) and markers[k][0] < block_end:
            handout.append((mark.end, markers[k][0]))
            mark = replace(mark, end=markers[k][1])
            answered.add(mark.start)
        adjusted.append(mark)
    heading_lines = [(m.start, m.end) for m in struct]
    starts = [s for s, _ in heading_lines]
    handout_starts = [s for s, _ in handout]

    def covered(pos: int) -> bool:
        k = bisect.bisect_right(starts, pos) - 1
        if k >= 0 and heading_lines[k][0] <= pos < heading_lines[k][1]:
            return True
        h = bisect.bisect_right(handout_starts, pos) - 1
        return h >= 0 and handout[h][0] <= pos < handout[h][1]

    plain = _prompted_first(
        [m for m in written if not covered(m.start)],
        [m for m in prompted if not m.structural and not covered(m.start)])
    marks = one_family(sorted(adjusted + plain, key=lambda m: m.start), in_words)
    marks = _statements(marks, markers, len(text), answered, handout)[:MAX_MARKS]
    accepted = resolve_paths(marks, text)
    intro: set[int] = set()
    for index, (mark, path) in enumerate(accepted[:-1]):
        if not mark.structural or mark.start in answered:
            continue
        following, child = accepted[index + 1]
        if _extends(child, path) and not opens_first_part(text[mark.end:following.start],
                                                          following) \
                and not _after_first_part(following):
            intro.add(index)
    marked = frozenset(i for i, (m, _) in enumerate(accepted) if m.start in answered)
    return Outline(accepted, frozenset(intro), marked, tuple(handout))


_FIRST_PART = re.compile(r"[ \t]*(?:\*\*|\\textbf\{)?\(?([a-h]|i{1,3}|iv|v)[.)]")


def _after_first_part(child: LabelMark) -> bool:
    """The first child label read is a later lettered sub-part (`(b)`, `(c)`): the text before
    it holds the earlier parts' answers (an align environment, its markers inside
    `\\text{(a)}`), no introduction. (A list's `(ii)` after an `\\item` not read as `(i)` is
    left to the introduction rule: its first item may hold the pasted question.)"""
    return child.roman is None and child.letter is not None and \
        child.letter.lower() in LETTERS[1:]


def opens_first_part(own: str, following: LabelMark) -> bool:
    """A heading's own text that opens with the sub-part before the next label's (`\\paragraph{2.}
    (a) ...` then `(b) ...` on a line of its own) is that first sub-part's answer, not the
    heading's introduction."""
    m = _FIRST_PART.match(own[:40])
    if m is None:
        return False
    if following.letter is not None and following.letter in LETTERS[1:]:
        return m.group(1) == LETTERS[LETTERS.index(following.letter) - 1]
    if following.roman is not None and following.roman in ROMANS[1:]:
        return m.group(1) == ROMANS[ROMANS.index(following.roman) - 1]
    return False


def _names_in_words(mark: LabelMark) -> bool:
    return mark.question is not None or (mark.num is not None and not mark.inline
                                         and WORDED.match(mark.raw) is not None)


def _statements(
    marks: list[LabelMark], markers: Sequence[tuple[int, int]], length: int,
    answered: set[int], handout: list[tuple[int, int]],
) -> list[LabelMark]:
    """A question named in words in the text ("**Inline Question 1**", "Q2.") whose block
    reaches an answer marker ("Your Answer:"): what lies between is the question, its own
    numbered points included; the answer starts after the marker."""
    # where each mark's block ends: the next structural or word-named label
    ends = [length] * len(marks)
    following = length
    for i in range(len(marks) - 1, -1, -1):
        ends[i] = following
        if marks[i].structural or _names_in_words(marks[i]):
            following = marks[i].start
    marker_starts = [s for s, _ in markers]
    out: list[LabelMark] = []
    skip_until = -1
    for i, mark in enumerate(marks):
        if mark.start < skip_until:
            continue  # a numbered point of a question statement
        k = bisect.bisect_left(marker_starts, mark.end)
        if (mark.structural or not _names_in_words(mark) or k >= len(markers)
                or markers[k][0] >= ends[i]):
            out.append(mark)
            continue
        handout.append((mark.end, markers[k][0]))
        answered.add(mark.start)
        out.append(replace(mark, end=markers[k][1]))
        skip_until = markers[k][1]
    return out


def _prompted_first(plain: list[LabelMark], prompted: list[LabelMark]) -> list[LabelMark]:
    """A line that repeats a question's prompt is read as that question's label (its own "2."
    agrees, or was a list number)."""
    taken = {m.start for m in prompted}
    return [m for m in plain if m.start not in taken] + prompted


def _inside(spans: Sequence[tuple[int, int]], pos: int) -> bool:
    """`spans`: sorted, not overlapping."""
    k = bisect.bisect_right(spans, (pos, len(spans) and spans[-1][1] + 1)) - 1
    return k >= 0 and spans[k][0] <= pos < spans[k][1]


def _with_named(
    struct: list[LabelMark], named: Sequence[LabelMark], prompted: Sequence[LabelMark]
) -> list[LabelMark]:
    taken = {m.start for m in named}
    kept = [m for m in struct if m.start not in taken]
    # a repeated prompt is better evidence than a heading counted in order
    labelled = {m.start for m in kept if not m.by_order} | taken
    kept = [m for m in kept if not (m.by_order and any(p.start == m.start for p in prompted))]
    extra = [m for m in prompted if m.start not in labelled]
    return sorted([*kept, *named, *extra], key=lambda m: m.start)


_BARE_NUMBER = re.compile(r"[^A-Za-z0-9\\]{0,16}\d")


def named_in_words(marks: Sequence[LabelMark], length: int) -> list[tuple[int, int]]:
    """The stretches of the document (between part headings: "Part B" starts its own
    numbering) that name their questions in words (a phrase label, "Q2.", "Question 1",
    "Inline Question 3") at a line's start; a table of answers' rows (`| Q3 |`) name only
    theirs."""
    ordered = sorted(marks, key=lambda m: m.start)
    bounds = [0] + [m.start for m in ordered if m.heading] + [length]
    marks_in_words = [m for m in ordered
                      if (m.question is not None and not m.prompted)
                      or (not m.inline and m.num is not None and not m.declared
                          and WORDED.match(m.raw))]
    worded = [m.start for m in marks_in_words]
    spans: list[tuple[int, int]] = []
    for low, high in itertools.pairwise(bounds):
        k = bisect.bisect_left(worded, low)
        if k < len(worded) and worded[k] < high:
            first = marks_in_words[k]
            # "1)" ... "5)", then "**Q6**": the student named the later questions in words,
            # and the numbers before the first of them are the earlier questions
            switched = (first.question > 0 if first.question is not None
                        else first.num is not None and first.num > 1)
            spans.append((first.start if switched else low, high))
    return spans


def one_family(marks: list[LabelMark], worded: Sequence[tuple[int, int]]) -> list[LabelMark]:
    """Where the document names its questions in words ("Question 1", "Q2.", a phrase label),
    a bare number opening a line or heading ("### 1. Learned embeddings", "2. Memory") numbers
    the points of an answer, not a question (a row of a table of answers still numbers its
    question), and headings counted in order number nothing."""
    if not worded:
        return marks
    return [m for m in marks
            if not _inside(worded, m.start) or (
                not (m.question is None and m.num is not None and m.letter is None
                     and m.roman is None and not m.inline and not m.by_order and not m.declared
                     and _BARE_NUMBER.match(m.raw) and not WORDED.match(m.raw))
                # nor does a heading counted in order ("# Multi-Head Attention" as question 2)
                and not (m.by_order and m.level == 1))]


def _extends(child: Path, parent: Path) -> bool:
    """A path one or more levels deeper than `parent`, under it."""
    depth = sum(1 for v in parent[1:] if v is not None)
    child_depth = sum(1 for v in child[1:] if v is not None)
    return child_depth > depth and child[1:1 + depth] == parent[1:1 + depth] and depth > 0


def paragraphs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    cursor = start
    for m in re.finditer(r"\n[ \t]*\n", text[start:end]):
        spans.append((cursor, start + m.start()))
        cursor = start + m.end()
    spans.append((cursor, end))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def units_of(
    text: str, shape: Outline, words_for: Callable[[Path], frozenset[str]]
) -> tuple[list[Unit], list[tuple[LabelMark, Path]]]:
    """One unit per label (its first answer paragraph) and one per paragraph after it; and the
    labels under which there is only the question's own wording."""
    only_handout: list[tuple[LabelMark, Path]] = []
    accepted = shape.accepted
    bounds: list[tuple[int, int, int | None]] = []
    starts = [m.start for m, _ in accepted] + [len(text)]
    if accepted and accepted[0][0].start > 0:
        bounds.append((0, accepted[0][0].start, None))
    elif not accepted:
        bounds.append((0, len(text), None))
    for i, (label, _path) in enumerate(accepted):
        bounds.append((min(label.end, starts[i + 1]), starts[i + 1], i))
    units: list[Unit] = []
    previous_path: Path | None = None
    head_unit: Unit | None = None
    in_words = False  # the number of the latest numbered label was written in words ("Q5")
    for start, end, index in bounds:
        pieces = [(s, e) for s, e in paragraphs(text, start, end)
                  if not only_table_head(text[s:e])]
        if index is None:
            units.extend(Unit(start=s, end=e, head=head_unit) for s, e in pieces)
            continue
        mark, path = accepted[index]
        if mark.num is not None:
            in_words = names_its_number(mark)
        if index in shape.intro:
            continue
        words = words_for(path)
        dropped = 1 if index in shape.answered else 0
        while pieces and is_handout(text[pieces[0][0]:pieces[0][1]], words):
            pieces.pop(0)
            dropped += 1
        if not pieces:
            if dropped:
                only_handout.append((mark, path))
            continue
        reliability = INLINE_RELIABILITY if mark.inline else 1.0
        head = Unit(start=pieces[0][0], end=pieces[0][1], mark=mark, path=path,
                    reliability=reliability, handout=dropped, in_words=in_words)
        if path == previous_path and units:
            head.reliability *= DUPLICATE_RELIABILITY
            for unit in reversed(units):
                if unit.mark is not None:
                    unit.reliability *= DUPLICATE_RELIABILITY
                    break
        previous_path = path
        units.append(head)
        head_unit = head
        units.extend(Unit(start=s, end=e, head=head_unit) for s, e in pieces[1:])
    units = _capped(units)
    following: Unit | None = None
    for unit in reversed(units):
        if unit.mark is not None:
            following = unit
        else:
            unit.next_head = following
    return units, only_handout


def _capped(units: list[Unit]) -> list[Unit]:
    """Past MAX_UNITS, paragraphs join the labelled unit before them, then everything left
    joins the last unit kept."""
    if len(units) <= MAX_UNITS:
        return units
    merged: list[Unit] = []
    for unit in units:
        if merged and unit.mark is None:
            merged[-1].end = unit.end
        else:
            merged.append(unit)
    if len(merged) > MAX_UNITS:
        merged[MAX_UNITS - 1].end = merged[-1].end
        merged = merged[:MAX_UNITS]
    return merged
