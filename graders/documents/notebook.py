"""A Jupyter notebook as the text location reads: its cells in order, answer cells made plain.

Course notebooks ask a question in a markdown cell ("**Inline Question 1** ... explain ...") and
leave an answer cell after it that starts with a marker: `**Your Answer:**`,
`$\\color{blue}{\\textit Your Answer:}$`, `Answer:`. Such a cell is rendered as `Answer: <text>`
(the location's answer-marker convention: what lies between the question's label and the marker
is the question), and a template left as handed out (the marker alone, or with "*fill this in*")
as `Answer:` with nothing after it, which location reports as unanswered. Code cells are fenced
(their comments are never labels or prose answers). Cells and their text are capped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from graders.documents.markdown_source import rendered_text
from graders.documents.printed_labels import (
    MAX_PRINTED,
    MAX_READ_CHARS,
    MAX_READ_LINES,
    Printed,
    heading_form,
    labelled,
    over_printed,
    render_printed,
    split_printed,
)
from graders.documents.printed_written import PRINTED

MAX_CELLS = 2000
MAX_CELL_CHARS = 60_000
MAX_MARKER_LINES = 400  # lines of a markdown cell searched for an answer marker
_HEAD = 120  # characters of a cell searched for its answer marker
_ANSWER_WORD = re.compile(r"(?:(?:my|your|our|final|student'?s?)[ \t]{1,3})?answer", re.IGNORECASE)
_COMMAND = re.compile(r"\\[A-Za-z]{1,12}(?:\{[A-Za-z]{0,12}\})?")
_MARKUP = re.compile(r"[\s${}*_>#]*")
_AFTER_MARK = re.compile(r"[ \t]{0,3}[}*_$]{0,6}[ \t]{0,3}:?[ \t]{0,3}[}*_$]{0,6}[ \t]{0,3}:?")
_PLACEHOLDER = re.compile(
    r"[\W_]*(?:(?:please[ \t]+)?(?:fill[ \t]+(?:this|it)[ \t]+in|(?:write|type|put)[ \t]+your"
    r"[ \t]+answer[ \t]+here|your[ \t]+answer[ \t]+(?:goes[ \t]+)?here|todo|tbd))?[\W_]*",
    re.IGNORECASE,
)
ANSWER = "Answer:"


def answer_cell(source: str, start: int = 0) -> str | None:
    """The text a student wrote after the answer marker opening a cell (or its line at
    `start`): "" for an untouched template, None when there is no marker there."""
    head = source[start:start + _HEAD]
    found = _ANSWER_WORD.search(head)
    if found is None:
        return None
    before = _COMMAND.sub("", head[:found.start()])
    if _MARKUP.fullmatch(before) is None:
        return None
    after = _AFTER_MARK.match(source, start + found.end())
    end = after.end() if after else start + found.end()
    if ":" not in source[start + found.end():end]:
        return None  # "Answer the following" is the question's voice, not a marker
    rest = source[end:].strip()
    if len(rest) <= 200 and _PLACEHOLDER.fullmatch(rest) is not None:
        return ""
    return rest


_WORD_ANSWER = re.compile("answer")


def _with_plain_marker(source: str) -> str:
    """The cell with its first answer-marker line (at its start, or after the question in the
    same cell) as `Answer: <text>`; the cell as it is when it has none. Only the lines where
    the word "answer" occurs are looked at."""
    lowered = source.lower()
    seen = -1
    for count, word in enumerate(_WORD_ANSWER.finditer(lowered)):
        if count >= MAX_MARKER_LINES:
            break
        start = lowered.rfind("\n", 0, word.start()) + 1
        if start == seen:
            continue
        seen = start
        answer = answer_cell(source, start)
        if answer is not None:
            before = source[:start].rstrip()
            marked = f"{ANSWER} {answer}".rstrip()
            return f"{before}\n\n{marked}" if before else marked
    return source.rstrip()


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    text = "".join(source) if isinstance(source, list) else str(source)
    return text[:MAX_CELL_CHARS]


# start, end in the rendered text, and "markdown", "code" or "printed:2" (answer lines a code
# cell prints for question 2, rendered as markdown: graders/documents/printed_labels.py)
Cell = tuple[int, int, str]

OUTPUT = "Out:"  # opens each line of a code cell's short text output, after its fence
MAX_OUTPUT_CHARS = 200
MAX_OUTPUT_LINES = 4


def _output_lines(cell: Mapping[str, Any]) -> tuple[list[str], int]:
    """A code cell's text output (printed, or the last expression's value), read up to
    `MAX_READ_CHARS`: its non-blank lines (at most `MAX_READ_LINES`) and its length."""
    raw = cell.get("outputs")
    if not isinstance(raw, list):
        return [], 0
    texts: list[str] = []
    for output in raw[:8]:
        if not isinstance(output, Mapping):
            continue
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            value = output.get("text", "")
        elif output.get("output_type") == "execute_result":
            data = output.get("data")
            value = data.get("text/plain", "") if isinstance(data, Mapping) else ""
        else:
            continue
        texts.append(("".join(value) if isinstance(value, list) else str(value))[:MAX_READ_CHARS])
    text = "\n".join(t.strip("\n") for t in texts if t.strip())
    lines = [line.strip() for line in text[:MAX_READ_CHARS].splitlines() if line.strip()]
    return lines[:MAX_READ_LINES], len(text)


def _outputs(cell: Mapping[str, Any]) -> tuple[str, list[Printed]]:
    """A code cell's short text output as `Out:` lines after its fence, and the answers it
    prints labelled by question and part as Markdown blocks (`printed_labels`). A value
    computed in the notebook (`print(8 * 512 ** 2)`) is how many students answer a numeric
    question. Longer outputs (tables, logs) are left out but for their labelled lines; every
    `Out:` line carries the prefix, so no output line reads as a label."""
    lines, length = _output_lines(cell)
    answers, rest = split_printed(lines)
    if rest:  # not every line names its question: a long output may be a log
        printed = sum(len(line) + 1 for line in rest)
        long = length > MAX_OUTPUT_CHARS and printed > MAX_OUTPUT_CHARS
        if long or len(rest) > MAX_OUTPUT_LINES:  # but for the parts it prints, `(b) 0.25`
            rest = [line for line in rest if labelled(line) is not None]
    shown = "".join(f"\n{OUTPUT} {line}" for line in rest)
    return shown, answers


def _last_heading_form(source: str, form: tuple[str, str] | None) -> tuple[str, str] | None:
    """The form of the last heading in a markdown cell that names a question by number; the
    one before when it has none."""
    for line in reversed(source.splitlines()[:MAX_MARKER_LINES]):
        found = heading_form(line) if line.startswith("#") else None
        if found is not None:
            return found
    return form


# a markdown line that names a question: `## Q2`, `**Question 2**`, `2.`, `3)`
_NAMES_QUESTION = re.compile(r"^[#*_ \t]{0,8}(?:(?:Q|Question|Problem|Exercise|Task|Part)"
                             r"[ \t]{0,2}(\d{1,3})|(\d{1,2})[.)])", re.IGNORECASE | re.MULTILINE)
# the heading printed answers get where no heading above names a question by number (only a
# title, `# Homework 4`, or a bold `**Q1**`): each other question's lines under `### Question 2`
_DEFAULT_HEADING = "### Question "


def _last_named(source: str, named: str) -> str:
    """The number of the last question a markdown cell names; `named` when it names none."""
    for found in _NAMES_QUESTION.finditer(source):
        named = (found.group(1) or found.group(2)).lstrip("0") or "0"
    return named


def render_cells(cells: Iterable[Mapping[str, Any]]) -> str:
    return render_notebook(cells)[0]


def render_notebook(cells: Iterable[Mapping[str, Any]]) -> tuple[str, tuple[Cell, ...]]:
    """The rendered text and where each of its cells lies in it."""
    blocks: list[str] = []
    kinds: list[str] = []
    form: tuple[str, str] | None = None  # how the last heading above names its question
    named = ""  # the last question a markdown cell above names ("" for none)
    printed_count = 0  # printed answer lines read so far, at most MAX_PRINTED
    for count, cell in enumerate(cells):
        if count >= MAX_CELLS:
            break
        kind = cell.get("cell_type")
        source = _source(cell)
        if kind == "markdown":  # as Jupyter shows it: an HTML comment shows nothing
            source = rendered_text(source)
        if not source.strip():
            continue
        if kind == "code":
            shown, answers = _outputs(cell)
            answers = answers[:max(0, MAX_PRINTED - printed_count)]
            printed_count += len(answers)
            if answers and blocks and kinds[-1] == "markdown":  # a heading over them all
                plain = over_printed(blocks[-1], {question for question, _, _ in answers})
                if plain is not None and form is not None:
                    blocks[-1], form = plain, (form[0], "")  # it names none of them now
            blocks.append("```python\n" + source.rstrip() + "\n```" + shown)
            kinds.append("code")
            if answers and form is None:
                form = (_DEFAULT_HEADING, named)
            printed = render_printed(answers, form) if answers else []
            if answers and form is not None:  # the last question printed is the one above now
                form = (form[0], answers[-1][0])
            blocks += [block for _, block in printed]
            kinds += [f"{PRINTED}:{question}" for question, _ in printed]
        elif kind == "markdown":
            blocks.append(_with_plain_marker(source))
            kinds.append("markdown")
            form = _last_heading_form(source, form)
            named = _last_named(source, named)
    spans: list[Cell] = []
    pos = 0
    for block, kind in zip(blocks, kinds, strict=True):
        spans.append((pos, pos + len(block), kind))
        pos += len(block) + 2
    return "\n\n".join(blocks), tuple(spans)


__all__ = ["ANSWER", "MAX_CELLS", "OUTPUT", "Cell", "answer_cell", "render_cells",
           "render_notebook"]
