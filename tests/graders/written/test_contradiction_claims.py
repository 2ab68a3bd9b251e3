"""Negations that agree with the reference are not read as its opposite; real polarity
conflicts about the same subject and predicate still are.

The agreeing classes (on the third trial homework and on Mohler they sent right answers to
review): a negated antonym ("cannot be read outside the loop" = "read only inside the loop");
"instead of", "rather than", "avoids" or "no need to" before the verb the answer negates ("not
recomputed" = "kept instead of recomputing"); a double negation ("does not converge without a
warm-up" = "needs a warm-up"); a negation of the other side of a contrast the reference draws
("pre-LN does not normalise the sum; post-LN does" against "post-LN normalises the sum"); a
quantifier or antonym about another word ("no warm-up is needed" against "every layer"); a
negation in a condition ("If a constructor is given, the compiler does not create one").
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.rubric import parse_rubric
from graders.written.contradiction import opposite_of
from tests.graders.written.conftest import grade_text
from tests.graders.written.test_contradiction import _rubric

SUBJECTS = ["the counter", "each worker", "the running mean", "the buffer", "this variable"]
PLACES = [("inside", "outside"), ("above", "below"), ("before", "after")]
SCOPES = ["the loop", "the function", "the block", "the barrier"]


@settings(deadline=None)  # a loaded machine is no failure
@given(st.sampled_from(SUBJECTS), st.sampled_from(PLACES), st.sampled_from(SCOPES),
       st.booleans())
def test_a_negated_antonym_agrees(subject: str, places: tuple[str, str], scope: str,
                                  flip: bool) -> None:
    inside, outside = places[::-1] if flip else places
    reference = f"{subject.capitalize()} can be read only {inside} {scope}."
    agreeing = [f"{subject.capitalize()} cannot be read {outside} {scope}.",
                f"{outside.capitalize()} {scope} {subject} can't be read."]
    for answer in agreeing:
        assert opposite_of([answer], [reference]) is None, answer
    # the antonym affirmed is still the opposite
    assert opposite_of([f"{subject.capitalize()} can be read {outside} {scope}."],
                       [reference]) is not None


VERBS = [("recompute", "recomputed", "recomputing"), ("reorder", "reordered", "reordering"),
         ("reload", "reloaded", "reloading"), ("rebuild", "rebuilt", "rebuilding")]
KEEPERS = ["the cache", "the buffer", "the memo table", "the decoder"]
OBJECTS = ["keys and values", "partial sums", "activations", "index pages"]
INSTEAD = ["instead of", "rather than"]


@settings(deadline=None)  # a loaded machine is no failure
@given(st.sampled_from(VERBS), st.sampled_from(KEEPERS), st.sampled_from(OBJECTS),
       st.sampled_from(INSTEAD))
def test_instead_of_a_verb_is_its_negation(verb: tuple[str, str, str], keeper: str,
                                           things: str, instead: str) -> None:
    base, done, doing = verb
    reference = f"{keeper.capitalize()} keeps the {things} {instead} {doing} them at each step."
    agreeing = [f"The {things} are not {done} at each step.",
                f"There is no need to {base} the {things} at each step.",
                f"{keeper.capitalize()} avoids {doing} the {things} at each step.",
                f"The {things} are kept, not {done}, at each step."]
    for answer in agreeing:
        assert opposite_of([answer], [reference]) is None, answer
    # saying the verb happens is the opposite (the reference negates it)
    assert opposite_of([f"The {things} are {done} at each step."], [reference]) is not None


RUNS = ["post-LN training", "the deep model", "a large-batch run", "the transformer"]
NEEDS = ["warm-up", "learning-rate schedule", "gradient clipping", "careful initialisation"]
WORKS = ["converge", "train", "work", "stay stable"]


@settings(deadline=None)  # a loaded machine is no failure
@given(st.sampled_from(RUNS), st.sampled_from(NEEDS), st.sampled_from(WORKS),
       st.sampled_from(["does not", "doesn't", "cannot", "will never"]))
def test_a_double_negation_affirms(run: str, need: str, work: str, negation: str) -> None:
    reference = f"{run.capitalize()} needs a {need}."
    answer = f"{run.capitalize()} {negation} {work} without a {need}."
    assert opposite_of([answer], [reference]) is None
    # one negation alone is the opposite; "and" starts a new count
    assert opposite_of([f"{run.capitalize()} does not need a {need}."],
                       [reference]) is not None
    assert opposite_of([f"{run.capitalize()} does not {work} and does not need a {need}."],
                       [reference]) is not None


SIDES = [("pre-LN", "post-LN"), ("the encoder", "the decoder"), ("training", "inference"),
         ("the forward pass", "the backward pass")]
ACTS = [("normalise", "normalises"), ("mask", "masks"), ("rescale", "rescales"),
        ("cache", "caches")]
TARGETS = ["residual sum", "attention scores", "hidden states", "layer outputs"]


@settings(deadline=None)  # a loaded machine is no failure
@given(st.sampled_from(SIDES), st.sampled_from(ACTS), st.sampled_from(TARGETS),
       st.booleans())
def test_a_negation_of_the_other_side_of_a_contrast_agrees(
        sides: tuple[str, str], act: tuple[str, str], target: str, flip: bool) -> None:
    other, side = sides[::-1] if flip else sides
    verb, verbs = act
    reference = f"In {side} the model {verbs} the {target}."
    agreeing = [f"{other.capitalize()} does not {verb} the {target}; {side} does.",
                f"With {other} the {target} is never {verb}d."
                if verb.endswith("e") else f"With {other} the {target} is never {verb}ed."]
    for answer in agreeing:
        assert opposite_of([answer], [reference]) is None, answer
    # the same side negated is the opposite, the other side named beside it or not
    for answer in (f"{side.capitalize()} does not {verb} the {target}.",
                   f"{side.capitalize()} does not {verb} the {target}; {other} does."):
        assert opposite_of([answer], [reference]) is not None, answer


NOUNS = ["layer", "token", "head", "block"]


@settings(deadline=None)  # a loaded machine is no failure
@given(st.sampled_from(NOUNS), st.sampled_from(NEEDS), st.sampled_from(RUNS))
def test_a_quantifier_of_another_word_is_no_antonym(noun: str, need: str, run: str) -> None:
    reference = f"In {run} the gradients reach every {noun} unchanged."
    answer = f"In {run} the gradients are well behaved, so no {need} is needed."
    assert opposite_of([answer], [reference]) is None
    assert opposite_of([f"In {run} the gradients reach no {noun} unchanged."],
                       [reference]) is not None


SYSTEMS = [("compiler", "default constructor"), ("runtime", "thread pool"),
           ("framework", "default optimizer"), ("loader", "symbol table")]


@settings(deadline=None)  # a loaded machine is no failure
@given(st.sampled_from(SYSTEMS), st.sampled_from(["defined", "given", "provided"]))
def test_a_negation_in_a_condition_is_no_claim(system: tuple[str, str], given_: str) -> None:
    maker, thing = system
    reference = (f"If no {thing} is {given_}, the {maker} provides one. If a {thing} is "
                 f"{given_}, the {maker} does not create a {thing}.")
    for answer in (f"The {maker} creates a {thing} if one is not {given_}.",
                   f"If the class does not {given_.removesuffix('d').removesuffix('e')} a "
                   f"{thing}, the {maker} creates one.",
                   f"Without a {thing}, the {maker} creates one; with one, it does not."):
        assert opposite_of([answer], [reference]) is None, answer


ITEMS = ["item", "element", "frame", "record"]
ORDERS = [("removed", "removes"), ("popped", "pops"), ("deleted", "deletes")]
HOLDERS = ["A stack", "The undo history", "A call stack", "This structure"]


@settings(deadline=None)  # a loaded machine is no failure
@given(st.sampled_from(ITEMS), st.sampled_from(ORDERS), st.sampled_from(HOLDERS),
       st.sampled_from(["never", "does not", "doesn't"]))
def test_the_reference_claim_negated_about_its_subject_is_still_the_opposite(
        item: str, order: tuple[str, str], holder: str, negation: str) -> None:
    done, does = order
    reference = (f"{holder} has the property that the last {item} added will be the first to "
                 f"be {done} (last-in-first-out).")
    verb = does if negation == "never" else does.replace("s ", " ").removesuffix("s")
    answer = f"{holder} {negation} {verb} the most recently added {item} first."
    assert opposite_of([answer], [reference]) is not None, answer


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VERBS), st.sampled_from(OBJECTS))
def test_an_agreeing_negation_keeps_its_full_credit_unflagged(
        resources: GradingResources, verb: tuple[str, str, str], things: str) -> None:
    _, done, doing = verb
    reference = f"The cache keeps the {things} instead of {doing} them at each step."
    rubric = parse_rubric(_rubric(reference, True)).rubric
    [result] = grade_text(rubric, "Q", f"The cache keeps the {things}: they are not {done} "
                          "at each step.", resources)
    assert result.points == Decimal(4), result.feedback
    assert "opposite" not in result.feedback
