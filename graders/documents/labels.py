"""Find the question labels students write: `Q1`, `1.`, `B2)`, `1) a) i)`, `\\textcircled{b}`, ...

A label is a group of up to four levels (part, number, letter, roman numeral). Labels at the
start of a line are trusted more than labels found inside a line after punctuation ("... cov.ii.)
Since"), which the locator keeps only when they continue the current numbering.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from graders.documents.ocr_numbers import prose_number
from graders.documents.tables import AnswerTable, table_row

# Labels read per document (line and inline each): bounds the work on hostile input.
MAX_LABELS = 2000
ROMANS = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
LETTERS = "abcdefgh"


def place_in_run(label: str, kind: str) -> int | None:
    """A sub-part marker's place in a run of its kind, counting from 1 (`kind`: "number",
    "letter" a-h or "roman" i-x; a-h and i-x share only "i", read as its kind says)."""
    if kind == "number":
        return int(label) if label.isdigit() else None
    if kind == "letter":
        return LETTERS.index(label) + 1 if len(label) == 1 and label in LETTERS else None
    return ROMANS.index(label) + 1 if label in ROMANS else None


@dataclass(frozen=True)
class LabelMark:
    start: int  # where the label (with its line prefix) starts in the document
    end: int  # where the answer text after the label starts
    raw: str
    part: str | None = None
    num: int | None = None
    letter: str | None = None
    roman: str | None = None
    inline: bool = False
    # columns of indentation before a list item's bullet: a deeper item sits under the label
    # of a shallower one ("- (b)" then "  - (1)": the (1) is b's first sub-part)
    indent: int = 0
    bullet: bool = False
    heading: bool = False  # "Part B" on its own: sets the part, answers nothing
    # from the document's outline (a LaTeX section, an exam-class part, a Markdown heading, an
    # enumerate item): its path is already resolved, and `level` is the role it sets
    # (1 number, 2 letter, 3 roman)
    structural: bool = False
    level: int | None = None
    # "(1)" opening a line (no bullet): an equation number almost everywhere, a label only where
    # it numbers the sub-parts of a letter heading with nothing of its own (paths.resolve_paths)
    paren: bool = False
    # a heading whose path comes from counting headings in order, not from a label it carries:
    # weak evidence (the answer goes to review)
    by_order: bool = False
    # the question a rubric's phrase label or a repeated prompt names (its index in the rubric)
    question: int | None = None
    prompted: bool = False  # named by repeating the question's prompt, not by a label
    # a bare number opening a paragraph before prose (`7 during training ...`, how an OCR
    # transcript of a handwritten page numbers its answers): a label only where it continues
    # the numbering (paths.resolve_paths)
    prose: bool = False
    # names its question by its form though not in words: a row of a table of answers, a
    # "Part N" heading read as question N (`part_labels.py`); as strong as "Question N"
    declared: bool = False

    @property
    def depth(self) -> int:
        """The shallowest level this label sets (0 part, 1 number, 2 letter, 3 roman)."""
        if self.heading:
            return 0
        if self.num is not None:
            return 1
        if self.letter is not None:
            return 2
        return 3


# a question label that names its kind of question in words: "Q2.", "Question 1", "Problem 7",
# "Exercise 3", "Inline Question 2", "Answer 2", "Solution 3" (after any heading, list or
# emphasis markup)
WORDED = re.compile(
    r"[^A-Za-z0-9]{0,16}(?:inline[ \t]+)?(?:q(?=[ \t.]{0,2}\d)|question|problem|prob\.|"
    r"exercise|ex\.|task|answer|ans\.|solution)[ \t.]{0,2}\d",
    re.IGNORECASE,
)
# list bullets, quotes, headings, maths and emphasis that may open a label's line:
# "- **(a)**", "\\noindent\\textbf{(b)}", "> (c)", "$$1.", "__Q2__"
_LINE_PREFIX = re.compile(
    r"(?:[ \t]*(?:\$\$|\$|\\\[|[-*=]{2,12}|[-*•>]|#{1,6}|\*\*|__|_|\\noindent|"
    r"\\(?:textbf|textit|emph|underline|mathbf)\{)[ \t]*){0,4}"
)
# emphasis closing right after a label ("**(a)**", "\\textbf{Q1.}:")
_CLOSE = re.compile(r"(?:\}|\*\*|\*|__|_|\$)?(?:[ \t]*[:.])?")
_SEP = r"(?:[ \t]|\\quad|\\qquad|~)*"
_PART_HEADING = re.compile(
    r"(?i:part|section)[ \t]+([A-Z]|[0-9]{1,2}|I{1,3}V?)\b[ \t]*[:.)\-]?", re.ASCII
)
_CIRCLED = re.compile(r"\\textcircled\{\s*([A-Za-z]?\d{1,2}|[a-h]|[ivx]{1,4})\s*\}")
_QNUM = re.compile(
    r"(?:(?:Inline[ \t]+)?Q(?:uestion)?|Problem|Prob\.|Exercise|Ex\.|Task|Answer|Ans\.|Solution)"
    r"[ \t]*\.?[ \t]*(\d{1,2})(?!\d)"
    # a dash after the number closes it (`Q3 - ...`), not one opening a rule (`---- Q3 ----`)
    r"(?:[ \t]*(?:\.\)|[.):](?![0-9])|-(?![0-9-])))?",
    re.IGNORECASE,
)
_PARTNUM = re.compile(r"([A-H])[ \t]?(\d{1,2})(?!\d)(?:\.\)|[.):](?![0-9]))?(?=[\s$\\(]|$)")
_NUM = re.compile(r"(\d{1,2})(?:[ \t]*\.\)|\)|\.(?![0-9])|-(?=[ \t]))")
# "1b)", "1.b.ii", "2a.", "1b.ii:", "2-a" - number, letter and roman written as one token
_COMPACT = re.compile(
    r"(\d{1,2})(?:\.|-(?=[a-h](?![\w-])))?([a-h])(?:\.?(viii|vii|vi|iv|ix|iii|ii|i|v|x))?"
    r"(?:\.\)|[.):])?(?=[ \t$\\(*}_]|$)"
)
# "Q1-4", "Problem 2.3": question 1, its fourth part
# "3(a)", "4(b):", "2(a)(ii)": a question's number, its letter (and roman numeral) in brackets
_BRACKETED = re.compile(
    r"(\d{1,2})\(([a-h])\)(?:\((viii|vii|vi|iv|ix|iii|ii|i|v|x)\))?[.:]?(?=[ \t$\\*}_]|$)"
)
_QDASH = re.compile(
    r"(?:Q(?:uestion)?|Problem|Task|Exercise|Answer|Solution)[ \t]*(\d{1,2})[ \t]*[-.][ \t]*"
    r"(\d{1,2})(?![\d.]?\d)"
    r"(?:[.):])?",
    re.IGNORECASE,
)
# "Q5.a Because", "Q3.a:", "Question 2b:": a worded question number and its letter written as
# one token, the letter closed by a colon or by nothing (after a bare "5. a" it would be prose);
# "Q3.ii", "Q2.i:": its sub-part numbered in roman numerals, the second sub-part (b), as
# "Q1-4" is the fourth
_QLETTER = re.compile(
    r"(?:(?:Inline[ \t]+)?Q(?:uestion)?|Problem|Prob\.|Exercise|Ex\.|Task|Answer|Ans\.|Solution)"
    r"[ \t]*\.?[ \t]*(\d{1,2})(?:\.?([a-h])|\.(iv|v|vi|vii|viii|iii|ii|i))(?:[ \t]*:)?"
    r"(?=\s|[*_}]|$)",
    re.IGNORECASE,
)
_PAREN_NUM = re.compile(r"\((\d{1,2})\)")
_BULLET = re.compile(r"[ \t]*[-*•+][ \t]")
# a bare number before its first sub-part (`3 (a) ...`; `6 **(a)** B`, the marker in emphasis,
# stays in the answer) or before the first line of its code (`7 def top_p(logits, p):`, OCR of
# a handwritten page: no code line starts with a number)
_BARE_NUM = re.compile(r"(\d{1,2})(?:[ \t]+(?=\(?[a-h](?:\.\)|[.)]))"
                       r"|(?=[ \t]+(?:\*\*|__|\*|_)\(?[a-h](?:\.\)|[.)])(?:\*\*|__|\*|_))"
                       r"|(?=[ \t]+(?:def[ \t]+\w+[ \t]*\(|class[ \t]+\w+[ \t]*[(:]"
                       r"|(?:import|from)[ \t]+numpy\b)))")
_LETTER = re.compile(
    r"(?:\(([a-h])\)|(?:[a-h]-)?([a-h])[ \t]*(?:\.\)|\)|\.(?![0-9a-z])|\.(?=[ivx]{1,4}\.?\))))"
)
_ROMAN = re.compile(r"\(?(viii|vii|vi|iv|ix|iii|ii|i|v|x)[ \t]*(?:\.\)|\)|\.(?![0-9a-z]))")
# After a label the answer starts: whitespace, math, a command, or the end of the line.
_AFTER = re.compile(r"(?=[\s$\\(\[]|$)")


def _token(text: str, pos: int, level: int) -> tuple[int, dict[str, object]] | None:
    """One label token at `pos` deeper than `level`; returns (end, fields)."""
    if level < 1:
        m = _CIRCLED.match(text, pos)
        if m and re.fullmatch(r"[A-Za-z]?\d{1,2}", m.group(1)):
            value = m.group(1)
            fields: dict[str, object] = {"num": int(re.sub(r"\D", "", value))}
            if value[0].isalpha() and value[0].upper() != "Q":
                fields["part"] = value[0].upper()
            return m.end(), fields
        m = _COMPACT.match(text, pos)
        if m:
            compact: dict[str, object] = {"num": int(m.group(1)), "letter": m.group(2)}
            if m.group(3):
                compact["roman"] = m.group(3)
            return m.end(), compact
        m = _BRACKETED.match(text, pos)
        if m:
            bracketed: dict[str, object] = {"num": int(m.group(1)), "letter": m.group(2)}
            if m.group(3):
                bracketed["roman"] = m.group(3)
            return m.end(), bracketed
        m = _QLETTER.match(text, pos)
        if m and m.group(2):
            return m.end(), {"num": int(m.group(1)), "letter": m.group(2).lower()}
        if m:
            return m.end(), {"num": int(m.group(1)),
                             "letter": LETTERS[ROMANS.index(m.group(3).lower())]}
        m = _QDASH.match(text, pos)
        if m and 1 <= int(m.group(2)) <= len(LETTERS):
            return m.end(), {"num": int(m.group(1)), "letter": LETTERS[int(m.group(2)) - 1]}
        for pattern in (_QNUM, _PARTNUM, _NUM, _BARE_NUM):
            m = pattern.match(text, pos)
            if m:
                if pattern is _PARTNUM:
                    return m.end(), {"part": m.group(1), "num": int(m.group(2))}
                return m.end(), {"num": int(m.group(1))}
    if level < 3:
        m = _CIRCLED.match(text, pos)
        if m and m.group(1) in LETTERS and len(m.group(1)) == 1:
            return m.end(), {"letter": m.group(1)}
        m = _LETTER.match(text, pos)
        if m:
            return m.end(), {"letter": m.group(1) or m.group(2)}
    if level < 4:
        m = _CIRCLED.match(text, pos)
        if m and m.group(1) in ROMANS:
            return m.end(), {"roman": m.group(1)}
        m = _ROMAN.match(text, pos)
        if m:
            return m.end(), {"roman": m.group(1)}
    return None


def _group(
    text: str, pos: int, allow_num: bool, bullet: bool = False, closing: bool = True
) -> tuple[int, dict[str, object]] | None:
    """A label group: number, letter and roman tokens in that order, e.g. `2. a. i.)`."""
    fields: dict[str, object] = {}
    level = 0 if allow_num else 1
    cur = pos
    if bullet and allow_num:
        # "- (1) ..." on a list line: a numbered item (elsewhere "(1)" is an equation number)
        m = _PAREN_NUM.match(text, pos)
        if m and _AFTER.match(text, _skip_math_close(text, m.end())):
            return _skip_math_close(text, m.end()), {"num": int(m.group(1))}
    while True:
        found = _token(text, cur, level)
        if found is None:
            break
        end, new = found
        fields.update(new)
        level = 1 if "num" in new else 2 if "letter" in new else 3
        cur = end
        skip = re.compile(_SEP).match(text, cur)
        after_sep = skip.end() if skip else cur
        if _token(text, after_sep, level) is None:
            break
        cur = after_sep
    if fields and closing and not _AFTER.match(text, cur):
        closed = _CLOSE.match(text, cur)
        if closed and closed.end() > cur and _AFTER.match(text, closed.end()):
            cur = closed.end()
    if not fields or not _AFTER.match(text, cur):
        return None
    return cur, fields


def _skip_math_close(text: str, pos: int) -> int:
    return pos + 1 if text.startswith("$", pos) else pos


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer(r"\n", text))
    return starts


def find_labels(text: str) -> list[LabelMark]:
    """Every candidate label in document order (line-start and inline)."""
    marks: list[LabelMark] = []
    fences: list[tuple[int, int]] = []  # fenced code: its comments ("# 1. Linear") are no labels
    fence_start: int | None = None
    in_fence: list[LabelMark] = []  # comments naming questions in the open fence
    table = AnswerTable()
    for line_start in _line_starts(text):
        if len(marks) >= MAX_LABELS:
            break  # a real solution set has a few dozen labels; past this it is not prose
        if _toggles_fence(text, line_start):
            if fence_start is not None:
                fences.append((fence_start, line_start))
                fence_start = None
                marks.extend(_several(in_fence))
                in_fence = []
                continue
            fence_start = line_start
            if text.startswith(("```", "~~~"), line_start + _indent(text, line_start)):
                continue
            # "3. ```python": the label before the fence still counts
        elif fence_start is not None:
            fenced = _fenced_label(text, line_start)
            if fenced is not None:
                in_fence.append(fenced)
            continue
        row = table_row(text, line_start, table)
        if row is not None:
            if row:
                end, number = row
                marks.append(replace(_mark(text, line_start, end, {"num": number}),
                                     declared=True))
            continue
        prefix = _LINE_PREFIX.match(text, line_start)
        pos = prefix.end() if prefix else line_start
        heading = _PART_HEADING.match(text, pos)
        if heading:
            value = heading.group(1).upper()
            end = heading.end()
            group = _group(text, _skip_sep(text, end), allow_num=True)
            if group is not None:
                end, fields = group
                marks.append(_mark(text, line_start, end, fields, part=value))
            else:
                marks.append(LabelMark(line_start, end, text[pos:end].strip(), part=value,
                                       heading=True))
            continue
        bullet = _BULLET.match(text, line_start) is not None
        group = _group(text, pos, allow_num=True, bullet=bullet)
        if group is None:
            paren = _PAREN_NUM.match(text, pos)
            if paren and _AFTER.match(text, paren.end()):
                marks.append(replace(_mark(text, line_start, paren.end(),
                                           {"num": int(paren.group(1))}), paren=True))
            elif pos == line_start and (prose := prose_number(text, line_start)) is not None:
                marks.append(replace(_mark(text, line_start, prose[0], {"num": prose[1]}),
                                     prose=True))
            continue
        end, fields = group
        if _wrapped(text, line_start, pos, end):
            continue
        indent = len(text[line_start:pos]) - len(text[line_start:pos].lstrip(" \t"))
        marks.append(replace(_mark(text, line_start, end, fields), indent=indent,
                             bullet=bullet))
    if fence_start is not None:
        fences.append((fence_start, len(text)))
        marks.extend(_several(in_fence))
    fence_starts = [f for f, _ in fences]
    marks.extend(m for m in _inline_labels(text, [(m.start, m.end) for m in marks])
                 if not _in_spans(fences, fence_starts, m.start))
    marks.sort(key=lambda m: m.start)
    return marks


_FENCE_CAP = 400
# "# Q2", "## Question 3: top-k": a comment that names a question in words, alone on its line
_FENCED_COMMENT = re.compile(r"[ \t]{0,8}#{1,3}[ \t]*")
_FENCED_LINE_CAP = 60


def _several(fenced: list[LabelMark]) -> list[LabelMark]:
    """The comments naming questions in one code block, when they name several: a block that
    answers several questions. One such comment ("# Problem 1: load data" in a notebook's code
    cell) is the template's, not a label."""
    return fenced if len({m.num for m in fenced}) >= 2 else []


