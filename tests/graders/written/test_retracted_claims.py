"""A statement an answer makes and disowns: offered both ways ("XOR is either linearly separable
or not linearly separable"), taken back ("... (just kidding)", "Some say ...; they are wrong.",
"'...' is a common myth", "Just kidding." as the next sentence), denied in front ("It is false
that ...", "It is a myth that ...") or struck through (`<s>`, `<del>`, like Markdown's `~~`).
Its words match the element, and the grader once gave each full credit with no review; a
careful TA gives none of them full credit outright. The opposite reading of contradiction.py
reads what the answer then claims: a retraction turns the statement's polarity around, so an
answer that disowns the wrong claim ("...; the claim that ... is a myth", "Some say <wrong>;
they are wrong") or states the right one plainly keeps its credit."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, Question, RubricItem, load_rubric
from graders.written import GRADER

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric

# (subject, the right statement's predicate, the wrong one's): negated and affirmed references
CLAIMS = (
    ("XOR", "is not linearly separable", "is linearly separable"),
    ("the attention matrix", "is not symmetric", "is symmetric"),
    ("a single perceptron", "cannot represent XOR", "can represent XOR"),
    ("the softmax", "does not saturate after scaling", "saturates after scaling"),
    ("self-attention", "is permutation equivariant", "is not permutation equivariant"),
    ("the residual connection", "keeps the gradient flowing", "does not keep the gradient flowing"),
    ("layer normalisation", "rescales each token's features", "does not rescale each token's "
     "features"),
)
DISOWNED = (
    "{S} {right} (just kidding, it {short}).",
    "{S} {right} (just kidding).",
    "Some say {s} {right}; they are wrong.",
    "It is false that {s} {right}.",
    "It is a myth that {s} {right}.",
    '"{S} {right}" is a common myth.',
    "{S} {right}, which is wrong.",
    "{S} {right} or {wrong}.",
    "{S} either {right} or {wrong}.",
    "{S} {wrong} or maybe {right}.",
    "{S} {right}. Just kidding.",
    "{S} {right}. That is wrong!",
)
KEPT = (
    "{S} {right}.",
    "{S} {right}; the claim that {s} {wrong} is a myth.",
    "{S} {right}, and that is not a joke.",
    "{S} {right}; some say otherwise, but they are wrong.",
    "{S} {right}, while it is not true of the other models.",
)
# The wrong claim disowned beside the right one: read right where the wrong one has an auxiliary
# or a negation to turn around ("Some say a perceptron can represent XOR; they are wrong");
# without one ("Some say the softmax saturates after scaling; they are wrong") its verb is not
# told from its subject, every word is turned, and a reader decides.
DISOWNED_WRONG = ("Some say {s} {wrong}. They are wrong. {S} {right}.",
                  "Some say {s} {wrong}; they are wrong. {S} {right}.")
WITH_AUXILIARY = tuple(c for c in CLAIMS if c[2].split()[0] in ("is", "can", "does"))


def grade(text: str, subject: str, right: str, resources: GradingResources) -> ItemResult:
    statement = f"{subject} {right}"
    item = RubricItem(id="w", points=Decimal(4), grader="written", config={
        "reference": [f"{statement[0].upper()}{statement[1:]}."],
        "elements": [{"id": "claim", "patterns": [statement.lower()]}]})
    answer = LocatedAnswer("W", text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={"W": answer})
    context = GradingContext(RUBRIC, Question(id="W", items=(item,)), submission, resources)
    return GRADER.grade(item, answer, context)


def _text(frame: str, claim: tuple[str, str, str]) -> str:
    subject, right, wrong = claim
    short = right.split()[0]
    return frame.format(S=subject[0].upper() + subject[1:], s=subject, right=right,
                        wrong=wrong, short=short)


@pytest.fixture(scope="module")
def resources() -> GradingResources:
    return GradingResources(options={})


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(claim=st.sampled_from(CLAIMS), frame=st.sampled_from(DISOWNED))
def test_a_disowned_statement_is_not_full_credit(claim: tuple[str, str, str], frame: str,
                                                 resources: GradingResources) -> None:
    text = _text(frame, claim)
    result = grade(text, claim[0], claim[1], resources)
    assert not (result.status is Status.GRADED and result.points == result.max_points), \
        (text, result.feedback)
    if result.status is Status.NEEDS_REVIEW and result.points == result.max_points:
        assert "opposite" in result.feedback, result.feedback  # the reason, for the reader


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(claim=st.sampled_from(CLAIMS), frame=st.sampled_from(KEPT))
def test_a_statement_made_plainly_keeps_its_credit(claim: tuple[str, str, str], frame: str,
                                                   resources: GradingResources) -> None:
    text = _text(frame, claim)
    result = grade(text, claim[0], claim[1], resources)
    assert result.status is Status.GRADED and result.points == result.max_points, \
        (text, result.feedback)


@pytest.mark.parametrize("struck", ["<s>{w}</s>", "<del>{w}</del>", "<S>{w}</S>",
                                    "<strike>{w}</strike>", "~~{w}~~"])
def test_struck_through_words_are_not_read(struck: str, resources: GradingResources) -> None:
    text = "XOR is " + struck.format(w="not") + " linearly separable."
    result = grade(text, "XOR", "is not linearly separable", resources)
    assert not (result.status is Status.GRADED and result.points == result.max_points), \
        (text, result.feedback)
    kept = "XOR is " + struck.format(w="perhaps") + " not linearly separable."
    result = grade(kept, "XOR", "is not linearly separable", resources)
    assert result.status is Status.GRADED and result.points == result.max_points, \
        (kept, result.feedback)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(claim=st.sampled_from(WITH_AUXILIARY), frame=st.sampled_from(DISOWNED_WRONG))
def test_a_wrong_claim_disowned_beside_the_right_one_keeps_the_credit(
        claim: tuple[str, str, str], frame: str, resources: GradingResources) -> None:
    text = _text(frame, claim)
    result = grade(text, claim[0], claim[1], resources)
    assert result.status is Status.GRADED and result.points == result.max_points, \
        (text, result.feedback)
