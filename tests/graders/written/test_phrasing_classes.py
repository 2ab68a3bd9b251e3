"""Classes of writing the phrasing matcher reads (graders/written/meaning.py), generated.

- a negation over an adverb and its adjective ("not linearly separable") is one negation;
- "instead of X, Y" affirms Y (the fronted phrase's negation is its own);
- "it fails" negates nothing, "it fails to Z" negates Z;
- a term counts as any other of its class (terms.py) in the word overlap, "non-linear",
  "non linear" and "nonlinear" are one word, and "how many" is "the number";
- a wrong claim given as phrasings caps the credit when the answer states it, and not when the
  answer denies it (with "never", or a quantifier: "no amount of tuning ...");
- "non-X" (written apart, hyphenated or joined) is the opposite of X: a pattern for X does not
  find it there, and a pattern written "non-X" finds every spelling;
- an answer that states an element and also a known wrong claim (a condition or a contrast:
  "with a ReLU the network is non-linear; without it the stack is one linear map") goes to
  review rather than being capped at high confidence;
- an example after a comma ("..., for instance ...", "e.g.", "such as") is a clause of its own,
  and "at once" or "at the same time" says "simultaneously";
- a clause that states two ideas, one closer to another element, sends a partial credit to a
  person rather than keeping it at high confidence.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from graders.context import GradingResources
from graders.rubric import parse_rubric
from graders.written.config import Contradiction
from graders.written.matching import find_any
from graders.written.meaning import (
    ALL_WORDS_COSINE,
    clauses_of,
    is_strong,
    overlap,
    turned_around,
)
from graders.written.terms import _CLASSES
from graders.written.text import normalise, split_sentences
from tests.graders.written.conftest import Grade, grade_text

SUBJECTS = ["softmax", "encoder", "decoder", "tokenizer", "optimizer"]
OBJECTS = ["gradients", "embeddings", "weights", "activations", "logits"]
VERBS = [("saturate", "saturates", "saturating"), ("overwrite", "overwrites", "overwriting"),
         ("corrupt", "corrupts", "corrupting"), ("memorise", "memorises", "memorising")]
ADVERBS = ["linearly", "strictly", "fully", "jointly", "perfectly"]
ADJECTIVES = ["separable", "decodable", "recoverable", "computable"]


@given(st.sampled_from(SUBJECTS), st.sampled_from(ADVERBS), st.sampled_from(ADJECTIVES),
       st.sampled_from(["not", "never", "cannot be", "isn't"]))
@settings(max_examples=60, deadline=None)
def test_a_negation_over_an_adverb_and_its_adjective_is_one(
        subject: str, adverb: str, adjective: str, negation: str) -> None:
    denied = f"the {subject} is {negation} {adverb} {adjective}".replace("is cannot", "cannot")
    denied = denied.replace("is isn't", "isn't")
    affirmed = f"the {subject} is {adverb} {adjective}"
    assert turned_around(denied, f"the {subject} is not {adverb} {adjective}") is None
    assert turned_around(denied, affirmed) is not None
    assert turned_around(affirmed, denied) is not None


@given(st.sampled_from(SUBJECTS), st.sampled_from(OBJECTS), st.sampled_from(VERBS),
       st.sampled_from(["Instead of", "Rather than"]))
@settings(max_examples=40, deadline=None)
def test_instead_of_a_fronted_phrase_the_rest_affirms(
        subject: str, obj: str, verb: tuple[str, str, str], fronted: str) -> None:
    _, third, ing = verb
    claim = f"the {subject} {third} the {obj}"
    [sentence] = split_sentences(f"{fronted} {ing} the inputs directly, {claim}.")
    clauses = clauses_of(sentence)
    assert any(turned_around(c, claim) is None and claim in c for c in clauses), clauses
    # the whole sentence keeps its negation: the fronted phrase alone is turned around
    assert turned_around(clauses[0], f"the {subject} {ing} the inputs directly") is not None


@given(st.sampled_from(SUBJECTS), st.sampled_from(OBJECTS), st.sampled_from(VERBS))
@settings(max_examples=40, deadline=None)
def test_fails_negates_only_what_it_fails_to_do(
        subject: str, obj: str, verb: tuple[str, str, str]) -> None:
    base, third, _ = verb
    claim = f"the {subject} {third} the {obj}"
    assert turned_around(f"the {subject} {third} the {obj}, so training fails", claim) is None
    assert turned_around(f"the {subject} fails to {base} the {obj}", claim) is not None


_TERMS = [line.split() for line in _CLASSES.strip().splitlines()]


@given(st.sampled_from(_TERMS).flatmap(
    lambda words: st.tuples(st.sampled_from(words), st.sampled_from(words))),
    st.sampled_from(SUBJECTS))
@settings(max_examples=80, deadline=None)
def test_a_term_counts_as_any_of_its_class(pair: tuple[str, str], subject: str) -> None:
    one, other = pair
    assert overlap(f"the {subject} {one}", f"our {subject} {other} it") == 1.0


@given(st.sampled_from(["non-linear", "non linear", "nonlinear", "Non-linear"]),
       st.sampled_from(["non-linear", "non linear", "nonlinear"]))
@settings(deadline=None)
def test_non_written_apart_or_joined_is_one_word(one: str, other: str) -> None:
    assert overlap(f"a {one} activation", f"the activation is {other}") == 1.0


@given(st.sampled_from(["heads", "layers", "tokens", "dimensions"]))
@settings(deadline=None)
def test_how_many_is_the_number(thing: str) -> None:
    assert overlap(f"h is the number of {thing}", f"h says how many {thing} there are") == 1.0


def test_every_own_word_is_strong_on_the_subject_only() -> None:
    assert is_strong(ALL_WORDS_COSINE, 1.0, 2)
    assert not is_strong(ALL_WORDS_COSINE, 1.0, 1)  # one word is a keyword, not a statement
    assert not is_strong(ALL_WORDS_COSINE - 0.05, 1.0, 3)  # off the subject
    assert not is_strong(0.7, 0.9, 3)


def test_a_contradiction_needs_phrasings_or_patterns() -> None:
    with pytest.raises(ValidationError):
        Contradiction.model_validate({"feedback": "no"})
    with pytest.raises(ValidationError):
        Contradiction.model_validate({"phrasings": ["faster"], "feedback": "a keyword"})
    assert Contradiction.model_validate(
        {"phrasings": ["beam search is faster than greedy decoding"], "feedback": "no"})


WRONG = """
slug: t
title: T
questions:
  - id: Q
    prompt: What does the normaliser do to the {obj}?
    items:
      - id: q.norm
        points: 2
        grader: written
        config:
          elements:
            - id: keeps
              patterns: ['normaliser']
          contradictions:
            - phrasings: ['the normaliser {third} the {obj}']
              feedback: It does not.
