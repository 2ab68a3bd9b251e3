"""An assignment a student emphasised in Markdown: `(a) **L = (H·W)/P² + 1**`, `*N = D(P²C +
1)*`, `__s = m/127__` (trial 10's eve.md bolds every answer). The closing marks are the
student's formatting: `**` at the end of an expression is no power (before, it was read as `^`
with nothing after it and the item went to review, "cannot read the expression"). A power
typed in Python (`2**(b - 1)`) and a starred name (`w^*`) keep their stars."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.symbolic.expressions import find_assignments

EXPRESSIONS = ["(H·W)/P² + 1", "HW/P^2 + 1", "D(P²C + 1)", "P**2*C*D + D", "m/(2**(b-1) - 1)",
               "r(d_in + d_out)", "(H/P)*(W/P) + 1"]
WRAPS = ["**", "__", "***"]  # a lone `*` before the target is a product sign


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(EXPRESSIONS), st.sampled_from(WRAPS),
       st.sampled_from(["(a) ", "b) ", "", "- "]), st.sampled_from(["", ".", "  "]))
def test_emphasis_around_an_assignment_is_formatting(expression: str, wrap: str, marker: str,
                                                     end: str) -> None:
    text = f"{marker}{wrap}L = {expression}{wrap}{end}\n"
    found = find_assignments(text, "L")
    assert [a.expression for a in found] == [expression], text


def test_stars_of_the_expression_stay() -> None:
    assert [a.expression for a in find_assignments("s = 2**(b - 1)\n", "s")] == ["2**(b - 1)"]
    assert [a.expression for a in find_assignments("v = w^*\n", "v")] == ["w^*"]
