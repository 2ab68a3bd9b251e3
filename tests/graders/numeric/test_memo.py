"""The numeric grader's memos (graders.numeric.memo) never change a result: an answer graded
after the same answer elsewhere in its document, after another rubric's points or feedback, or
after a known mistake's points, gives exactly what a fresh process gives; and choosing values
does not read what the observation key leaves out."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.numeric.grader import observe
from graders.numeric.memo import MEMO, Bounded, NumericMemo, placed
from graders.results import ItemResult
from graders.rubric import BUNDLED_RUBRICS, Rubric, RubricItem, load_rubric

LOADED = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
RUBRIC = LOADED.rubric
QUESTIONS = {q.id: q for q in RUBRIC.questions}
NUMERIC = [q.id for q in RUBRIC.questions if any(i.grader == "numeric" for i in q.items)]
PROPERTY = settings(max_examples=150, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _grade(rubric: Rubric, question_id: str, located: LocatedAnswer,
           resources: GradingResources, document: str) -> list[ItemResult]:
    question = next(q for q in rubric.questions if q.id == question_id)
    submission = ParsedSubmission(text=document, format="text", answers={question_id: located})
    context = GradingContext(rubric, question, submission, resources)
    items = [i for i in question.items if i.grader == "numeric"]
    return GRADER.grade_items(items, located, context)


def _placed_at(text: str, question_id: str, start: int | None,
               parts: dict[str, str] | None = None) -> tuple[LocatedAnswer, str]:
    if start is None:
        return LocatedAnswer(question_id, text, parts=parts or {}), text
    document = "x" * start + text + "\ntrailing words"
    return (LocatedAnswer(question_id, text, start=start, end=start + len(text),
                          parts=parts or {}), document)


LABELS = ("", "d_head =", "d_head = 768 / 12 =", "per matrix:", "each W is", "total",
          "in total, with bias", "the normalizer is", "softmax gives", "$\\boxed{", "p_1 =",
          "not", "final answer:", "W_Q has")
NUMBERS = ("64", "65", "589,825", "2,359,297", "49153", "590,593", "589,824", "589.824",
           "2,359,296", "2359296", "49152", "590,592",
           "1,771,776", "1.77 million", "2.4 million", "0.665", "0.67", "66.5 %",
           "[0.665, 0.245, 0.090]", "[0.6, 0.3, 0.1]", "768/12", "12", "4 × 589,824",
           "seven", "3.1e6", "e^2 + e + 1", "11.1")
answers = st.one_of(
    st.lists(st.tuples(st.sampled_from(LABELS), st.sampled_from(NUMBERS),
                       st.sampled_from(("\n", ". ", "; ", " and "))), max_size=5)
    .map(lambda parts: "".join(f"{label} {number}{joint}" for label, number, joint in parts)),
    st.text(max_size=80),
)
offsets = st.one_of(st.none(), st.integers(min_value=0, max_value=5000))


@PROPERTY
@given(question=st.sampled_from(NUMERIC), text=answers, first=offsets, second=offsets)
def test_an_answer_seen_elsewhere_grades_as_in_a_fresh_process(
        question: str, text: str, first: int | None, second: int | None) -> None:
    warm = GradingResources()
    _grade(RUBRIC, question, *_placed_at(text, question, first)[:1], warm,
           _placed_at(text, question, first)[1])
    located, document = _placed_at(text, question, second)
    assert _grade(RUBRIC, question, located, warm, document) == \
        _grade(RUBRIC, question, located, GradingResources(), document)


def _edited(change: Any) -> Rubric:
    data = RUBRIC.model_dump(mode="python")
    for question in data["questions"]:
        for item in question["items"]:
            if item["grader"] == "numeric":
                change(item)
    return Rubric.model_validate(data)


def _points(item: dict[str, Any]) -> None:
    item["points"] = Decimal(item["points"]) + 1
    item["title"] = (item.get("title") or "") + " (edited)"
    for mistake in item["config"].get("known_mistakes", ()):
        mistake["points"] = Decimal(str(mistake["points"])) + Decimal("0.5")
        mistake["feedback"] = "Edited: " + mistake["feedback"]
        mistake["hint"] = "An edited hint."


EDITED = _edited(_points)


@PROPERTY
@given(question=st.sampled_from(NUMERIC), text=answers, start=offsets)
def test_a_points_and_feedback_edit_regrades_as_in_a_fresh_process(
        question: str, text: str, start: int | None) -> None:
    warm = GradingResources()
    located, document = _placed_at(text, question, start)
    before = _grade(RUBRIC, question, located, warm, document)
    after = _grade(EDITED, question, located, warm, document)
    assert after == _grade(EDITED, question, located, GradingResources(), document)
    assert before == _grade(RUBRIC, question, located, GradingResources(), document)
    # the edit is visible: every item's max_points moved
    assert [r.max_points + 1 for r in before] == [r.max_points for r in after]


def _unobserved(config: dict[str, Any]) -> dict[str, Any]:
    """The config with everything the observation key leaves out changed."""
    changed = dict(config)
    changed["known_mistakes"] = [
        {**m, "points": Decimal("0.25"), "feedback": "other", "hint": "other hint",
         "full_credit_if_mentions": ["assumption"]}
        for m in config.get("known_mistakes", ())
    ]
    if config.get("rounding"):
        changed["rounding"] = {**config["rounding"], "credit": Decimal("0.1")}
    changed["sum_to_one_penalty"] = Decimal("0.75")
    changed["sum_tolerance"] = 0.5
    changed["typical"] = [0.0, 1.0]
    changed["carry_forward"] = {"from_item": "b1.d_head", "factor": 3.0, "points": 1}
    return changed


@PROPERTY
@given(question=st.sampled_from(NUMERIC), text=answers)
def test_choosing_values_does_not_read_what_the_observation_key_leaves_out(
        question: str, text: str) -> None:
    memo = NumericMemo()
    items = [i for i in QUESTIONS[question].items if i.grader == "numeric"]
    other = [RubricItem.model_validate({**i.model_dump(mode="python"),
                                        "config": _unobserved(dict(i.config))})
             for i in items]
    located = LocatedAnswer(question, text, start=0, end=len(text))
    stated = [memo.config(i) for i in items]
    changed = [memo.config(i) for i in other]
    assert [s[1] for s in stated] == [c[1] for c in changed]
    assert observe(located, [(i.id, s[0]) for i, s in zip(items, stated, strict=True)]) == \
        observe(located, [(i.id, c[0]) for i, c in zip(other, changed, strict=True)])


def test_parts_are_part_of_the_answer() -> None:
    """A JSON upload's per-item parts are read: the same text with other parts differs."""
    question = "B1"
    item = next(i for i in QUESTIONS[question].items if i.grader == "numeric")
    warm = GradingResources()
    one, doc = _placed_at("see below", question, 0, {item.id: "64"})
    two, doc2 = _placed_at("see below", question, 0, {item.id: "65"})
    first = _grade(RUBRIC, question, one, warm, doc)
    second = _grade(RUBRIC, question, two, warm, doc2)
    assert second == _grade(RUBRIC, question, two, GradingResources(), doc2)
    assert first != second


