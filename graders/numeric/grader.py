"""The numeric grader: extract, choose, compare, and explain in plain words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import ClassVar

from graders.context import GradingContext
from graders.documents.cues import compile_cues, found_cues
from graders.documents.invisible import Shown
from graders.documents.model import LocatedAnswer
from graders.kind import Grader
from graders.numeric.arith import EvalError, Number, parse_number
from graders.numeric.config import VERSION, NumericConfig
from graders.numeric.extract import Candidate, extract
from graders.numeric.invisible import overridden, skip_invisible
from graders.numeric.memo import MEMO, NumericMemo, observation_key, placed, scoring_key
from graders.numeric.select import Choice, choose, close, reading, written_choice
from graders.numeric.verdicts import Verdict, exact, plain, plausibility, show
from graders.results import Evidence, ItemResult, Status
from graders.rubric_model import RubricItem


class NumericGrader(Grader):
    kind: ClassVar[str] = "numeric"
    version: ClassVar[str] = VERSION
    config_model: ClassVar[type[NumericConfig]] = NumericConfig

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        return self.grade_items([item], answer, context)[0]

    def grade_items(
        self, items: Sequence[RubricItem], answer: LocatedAnswer, context: GradingContext
    ) -> list[ItemResult]:
        # Observing and scoring are kept apart (graders.numeric.memo): a rubric edit of
        # points or wording re-scores kept observations, and an answer seen before at another
        # place in its document is its kept results moved there.
        memo = context.resources.shared(MEMO, NumericMemo)
        known = [memo.item(item) for item in items]
        stated = [config for config, _ in known]
        configs = [(item.id, config) for item, (config, _) in zip(items, stated, strict=True)]
        carried = [_earlier_value(c.carry_forward.from_item, context) for _, c in configs
                   if c.carry_forward is not None]
        key = scoring_key(answer, items, context.question.id, context.review_threshold,
                          carried, [told for _, told in known])
        kept = memo.scored.get(key)
        if kept is not None:
            return placed(kept[1], kept[0], answer)
        seen = observation_key(answer, [(item.id, observed) for item, (_, observed)
                                        in zip(items, stated, strict=True)])
        chosen: dict[str, Choice] | None = memo.observations.get(seen)
        if chosen is None:
            chosen = observe(answer, configs)
            memo.observations.put(seen, chosen)
        siblings = {item_id: c.value for item_id, c in chosen.items()
                    if not isinstance(c.value, tuple)}
        results = [self._result(item, config, answer, chosen, context, siblings)
                   for item, (_, config) in zip(items, configs, strict=True)]
        memo.scored.put(key, (answer.start, results))
        return results

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
            unread = _unread_number(answer, item.id, chosen)
            feedback = f"No value for “{name}” was found in your answer{where}."
            if unread and not review:
                # `missing` promises there is no answer: a number no item read may be this
                # part's value written in a way the reader does not know (a vector in words)
                review = True
                feedback = (f"No value for “{name}” was read{where}, but the answer has "
                            f"numbers no item used (“{unread}”): is one of them this part's "
                            "value? Suggested 0.")
            return self._make(
                item, context, Decimal(0),
                Status.NEEDS_REVIEW if review else Status.MISSING, feedback,
                "No value for this part was found in your answer." if not unread else
                "No value for this part could be read from your answer; a grader will check it.",
                evidence, 0.5 if review else 0.85,
            )
        in_parts = item.id in answer.parts
        for candidate in choice.candidates:
            evidence.append(_value_evidence(candidate, choice, answer, in_parts))
        verdict = self._verdict(item, config, choice, answer, context, siblings)
        confidence = round(choice.confidence * answer.confidence, 2)
        status, feedback, student = verdict.status, verdict.feedback, verdict.student
        if status is Status.GRADED and choice.rivals and config.mode == "exact":
            differing = [r for r in choice.rivals
                         if self._verdict(item, config, _as_choice(r, config, choice), answer,
                                          context, siblings).points != verdict.points]
            if differing:
                for rival in differing:
                    evidence.append(_value_evidence(rival, choice, answer, in_parts, "rival: "))
                both = ", ".join(f"“{c.source}”" for c in (choice.candidates[0], *differing))
                status, confidence = Status.NEEDS_REVIEW, min(confidence, 0.5)
                why = f" ({choice.doubt[0].upper()}{choice.doubt[1:]}.)" if choice.doubt else ""
                feedback = (f"Conflicting values for “{name}”: {both}.{why} Suggested grade from "
                            f"{show(choice.value)} (chosen as {_why(choice.candidates[0])}): "
                            f"{feedback} A grader must decide which value is the answer.")
                student = (f"Your answer gives different values for this part ({both}); a "
                           "grader will check which one you meant.")
        shown = choice.candidates[0]
        if status is Status.GRADED and overridden(answer.text, shown.start, shown.end):
            # a direction override shows the digits in another order (`<U+202E>46` shows 64)
            status, confidence = Status.NEEDS_REVIEW, min(confidence, 0.5)
            feedback += (" (A direction override (U+202D/U+202E) in the answer shows "
                         f"“{shown.source}” in another order than it was typed; read as typed: "
                         f"{show(choice.value)}. A grader must check the value meant.)")
            student = (f"{student} Your answer holds a hidden direction character that changes "
                       "how this value is shown; a grader will check it.")
        # a denied value goes to a reader whatever the threshold (below 0.4 it would be graded)
        if status is Status.GRADED and (confidence < context.review_threshold or choice.negated):
            status = Status.NEEDS_REVIEW
            why = choice.doubt or "the value was found with low confidence"
            feedback += f" ({why[0].upper()}{why[1:]}; a grader will check it.)"
            student = ("Your answer seems to deny the value it gives for this part; a grader "
                       "will check which value you meant." if choice.negated else
                       f"{student} A grader will check how this value was read.")
        points = verdict.points
        if choice.negated and status is Status.NEEDS_REVIEW and points:
            # the reader's suggestion is no credit for a value the student says is not the
            # answer (`≠ 64`); what that value would earn is told, not suggested
            points = Decimal(0)
            feedback = ("Suggested 0 points: the answer negates the value it gives. Had it "
                        f"been the answer: {feedback}")
        return self._make(item, context, points, status, feedback, student, evidence,
                          confidence)

    def _verdict(
        self, item: RubricItem, config: NumericConfig, choice: Choice, answer: LocatedAnswer,
        context: GradingContext, siblings: dict[str, Number],
    ) -> Verdict:
        if config.mode == "plausibility":
            return plausibility(choice, config)
        return exact(
            item.points, config, choice,
            lambda words: _mentions(answer, words),
            lambda value: _carry_forward(config, value, context, item, siblings),
        )

    def _make(
        self, item: RubricItem, context: GradingContext, points: Decimal | Fraction,
        status: Status, feedback: str, student: str, evidence: list[Evidence],
        confidence: float,
    ) -> ItemResult:
        return ItemResult(
            item_id=item.id, question=context.question.id, points=points,
            max_points=item.points, status=status, feedback=feedback, student_feedback=student,
            evidence=tuple(evidence), confidence=max(0.0, min(1.0, confidence)),
            grader=self.kind, grader_version=self.version,
        )


def observe(answer: LocatedAnswer, configs: Sequence[tuple[str, NumericConfig]]
            ) -> dict[str, Choice]:
    """The values the answer gives and which item each answers: reads the answer's text and
    parts and what each config says to look for, never points or feedback. The text is read as
    shown, without invisible format characters (`16<U+00AD>x fewer`, `quadru<U+200B>ples`):
    the values' places are in the text as written (a direction override there is checked)."""
    shown = Shown(answer.text)
    parts = {item_id: skip_invisible(part) for item_id, part in answer.parts.items()}
    if not shown and parts == answer.parts:
        return _observe(answer, configs)
    chosen = _observe(replace(answer, text=shown.text, parts=parts), configs)
    return {item_id: written_choice(choice, shown) if item_id not in parts else choice
            for item_id, choice in chosen.items()}


