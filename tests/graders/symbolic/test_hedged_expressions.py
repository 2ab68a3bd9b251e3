"""Two expressions offered for one target with no commitment to either: `q = k_a, or maybe
q = \\beta(k_a + k_b)`, `q = X (or possibly Y)`, `q = X or Y`, `q = X, perhaps Y`. The grader
credited the expression the answer ends on (full marks for `k_a, or maybe q = <the key>`) or
could not read the pair at all. A hedge between rival expressions is no committed answer: it
goes to a reader with both read, the lesser credit suggested. An alternative that restates the
same expression (`\\beta(k_a + k_b), or maybe \\beta k_a + \\beta k_b`) is no rival."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import Question, Rubric, RubricItem
from graders.symbolic import GRADER

PROPERTY = settings(max_examples=60, deadline=None, database=None)

ITEMS = {
    "q": RubricItem(id="q.a", points=Decimal(2), grader="symbolic",
                    config={"mode": "scalar_multiple", "target": "q",
                            "expected": r"\beta(k_a + k_b)"}),
    "N": RubricItem(id="q.a", points=Decimal(2), grader="symbolic",
                    config={"mode": "equivalent", "target": "N", "expected": "V*d"}),
}
RIGHT = {"q": [r"\beta(k_a + k_b)", r"\beta k_a + \beta k_b", "C(k_a+k_b)",
               r"\lambda (k_a + k_b)"],
         "N": ["V d", r"V \cdot d", "d V", "V*d"]}
WRONG = {"q": ["k_a", "k_a + k_b", r"\beta k_a", "k_a - k_b"],
         "N": ["V + d", "2 V d", "V^2 d", "V/d"]}
HEDGES = ["{t} = {a}, or maybe {t} = {b}", "{t} = {a} (or possibly {b})", "{t} = {a} or {b}",
          "{t} = {a}, perhaps {b}", "{t} = {a}, or perhaps {t} = {b}",
          "${t} = {a}$, or maybe ${t} = {b}$", "{t} = {a}; maybe {t} = {b}",
          "{t} = {a} or possibly {b}"]


def _grade(text: str, target: str, resources: GradingResources) -> ItemResult:
    item = ITEMS[target]
    question = Question(id="Q", items=(item,))
    rubric = Rubric(slug="hedges", title="hedges", questions=(question,))
    answer = LocatedAnswer("Q", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"Q": answer})
    return GRADER.grade(item, answer, GradingContext(rubric, question, submission, resources))


@PROPERTY
@given(target=st.sampled_from(sorted(ITEMS)), data=st.data(), frame=st.sampled_from(HEDGES),
       right_first=st.booleans())
def test_rival_expressions_offered_together_go_to_a_reader_with_both(
        target: str, data: st.DataObject, frame: str, right_first: bool,
        resources: GradingResources) -> None:
    right = data.draw(st.sampled_from(RIGHT[target]))
    wrong = data.draw(st.sampled_from(WRONG[target]))
    a, b = (right, wrong) if right_first else (wrong, right)
    text = frame.format(t=target, a=a, b=b)
    result = _grade(text, target, resources)
    assert result.status is Status.NEEDS_REVIEW, (text, result.feedback)
    assert result.points < result.max_points, (text, result.feedback)
    assert a in result.feedback and b in result.feedback, (text, result.feedback)


@PROPERTY
@given(target=st.sampled_from(sorted(ITEMS)), data=st.data(),
       frame=st.sampled_from([*HEDGES, "{t} = {a} or equivalently {b}",
                              "{t} = {a}, or equivalently, {b}",
                              "{t} = {a} (or equivalently {b})"]))
def test_an_alternative_that_restates_the_expression_is_no_rival(
        target: str, data: st.DataObject, frame: str, resources: GradingResources) -> None:
    a, b = data.draw(st.lists(st.sampled_from(RIGHT[target]), min_size=2, max_size=2,
                              unique=True))
    text = frame.format(t=target, a=a, b=b)
    result = _grade(text, target, resources)
    assert (result.status, result.points) == (Status.GRADED, result.max_points), \
        (text, result.feedback)
