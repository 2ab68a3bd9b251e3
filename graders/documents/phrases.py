"""Question labels written as phrases ("Inline Question 1", "Exercise 3.2", "Problem 2(b)",
"Problem Analysis") and headings that repeat a question's prompt.

A rubric label with a word in it is matched on the words and numbers of a line's start, whatever
the case, spacing, punctuation or markup around them: `## **Inline Question 1:**`, `- exercise
3.2)`, `PROBLEM 2 (b)`, a notebook's markdown cell. A heading or a bold or list line that repeats
most of a question's prompt names that question too (students paste the question as a heading
and answer under it). Each line is read once, cut to `_LINE_CAP` characters: linear and bounded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graders.documents.handout import prompt_overlap, prompt_words
from graders.documents.labels import toggles_fence
from graders.label_phrases import Phrase, expand, is_phrase, starts_with, words
from graders.rubric_model import Question

_LINE_CAP = 300
MAX_LINES = 20_000  # lines read for phrase labels; past this the rest of the document is prose
_WORDS = re.compile(r"[a-z]+|[0-9]+")
# where a prompt may be repeated as a label: a heading, a bold line, a list item
_PROMPT_LINE = re.compile(r"[ \t]{0,3}(?:#{1,6}[ \t]|\*\*|__|[-*+][ \t]|\d{1,2}[.)][ \t])")
PROMPT_SHARE = 0.5  # of the prompt's content words a line that asks must repeat
ALONE_SHARE = 0.8  # ... and a line without a question mark
MIN_PROMPT_WORDS = 4


@dataclass(frozen=True)
class PhraseMark:
    start: int  # the line's start
    end: int  # after the label (the rest of a label-only line is part of the label)
    raw: str
    question: int  # index of the question the phrase names
    by_prompt: bool = False


def _phrases(questions: Sequence[Question]) -> list[tuple[Phrase, int]]:
    out: list[tuple[Phrase, int]] = []
    for qi, question in enumerate(questions):
        for label in question.labels:
            if is_phrase(label):
                out.extend((phrase, qi) for phrase in expand(label))
    # the longest phrase first: "Problem 2 b" before "Problem 2"
    out.sort(key=lambda p: -len(p[0]))
    return out


def _label_end(text: str, line_start: int, line: str, length: int) -> int:
    """After the phrase's last token (and closing punctuation and emphasis) on the line."""
    end = 0
    for seen, m in enumerate(_WORDS.finditer(line.lower()), start=1):
        end = m.end()
        if seen == length:
            break
    while end < len(line) and line[end] in " \t:.)*_]}$-":
        end += 1
    return line_start + end


def phrase_marks(text: str, questions: Sequence[Question]) -> list[PhraseMark]:
    """The lines that open with a question's phrase label, or repeat its prompt, in order."""
    phrases = _phrases(questions)
    firsts = {p[0] for p, _ in phrases if not p[0].endswith("*")}
    loose = any(p[0].endswith("*") for p, _ in phrases)
    prompts = [(prompt_words(q.prompt), qi) for qi, q in enumerate(questions)
               if len(prompt_words(q.prompt)) >= MIN_PROMPT_WORDS]
    if not phrases and not prompts:
        return []
    marks: list[PhraseMark] = []
    in_fence = False
    pos = 0
    for _ in range(MAX_LINES):
        if pos >= len(text):
            break
        newline = text.find("\n", pos)
        line_end = len(text) if newline < 0 else newline
        line = text[pos:min(line_end, pos + _LINE_CAP)]
        if toggles_fence(line):
            in_fence = not in_fence
        elif not in_fence and line.strip() and "](#" not in line:
            # (a link into the document is a table of contents entry, not a label)
            mark = _match(text, pos, line, phrases if loose else _first(line, firsts, phrases),
                          prompts)
            if mark is not None:
                marks.append(mark)
        pos = line_end + 1
    return marks


def _first(
    line: str, firsts: set[str], phrases: list[tuple[Phrase, int]]
) -> list[tuple[Phrase, int]]:
    """The phrases only when the line's first or second word opens one (most lines: none)."""
    head = words(line, 60)[:2]
    return phrases if any(w in firsts for w in head) else []


def _match(
    text: str,
    pos: int,
    line: str,
    phrases: list[tuple[Phrase, int]],
    prompts: list[tuple[frozenset[str], int]],
) -> PhraseMark | None:
    found = words(line)
    # a list number before the phrase ("1. Problem Analysis") is the student's own numbering
    starts = (0, 1) if found and found[0].isdigit() else (0,)
    for phrase, qi in phrases:
        for skip in starts:
            if starts_with(found, phrase, skip):
                # a heading is a label as a whole (its title is not the answer)
                end = (pos + len(line) if line.lstrip().startswith("#")
                       else _label_end(text, pos, line, skip + len(phrase)))
                return PhraseMark(pos, end, line.strip()[:80], qi)
    if prompts and _PROMPT_LINE.match(line):
        scored = sorted(((prompt_overlap(line, w), qi) for w, qi in prompts), reverse=True)
        best, qi = scored[0]
        runner_up = scored[1][0] if len(scored) > 1 else 0.0
        # a pasted question asks ("...? (paragraph format)"); an answer that reuses the prompt's
        # words does not, and must repeat nearly all of them to count
        asks = "?" in line
        if (best >= (PROMPT_SHARE if asks else ALONE_SHARE) and best - runner_up >= 0.2):
            return PhraseMark(pos, pos + len(line), line.strip()[:80], qi, by_prompt=True)
    return None


__all__ = ["PhraseMark", "phrase_marks"]
