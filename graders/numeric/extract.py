"""Candidate values in a messy answer: every number, boxed value, evaluated expression, number in
words or vector, wherever it stands, with its span, its statement and the words that label it,
so a grader can pick the one that answers an item (`d_head = 768/12 = \\boxed{64}` -> 64, final,
boxed, labelled `d_head`).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

from graders.notation import INVISIBLE_CLASS, fold_width
from graders.numeric.arith import Number
from graders.numeric.candidates import Candidate, Extraction, Value
from graders.numeric.latex import SEP, fold_digits, to_arith
from graders.numeric.masking import mask
from graders.numeric.notes import notes_in_words
from graders.numeric.pieces import BEFORE_A_POWER, evaluated_pieces
from graders.numeric.restatements import OPERATION_WORDS, operated, restated
from graders.numeric.spans import written_span
from graders.numeric.statements import RELATION, split_sides, split_statements
from graders.numeric.statements import Span as Statement
from graders.numeric.units import unit_length
from graders.numeric.vectors import (
    Listed,
    bare_lists,
    bracket_vectors,
    scalar,
    vector_values,
)
from graders.numeric.words import spoken_numbers, words_value

# Candidate, Extraction, Value, split_statements, split_sides and words_value lived here before
# the split into modules
__all__ = ["Candidate", "Extraction", "Statement", "Value", "extract", "split_sides",
           "split_statements", "words_value", "written_span"]


MAX_TEXT = 50_000
MAX_LABEL = 80
MAX_CANDIDATES = 2000
MAX_BOXED = 400
# a relation's side longer than `to_arith` reads (a paragraph of prose) is read in pieces cut
# at spaces
PIECE = 480


_RUN = re.compile(r"[^" + SEP + r"]+")
_BOXED = re.compile(r"\\boxed\s*\{")


def _boxed(text: str, masked: str, s: int, e: int, index: int) -> list[Candidate]:
    out: list[Candidate] = []
    side = masked[s:e]
    for m in _BOXED.finditer(side):
        depth, j = 1, m.end()
        limit = min(len(side), j + MAX_BOXED)  # an unclosed \\boxed{ must not scan to the end
        while j < limit and depth:
            depth += (side[j] == "{") - (side[j] == "}")
            j += 1
        inner = side[m.end():j - 1]
        if not inner.strip():
            continue
        lead = len(inner) - len(inner.lstrip())
        start, end = s + m.end() + lead, s + m.end() + lead + len(inner.strip())
        vec = vector_values(inner)
        if vec is not None:
            out.append(Candidate(vec[0], inner.strip(), start, end, index, boxed=True,
                                 percent=vec[1]))
            continue
        read = scalar(inner)
        if read is not None:
            value, expr, percent = read
            out.append(Candidate(value, inner.strip(), start, end, index, boxed=True,
                                 expression=expr, percent=percent))
    return out


def _pieces(masked: str, start: int, end: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    while end - start > PIECE:
        cut = masked.rfind(" ", start + PIECE // 2, start + PIECE)
        cut = start + PIECE if cut < 0 else cut
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def _side_candidates(text: str, masked: str, s: int, e: int, index: int) -> list[Candidate]:
    out = _boxed(text, masked, s, e, index)
    if out:
        return out
    side = masked[s:e]
    for spoken in spoken_numbers(side):
        out.append(Candidate(Fraction(spoken.value), text[s + spoken.start:s + spoken.end],
                             s + spoken.start, s + spoken.end, index, words=True))
    arith = to_arith(side)
    if arith is None:
        return out
    cursor = s
    for run in _RUN.finditer(arith):
        if run.group(0).lstrip().startswith("^"):
            continue  # the exponent of a name (R^{768 x 768}) is not a value
        pieces = evaluated_pieces(run.group(0))
        for k, (piece, result) in enumerate(pieces):
            percent = piece.endswith("%")
            # `64 (768 / 12)`: a note that only shows how the value was reached is working
            note = k > 0 and result.value == pieces[0][1].value
            # runs are found in the converted text: find the digits they were read from
            span = written_span(masked, cursor, e, piece)
            if span is None:
                start, end, source = s, e, _source(side, piece)
            else:
                start, end = span
                source = text[start:end].strip()
                cursor = end
                if BEFORE_A_POWER.match(masked, end, e):
                    continue  # `4T^2d`, `2 d^2`: the coefficient of a formula, not a value
            out.append(Candidate(result.value, source, start, end, index,
                                 expression=result.operators > 0, percent=percent,
                                 working=note))
    return out



def _source(side: str, piece: str) -> str:
    compact = side.strip()
    return compact if len(compact) <= 80 else piece


# what may stand between two values of one chain: relations and layout (invisible format
# characters too: `= <U+200B>64`), no words
_LAYOUT = re.compile(r"\\(?:boxed|left|right|displaystyle|q?quad|[,;! ])|[\s{}()\[\]&.,]|"
                     + INVISIBLE_CLASS)


# where the words after one value stop describing it and start labelling the next:
# `589 824 per matrix, ×3 = ...`, `64 dimensions per head and 589,824 weights`; LaTeX's spaces
# `\,` and `\;` (`14\,\text{ms}`) are layout, not punctuation
_CLAUSE = re.compile(r"(?<!\\)[,;]|\(|\b(?:and|so|then|thus|hence|while|whereas|but)\b")


def _labelled(masked: str, statement: Statement, found: list[Candidate]) -> list[Candidate]:
    """Label each value by the text before it (and the words after it up to the next clause:
    `589 824 per matrix`); mark the final value and the working values (those a later value
    of the same chain replaces: `768/12` in `768/12 = 64`)."""
    out: list[Candidate] = []
    cursor = statement.start
    label = ""
    for position, candidate in enumerate(found):
        gap = masked[cursor:candidate.start] if candidate.start >= cursor else ""
        # a step's unit before the relation keeps the chain: `256 x 28 ms = 7.17 s`
        lead = unit_length(gap) if out else 0
        bare = _LAYOUT.sub("", OPERATION_WORDS.sub("", RELATION.sub("", gap[lead:])))
        chained = bool(out) and not bare and bool(RELATION.search(gap))
        if chained:
            out[-1] = replace(out[-1], working=True,
                              trailing=_squeeze(gap[:lead]) or out[-1].trailing)
        else:
            clause = _CLAUSE.search(gap) if out else None
            if clause is not None:
                out[-1] = replace(out[-1], trailing=_squeeze(gap[:clause.start()]))
                gap = gap[clause.start():]
            label = _squeeze(gap)[-MAX_LABEL:]
        out.append(replace(candidate, label=label, chained=chained,
                           final=position == len(found) - 1))
        cursor = max(cursor, candidate.end)
    if out:
        tail = masked[cursor:statement.end]
        clause = _CLAUSE.search(tail)
        out[-1] = replace(out[-1], trailing=_squeeze(tail[:clause.start() if clause else None]))
    spans = [(c.start, c.end) for c in out]
    for value, notes, opened in notes_in_words(masked, statement.end, spans):
        final = any(out[k].final for k in notes)
        for k in notes:
            out[k] = replace(out[k], working=True, final=False)
        unit = _squeeze(masked[out[value].end:opened])  # `2 GiB (2^31 bytes)`: GiB
        out[value] = replace(out[value], final=out[value].final or final,
                             trailing=out[value].trailing or unit)
    return out


def _squeeze(text: str) -> str:
    return " ".join(text.split())[:MAX_LABEL]


def _lists(text: str, masked: str, found: list[Candidate]) -> list[Candidate]:
    """Vectors written as bare lists of plain values."""
    plain: list[tuple[Candidate, Number]] = [
        (c, c.value) for c in found
        if not isinstance(c.value, tuple) and not c.expression and not c.words
    ]
    listed = [Listed(c.start, c.end, value, c.percent) for c, value in plain]
    out: list[Candidate] = []
    for run in bare_lists(masked, listed):
        members = [plain[i] for i in run]
        percent = members[0][0].percent
        value = tuple(v / 100 if percent else v for _, v in members)
        first, last = members[0][0], members[-1][0]
        out.append(Candidate(value, text[first.start:last.end], first.start, last.end,
                             first.statement, final=last.final, percent=percent,
                             label=first.label, listed=True))
    return out


def extract(text: str) -> Extraction:
    """Every candidate value of the text (its first MAX_TEXT characters). Kept for the last few
    texts: an item that reads nothing looks again for a value no item read
    (`grader._unread_number`), and a long answer costs its extraction once, not once per item."""
    return _extract(text[:MAX_TEXT])


@lru_cache(maxsize=8)
def _extract(text: str) -> Extraction:
    # full-width digits and punctuation (`５８９，８２４`, `（`) and other scripts' digits (`٦٤`)
    # read as ASCII; positions are kept, so sources are quoted from the text as written
    masked = mask(fold_digits(fold_width(text)))
    vectors = bracket_vectors(masked)[:MAX_CANDIDATES]
    # the inside of a vector is not read again as loose numbers
    parts: list[str] = []
    cursor = 0
    for vector in vectors:
        parts += [masked[cursor:vector.start], " " * (vector.end - vector.start)]
        cursor = vector.end
    scalars_masked = "".join([*parts, masked[cursor:]])
    statements = split_statements(masked)
    candidates: list[Candidate] = []
    pending = deque(vectors)
    for index, statement in enumerate(statements):
        if len(candidates) >= MAX_CANDIDATES:
            break  # no answer holds thousands of values; a flood of them is not read further
        found: list[Candidate] = []
        for side_start, side_end in split_sides(scalars_masked, statement.start,
                                                statement.end):
            for s, e in _pieces(scalars_masked, side_start, side_end):
                if len(candidates) + len(found) < MAX_CANDIDATES:
                    found.extend(_side_candidates(text, scalars_masked, s, e, index))
        while pending and pending[0].start < statement.end:
            vector = pending.popleft()
            if vector.start >= statement.start:
                boxed = bool(re.search(r"\\boxed\s*\{\s*$", masked[max(0, vector.start - 12):
                                                                  vector.start]))
                found.append(Candidate(vector.values, text[vector.start:vector.end],
                                       vector.start, vector.end, index, boxed=boxed,
                                       percent=vector.percent))
        found.sort(key=lambda c: (c.start, -c.end))
        if found:
            candidates.extend(restated(masked, operated(masked, _labelled(masked, statement,
                                                                              found))))
    candidates.extend(_lists(text, masked, candidates))
    return Extraction(text, tuple(statements), tuple(candidates))