def _observe(answer: LocatedAnswer, configs: Sequence[tuple[str, NumericConfig]]
             ) -> dict[str, Choice]:
    # Factor reading (graders.numeric.factors: 18 patterns, a third of the numeric grader's
    # import) is imported by the first answer that may state a factor, not by every command
    # that loads a rubric with numeric items (`gradeformer grade FILE`, rubric checks).
    from graders.numeric.scaling import choose_factor

    chosen: dict[str, Choice] = {}
    for item_id, config in configs:
        if config.form == "factor":
            text = answer.parts.get(item_id, _without_parts(answer))
            factor = choose_factor(text, config)
            if factor is not None:
                chosen[item_id] = factor
    # an item with no factor written as one is read like any value (`ratio = 16`)
    configs = [(i, c) for i, c in configs if i not in chosen]
    shared = [(i, c) for i, c in configs if i not in answer.parts]
    if shared:
        chosen.update(choose(extract(_without_parts(answer)), shared))
    for item_id, config in configs:
        if item_id in answer.parts:
            chosen.update(choose(extract(answer.parts[item_id]), [(item_id, config)]))
    for item_id, config in configs:
        plain_value = chosen.get(item_id) if config.form == "factor" else None
        if plain_value is not None:
            text = answer.parts.get(item_id, _without_parts(answer))
            kept = _plain_factor(plain_value, config, text)
            if kept is None:
                del chosen[item_id]
            else:
                chosen[item_id] = kept
    for item_id, config in configs:
        if item_id not in chosen and config.form == "value" and config.mode == "exact" \
                and isinstance(config.expected, int | float):
            # nothing read, but the answer states a factor (`x2`, `doubles`): an item not
            # declared a factor may still ask for one, so a reader sees it with a suggestion
            factor = choose_factor(answer.parts.get(item_id, _without_parts(answer)), config)
            if factor is not None:
                chosen[item_id] = Choice(
                    factor.candidates, factor.value, factor.cues, min(factor.confidence, 0.5),
                    factor.rivals, "the answer states a factor and the item is not declared "
                    "one (form: factor)")
    return chosen


