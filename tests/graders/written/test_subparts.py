"""Sub-answers marked inside one answer map to the items that are the question's sub-parts.

Generated: runs of two to five sub-answers, numbered, lettered or in roman numerals, in the
forms students write (`1)`, `(a)`, `b.`, `ii:`, `Q2.`, `Part 3:`, bullets before them), one per
line or run together after a sentence's end; and text with a lone "1." that is no run.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.rubric import parse_rubric
from graders.written.subparts import sub_answers
from tests.graders.written.conftest import grade_text

LABELS = {"number": ["1", "2", "3", "4", "5"], "letter": ["a", "b", "c", "d", "e"],
          "roman": ["i", "ii", "iii", "iv", "v"]}
FORMS = ["{}) ", "({}) ", "{}. ", "{}: ", "Q{}. ", "Part {}: ", "- {}) ", "**({})** "]
WORDS = st.sampled_from(["softmax", "heads", "gradient", "the", "layer", "scores", "order"])
BODY = st.lists(WORDS, min_size=2, max_size=8).map(lambda w: " ".join(w) + ".")


@given(st.sampled_from(sorted(LABELS)), st.sampled_from(FORMS),
       st.lists(BODY, min_size=2, max_size=5), st.sampled_from(["\n", " "]))
@settings(max_examples=80, deadline=None)
def test_every_marked_sub_answer_is_found_under_its_label(
        kind: str, form: str, bodies: list[str], joiner: str) -> None:
    if form.startswith(("Q", "Part")) and kind != "number":
        form = "{}) "
    labels = LABELS[kind][:len(bodies)]
    text = "Answer. " + joiner.join(form.format(label) + body
                                    for label, body in zip(labels, bodies, strict=True))
    found = sub_answers(text)
    assert [p.label for p in found] == labels
    for part, body in zip(found, bodies, strict=True):
        assert text[part.start:part.end].strip() == body


@given(BODY, BODY)
@settings(max_examples=30, deadline=None)
def test_a_lone_number_is_not_a_run(first: str, second: str) -> None:
    assert sub_answers(f"{first} See eq. 1. {second}") == ()
    assert sub_answers(f"2) {first}\n3) {second}") == ()  # a run starts at its first label


def test_hostile_text_is_read_in_bounded_time() -> None:
    assert len(sub_answers("1) a. " * 50_000)) <= 2


RUBRIC = """
slug: t
title: T
questions:
  - id: Q
    items:
      - id: q.a
        points: 1
        grader: written
        config:
          subpart: a
          elements: [{id: saturate, patterns: ['saturat*']}]
      - id: q.b
        points: 1
        grader: written
        config:
          subpart: b
          elements: [{id: heads, patterns: ['heads']}]
"""


def test_an_item_reads_its_own_sub_answer(resources: GradingResources) -> None:
    rubric = parse_rubric(RUBRIC).rubric
    text = "(a) Several heads attend to different things.\n(b) The softmax saturates."
    points = {r.item_id: r.points for r in grade_text(rubric, "Q", text, resources)}
    assert points == {"q.a": Decimal(0), "q.b": Decimal(0)}
    right = "(a) The softmax saturates.\n(b) Several heads attend to different things."
    points = {r.item_id: r.points for r in grade_text(rubric, "Q", right, resources)}
    assert points == {"q.a": Decimal(1), "q.b": Decimal(1)}
    unmarked = "The softmax saturates, and several heads attend to different things."
    points = {r.item_id: r.points for r in grade_text(rubric, "Q", unmarked, resources)}
    assert points == {"q.a": Decimal(1), "q.b": Decimal(1)}