"""


@given(st.sampled_from(OBJECTS), st.sampled_from(VERBS),
       st.sampled_from(["", "In practice ", "As far as I know, "]))
@settings(max_examples=12, deadline=None)
def test_a_wrong_claim_in_plain_words_caps_and_its_denial_does_not(
        resources: GradingResources, obj: str, verb: tuple[str, str, str], lead: str) -> None:
    third = verb[1]
    rubric = parse_rubric(WRONG.format(obj=obj, third=third)).rubric
    stated = f"{lead}the normaliser {third} the {obj}."
    [capped] = grade_text(rubric, "Q", stated, resources)
    assert capped.points == Decimal(0) and "It does not." in capped.feedback, capped.feedback
    denied = f"{lead}the normaliser never {third} the {obj}."
    [kept] = grade_text(rubric, "Q", denied, resources)
    assert kept.points == Decimal(2), kept.feedback
    # a quantifier's negation ("no amount of tuning ...") is read as a denial too
    quantified = f"{lead}with the normaliser, no amount of tuning {third} the {obj}."
    [denied_too] = grade_text(rubric, "Q", quantified, resources)
    assert "It does not." not in denied_too.feedback, denied_too.feedback


NON_WORDS = ["linear", "zero", "negative", "trivial", "differentiable", "convex", "causal"]
NON_SPELLINGS = ["non-{w}", "non {w}", "non{w}", "Non-{w}", "NON-{w}"]


@given(st.sampled_from(NON_WORDS), st.sampled_from(NON_SPELLINGS),
       st.sampled_from(["the map is {x}", "a {x} function of the input", "it becomes {x}"]))
@settings(max_examples=60, deadline=None)
def test_non_x_is_never_x_and_every_spelling_is_non_x(word: str, spelling: str, frame: str
                                                       ) -> None:
    text = normalise(frame.format(x=spelling.format(w=word)))
    assert find_any((word,), text) is None, text
    assert find_any((f"stack* ... {word}",), normalise(f"stacking layers: {text}")) is None
    for written in ("non-{w}", "non {w}", "non ?{w}", "non{w}"):
        assert find_any((written.format(w=word),), text) is not None, (written, text)
    assert find_any((word,), normalise(frame.format(x=word))) is not None


CONDITIONED = """
slug: t
title: T
questions:
  - id: Q
    prompt: What happens when {obj} are stacked without an activation?
    items:
      - id: q.collapse
        points: 2
        grader: written
        config:
          elements:
            - id: collapse
              label: the stack is one linear map
              patterns: ['one linear map']
          contradictions:
            - phrasings: ['stacking {obj} makes the network more expressive']
              feedback: It does not.
