"""Numbers past a float's range as students (or an attacker) write them: a long run of digits,
a long decimal, a mantissa with a large exponent, a fraction or product of such numbers, in
plain text or LaTeX, beside the right answer or alone. The grader compares values as floats
(tolerances, roundings, plausible ranges), and such a value reached it as an exact fraction:
`float()` raised OverflowError and the item was a grader_error (a service fault) instead of
an answer read as no number. Now a value past 1e300, or a number written with more than 400
digits, is out of range like an infinite float: never a grader_error, and the right answer
beside it is still credited."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.numeric.arith import EvalError, evaluate
from graders.results import Status
from tests.graders.numeric.test_properties import grade

LONG = settings(max_examples=150, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def _huge(draw: st.DrawFn) -> str:
    digits = draw(st.integers(290, 5000))
    lead = draw(st.sampled_from("123456789"))
    number = lead + draw(st.sampled_from("0379")) * (digits - 1)
    shape = draw(st.sampled_from(["plain", "decimal", "exponent", "fraction", "product",
                                  "latex fraction", "latex power", "grouped"]))
    if shape == "decimal":
        return number + "." + "5" * draw(st.integers(1, 50))
    if shape == "exponent":
        return number[:draw(st.integers(1, 300))] + "e" + str(draw(st.integers(1, 300)))
    if shape == "fraction":
        return f"{number}/{draw(st.integers(1, 9))}"
    if shape == "product":
        return f"{number[:200]} × {number[:200]}"
    if shape == "latex fraction":
        return f"$\\frac{{{number}}}{{{draw(st.integers(1, 9))}}}$"
    if shape == "latex power":
        return f"${number[:200]} \\times 10^{{{draw(st.integers(100, 300))}}}$"
    if shape == "grouped":
        return ",".join(number[i:i + 3] for i in range(0, min(len(number), 1200), 3))
    return number


@LONG
@given(number=_huge())
def test_a_number_past_a_floats_range_is_out_of_range_never_an_overflow(number: str) -> None:
    try:
        value = evaluate(number.strip("$"))
    except EvalError:
        return
    assert abs(float(value.value)) < float("inf")


@LONG
@given(number=_huge(), beside=st.booleans())
def test_a_huge_number_in_an_answer_is_never_a_grader_error(number: str, beside: bool) -> None:
    text = f"d_head = {number}" if not beside else f"d_head = 64 (not {number})"
    results = grade("B1", text)
    assert all(r.status != Status.GRADER_ERROR for r in results.values()), \
        {k: r.feedback for k, r in results.items()}
    if beside:
        assert results["b1.d_head"].points > 0, results["b1.d_head"].feedback
