"""A vector typed in LaTeX with a thin space after each comma, `$(0.925,\\,0.025,\\,0.025)$`,
was read with its components out of order (the first last: (0.025, 0.025, 0.925)), so a right
answer was graded wrong component by component, and `(92.5\\%,\\,2.5\\%, ...)` not found at all
(trial homework 4, a smoothed label vector). The comma of a LaTeX space (`\\,`, `\\;`, `\\:`,
`\\!`, `\\ `) separates nothing."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.extract import extract

SEPARATORS = [",\\,", ",\\;", ", \\,", ",\\ ", ";\\,", ",\\:"]
BRACKETS = [("(", ")"), ("[", "]"), ("\\left(", "\\right)"), ("\\begin{bmatrix}", "\\end{bmatrix}")]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 999), min_size=2, max_size=6), st.sampled_from(SEPARATORS),
       st.sampled_from(BRACKETS), st.booleans())
def test_a_latex_spaced_vector_keeps_its_order(thousandths: list[int], separator: str,
                                               brackets: tuple[str, str], percent: bool) -> None:
    values = tuple(Fraction(t, 1000) for t in thousandths)
    shown = [f"{float(v * 100):g}\\%" if percent else f"{float(v):g}" for v in values]
    if brackets[0].startswith("\\begin"):
        separator = "&" + separator[1:]  # `0.925 &\, 0.025`
    text = f"(a) $q = {brackets[0]}{separator.join(shown)}{brackets[1]}$"
    vectors = [c.value for c in extract(text).candidates if c.is_vector]
    assert values in vectors, (text, vectors)
