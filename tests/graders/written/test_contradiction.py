"""Answers that state the opposite of a reference never keep full credit at high confidence.

The generators write the class of answer the issue describes: a reference restated with heavy
word overlap but turned around by a negation, an antonym or two swapped roles.
"""

from __future__ import annotations

import json
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.results import Status
from graders.rubric import parse_rubric
from graders.written.contradiction import ANTONYMS, opposite_of
from tests.graders.written.conftest import grade_text

SUBJECTS = ["the two regions", "the nodes of the graph", "the hidden units", "both lists",
            "the tokens in a sentence", "the pointer and the array", "each pair of layers"]
STATES = [("connected", "separated"), ("increasing", "decreasing"), ("linear", "nonlinear"),
          ("sorted", "unsorted"), ("dependent", "independent"), ("stable", "unstable"),
          ("static", "dynamic"), ("visible", "invisible")]
TAILS = ["in every case", "after the first step", "during training", "at run time", ""]
ORDERED = [("the query", "the key", "compared with"), ("the parent", "the child", "calls"),
           ("the encoder", "the decoder", "feeds"), ("the base class", "the subclass", "before"),
           ("the stack", "the heap", "is larger than")]


def _sentence(subject: str, verb: str, state: str, tail: str) -> str:
    return f"{subject[0].upper()}{subject[1:]} {verb} {state} {tail}".strip() + "."


@st.composite
def negated(draw: st.DrawFn) -> tuple[str, str]:
    subject, tail = draw(st.sampled_from(SUBJECTS)), draw(st.sampled_from(TAILS))
    state = draw(st.sampled_from(STATES))[0]
    reference = _sentence(subject, "are", state, tail)
    answer = _sentence(subject, draw(st.sampled_from(["are not", "aren't", "are never"])),
                       state, tail)
    return (reference, answer) if draw(st.booleans()) else (answer, reference)


@st.composite
def antonym(draw: st.DrawFn) -> tuple[str, str]:
    subject, tail = draw(st.sampled_from(SUBJECTS)), draw(st.sampled_from(TAILS))
    state, opposite = draw(st.sampled_from(STATES))
    if draw(st.booleans()):
        state, opposite = opposite, state
    return (_sentence(subject, "are", state, tail), _sentence(subject, "are", opposite, tail))


@st.composite
def swapped(draw: st.DrawFn) -> tuple[str, str]:
    first, second, relation = draw(st.sampled_from(ORDERED))
    tail = draw(st.sampled_from(TAILS))
    reference = f"{first.capitalize()} {relation} {second} {tail}".strip() + "."
    answer = f"{second.capitalize()} {relation} {first} {tail}".strip() + "."
    return reference, answer


OPPOSITES = st.one_of(negated(), antonym(), swapped())


@given(OPPOSITES)
def test_the_signal_finds_every_generated_opposite(pair: tuple[str, str]) -> None:
    reference, answer = pair
    assert opposite_of([answer], [reference]) is not None


@given(st.sampled_from(SUBJECTS), st.sampled_from(STATES), st.sampled_from(TAILS))
def test_a_restatement_is_not_an_opposite(subject: str, states: tuple[str, str],
                                          tail: str) -> None:
    reference = _sentence(subject, "are", states[0], tail)
    assert opposite_of([reference], [reference]) is None
    # Negating the antonym agrees with the reference ("not separated" = "connected").
    agreeing = _sentence(subject, "are not", states[1], tail)
    assert opposite_of([agreeing], [reference]) is None


def test_antonym_table_is_symmetric() -> None:
    for word, opposites in ANTONYMS.items():
        for other in opposites:
            assert word in ANTONYMS[other]


def _rubric(reference: str, with_elements: bool) -> str:
    words = [w.strip(".,").lower() for w in reference.split() if len(w) > 3]
    elements = ""
    if with_elements:
        patterns = ", ".join(json.dumps(w) for w in words[:2])  # any word: quoted, escaped
        elements = f"""
          elements:
            - id: idea
              patterns: [{patterns}]"""
    return f"""
slug: t
title: T
review_threshold: 0.6
questions:
  - id: Q
    prompt: State the property.
    items:
      - id: q
        points: 4
        grader: written
        config:
          reference: [{json.dumps(reference)}]{elements}
"""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPPOSITES, st.booleans())
def test_an_opposite_never_gets_full_credit_at_high_confidence(
        resources: GradingResources, pair: tuple[str, str], with_elements: bool) -> None:
    reference, answer = pair
    rubric = parse_rubric(_rubric(reference, with_elements)).rubric
    [result] = grade_text(rubric, "Q", answer, resources)
    full = result.points == Decimal(4)
    assert not (full and result.status is Status.GRADED), result.feedback
    if full:
        assert "opposite" in result.feedback


# Two classes the detector read as the opposite on Mohler where the answer agrees with the
# reference (docs/benchmarks.md, written_transfer): a quantifier's negation said with "not",
# and an enumeration whose pairs the reference lists in both orders.
THINGS = [("node", "children"), ("class", "constructor"), ("array", "elements"),
          ("function", "parameters"), ("list", "duplicates")]
QUANTIFIED = ["A {a} that has no {b}.", "If no {b} is given, the {a} is empty.",
              "The {a} has none of the {b}."]
NEGATED_ANY = ["A {a} that does not have any {b}.", "When the {b} are not given, the {a} is "
               "empty.", "The {a} doesn't have {b}."]


@given(st.sampled_from(THINGS), st.sampled_from(QUANTIFIED), st.sampled_from(NEGATED_ANY))
@settings(max_examples=40, deadline=None)
def test_a_quantifier_negation_said_with_not_is_not_the_opposite(
        thing: tuple[str, str], reference: str, answer: str) -> None:
    a, b = thing
    assert opposite_of([answer.format(a=a, b=b).lower()], [reference.format(a=a, b=b)]) is None
    # the negation itself is still read: an affirmed word against a negated one
    assert opposite_of([f"the {a} does not have the {b} given"],
                       [f"the {a} has the {b} given"]) is not None


KINDS = [("constant", "nonconstant"), ("signed", "unsigned"), ("static", "dynamic")]
HEADS = [("pointer", "data"), ("reference", "object"), ("key", "value")]


@given(st.sampled_from(KINDS), st.sampled_from(HEADS), st.permutations(range(4)))
@settings(max_examples=40, deadline=None)
def test_an_enumeration_in_another_order_is_not_a_role_swap(
        kinds: tuple[str, str], heads: tuple[str, str], order: list[int]) -> None:
    x, y = kinds
    first, second = heads
    pairs = [f"{p} {first} to {q} {second}" for p in (x, y) for q in (x, y)]
    reference = "There are four ways: " + ", ".join(pairs) + "."
    answer = ", ".join(pairs[i] for i in order) + "."
    assert opposite_of([answer], [reference]) is None
    # one pair against its swap is still a swap
    assert opposite_of([f"the {second} points to the {first}"],
                       [f"the {first} points to the {second}"]) is not None
