"""Fenced code in a document, and the prose part of an answer that runs into it.

Code is never the answer to a question that asks for prose, a value or a derivation. In a
notebook every code cell is fenced, and a question's answer cell is followed by the code cells of
the next task: the answer ends where the first of them starts, and a question with only code
under its label has no answer. Elsewhere code under such a question is weak evidence.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from graders.documents.handout import is_handout, prompt_overlap, prompt_words
from graders.documents.model import LocatedAnswer
from graders.documents.notebook import OUTPUT, Cell
from graders.documents.printed_written import PRINTED
from graders.documents.strength import CODE_FOR_PROSE, weak
from graders.rubric_model import Question

_FENCE_LINE = re.compile(r"```")  # an odd count on a line opens or closes a fence
# an answer marker (a cell's own "Your answer:", or a rendered answer cell's "Answer:")
_MARKER = re.compile(r"(?im)^\W{0,12}(?:(?:my|your|our|final)[ \t]+)?answer\W{0,4}:")
# a markdown cell that opens with a heading (cells are joined by a blank line)
_HEADING_CELL = re.compile(r"(?:^|(?<=\n\n))#{1,6}[ \t]")
MAX_FENCES = 4000
# kinds whose answer is never code ("mixed" answers may hold code beside prose)
NOT_CODE = frozenset({"prose", "numeric", "derivation"})
CODE_SHARE = 0.8  # of an answer's characters in fences: a code answer


def fence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every fenced block, its fence lines included, in order."""
    spans: list[tuple[int, int]] = []
    opened: int | None = None
    for count, m in enumerate(_FENCE_LINE.finditer(text)):
        if count >= MAX_FENCES:
            break
        if opened is None:
            opened = m.start()
        else:
            newline = text.find("\n", m.end())
            end = len(text) if newline < 0 else newline
            if text.find("\n", opened, m.start()) < 0:
                opened = None  # ```inline``` on one line: no fence
                continue
            spans.append((opened, end))
            opened = None
    if opened is not None:
        spans.append((opened, len(text)))
    return spans


def _code_chars(spans: Sequence[tuple[int, int]], start: int, end: int) -> int:
    k = max(0, bisect.bisect_right([s for s, _ in spans], start) - 1)
    total = 0
    for s, e in spans[k:]:
        if s >= end:
            break
        total += max(0, min(e, end) - max(s, start))
    return total


def prose_of(
    text: str, answer: LocatedAnswer, question: Question,
    spans: Sequence[tuple[int, int]], notebook: bool,
) -> LocatedAnswer | None:
    """The answer without the code a prose, numeric or derivation question does not ask for;
    None when, in a notebook, code follows the question's label (or answer marker) directly."""
    if question.answer_kind not in NOT_CODE or answer.start is None or answer.end is None:
        return answer
    start, end = answer.start, answer.end
    if _code_chars(spans, start, end) == 0 and not notebook:
        return answer
    if not notebook:
        if _code_chars(spans, start, end) >= CODE_SHARE * max(1, len(text[start:end].strip())):
            return weak(answer, CODE_FOR_PROSE)
        return answer
    for s, e in spans:
        if e <= start:
            continue
        if s >= end:
            break
        if not text[start:s].strip():
            # code right under the question: its answer cell is empty or absent, unless a
            # value is asked and the code printed one
            return _output_answer(text, answer, question, spans, s, end)
        if question.answer_kind == "numeric" and not re.search(r"\d", text[start:s]):
            # a sentence with no value ("I just run Adam for two steps."), then the code that
            # prints the values: what it printed is the answer
            printed = _output_answer(text, answer, question, spans, s, end)
            if printed is not None:
                return printed
        parts = _printed_parts(text, spans, s, end, text[start:s])
        if parts is not None:
            # the later sub-parts printed by the code right after the answer cell, `(b) F =
            # 2147483648`: they are the answer's, as if written
            body = text[start:s].strip()
            return replace(answer, text=f"{body}\n{parts[0]}", start=start, end=parts[1],
                           note="; ".join(n for n in (answer.note, PRINTED_PARTS) if n))
        end = s  # the answer cell ends where the next code cell starts
        break
    heading = _next_section(text, start, end, answer.label or "")
    if heading is not None:
        # a heading cell opens the next section: an answer cell never starts with one
        if not text[start:heading.start()].strip():
            return None
        end = heading.start()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start >= end:
        return None
    note = "; ".join(n for n in (answer.note, "code cells after the answer left out") if n)
    return replace(answer, text=text[start:end], start=start, end=end, note=note)


