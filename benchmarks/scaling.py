"""The scaling battery: generated answers to a scaling question (tests/graders/numeric/
scaling_phrasings.py: every class of writing of a factor, intermediate then final, and text that
states no factor), graded by one numeric item, with and without `form: factor`.

Reports, per class and overall: the read rate (the answer's concluding factor is the value the
grade is based on, and the item is graded, not sent to review) and the wrong-confident rate (graded
at confidence >= 0.8 with points that differ from the right grade of the answer).

    .venv/bin/python -m benchmarks.scaling [COUNT]
"""

from __future__ import annotations

import sys
from collections import Counter
from decimal import Decimal
from fractions import Fraction

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, Question, RubricItem, load_rubric
from tests.graders.numeric.scaling_phrasings import AVOID_CUES, COST_CUES, Answer, battery

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
POINTS = Decimal(2)


def grade(answer: Answer, expected: Fraction, factor: bool) -> ItemResult:
    config: dict[str, object] = {"expected": float(expected), "cues": list(COST_CUES),
                                 "avoid_cues": list(AVOID_CUES)}
    if factor:
        config["form"] = "factor"
    item = RubricItem(id="s", points=POINTS, grader="numeric", config=config)
    located = LocatedAnswer("S", answer.text, start=0, end=len(answer.text))
    submission = ParsedSubmission(text=answer.text, format="text", answers={"S": located})
    context = GradingContext(RUBRIC, Question(id="S", items=(item,)), submission,
                             GradingResources())
    return GRADER.grade(item, located, context)


def _read_value(result: ItemResult) -> str | None:
    for evidence in result.evidence:
        if evidence.kind == "value" and evidence.note and evidence.note.startswith("read as "):
            return evidence.note.removeprefix("read as ").split(" ")[0].rstrip(";")
    return None


def _same(shown: str | None, value: Fraction) -> bool:
    try:
        return shown is not None and abs(float(shown) - float(value)) < 1e-9
    except ValueError:
        return False


def measure(answers: list[Answer], factor: bool) -> dict[str, Counter[str]]:
    tally: dict[str, Counter[str]] = {}
    for index, answer in enumerate(answers):
        truth = answer.value
        # half the items expect the answer's own factor, half another one
        expected = truth if truth is not None and index % 2 == 0 else \
            (truth * 2 if truth is not None else Fraction(4))
        result = grade(answer, expected, factor)
        row = tally.setdefault(answer.kind, Counter())
        row["answers"] += 1
        graded = result.status is Status.GRADED
        if truth is not None:
            row["states a factor"] += 1
            if graded and _same(_read_value(result), truth):
                row["read"] += 1
            right = POINTS if truth == expected else Decimal(0)
        else:
            right = Decimal(-1)  # nothing to grade: any confident grade is wrong
        if graded and result.confidence >= 0.8 and result.points != right:
            row["wrong confident"] += 1
        if not graded:
            row["review or missing"] += 1
    return tally


def report(tally: dict[str, Counter[str]], title: str) -> None:
    total: Counter[str] = Counter()
    print(f"\n{title}")
    print(f"{'class':26} {'answers':>7} {'read':>12} {'wrong conf.':>12} {'not graded':>10}")
    for kind, row in sorted(tally.items()):
        total.update(row)
        _line(kind, row)
    _line("overall", total)


def _line(kind: str, row: Counter[str]) -> None:
    stated = row["states a factor"]
    read = f"{row['read']}/{stated}" if stated else "-"
    print(f"{kind:26} {row['answers']:>7} {read:>12} {row['wrong confident']:>12} "
          f"{row['review or missing']:>10}")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    answers = battery(count)
    report(measure(answers, factor=False), "without form: factor (an item reading any value)")
    report(measure(answers, factor=True), "with form: factor")


if __name__ == "__main__":
    main()
