"""Classes of real writing that a second probe of answers written here on the transformer-basics
rubric found graded confidently wrong, generated (the first probe's classes are in
test_confident_wrong_classes.py):

- answers typed without capitals, and notes whose sentences open on a label ("diagonal: ...")
  or a formula's name ("d_model = ..."): a full stop there ends a sentence, else two answers'
  sentences are read as one and neither is recognised;
- arithmetic said in words between a formula's names ("d_head is d_model divided by h",
  "d_model over h"): the formula;
- a derivative in Lagrange's notation ("relu'(x) = 1", "sigmoid' <= 1/4"): the derivative;
- a comma splice or a note's list ("XOR is not linearly separable, a perceptron only draws one
  line"; "fixed sin/cos, no params, works for any length"): each part is a clause of its own;
- the offset of two positions written as the difference of their indices ("q·k depends only
  on m - n"): the relative offset;
- a short sentence typed fast that uses nearly all of an element's own words, dimly close in
  meaning ("greedy just takes the best word each time"): a person decides, never a confident 0;
- a slip in a long key term ("seperable", "sinusodial", "satruation"): the question's own word,
  and "and" before a new subject ("... isnt linearly seperable and a perceptron can only learn
  ...") starts a clause;
- a known wrong claim that a clause states with a pronoun for its subject, most of its words
  there but below the capping bar ("beam search tracks the k best partial sequences but that
  is only to make decoding faster"): never a confident credit, a person decides;
- the denial of a known wrong claim ("sinusoidal PE isn't trained and it is not limited to
  the training length", the opposite of "sinusoidal encodings are limited to the training
  length"): it may state a right idea in other words, so never a confident 0.
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
from graders.written.text import normalise, split_sentences
from tests.graders.written.conftest import full_or_reviewed, graded_item


@pytest.fixture(scope="module")
def rubric(transformer_basics: LoadedRubric) -> LoadedRubric:
    return transformer_basics


# Sentences as typed without capitals, each opening on a word that does not usually start one.
_LOWER = ["greedy just takes the best word each time", "beam search keeps the k best sequences",
          "sinusoidal encodings are fixed", "rope rotates the queries and keys",
          "heads attend to different positions", "relu has a derivative of one"]


@given(st.lists(st.sampled_from(_LOWER), min_size=2, max_size=4, unique=True))
@settings(max_examples=40, deadline=None)
def test_an_answer_typed_without_capitals_is_split_at_every_full_stop(claims: list[str]) -> None:
    text = ". ".join(claims) + "."
    assert [s.text.rstrip(".") for s in split_sentences(text)] == claims
    # a word that continues the sentence does not start one; an abbreviation ends none
    assert len(split_sentences(f"{claims[0]} mult. by {claims[1]}.")) == 1
    assert len(split_sentences(f"{claims[0]}, e.g. {claims[1]}.")) == 1
    # with capitals, a lower-case word after a full stop continues the sentence (OCR'd notes)
    assert len(split_sentences(f"The {claims[0]} approx. {claims[1]}.")) == 1


@given(st.sampled_from(["Different heads look at different things at once",
                        "Heads attend to different positions",
                        "each head focuses on another relation ~0"]),
       st.sampled_from(["d_model = embedding size", "h = number of heads", "W_O mixes them",
                        "diagonal: a token attending to itself",
                        "sinusoidal PE: a fixed formula", "sqrt(d_k): keeps scores small"]))
@settings(max_examples=30, deadline=None)
def test_a_full_stop_before_a_label_or_a_formula_ends_a_sentence(first: str,
                                                                  second: str) -> None:
    sentences = split_sentences(f"{first}. {second}.")
    assert [s.text.rstrip(".") for s in sentences] == [first, second]


@given(st.sampled_from(["Different heads can focus on different relations",
                        "Each head can attend to different positions",
                        "The heads learn different representation subspaces"]),
       st.sampled_from(["at the same time", "at once", "simultaneously"]),
       st.sampled_from(["d_model = embedding size, h = # heads, d_head = d_model/h.",
                        "d_model is the width and h the number of heads."]))
@settings(max_examples=12, deadline=None)
def test_heads_in_parallel_followed_by_the_dimensions_is_full_credit_or_reviewed(
        resources: GradingResources, rubric: LoadedRubric, first: str, when: str,
        dims: str) -> None:
    result = graded_item(rubric, resources, "A5", "a5.why_heads", f"{first} {when}. {dims}")
    assert full_or_reviewed(result), (result.points, result.status, result.feedback)


_OPERANDS = ["d_model", "d_k", "h", "n", "768", "12", "W_Q"]


@given(st.sampled_from(_OPERANDS), st.sampled_from(["divided by", "over", "Divided  by"]),
       st.sampled_from(_OPERANDS))
@settings(max_examples=40, deadline=None)
def test_a_division_said_in_words_is_the_formula(left: str, spoken: str, right: str) -> None:
    assert normalise(f"the result is {left} {spoken} {right} here") == \
        f"the result is {left} / {right} here"
    # words around "over" that are not a formula's names stay words
    assert normalise(f"a softmax {spoken.split()[0]} the {right}s").startswith("a softmax")


@given(st.sampled_from(["d_head is d_model divided by h", "d_head equals d_model over h",
                        "each head gets d_model over h dimensions",
                        "d_head = d_model divided by h"]),
       st.sampled_from(["d_model is the embedding dimension, h is the number of heads",
                        "h is the number of attention heads and d_model is the size of each "
                        "token vector"]))
@settings(max_examples=8, deadline=None)
def test_the_head_dimension_said_in_words_earns_its_credit(
        resources: GradingResources, rubric: LoadedRubric, relation: str, names: str) -> None:
    assert find_affirmed(r"d_?model ?/ ?h\b", normalise(relation)) is not None
    result = graded_item(rubric, resources, "A5", "a5.dims", f"{names}; {relation}.")
    assert result.points == Decimal(5), (result.points, result.status, result.feedback)


@given(st.sampled_from(["relu", "ReLU", "sigmoid", "tanh", "f"]),
       st.sampled_from(["'(x)", "'(z)", "'"]),
       st.sampled_from([" = 1", " <= 0.25", " is small"]))
@settings(max_examples=40, deadline=None)
def test_a_primed_function_is_its_derivative(name: str, prime: str, claim: str) -> None:
    text = normalise(f"we have {name}{prime}{claim}")
    if len(name) < 3 and prime == "'":
        assert "derivative" not in text  # a primed letter alone is another variable (q')
    else:
        assert text == f"we have derivative of {name}{claim}"


@given(st.sampled_from(["relu'(x) = 1 for x > 0", "ReLU'(z) = 1 for positive z",
                        "relu' = 1 when the unit is active"]),
       st.sampled_from(["sigmoid'(x) <= 0.25", "the sigmoid's derivative is at most 0.25"]))
@settings(max_examples=8, deadline=None)
def test_relu_derivative_in_lagrange_notation_earns_its_credit(
        resources: GradingResources, rubric: LoadedRubric, relu: str, sigmoid: str) -> None:
    result = graded_item(rubric, resources, "A2", "a2.relu",
                         f"ReLU helps: {relu}, while {sigmoid}.")
    # ("relu ... 0.25" in one sentence may be the wrong claim that ReLU's is at most 0.25)
    assert full_or_reviewed(result), (result.points, result.status, result.feedback)


@given(st.sampled_from(["XOR is not linearly separable", "XOR can't be separated by a line",
                        "the XOR classes aren't linearly separable"]),
       st.sampled_from(["a perceptron only draws one line",
                        "a single perceptron is just a linear classifier",
                        "one perceptron can only draw a single straight line"]))
@settings(max_examples=9, deadline=None)
def test_a_comma_splice_states_each_of_its_claims(
        resources: GradingResources, rubric: LoadedRubric, first: str, second: str) -> None:
    answer = f"{first}, {second}. An MLP adds a hidden layer with a non-linear activation."
    result = graded_item(rubric, resources, "A1", "a1.linear_boundary", answer)
    assert full_or_reviewed(result), (result.points, result.status, result.feedback)


@given(st.sampled_from(["- sinusoidal: fixed sin/cos", "sinusoidal PE: a fixed formula",
                        "sinusoidal: deterministic sines"]),
       st.sampled_from(["no params", "nothing trained", "no weights"]),
       st.sampled_from(["works for any length", "extrapolates to longer sequences",
                        "handles sequences of any length"]))
@settings(max_examples=12, deadline=None)
def test_a_notes_list_states_each_of_its_items(
        resources: GradingResources, rubric: LoadedRubric, fixed: str, free: str,
        length: str) -> None:
    answer = f"attention is permutation invariant.\n{fixed}, {free}, {length}"
    result = graded_item(rubric, resources, "A3", "a3.sinusoidal", answer)
    assert full_or_reviewed(result), (result.points, result.status, result.feedback)


@given(st.sampled_from(["If the layers were linear", "Without an activation",
                        "When every activation is the identity"]),
       st.sampled_from(["the network would be one linear map",
                        "the stack is a single linear layer"]))
@settings(max_examples=6, deadline=None)
def test_a_condition_before_a_comma_is_not_split_off(first: str, second: str) -> None:
    from graders.written.meaning import clauses_of
    sentence = split_sentences(f"{first}, {second}.")[0]
    assert not any(c.rstrip(".") == second for c in clauses_of(sentence))


@given(st.sampled_from(["Beam search keeps k hypotheses",
                        "Beam search tracks the k best partial sequences",
                        "Beam search keeps several candidate sequences"]),
       st.sampled_from(["but that is only to make decoding faster",
                        "but it only does that so that decoding is faster"]))
@settings(max_examples=6, deadline=None)
def test_a_wrong_claim_said_of_a_pronoun_is_never_a_confident_credit(
        resources: GradingResources, rubric: LoadedRubric, keeps: str, why: str) -> None:
    result = graded_item(rubric, resources, "A6", "a6.beam", f"{keeps} {why}.")
    assert result.status is Status.NEEDS_REVIEW or result.points == 0, (
        result.points, result.status, result.feedback)


@given(st.sampled_from(["Sinusoidal PE", "The sinusoidal encoding", "Sinusoidal encodings"]),
       st.sampled_from(["is not learned", "isn't trained", "has no learned parameters"]),
       st.sampled_from(["it is not limited to the training length",
                        "it isn't restricted to the training length",
                        "it's not limited to the max training length"]))
@settings(max_examples=15, deadline=None)
def test_the_denial_of_a_wrong_claim_is_never_a_confident_zero(
        resources: GradingResources, rubric: LoadedRubric, subject: str, fixed: str,
        unlimited: str) -> None:
    answer = f"Attention ignores order. {subject} {fixed} and {unlimited}."
    result = graded_item(rubric, resources, "A3", "a3.sinusoidal", answer)
    assert full_or_reviewed(result), (result.points, result.status, result.feedback)


_INDICES = ["i", "j", "m", "n"]


@given(st.sampled_from(_INDICES), st.sampled_from(["-", " - ", "−", " − "]),
       st.sampled_from(_INDICES))
@settings(max_examples=30, deadline=None)
def test_a_difference_of_indices_is_the_relative_offset(left: str, minus: str,
                                                        right: str) -> None:
    assert normalise(f"q·k depends only on {left}{minus}{right}") == \
        f"q^T * k depends only on the relative offset {left} minus {right}"
    # a letter inside a word, a flag or an ordinal is no index
    for text in (f"python -{right} venv", f"the {left}-th token", f"top-{right}s"):
        assert "offset" not in normalise(text)


@given(st.sampled_from(["rope: rotates q and k so q·k only depends on",
                        "RoPE rotates the query and the key, so their dot product is a "
                        "function of",
                        "RoPE applies a rotation to q_m and k_n; the score then depends on"]),
       st.sampled_from(["i-j", "m - n", "j−i", "n-m"]))
@settings(max_examples=12, deadline=None)
def test_rope_with_an_index_difference_earns_its_credit(
        resources: GradingResources, rubric: LoadedRubric, rotates: str, offset: str) -> None:
    result = graded_item(rubric, resources, "A3", "a3.rope", f"{rotates} {offset}.")
    assert full_or_reviewed(result), (result.points, result.status, result.feedback)


@given(st.sampled_from(["greedy", "greedy decoding"]),
       st.sampled_from(["just takes", "picks", "grabs"]),
       st.sampled_from(["the best word", "the top token", "the best token"]),
       st.sampled_from(["each time", "every time"]))
@settings(max_examples=20, deadline=None)
def test_greedy_typed_fast_is_never_a_confident_zero(
        resources: GradingResources, rubric: LoadedRubric, subject: str, verb: str, top: str,
        when: str) -> None:
    answer = (f"{subject} {verb} {top} {when}. beam search keeps the k best sequences by total "
              "log prob.")
    result = graded_item(rubric, resources, "A6", "a6.greedy", answer)
    assert result.status is Status.NEEDS_REVIEW or result.points >= 2, (
        result.points, result.status, result.feedback)


_TERMS = ["separable", "sinusoidal", "saturation", "extrapolate", "exponentially",
          "permutation", "rotates", "perceptron", "hyperplane", "probability"]


@st.composite
def _slipped(draw: st.DrawFn) -> tuple[str, str]:
    word = draw(st.sampled_from(_TERMS))
    kind = draw(st.sampled_from(["vowel", "swap", "drop", "double"]))
    if kind == "vowel":
        i = draw(st.sampled_from([i for i, c in enumerate(word) if c in "aeiou"]))
        slip = word[:i] + draw(st.sampled_from([v for v in "aeiou" if v != word[i]])) + \
            word[i + 1:]
    elif kind == "swap":
        i = draw(st.sampled_from([i for i in range(len(word) - 1) if word[i] != word[i + 1]]))
        slip = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    elif kind == "drop":
        i = draw(st.integers(0, len(word) - 1))
        slip = word[:i] + word[i + 1:]
    else:
        i = draw(st.integers(0, len(word) - 1))
        slip = word[:i] + word[i] + word[i:]
    return word, slip


@given(_slipped())
@settings(max_examples=80, deadline=None)
def test_a_slip_in_a_long_term_reads_as_the_term(pair: tuple[str, str]) -> None:
    from graders.written.spelling import corrected
    word, slip = pair
    words = frozenset(_TERMS)
    assert corrected(slip, words) == (None if slip == word else word), slip
    assert corrected(word, words) is None  # the right spelling stays
    # one slip from one word only; a word of six letters or fewer is no term's slip
    assert corrected("conten", frozenset({"context", "content"})) == "content"
    assert corrected("contet", frozenset({"context", "content"})) is None  # either
    assert corrected("relu", frozenset({"relus"})) is None
    assert corrected("conten", frozenset({"conte"})) is None


@given(st.sampled_from(["seperable", "seprable", "separabel", "seperabel"]),
       st.sampled_from(["Becuase XOR isnt", "XOR isnt", "xor is not"]))
@settings(max_examples=12, deadline=None)
def test_a_misspelt_key_term_is_never_a_confident_zero(
        resources: GradingResources, rubric: LoadedRubric, slip: str, start: str) -> None:
    answer = (f"{start} linearly {slip} and a perceptron can only learn linearly {slip} "
              "functions. adding a hidden layer (with non linear activation) fixes this.")
    result = graded_item(rubric, resources, "A1", "a1.nonseparable", answer)
    assert full_or_reviewed(result), (result.points, result.status, result.feedback)
