"""A precise value, then the same value rounded: `590,592 ≈ 0.59 M`, `590,592 = 0.59M`,
`590,592 (about 590k)`, `590,592 ~5.9e5`. Students round a count they have computed exactly to
make it readable; that is one answer written twice, not two rivals, and the precise value is
what is graded. The grader once took the rounded restatement as the answer (the last value of
the chain): 0 points, "a count must be exact, not rounded", for the exact count.

Conversely, a value taken back for a rounded one (`590,592? no, 0.59 M`) is a correction: the
precise value is not the answer the student settled on, and it is not full credit (it was
graded correct with no review)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.results import ItemResult, Status
from tests.graders.numeric.test_hedged_values import grade

LABELS = ("params", "total", "the count")
# how the rounded value is joined to the precise one
RESTATED = ("{label} = {v} ≈ {r}", "{label} = {v} = {r}", "{label} = {v} ~{r}",
            "{label} = {v} ~ {r}", "$ {label} = {v} \\approx {r} $", "{label} = {v} (about {r})",
            "{label} = {v} (≈ {r})", "{label} = {v} (roughly {r})", "The {label} is {v} ≈ {r}.")
CORRECTED = ("{label} = {v}? no, {r}", "{label} = {v}? No, it is {r}.")


def _rounded(v: int, digits: int) -> int:
    unit = 10 ** max(0, len(str(v)) - digits)
    return int((Fraction(v, unit) + Fraction(1, 2)) // 1) * unit


def _decimal(value: Fraction) -> str:
    whole, rest = divmod(value, 1)
    text = str(int(whole))
    if rest:
        decimals = ""
        while rest:
            rest *= 10
            decimals += str(int(rest))
            rest -= int(rest)
        text += "." + decimals
    return text


def _spellings(r: int) -> list[str]:
    """The rounded value as students write it: grouped digits, a magnitude, a power of ten."""
    exponent = len(str(r)) - 1
    spelled = [f"{r:,}", f"{_decimal(Fraction(r, 10**exponent))}e{exponent}",
               f"{_decimal(Fraction(r, 10**exponent))} × 10^{exponent}"]
    if r >= 10**5:
        spelled += [f"{_decimal(Fraction(r, 10**6))}M", f"{_decimal(Fraction(r, 10**6))} M",
                    f"{_decimal(Fraction(r, 10**6))} million"]
    if r >= 10**3:
        spelled += [f"{_decimal(Fraction(r, 10**3))}k"]
    return spelled


def _full(result: ItemResult) -> bool:
    return result.status is Status.GRADED and result.points == result.max_points


@settings(max_examples=150, deadline=None)
@given(st.integers(10_000, 90_000_000), st.integers(1, 4), st.data(),
       st.sampled_from(LABELS), st.sampled_from(RESTATED), st.booleans())
def test_a_precise_value_restated_rounded_is_graded_on_the_precise_value(
        v: int, digits: int, data: st.DataObject, label: str, frame: str,
        grouped: bool) -> None:
    r = _rounded(v, digits)
    assume(r != v)
    rounded = data.draw(st.sampled_from(_spellings(r)))
    text = frame.format(label=label, v=f"{v:,}" if grouped else v, r=rounded)
    result = grade(text, v, label)
    assert _full(result), (text, result)
    # the precise value is what is graded: a wrong one restated rounded to the same is wrong
    wrong = grade(text, v + 1 if _rounded(v + 1, digits) == r else v - 1, label)
    assert not _full(wrong), (text, wrong)


@settings(max_examples=60, deadline=None)
@given(st.integers(10_000, 90_000_000), st.integers(1, 4), st.data(),
       st.sampled_from(LABELS), st.sampled_from(CORRECTED))
def test_a_value_taken_back_for_a_rounded_one_is_no_restatement(
        v: int, digits: int, data: st.DataObject, label: str, frame: str) -> None:
    r = _rounded(v, digits)
    assume(r != v)
    rounded = data.draw(st.sampled_from(_spellings(r)))
    text = frame.format(label=label, v=f"{v:,}", r=rounded)
    result = grade(text, v, label)
    assert not _full(result), (text, result)


OPERATED = ("q = round({v}) = {r}", "$q = round({v}) = {r}$", "**5.b** q = round({v}) = {r}",
            "q = floor({v}) = {f}", "q = round( {v} ) = {r}",
            "q &= \\mathrm{{round}}({x} / 4) = \\mathrm{{round}}({v}) = {r} \\\\")


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 200), st.sampled_from(("0.25", "0.1", "0.45", "0.3")), st.booleans(),
       st.sampled_from(OPERATED))
def test_a_rounding_done_as_an_operation_gives_its_result(
        r: int, fraction: str, below: bool, frame: str) -> None:
    """`q = round(30.75) = 31` (a quantised value: the adapters trial's 5.b) is no precise value
    restated: the item asks for the result of the rounding."""
    v = Fraction(r) - Fraction(fraction) if below else Fraction(r) + Fraction(fraction)
    floor = int(v // 1)
    text = frame.format(v=_decimal(v), r=r, f=floor, x=_decimal(4 * v))
    result = grade(text, floor if "floor" in frame else r, "q =")
    assert _full(result), (text, result)
