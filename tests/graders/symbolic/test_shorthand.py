"""LaTeX's and handwriting's shorthand braced for the parser (graders/symbolic/shorthand.py):
`\\frac1{\\sqrt{d_k}}`, `\\sqrt2`, `1/√d_k`, `d_k^(-1/2)` were refused as unreadable, and
`=> c = ...` was not read as an assignment, so correct derivations went to review."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.symbolic.expressions import find_assignments, tidy
from graders.symbolic.shorthand import braced

DIGITS = [str(d) for d in range(1, 10)]
LETTERS = ["d", "k", "n", "x"]
NAMES = ["d_k", "d_{model}", "\\alpha", "n_1"]


def _leaf() -> st.SearchStrategy[tuple[str, str, str]]:
    """(kind, text, text): a digit, a single letter, or a name that needs braces under \\frac."""
    return st.one_of(st.sampled_from(DIGITS).map(lambda d: ("digit", d, d)),
                     st.sampled_from(LETTERS).map(lambda c: ("letter", c, c)),
                     st.sampled_from(NAMES).map(lambda n: ("name", n, n)))


def _full_and_short(draw: st.DrawFn, depth: int) -> tuple[str, str, str]:
    """(kind, fully braced LaTeX, the same as a student might abbreviate it)."""
    if depth == 0:
        return draw(_leaf())
    shape = draw(st.sampled_from(["leaf", "frac", "sqrt", "power", "product"]))
    if shape == "leaf":
        return draw(_leaf())
    a_kind, a_full, a_short = _full_and_short(draw, depth - 1)
    if shape == "sqrt":
        if a_kind in ("digit", "letter", "name") and draw(st.booleans()):
            return "group", f"\\sqrt{{{a_full}}}", f"√{a_short}"
        if draw(st.booleans()):
            return "group", f"\\sqrt{{{a_full}}}", f"√({a_short})"
        short = f"\\sqrt{a_short}" if a_kind == "digit" else f"\\sqrt{{{a_short}}}"
        return "group", f"\\sqrt{{{a_full}}}", short
    if shape == "power":
        return "group", f"x^{{{a_full}}}", f"x^({a_short})"
    b_kind, b_full, b_short = _full_and_short(draw, depth - 1)
    if shape == "product":
        return "group", f"{a_full} {b_full}", f"{a_short} {b_short}"
    first = a_short if a_kind == "digit" else (f" {a_short}" if a_kind == "letter"
                                               else f"{{{a_short}}}")
    second = b_short if b_kind == "digit" else (f" {b_short}" if b_kind == "letter"
                                                else f"{{{b_short}}}")
    return "group", f"\\frac{{{a_full}}}{{{b_full}}}", f"\\frac{first}{second}"


@st.composite
def expressions(draw: st.DrawFn) -> tuple[str, str]:
    _, full, short = _full_and_short(draw, draw(st.integers(1, 3)))
    return full, short


@settings(max_examples=300, deadline=None)
@given(expressions())
def test_shorthand_reads_as_the_braced_expression(pair: tuple[str, str]) -> None:
    full, short = pair
    assert braced(short) == braced(full) == full


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["=>", "⇒", "->", "→", "∴"]), st.sampled_from(["", " ", "  "]))
def test_an_assignment_after_an_arrow_is_found(arrow: str, space: str) -> None:
    text = f"want c^2 d_k = 1\n{arrow}{space}c = 1/√d_k\n"
    found = find_assignments(text, "c")
    assert [tidy(a.expression) for a in found] == ["1/\\sqrt{d_k}"]


def test_unbalanced_or_missing_arguments_are_left_alone() -> None:
    for text in ["\\frac", "\\frac{1", "√", "x^(1", "\\sqrt[3]{x}", "\\frac{a}"]:
        assert braced(text) == text


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["(sum of d_k independent terms)", "= d_k", "Var(q^T k) = d_k.", "1]"]),
       st.sampled_from(["", "    ", "\t"]))
def test_an_assignment_opening_its_line_is_found_whatever_ends_the_line_before(
        previous: str, indent: str) -> None:
    """Handwritten derivations put one step per line; the step before may end in a bracket or a
    number, which is no left-hand side of `c = ...`."""
    found = find_assignments(f"{previous}\n{indent}c = d_k^(-1/2)\n", "c")
    assert [tidy(a.expression) for a in found] == ["d_k^{-1/2}"]
