"""Points and words for one chosen value: the key, a known mistake, a coarser rounding, a value
carried forward, a vector component by component, or a reported measurement. Every verdict says
it twice: for staff (may cite the key) and for the student (never does)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from graders.numeric.arith import Number
from graders.numeric.config import NumericConfig
from graders.numeric.rounding import coarser_rounding, rounded_digits
from graders.numeric.select import Choice, close
from graders.results import Status


def show(value: Number | tuple[Number, ...] | float | int) -> str:
    """A number as a person writes it: 589,824 / 0.665 / [0.665, 0.245, 0.09]."""
    if isinstance(value, tuple):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if (isinstance(value, Fraction) and value.denominator == 1) or isinstance(value, int):
        return f"{int(value):,}"
    as_float = float(value)
    if as_float.is_integer() and abs(as_float) < 1e15:
        return f"{int(as_float):,}"
    return f"{as_float:.6g}"


def plain(value: Number) -> str:
    """Machine-readable (no separators), kept in evidence notes for carry-forward."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    return repr(float(value))


@dataclass(frozen=True)
class Verdict:
    points: Decimal | Fraction
    feedback: str
    student: str
    status: Status = Status.GRADED


def _percent(share: Decimal) -> str:
    return f"{(share * 100).normalize():f}%"


def _share(points: Decimal, credit: Decimal) -> Decimal:
    return min(points, points * credit)


def exact(
    points: Decimal, config: NumericConfig, choice: Choice, mentions: Callable[[tuple[str, ...]],
                                                                             bool],
    carried: Callable[[Number], Verdict | None],
) -> Verdict:
    value = choice.value
    if isinstance(config.expected, list):
        return _known_vector(points, config, value, mentions) or vector(points, config, value)
    if isinstance(value, tuple) or config.expected is None:
        text = "Expected a single number, found a list of values."
        return Verdict(Decimal(0), text, text)
    expected = float(config.expected)
    written = show(value)
    if close(value, expected, config):
        note = student = ""
        candidate = choice.candidates[0]
        if candidate.expression and not candidate.boxed:
            note = f" You left “{candidate.source}” unevaluated; it equals {show(value)}."
            student = f" You left “{candidate.source}” unevaluated; evaluate it next time."
        return Verdict(points, f"Correct: {written}.{note}", f"Correct.{student}")
    for mistake in config.known_mistakes:
        if isinstance(mistake.value, int | float) and close(value, float(mistake.value), config):
            hint = mistake.hint or "This is a known mistake; check what the question counts."
            if mentions(mistake.full_credit_if_mentions):
                return Verdict(points, f"{written}: {mistake.feedback} Your answer says so "
                               "explicitly, so it gets full credit.",
                               f"{written}: accepted, because your answer states the assumption "
                               "it makes.")
            return Verdict(min(mistake.points, points), mistake.feedback, f"{written}: {hint}")
    source = choice.candidates[0].source if choice.candidates else ""
    if coarser_rounding(value, expected, config.rounding, source):
        assert config.rounding is not None
        return Verdict(
            _share(points, config.rounding.credit),
            f"{written} is {show(Fraction(expected) if config.kind == 'integer' else expected)} "
            f"rounded more coarsely than asked; partial credit ({_percent(config.rounding.credit)} "
            "of the points) under the item's rounding policy.",
            f"{written} is rounded more coarsely than the question asks; partial credit. Give "
            "the value to the precision asked.")
    carry = carried(value)
    if carry is not None:
        return carry
    return _wrong(value, expected, config, source)


def _wrong(value: Number, expected: float, config: NumericConfig, source: str = "") -> Verdict:
    written, want = show(value), show(Fraction(expected) if config.kind == "integer" else expected)
    text = f"{written} is not the expected value {want}."
    student = f"{written} is not correct."
    if (config.kind == "integer" and isinstance(value, Fraction) and value.denominator == 1
            and sorted(str(abs(value.numerator))) == sorted(str(int(expected)))):
        hint = " The digits look swapped: check the copying."
        return Verdict(Decimal(0), text + hint, student + hint)
    if expected and abs(float(value) - expected) <= 0.02 * abs(expected):
        digits = (rounded_digits(value, expected, source) if config.rounding is not None
                  else None)
        if digits is not None and config.rounding is not None:
            # the item credits roundings, but to more digits than this one keeps
            least = config.rounding.min_significant
            return Verdict(Decimal(0), f"{text} It is rounded to {digits} significant "
                           f"digit{'s' if digits > 1 else ''}; the item's rounding policy "
                           f"credits {least} or more.", f"{student} It is rounded too "
                           f"coarsely: give at least {least} significant digits.")
        if config.kind == "integer":
            hint = " It is close, but a count must be exact, not rounded."
            return Verdict(Decimal(0), text + hint, student + hint)
        tolerance = config.abs_tolerance or config.rel_tolerance
        staff = (f" It is close but outside the tolerance (±{tolerance}); keep more decimal "
                 "places." if tolerance else " It is close but not within the accepted "
                 "tolerance.")
        return Verdict(Decimal(0), text + staff, student + " It is close: keep more decimal "
                       "places and check the arithmetic.")
    return Verdict(Decimal(0), text, student + " Check the formula and the arithmetic.")


