"""Values an answer names without giving them: a value it negates (`65, not 64`, `≠ 64`,
`isn't 64`), a value it offers as one of several (`64 or 65`, `64 (or maybe 65)`) and a value
it takes back for a later one (`64 <- no wait, 32`, `64. Actually, it is 32`, `64 -> 32`,
`64? no, 32`), and the values it lists side by side with it (`32, 64, 128`, one value a line:
a "shotgun" of answers for an item that asks for one).

Each rule looks only at the words between the value and its neighbour, so it applies to the
value those words govern: in `64 (not 512: that is d_model)` the 512 is negated and the 64 is
not; in `not 65 but 64` the 64 is affirmed. The choice of a value (graders.numeric.select)
prefers a value the answer does not negate, sends a negated value it must still take to a
reader, and makes the other side of an alternative or a retraction a rival.
"""

from __future__ import annotations

import re

from graders.hedge_words import offering_gap
from graders.numeric.extract import Extraction

# how far before a value its negation may stand, and how far apart two values joined by a
# hedge: a connective, never a paragraph
_REACH = 40
_GAP = 60

# A negation right before the value, with at most the words that make it a comparison (`is not
# equal to 64`, `≠ 64`, `!= 64`, `=/= 64`, `$\neq 64$`, `isn't 64`). Anchored at the end of a
# bounded tail, each part matched one way only.
_NEGATED = re.compile(
    r"(?:\bnot|n[’']t|\bnever|≠|!=|=/=|\\neq?(?![A-Za-z])|\\not\s*=)"
    r"(?:\s+(?:equal(?:s)?(?:\s+to)?|exactly|be|quite))?[\s$({\[=:*]*$",
    re.IGNORECASE)

# Two values joined by nothing but a word that offers them as alternatives: `64 or 65`,
# `64 (or maybe 65)`, `64, perhaps 65`, `either 64 or 65`.
_ALTERNATIVE = offering_gap(r"[\s(\[{,$*]*", r"[\s$*]*")

# A later value that replaces an earlier one, said right after the earlier: `no wait`,
# `scratch that`, `actually`, `I mean`, `correction`, `make that` opening the words between
# them (`64. Actually, it is 32`, `64 <- no wait, 32`; not "64; there are actually 12 heads"), or
# an ASCII arrow alone between them (`64 -> 32`; `→` is a relation already, which makes the
# earlier value working), or the earlier value questioned and denied (`590,592? no, 0.59 M`).
_TAKEN_BACK = re.compile(
    r"[\s,;:.(\[]*(?:(?:<-{1,2}|-{1,2}>|←)[\s,;:.(\[]*$|(?:<-{1,2}|←)?[\s,;:.(\[]*"
    r"(?:no,?\s+wait|wait|scratch\s+that|actually|i\s+mean|correction|make\s+that|oops|sorry)\b"
    r"|\?[ \t]*no\b)",
    re.IGNORECASE)


# Nothing but list punctuation between two values: commas, semicolons, blanks and line breaks, a
# bullet opening a line (`32, 64`, `32; 64`, `32\n64`, `- 32\n- 64`). An operator, a relation or a
# word between them makes them another statement (working, a label, a hedge read above).
_LISTED = re.compile(r"(?:[\s,;]|\n[ \t]*[-*\u2022+](?=[ \t]))+")
# A value a word follows on its line counts something else or labels what follows (`64, 12
# heads`, `q = 31 5(c) ...`, `64\n2. The total`, `1.12\n3-b 1.0`): it ends a listing, it is
# not one of its values.
_WORDED = re.compile(r"[ \t]*(?:\((?:[A-Za-z]{1,4}|\d{1,2})\)|\)|[.:\-]?[ \t]*[^\W\d_])")
# how many values on each side of the chosen one a listing is followed for
_LISTING_REACH = 400
_QUOTED = 80


