"""The graders' scans that read an answer once, against the patterns they replaced.

A long run of one unit ("e.g. A " repeated, blank lines, `$$` lines, a word of 300,000
letters, a run of full stops) made each of these patterns scan the rest of the answer from
every position (tests/attacks/test_grading_bombs.py measures it through the app). The linear
versions must find exactly what the old patterns found: each is compared here with the old
pattern, kept as the oracle, on answers built from the units a hostile or ordinary answer is
made of (the old patterns are quadratic only in the length, which stays small here)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric import statements
from graders.symbolic import expressions
from graders.written import spelling, text

OLD_CHUNK = re.compile(r"(?P<math>\$\$.*?\$\$|\\\[.*?\\\])|[^\n]+", re.S)
OLD_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|eg|ie|vs|etc|resp|approx|cf|no|fig|eq)\.|(?:^|[\s(])\d+\.)$", re.I)
OLD_LINE_CAPITAL = re.compile(r"(?m)^\W*[A-Z]")
OLD_PRIME = re.compile(r"\b([A-Za-z]{3,}\w*'(?:\s*\(\s*\w*\s*\))?|[A-Za-z]\w*'\s*\(\s*\w*\s*\))"
                       r"(?=\s*(?:[=<>~]|is\b|$))")
OLD_NAME = r"(\\?[A-Za-z]+(?:_\s*\{?\s*\w{1,3}\s*\}?)?|[αβγλμθσ])"
OLD_DECLARATIONS = (
    re.compile(OLD_NAME + r"\s+is\s+(?:a|an|some)\s+(?:\w+\s+){0,2}?"
               r"(?:scalar|constant|number|factor)\b"),
    re.compile(OLD_NAME + r"\s*(?:\\gg|≫|>>)\s*[01]\b"),
)

UNITS = ["$$", "\\[", "\\]", "\n", " ", "  ", "a", "ab", "A", "Word", "e.g.", "i.e.", "Fig.",
         "approx.", "no.", "1", "12", "123.", ".", "..", "(", ")", "x'", "'", "f'(x)", " = ",
         " is ", "_", "_1", "\\beta", "β", " >> ", "\\gg", " is a big scalar", "S", "1.5",
         "!", "?", "\t", "é", "{", "}", ";", "\\\\", "\\quad ", "\\begin{x}", "\\end{x}", "%"]
answers = st.lists(st.sampled_from(UNITS), max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(answers)
def test_chunks_are_the_old_patterns_chunks(answer: str) -> None:
    assert list(text._chunks(answer)) == _old_chunks_rewrapped(answer)


# a line of prose the old pattern cut at its end, which a wrapped sentence goes on from: a
# line of at least 45 characters ending in a word or a comma, the next in lower case
OLD_WRAP = re.compile(r"[\s\S]{45,}(?<=[\w,])$")
OLD_GOES_ON = re.compile(r"[ \t]*[a-z][a-z'-]*(?:[ \t,.;:!?]|$)", re.M)


def _old_chunks_rewrapped(answer: str) -> list[tuple[int, str]]:
    """The old pattern's chunks, a prose line joined with the lines that continue its sentence
    (graders/written/text.py `_wrapped_end`: the one way the linear scan now differs)."""
    out: list[tuple[int, str, bool]] = []  # start, chunk, whether a prose line
    for m in OLD_CHUNK.finditer(answer):
        prose = m.lastgroup != "math"
        if out and out[-1][2]:
            start, chunk, _ = out[-1]
            end = start + len(chunk)
            line = answer[answer.rfind("\n", 0, end) + 1:end].rstrip()
            if end < len(answer) and answer[end] == "\n" and m.start() == end + 1 \
                    and OLD_WRAP.match(line) and OLD_GOES_ON.match(answer, end + 1):
                out[-1] = (start, answer[start:m.end()], True)
                continue
        out.append((m.start(), m.group(0), prose))
    return [(start, chunk) for start, chunk, _ in out]


@settings(max_examples=300, deadline=None)
@given(answers, st.data())
def test_abbreviations_are_read_as_in_the_whole_sentence(answer: str, data: st.DataObject
                                                         ) -> None:
    # a sentence starts at the chunk's start or after the blanks that ended the one before
    starts = [0] + [i for i in range(1, len(answer) + 1) if answer[i - 1].isspace()]
    start = data.draw(st.sampled_from(starts))
    end = data.draw(st.integers(start, len(answer)))
    old = OLD_ABBREVIATION.search(answer[start:end]) is not None
    assert text._abbreviation_before(answer, start, end) == old


@settings(max_examples=300, deadline=None)
@given(answers)
def test_line_capitals_primes_and_declared_scalars_as_before(answer: str) -> None:
    assert (text._LINE_CAPITAL.search(answer) is None) == (
        OLD_LINE_CAPITAL.search(answer) is None)
    assert [m.span() for m in text._PRIME.finditer(answer)] == [
        m.span() for m in OLD_PRIME.finditer(answer)]
    old_names = {m.group(1) for p in OLD_DECLARATIONS for m in p.finditer(answer)}
    new_names = {m.group(1) for p in expressions._DECLARATIONS for m in p.finditer(answer)}
    assert new_names == old_names


def _old_split_statements(masked: str) -> list[statements.Span]:
    cuts: list[int] = []
    depth = env = i = 0
    n = len(masked)
    while i < n:
        ch = masked[i]
        if ch == "\\" and i + 1 < n:
            m = statements._ENV.match(masked, i)
            if m:
                env = max(env + (1 if m.group(1) == "begin" else -1), 0)
                i = m.end()
                continue
            if masked[i + 1] in "{},;:! ":
                i += 2
                continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if depth == 0 and env == 0 and ch in "\n\\;.":
            m = statements._SPLIT.match(masked, i)
            if m and m.group("after_value") and not statements._after_value(masked, i):
                m = None
            if m and m.end() > i:
                cuts += [i, m.end()]
                i = m.end()
                continue
        i += 1
    bounds = [0, *cuts, n]
    return [statements.Span(bounds[k], bounds[k + 1]) for k in range(0, len(bounds) - 1, 2)
            if masked[bounds[k]:bounds[k + 1]].strip()]


@settings(max_examples=300, deadline=None)
@given(answers)
def test_statements_are_cut_as_before(answer: str) -> None:
    assert statements.split_statements(answer) == _old_split_statements(answer)


VOCABULARY = frozenset({"separable", "sinusoidal", "extrapolate", "nonlinear"})
words = st.one_of(
    st.text(alphabet="aeiouyxsntrlp", min_size=5, max_size=40),
    st.sampled_from(sorted(VOCABULARY)).flatmap(
        lambda w: st.sampled_from(sorted(set(spelling._slips(w))))),
    st.sampled_from(sorted(VOCABULARY)).map(lambda w: w + "s" * 3))


@settings(max_examples=200, deadline=None)
@given(words)
def test_a_misspelling_is_corrected_as_by_trying_every_slip(word: str) -> None:
    found = {s for s in spelling._slips(word)
             if s in VOCABULARY and len(s) >= spelling.MIN_LETTERS}
    expected = None
    if len(word) >= spelling.MIN_LETTERS - 1 and word not in VOCABULARY and len(found) == 1:
        expected = found.pop()
    assert spelling.corrected(word, VOCABULARY) == expected
