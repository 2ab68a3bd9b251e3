"""Elements given as phrasings: matched by meaning, refused when the claim is turned around.

The classes of writing, generated: a claim restated with its negation ("does not", "never",
"can't"), with an antonym, with its roles swapped (all three claim the opposite); and the
counterfactuals that state a concept through its absence ("without X, Y would Z" for "X
prevents Y from Z-ing", and the reverse), which claim the same.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from graders.context import GradingResources
from graders.results import ItemResult, Status
from graders.rubric import Rubric, parse_rubric
from graders.written.config import Topic, WrittenConfig
from graders.written.matching import topic_among
from graders.written.meaning import clauses_of, turned_around
from graders.written.text import split_sentences
from tests.graders.written.conftest import grade_text

# Content words with no antonym in contradiction.py and no shared stem with each other.
SUBJECTS = ["softmax", "encoder", "decoder", "network", "tokenizer", "optimizer"]
CAUSES = ["scaling", "normalisation", "dropout", "masking", "clipping", "warmup"]
VERBS = [("saturate", "saturating", "saturates"), ("overwrite", "overwriting", "overwrites"),
         ("memorise", "memorising", "memorises"), ("corrupt", "corrupting", "corrupts")]
OBJECTS = ["gradients", "embeddings", "weights", "activations", "logits"]
NEGATED = ["does not {v}", "doesn't {v}", "never {s}", "can't {v}", "cannot {v}", "won't {v}"]

words = st.fixed_dictionaries({
    "subject": st.sampled_from(SUBJECTS), "cause": st.sampled_from(CAUSES),
    "verb": st.sampled_from(VERBS), "obj": st.sampled_from(OBJECTS),
    "negated": st.sampled_from(NEGATED),
})


def _claim(w: dict[str, Any]) -> str:
    third = w["verb"][2]
    return f"the {w['subject']} {third} the {w['obj']}"


@given(words)
@settings(max_examples=60, deadline=None)
def test_a_negated_claim_is_the_opposite(w: dict[str, Any]) -> None:
    base, _, third = w["verb"]
    negated = str(w["negated"]).format(v=base, s=third)
    answer = f"the {w['subject']} {negated} the {w['obj']}"
    assert turned_around(answer, _claim(w)) is not None
    assert turned_around(_claim(w), answer) is not None
    assert turned_around(_claim(w), _claim(w)) is None


@given(words)
@settings(max_examples=60, deadline=None)
def test_counterfactuals_state_the_prevented_claim(w: dict[str, Any]) -> None:
    base, ing, third = w["verb"]
    subject, cause, obj = w["subject"], w["cause"], w["obj"]
    negated = str(w["negated"]).format(v=base, s=third)
    prevents = f"{cause} prevents the {subject} from {ing} the {obj}"
    same = [f"without {cause} the {subject} would {base} the {obj}",
            f"{cause} stops the {subject} from {ing} the {obj}",
            f"{cause} keeps the {subject} from {ing} the {obj}",
            f"with {cause} the {subject} {negated} the {obj}"]
    for answer in same:
        assert turned_around(answer, prevents) is None, answer
        assert turned_around(prevents, answer) is None, answer
    opposite = [f"with {cause} the {subject} {third} the {obj}",
                f"without {cause} the {subject} {negated} the {obj}"]
    for answer in opposite:
        assert turned_around(answer, prevents) is not None, answer


@given(st.sampled_from([("increases", "decreases"), ("larger", "smaller"),
                        ("faster", "slower"), ("before", "after")]),
       st.sampled_from(SUBJECTS), st.sampled_from(OBJECTS))
@settings(max_examples=40, deadline=None)
def test_an_antonym_turns_the_claim_around_and_two_flips_cancel(
        pair: tuple[str, str], subject: str, obj: str) -> None:
    one, other = pair
    claim = f"the {subject} {one} the {obj}"
    assert turned_around(f"the {subject} {other} the {obj}", claim) is not None
    # a negated antonym claims what the phrasing does ("is not smaller" ~ "is larger")
    assert turned_around(f"the {subject} does not {other} the {obj}", claim) is None


def test_swapped_roles_are_the_opposite() -> None:
    phrasing = "the query is compared with every key"
    assert turned_around("every key is compared with the query", phrasing) is not None


def test_clauses_split_at_connectives_only_when_each_says_something() -> None:
    [sentence] = split_sentences(
        "We divide the scores by sqrt(d_k), so the softmax does not saturate early; "
        "otherwise gradients vanish quickly.")
    assert len(clauses_of(sentence)) == 3
    [short] = split_sentences("Scaling helps, so yes.")
    assert clauses_of(short) == []


def test_clause_splitting_is_bounded_on_hostile_text() -> None:
    [sentence] = split_sentences("word word word; " * 5000)
    assert len(clauses_of(sentence)) <= 6


# -- config ---------------------------------------------------------------------------------

def _config(**element: object) -> WrittenConfig:
    return WrittenConfig.model_validate({"elements": [{"id": "e", **element}]})


def test_an_element_needs_phrasings_or_patterns() -> None:
    with pytest.raises(ValidationError, match="needs phrasings or patterns"):
        _config()
    assert _config(phrasings=["the softmax saturates"]).phrased


def test_a_one_word_phrasing_is_refused() -> None:
    with pytest.raises(ValidationError, match="is not a sentence"):
        _config(phrasings=["saturation"])


@pytest.mark.parametrize(("require", "error"), [
    ({"any": 3, "of": ["a", "b"]}, "can never be met"),
    ({"any": 1, "of": ["a", "a"]}, "names an element twice"),
    ({"any": 1, "of": ["a", "z"]}, "unknown element id"),
])
def test_any_of_groups_are_validated(require: object, error: str) -> None:
    elements = [{"id": i, "patterns": [i]} for i in ("a", "b")]
    with pytest.raises(ValidationError, match=error):
        WrittenConfig.model_validate({"elements": elements, "require": require})


# -- grading, with the sentence encoder ---------------------------------------------------

TECHNIQUES = """
slug: t
title: T
questions:
  - id: Q
    items:
      - id: q.techniques
        points: 2
        grader: written
        config:
          elements:
            - {id: dropout, phrasings: [dropout randomly zeroes activations during training]}
            - {id: decay, phrasings: [weight decay penalises large weights]}
            - {id: early, phrasings: [stop training early when the validation loss rises]}
            - {id: augment, phrasings: [augment the data with transformed copies of examples]}
            - {id: smaller, phrasings: [use a smaller model with fewer parameters]}
          require: {any: 2, of: [dropout, decay, early, augment, smaller]}
          partial:
            - {points: 1, when: [{any: 1, of: [dropout, decay, early, augment, smaller]}]}
      - id: q.scaling
        points: 2
        grader: written
        config:
          elements:
            - id: saturation
              label: the scale keeps the softmax from saturating
              phrasings:
                - scaling the scores keeps the softmax from saturating
                - without scaling the dot products grow and the softmax saturates