def negations(extraction: Extraction) -> dict[int, str]:
    """The negation that governs each negated candidate (`≠ 64`, `not 64`), by position, as
    written with the value; a value with none is absent."""
    found: dict[int, str] = {}
    previous_end = 0
    text = extraction.text
    for position in _ordered(extraction):
        candidate = extraction.candidates[position]
        statement = extraction.statements[candidate.statement].start \
            if candidate.statement < len(extraction.statements) else 0
        start = max(previous_end, candidate.start - _REACH, statement)
        previous_end = max(previous_end, candidate.end)
        tail = text[start:candidate.start] if start < candidate.start else ""
        m = _NEGATED.search(tail)
        if m is not None:
            found[position] = " ".join(f"{tail[m.start():]}{candidate.source}".split())
    return found


def hedged(extraction: Extraction, position: int, used: set[int]) -> tuple[tuple[int, str], ...]:
    """The neighbours of the candidate at `position` the answer offers as alternatives to it
    (either side) or takes it back for (after it), each with the reason, quoting the words
    that join them."""
    ordered = _ordered(extraction)
    here = ordered.index(position) if position in ordered else -1
    if here < 0:
        return ()
    text = extraction.text
    chosen = extraction.candidates[position]
    found: list[tuple[int, str]] = []
    for step in (-1, 1):
        k = here + step
        if not 0 <= k < len(ordered) or ordered[k] in used:
            continue
        other = extraction.candidates[ordered[k]]
        if other.working or other.is_vector != chosen.is_vector:
            continue
        first, second = (other, chosen) if step < 0 else (chosen, other)
        gap = text[first.end:second.start]
        if len(gap) > _GAP:
            continue
        joined = " ".join(f"{first.source}{gap}{second.source}".split())
        if _ALTERNATIVE.fullmatch(gap):
            found.append((ordered[k], f"the answer offers alternatives: “{joined}”"))
        elif step > 0 and _TAKEN_BACK.match(gap):
            found.append((ordered[k], f"the answer takes a value back: “{joined}”"))
    return tuple(found)


def _ordered(extraction: Extraction) -> list[int]:
    """The positions of the values read from the text, in the order written (not the vectors
    assembled from bare lists afterwards)."""
    return [i for i, c in enumerate(extraction.candidates) if not c.listed]


def listed_beside(extraction: Extraction, position: int,
                  used: set[int]) -> tuple[tuple[int, str], ...]:
    """The values listed side by side with the candidate at `position` (only list punctuation
    between each and the next, `32, 64, 128`), those before it then those after, each with the
    reason quoting the listing; values another item took, working and values of the other kind
    (a vector beside a number) are not returned. The caller keeps those that could answer the
    item."""
    candidates = extraction.candidates
    chosen = candidates[position]
    ordered = [i for i in _ordered(extraction) if candidates[i].is_vector == chosen.is_vector]
    here = ordered.index(position) if position in ordered else -1
    if here < 0:
        return ()
    text = extraction.text
    found: list[int] = []
    start, end = chosen.start, chosen.end
    for step in (-1, 1):
        edge, k, steps = chosen, here + step, 0
        while 0 <= k < len(ordered) and steps < _LISTING_REACH:
            steps += 1
            other = candidates[ordered[k]]
            first, second = (other, edge) if step < 0 else (edge, other)
            if second.start < first.end:  # a piece of the same value (`768` of `768/12`)
                k += step
                continue
            if not _LISTED.fullmatch(text, first.end, second.start) \
                    or _WORDED.match(text, other.end):
                break
            if ordered[k] not in used and not other.working:
                found.append(ordered[k])
            start, end = min(start, other.start), max(end, other.end)
            edge, k = other, k + step
    if not found:
        return ()
    listing = " ".join(text[start:end].split())
    quoted = listing if len(listing) <= _QUOTED else f"{listing[:_QUOTED - 1]}…"
    why = f"the answer lists several values side by side: “{quoted}”"
    return tuple((other, why) for other in found)

