"""A trig function's argument written without brackets (`cos mθ cos nθ + sin mθ sin nθ`,
`\\cos m\\theta`, `cos m theta`) or in square brackets (`cos[m theta]`), as students expand RoPE's
rotated dot product (the fifth trial homework), and an expression after a sub-part label that
opens its line (`1-b  s = ...`, `2a) s = ...`). Before: `cos m theta` was read as the letters
c·o·s·m·θ, and the label before the target made it no left-hand side ('no expression for s
was found'); with the label read, `cos[m theta]` was graded 0 at 0.85 until square brackets
were read as the call's."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.symbolic.expressions import find_assignments, tidy

PROPERTY = settings(max_examples=100, deadline=None, database=None, derandomize=True)
THETA = st.sampled_from(["θ", " theta", r"\theta", r" \theta"])


@PROPERTY
@given(st.sampled_from(["cos", r"\cos", "sin", r"\sin"]), st.sampled_from("mnkx"), THETA,
       st.sampled_from([" ", "  "]))
def test_a_bare_argument_is_the_product_after_the_function(function, name, theta, gap):
    text = f"{function}{gap}{name}{theta} + 1"
    out = tidy(text)
    assert out.startswith("\\" + function.lstrip("\\") + "(" + name), (text, out)
    assert out.endswith(") + 1"), (text, out)


@PROPERTY
@given(st.sampled_from([r"\cos(m\theta)", "cos((m-n)θ)", "cos^2 x", r"\sin_i x"]))
def test_an_argument_in_brackets_or_a_power_is_left_alone(text):
    assert tidy(text).count("(") == text.count("("), (text, tidy(text))


@PROPERTY
@given(st.sampled_from(["1-b", "1b)", "1.b", "Q1b", "2a."]), st.sampled_from(["  ", " "]))
def test_a_sub_part_label_opening_the_line_leaves_the_target_the_left_hand_side(label, gap):
    text = f"0.3 radians\n\n{label}{gap}s = cos(m θ) cos(n θ)"
    assert [a.expression for a in find_assignments(text, "s")] == ["cos(m θ) cos(n θ)"], text


@PROPERTY
@given(st.sampled_from(["cos", "sin", r"\cos", "exp", "tan"]), st.sampled_from("mnx"), THETA)
def test_square_brackets_around_an_argument_are_its_parentheses(function, name, theta):
    text = f"{function}[{name}{theta}] + 1"
    out = tidy(text)
    assert out.startswith("\\" + function.lstrip("\\") + "(") and "[" not in out, (text, out)