# what names a value a factor when it is not written as one (`ratio = (2n)^2 / n^2 = 4`,
# `Answer: 4`)
_RATIO = re.compile(r"\b(?:ratios?|factor|speed-?up|scal(?:e|es|ed|ing)|answer)\b",
                    re.IGNORECASE)


# a ratio below one written as a fraction of two numbers is a value, not a product (`1/16`,
# `\frac{1}{16}`, `\tfrac14`)
_FRAC_ARGUMENT = r"(?:\{[ \t]?\d{1,6}[ \t]?\}|\d)"
_FRACTION = re.compile(r"\d{1,6}[ \t]?/[ \t]?\d{1,6}"
                       rf"|\\[dt]?frac[ \t]?{_FRAC_ARGUMENT}{_FRAC_ARGUMENT}")


def _plain_factor(choice: Choice, config: NumericConfig, text: str) -> Choice | None:
    """A factor item's value not written as a factor: a shape or a product (`2x2`, `n x 64`) is
    not an answer, and a number that is neither boxed, nor named a ratio (`ratio = (2n)^2 / n^2 =
    4`), nor labelled by the item's cues is only a suggestion for a reader."""
    candidate = choice.candidates[0]
    if candidate.expression and not candidate.boxed \
            and not _FRACTION.fullmatch(candidate.source.strip("$ ")):
        return None
    # the sentence it stands in, up to it, and the words right after it
    lead = re.split(r"[.;!?]\s|\n", text[max(0, candidate.start - 120):candidate.start])[-1]
    own = f"{lead} {candidate.trailing}"
    if candidate.boxed or _RATIO.search(own) or _mentions_text(own, config.cues):
        return choice
    return Choice(choice.candidates, choice.value, choice.cues, min(choice.confidence, 0.5),
                  choice.rivals, "a bare number, neither written as a factor nor labelled as "
                  "the answer")


