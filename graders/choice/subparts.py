"""A quiz's sub-questions answered in one block: "(a) B (b) A, C (c) softmax".

An LMS export keys each answer by its item; a document (Markdown, LaTeX, a notebook, a
transcript) answers a question of several choice items in one block, each part marked by the
student. The part an item reads is its `subpart`, or else its place among the question's
items (the second item reads the part marked `b`, `2` or `ii`).

A marker is a letter (a-h), a number (1-9) or a roman numeral (i-viii) in one of the forms
`(a)`, `a)`, `a.`, `a:` (in bold or not), at the start of a line or after a space. A run is at
least two markers of one form and kind counting up from the first (a, b, c); markers opening
lines are preferred to markers inside a line, and a marker right after another is the part's
answer, so an option's own label inside a part (`a. B) sqrt(d)`, `(a) (B) sqrt d`) is not
taken for a marker. One pass of a linear regex over a bounded prefix
(student bytes are hostile).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graders.documents.labels import LETTERS, ROMANS, place_in_run

MAX_TEXT = 4000
_MARKED_ROMANS = 8  # the marker pattern reads i to viii

_PART = r"[a-h]|viii|vii|vi|iv|v|iii|ii|i"
_MARKER = re.compile(
    r"(?:^|(?<=[ \t\n]))(\**)[ \t]*(?:\((?P<paren>[1-9]|" + _PART + r")\)"
    r"|(?P<bare>[1-9]|" + _PART + r")(?P<end>[).:])"
    # a part marked with its question's number: `7.a`, `Q7.a`, `7(a)`, `7a)`, `**7.b**`,
    # `Problem 7(b)`, `Exercise 7.b`
    r"|(?:Q|Question ?|Problem ?|Prob\. ?|Exercise ?|Ex\. ?)?[1-9][0-9]?"
    r"(?:[.-]?\((?P<npar>" + _PART + r")\)"
    r"|[.-]?(?P<nbare>" + _PART + r")(?P<nend>[).:])|[.-](?P<nlone>" + _PART + r")))"
    r"\**(?=[ \t\n]|$)",
    re.IGNORECASE)
_FORMS = ("()", ")", ".", ":", "#()", "#)", "#.", "#:", "#")
# a first part before a lone second marker (`B (b) A, C` once `(a)` went with the label) is
# an answer's few words, not a sentence that cites a part
_FIRST_PART_WORDS = 4
# LaTeX spacing and line breaks between parts written on one line ("B \quad (b) ..."), and
# the environments around them (`\end{enumerate}`, `\end{document}` after the last part)
_LATEX_SPACE = re.compile(r"\\(?:qquad|quad|hfill|newline|[,;:! ])|\\\\|~|&|\$"
                          r"|\\(?:begin|end)\{[A-Za-z]{1,20}\*?\}")
# a LaTeX list's items: `\item[(a)] B` is the part marked (a); a bare `\item` counts (1), (2)
_ITEM = re.compile(r"\\item\b[ \t]*(?:\[(?P<label>[^\[\]\n]{1,8})\])?")


@dataclass(frozen=True)
class _Marker:
    label: str  # lower case
    form: str  # "()", ")", ".", ":"
    opens_line: bool
    start: int
    end: int


def _label_and_form(match: re.Match[str]) -> tuple[str, str]:
    """A marker's label (lower case) and form; a form with `#` carries a question's number."""
    if match.group("paren"):
        return match.group("paren").lower(), "()"
    if match.group("bare"):
        return match.group("bare").lower(), match.group("end")
    if match.group("npar"):
        return match.group("npar").lower(), "#()"
    if match.group("nbare"):
        return match.group("nbare").lower(), "#" + match.group("nend")
    return match.group("nlone").lower(), "#"


def _markers(text: str) -> list[_Marker]:
    """The markers, in order; one right after another (`(a) (B) sqrt d`) is its answer, not
    a marker: no part is empty."""
    found: list[_Marker] = []
    for match in _MARKER.finditer(text):
        if found and not text[found[-1].end:match.start()].strip(" \t\n*"):
            continue
        label, form = _label_and_form(match)
        line_start = text.rfind("\n", 0, match.start()) + 1
        opens_line = not text[line_start:match.start()].strip(" \t*#>-")
        found.append(_Marker(label, form, opens_line, match.start(), match.end()))
    return found


def _best_run(markers: list[_Marker], first: int = 1) -> list[_Marker]:
    """The longest run counting up from `first` among markers of one form, of one kind. A run
    that opens the text may go on in its form with the question's number: the locator took
    `Problem 6` of `Problem 6(a) A` for the label, and left `(a) A` before `Problem 6(b)`."""
    best: list[_Marker] = []
    for form in _FORMS:
        for kind in ("letter", "number", "roman"):
            run: list[_Marker] = []
            for marker in markers:
                numbered = bool(run) and run[0].start == 0 and marker.form == "#" + form
                if (marker.form == form or numbered) \
                        and place_in_run(marker.label, kind) == len(run) + first:
                    run.append(marker)
            if len(run) >= 2 and len(run) > len(best):
                best = run
    return best


def _run(text: str, markers: list[_Marker], offered: frozenset[str]
         ) -> tuple[list[_Marker], int]:
    """The parts' markers and the place of the first: a run from 1, else a run from 2 after
    text of its own (the first marker read as the question's label: "Q6 (a) B (b) A, C"
    located as "B (b) A, C"), the text before it being the first part; a lone second marker
    after a first part of a few words or opening with an offered label (lower case)."""
    for first in (1, 2):
        # from 2, a marker with nothing before it is the first part's answer (`(B) sqrt d`)
        ours = markers if first == 1 else [m for m in markers if text[:m.start].strip()]
        for pool in ([m for m in ours if m.opens_line], ours):
            run = _best_run(pool, first)
            if run:
                return run, first
    # one marker left, the second part's, after a first part of a few words
    if len(markers) == 1 and any(place_in_run(markers[0].label, kind) == 2
                                 for kind in ("letter", "number", "roman")):
        words = text[:markers[0].start].split()
        opens = words[0].strip("()*.:").lower() if words else ""
        if words and (len(words) <= _FIRST_PART_WORDS or opens in offered):
            return markers, 2
    return [], 1


def _label(place: int, sample: str, first: int = 1) -> str:
    """The label of the `place`-th part in the kind of label of a run starting with `sample`
    at place `first`."""
    if sample.isdigit():
        return str(place)
    if sample == LETTERS[first - 1]:
        return LETTERS[place - 1] if place <= len(LETTERS) else ""
    return ROMANS[place - 1] if place <= _MARKED_ROMANS else ""


def _items_as_markers(text: str) -> str:
    """`\\item[(a)] B \\item[(b)] A, C` as `(a) B` and `(b) A, C` on lines of their own; a
    list of bare `\\item`s as `(1) ...`, `(2) ...` (from `(2)` after a first part's text)."""
    first = text.find("\\item")
    if first < 0:
        return text
    # text before the first item is the first part, where the locator began after its `\item`
    count = 1 if _LATEX_SPACE.sub(" ", text[:first]).strip() else 0

    def marker(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"\n{match.group('label') or f'({count})'} "

    return _ITEM.sub(marker, text)


def part_of(text: str, subpart: str | None, place: int,
            offered: frozenset[str] = frozenset()) -> str | None:
    """The text of the wanted part (`subpart`, or else the `place`-th, counting from 1), with
    LaTeX spacing dropped; None when the text marks no run of parts or not that one. `offered`:
    the question's choice labels, lower case."""
    text = _items_as_markers(text[:MAX_TEXT])
    run, first = _run(text, _markers(text), offered)
    if not run:
        return None
    if subpart:  # the rubric's `b` is the second part whatever the student's labels: `(ii)`, `2)`
        place = next((p for kind in ("letter", "number", "roman")
                      if (p := place_in_run(subpart.lower(), kind))), place)
    wanted = _label(place, run[0].label, first)
    if first == 2 and wanted == _label(1, run[0].label, first):
        return _LATEX_SPACE.sub(" ", text[:run[0].start]).strip()
    for i, marker in enumerate(run):
        if marker.label == wanted:
            end = run[i + 1].start if i + 1 < len(run) else len(text)
            return _LATEX_SPACE.sub(" ", text[marker.end:end]).strip()
    return None
