"""Classes of real writing that a fourth probe of notes written here (ranges set before grading;
transformer-basics, the CS224N items and another instructor's homework) and the third probe's
held-out batch found graded confidently wrong, generated over several items and subjects:

- what a step prevents, said as a result clause that denies it ("we divide by sqrt(d_k) so the
  softmax doesn't saturate", "... so that the valve won't let blood flow back"): states the
  element its rubric phrases as a prevention ("scaling prevents softmax saturation");
- a claim that only restates the question, for a reason that does not carry the idea ("a stack
  of linear layers is still linear because the weights are shared across layers"): the credit
  rests on the reason, so a person decides;
- a note that writes a product in symbols or links its steps by "=" ("sigmoid' <= 0.25, x 10
  layers = 0.25^10 ~ 0", "tiny local derivs multiplied = vanishing") where the idea it misses
  is a product: a person decides;
- a locally best choice said in notation or everyday words ("greedy = argmax each step, can
  miss the best overall sequence"): "argmax" is one of the largest/best terms, and "overall",
  "total", "joint" one class (`terms.py`), so the note is a weak match: a person decides;
- an answer that is only an example ("e.g. P(A)=0.6, P(B)=0.4 ...", "for example one head
  tracks agreement while another follows coreference"): never a confident zero.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import LoadedRubric, Rubric
from graders.written import GRADER
from graders.written.config import WrittenConfig
from graders.written.doubts import ARROW, PRODUCT, example_for_zero, restated_reason
from graders.written.matching import PatternVerdict, pattern_verdict
from graders.written.patterns import find_affirmed, find_prevented
from graders.written.shorthand import readings
from graders.written.text import normalise, split_sentences
from tests.graders.written.conftest import full_or_reviewed, graded_item


@pytest.fixture(scope="module")
def rubric(transformer_basics: LoadedRubric) -> LoadedRubric:
    return transformer_basics


def _rubric(prompt: str, elements: list[dict[str, object]], require: list[str]) -> Rubric:
    return Rubric.model_validate({
        "slug": "s", "title": "s", "review_threshold": 0.6, "questions": [{
            "id": "q", "prompt": prompt, "items": [{
                "id": "q.a", "points": 2, "grader": "written",
                "config": {"reference": [" ".join(str(e["label"]) for e in elements)],
                           "elements": elements, "require": require}}]}]})


def _grade(rubric: Rubric, text: str, resources: GradingResources) -> ItemResult:
    question = rubric.questions[0]
    answer = LocatedAnswer(question.id, text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={question.id: answer})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    [result] = GRADER.grade_items(question.items, answer, context)
    return result


# Subjects whose rubric states an idea as what something prevents: (prompt, the element's
# pattern and prevention phrasing, the step, the subject and verb the result clause denies).
_PREVENTED = [
    ("Why do transformers divide attention scores by sqrt(d_k)?", "saturat*",
     "scaling prevents softmax saturation", "we divide the scores by sqrt(d_k)",
     "the softmax", "saturate"),
    ("Why does the heart have valves?", "flow* back*",
     "the valves prevent blood from flowing backwards", "the valves close after each beat",
     "the blood", "flow back"),
    ("Why is dropout used when training a network?", "overfit*",
     "dropout keeps the network from overfitting", "dropout switches off random units",
     "the network", "overfit"),
    ("Why does TCP use a congestion window?", "(overload*|congest*) ... (network|link|router)",
     "the window stops senders from overloading the network", "the sender caps what it has in "
     "flight", "it", "overload the network"),
]
_DENIALS = [("doesn't", "does not"), ("won't", "will not"), ("can't", "cannot")]


def _denied(verb: str, denial: str) -> str:
    return f"{denial} {verb}"


@given(st.sampled_from(_PREVENTED), st.sampled_from(["so", "so that"]),
       st.sampled_from([d for pair in _DENIALS for d in pair]))
@settings(max_examples=60, deadline=None)
def test_a_result_clause_denying_what_the_step_prevents_states_the_idea(
        subject: tuple[str, ...], so: str, denial: str) -> None:
    _, pattern, _, step, what, verb = subject
    text = f"{step} {so} {what} {_denied(verb, denial)}"
    hit = find_prevented(pattern, text)
    assert hit is not None and hit.prevented
    assert find_affirmed(pattern, text) is None  # as before: the negation denies it
    # a denial that is no result of a step says the opposite, and is left as it was
    assert find_prevented(pattern, f"{what} {_denied(verb, denial)}") is None
    assert find_prevented(pattern, f"{step}, but {what} {_denied(verb, denial)}") is None
    # nor a result of a step denied
    assert find_prevented(pattern, f"we do not do it, {so} {what} {_denied(verb, denial)}") \
        is None


@given(st.sampled_from(_PREVENTED), st.sampled_from(["so", "so that"]),
       st.sampled_from(["doesn't", "won't", "does not"]))
@settings(max_examples=20, deadline=None)
def test_the_prevented_idea_earns_its_credit_only_where_the_rubric_says_prevent(
        resources: GradingResources, subject: tuple[str, ...], so: str, denial: str) -> None:
    prompt, pattern, phrasing, step, what, verb = subject
    text = f"{step} {so} {what} {_denied(verb, denial)}."
    element = {"id": "e", "label": phrasing, "patterns": [pattern], "phrasings": [phrasing]}
    graded = _grade(_rubric(prompt, [element], ["e"]), text, resources)
    assert graded.points == graded.max_points
    # an element that states the consequence itself ("the softmax saturates") is not stated
    # by its denial
    plain = {"id": "e", "label": f"{what} {verb}", "patterns": [pattern]}
    config = _rubric(prompt, [plain], ["e"]).questions[0].items[0].config
    verdict = pattern_verdict(WrittenConfig.model_validate(config), graded.max_points,
                              split_sentences(text))
    assert verdict.level == "none"


@given(st.sampled_from(["the softmax doesn't saturate", "the softmax won't saturate",
                        "the softmax does not get saturated", "it cannot saturate"]),
       st.sampled_from(["q·k has variance d_k, so we divide by sqrt(d_k)",
                        "the dot products grow with d_k; dividing by sqrt(d_k) keeps them small",
                        "var(q^T k) = d_k, dividing by √d_k brings it back to 1"]),
       st.sampled_from(["so", "so that"]))
@settings(max_examples=25, deadline=None)
def test_scaling_so_the_softmax_does_not_saturate_is_full_credit(
        rubric: LoadedRubric, resources: GradingResources, denied: str, growth: str,
        so: str) -> None:
    graded = graded_item(rubric, resources, "A4", "a4.scaling", f"{growth} {so} {denied}")
    assert graded.points == graded.max_points
    assert graded.status is Status.GRADED  # the denial is no opposite of the reference


# Reasons that do not carry the collapse, each a wrong or empty one a student gives.
_EMPTY_REASONS = ["the weights are shared across layers", "each layer uses the same activation",
                  "linear layers are linear", "the layers are trained together",
                  "the weights are initialised the same way", "every layer has the same width"]
_RESTATED = ["a stack of linear layers is still linear", "stacked linear layers stay linear",
             "linear layers stacked are still linear", "a stack of linear layers is linear"]


@given(st.sampled_from(_RESTATED), st.sampled_from(["because", "since", "due to the fact that"]),
       st.sampled_from(_EMPTY_REASONS))
@settings(max_examples=40, deadline=None)
def test_a_restated_question_for_a_reason_that_does_not_carry_the_idea_goes_to_a_person(
        rubric: LoadedRubric, resources: GradingResources, claim: str, because: str,
        reason: str) -> None:
    graded = graded_item(rubric, resources, "A2", "a2.collapse", f"{claim} {because} {reason}")
    assert graded.status is Status.NEEDS_REVIEW or graded.points < graded.max_points


@given(st.sampled_from(_RESTATED), st.sampled_from(["because", "since"]),
       st.sampled_from(["composing linear maps gives another linear map",
                        "the product of the weight matrices is a single matrix",
                        "W2W1 is just one matrix W",
                        "multiplying matrices gives another matrix"]))
@settings(max_examples=20, deadline=None)
def test_a_restated_question_for_the_rubrics_reason_keeps_its_confident_credit(
        rubric: LoadedRubric, resources: GradingResources, claim: str, because: str,
        reason: str) -> None:
    graded = graded_item(rubric, resources, "A2", "a2.collapse", f"{claim} {because} {reason}")
    assert graded.points == graded.max_points and graded.status is Status.GRADED


# Another subject: a loose pattern credits the question's own words.
_EVEN = _rubric("Why is the sum of two even numbers even?", [
    {"id": "e", "label": "each even number is twice an integer, so the sum is twice an integer",
     "patterns": ["sum ... even"],
     "phrasings": ["each even number is twice an integer, so their sum is twice an integer"]}],
    ["e"])


@given(st.sampled_from(["the sum of two even numbers is even", "a sum of even numbers is even"]),
       st.sampled_from(["because", "since"]),
       st.sampled_from(["even numbers are even", "numbers are usually even",
                        "the numbers are big", "it is always so"]))
@settings(max_examples=20, deadline=None)
def test_the_restated_question_class_holds_in_another_subject(
        claim: str, because: str, reason: str) -> None:
    config = WrittenConfig.model_validate(_EVEN.questions[0].items[0].config)
    sentences = split_sentences(f"{claim} {because} {reason}")
    verdict = pattern_verdict(config, Decimal(2), sentences)
    assert verdict.level == "full"
    assert restated_reason(verdict, _EVEN.questions[0].prompt) is not None
    carried = split_sentences(f"{claim} {because} each is twice an integer")
    assert restated_reason(pattern_verdict(config, Decimal(2), carried),
                           _EVEN.questions[0].prompt) is None


# Answers that are only an example, across items.
_EXAMPLES = [
    ("A5", "a5.why_heads", "for example one head can track subject-verb agreement while "
     "another follows which noun 'it' refers to"),
    ("A5", "a5.why_heads", "e.g. in 'the cat sat because it was tired', one head links 'it' to "
     "'cat' and another links 'sat' to 'cat'"),
    ("A6", "a6.greedy", "e.g. P(A)=0.6, P(B)=0.4 at step 1; after A the best next is 0.3, after "
     "B it is 0.9. greedy takes A (0.18), beam with k=2 finds B (0.36)."),
    ("A6", "a6.greedy", "for instance the first word 'the' has 0.5 and 'a' 0.4, but 'a dog' "
     "is 0.36 overall while 'the cat' is only 0.15"),
    ("A3", "a3.order", "e.g. 'dog bites man' and 'man bites dog' would look the same"),
]


@given(st.sampled_from(_EXAMPLES), st.sampled_from(["", " That's the idea."]))
@settings(max_examples=15, deadline=None)
def test_an_answer_that_is_only_an_example_is_never_a_confident_zero(
        rubric: LoadedRubric, resources: GradingResources, case: tuple[str, str, str],
        tail: str) -> None:
    question, item, text = case
    assert full_or_reviewed(graded_item(rubric, resources, question, item, text + tail)) or \
        graded_item(rubric, resources, question, item, text + tail).points > 0


@given(st.sampled_from(["e.g.", "for example", "For instance,"]), st.integers(4, 7))
@settings(max_examples=20, deadline=None)
def test_an_example_late_in_a_long_answer_is_no_example_answer(marker: str, count: int) -> None:
    none = PatternVerdict(points=Decimal(0), level="none", found={}, missing=(),
                          partial=None, contradiction=None)
    opening = split_sentences(f"{marker} a cat. " + "Another claim here. " * (count - 1))
    late = split_sentences("A first claim. " * (count - 1) + f"Here is one, {marker} a cat.")
    assert len(late) == count
    short = split_sentences(f"A claim. {marker} a cat.")
    assert example_for_zero(none, opening) is not None
    assert example_for_zero(none, late) is None
    assert example_for_zero(none, short) is not None


# Notes that write a product in symbols, or link their steps by an equals sign, where the idea
# they miss is a product: a person decides, never a confident zero.
_SIGNED_NOTES = [
    "{small} derivative × {small} derivative × ... = tiny gradient",
    "sigmoid' ≤ 0.25, x {n} layers = 0.25^{n} ≈ 0",
    "(0.25)^{L} → 0 for deep nets",
    "{small} local derivs multiplied = vanishing",
    "{small} derivs x many layers = vanishing",
]


@given(st.sampled_from(_SIGNED_NOTES), st.sampled_from(["tiny", "small", "little"]),
       st.sampled_from(["10", "20", "50"]), st.sampled_from(["L", "n", "depth"]))
@settings(max_examples=30, deadline=None)
def test_a_product_in_symbols_is_never_a_confident_zero_on_vanishing_gradients(
        rubric: LoadedRubric, resources: GradingResources, note: str, small: str, n: str,
        depth: str) -> None:
    text = note.format(small=small, n=n, L=depth)
    assert full_or_reviewed(graded_item(rubric, resources, "A2", "a2.vanishing", text))


# Other subjects whose idea is a product.
_PRODUCTS = [
    ("Why is ten heads in a row unlikely with a fair coin?",
     "the probabilities of independent flips are multiplied", "multipl* ... probabilit*",
     ["P = 0.5^10 ≈ 0.001", "0.5 x 10 flips = tiny", "0.5 * 0.5 * ... = 1/1024"]),
    ("Why does money grow exponentially with compound interest?",
     "each year the balance is multiplied by one plus the rate", "multipl* ... (rate|balance)",
     ["balance = P(1+r)^n", "(1 + r) x n years = exponential", "P * (1.05) * ... grows fast"]),
]


@given(st.sampled_from(_PRODUCTS), st.integers(0, 2))
@settings(max_examples=12, deadline=None)
def test_a_product_in_symbols_goes_to_a_person_in_other_subjects(
        resources: GradingResources, subject: tuple[str, str, str, list[str]],
        which: int) -> None:
    prompt, phrasing, pattern, notes = subject
    element = {"id": "e", "label": phrasing, "patterns": [pattern], "phrasings": [phrasing]}
    graded = _grade(_rubric(prompt, [element], ["e"]), notes[which], resources)
    assert full_or_reviewed(graded)


@given(st.sampled_from(["q^T k is large", "softmax(QK^T / sqrt(d_k)) V", "x^T W x",
                        "d_model = 768 and h = 12", "the output is W2 W1 x"]))
@settings(max_examples=10, deadline=None)
def test_a_transpose_a_formula_or_a_number_is_no_product_note(text: str) -> None:
    norm = normalise(text)
    assert PRODUCT.search(norm) is None
    assert ARROW.search(norm) is None


# Notes on a locally best choice in notation and everyday words ("argmax", "each"/"every",
# "overall"/"total"/"joint"): a person decides, never a confident zero.
@given(st.sampled_from(["greedy = argmax each step", "greedy takes the argmax at every step",
                        "greedy: argmax per step", "greedy picks the top word every time"]),
       st.sampled_from(["can miss the best overall sequence",
                        "so it may miss the best total sentence",
                        "might not give the sequence with the best joint probability"]),
       st.sampled_from([", ", "; ", " -> "]))
@settings(max_examples=30, deadline=None)
def test_greedy_in_notation_is_never_a_confident_zero(
        rubric: LoadedRubric, resources: GradingResources, what: str, why: str,
        sep: str) -> None:
    assert full_or_reviewed(graded_item(rubric, resources, "A6", "a6.greedy",
                                        f"{what}{sep}{why}"))


_LOCAL = [
    ("Why can a greedy algorithm give the wrong amount of coins for change?",
     "taking the largest coin at each step can miss the best total solution",
     ["taking the biggest coin every step can miss the best overall answer",
      "argmax coin each step, may not give the optimal overall count"]),
    ("Why can hill climbing fail to find the highest peak?",
     "moving to the best neighbour at each step can miss the best overall peak",
     ["it takes the top neighbour every step so it can miss the highest total point",
      "argmax neighbour each move -> can miss the best overall peak"]),
]


@given(st.sampled_from(_LOCAL), st.integers(0, 1))
@settings(max_examples=8, deadline=None)
def test_a_locally_best_choice_in_other_subjects_is_never_a_confident_zero(
        resources: GradingResources, subject: tuple[str, str, list[str]], which: int) -> None:
    prompt, phrasing, notes = subject
    element = {"id": "e", "label": phrasing, "phrasings": [phrasing]}
    assert full_or_reviewed(_grade(_rubric(prompt, [element], ["e"]), notes[which], resources))


# Other subjects: an answer that is only an example of what a definition asks for.
_EXAMPLE_SUBJECTS = [
    ("What does an enzyme do?", "an enzyme speeds up a chemical reaction without being used up",
     "(speed*|accelerat*|catalys*) ... reaction*",
     ["e.g. amylase in saliva breaks starch down into sugar",
      "for example, catalase turns hydrogen peroxide into water and oxygen in seconds"]),
    ("What is a hash collision?", "two different keys map to the same slot of the table",
     "(two|different) ... (same) (slot|bucket|index|hash)",
     ["e.g. with h(k) = k mod 10, 13 and 23 both land in 3",
      "for instance 'abc' and 'cab' give the same sum of character codes"]),
]


@given(st.sampled_from(_EXAMPLE_SUBJECTS), st.integers(0, 1))
@settings(max_examples=8, deadline=None)
def test_an_example_only_answer_is_never_a_confident_zero_in_other_subjects(
        resources: GradingResources, subject: tuple[str, str, str, list[str]],
        which: int) -> None:
    prompt, phrasing, pattern, answers = subject
    element = {"id": "e", "label": phrasing, "patterns": [pattern], "phrasings": [phrasing]}
    assert full_or_reviewed(_grade(_rubric(prompt, [element], ["e"]), answers[which],
                                   resources))


# "mult" in notes: multiplies where the question says so, left alone where it may be "multiple".
@given(st.sampled_from(["chain rule mult many sigmoid derivs ≤ 0.25 -> tiny",
                        "chain rule mults the derivs of every layer, each < 1",
                        "backprop mult one deriv per layer, all < 1"]))
@settings(max_examples=6, deadline=None)
def test_mult_in_a_note_reads_as_multiplies_where_the_question_says_so(
        rubric: LoadedRubric, resources: GradingResources, note: str) -> None:
    graded = graded_item(rubric, resources, "A2", "a2.vanishing", note)
    assert graded.points == graded.max_points  # a 0 in review on main
    assert readings(frozenset({"multiplies", "chain"}))["mult"] == "multiply"
    assert "mult" not in readings(frozenset({"multiple", "heads"}))
    assert "mult" not in readings(frozenset({"multiplied", "multiple"}))
