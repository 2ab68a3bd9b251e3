"""Values listed in LaTeX's set braces (`\\{2, 4\\}`, `\\left\\{ 0.73, 0.27 \\right\\}`), as
students name a set of experts, tokens or indices: read as one list in the order written, as
brackets are. Before, the braces were no bracket: the list came out reversed (4, 2) beside loose
numbers."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.extract import extract

PROPERTY = settings(max_examples=100, deadline=None, database=None, derandomize=True)


@PROPERTY
@given(st.lists(st.decimals("0", "999", places=2),
                min_size=2, max_size=5),
       st.sampled_from([("\\{", "\\}"), ("\\left\\{", "\\right\\}"),
                        ("\\left\\{ ", " \\right\\}")]),
       st.sampled_from([", ", ",", ",\\ ", ", \\, "]), st.sampled_from(["", "$"]),
       st.sampled_from(["the chosen experts are ", "S = ", ""]))
def test_values_in_set_braces_are_one_list_in_written_order(values, braces, sep, math, lead):
    written = braces[0] + sep.join(str(v) for v in values) + braces[1]
    text = f"{lead}{math}{written}{math}"
    vectors = [c.value for c in extract(text).candidates if c.is_vector]
    assert vectors == [tuple(Fraction(v) for v in values)], text
