"""The symbolic grader: find the student's expression, compare it in the worker, explain."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, ClassVar

from graders.context import GradingContext, Resource
from graders.documents.model import LocatedAnswer
from graders.kind import Grader
from graders.results import Evidence, ItemResult, Status
from graders.rubric_model import RubricItem
from graders.symbolic.config import VERSION, SymbolicConfig
from graders.symbolic.derivatives import derivative_assignments
from graders.symbolic.evaluations import drop_evaluations, times_x
from graders.symbolic.expressions import (
    Assignment,
    declared_scalars,
    find_assignments,
    refusal,
    subscripts_spelled,
    tidy,
)
from graders.symbolic.hedges import offered_beside, with_alternatives
from graders.symbolic.juxtaposed import juxtaposed_names
from graders.symbolic.pool import SymbolicPool
from graders.symbolic.transcribed import names, read_as_written

MAX_TRIES = 3  # earlier assignments tried when the last one cannot be read

FULL, REDUCED, ZERO, UNREAD = "full", "reduced", "zero", "unread"
_RANK = {FULL: 3, REDUCED: 2, ZERO: 1, UNREAD: 0}


@dataclass(frozen=True)
class Reading:
    target: str
    assignment: Assignment | None
    outcome: str  # FULL / REDUCED / ZERO / UNREAD
    reply: dict[str, Any]
    reason: str = ""
    # an earlier expression for the same target that is the expected one, when the final one is
    # not: answers that discuss alternatives ("it is also possible to set q_1 = q_2 = ...")
    contested: Assignment | None = None
    # an expression offered beside it as an alternative (`q = k_a, or maybe q = k_b`), and how
    # that one reads: when the two differ, neither is the committed answer
    offered: Assignment | None = None
    offered_outcome: str = ""


# The process's pool of sympy workers (started once: ~1 s).
SYMBOLIC_POOL: Resource[SymbolicPool] = Resource("symbolic")


def _pool(context: GradingContext) -> SymbolicPool:
    return context.resources.shared(SYMBOLIC_POOL, SymbolicPool)


def _outcome(reply: dict[str, Any], config: SymbolicConfig) -> tuple[str, str]:
    if not reply.get("ok"):
        error = str(reply.get("error", "unknown error"))
        if error == "timeout":
            return UNREAD, "checking this expression took too long"
        return UNREAD, error
    verdict = reply.get("verdict")
    if verdict in ("equivalent", "large_multiple", "difference_only"):
        return FULL, ""
    if verdict == "constant_multiple":
        return (REDUCED if config.without_scalar_points is not None else ZERO), "no large scalar"
    if verdict == "nonpositive_multiple":
        return ZERO, "a negative multiple points away from the keys"
    if verdict == "other_factor":
        unknown = ", ".join(reply.get("unknown", []))
        factor = reply.get("factor")
        return UNREAD, f"the factor {factor} uses symbols I cannot interpret ({unknown})"
    return ZERO, ""


def _compare(pool: SymbolicPool, config: SymbolicConfig, expression: str,
             expected: str) -> dict[str, Any]:
    why = refusal(expression)
    if why is not None:
        return {"ok": False, "error": why}
    if config.mode == "depends_on_difference":
        return pool.run({"op": "depends_on_difference", "student": tidy(expression),
                         "pair": list(config.pair or ())})
    written = juxtaposed_names(times_x(expression, expected), expected)
    student = subscripts_spelled(spelled_out(tidy(written), config),
                                 expected)
    return pool.run({
        "op": "compare", "mode": config.mode, "student": student,
        "expected": tidy(expected), "scalars": list(config.large_scalars),
        "aliases": dict(config.aliases), "large_number": config.large_number,
    })


def spelled_out(student: str, config: SymbolicConfig) -> str:
    """An alias that is no plain name (`softmax(z): p`, `\\hat{y}: p`) is the symbol written as
    what defines it: it is replaced, as written, by that symbol before parsing."""
    for written, name in config.aliases.items():
        if re.fullmatch(r"\\?[A-Za-z]\w*", written) is None:
            spaced = r"\s*".join(re.escape(ch) for ch in tidy(written).replace(" ", ""))
            student = re.sub(rf"(?<![A-Za-z\\]){spaced}", f" {name} ", student)
    return student


def _candidates(text: str, target: str, whole_is_expression: bool) -> list[Assignment]:
    found = find_assignments(text, target)
    if not found and whole_is_expression and "=" not in text and text.strip():
        stripped = text.strip().strip("$").strip()
        found = [Assignment(target, stripped, text.find(stripped), text.find(stripped)
                            + len(stripped))]
    return found


def _read(pool: SymbolicPool, config: SymbolicConfig, text: str, target: str, expected: str,
          whole_is_expression: bool) -> Reading:
    found = _candidates(text, target, whole_is_expression)
    if config.derivative is not None:
        # `g = dL/dz` asked: `∂L/∂z = p - y` answers it too; the document's last value is graded
        found = sorted([*found, *derivative_assignments(text, target, config.derivative)],
                       key=lambda a: a.start)
    # a name the rubric accepts for the target ({q_a: q_1}: the student named the queries by
    # the values they pick out)
    for alias, name in config.aliases.items():
        if not found and name == target:
            found = find_assignments(text, alias)
    found = drop_evaluations(with_alternatives(text, target, found), expected)
    if not found:
        return Reading(target, None, UNREAD, {}, f"no expression for {target} was found")
    last: Reading | None = None
    earlier = list(reversed(found))
    for index, assignment in enumerate(earlier[:MAX_TRIES]):
        reply = _compare(pool, config, assignment.expression, expected)
        outcome, reason = _outcome(reply, config)
        reading = Reading(target, assignment, outcome, reply, reason)
        if outcome != UNREAD or last is None:
            last = reading if last is None or outcome != UNREAD else last
        if outcome != UNREAD:
            offered = _offered(pool, config, text, target, expected, found, reading)
            if offered is not None:
                return offered
            # the student's final readable expression; when it is not the expected one but an
            # earlier one is, which one the student meant is a reader's call
            if outcome != FULL:
                reading = replace(reading, contested=_expected_earlier(
                    pool, config, earlier[index + 1:index + 1 + MAX_TRIES], expected))
            return reading
    assert last is not None
    return last


def _offered(pool: SymbolicPool, config: SymbolicConfig, text: str, target: str, expected: str,
             found: list[Assignment], reading: Reading) -> Reading | None:
    """The reading with the alternative offered beside its expression, when that one earns
    other credit (`q = k_a, or maybe q = \\beta(k_a + k_b)`); None when there is none or it
    earns the same (a restatement, `\\beta(k_a + k_b)` or `\\beta k_a + \\beta k_b`)."""
    assert reading.assignment is not None
    other = offered_beside(text, target, found, reading.assignment)
    if other is None:
        return None
    outcome = _outcome(_compare(pool, config, other.expression, expected), config)[0]
    if outcome == reading.outcome:
        return None
    return replace(reading, offered=other, offered_outcome=outcome)


def _expected_earlier(pool: SymbolicPool, config: SymbolicConfig,
                      earlier: list[Assignment], expected: str) -> Assignment | None:
    for assignment in earlier:
        if assignment.expression.strip() == "":
            continue
        if _outcome(_compare(pool, config, assignment.expression, expected), config)[0] == FULL:
            return assignment
    return None


class SymbolicGrader(Grader):
    kind: ClassVar[str] = "symbolic"
    version: ClassVar[str] = VERSION
    config_model: ClassVar[type[SymbolicConfig]] = SymbolicConfig

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        config = SymbolicConfig.model_validate(item.config)
        in_parts = item.id in answer.parts
        text = answer.parts[item.id] if in_parts else answer.text
        if context.submission.format == "text":  # a transcript: OCR's `l` for 1, `O.8` for 0.8
            text = read_as_written(text, names(" ".join(config.expectations or ())))
        declared = sorted(declared_scalars(text) - set(config.large_scalars))
        if declared and config.mode == "scalar_multiple":
            # the student said which of their symbols is a (large) scale factor
            config = config.model_copy(
                update={"large_scalars": (*config.large_scalars, *declared)})
        pool = _pool(context)
        targets = config.targets
        expectations = config.expectations or ("",) * len(targets)
        orders = [expectations]
        if config.any_order and len(targets) > 1:
            orders = [tuple(p) for p in itertools.permutations(expectations)]
        best: list[Reading] | None = None
        cache: dict[tuple[str, str], Reading] = {}
        for order in orders:
            readings = []
            for target, expected in zip(targets, order, strict=True):
                key = (target, expected)
                if key not in cache:
                    cache[key] = _read(pool, config, text, target, expected,
                                       in_parts and len(targets) == 1)
                readings.append(cache[key])
            if best is None or _score(readings) > _score(best):
                best = readings
        assert best is not None
        return self._result(item, config, answer, context, best, in_parts)

    def _result(self, item: RubricItem, config: SymbolicConfig, answer: LocatedAnswer,
                context: GradingContext, readings: list[Reading], in_parts: bool) -> ItemResult:
        evidence = [_answer_evidence(answer)]
        for reading in readings:
            if reading.assignment is not None:
                evidence.append(_expression_evidence(reading, answer, in_parts))
        overall = min((r.outcome for r in readings), key=lambda o: _RANK[o])
        shown = "; ".join(f"{r.target} = {r.assignment.expression}" for r in readings
                          if r.assignment is not None)
        status = Status.GRADED
        confidence = 0.9
        if overall == FULL:
            points: Decimal = item.points
            feedback = f"Correct: {shown}."
            if any(r.reply.get("verdict") == "large_multiple" for r in readings):
                feedback += " A positive multiple with a large scale factor is the intended answer."
        elif overall == REDUCED:
            points = min(item.points, config.without_scalar_points or Decimal(0))
            feedback = f"Partly right: {shown}. " + (
                config.feedback_without_scalar or "The direction is right, but a large positive "
                "scale factor is missing.")
        elif overall == ZERO:
            points = Decimal(0)
            why = sorted({r.reason for r in readings if r.reason})
            feedback = f"Not the expected expression: {shown}." + (
                f" ({'; '.join(why)}.)" if why else "")
        else:
            points = Decimal(0)
            status = Status.NEEDS_REVIEW
            confidence = 0.3
            unread = "; ".join(sorted({r.reason for r in readings if r.outcome == UNREAD}))
            feedback = (f"I could not check this automatically ({unread}); a grader will "
                        "read it.")
        hedge = _hedge(readings, item, config, overall)
        if hedge is not None:
            points, feedback = hedge
            status, confidence = Status.NEEDS_REVIEW, min(confidence, 0.5)
        contested = [r for r in readings if r.contested is not None and r.outcome != FULL]
        if contested and status is Status.GRADED:
            status, confidence = Status.NEEDS_REVIEW, 0.5
            feedback += " Earlier the answer also gives " + "; ".join(
                f"{r.target} = {r.contested.expression}" for r in contested
                if r.contested is not None
            ) + ", the expected expression; a grader will check which one is the answer."
        confidence = round(confidence * answer.confidence, 2)
        if status is Status.GRADED and confidence < context.review_threshold:
            status = Status.NEEDS_REVIEW
            feedback += " (The answer was located with low confidence; a grader will check it.)"
        return ItemResult(
            item_id=item.id, question=context.question.id, points=points,
            max_points=item.points, status=status, feedback=feedback,
            evidence=tuple(evidence), confidence=confidence,
            grader=self.kind, grader_version=self.version,
        )


_SAID = {FULL: "full credit", REDUCED: "partial credit", ZERO: "no credit",
         UNREAD: "not read automatically"}


def _points(outcome: str, item: RubricItem, config: SymbolicConfig) -> Decimal:
    if outcome == FULL:
        return item.points
    if outcome == REDUCED:
        return min(item.points, config.without_scalar_points or Decimal(0))
    return Decimal(0)


def _hedge(readings: list[Reading], item: RubricItem, config: SymbolicConfig,
           overall: str) -> tuple[Decimal, str] | None:
    """The suggestion and the reader's note when the answer offers two expressions for a
    target that earn different credit (`q = k_a, or maybe q = \\beta(k_a + k_b)`): no
    committed answer earns the better one's credit; the lesser is suggested."""
    offered = [r for r in readings if r.offered is not None and r.assignment is not None]
    if not offered:
        return None
    lowest = min([overall, *(r.offered_outcome for r in offered)], key=lambda o: _RANK[o])
    pairs = "; ".join(
        f"{r.target} = “{first.expression}” ({_SAID[one]}) or “{second.expression}” "
        f"({_SAID[two]})"
        for r in offered if r.offered is not None and r.assignment is not None
        for (first, one), (second, two) in [sorted(
            [(r.assignment, r.outcome), (r.offered, r.offered_outcome)],
            key=lambda pair: pair[0].start)])
    points = _points(lowest, item, config)
    return points, (f"The answer offers two expressions and commits to neither: {pairs}. "
                    f"Suggested {points} of {item.points}, the lesser credit; a grader will "
                    "decide which one is the answer.")


