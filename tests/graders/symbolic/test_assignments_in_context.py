"""Where an assignment `s = ...` stands in a document (the fifth trial homework: RoPE's dot
product `s = cos((m - n)θ)`): after a sub-part's marker on its line (`(b) s = ...`), in an
align environment (`s &= ... \\\\ &= ...`), and with functions after a space (`cos(mθ)cos(nθ)
+ sin(mθ)sin(nθ)`). Before, the first two found no expression for `s` (the item went to review
at confidence 0.3) and the third was cut before `sin`, an expression that depends on m and n
separately."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.symbolic.expressions import find_assignments

EXPRESSIONS = ["\\cos((m - n)\\theta)", "cos(m*theta - n*theta)", "\\cos\\big((m-n)\\theta\\big)",
               "cos(mθ)cos(nθ) + sin(mθ)sin(nθ)",
               "\\cos(m\\theta)\\cos(n\\theta) + \\sin(m\\theta)\\sin(n\\theta)",
               "exp(i(m - n)θ) + log(2) - tan(x)"]
MARKERS = ["(b)", "b)", "(ii)", "ii)", "(a)"]


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(MARKERS), st.sampled_from(EXPRESSIONS), st.sampled_from(["", "   "]),
       st.sampled_from(["", ", which depends on m - n only", " so only m - n matters"]))
def test_an_assignment_after_a_sub_part_marker_is_read_whole(marker: str, expression: str,
                                                             indent: str, tail: str) -> None:
    text = f"{indent}{marker} s = {expression}{tail}\n"
    found = find_assignments(text, "s")
    assert [a.expression for a in found] == [expression], text


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.lists(st.sampled_from(EXPRESSIONS), min_size=1, max_size=4),
       st.sampled_from(["align*", "align", "aligned"]), st.sampled_from(["", " \\notag"]))
def test_every_row_of_an_align_chain_is_a_link(rows: list[str], env: str, tag: str) -> None:
    body = " \\\\\n    ".join(("s &= " if i == 0 else "&= ") + r + tag for i, r in enumerate(rows))
    text = f"\\begin{{{env}}}\n    {body}\n\\end{{{env}}}\n"
    found = find_assignments(text, "s")
    assert [a.expression.replace(tag, "").strip() for a in found] == rows, text


def test_a_word_or_a_name_before_the_target_still_decides() -> None:
    assert not find_assignments("f(x) s = 3", "s")  # a product: f(x)·s
    assert [a.expression for a in find_assignments("so s = p - y", "s")] == ["p - y"]
