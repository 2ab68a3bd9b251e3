"""Agreement between item results and hand grades (graders/evaluation.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.evaluation import GradesError, compare, parse_grades, summarise
from graders.results import ItemResult, Status


def _result(item: str, points: str, status: Status = Status.GRADED, feedback: str = "",
            question: str = "Q1", confidence: float = 1.0) -> ItemResult:
    return ItemResult(item_id=item, question=question, points=points, max_points="3",
                      status=status, feedback=feedback, confidence=confidence,
                      grader="test", grader_version="1")


GRADES = {
    "assignment": "demo",
    "total": 4,
    "total_range": [3, 5],
    "items": {
        "q1.a": {"points": 2, "range": [1, 2]},
        "q1.b": {"points": 2, "range": [2, 3], "note": "derived"},
        "q1.c": 0,
    },
    "must_name": {"Q1": ["axis|row"]},
}


def test_items_inside_their_range_agree_and_outside_disagree() -> None:
    grades = parse_grades(GRADES)
    results = [_result("q1.a", "1"), _result("q1.b", "1", feedback="softmax over the wrong axis"),
               _result("q1.c", "0")]
    agreement = compare("f", grades, results)
    assert [i.within for i in agreement.items] == [True, False, True]
    assert agreement.total == Decimal(2) and not agreement.total_within
    assert not agreement.agrees
    assert [d.expected.item_id for d in agreement.disagreements] == ["q1.b"]
    assert agreement.unnamed == ()


def test_a_file_agrees_with_90_percent_of_items_its_total_and_every_bug_named() -> None:
    grades = parse_grades(GRADES)
    good = [_result("q1.a", "2"), _result("q1.b", "2", feedback="rows do not sum to 1"),
            _result("q1.c", "0")]
    assert compare("f", grades, good).agrees
    unnamed = [_result("q1.a", "2"), _result("q1.b", "2", feedback="wrong"), _result("q1.c", "0")]
    agreement = compare("f", grades, unnamed)
    assert agreement.unnamed == (("Q1", "axis|row"),)
    assert not agreement.agrees


def test_review_items_count_with_their_suggestion_and_unknown_items_disagree() -> None:
    grades = parse_grades({"total": 2, "items": {"x": {"points": 2, "range": [2, 2]}, "y": 0}})
    agreement = compare("f", grades, [_result("x", "2", Status.NEEDS_REVIEW, confidence=0.3)])
    assert agreement.items[0].within
    assert agreement.items[1].result is None and not agreement.items[1].within


def test_summary_counts_confident_missing_only_where_the_grader_gave_points() -> None:
    grades = parse_grades({"total": 1, "items": {"x": 1, "y": 0}})
    results = [_result("x", "0", Status.MISSING), _result("y", "0", Status.MISSING)]
    summary = summarise([compare("f", grades, results)])
    assert summary.confident_missing == 1
    assert (summary.items, summary.items_within, summary.totals_within) == (2, 1, 0)


@pytest.mark.parametrize("bad", [
    [], {"total": 1}, {"total": "x", "items": {}}, {"total": 1, "items": {"a": {"points": True}}},
    {"total": 1, "items": {"a": {"points": 1, "range": [2, 1]}}},
    {"total": 1, "items": {"a": {"points": 1, "range": [1]}}},
    {"total": float("nan"), "items": {}}, {"total": 1, "items": {}, "must_name": {"B3": "x"}},
])
def test_malformed_grades_are_refused_with_a_reason(bad: object) -> None:
    with pytest.raises(GradesError):
        parse_grades(bad)


def test_only_answered_items_count_and_the_rest_given_points_are_listed_apart() -> None:
    grades = parse_grades({"total": 3, "items": {
        "a": {"points": 2, "range": [2, 2]},
        "blank": {"points": 0, "range": [0, 0], "note": "Not answered"},
        "handout": {"points": 0, "range": [0, 0], "note": "not in the 2021 handout"},
        "zero": {"points": 0, "range": [0, 0], "note": "wrong value"},
        "said": {"points": 0, "range": [0, 0], "answered": False},
        "partly": {"points": 0, "range": [0, 1], "note": "no answer to the why"},
    }})
    answered = {item.item_id: item.answered for item in grades.items}
    assert answered == {"a": True, "blank": False, "handout": False, "zero": True,
                        "said": False, "partly": True}
    results = [_result("a", "2"), _result("blank", "1"), _result("handout", "0"),
               _result("zero", "0"), _result("said", "0"), _result("partly", "0"),
               _result("never_listed", "2"), _result("listed_nowhere_zero", "0")]
    agreement = compare("f", grades, results)
    assert [i.expected.item_id for i in agreement.counted] == ["a", "zero", "partly"]
    assert agreement.items_within == 3 and agreement.agrees is False  # total 5 vs 3
    assert [i.expected.item_id for i in agreement.unanswered_given_points] == ["blank"]
    assert [r.item_id for r in agreement.unasked_given_points] == ["never_listed"]
    summary = summarise([agreement])
    assert (summary.items, summary.items_within) == (3, 3)
    assert (summary.items_listed, summary.items_listed_within) == (6, 5)
    assert (summary.unanswered_given_points, summary.unasked_given_points) == (1, 1)


def test_a_file_agrees_over_the_items_its_grades_list_not_only_the_answered_ones() -> None:
    # Nine unanswered items left at 0 and one answered item missed: 9 of 10 listed items agree
    # (the corpus's rule), though the only answered item is out of range.
    items: dict[str, object] = {f"u{k}": {"points": 0, "range": [0, 0], "note": "no answer"}
                                for k in range(9)}
    items["a"] = {"points": 1, "range": [1, 1]}
    grades = parse_grades({"total": 1, "total_range": [0, 1], "items": items})
    results = [_result(f"u{k}", "0") for k in range(9)] + [_result("a", "0")]
    agreement = compare("f", grades, results)
    assert agreement.items_within == 0 and len(agreement.counted) == 1
    assert agreement.agrees
    results[0] = _result("u0", "1")  # an unanswered item given a point: 8 of 10 listed agree
    assert not compare("f", grades, results).agrees


def test_an_item_worth_nothing_on_both_sides_is_not_counted() -> None:
    grades = parse_grades({"total": 0, "items": {"acc": {"points": 0, "range": [0, 0]}}})
    worthless = ItemResult(item_id="acc", question="Q1", points="0", max_points="0",
                           status=Status.GRADED, grader="test", grader_version="1")
    agreement = compare("f", grades, [worthless])
    assert agreement.counted == () and summarise([agreement]).items == 0


def test_auto_graded_counts_final_statuses_and_confident_wrong_the_sure_ones() -> None:
    grades = parse_grades({"total": 4, "items": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}})
    results = [
        _result("a", "0", confidence=0.95),  # wrong, auto-graded, confident
        _result("b", "0", confidence=0.7),  # wrong, auto-graded, unsure
        _result("c", "0", Status.NEEDS_REVIEW, confidence=0.9),  # a human decides
        _result("d", "1", confidence=0.99),  # right
        _result("e", "0", Status.MISSING, confidence=0.8),  # wrong, auto-graded, confident
    ]
    summary = summarise([compare("f", grades, results)])
    assert (summary.auto_graded, summary.auto_graded_wrong, summary.confident_wrong) == (4, 3, 2)
    assert summary.auto_graded_error == 0.75


def test_answered_must_be_true_or_false() -> None:
    with pytest.raises(GradesError, match="answered"):
        parse_grades({"total": 0, "items": {"a": {"points": 0, "answered": "no"}}})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 4), st.integers(0, 4)),
                min_size=1, max_size=6))
def test_grades_without_a_total_total_their_items(rows: list[tuple[int, int, int]]) -> None:
    """An instructor who grades item by item writes no `total`: it is the items' sum, and its
    range runs from the sum of their low ends to the sum of their high ends."""
    items = {f"i{k}": {"points": p, "range": [p - below, p + above]}
             for k, (p, below, above) in enumerate(rows)}
    grades = parse_grades({"items": items})
    assert grades.total == sum(p for p, _, _ in rows)
    assert grades.total_low == sum(p - b for p, b, _ in rows)
    assert grades.total_high == sum(p + a for p, _, a in rows)


def test_a_total_range_without_its_total_is_refused() -> None:
    with pytest.raises(GradesError, match="total_range"):
        parse_grades({"items": {"a": 1}, "total_range": [0, 1]})
