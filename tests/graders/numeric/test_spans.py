"""A value's evidence points at exactly the digits it was read from, not the whole statement."""

from __future__ import annotations

import pytest

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.numeric.extract import extract
from graders.rubric import BUNDLED_RUBRICS, load_rubric

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric


@pytest.mark.parametrize(("text", "written"), [
    ("W_Q: 768 \\times 768 = 589,824 weights", ["768 \\times 768", "589,824"]),
    ("Correct: 100 out of 500.0: 2.0%.", ["100", "500.0", "2.0%"]),
    ("d_head = \\frac{768}{12} = 64 each", ["\\frac{768}{12}", "64"]),
    ("e^2 + e^1 + e^0 = 11.11", ["e^2 + e^1 + e^0", "11.11"]),
    ("acc \\approx 27.6\\%", ["27.6\\%"]),
    ("3 × 589 824 = ", ["3 × 589 824"]),
    ("5.89824 \\times 10^5 parameters", ["5.89824 \\times 10^5"]),
    ("the total is (3 x 768) + 5 here", ["(3 x 768) + 5"]),
    ("1) a) 64 and 64 again", ["64", "64"]),
    ("x = \\boxed{ 64 }", ["64"]),
])
def test_candidate_span_is_the_written_number(text: str, written: list[str]) -> None:
    candidates = [c for c in extract(text).candidates if not c.listed]
    assert [text[c.start:c.end] for c in candidates] == written
    assert [c.source for c in candidates] == written


def test_repeated_numbers_get_their_own_spans() -> None:
    text = "768 x 768 = 589,824"
    first, second = extract(text).candidates
    assert (first.start, first.end) == (0, 9)
    assert (second.start, second.end) == (12, 19)


def test_sentence_full_stop_after_a_percentage_is_not_lost() -> None:
    [value] = [c for c in extract("London: 25 of 500: 5.0%.").candidates if c.percent]
    assert float(value.value) == 5.0


def test_grader_evidence_quotes_the_exact_digits_in_the_document() -> None:
    document = ("Notes first.\n\nB1: d_head = 768/12 = \\boxed{64} and "
                "W_Q: 768 \\times 768 = 589,824")
    start = document.index("d_head")
    answer = LocatedAnswer("B1", document[start:], start=start, end=len(document))
    submission = ParsedSubmission(text=document, format="text", answers={"B1": answer})
    question = next(q for q in RUBRIC.questions if q.id == "B1")
    context = GradingContext(RUBRIC, question, submission, GradingResources())
    results = {r.item_id: r for r in GRADER.grade_items(question.items, answer, context)}
    for item_id, digits in (("b1.d_head", "64"), ("b1.per_matrix", "589,824")):
        value = next(e for e in results[item_id].evidence if e.kind == "value")
        assert value.start is not None and value.end is not None
        assert document[value.start:value.end] == digits
        assert value.text == digits