# a heading that names a sub-part (`### Q1 (b)`, `### 1b`, `### (b)`): its number, its letter
_SUBPART_HEADING = re.compile(
    r"#{1,6}[ \t]*(?:\*\*)?(?:(?:Q|Question|Problem|Exercise|Task)[ \t.]{0,2})?(\d{1,2})?"
    r"[ \t.\-]{0,2}\(?([a-h])\)?(?:\*\*)?[ \t]*(?:\n|$)", re.IGNORECASE)
_NUMBER = re.compile(r"\d{1,2}")


def _next_section(text: str, start: int, end: int, label: str) -> re.Match[str] | None:
    """The first heading cell in `text[start:end]` that opens another section: a heading that
    only names a sub-part of the answer's own question (`### Q1 (b)` under `### Q1 (a)`, one
    cell per sub-part) goes on with the answer."""
    own = _NUMBER.search(label)
    for heading in _HEADING_CELL.finditer(text, start, end):
        sub = _SUBPART_HEADING.match(text, heading.start(), min(end, heading.start() + 80))
        if sub is None or (sub.group(1) is not None
                           and (own is None or sub.group(1) != own.group(0))):
            return heading
    return None


FROM_OUTPUT = "read from the output of the code under the question (no written answer)"


PRINTED_PARTS = "later sub-parts read from the output of the code after the answer"
# a printed line that opens with a later sub-part's marker: `(b) F = ...`, `c) ratio: ...`
_PRINTED_PART = re.compile(r"[ \t]*(?:\(([b-h]|ii|iii|iv|v)\)|([b-h])[).:])[ \t]")


def _printed_parts(text: str, spans: Sequence[tuple[int, int]], first: int, end: int,
                   written: str) -> tuple[str, int] | None:
    """The output lines (without their `Out: ` prefix) of the code cell at `first`, and where
    they end, when some open with a later sub-part's marker the written answer does not have."""
    cell = next(((s, e) for s, e in spans if s == first), None)
    if cell is None:
        return None
    lines: list[str] = []
    cursor = cell[1]
    while text.startswith("\n" + OUTPUT, cursor) and cursor < end:
        stop = text.find("\n", cursor + 1)
        stop = end if stop < 0 else min(stop, end)
        lines.append(text[cursor + 1 + len(OUTPUT):stop])
        cursor = stop
    marks = [m for m in (_PRINTED_PART.match(line) for line in lines) if m is not None]
    fresh = [m for m in marks if f"({m.group(1) or m.group(2)})" not in written
             and f"{m.group(1) or m.group(2)})" not in written]
    if not fresh:
        return None
    return "\n".join(line.strip() for line in lines), cursor


def _output_answer(text: str, answer: LocatedAnswer, question: Question,
                   spans: Sequence[tuple[int, int]], first: int, end: int
                   ) -> LocatedAnswer | None:
    """A numeric question answered by code cells whose short output (`Out: 2097152`) follows
    them, before the next cell that is not code: the last such cell's output, every line of it
    (`print('NLL', nll)` and `print('PPL', ppl)` answer two items), as weak evidence (the
    printed value may be an intermediate one)."""
    if question.answer_kind != "numeric":
        return None
    lines: list[tuple[int, int]] = []
    cursor = first
    for s, e in spans:
        if s < first:
            continue
        if s >= end or text[cursor:s].strip():
            break  # the code cells under the question end at the first other cell
        cursor = e
        cell: list[tuple[int, int]] = []
        while text.startswith("\n" + OUTPUT, cursor) and cursor < end:
            stop = text.find("\n", cursor + 1)
            stop = end if stop < 0 else min(stop, end)
            cell.append((cursor + 1, stop))
            cursor = stop
        lines = cell or lines
    if not lines:
        return None
    start, stop = lines[0][0], lines[-1][1]
    found = replace(answer, text=text[start:stop], start=start, end=stop,
                    note="; ".join(n for n in (answer.note, FROM_OUTPUT) if n))
    return weak(found, FROM_OUTPUT)


