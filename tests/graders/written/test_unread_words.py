"""A grade below full credit beside words the grader did not read is not confident
(`graders/written/unexplained.py`), generated:

- a correct answer in plain words, none of the rubric's vocabulary ("put a middle row of units
  between input and output, each squashing its sum through something bent", "putting one
  straight-line mapping after another never bends anything"), that no item of the question
  recognises: the items it leaves at zero go to a person, never a confident zero (a probe of
  six classes of writing found them graded 0 at 0.90, benchmarks/written_probe_classes.py);
- an answer whose every sentence is accounted for (another item's idea, or a known wrong claim)
  keeps a confident zero on the items it does not address;
- a clause of a credited sentence that none of the credit rests on, continuing the thought in
  plain words ("a lookup table with a trained row per slot, so there is simply no row for slot
  600 if training stopped at 512"), keeps a partial credit from being confident; a clause the
  credit rests on is read;
- a sentence that only repeats the question's words is not one the grader failed to read.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.results import ItemResult, Status
from graders.rubric import LoadedRubric
from graders.written.text import split_sentences
from graders.written.unexplained import left_over
from tests.graders.written.conftest import grade_text


@pytest.fixture(scope="module")
def rubric(transformer_basics: LoadedRubric) -> LoadedRubric:
    return transformer_basics


def _never_a_confident_zero(results: list[ItemResult], item: str) -> None:
    result = next(r for r in results if r.item_id == item)
    assert result.points > 0 or result.status is Status.NEEDS_REVIEW, (
        result.points, result.confidence, result.feedback)


@given(st.sampled_from(["Put a middle row of units", "Add an in-between set of neurons",
                        "Insert a second tier of cells"]),
       st.sampled_from(["between the inputs and the output", "before the last unit"]),
       st.sampled_from(["each squashing its sum through something bent like tanh",
                        "each with a curved response to its weighted sum"]),
       st.sampled_from(["so two cuts can be glued together into a band",
                        "then the last unit merges two straight cuts into a stripe"]))
@settings(max_examples=16, deadline=None)
def test_a_plain_words_fix_for_xor_is_never_a_confident_zero(
        resources: GradingResources, rubric: LoadedRubric, add: str, where: str, bend: str,
        result: str) -> None:
    answer = f"{add} {where}, {bend}; {result}."
    _never_a_confident_zero(grade_text(rubric.rubric, "A1", answer, resources),
                            "a1.hidden_nonlinear")


@given(st.sampled_from(["Putting one straight-line mapping after another",
                        "Chaining straight-line transformations one after the other",
                        "Feeding one flat mapping into the next"]),
       st.sampled_from(["never bends anything", "cannot introduce any curvature"]),
       st.sampled_from(["the result is again a straight-line mapping",
                        "the whole pile behaves like just one of them"]))
@settings(max_examples=12, deadline=None)
def test_a_plain_words_collapse_is_never_a_confident_zero(
        resources: GradingResources, rubric: LoadedRubric, chain: str, bends: str,
        result: str) -> None:
    answer = f"{chain} {bends}: {result}, so depth buys nothing."
    _never_a_confident_zero(grade_text(rubric.rubric, "A2", answer, resources), "a2.collapse")


@given(st.sampled_from(["Greedy grabs whichever word looks best right now",
                        "Greedy goes with the top-scoring word at every position"]),
       st.sampled_from(["and never reconsiders", "and never looks back"]),
       st.sampled_from(["so a slightly worse word now that would lead to a much likelier "
                        "sentence is never tried",
                        "so a weaker opening word that ends in a far likelier sentence is never "
                        "explored"]))
@settings(max_examples=8, deadline=None)
def test_a_plain_words_greedy_is_never_a_confident_zero(
        resources: GradingResources, rubric: LoadedRubric, grab: str, never: str,
        cost: str) -> None:
    answer = f"{grab} {never}, {cost}."
    _never_a_confident_zero(grade_text(rubric.rubric, "A6", answer, resources), "a6.greedy")


@given(st.sampled_from(["Greedy decoding picks the most probable token at each step",
                        "At every step greedy decoding takes the word with the highest "
                        "probability"]),
       st.sampled_from(["greedy decoding never goes back to reconsider an earlier choice",
                        "greedy decoding only finds a locally optimal sequence"]))
@settings(max_examples=4, deadline=None)
def test_an_answer_read_in_full_keeps_a_confident_zero_on_the_items_it_leaves_out(
        resources: GradingResources, rubric: LoadedRubric, describe: str, why: str) -> None:
    results = grade_text(rubric.rubric, "A6", f"{describe}. {why}.", resources)
    beam = next(r for r in results if r.item_id == "a6.beam")
    assert beam.points == Decimal(0) and beam.status is Status.GRADED, (
        beam.points, beam.confidence, beam.feedback)


@given(st.sampled_from(["gradients vanish because the learning rate is too large",
                        "vanishing gradients are caused by overfitting the training data"]))
@settings(max_examples=2, deadline=None)
def test_a_known_wrong_claim_keeps_its_confident_zero(
        resources: GradingResources, rubric: LoadedRubric, claim: str) -> None:
    results = grade_text(rubric.rubric, "A2", claim[0].upper() + claim[1:] + ".", resources)
    vanishing = next(r for r in results if r.item_id == "a2.vanishing")
    assert vanishing.points == Decimal(0) and vanishing.status is Status.GRADED, (
        vanishing.points, vanishing.confidence, vanishing.feedback)


def test_a_sentence_in_the_questions_words_is_not_unexplained() -> None:
    prompt = "Why is greedy decoding suboptimal, and how does beam search work?"
    sentences = split_sentences("Greedy decoding is suboptimal. Beam search works.", 0)
    assert left_over(sentences, {}, prompt) is None
    own = split_sentences("Greedy grabs whichever word looks best right now.", 0)
    found = left_over(own, {}, prompt, whole=True)
    assert found is not None and found[0] is own[0]
    whole = {(own[0].start, own[0].end): [(0, len(own[0].norm))]}
    assert left_over(own, whole, prompt, whole=True) is None
    assert left_over(own, whole, prompt) is None


@given(st.sampled_from(["Learned absolute: a lookup table with a trained row per slot",
                        "The learned kind keeps one trained vector for every slot"]),
       st.sampled_from(["there is simply no row for slot 600 if training stopped at 512",
                        "a slot past the last one seen while fitting has nothing stored for it",
                        "inputs longer than anything it was fitted on simply run out of rows"]))
@settings(max_examples=6, deadline=None)
def test_a_clause_left_over_beside_a_credited_one_is_never_a_confident_partial(
        resources: GradingResources, rubric: LoadedRubric, table: str, limit: str) -> None:
    results = grade_text(rubric.rubric, "A3", f"{table}, so {limit}.", resources)
    learned = next(r for r in results if r.item_id == "a3.learned")
    assert learned.points == learned.max_points or learned.status is Status.NEEDS_REVIEW, (
        learned.points, learned.confidence, learned.feedback)


@given(st.sampled_from(["Scaling by sqrt(d_k) prevents large dot products that cause softmax "
                        "saturation.", "Dividing by sqrt(d_k) keeps the softmax out of "
                        "saturation."]))
@settings(max_examples=2, deadline=None)
def test_a_clause_the_credit_rests_on_is_read(
        resources: GradingResources, rubric: LoadedRubric, answer: str) -> None:
    results = grade_text(rubric.rubric, "A4", answer, resources)
    scaling = next(r for r in results if r.item_id == "a4.scaling")
    assert scaling.points == Decimal(3) and scaling.status is Status.GRADED, (
        scaling.points, scaling.confidence, scaling.feedback)


@given(st.sampled_from(["The sine/cosine scheme", "The sin/cos encoding"]),
       st.sampled_from(["is computed from a formula with nothing trained",
                        "comes out of a closed-form recipe with no weights to fit"]),
       st.sampled_from(["so you can evaluate it at position 5000 even if training only saw 512",
                        "so it still gives a vector at slot 4000 when training stopped at 512"]))
@settings(max_examples=8, deadline=None)
def test_a_sentence_credited_only_outside_another_items_topic_is_not_read(
        resources: GradingResources, rubric: LoadedRubric, subject: str, how: str,
        reach: str) -> None:
    # "training" credits a3.learned's trained element outside its topic; that does not make
    # the sentence one the grader understood, so a3.sinusoidal's zero is not confident
    results = grade_text(rubric.rubric, "A3", f"{subject} {how}, {reach}.", resources)
    _never_a_confident_zero(results, "a3.sinusoidal")


@given(st.sampled_from(["Greedy decoding picks the most probable token at each step.",
                        "Greedy takes the single top-scoring word every time."]),
       st.sampled_from(["A locally best choice can miss the sequence with the highest joint "
                        "probability.", "The sentence with the best overall score may start "
                        "with a word that was not the top one.", "That word need not lie on the "
                        "path with the highest total probability."]))
@settings(max_examples=6, deadline=None)
def test_a_sentence_after_another_subjects_word_is_not_read_as_this_ones(
        resources: GradingResources, rubric: LoadedRubric, greedy: str, why: str) -> None:
    # An answer about greedy decoding only, whose second sentence uses words of beam search's
    # scoring: `on_topic` does not read it for a6.beam (it follows greedy's word), so a credit
    # from it is outside the topic and goes to a person.
    results = grade_text(rubric.rubric, "A6", f"{greedy} {why}", resources)
    beam = next(r for r in results if r.item_id == "a6.beam")
    assert beam.points == 0 or beam.status is Status.NEEDS_REVIEW, (
        beam.points, beam.confidence, beam.feedback)


@given(st.sampled_from(["follow grammar", "track which verb goes with which subject"]),
       st.sampled_from(["another tracks which pronoun refers to what",
                        "another notices which earlier noun a word points back to"]))
@settings(max_examples=4, deadline=None)
def test_a_clause_the_matcher_keeps_whole_is_read_whole(
        resources: GradingResources, rubric: LoadedRubric, one: str, another: str) -> None:
    # "while" and "which" inside a clause do not cut it into pieces too short to say anything
    answer = (f"One head can only form one weighting of the sentence at a time; with many, one "
              f"can {one} while {another}, all at the same moment.")
    results = grade_text(rubric.rubric, "A5", answer, resources)
    heads = next(r for r in results if r.item_id == "a5.why_heads")
    assert heads.points == heads.max_points or heads.status is Status.NEEDS_REVIEW, (
        heads.points, heads.confidence, heads.feedback)