def _fenced_label(text: str, line_start: int) -> LabelMark | None:
    """A question named in words by a comment line of fenced code: one code block that answers
    several questions ("# Q1" ... "# Q2" ...). A comment that only numbers ("# 1. scores") is a
    step of the code, not a question."""
    end = text.find("\n", line_start, line_start + _FENCE_CAP)
    line = text[line_start:end if end >= 0 else line_start + _FENCE_CAP]
    comment = _FENCED_COMMENT.match(line)
    if comment is None or len(line.strip()) > _FENCED_LINE_CAP or WORDED.match(line) is None:
        return None
    group = _group(text, line_start + comment.end(), allow_num=True)
    if group is None:
        return None
    label_end, fields = group
    # the rest of the comment ("top-k") is its title, not code of the answer
    return replace(_mark(text, line_start, label_end, fields), end=line_start + len(line))


def _indent(text: str, line_start: int) -> int:
    n = 0
    while n < 8 and text.startswith((" ", "\t"), line_start + n):
        n += 1
    return n


def _toggles_fence(text: str, line_start: int) -> bool:
    end = text.find("\n", line_start, line_start + _FENCE_CAP)
    return toggles_fence(text[line_start:end if end >= 0 else line_start + _FENCE_CAP])


def toggles_fence(line: str) -> bool:
    """A line opening or closing fenced code: an odd number of ``` (or ~~~) on it, so that
    "3. ```python" opens a fence and "use ```x``` here" does not."""
    return line.count("```") % 2 == 1 or line.lstrip().startswith("~~~")