# a question's own cell: the answer of a student who wrote under the label in the same cell
SAME_CELL = ("found in the question's own cell (no answer cell follows it), and it reads in part "
             "as the question: it may be the handout's wording")
OWN_CELL = ("found in the question's own cell (no answer cell follows it); the rubric gives no "
            "prompt for this question, so its text cannot be told from the handout's")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
MAX_OWN_PARAGRAPHS = 40


def _own_answer(body: str, words: frozenset[str]) -> int | None:
    """Where the student's text starts in the rest of a question's own cell (`body`, after its
    label): 0 when the label is followed by the student's words, the offset of the first
    paragraph that does not read as the handout's question, None when the cell holds only the
    question (its answer is the next cell)."""
    at = 0
    for k, gap in enumerate(_PARAGRAPH.finditer(body + "\n\n")):
        paragraph = body[at:gap.start()]
        if k >= MAX_OWN_PARAGRAPHS:
            return None
        said = paragraph.strip()
        if said and not said.endswith("?") and not is_handout(said, words):
            return at
        at = gap.end()
    return None


def _written(kind: str) -> bool:
    """Whether a cell is rendered as markdown: the student's, or printed answer lines."""
    return kind == "markdown" or kind.startswith(PRINTED)


def after_question_cells(
    text: str, answers: dict[str, LocatedAnswer], cells: Sequence[Cell],
    questions: Mapping[str, Question],
) -> None:
    """In a notebook the markdown cell that asks a question (its label and statement) is not
    the answer: an answer found inside its own label's cell starts at the next cell, unless the
    cell itself holds an answer marker ("Your answer: ..."), or the student wrote under the
    label in that cell and no written cell follows (a prose, value or derivation question only;
    text that neither asks nor reads as the handout). Such text is strong only where the rubric
    gives the question's prompt and the text does not repeat it; otherwise it goes to review."""
    starts = [s for s, _, _ in cells]
    for qid, answer in list(answers.items()):
        if answer.method != "label" or answer.start is None or answer.end is None:
            continue
        k = bisect.bisect_right(starts, answer.start) - 1
        if k < 0:
            continue
        cell_start, cell_end, kind = cells[k]
        if not _written(kind) or answer.start <= cell_start or answer.start >= cell_end:
            continue
        if _MARKER.search(text, cell_start, answer.start):
            continue
        # a template's answer cell follows its question cell: the question's own text is the
        # answer only where no written cell follows it under the label
        follows = any(_written(kind_j) and text[s_j:e_j].strip()
                      for s_j, e_j, kind_j in cells[k + 1:] if s_j < answer.end)
        question = questions.get(qid)
        words = prompt_words(question.prompt) if question is not None else frozenset()
        # Where no cell follows within the answer, moving on would leave it empty: the cell's
        # own text is read, whatever the kind (a mixed answer under a sub-part marker, "(a)").
        last = k + 1 >= len(cells) or cells[k + 1][0] >= answer.end
        own = None if follows or question is None or (
            question.answer_kind not in NOT_CODE and not last) \
            else _own_answer(text[answer.start:cell_end], words)
        if own is not None:
            start = answer.start + own
            kept = replace(answer, start=start, text=text[start:answer.end])
            plain = own == 0 and bool(words) and prompt_overlap(text[start:cell_end], words) < 0.8 \
                and question is not None and question.answer_kind in NOT_CODE
            answers[qid] = kept if plain else weak(kept, SAME_CELL if words else OWN_CELL)
            continue
        start = cells[k + 1][0] if k + 1 < len(cells) else answer.end
        answers[qid] = replace(answer, start=min(start, answer.end),
                               text=text[min(start, answer.end):answer.end])


__all__ = ["after_question_cells", "fence_spans", "prose_of"]