def test_the_memos_are_bounded() -> None:
    memo: Bounded[int, int] = Bounded(3)
    for n in range(10):
        memo.put(n, n)
    assert len(memo) == 3 and memo.get(0) is None and memo.get(9) == 9
    resources = GradingResources()
    small = resources.shared(MEMO, lambda: NumericMemo(observations=2, scored=2))
    for n in range(6):
        text = f"d_head = {60 + n}"
        located, document = _placed_at(text, "B1", n)
        _grade(RUBRIC, "B1", located, resources, document)
    assert len(small.scored) == 2 and len(small.observations) == 2


def test_placed_moves_only_spans() -> None:
    text = "d_head = 768 / 12 = 64"
    at_ten, doc = _placed_at(text, "B1", 10)
    results = _grade(RUBRIC, "B1", at_ten, GradingResources(), doc)
    at_forty, _ = _placed_at(text, "B1", 40)
    moved = placed(results, 10, at_forty)
    for old, new in zip(results, moved, strict=True):
        assert old.model_dump(exclude={"evidence"}) == new.model_dump(exclude={"evidence"})
        for a, b in zip(old.evidence, new.evidence, strict=True):
            assert (a.kind, a.text, a.note) == (b.kind, b.text, b.note)
            assert (b.start is None) == (a.start is None)
            if a.start is not None:
                assert b.start == a.start + 30


def _expected(item: dict[str, Any]) -> None:
    config = item["config"]
    if isinstance(config.get("expected"), int):
        config["expected"] = config["expected"] + 1


def _mistakes(item: dict[str, Any]) -> None:
    config = item["config"]
    config["known_mistakes"] = [{**m, "value": m["value"] + 1} if isinstance(m["value"], int)
                                else m for m in config.get("known_mistakes", ())]


# What a new key or a known-mistake edit changes: values that choosing reads.
VALUE_EDITS = (_edited(_expected), _edited(_mistakes))


@PROPERTY
@given(question=st.sampled_from(NUMERIC), text=answers, start=offsets,
       edited=st.sampled_from(VALUE_EDITS))
@example(question="B1", text="d_head = 64\nd_head = 65", start=3, edited=VALUE_EDITS[0])
@example(question="B1", text="per matrix: 589,824. per matrix: 589,825", start=None,
         edited=VALUE_EDITS[0])
@example(question="B1", text="d_head 64. per matrix 49152. per matrix 49153", start=None,
         edited=VALUE_EDITS[1])
def test_a_known_mistake_or_key_edit_observes_again(question: str, text: str,
                                                    start: int | None, edited: Rubric) -> None:
    warm = GradingResources()
    located, document = _placed_at(text, question, start)
    _grade(RUBRIC, question, located, warm, document)
    assert _grade(edited, question, located, warm, document) == \
        _grade(edited, question, located, GradingResources(), document)