# Choosing how targets pair with expectations (any_order): an expression that could not be read
# may still be right, so that pairing beats one where it is certainly wrong.
_PAIRING_RANK = {FULL: 3, REDUCED: 2, UNREAD: 1, ZERO: 0}


def _score(readings: list[Reading]) -> tuple[int, int]:
    ranks = [_PAIRING_RANK[r.outcome] for r in readings]
    return min(ranks), sum(ranks)


def _answer_evidence(answer: LocatedAnswer) -> Evidence:
    snippet = answer.text if len(answer.text) <= 400 else answer.text[:397] + "..."
    how = f"located by {answer.method}" + (f" at label {answer.label!r}" if answer.label else "")
    return Evidence(kind="answer", text=snippet, start=answer.start, end=answer.end,
                    note=f"{how}, confidence {answer.confidence:.2f}")


def _expression_evidence(reading: Reading, answer: LocatedAnswer, in_parts: bool) -> Evidence:
    assert reading.assignment is not None
    start = end = None
    if answer.start is not None and not in_parts:
        start = answer.start + reading.assignment.start
        end = answer.start + reading.assignment.end
    note = f"{reading.target}: " + str(reading.reply.get("verdict") or reading.reason)
    if reading.reply.get("student"):
        note += f"; read as {reading.reply['student']}"
    if reading.reply.get("factor"):
        note += f"; factor {reading.reply['factor']}"
    return Evidence(kind="expression", text=re.sub(r"\s+", " ", reading.assignment.expression),
                    start=start, end=end, note=note)


# The kind's one grader (`graders.symbolic.GRADER`, registered by graders.registry).
GRADER = SymbolicGrader()
