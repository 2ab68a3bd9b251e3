"""A set written with plain braces in prose or an OCR transcript (`experts {2, 4}`, `chosen =
{3,1}`), as `\\{2, 4\\}` is in LaTeX: one list in the order written. Before, only LaTeX's set
braces were a bracket: after a word the list came out reversed (4, 2), the second value quoted
with the words before it. A LaTeX group (`\\frac{2}{4}`, `x^{2}`, `W_{1,2}`) is no set."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.extract import extract

PROPERTY = settings(max_examples=100, deadline=None, database=None, derandomize=True)


@PROPERTY
# (from 1: `{0,5}` reads as the decimal comma 0.5, in brackets too)
@given(st.lists(st.one_of(st.integers(1, 99), st.decimals("1", "9", places=2)),
                min_size=2, max_size=5),
       st.sampled_from([", ", ",", " , "]),
       st.sampled_from(["experts ", "the top-2 experts are ", "chosen = ", "3 a) experts ", ""]))
def test_values_in_plain_braces_are_one_list_in_written_order(values, sep, lead):
    text = f"{lead}{{{sep.join(str(v) for v in values)}}}"
    vectors = [c.value for c in extract(text).candidates if c.is_vector]
    assert vectors == [tuple(Fraction(v) for v in values)], text


@PROPERTY
@given(st.integers(1, 9), st.integers(1, 9),
       st.sampled_from(["\\frac{{{a}}}{{{b}}}", "x^{{{a}, {b}}}", "W_{{{a},{b}}}",
                        "\\text{{{a}, {b}}}"]))
def test_a_latex_group_is_no_set(a, b, form):
    text = "$" + form.format(a=a, b=b) + "$"
    assert not [c for c in extract(text).candidates if c.is_vector], text