"""


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return parse_rubric(TECHNIQUES).rubric


def _grade(rubric: Rubric, resources: GradingResources, text: str, item: str) -> ItemResult:
    return next(r for r in grade_text(rubric, "Q", text, resources) if r.item_id == item)


@pytest.mark.parametrize(("text", "points"), [
    ("We used dropout, which zeroes random activations while training, and weight decay "
     "to penalise big weights.", Decimal(2)),
    ("Weight decay penalises large weights.", Decimal(1)),
    ("I like transformers.", Decimal(0)),
])
def test_any_two_of_five(rubric: Rubric, resources: GradingResources, text: str,
                         points: Decimal) -> None:
    result = _grade(rubric, resources, text, "q.techniques")
    assert result.points == points, result.feedback


def test_a_counterfactual_states_the_element_and_shows_its_evidence(
        rubric: Rubric, resources: GradingResources) -> None:
    result = _grade(rubric, resources, "Without the scale the softmax would saturate.",
                    "q.scaling")
    assert result.points == 2 and result.status is Status.GRADED, result.feedback
    [evidence] = [e for e in result.evidence if "by meaning" in e.note]
    assert "cosine" in evidence.note and evidence.text.startswith("Without")


def test_the_opposite_claim_is_not_credited(rubric: Rubric, resources: GradingResources
                                            ) -> None:
    result = _grade(rubric, resources, "Scaling the scores does not keep the softmax from "
                    "saturating.", "q.scaling")
    assert result.points == 0, result.feedback


def test_a_weak_match_is_a_review_not_a_confident_zero(
        rubric: Rubric, resources: GradingResources) -> None:
    result = _grade(rubric, resources, "Dividing by sqrt(d) helps the softmax behave.",
                    "q.scaling")
    assert not (result.points == 0 and result.status is Status.GRADED), result.feedback


GREEDY = """
slug: t
title: T
questions:
  - id: Q
    items:
      - id: q.greedy
        points: 4
        grader: written
        config:
          elements:
            - id: describe
              phrasings: [greedy decoding picks the most probable token at each step]
            - id: why
              phrasings:
                - a locally best choice can miss the sequence with the highest joint probability
          partial:
            - {points: 2, when: [describe]}
