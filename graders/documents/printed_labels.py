"""Answers a notebook prints, labelled by question and part: `2a 640.0`, `Q2(b): 260`,
`4c = 589824`, `Question 3 (a) 0.28`, or the part alone, `(a) 0.28`.

Students who compute their answers in a notebook often print them, one labelled line per part,
in one cell's output or several, under a heading that names several questions (`### 2, 3, 4
(computed)`). Each such line is that part's answer: the lines are rendered after the cell as
Markdown cells, a heading per question in the form of the notebook's own question headings (the
nearest heading above the cell: its `#` marks and the word before its number, `### `, `## Q`,
`### Question `), then `(a) 640.0` lines. A line counts only when its label names a part and
its value opens with a number (`2d array of shape` is no answer); a part alone stays an `Out:`
line, read with the written answer above the cell (`code_spans`). Only the first
`MAX_READ_LINES` lines and `MAX_READ_CHARS` characters of a cell's output are read, each line
cut to `_LINE` characters, and at most `MAX_PRINTED` labelled lines in a notebook; everything
else a cell prints (arrays, tracebacks, logs) is left out as before. The nearest heading's own
question gets no second heading (`### 2`, then a cell printing `2a`, `2b`).
"""

from __future__ import annotations

import re

MAX_READ_LINES = 60
MAX_READ_CHARS = 4000
MAX_PRINTED = 400  # printed answer lines read in a whole notebook
_LINE = 200
_VALUE = r"(?P<value>[-+−]?\.?\d[^\n]{0,80})"
_SEP = r"(?:[ \t]{0,3}[:=][ \t]{0,3}|[ \t]{1,3})"
_QUESTION = re.compile(
    r"(?:(?:Q|Question|Problem|Exercise)[ \t]{0,2})?(?P<q>\d{1,2})[ \t]{0,2}[.\-]?[ \t]{0,2}"
    r"(?:\((?P<p1>[a-h])\)|(?P<p2>[a-h])\b\)?)" + _SEP + _VALUE, re.IGNORECASE)
_PART = re.compile(r"\((?P<p>[a-h])\)" + _SEP + _VALUE, re.IGNORECASE)
_HEADING = re.compile(r"(#{1,6}[ \t]{1,3})((?:Q|Question|Problem|Exercise|Task)?[ \t]?)(\d{1,3})\b",
                      re.IGNORECASE)  # not `# Homework 4`: that number is the assignment's


_NAMED = re.compile(r"(?:(?:Q|Questions?|Problems?|Exercises?)[ \t]{0,2})?(\d{1,3})\b"
                    r"[ \t]{0,2}(?:[,&/\-–]|and\b)?[ \t]{0,2}", re.IGNORECASE)


def over_printed(block: str, questions: set[str]) -> str | None:
    """A heading naming several questions (`### 2, 3, 4 (computed)`, `## Q2-Q4`) right above a
    cell printing answers to some of them, without its numbers (`### (computed)`): the printed
    lines name their questions, the heading only groups them. None for any other block."""
    line = block.strip()
    found = _HEADING.match(line[:_LINE]) if "\n" not in line else None
    if found is None:
        return None
    title = line[len(found.group(1)):_LINE]
    named = [m.group(1).lstrip("0") for m in _NAMED.finditer(title)]
    if len(set(named)) < 2 or not questions & set(named):
        return None
    rest = _NAMED.sub("", title).strip()
    return f"{found.group(1)}{rest or 'Computed'}"


def heading_form(line: str) -> tuple[str, str] | None:
    """(`### `, `2`) for `### 2, 3, 4 (computed)`, (`### Question `, `1`) for `### Question
    1`: how the notebook's heading at `line` would name another question, and the question it
    names first; None when it is no heading or names no question by number."""
    found = _HEADING.match(line[:_LINE])
    if found is None:
        return None
    return found.group(1) + found.group(2), found.group(3).lstrip("0") or "0"


def labelled(line: str) -> tuple[str | None, str, str] | None:
    """(question number or None for a part alone, part letter, value) of a printed line."""
    line = line.strip()[:_LINE]
    found = _QUESTION.fullmatch(line)
    if found is not None:
        part = found.group("p1") or found.group("p2")
        return found.group("q").lstrip("0") or "0", part.lower(), found.group("value").strip()
    alone = _PART.fullmatch(line)
    if alone is not None:
        return None, alone.group("p").lower(), alone.group("value").strip()
    return None


Printed = tuple[str, str, str]  # question number, part letter, value


def split_printed(lines: list[str]) -> tuple[list[Printed], list[str]]:
    """The answers among a cell's output lines labelled by question and part, and the other
    lines (a part alone, `(b) 0.25`, among them: it is read with the answer above the cell,
    `code_spans`)."""
    answers: list[Printed] = []
    rest: list[str] = []
    for line in lines:
        found = labelled(line)
        if found is None or found[0] is None:  # a part alone is read with the answer above
            rest.append(line)
        else:
            answers.append((found[0], found[1], found[2]))
    return answers, rest


def render_printed(answers: list[Printed], form: tuple[str, str] | None
                   ) -> list[tuple[str, str]]:
    """The Markdown blocks for a cell's printed answers, each with the question it holds: per
    question a heading in the form of the notebook's heading above (none for that heading's own
    question) and a block of `(a) 640.0` lines (an answer cell, not the question's own: the
    lines are the student's); one block of `2(a) 640.0` lines (question "") when no heading
    form is given."""
    if form is None:
        return [("", "\n".join(f"{question}({part}) {value}"
                                for question, part, value in answers))]
    prefix, current = form
    blocks: list[tuple[str, str]] = [(current, "")]
    for question, part, value in answers:
        if question != current:
            blocks += [(question, f"{prefix}{question}"), (question, "")]
            current = question
        line = f"({part}) {value}"
        blocks[-1] = (question, f"{blocks[-1][1]}\n{line}" if blocks[-1][1] else line)
    return [(question, block) for question, block in blocks if block]


__all__ = ["MAX_PRINTED", "MAX_READ_CHARS", "MAX_READ_LINES", "Printed", "heading_form",
           "labelled", "over_printed", "render_printed", "split_printed"]
