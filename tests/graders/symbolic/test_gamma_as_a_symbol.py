"""A γ written directly before an operator or a bracket is the symbol γ: `\\alpha^{\\gamma+1}`,
`gamma-1`, `\\gamma(k_a + k_b)` (a scale factor), `\\gamma_1 + 1`. The LaTeX parser read such a
`\\gamma` as Euler's gamma function applied to what follows (`\\gamma+1` became Γ(+1) = 1, so
`(1 - \\alpha^{\\gamma+1}) / (1 - \\alpha)` was 1 and graded 0 at confidence 0.9 in trial homework
12; `\\gamma-1` became Γ(-1), infinite), while `\\gamma + 1` with spaces was the symbol."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.symbolic import worker
from graders.symbolic.expressions import tidy

SPELLINGS = ["\\gamma", "gamma", "γ"]
OPS = ["+", "-"]


def _compare(student: str, expected: str) -> str:
    reply = worker.compare({"op": "compare", "mode": "equivalent", "student": tidy(student),
                            "expected": tidy(expected), "scalars": [], "aliases": {}})
    assert reply["ok"], reply
    return str(reply["verdict"])


@st.composite
def _formula(draw: st.DrawFn) -> tuple[str, str]:
    g = draw(st.sampled_from(SPELLINGS))
    op = draw(st.sampled_from(OPS))
    k = draw(st.integers(1, 3))
    gap = draw(st.sampled_from(["", " "]))
    sub = draw(st.sampled_from(["", "_1", "_{t}"]))
    plain_sub = {"": "", "_1": "_1", "_{t}": "_t"}[sub]
    forms = [
        (f"x^{{{g}{sub}{gap}{op}{gap}{k}}}", f"x^(gamma{plain_sub} {op} {k})"),
        (f"\\frac{{1 - \\alpha^{{{g}{sub}{op}{k}}}}}{{1 - \\alpha}}",
         f"(1 - alpha^(gamma{plain_sub} {op} {k})) / (1 - alpha)"),
        (f"{g}{sub}(k_a {op} k_b)", f"gamma{plain_sub} * (k_a {op} k_b)"),
        (f"{g}{sub}{gap}{op}{gap}{k}", f"gamma{plain_sub} {op} {k}"),
    ]
    return draw(st.sampled_from(forms))


@settings(max_examples=12, deadline=None)
@given(_formula())
def test_gamma_before_an_operator_or_bracket_is_the_symbol(pair: tuple[str, str]) -> None:
    student, expected = pair
    assert _compare(student, expected) == "equivalent", pair


@settings(max_examples=5, deadline=None)
@given(_formula(), st.integers(2, 4))
def test_another_power_of_gamma_is_still_different(pair: tuple[str, str], power: int) -> None:
    student, expected = pair
    assert _compare(f"({student})^{{{power}}}", expected) == "different", pair
