"""Classes of real writing that a third probe of answers written here (typed notes, arrows,
symbols; transformer-basics, the CS224N items and another instructor's homework) found graded
confidently wrong, generated (the earlier probes' classes are in test_confident_wrong_notes.py
and test_confident_wrong_wording.py):

- words shortened in notes ("lin∘lin = lin", "pos info fades w/ depth", "fixed PE"): read as
  the question spells them (graders/written/shorthand.py);
- a product of weight matrices said to be one matrix ("W2 W1 is just some W", "(W2W1)x =
  W'x"): said in words as well;
- a dot product written with a centred dot ("q·k_j >> q·k_i"): the transposed product;
- a note of steps linked by arrows in the words of a missed idea ("lots of small
  derivatives multiplied -> tiny"): a person decides, never a confident 0;
- the subject of a missed element defined in other words, in an answer credited in part
  ("K: what it can be found by"): a person decides;
- a property of greedy decoding after an arrow ("greedy -> can get stuck") is no example;
- a negated crossing that opens a pattern's match ("can't handle positions | beyond max_len"):
  the limit is stated;
- a right claim for a reason the rubric does not give ("... is still linear because each layer
  has a bias"): a person decides, never a confident full credit.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.results import Status
from graders.rubric import LoadedRubric, bundled_rubric_paths, load_rubric
from graders.written.shorthand import SHORTENINGS, expand, question_vocabulary, readings
from graders.written.text import normalise, split_sentences
from tests.graders.written.conftest import full_or_reviewed, graded_item


@pytest.fixture(scope="module")
def rubric(transformer_basics: LoadedRubric) -> LoadedRubric:
    return transformer_basics


@pytest.fixture(scope="module")
def cs224n() -> LoadedRubric:
    return load_rubric(next(p for p in bundled_rubric_paths() if p.stem == "cs224n-attention"))


_WORDS = frozenset({"position", "information", "linear", "gradient", "attention", "sequence",
                    "memory", "dimension", "embedding", "layer", "depth", "fades"})
_FULL = {stub: meanings[0] for stub, meanings in SHORTENINGS.items()
         if len(meanings) == 1 and meanings[0] in _WORDS}


@given(st.lists(st.sampled_from(sorted(_FULL)), min_size=1, max_size=5),
       st.sampled_from(["with", "without"]))
@settings(max_examples=60, deadline=None)
def test_a_note_reads_its_shortenings_as_the_question_spells_them(stubs: list[str],
                                                                  joiner: str) -> None:
    short = {"with": "w/", "without": "w/o"}[joiner]
    note = f"{' '.join(stubs)} {short} depth"
    read = expand(split_sentences(note), _WORDS)[0].norm
    assert read == f"{' '.join(_FULL[s] for s in stubs)} {joiner} depth"
    # the student's words are kept as written, for the evidence
    assert expand(split_sentences(note), _WORDS)[0].text == note


@given(st.sampled_from(["pos", "poss"]))
@settings(max_examples=5, deadline=None)
def test_a_shortening_of_two_of_the_questions_words_is_left_as_written(stub: str) -> None:
    # "pos" is position or positive: where the question uses both, nothing is guessed
    both = frozenset({"positional", "positive"})
    assert "pos" not in readings(both)
    assert "pos" in readings(frozenset({"positional"}))
    # and a shortening the question itself writes is its word
    assert "len" not in readings(frozenset({"len", "length"}))


_LIN = ["lin∘lin = lin", "lin of lin is lin", "lin ∘ lin ∘ lin is still lin",
        "stack of lin layers = one lin map"]


@given(st.sampled_from(_LIN), st.sampled_from(["", " so no extra power"]))
@settings(max_examples=20, deadline=None)
def test_linear_collapse_in_shortened_notes_is_never_a_confident_zero(
        rubric: LoadedRubric, resources: GradingResources, note: str, tail: str) -> None:
    result = graded_item(rubric, resources, "A2", "a2.collapse", note + tail + ".")
    assert full_or_reviewed(result), (note, result.points, result.confidence)


def _matrix(k: int, style: str) -> str:
    return {"plain": f"W{k}", "underscore": f"W_{k}", "latex": f"W_{{{k}}}"}[style]


@given(st.integers(min_value=2, max_value=4), st.sampled_from(["plain", "underscore", "latex"]),
       st.sampled_from([" ", ""]), st.sampled_from(["x ", ""]),
       st.sampled_from(["is just some W", "= W", "is one matrix anyway", "= W'",
                        "is a single matrix", "is really just another W", ", one matrix",
                        "-> a single matrix", ", just one W"]))
@settings(max_examples=60, deadline=None)
def test_a_product_of_weight_matrices_said_to_be_one_matrix_states_the_collapse(
        rubric: LoadedRubric, resources: GradingResources, count: int, style: str, gap: str,
        argument: str, ending: str) -> None:
    product = gap.join(_matrix(k, style) for k in range(count, 0, -1))
    answer = f"{product} {argument}{ending}"
    assert "the product of the weight matrices is a single matrix" in normalise(answer)
    result = graded_item(rubric, resources, "A2", "a2.collapse", answer)
    assert full_or_reviewed(result), (answer, result.points, result.confidence)


@given(st.sampled_from(["W · x", "0.5·0.4", "W2 W1 x + b", "W_Q W_K", "W1, W2 and W3 are learned",
                        "W2 W1 x, then a ReLU"]))
@settings(max_examples=10, deadline=None)
def test_products_of_numbers_or_of_a_matrix_with_an_input_are_left_alone(text: str) -> None:
    assert "^T" not in normalise(text)
    assert "single matrix" not in normalise(text)


@given(st.sampled_from(["·", "⋅", r"\cdot "]), st.sampled_from(["j", "{j}"]),
       st.sampled_from([">>", "≫", r"\gg"]), st.sampled_from(["for all i≠j", "∀ i ≠ j",
                                                            "for every other i"]),
       st.sampled_from(["", "when "]))
@settings(max_examples=40, deadline=None)
def test_a_dominant_dot_product_written_with_a_centred_dot_is_read(
        cs224n: LoadedRubric, resources: GradingResources, dot: str, index: str, much: str,
        others: str, lead: str) -> None:
    answer = f"{lead}q {dot}k_{index} {much} q {dot}k_i {others}"
    result = graded_item(cs224n, resources, "1a.i", "1a.i", answer)
    assert full_or_reviewed(result), (answer, result.points, result.confidence)


@given(st.sampled_from(["lots of", "many", "a bunch of", "tons of"]),
       st.sampled_from(["derivatives", "derivs", "grads"]),
       st.sampled_from(["multiplied", "multiplied together", "get multiplied"]),
       st.sampled_from(["->", "→", "=>"]),
       st.sampled_from(["tiny", "~0", "≈ 0", "basically nothing"]))
@settings(max_examples=60, deadline=None)
def test_an_arrowed_note_in_a_missed_ideas_words_is_never_a_confident_zero(
        rubric: LoadedRubric, resources: GradingResources, many: str, what: str,
        multiplied: str, arrow: str, result_: str) -> None:
    answer = f"{many} small {what} {multiplied} {arrow} {result_}"
    result = graded_item(rubric, resources, "A2", "a2.vanishing", answer)
    assert full_or_reviewed(result), (answer, result.points, result.confidence)


@given(st.sampled_from(["K", "key", "keys"]), st.sampled_from([":", " =", " ->"]),
       st.sampled_from(["what I can be found by", "what it can be found by",
                        "how a token gets found", "what I am looked up with"]),
       st.sampled_from([", ", ". "]),
       st.sampled_from(["Q = what I look for", "Q: what a token is looking for"]),
       st.sampled_from(["V = what I hand over", "V: the content it passes on"]))
@settings(max_examples=60, deadline=None)
def test_a_key_defined_informally_beside_credited_roles_goes_to_a_person(
        rubric: LoadedRubric, resources: GradingResources, name: str, sep: str,
        informal: str, join: str, query: str, value: str) -> None:
    answer = f"{query}{join}{name}{sep} {informal}{join}{value}"
    result = graded_item(rubric, resources, "A4", "a4.roles", answer)
    assert full_or_reviewed(result), (answer, result.points, result.confidence)


@given(st.sampled_from(["Q: what a token is looking for. V: the content it passes on.",
                        "The query is what a token looks for; the value is what it passes on.",
                        "Q: what a token is looking for. Keys and values come from W_K, W_V."]))
@settings(max_examples=5, deadline=None)
def test_roles_that_define_no_key_are_not_sent_for_an_unread_definition(
        rubric: LoadedRubric, resources: GradingResources, answer: str) -> None:
    result = graded_item(rubric, resources, "A4", "a4.roles", answer)
    assert 0 < result.points < result.max_points
    assert "defines what a key idea" not in result.feedback


@given(st.sampled_from(["->", "→", ":"]),
       st.sampled_from(["can get stuck", "may miss the best sentence", "gets stuck early",
                        "misses better sequences", "is myopic", "will commit too early"]))
@settings(max_examples=30, deadline=None)
def test_a_property_of_greedy_after_an_arrow_is_no_example(
        rubric: LoadedRubric, resources: GradingResources, arrow: str, claim: str) -> None:
    answer = f"greedy {arrow} {claim}, beam search explores more options using a beam width"
    result = graded_item(rubric, resources, "A6", "a6.example", answer)
    assert result.points == 0 or result.status is Status.NEEDS_REVIEW, (answer, result.points)


def test_the_question_words_come_from_its_items(rubric: LoadedRubric) -> None:
    from graders.written.config import WrittenConfig

    question = next(q for q in rubric.rubric.questions if q.id == "A3")
    configs = [WrittenConfig.model_validate(i.config) for i in question.items]
    assert {"position", "positive"} & question_vocabulary(configs, question.prompt) >= {"position"}


@given(st.sampled_from(["can't", "cannot", "doesn't", "won't", "is unable to"]),
       st.sampled_from(["handle positions", "work for sequences", "go", "deal with tokens"]),
       st.sampled_from(["beyond", "past", "longer than", "outside"]))
@settings(max_examples=60, deadline=None)
def test_a_negated_crossing_that_opens_the_match_states_the_limit(
        negation: str, verb: str, crossing: str) -> None:
    from graders.written.patterns import find_affirmed

    # a rubric's pattern may start at the crossing word ("beyond max_len"): the negation
    # before it is of going past the limit, which states the limit
    sentence = f"Downside: it {negation} {verb} {crossing} max_len."
    assert find_affirmed(f"{crossing} max_len", sentence) is not None
    # the negated verb itself stays negated
    assert find_affirmed(verb, sentence) is None


@given(st.sampled_from(["A stack of linear layers is still linear",
                        "Stacking linear layers is still linear",
                        "Composing linear layers gives one linear map"]),
       st.sampled_from(["because", "since", "due to the fact that"]),
       st.sampled_from(["each layer has a bias", "the learning rate is constant",
                        "dropout is off", "of the bias terms", "the optimizer is Adam"]))
@settings(max_examples=40, deadline=None)
def test_a_credited_claim_for_a_reason_the_rubric_does_not_give_goes_to_a_person(
        rubric: LoadedRubric, resources: GradingResources, claim: str, because: str,
        reason: str) -> None:
    answer = f"{claim} {because} {reason}."
    result = graded_item(rubric, resources, "A2", "a2.collapse", answer)
    assert result.status is Status.NEEDS_REVIEW or result.points < result.max_points, \
        (answer, result.points, result.confidence)


@given(st.sampled_from(["the product of the weight matrices is one matrix",
                        "composing linear maps gives a linear map",
                        "W2(W1x) = (W2W1)x"]))
@settings(max_examples=5, deadline=None)
def test_a_credited_claim_for_the_rubrics_reason_keeps_its_confident_credit(
        rubric: LoadedRubric, resources: GradingResources, reason: str) -> None:
    answer = f"A stack of linear layers is still linear because {reason}."
    result = graded_item(rubric, resources, "A2", "a2.collapse", answer)
    assert result.status is Status.GRADED and result.points == result.max_points


@given(st.sampled_from(["Yes —", "Yes,", "Yes -", "yes:"]),
       st.sampled_from(["X+P is no longer a permutation of the same rows",
                        "the rows of X+P are not just a reordering any more",
                        "the sum can't be permuted back"]),
       st.sampled_from(["so outputs differ for different orders",
                        "hence the output differs when the words are swapped"]))
@settings(max_examples=30, deadline=None)
def test_an_idea_after_a_negation_in_another_clause_is_never_a_confident_zero(
        cs224n: LoadedRubric, resources: GradingResources, yes: str, negated: str,
        outcome: str) -> None:
    answer = f"{yes} after adding p_i, {negated}, {outcome}"
    result = graded_item(cs224n, resources, "2b.i", "2b.i", answer)
    assert full_or_reviewed(result), (answer, result.points, result.confidence)


@given(st.sampled_from(["does not differ", "never differs", "can't differ"]),
       st.sampled_from(["isn't equal", "is not PX", "can't permute"]))
@settings(max_examples=20, deadline=None)
def test_only_a_negation_in_an_earlier_clause_than_the_idea_is_doubted(
        negated_idea: str, negated_other: str) -> None:
    from graders.written.patterns import negated_in_another_clause

    # the negation in the idea's own clause governs it: no doubt
    assert negated_in_another_clause("yes ... differ*", f"yes, so it {negated_idea}") is None
    # a negation before the match governs the whole match: no doubt
    assert negated_in_another_clause("yes ... differ*", "not yes, so it differs") is None
    # a negation only in an earlier clause of the match: a doubt
    assert negated_in_another_clause(
        "yes ... differ*", f"yes, it {negated_other}, so differs") is not None
