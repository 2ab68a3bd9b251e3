"""The numeric grader: extract, choose, compare, and explain in plain words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import ClassVar

from graders.context import GradingContext
from graders.documents.cues import compile_cues, found_cues
from graders.documents.model import LocatedAnswer
from graders.numeric.arith import EvalError, Number, parse_number
from graders.numeric.config import NumericConfig
from graders.numeric.extract import Candidate, extract
from graders.numeric.select import Choice, choose, close
from graders.registry import Grader
from graders.results import Evidence, ItemResult, Status
from graders.rubric import RubricItem


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
    status: Status = Status.GRADED


class NumericGrader(Grader):
    kind: ClassVar[str] = "numeric"
    version: ClassVar[str] = "1.0"
    config_model: ClassVar[type[NumericConfig]] = NumericConfig

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        return self.grade_items([item], answer, context)[0]

    def grade_items(
        self, items: Sequence[RubricItem], answer: LocatedAnswer, context: GradingContext
    ) -> list[ItemResult]:
        configs = [(item.id, NumericConfig.model_validate(item.config)) for item in items]
        chosen: dict[str, Choice] = {}
        shared = [(i, c) for i, c in configs if i not in answer.parts]
        if shared:
            chosen.update(choose(extract(_without_parts(answer)), shared))
        for item_id, config in configs:
            if item_id in answer.parts:
                chosen.update(choose(extract(answer.parts[item_id]), [(item_id, config)]))
        siblings = {item_id: c.value for item_id, c in chosen.items()
                    if not isinstance(c.value, tuple)}
        return [self._result(item, config, answer, chosen, context, siblings)
                for item, (_, config) in zip(items, configs, strict=True)]

    def _result(
        self, item: RubricItem, config: NumericConfig, answer: LocatedAnswer,
        chosen: dict[str, Choice], context: GradingContext, siblings: dict[str, Number],
    ) -> ItemResult:
        evidence: list[Evidence] = [_answer_evidence(answer)]
        choice = chosen.get(item.id)
        name = item.title or item.id
        if choice is None:
            where = f" (looked for: {', '.join(config.cues)})" if config.cues else ""
            # a reported measurement that cannot be found is for a person to look at
            review = answer.confidence < context.review_threshold or config.mode == "plausibility"
            return self._make(
                item, context, Decimal(0),
                Status.NEEDS_REVIEW if review else Status.MISSING,
                f"No value for “{name}” was found in your answer{where}.",
                evidence, 0.5 if review else 0.85,
            )
        in_parts = item.id in answer.parts
        for candidate in choice.candidates:
            evidence.append(_value_evidence(candidate, choice, answer, in_parts))
        if config.mode == "plausibility":
            verdict = _plausibility(choice, config)
        else:
            verdict = _exact(item, config, choice, answer, context, siblings)
        confidence = round(choice.confidence * answer.confidence, 2)
        status = verdict.status
        feedback = verdict.feedback
        if status is Status.GRADED and confidence < context.review_threshold:
            status = Status.NEEDS_REVIEW
            feedback += " (The value was found with low confidence; a grader will check it.)"
        return self._make(item, context, verdict.points, status, feedback, evidence, confidence)

    def _make(
        self, item: RubricItem, context: GradingContext, points: Decimal | Fraction,
        status: Status, feedback: str, evidence: list[Evidence], confidence: float,
    ) -> ItemResult:
        return ItemResult(
            item_id=item.id, question=context.question.id, points=points,
            max_points=item.points, status=status, feedback=feedback,
            evidence=tuple(evidence), confidence=max(0.0, min(1.0, confidence)),
            grader=self.kind, grader_version=self.version,
        )


def _without_parts(answer: LocatedAnswer) -> str:
    """The answer text minus the lines that carry other items' explicit answers (JSON)."""
    if not answer.parts:
        return answer.text
    prefixes = tuple(f"{item_id}:" for item_id in answer.parts)
    return "\n".join(line for line in answer.text.splitlines()
                     if not line.startswith(prefixes))


