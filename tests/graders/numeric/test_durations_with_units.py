"""A duration written with its unit (the twelfth trial homework, a decoding step's latency and a
batch's generation time): `0.014 s` where the question asks milliseconds, `3584 ms` where it asks
seconds, `1.4 × 10^-2 s`, `14 msec`, `2 min`, `\\text{ms}`. Before, the number as written was
graded against the value in the asked unit (0.014 against 14: 0 points at confidence 0.75-0.92).
As with sizes (`units.in_unit`), the duration is read in the unit written or in another unit of
time, whichever is nearer the expected value: the asked unit is the item's, and a duration in
another unit of time is the same duration."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.graders.numeric.graded import grade_question

PROPERTY = settings(max_examples=25, deadline=None, database=None, derandomize=True)
# seconds per unit, as students write them
UNITS = {"s": Fraction(1), "sec": Fraction(1), "seconds": Fraction(1), "ms": Fraction(1, 10**3),
         "msec": Fraction(1, 10**3), "milliseconds": Fraction(1, 10**3),
         "µs": Fraction(1, 10**6), "us": Fraction(1, 10**6), "microseconds": Fraction(1, 10**6),
         "min": Fraction(60), "minutes": Fraction(60)}
ASKED = {"ms": Fraction(1, 10**3), "s": Fraction(1), "µs": Fraction(1, 10**6),
         "min": Fraction(60)}
SENTENCES = ["One step takes {v}{gap}{u}.", "latency = {v}{gap}{u}",
             "t = 14e9 / 1e12 = {v}{gap}{u} per step", "**{v}{gap}{u}**",
             "$t = {v}\\,\\text{{{u}}}$"]


def _grade(expected: Fraction, text: str) -> tuple[Decimal, str]:
    result = grade_question(f"""
slug: durations
title: Durations
questions:
  - id: Q4
    items:
      - id: q4.time
        points: 2
        grader: numeric
        config: {{expected: {float(expected)!r}, rel_tolerance: 0.01, cues: [step, latency]}}
""", text)["q4.time"]
    return result.points, result.feedback


def _written(value: Fraction) -> str:
    return f"{float(value):.6g}"


@PROPERTY
@given(st.integers(1, 999), st.sampled_from(sorted(UNITS)), st.sampled_from(sorted(ASKED)),
       st.sampled_from(["", " "]), st.sampled_from(SENTENCES))
def test_a_duration_in_another_unit_of_time_is_the_same_duration(count, unit, asked, gap,
                                                                 sentence):
    if "text" in sentence:
        gap = ""
    elif len(unit) > 3:
        gap = " "  # a unit in words is a word of its own
    text = sentence.format(v=count, gap=gap, u=unit)
    expected = count * UNITS[unit] / ASKED[asked]
    points, feedback = _grade(expected, text)
    assert points == Decimal(2), (text, float(expected), feedback)


@PROPERTY
@given(st.integers(2, 999), st.sampled_from(["s", "ms", "min"]), st.sampled_from(sorted(ASKED)),
       st.sampled_from(SENTENCES))
def test_another_duration_is_still_wrong(count, unit, asked, sentence):
    text = sentence.format(v=_written(Fraction(count * 3, 2)), gap=" ", u=unit)
    expected = count * UNITS[unit] / ASKED[asked]
    points, feedback = _grade(expected, text)
    assert points == 0, (text, float(expected), feedback)


def test_a_rate_per_second_is_no_duration():
    # `tokens/s`, `TB/s`: the `s` of a rate is no unit of the value before it
    points, _ = _grade(Fraction(71), "one sequence gets 71 tokens/s at 1 TB/s")
    assert points == Decimal(2)
    points, _ = _grade(Fraction(71000), "one sequence gets 71 tokens/s")
    assert points == 0


@PROPERTY
@given(st.integers(1, 999), st.sampled_from(["GiB", "MB", "KiB"]),
       st.sampled_from(["\\,", "\\;", "~"]))
def test_a_size_in_upright_latex_text_after_a_thin_space_is_read_with_its_unit(count, unit, gap):
    # `2\,\text{GiB}`: the thin space's comma once ended the words after the value
    factor = {"GiB": 2**30, "MB": 10**6, "KiB": 2**10}[unit]
    result = grade_question(f"""
slug: sizes
title: Sizes
questions:
  - id: Q4
    items:
      - id: q4.size
        points: 2
        grader: numeric
        config: {{expected: {count * factor}, cues: [cache]}}
""", f"The cache takes ${count}{gap}\\text{{{unit}}}$.")["q4.size"]
    assert result.points == Decimal(2), (count, unit, result.feedback)


CHAINS = ["{w} {u} = {f} {v}", "t = {w} {u} = {f} {v}", "{w}\\,\\text{{{u}}} = {f}\\,\\text{{{v}}}",
          "so {w} {u} = **{f} {v}**"]


def _chain_rubric(expected: float) -> str:
    return f"""
slug: chains
title: Chains
questions:
  - id: Q4
    items:
      - id: q4.time
        points: 2
        grader: numeric
        config: {{expected: {expected!r}, rel_tolerance: 0.01, cues: [time, total]}}
"""


@PROPERTY
@given(st.integers(2, 512), st.integers(2, 99), st.sampled_from([("ms", "s", 1000), ("s", "ms", 1),
                                                                   ("s", "s", 1)]),
       st.sampled_from(CHAINS), st.sampled_from([1.5, 0.5, 3]))
def test_the_last_step_of_a_chain_with_units_is_graded(steps, step, units, chain, off):
    # `256 x 14 ms = 3.7 s`: the working before `=` is right, the conclusion is not
    u, v, per = units
    expected = Fraction(steps * step, per) if u == "ms" else Fraction(steps * step)
    concluded = expected * Fraction(str(off)) * (1000 if v == "ms" and u == "s" else 1)
    text = chain.format(w=f"{steps} x {step}", u=u, f=_written(concluded), v=v)
    rubric = _chain_rubric(float(expected))
    assert grade_question(rubric, text)["q4.time"].points == 0, (text, float(expected))
    right = expected * (1000 if v == "ms" and u == "s" else 1)
    text = chain.format(w=f"{steps} x {step}", u=u, f=_written(right), v=v)
    assert grade_question(rubric, text)["q4.time"].points == Decimal(2), (text, float(expected))