"""


@given(st.sampled_from(["linear layers", "dense layers", "projections"]),
       st.sampled_from(["With a ReLU between them, ", "When an activation sits in between, ",
                        "Only with a non-linearity, "]),
       st.sampled_from(["; without it the stack is one linear map.",
                        ". Without one, the whole stack is just one linear map."]))
@settings(max_examples=12, deadline=None)
def test_a_wrong_claim_beside_a_stated_element_goes_to_review(
        resources: GradingResources, obj: str, condition: str, contrast: str) -> None:
    rubric = parse_rubric(CONDITIONED.format(obj=obj)).rubric
    both = f"{condition}stacking {obj} makes the network more expressive{contrast}"
    [checked] = grade_text(rubric, "Q", both, resources)
    assert checked.status.value == "needs_review", (checked.status, checked.feedback)
    assert "a grader should check which it claims" in checked.feedback
    [wrong] = grade_text(rubric, "Q", f"Stacking {obj} makes the network more expressive.",
                         resources)
    assert wrong.points == Decimal(0) and wrong.status.value == "graded", wrong.feedback


EXAMPLES = [", for instance ", ", for example ", ", e.g. ", ", such as ", ", i.e. "]


@given(st.sampled_from(SUBJECTS), st.sampled_from(OBJECTS), st.sampled_from(EXAMPLES),
       st.sampled_from(["one head for syntax", "the first and the last token", "sigmoid or tanh"]))
@settings(max_examples=40, deadline=None)
def test_an_example_after_a_comma_is_a_clause_of_its_own(
        subject: str, obj: str, lead: str, example: str) -> None:
    claim = f"The {subject} rescales the {obj} at every step"
    [sentence] = split_sentences(f"{claim}{lead}{example}.")
    assert claim in clauses_of(sentence)


@given(st.sampled_from(SUBJECTS), st.sampled_from(["at once", "at the same time", "in one go",
                                                   "simultaneously", "in parallel"]))
@settings(max_examples=30, deadline=None)
def test_at_once_says_simultaneously(subject: str, when: str) -> None:
    assert overlap(f"the {subject} runs simultaneously", f"our {subject} runs {when}") == 1.0


@pytest.mark.parametrize("answer", [
    "Multiple heads let the model look at different kinds of relationships at once, for "
    "instance one head for syntax and another for coreference, each in its own subspace.",
    "Several heads let the network look at different relations at the same time, e.g. syntax "
    "in one head and coreference in another, each in a smaller subspace.",
])
def test_a_clause_with_two_ideas_sends_a_partial_credit_to_review(grade: Grade, answer: str
                                                                  ) -> None:
    # transformer-basics a5.why_heads: "different relations" earns 3 of 5 by itself; "at once"
    # (in parallel) is the rest, stated in the same clause
    result = next(r for r in grade("A5", answer) if r.item_id == "a5.why_heads")
    assert result.points == Decimal(5) or result.status.value == "needs_review", (
        result.points, result.status, result.feedback)