def _as_choice(candidate: Candidate, config: NumericConfig, chosen: Choice) -> Choice:
    return Choice((candidate,), reading(candidate, config), chosen.cues, chosen.confidence)


def _why(candidate: Candidate) -> str:
    reasons = [r for r, on in (("boxed", candidate.boxed), ("final", candidate.final),
                               (f"labelled “{candidate.label}”", bool(candidate.label)))
               if on]
    return ", ".join(reasons) or "best match"


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
    candidate: Candidate, choice: Choice, answer: LocatedAnswer, in_parts: bool, lead: str = "",
) -> Evidence:
    start = end = None
    if answer.start is not None and not in_parts:
        start, end = answer.start + candidate.start, answer.start + candidate.end
    flags = [f for f, on in (("boxed", candidate.boxed), ("final", candidate.final),
                             ("unevaluated expression", candidate.expression),
                             ("percent", candidate.percent),
                             ("in words", candidate.words)) if on]
    # the value as the item reads it (a percentage of a probability, `589.824` as a count)
    value = choice.value if len(choice.candidates) == 1 and not lead else candidate.value
    shown = plain(value) if not isinstance(value, tuple) else show(value)
    note = f"{lead}read as {shown}" + (f" ({', '.join(flags)})" if flags else "")
    if candidate.label or candidate.trailing:
        note += f"; label: {' … '.join(t for t in (candidate.label, candidate.trailing) if t)}"
    if choice.cues and not lead:
        note += f"; cues: {', '.join(choice.cues)}"
    return Evidence(kind="value", text=candidate.source, start=start, end=end, note=note)


def _mentions(answer: LocatedAnswer, words: Sequence[str]) -> bool:
    return _mentions_text(answer.text, words)


def _mentions_text(text: str, words: Sequence[str]) -> bool:
    return bool(words) and any(True for _ in found_cues(text, compile_cues(words)))


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
    # rounded as the student rounds the rest (`35.7 x 32 = 1143`): within the item's own
    # tolerance around the product, as the expected value is
    consistent = consistent or close(value, float(implied), config)
    if not consistent:
        return None
    text = (f"{show(value)} is not the expected value, but it follows correctly from your own "
            f"value {show(earlier)} for {rule.from_item} (× {rule.factor:g}); partial credit "
            "for carrying it forward.")
    return Verdict(min(rule.points, item.points), text,
                   f"{show(value)} is not correct, but it follows correctly from your own "
                   "earlier value; partial credit for carrying it forward.")


# The kind's one grader (`graders.numeric.GRADER`, registered by graders.registry).
GRADER = NumericGrader()


_UNREAD_SHOWN = 40


def _unread_number(answer: LocatedAnswer, item_id: str, chosen: dict[str, Choice]) -> str:
    """A value the reader found in a statement of the answer from which no item of the question
    read anything (within the item's own part, when the upload named its items), shown with
    a little context; "" when there is none. Working beside a value read (`768/12 = 64`) is in
    that value's statement; names (`x1`), labels and what the reader cannot read at all are no
    values, and a value equal to one read was read."""
    if answer.parts:  # the upload named its items: only this item's own part is its answer
        if item_id not in answer.parts:
            return ""
        extraction, claimed = extract(answer.parts[item_id]), set()
    else:
        extraction = extract(answer.text)
        claimed = {c.statement for choice in chosen.values()
                   for c in (*choice.candidates, *choice.rivals)}
    # a value read again elsewhere (`768 x 768` before `= 589824` on a line of its own)
    read = {c.value for choice in chosen.values() for c in (*choice.candidates, *choice.rivals)}
    for candidate in extraction.candidates:
        if candidate.statement not in claimed and candidate.value not in read:
            text = extraction.text
            left = max(0, candidate.start - _UNREAD_SHOWN // 2)
            return " ".join(text[left:candidate.end + _UNREAD_SHOWN // 2].split())
    return ""