def _answer_evidence(answer: LocatedAnswer) -> Evidence:
    snippet = answer.text if len(answer.text) <= 400 else answer.text[:397] + "..."
    how = f"located by {answer.method}" + (f" at label {answer.label!r}" if answer.label else "")
    return Evidence(kind="answer", text=snippet, start=answer.start, end=answer.end,
                    note=f"{how}, confidence {answer.confidence:.2f}")


def _value_evidence(
    candidate: Candidate, choice: Choice, answer: LocatedAnswer, in_parts: bool
) -> Evidence:
    start = end = None
    if answer.start is not None and not in_parts:
        start, end = answer.start + candidate.start, answer.start + candidate.end
    flags = [f for f, on in (("boxed", candidate.boxed), ("final", candidate.final),
                             ("unevaluated expression", candidate.expression),
                             ("percent", candidate.percent),
                             ("in words", candidate.words)) if on]
    value = candidate.value
    shown = plain(value) if not isinstance(value, tuple) else show(value)
    note = f"read as {shown}" + (f" ({', '.join(flags)})" if flags else "")
    if choice.cues:
        note += f"; cues: {', '.join(choice.cues)}"
    return Evidence(kind="value", text=candidate.source, start=start, end=end, note=note)


def _mentions(answer: LocatedAnswer, words: Sequence[str]) -> bool:
    return bool(words) and any(True for _ in found_cues(answer.text, compile_cues(words)))


def _exact(
    item: RubricItem, config: NumericConfig, choice: Choice, answer: LocatedAnswer,
    context: GradingContext, siblings: dict[str, Number],
) -> Verdict:
    value = choice.value
    if isinstance(config.expected, list):
        return _vector(item, config, value)
    if isinstance(value, tuple) or config.expected is None:
        return Verdict(Decimal(0), "Expected a single number, found a list of values.")
    expected = float(config.expected)
    written = show(value)
    if close(value, expected, config):
        note = ""
        candidate = choice.candidates[0]
        if candidate.expression and not candidate.boxed:
            note = f" You left “{candidate.source}” unevaluated; it equals {show(value)}."
        return Verdict(item.points, f"Correct: {written}.{note}")
    for mistake in config.known_mistakes:
        if isinstance(mistake.value, int | float) and close(value, float(mistake.value), config):
            if _mentions(answer, mistake.full_credit_if_mentions):
                return Verdict(item.points, f"{written}: {mistake.feedback} Your answer says so "
                               "explicitly, so it gets full credit.")
            return Verdict(min(mistake.points, item.points), mistake.feedback)
    carried = _carry_forward(config, value, context, item, siblings)
    if carried is not None:
        return carried
    return Verdict(Decimal(0), _wrong_feedback(value, expected, config))


def _wrong_feedback(value: Number, expected: float, config: NumericConfig) -> str:
    written, want = show(value), show(Fraction(expected) if config.kind == "integer" else expected)
    text = f"{written} is not the expected value {want}."
    if (config.kind == "integer" and isinstance(value, Fraction) and value.denominator == 1
            and sorted(str(abs(value.numerator))) == sorted(str(int(expected)))):
        return text + " The digits look swapped: check the copying."
    if expected and abs(float(value) - expected) <= 0.02 * abs(expected):
        if config.kind == "integer":
            return text + " It is close, but a count must be exact, not rounded."
        tolerance = config.abs_tolerance or config.rel_tolerance
        return text + (f" It is close but outside the tolerance (±{tolerance}); keep more "
                       "decimal places." if tolerance else " It is close but not within the "
                       "accepted tolerance.")
    return text


def _earlier_value(item_id: str, context: GradingContext) -> Number | None:
    result = context.earlier.get(item_id)
    if result is None:
        return None
    for evidence in result.evidence:
        m = re.match(r"read as (\S+)", evidence.note) if evidence.kind == "value" else None
        if m:
            try:
                return parse_number(m.group(1))
            except (EvalError, ValueError):
                return None
    return None



