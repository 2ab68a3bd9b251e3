"""Two expressions the answer offers for one target, neither committed to: `q = k_a, or maybe
q = k_b + k_c`, `q = X (or possibly Y)`, `q = X or Y`, `q = X, perhaps Y`.

The grader reads the expression the answer ends on; an alternative offered beside it is read
too, and when the two earn different credit the item goes to a reader with both (an
alternative equal to it, a restatement, earns the same and changes nothing). The words that
offer an alternative are the numeric grader's (graders.hedge_words). Linear scans of bounded
expressions.
"""

from __future__ import annotations

import re
from dataclasses import replace

from graders.hedge_words import OFFERING, offering_gap
from graders.notation import fold_width
from graders.symbolic.expressions import MAX_EXPRESSION, Assignment, chain_values, target_pattern

# what may join two offered expressions: the offering words with punctuation around them
_JOINED = offering_gap(r"[\s,;(\[{$*]*", r"[\s:,$*]*")
# an "or" that restates or corrects (`X or equivalently Y`, `X, or rather Y`): the expressions
# are split, but the later is the answer, not an alternative (`_JOINED` does not match)
_RESTATING = r"(?:,?\s+(?:equivalently|equally|rather|simply|in\s+other\s+words))?,?"
# the offering words inside an expression, after a space, a comma or an opening bracket
_INSIDE = re.compile(rf"(?:(?<=[\s,;])|\(\s*)(?<![A-Za-z\\]){OFFERING}{_RESTATING}\s+",
                     re.IGNORECASE)
# the offering words right after an expression that ends at a comma: `X, or maybe Y`
_AFTER = re.compile(rf"[\s,;]*\(?\s*(?<![A-Za-z\\]){OFFERING}{_RESTATING}\s+", re.IGNORECASE)
# the offering word an expression was cut after (a word of three letters or more ends it:
# `X or possibly Y`, `X or equivalently Y` are read as `X or`)
_TRAILING = re.compile(rf"[\s,;]+(?<![A-Za-z\\]){OFFERING}$", re.IGNORECASE)
# an offered expression is mathematics: an operator, a bracket, a sub- or superscript, a
# command, or a name of one letter (not "or maybe something else")
_MATH = re.compile(r"[_^\\+\-*/()=]|(?<![A-Za-z])[A-Za-z](?![A-Za-z])")


def with_alternatives(text: str, target: str, found: list[Assignment]) -> list[Assignment]:
    """The assignments, each expression that offers another inside it (`X (or possibly Y)`,
    `X or Y`) split in two, and an expression offered after one without the target again
    (`q = X, perhaps Y`) added after it; in the order written."""
    out: list[Assignment] = []
    folded = fold_width(text)
    for assignment in found:
        out.extend(_split(_trimmed(assignment)))
        out.extend(_offered_after(folded, text, target, out[-1]))
    return sorted(set(out), key=lambda a: (a.start, a.end))


def offered_beside(text: str, target: str, found: list[Assignment],
                   chosen: Assignment) -> Assignment | None:
    """The assignment written right before or after `chosen` and joined to it by nothing but
    the offering words (and the target named again: `, or maybe q =`), if any."""
    ordered = sorted(found, key=lambda a: a.start)
    if chosen not in ordered:
        return None
    here = ordered.index(chosen)
    named = re.compile(rf"(?:{target_pattern(target)})\s*&?\s*(?::=|=|\\approx|≈)\s*$")
    for other in (ordered[here - 1] if here > 0 else None,
                  ordered[here + 1] if here + 1 < len(ordered) else None):
        if other is None:
            continue
        first, second = (other, chosen) if other.start < chosen.start else (chosen, other)
        gap = fold_width(text[first.end:second.start])
        if len(gap) > 80:
            continue
        gap = named.sub("", gap)
        if _JOINED.fullmatch(gap) and _MATH.search(other.expression):
            return other
    return None


def _trimmed(assignment: Assignment) -> Assignment:
    """The assignment without an offering word it was cut after (`X or` of `X or possibly
    Y`): what follows is read as the alternative (`_offered_after`)."""
    expression = assignment.expression.rstrip()
    m = _TRAILING.search(expression)
    if m is None or not expression[:m.start()].strip():
        return assignment
    return replace(assignment, expression=expression[:m.start()],
                   end=assignment.start + m.start())


def _split(assignment: Assignment) -> list[Assignment]:
    expression = assignment.expression
    depths = _depths(expression)
    for m in _INSIDE.finditer(expression):
        bracketed = m.group(0).startswith("(")
        if depths[m.start()] != 0:
            continue
        left = expression[:m.start()].rstrip(" ,;")
        right_start = m.end()
        right = expression[right_start:]
        if bracketed:  # `X (or possibly Y)`: the bracket closes the expression
            if not right.rstrip().endswith(")") or depths[len(expression.rstrip()) - 1] != 1:
                continue
            right = right.rstrip()[:-1]
        right = right.rstrip(" .,;")
        if left.strip() and right.strip() and _MATH.search(right):
            start = assignment.start
            return [replace(assignment, expression=left, end=start + len(left)),
                    replace(assignment, expression=right.strip(),
                            start=start + right_start + (len(right) - len(right.lstrip())),
                            end=start + right_start + len(right))]
    return [assignment]


def _offered_after(folded: str, written: str, target: str,
                   assignment: Assignment) -> list[Assignment]:
    m = _AFTER.match(folded, assignment.end)
    if m is None or re.match(target_pattern(target), folded[m.end():]):
        return []  # none, or the target named again: found as an assignment of its own
    links = chain_values(folded, written, target, m.end())
    if not links or not _MATH.search(links[-1].expression):
        return []
    return [links[-1]]


def _depths(expression: str) -> list[int]:
    """The bracket depth before each character (bounded: an expression is at most
    MAX_EXPRESSION long when it is read)."""
    depths, depth = [], 0
    for ch in expression[:MAX_EXPRESSION * 2]:
        depths.append(depth)
        depth += ch in "{(["
        depth -= ch in "})]" and depth > 0
    depths.extend([depth] * (len(expression) - len(depths) + 1))
    return depths