"""


def test_a_sentence_counts_for_the_element_of_the_item_it_states_best(
        resources: GradingResources) -> None:
    rubric = parse_rubric(GREEDY).rubric
    describes = "Greedy decoding selects the highest probability token at each step."
    [result] = grade_text(rubric, "Q", describes, resources)
    assert result.points == 2, result.feedback
    both = describes[:-1] + ", so a locally best choice can miss the sequence with the highest " \
        "joint probability."
    [result] = grade_text(rubric, "Q", both, resources)
    assert result.points == 4, result.feedback


def test_without_the_encoder_a_phrased_element_is_not_a_confident_zero(
        rubric: Rubric, monkeypatch: pytest.MonkeyPatch) -> None:
    from graders.embedding import EmbedderUnavailable
    from graders.written import grader as grader_module

    def unavailable(*args: object, **kwargs: object) -> None:
        raise EmbedderUnavailable("not installed")

    monkeypatch.setattr(grader_module, "load_embedder", unavailable)
    result = _grade(rubric, GradingResources(options={}),
                    "Without the scale the softmax would saturate.", "q.scaling")
    assert result.status is Status.NEEDS_REVIEW
    assert "could not be looked for" in result.feedback


TOPIC = """
slug: t
title: T
questions:
  - id: Q
    items:
      - id: q.greedy
        points: 2
        grader: written
        config:
          topic: {patterns: [greedy], others: [beam]}
          elements:
            - {id: local, patterns: ['local* (optim*|best)']}
"""


def test_topic_never_drops_the_only_sentence_that_states_an_element(
        resources: GradingResources) -> None:
    rubric = parse_rubric(TOPIC).rubric
    outside = "Greedy picks the best token. Beam search avoids the locally best trap of greedy."
    [result] = grade_text(rubric, "Q", outside, resources)
    assert result.points == 2 and result.status is Status.NEEDS_REVIEW, result.feedback
    assert "another part of the question" in result.feedback
    assert any("outside this item's topic" in e.note for e in result.evidence)
    inside = "Greedy picks the locally best token. Beam search keeps k candidates."
    [result] = grade_text(rubric, "Q", inside, resources)
    assert result.points == 2 and result.status is Status.GRADED, result.feedback


# An instructor's element given by patterns only, with an id that says nothing: the patterns
# decide it, and the item's reference is what a missed paraphrase is looked for by.
PATTERNS_ONLY = """
slug: limits
title: A limitation
questions:
  - id: Q
    prompt: What is a limitation of a learned positional embedding table?
    items:
      - id: q.limit
        points: 1
        grader: written
        config:
          reference:
            - A learned table only covers positions up to the maximum length seen in training,
              so it cannot extrapolate to longer sequences.
          elements:
            - id: limit
              patterns: ['(cannot|NOT) extrapolate beyond', 'fixed maximum length']
