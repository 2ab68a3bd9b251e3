"""Candidate values in a messy answer: every number, boxed value, evaluated expression or vector,
with where it was written and in which statement, so a grader can pick the one that answers an
item (`d_head = 768/12 = \\boxed{64}` -> 64, final and boxed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from graders.numeric.arith import EvalError, Evaluated, Number, evaluate
from graders.numeric.latex import SEP, glue_digit_groups, to_arith

Value = Number | tuple[Number, ...]

MAX_TEXT = 50_000


@dataclass(frozen=True)
class Statement:
    start: int
    end: int


@dataclass(frozen=True)
class Candidate:
    value: Value
    source: str  # what the student wrote for it
    start: int  # span in the answer text
    end: int
    statement: int  # index into the statements of the answer
    boxed: bool = False
    final: bool = False  # the last value of its statement (right-hand side of the last `=`)
    expression: bool = False  # an arithmetic expression the student did not evaluate
    percent: bool = False
    words: bool = False

    @property
    def is_vector(self) -> bool:
        return isinstance(self.value, tuple)


@dataclass(frozen=True)
class Extraction:
    text: str
    statements: tuple[Statement, ...]
    candidates: tuple[Candidate, ...]

    def statement_text(self, index: int) -> str:
        if 0 <= index < len(self.statements):
            s = self.statements[index]
            return self.text[s.start:s.end]
        return ""


def _mask(text: str) -> str:
    """Same length as `text`; struck-through text, `$` and label prefixes become spaces."""
    def blank(m: re.Match[str]) -> str:
        return " " * len(m.group(0))

    masked = re.sub(r"~~.*?~~", blank, text, flags=re.DOTALL)
    masked = masked.replace("$", " ")
    masked = re.sub(r"\\textcircled\{[^{}]{0,4}\}", blank, masked)
    return re.sub(
        r"(?m)^[ \t>*\-]*(?:Q\d{1,2}|\d{1,2}[.)](?!\d)|\(?[a-h]\)|\(?(?:i|ii|iii|iv|v|vi)\))[ \t]",
        blank, masked,
    )


_ENV = re.compile(r"\\(begin|end)\{[a-zA-Z*]+\}")
_SPLIT = re.compile(r"\n|\\\\|\\q?quad\b|;|(?<=[a-z])\.\s+(?=[A-Z])")


def split_statements(masked: str) -> list[Statement]:
    """Statements end at line breaks, `\\\\`, `\\quad` and `;`, but not inside braces/matrices."""
    cuts: list[int] = []
    depth = 0
    env = 0
    i = 0
    n = len(masked)
    while i < n:
        ch = masked[i]
        if ch == "\\" and i + 1 < n:
            m = _ENV.match(masked, i)
            if m:
                env += 1 if m.group(1) == "begin" else -1
                env = max(env, 0)
                i = m.end()
                continue
            if masked[i + 1] in "{}":
                i += 2
                continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if depth == 0 and env == 0:
            m = _SPLIT.match(masked, i)
            if m and m.end() > i:
                cuts.append(i)
                cuts.append(m.end())
                i = m.end()
                continue
        i += 1
    bounds = [0, *cuts, n]
    statements = []
    for k in range(0, len(bounds) - 1, 2):
        s, e = bounds[k], bounds[k + 1]
        if masked[s:e].strip():
            statements.append(Statement(s, e))
    return statements


_RELATION = re.compile(
    r"=|≈|≃|→|⇒|⟹|\\approx\b|\\simeq\b|\\sim\b|\\rightarrow\b|\\Rightarrow\b|\\to\b|"
    r"\\implies\b|\\longrightarrow\b|\\Longrightarrow\b|\\equiv\b|:(?=\s)|\s(?:is|equals|gives)\s"
)


def split_sides(masked: str, start: int, end: int) -> list[tuple[int, int]]:
    sides: list[tuple[int, int]] = []
    depth = 0
    cursor = start
    i = start
    while i < end:
        ch = masked[i]
        if ch == "\\" and i + 1 < end and masked[i + 1] in "{}":
            i += 2
            continue
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = _RELATION.match(masked, i)
            if m and m.end() > i:
                sides.append((cursor, i))
                cursor = i = m.end()
                continue
        i += 1
    sides.append((cursor, end))
    return [(s, e) for s, e in sides if masked[s:e].strip()]


_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}


def words_value(text: str) -> int | None:
    """`sixty-four` -> 64, `one hundred and twelve` -> 112; None unless it is only number words."""
    words = re.findall(r"[a-z]+", text.lower())
    if not words or len(words) > 8 or re.search(r"\d", text):
        return None
    total = current = 0
    for word in words:
        if word == "and":
            continue
        if word in _WORDS:
            current += _WORDS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word == "thousand":
            total += max(current, 1) * 1000
            current = 0
        else:
            return None
    return total + current


_VECTOR = re.compile(
    r"^\s*(?:\\left\s*)?([\[(]|\\langle|\\begin\{[bpv]?matrix\})(.*?)"
    r"(?:\\right\s*)?([\])]|\\rangle|\\end\{[bpv]?matrix\})\s*$",
    re.DOTALL,
)


def _split_elements(inner: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    cursor = 0
    i = 0
    while i < len(inner):
        ch = inner[i]
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth = max(0, depth - 1)
        elif depth == 0 and (ch in ",;&" or inner.startswith("\\\\", i)):
            parts.append(inner[cursor:i])
            i += 2 if ch == "\\" else 1
            cursor = i
            continue
        i += 1
    parts.append(inner[cursor:])
    return [p for p in (p.strip() for p in parts) if p]


def _scalar(text: str) -> tuple[Number, bool, bool] | None:
    """A single arithmetic run: (value, is an expression, is a percentage)."""
    arith = to_arith(text)
    if arith is None or SEP in arith:
        return None
    arith = arith.strip()
    percent = arith.endswith("%")
    arith = arith.rstrip("% ")
    try:
        result = evaluate(arith)
    except (EvalError, ZeroDivisionError, OverflowError):
        return None
    return result.value, result.operators > 0, percent


def _vector(side: str) -> tuple[Number, ...] | None:
    m = _VECTOR.match(glue_digit_groups(side))
    if not m:
        return None
    elements = _split_elements(m.group(2))
    if len(elements) < 2:
        return None
    values: list[Number] = []
    for element in elements:
        scalar = _scalar(element)
        if scalar is None:
            return None
        value, _, percent = scalar
        values.append(value / 100 if percent else value)
    return tuple(values)


_RUN = re.compile(r"[^" + SEP + r"]+")
_BOXED = re.compile(r"\\boxed\s*\{")


def _side_candidates(text: str, masked: str, s: int, e: int, index: int) -> list[Candidate]:
    side = masked[s:e]
    out: list[Candidate] = []
    vector = _vector(side)
    if vector is not None:
        return [Candidate(vector, text[s:e].strip(), s, e, index)]
    for m in _BOXED.finditer(side):
        depth, j = 1, m.end()
        while j < len(side) and depth:
            depth += (side[j] == "{") - (side[j] == "}")
            j += 1
        inner = side[m.end():j - 1]
        vec = _vector(inner)
        if vec is not None:
            out.append(Candidate(vec, inner, s + m.end(), s + j - 1, index, boxed=True))
            continue
        scalar = _scalar(inner)
        if scalar is not None:
            value, expr, percent = scalar
            lead = len(inner) - len(inner.lstrip())
            out.append(Candidate(value, inner.strip(), s + m.end() + lead,
                                 s + m.end() + lead + len(inner.strip()), index, boxed=True,
                                 expression=expr, percent=percent))
    if out:
        return out
    spoken = words_value(side)
    if spoken is not None:
        return [Candidate(Fraction(spoken), side.strip(), s, e, index, words=True)]
    arith = to_arith(side)
    if arith is None:
        return []
    cursor = s
    for run in _RUN.finditer(arith):
        if run.group(0).lstrip().startswith("^"):
            continue  # the exponent of a name (R^{768 x 768}) is not a value
        for piece, result in _evaluated_pieces(run.group(0)):
            percent = piece.endswith("%")
            # runs are found in the converted text: find the digits they were read from
            span = written_span(masked, cursor, e, piece)
            if span is None:
                start, end, source = s, e, _source(side, piece)
            else:
                start, end = span
                source = text[start:end].strip()
                cursor = end
            out.append(Candidate(result.value, source, start, end, index,
                                 expression=result.operators > 0, percent=percent))
    return out


def _clean_piece(raw: str) -> str:
    piece = _balanced(raw.strip().strip("*/^+-").strip())
    return re.sub(r"(?<=[\d%])\.$", "", piece)  # the full stop ending a sentence


# A value followed by a bracketed working note: `590592 (768*768 + bias)`.
_REMARK = re.compile(r"^(?P<head>[^()\[\]]*?[\d%.])\s+[(\[](?P<inner>[^()\[\]]*)[)\]]?\s*$")


def _evaluated_pieces(run: str) -> list[tuple[str, Evaluated]]:
    """The run as one value; failing that, a value with a bracketed note that does not
    evaluate (`590592 (768*768 + bias)`) gives the value and, if it evaluates, the note."""
    whole = _clean_piece(run)
    if not re.search(r"\d", whole):
        return []
    try:
        return [(whole, evaluate(whole.rstrip("% ")))]
    except (ZeroDivisionError, OverflowError):
        return []
    except EvalError:
        remark = _REMARK.match(run.strip())
        if remark is None:
            return []
    found: list[tuple[str, Evaluated]] = []
    for part in (remark.group("head"), remark.group("inner")):
        piece = _clean_piece(part)
        if not re.search(r"\d", piece):
            continue
        try:
            found.append((piece, evaluate(piece.rstrip("% "))))
        except (EvalError, ZeroDivisionError, OverflowError):
            continue
    return found


_LITERAL = re.compile(r"\d+(?:\.\d+)?")
# what may separate digit groups in the source: 589,824 / 589 824 / 589\,824 / 589{,}824
_GROUP_SEP = r"(?:,|\\[,;! ]|\{,\}|~|[ \t\u2009\u202f\u00a0'])?"
_OPENERS = re.compile(r"(?:\\(?:boxed|frac|dfrac|tfrac|cfrac|sqrt)\s*\{|\be\s*\^\s*\{?|[({\[])\s*$")


def _literal_pattern(literal: str) -> str:
    whole, dot, decimals = literal.partition(".")
    groups: list[str] = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    body = _GROUP_SEP.join(groups) + (r"\." + decimals if dot else "")
    return r"(?<![\d.])" + body + r"(?![\d])"


def written_span(masked: str, start: int, end: int, piece: str) -> tuple[int, int] | None:
    """Where in `masked[start:end]` the numbers of the arithmetic `piece` were written: from its
    first digit to its last (with an operator, `\\frac{` or `e^` before it and the braces and
    percent sign that close it), or None when they cannot be found in order."""
    literals = _LITERAL.findall(piece)
    if not literals:
        return None
    first = last = None
    cursor = start
    for literal in literals:
        m = re.compile(_literal_pattern(literal)).search(masked, cursor, end)
        if m is None:
            return None
        if first is None:
            first = m.start()
        last = cursor = m.end()
    assert first is not None and last is not None
    while True:  # widen to the command or bracket that opens the expression
        opener = _OPENERS.search(masked, max(start, first - 12), first)
        if opener is None or opener.start() < start:
            break
        first = opener.start()
    depth = sum(masked.count(c, first, last) for c in "({[") \
        - sum(masked.count(c, first, last) for c in ")}]")
    while depth > 0 and last < end:
        ch = masked[last]
        if ch in ")}]":
            depth -= 1
        elif ch in "({[":
            depth += 1
        last += 1
    tail = re.compile(r"\s*\\?%").match(masked, last, end) if piece.endswith("%") else None
    if tail is not None:
        last = tail.end()
    return first, last


def _balanced(piece: str) -> str:
    """Drop parentheses left unmatched where a run was cut out of a longer expression."""
    keep = [True] * len(piece)
    opened: list[int] = []
    for i, ch in enumerate(piece):
        if ch == "(":
            opened.append(i)
        elif ch == ")":
            if opened:
                opened.pop()
            else:
                keep[i] = False
    for i in opened:
        keep[i] = False
    return "".join(ch for ch, k in zip(piece, keep, strict=True) if k).strip()


def _source(side: str, piece: str) -> str:
    compact = side.strip()
    return compact if len(compact) <= 80 else piece


def extract(text: str) -> Extraction:
    text = text[:MAX_TEXT]
    masked = _mask(text)
    statements = split_statements(masked)
    candidates: list[Candidate] = []
    for index, statement in enumerate(statements):
        found: list[Candidate] = []
        for s, e in split_sides(masked, statement.start, statement.end):
            found.extend(_side_candidates(text, masked, s, e, index))
        if found:
            last = found[-1]
            found[-1] = Candidate(**{**last.__dict__, "final": True})
        candidates.extend(found)
    return Extraction(text, tuple(statements), tuple(candidates))