def _in_spans(spans: list[tuple[int, int]], starts: list[int], pos: int) -> bool:
    k = bisect.bisect_right(starts, pos) - 1
    return k >= 0 and spans[k][0] <= pos < spans[k][1]


_BARE_WORD_LABEL = re.compile(r"[a-z]{1,4}\.")


def _wrapped(text: str, line_start: int, pos: int, end: int) -> bool:
    """A bare "i." or "a." opening a line in the middle of a sentence is a wrapped line of
    prose ("... that you designed in part\ni. What ..."), not a label."""
    if pos != line_start or line_start < 2 or not _BARE_WORD_LABEL.fullmatch(
            text[pos:end].strip()):
        return False
    previous = text[max(0, line_start - 200):line_start - 1].rsplit("\n", 1)[-1].rstrip()
    # a Markdown heading ("## Part 3: answers") is no sentence that wraps
    return bool(previous) and (previous[-1].islower() or previous[-1] == ",") and not (
        previous.lstrip(" \t").startswith("#"))


# after ".", ":", ";" or ")" (spaces optional) or "$" and a space: where an inline label starts
_INLINE_BEFORE = re.compile(r"(?:[.:;)][ \t]*|\$[ \t]+)(?=\(?[a-hivx])")


def _inline_labels(text: str, taken: list[tuple[int, int]]) -> list[LabelMark]:
    marks: list[LabelMark] = []
    starts = [s for s, _ in taken]  # line labels, in document order
    for m in _INLINE_BEFORE.finditer(text):
        if len(marks) >= MAX_LABELS:
            break
        pos = m.end()
        dot = m.start()
        if (text[dot] == "." and dot >= 1 and text[dot - 1].isalpha()
                and (dot < 2 or not text[dot - 2].isalnum())):
            continue  # the end of an abbreviation ("e.g. 1000", "i.e. the"), not a label
        k = bisect.bisect_right(starts, pos) - 1
        if (k >= 0 and pos < taken[k][1]) or (marks and pos < marks[-1].end):
            continue
        group = _group(text, pos, allow_num=False, closing=False)
        if group is None:
            continue
        end, fields = group
        # an inline label must be followed by a space or math, never by more letters ("e.g.")
        if end < len(text) and not (text[end].isspace() or text[end] in "$\\"):
            continue
        marks.append(_mark(text, pos, end, fields, inline=True))
    return marks


def _skip_sep(text: str, pos: int) -> int:
    m = re.compile(_SEP).match(text, pos)
    return m.end() if m else pos


def _mark(
    text: str, start: int, end: int, fields: dict[str, object], part: str | None = None,
    inline: bool = False,
) -> LabelMark:
    num = fields.get("num")
    letter = fields.get("letter")
    roman = fields.get("roman")
    part_value = fields.get("part", part)
    return LabelMark(
        start=start,
        end=_skip_sep(text, end),
        raw=text[start:end].strip(),
        part=part_value if isinstance(part_value, str) else None,
        num=num if isinstance(num, int) else None,
        letter=letter if isinstance(letter, str) else None,
        roman=roman if isinstance(roman, str) else None,
        inline=inline,
    )