"""
PARAPHRASES = ["It may not generalize well to sequences longer than those seen during training.",
               "Positions past the longest training sequence have no trained vector, so longer "
               "inputs are a problem.",
               "It will struggle with inputs longer than any sequence it was trained on."]
UNRELATED = ["It is easy to implement with nn.Embedding.",
             "Learned embeddings are popular in BERT.",
             "I am not sure."]


@pytest.mark.parametrize("text", PARAPHRASES)
def test_a_paraphrase_the_patterns_miss_goes_to_review_not_a_confident_zero(
        text: str, resources: GradingResources) -> None:
    rubric = parse_rubric(PATTERNS_ONLY).rubric
    [result] = grade_text(rubric, "Q", text, resources)
    assert result.points == 0 and result.status is Status.NEEDS_REVIEW, result.feedback


@pytest.mark.parametrize("text", UNRELATED)
def test_an_answer_far_from_the_reference_keeps_its_confident_grade(
        text: str, resources: GradingResources) -> None:
    rubric = parse_rubric(PATTERNS_ONLY).rubric
    [result] = grade_text(rubric, "Q", text, resources)
    assert result.points == 0 and result.status is Status.GRADED, result.feedback


# The same question with each item's topic naming only its own subject: the other subjects are
# the question's other items' topics.
SIBLING_TOPICS = """
slug: t
title: T
questions:
  - id: Q
    items:
      - id: q.greedy
        points: 2
        grader: written
        config:
          topic: {patterns: [greedy]}
          elements:
            - {id: local, patterns: ['local* (optim*|best)']}
      - id: q.beam
        points: 2
        grader: written
        config:
          topic: {patterns: [beam]}
          elements:
            - {id: keep, patterns: ['keeps? (k|several) candidates']}
"""


def test_a_topic_without_others_takes_its_sibling_items_topics(
        resources: GradingResources) -> None:
    rubric = parse_rubric(SIBLING_TOPICS).rubric
    # Greedy's own sentence does not say why; the beam sentence does, and is not greedy's.
    outside = "Greedy picks the best token. Beam search avoids the locally best trap."
    greedy, beam = grade_text(rubric, "Q", outside, resources)
    assert greedy.status is Status.NEEDS_REVIEW, greedy.feedback
    assert any("outside this item's topic" in e.note for e in greedy.evidence)
    assert beam.points == 0
    inside = "Greedy picks the locally best token. Beam search keeps k candidates."
    greedy, beam = grade_text(rubric, "Q", inside, resources)
    assert (greedy.points, beam.points) == (2, 2), (greedy.feedback, beam.feedback)
    assert greedy.status is Status.GRADED and beam.status is Status.GRADED
    # Alone in its question, a topic with no other subject reads every sentence from its own.
    alone = parse_rubric(SIBLING_TOPICS.split("      - id: q.beam")[0]).rubric
    [greedy] = grade_text(alone, "Q", outside, resources)
    assert greedy.points == 2 and greedy.status is Status.GRADED, greedy.feedback


_SUBJECT = st.sampled_from(["greedy", "beam", "sinusoid*", "RoPE", "learn*", "absolute"])


@given(own=st.lists(_SUBJECT, min_size=1, max_size=3, unique=True),
       given_others=st.lists(_SUBJECT, max_size=3, unique=True),
       siblings=st.lists(st.none() | st.lists(_SUBJECT, min_size=1, max_size=3, unique=True),
                         max_size=3))
@settings(max_examples=80, deadline=None)
def test_a_topics_others_are_its_own_else_its_siblings_subjects(
        own: list[str], given_others: list[str], siblings: list[list[str] | None]) -> None:
    topic = Topic(patterns=tuple(own), others=tuple(given_others))
    rivals = [None if s is None else Topic(patterns=tuple(s)) for s in siblings]
    found = topic_among(topic, rivals)
    assert found is not None and found.patterns == topic.patterns
    inherited = tuple(p for s in siblings if s is not None for p in s)
    assert found.others == (tuple(given_others) or inherited)
    assert topic_among(None, rivals) is None
