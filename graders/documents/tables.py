"""A Markdown table of answers whose first column numbers the questions: its header's first cell
says so ("Q", "Question", "#", "Problem", "No."), and each row starts with the number
(`| 3 | (a) | 0.00025 |`, `| 3(a) | 0.00025 |`). Any other table (a schedule's `| step | lr
|`) labels nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass

_TABLE_LINE = re.compile(r"[ \t]*\|")
_TABLE_HEAD = re.compile(
    r"[ \t]*\|[ \t]*(?:\*\*)?(?i:q|questions?|problems?|prob\.?|ex\.?|exercises?|tasks?|no\.?|#)"
    r"(?:\*\*)?[ \t]*\|")
_TABLE_RULE = re.compile(r"[ \t]*\|[ \t]*:?-{2,}")
# a row's number, alone or with its sub-part in the same cell (`| 4(a) |`, `| 4a |`,
# `| 4.b) |`): the answer then starts at the sub-part, so its marker stays a cue
_TABLE_ROW = re.compile(
    r"[ \t]*\|[ \t]*(?:\*\*)?(?i:q|question[ \t]*)?(\d{1,2})"
    r"(?:[.)]|(?P<part>[ \t]?\.?(?:\([a-h]\)|[a-h](?:[.)])?)))?(?:\*\*)?[ \t]*\|")


@dataclass
class AnswerTable:
    """The table of answers being read, line by line: whether one is open, and the number of
    its last row."""

    open: bool = False
    number: int | None = None


def table_row(text: str, line_start: int, table: AnswerTable
              ) -> tuple[int, int] | tuple[()] | None:
    """For a line of a table of answers, the label its row opens, as (where its answer starts,
    question number); `()` for a line that opens no label (the header, the rule, a row that
    continues the previous row's question: `| 3 | (a) |` then `| 3 | (b) |`); None for a line
    that is no line of a table of answers (which ends the table, if one was open)."""
    if not _TABLE_LINE.match(text, line_start):
        table.open, table.number = False, None
        return None
    if not table.open:
        if _TABLE_HEAD.match(text, line_start):
            table.open = True
            return ()
        return None  # another table: its rows are read as any line
    if _TABLE_RULE.match(text, line_start):
        return ()
    m = _TABLE_ROW.match(text, line_start)
    if m is None:
        return None
    number = int(m.group(1))
    if table.number == number:
        return ()
    table.number = number
    start = m.start("part") if m.group("part") else m.end()
    return start, number


# bold or underline markup opening or closing a cell (`| **4(b)** |`)
_CELL_MARKUP = re.compile(r"(?:(?<=\|)|^)[ \t]*(?:\*\*|__)|(?:\*\*|__)(?=[ \t]*(?:\||$))")


def plain_rows(answer: str) -> str:
    """An answer read from a table of answers, its table markup blanked out: the pipes, a
    cell's bold, and the question number opening each later row (`| 4(b) |`, whose sub-part
    stays), so that `(a) | N = V*d |` then `| 4(b) | 131,072,000 |` reads `(a)   N = V*d`,
    `   (b)   131,072,000`. Each character keeps its place: offsets into the answer still point
    into the document."""
    lines = answer.split("\n")
    out = [_blank(lines[0])]
    for line in lines[1:]:
        m = _TABLE_ROW.match(line)
        if m is not None:
            cut = m.start("part") if m.group("part") else m.end()
            line = " " * cut + line[cut:]
        out.append(_blank(line) if m is not None or _TABLE_LINE.match(line) else line)
    return "\n".join(out)


def _blank(line: str) -> str:
    line = _CELL_MARKUP.sub(lambda m: " " * len(m.group(0)), line)
    return line.replace("|", " ")


def only_table_head(piece: str) -> bool:
    """A paragraph that is only the header (and rule) of a table of answers: it answers nothing,
    and is no part of the answer written before the table."""
    lines = piece.strip().split("\n")
    return bool(_TABLE_HEAD.match(lines[0])) and all(_TABLE_RULE.match(x) for x in lines[1:])
