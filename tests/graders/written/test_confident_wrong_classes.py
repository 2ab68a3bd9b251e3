"""Classes of real writing that a probe of paraphrases on the transformer-basics rubric found
graded confidently wrong, generated:

- a negation of going past a limit states the limit ("can't handle positions past max_len",
  "does not work beyond the maximum length"): the negation covers the crossing, not the limit,
  so a pattern naming the limit still finds it;
- a premise that denies an element, leading to a known wrong conclusion in other words ("add a
  hidden layer; the hidden layer is linear, so together they form a more powerful linear
  model"): never a confident partial credit for the element it does name;
- a description of an element in other words, the encoder's cosine low but most of the
  phrasing's own words there as synonyms ("greedy selects the likeliest token", "takes the
  top-scoring token at each position" for "picks the most probable token at each step"):
  full credit, or a person decides; never a confident credit that leaves the element out.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.results import Status
from graders.rubric import LoadedRubric
from graders.written.patterns import find_affirmed
from tests.graders.written.conftest import graded_item


@pytest.fixture(scope="module")
def rubric(transformer_basics: LoadedRubric) -> LoadedRubric:
    return transformer_basics


LIMITS = ["max_len", "the maximum length", "the max sequence length", "the maximum position"]
CROSSINGS = ["past", "beyond", "longer than", "more than", "above", "outside"]
NEGATED_VERBS = ["can't handle positions", "cannot deal with inputs", "does not work",
                 "won't generalise to sequences", "fails on positions", "is unable to go"]
LIMIT_PATTERN = r"(max*|maximum) (sequence |context )?(length|position*)|max_?len\w*"


@given(st.sampled_from(NEGATED_VERBS), st.sampled_from(CROSSINGS), st.sampled_from(LIMITS))
@settings(max_examples=60, deadline=None)
def test_a_negated_crossing_states_the_limit(verb: str, crossing: str, limit: str) -> None:
    stated = f"the table {verb} {crossing} {limit}"
    assert find_affirmed(LIMIT_PATTERN, stated) is not None, stated
    # without the crossing the negation is of the limit itself
    assert find_affirmed(LIMIT_PATTERN, f"the table does not have {limit}") is None
    assert find_affirmed(LIMIT_PATTERN, f"there is no {limit}") is None


@given(st.sampled_from(["can't handle positions", "cannot deal with positions",
                        "does not work for positions", "fails on positions"]),
       st.sampled_from(["past", "beyond"]),
       st.sampled_from(["max_len", "the maximum training length", "the max sequence length"]))
@settings(max_examples=12, deadline=None)
def test_a_stated_limit_behind_a_negation_earns_its_credit(
        resources: GradingResources, rubric: LoadedRubric, verb: str, crossing: str,
        limit: str) -> None:
    answer = (f"Learned absolute embeddings train one vector per position, so the model {verb} "
              f"{crossing} {limit}.")
    result = graded_item(rubric, resources, "A3", "a3.learned", answer)
    assert result.points == Decimal(2), (result.points, result.status, result.feedback)


@given(st.sampled_from(["Add a hidden layer", "Put a hidden layer between input and output",
                        "Use a hidden layer"]),
       st.sampled_from(["the hidden layer is linear", "that hidden layer is linear"]),
       st.sampled_from(["together they form a more powerful linear model that can separate XOR",
                        "the network becomes a more powerful linear model",
                        "we get a stronger linear model"]))
@settings(max_examples=12, deadline=None)
def test_a_denied_element_leading_to_a_wrong_conclusion_is_never_a_confident_credit(
        resources: GradingResources, rubric: LoadedRubric, hidden: str, premise: str,
        conclusion: str) -> None:
    answer = f"{hidden}; {premise}, so {conclusion}."
    result = graded_item(rubric, resources, "A1", "a1.hidden_nonlinear", answer)
    assert result.points <= Decimal(1) or result.status is Status.NEEDS_REVIEW, (
        result.points, result.status, result.feedback)


@given(st.sampled_from(["Greedy", "Greedy decoding", "At each position greedy"]),
       st.sampled_from(["takes", "picks", "chooses", "selects"]),
       st.sampled_from(["top-scoring", "highest-scoring", "likeliest", "most likely",
                        "single best"]),
       st.sampled_from([" and never reconsiders it; a locally best choice can lead away from "
                        "the best overall sequence.",
                        " at each step; a locally best choice can lead away from the best "
                        "overall sequence.",
                        " every time, which is only locally optimal."]))
@settings(max_examples=25, deadline=None)
def test_greedy_described_in_other_words_is_full_credit_or_reviewed(
        resources: GradingResources, rubric: LoadedRubric, subject: str, verb: str, top: str,
        tail: str) -> None:
    answer = f"{subject} {verb} the {top} token{tail}"
    result = graded_item(rubric, resources, "A6", "a6.greedy", answer)
    assert result.points == Decimal(4) or result.status is Status.NEEDS_REVIEW, (
        result.points, result.status, result.feedback)