def _carry_forward(
    config: NumericConfig, value: Number, context: GradingContext, item: RubricItem,
    siblings: dict[str, Number],
) -> Verdict | None:
    rule = config.carry_forward
    if rule is None:
        return None
    earlier = siblings.get(rule.from_item)
    if earlier is None:
        earlier = _earlier_value(rule.from_item, context)
    if earlier is None:
        return None
    implied = earlier * Fraction(rule.factor).limit_denominator(1000)
    if isinstance(implied, Fraction) and isinstance(value, Fraction):
        consistent = implied == value
    else:
        consistent = abs(float(implied) - float(value)) <= 1e-9 * max(1.0, abs(float(value)))
    if not consistent:
        return None
    return Verdict(
        min(rule.points, item.points),
        f"{show(value)} is not the expected value, but it follows correctly from your own "
        f"value {show(earlier)} for {rule.from_item} (× {rule.factor:g}); partial credit for "
        "carrying it forward.",
    )


def _vector(item: RubricItem, config: NumericConfig, value: object) -> Verdict:
    expected = [float(v) for v in config.expected] if isinstance(config.expected, list) else []
    if not isinstance(value, tuple):
        return Verdict(Decimal(0), f"Expected {len(expected)} values, found one number.")
    if len(value) != len(expected):
        return Verdict(Decimal(0), f"Expected {len(expected)} values, found {len(value)}: "
                       f"{show(value)}.")
    wrong = [i for i, (v, t) in enumerate(zip(value, expected, strict=True))
             if not close(v, t, config)]
    share = Fraction(str(item.points)) / len(expected)
    points: Fraction = share * (len(expected) - len(wrong))
    parts: list[str] = []
    if wrong:
        shown = ", ".join(f"component {i + 1} is {show(value[i])}, expected {show(expected[i])}"
                          for i in wrong)
        parts.append(f"{len(expected) - len(wrong)} of {len(expected)} values are right; {shown}.")
        if any(abs(float(value[i]) - expected[i]) <= 0.01 for i in wrong):
            parts.append("Close values need three decimal places (±"
                         f"{config.abs_tolerance or 0})." if config.abs_tolerance else
                         "Some values are close but outside the tolerance.")
    else:
        parts.append(f"Correct: {show(value)}.")
    if config.sum_to_one_penalty:
        total = sum(float(v) for v in value)
        if abs(total - 1.0) > config.sum_tolerance:
            points = max(Fraction(0), points - Fraction(str(config.sum_to_one_penalty)))
            parts.append(f"The values sum to {total:.3f}, not 1; probabilities must sum to 1 "
                         f"(−{config.sum_to_one_penalty} point).")
    return Verdict(points, " ".join(parts))


def _plausibility(choice: Choice, config: NumericConfig) -> Verdict:
    value = choice.value
    if isinstance(value, tuple):
        return Verdict(Decimal(0), "Expected one reported number, found a list.",
                       Status.NEEDS_REVIEW)
    candidate = choice.candidates[0]
    number = float(value)
    unit = " %" if config.unit == "percent" else ""
    if config.unit == "percent" and not candidate.percent and 0 < number <= 1:
        number *= 100  # "0.276" reported as a fraction of one
    reported = f"{_decimal(number)}{unit}"
    if config.expected is not None and not isinstance(config.expected, list):
        tolerance = config.abs_tolerance if config.abs_tolerance is not None else 1e-9
        if abs(number - float(config.expected)) <= tolerance:
            return Verdict(Decimal(0), f"Reported {reported}: correct (expected exactly "
                           f"{_decimal(float(config.expected))}{unit}).")
    window = config.plausible
    if window is not None and window[0] <= number <= window[1]:
        typical = ""
        if config.typical is not None and not config.typical[0] <= number <= config.typical[1]:
            typical = (f", though outside the typical {config.typical[0]:g}–"
                       f"{config.typical[1]:g}{unit}")
        return Verdict(Decimal(0), f"Reported {reported}: plausible (expected between "
                       f"{window[0]:g} and {window[1]:g}{unit}{typical}).")
    expected = (f"{float(config.expected):g}{unit}" if isinstance(config.expected, int | float)
                else f"between {window[0]:g} and {window[1]:g}{unit}" if window else "")
    return Verdict(Decimal(0), f"Reported {reported}: out of the expected range ({expected}); "
                   "an instructor will look at this run.", Status.NEEDS_REVIEW)


def _decimal(number: float) -> str:
    """A reported measurement with at least one decimal: 5.0, 1.2, 14.39."""
    text = f"{number:g}"
    return text if "." in text or "e" in text else text + ".0"