def _known_vector(points: Decimal, config: NumericConfig, value: object,
                  mentions: Callable[[tuple[str, ...]], bool]) -> Verdict | None:
    """A known mistake given as a list (softmax over every logit where two were kept): the
    validator accepts it, so the vector it names earns its points, as a number's does."""
    if not isinstance(value, tuple) or not isinstance(config.expected, list) or all(
            close(v, float(t), config) for v, t in zip(value, config.expected, strict=False)):
        return None
    for mistake in config.known_mistakes:
        if not isinstance(mistake.value, list) or len(mistake.value) != len(value):
            continue
        if all(close(v, float(t), config) for v, t in zip(value, mistake.value, strict=True)):
            written = show(value)
            if mentions(mistake.full_credit_if_mentions):
                return Verdict(points, f"{written}: {mistake.feedback} Your answer says so "
                               "explicitly, so it gets full credit.",
                               f"{written}: accepted, because your answer states the assumption "
                               "it makes.")
            hint = mistake.hint or "This is a known mistake; check what the question counts."
            return Verdict(min(mistake.points, points), mistake.feedback, f"{written}: {hint}")
    return None


def vector(points: Decimal, config: NumericConfig, value: object) -> Verdict:
    expected = [float(v) for v in config.expected] if isinstance(config.expected, list) else []
    if not isinstance(value, tuple):
        text = f"Expected {len(expected)} values, found one number."
        return Verdict(Decimal(0), text, text)
    if len(value) != len(expected):
        return Verdict(Decimal(0), f"Expected {len(expected)} values, found {len(value)}: "
                       f"{show(value)}.", f"Expected {len(expected)} values, found "
                       f"{len(value)}.")
    right: list[int] = []
    rounded: list[int] = []
    wrong: list[int] = []
    for i, (v, t) in enumerate(zip(value, expected, strict=True)):
        if close(v, t, config):
            right.append(i)
        elif coarser_rounding(v, t, config.rounding):
            rounded.append(i)
        else:
            wrong.append(i)
    share = Fraction(str(points)) / len(expected)
    credit = Fraction(str(config.rounding.credit)) if config.rounding else Fraction(0)
    total: Fraction = share * len(right) + share * credit * len(rounded)
    staff: list[str] = []
    student: list[str] = []
    if not wrong and not rounded:
        staff.append(f"Correct: {show(value)}.")
        student.append("Correct.")
    else:
        staff.append(f"{len(right)} of {len(expected)} values are right.")
        student.append(f"{len(right)} of {len(expected)} values are right.")
    if rounded:
        which = ", ".join(f"component {i + 1} ({show(value[i])})" for i in rounded)
        staff.append(f"Rounded more coarsely than asked: {which}, expected "
                     f"{', '.join(show(expected[i]) for i in rounded)}; partial credit under "
                     "the item's rounding policy.")
        student.append(f"Rounded more coarsely than the question asks: {which}; partial credit. "
                       "Give each value to the precision asked.")
    if wrong:
        shown = ", ".join(f"component {i + 1} is {show(value[i])}, expected {show(expected[i])}"
                          for i in wrong)
        staff.append(f"Wrong: {shown}.")
        student.append("Not correct: " + ", ".join(f"component {i + 1} ({show(value[i])})"
                                                   for i in wrong) + ".")
        if any(abs(float(value[i]) - expected[i]) <= 0.01 for i in wrong):
            staff.append("Close values need three decimal places (±"
                         f"{config.abs_tolerance or 0})." if config.abs_tolerance else
                         "Some values are close but outside the tolerance.")
            student.append("Some values are close: keep three decimal places.")
    if config.sum_to_one_penalty:
        sum_ = sum(float(v) for v in value)
        if abs(sum_ - 1.0) > config.sum_tolerance:
            total = max(Fraction(0), total - Fraction(str(config.sum_to_one_penalty)))
            text = (f"The values sum to {sum_:.3f}, not 1; probabilities must sum to 1 "
                    f"(−{config.sum_to_one_penalty} point).")
            staff.append(text)
            student.append(text)
    return Verdict(total, " ".join(staff), " ".join(student))


def plausibility(choice: Choice, config: NumericConfig) -> Verdict:
    value = choice.value
    if isinstance(value, tuple):
        text = "Expected one reported number, found a list."
        return Verdict(Decimal(0), text, text, Status.NEEDS_REVIEW)
    candidate = choice.candidates[0]
    number = float(value)
    unit = " %" if config.unit == "percent" else ""
    if config.unit == "percent" and not candidate.percent and 0 < number <= 1:
        number *= 100  # "0.276" reported as a fraction of one
    reported = f"{_decimal(number)}{unit}"
    student = f"Reported {reported}."
    if config.expected is not None and not isinstance(config.expected, list):
        tolerance = config.abs_tolerance if config.abs_tolerance is not None else 1e-9
        if abs(number - float(config.expected)) <= tolerance:
            return Verdict(Decimal(0), f"Reported {reported}: correct (expected exactly "
                           f"{_decimal(float(config.expected))}{unit}).", student)
    window = config.plausible
    if window is not None and window[0] <= number <= window[1]:
        typical = ""
        if config.typical is not None and not config.typical[0] <= number <= config.typical[1]:
            typical = (f", though outside the typical {config.typical[0]:g}–"
                       f"{config.typical[1]:g}{unit}")
        return Verdict(Decimal(0), f"Reported {reported}: plausible (expected between "
                       f"{window[0]:g} and {window[1]:g}{unit}{typical}).", student)
    expected = (f"{float(config.expected):g}{unit}" if isinstance(config.expected, int | float)
                else f"between {window[0]:g} and {window[1]:g}{unit}" if window else "")
    return Verdict(Decimal(0), f"Reported {reported}: out of the expected range ({expected}); "
                   "an instructor will look at this run.",
                   student + " An instructor will look at this run.", Status.NEEDS_REVIEW)


def _decimal(number: float) -> str:
    """A reported measurement with at least one decimal: 5.0, 1.2, 14.39."""
    text = f"{number:g}"
    return text if "." in text or "e" in text else text + ".0"
