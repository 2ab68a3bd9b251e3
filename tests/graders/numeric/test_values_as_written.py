"""Values as students write them, each class once read wrongly or not at all (a right answer
called missing, or graded on the wrong value): a magnitude (`1.05M`, `590K`, `1.77 million.`
ending a sentence), a typed power (`3.15·10⁶` was 31.5), a value after an abbreviation or a
full stop (`i.e. 64`, `the end. 64`), a factor after a sub-part marker (`(b) x16`), a value
two items' cues name, and the expected value written beside a known mistake."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.numeric.extract import extract
from graders.numeric.factors import factor_readings
from graders.results import Status
from graders.rubric import parse_rubric

SCALES = {"K": 10**3, "M": 10**6, "B": 10**9, " thousand": 10**3, " million": 10**6,
          " billion": 10**9}


def _values(text: str) -> list[Fraction]:
    return [Fraction(c.value) for c in extract(text).candidates if not c.is_vector]


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 999), st.integers(0, 99), st.sampled_from(sorted(SCALES)),
       st.sampled_from(["", "about ", "~", "roughly ", "(c) total: "]),
       st.sampled_from(["", ".", " parameters.", " params in total", ". The rest is small."]))
def test_a_value_with_a_magnitude_is_read_with_it(whole: int, cents: int, scale: str,
                                                  before: str, after: str) -> None:
    number = f"{whole}.{cents:02d}"
    value = Fraction(number) * SCALES[scale]
    assert value in _values(f"{before}{number}{scale}{after}")


def test_a_letter_that_is_no_magnitude_is_not_read_as_one() -> None:
    assert _values("2 M") == [2]  # spaced: a name, not a magnitude
    assert _values("12Mb") == [12]
    assert _values("d_model = 512, so n M is large") == [512]


MARKERS = ["(b)", "b)", "(ii)", "ii)", "2)", "(c)", "- (b)", "**(b)**", "(b):"]
FACTORS = {"x16": 16, "×4": 4, "x 2": 2, "×16": 16}


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(MARKERS), st.sampled_from(sorted(FACTORS)),
       st.sampled_from(["", "(a) O(n^2 d) ", "(a) quadratic\n"]))
def test_a_factor_after_a_sub_part_marker_is_read(marker: str, factor: str,
                                                  before: str) -> None:
    text = f"{before}{marker} {factor}"
    assert Fraction(FACTORS[factor]) in [r.value for r in factor_readings(text)], text


def test_a_product_after_a_bracket_is_still_no_factor() -> None:
    assert not factor_readings("(N/P) x 4 patches")
    assert not factor_readings("the shape (768) x 64")


SHARED = """
slug: shared-values
title: Two values in one sentence
questions:
  - id: P2
    items:
      - id: p2.var
        points: 1
        grader: numeric
        config: {expected: 64, kind: integer, cues: [variance], avoid_cues: [after, scaled]}
      - id: p2.scaled
        points: 1
        grader: numeric
        config: {expected: 1, kind: integer, cues: [after, scaled, "divid*"]}
"""


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["var(q.k) = d_k = 64 (std 8); ", "The variance is 64 (std 8). ", ""]),
       st.sampled_from(["divided by sqrt(d_k) the variance is 1",
                        "dividing by sqrt(d_k), the variance becomes 1"]))
def test_an_item_whose_value_was_read_for_a_sibling_is_never_called_missing(
        before: str, after: str) -> None:
    """Both items' cues name the last value: one of them takes it, and the other is sent to a
    reader with it as the suggestion, never "no value found" at confidence 0.85."""
    rubric = parse_rubric(SHARED).rubric
    question = rubric.questions[0]
    text = before + after
    context = GradingContext(rubric=rubric, question=question, resources=GradingResources(),
                             submission=ParsedSubmission(text=text, format="text", answers={}))
    results = GRADER.grade_items(question.items, LocatedAnswer("P2", text), context)
    by_id = {r.item_id: r for r in results}
    assert by_id["p2.scaled"].status is not Status.MISSING, by_id["p2.scaled"].feedback
    assert all(r.status is Status.NEEDS_REVIEW or r.points == r.max_points
               for r in results), [r.feedback for r in results]


SUPERSCRIPTS = dict(zip("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻", strict=True))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 99), st.integers(-6, 9), st.sampled_from(["·", "×", "*", " x "]),
       st.sampled_from(["", "≈ ", "total = "]))
def test_a_power_of_ten_typed_in_superscripts_is_read(mantissa: int, exponent: int,
                                                      times: str, before: str) -> None:
    """`3.15·10⁶` was read as 31.5 (the superscript dropped)."""
    shown = f"{mantissa / 10:g}"
    power = "".join(SUPERSCRIPTS[c] for c in str(exponent))
    value = Fraction(shown) * Fraction(10) ** exponent
    assert value in _values(f"{before}{shown}{times}10{power}")


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10**6), st.sampled_from(["i.e. ", "e.g. ", "the end. ", "That is. ",
                                               "i.e., ", "ie "]),
       st.sampled_from(["", " heads", " parameters.", "."]))
def test_a_value_after_an_abbreviation_or_a_full_stop_is_read(value: int, before: str,
                                                               after: str) -> None:
    assert value in _values(f"the variance equals d_k, {before}{value}{after}")


def test_a_decimal_point_and_the_constant_e_keep_their_meaning() -> None:
    assert _values(".5 of it") == [Fraction(1, 2)]
    assert Fraction(2718, 1000) in _values("e = 2.718")
    assert len(_values("e^2 = 7.389")) == 2


KNOWN = """
slug: known-beside
title: A known mistake beside the right value
questions:
  - id: P2
    items:
      - id: p2.var
        points: 1
        grader: numeric
        config:
          expected: 64
          kind: integer
          cues: [variance]
          known_mistakes: [{value: 8, points: 0, feedback: 8 is the standard deviation.}]
"""


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["the variance is 64 (we had d_k = 64)", "64 is the variance",
                        "d_k = 64 terms"]),
       st.sampled_from(["the variance: sqrt(64) = 8", "variance 8"]))
def test_the_expected_value_beside_a_chosen_known_mistake_is_never_a_confident_zero(
        right: str, wrong: str) -> None:
    rubric = parse_rubric(KNOWN).rubric
    question = rubric.questions[0]
    text = f"{right}; {wrong}"
    context = GradingContext(rubric=rubric, question=question, resources=GradingResources(),
                             submission=ParsedSubmission(text=text, format="text", answers={}))
    [result] = GRADER.grade_items(question.items, LocatedAnswer("P2", text), context)
    assert result.points == 1 or result.status is Status.NEEDS_REVIEW, result.feedback


@settings(max_examples=150, deadline=None)
@given(st.integers(1000, 10**9), st.data())
def test_ocr_letters_inside_a_comma_grouped_count_read_as_digits(value: int,
                                                                 data: st.DataObject) -> None:
    """`1,O50,624` was read as 1: OCR takes a handwritten 0 for O or o and a 1 for l or I."""
    written = f"{value:,}"
    head, _, tail = written.partition(",")
    swap = {"0": data.draw(st.sampled_from("0Oo")), "1": data.draw(st.sampled_from("1lI"))}
    tail = "".join(swap.get(c, c) for c in tail)
    assert value in _values(f"(a) attention: {head},{tail} parameters")


def test_words_with_those_letters_stay_words() -> None:
    assert _values("Hello, I am done") == []
    assert _values("the values 1,Old and 2") == [1, 2]
