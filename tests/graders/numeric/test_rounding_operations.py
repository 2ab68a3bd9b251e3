"""A count given as the result of a rounding: the student computes a fraction, then rounds it with
a function or a symbol (`\\mathrm{round}(30.75) = 31`, `round(30.75) = 31`, `\\lceil 30.2 \\rceil
= 31`, `⌊30.75⌋ = 30`, `math.ceil(30.2) = 31`) or says it (`30.75 ≈ 31` for a count). The answer
is the value after the rounding, not its argument. The reader once took the argument behind a
closing `\\rceil`/`\\rfloor`/`⌉` as a value of its own: a rival of the result (review for a right
answer) or the value graded ("30.2 is not the expected value 30" when the student wrote 31), and
read `30.75 ≈ 31` as the precise value restated, so a count of 31 written so was a confident 0.
A value that is a count (`590,592 ≈ 0.59 M`) is still graded on the precise value
(test_rounded_restatements.py)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import ItemResult, Status
from tests.graders.numeric.test_hedged_values import grade

LABELS = ("batches", "steps", "the number of GPUs", "n_tokens")
# an operation on the argument `{v}`; `up` says whether it rounds up (ceil), down or to nearest
OPERATIONS = (
    ("\\mathrm{{round}}({v})", "nearest"), ("round({v})", "nearest"),
    ("\\operatorname{{round}}({v})", "nearest"), ("\\text{{round}}\\left({v}\\right)", "nearest"),
    ("\\lceil {v} \\rceil", "up"), ("\\left\\lceil {v} \\right\\rceil", "up"),
    ("⌈{v}⌉", "up"), ("ceil({v})", "up"), ("math.ceil({v})", "up"),
    ("\\lfloor {v} \\rfloor", "down"), ("\\left\\lfloor {v}\\right\\rfloor", "down"),
    ("⌊{v}⌋", "down"), ("floor({v})", "down"), ("np.floor({v})", "down"),
)
# how the result is joined to the operation
RESULTS = (" = {r}", "={r}", " \\approx {r}", " → {r}", ", i.e. {r}", " which is {r}")
FRAMES = ("{label} = {x}/{d} = {op}", "The {label} needed: ${op}$.", "{label}: ${op}$",
          "- **{label}**: {op}", "{label} = {op} in total", "$${label} = {op}$$")
APPROX = (" ≈ {r}", " \\approx {r}", " ~ {r}", " (≈ {r})", " = {r}")
APPROX_FRAMES = ("{label} = {x}/{d} = {v}{a}", "The {label} is {x}/{d} = {v}{a}.",
                 "$ {label} = \\frac{{{x}}}{{{d}}} = {v}{a} $")


def _decimal(value: Fraction) -> str:
    whole, rest = divmod(value, 1)
    text = str(int(whole))
    decimals = ""
    while rest:
        rest *= 10
        decimals += str(int(rest))
        rest -= int(rest)
    return text + ("." + decimals if decimals else "")


def _full(result: ItemResult) -> bool:
    return result.status is Status.GRADED and result.points == result.max_points


def _rounded(v: Fraction, how: str) -> int:
    if how == "up":
        return -(-v.numerator // v.denominator)
    if how == "down":
        return v.numerator // v.denominator
    return int((v + Fraction(1, 2)) // 1)


@st.composite
def _fraction(draw: st.DrawFn) -> tuple[int, int, Fraction]:
    d = draw(st.sampled_from((4, 8, 5, 20)))
    x = draw(st.integers(40, 4000).filter(lambda x: x % d != 0))
    return x, d, Fraction(x, d)


@settings(max_examples=120, deadline=None)
@given(_fraction(), st.sampled_from(OPERATIONS), st.sampled_from(RESULTS),
       st.sampled_from(FRAMES), st.sampled_from(LABELS))
def test_the_result_of_a_rounding_operation_is_the_answer(
        fraction: tuple[int, int, Fraction], operation: tuple[str, str], joined: str,
        frame: str, label: str) -> None:
    x, d, v = fraction
    op, how = operation
    r = _rounded(v, how)
    written = op.format(v=_decimal(v)) + joined.format(r=r)
    text = frame.format(label=label, x=x, d=d, op=written)
    result = grade(text, r, label)
    assert _full(result), (text, result)
    # a key the result is not: graded on the result, never on the argument
    for other in (r + 1, r - 1):
        wrong = grade(text, other, label)
        assert wrong.points == 0, (text, other, wrong)
        assert _decimal(v) not in wrong.feedback, (text, other, wrong.feedback)


@settings(max_examples=80, deadline=None)
@given(_fraction(), st.booleans(), st.sampled_from(APPROX), st.sampled_from(APPROX_FRAMES),
       st.sampled_from(LABELS))
def test_a_fraction_rounded_to_a_count_is_answered_by_the_count(
        fraction: tuple[int, int, Fraction], up: bool, approx: str, frame: str,
        label: str) -> None:
    """`30.75 ≈ 31` (or `= 31`) for a count: a count is a whole number, so the whole number the
    student settled on is the answer; the fraction before it is its working."""
    x, d, v = fraction
    r = _rounded(v, "up" if up else "down")
    text = frame.format(label=label, x=x, d=d, v=_decimal(v), a=approx.format(r=r))
    result = grade(text, r, label)
    assert _full(result), (text, result)
    other = _rounded(v, "down" if up else "up")
    wrong = grade(text, other, label)
    assert not _full(wrong), (text, wrong)
