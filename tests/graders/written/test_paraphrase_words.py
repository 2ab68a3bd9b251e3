"""Classes of correct paraphrase that lost credit, and of fluent wrong answers that gained it, in
the fourth probe's held-out notes (benchmarks/written_probe.py), generated over bundled items
and synthetic rubrics of other subjects:

- a negated absence ("has no notion of order", "is blind to word order", "doesn't know the
  positions") states what a phrasing says with "ignores", and its affirmation ("knows the
  order") is the opposite (`meaning.plain_claim`, the antonym "know ignore");
- a beam width's letter ("keeps the k best sequences") is "several", the other count from a
  wrong claim's "keeps only the single best sequence" (never capped by it);
- "go back", "revisit", "undo", "reconsider" and "backtrack" are one term: "greedy never
  revisits a choice" is never a confident zero;
- a chained reason ("a hidden layer fixes it because it's nonlinear since it has more
  neurons"): the ground the credited reason rests on is read on its own, so a foreign one sends
  the credit to a person;
- a pattern's qualifier left out ("nn.Parameter added to the embeddings" for `add* ... (input|
  token|word) (embedding*|...)`): a person decides, never a confident zero.
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
from graders.written.doubts import reasons_of
from graders.written.matching import find_elements
from graders.written.meaning import content_words, plain_claim, turned_around
from graders.written.patterns import find_any, without_qualifier
from graders.written.text import split_sentences
from tests.graders.written.conftest import full_or_reviewed, graded_item


@pytest.fixture(scope="module")
def rubric(transformer_basics: LoadedRubric) -> LoadedRubric:
    return transformer_basics


def _rubric(prompt: str, elements: list[dict[str, object]],
            wrong: list[str] | None = None) -> Rubric:
    config: dict[str, object] = {
        "reference": [" ".join(str(e.get("label", e["id"])) for e in elements)],
        "elements": elements}
    if wrong:
        config["contradictions"] = [{"phrasings": wrong, "feedback": "That is the opposite."}]
    return Rubric.model_validate({
        "slug": "s", "title": "s", "review_threshold": 0.6, "questions": [{
            "id": "q", "prompt": prompt, "items": [{
                "id": "q.a", "points": 2, "grader": "written", "config": config}]}]})


def _grade(rubric: Rubric, text: str, resources: GradingResources) -> ItemResult:
    question = rubric.questions[0]
    answer = LocatedAnswer(question.id, text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={question.id: answer})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    [result] = GRADER.grade_items(question.items, answer, context)
    return result


# ---- a negated absence is "ignores" ----
_ABSENT = ["has no notion of", "has no real sense of", "has no built-in idea of",
           "is blind to", "is completely oblivious to", "is unaware of", "doesn't know",
           "does not know", "can't take into account", "does not care about",
           "cannot distinguish", "can't differentiate between"]
# (subject, what it ignores, the phrasing that says so with "ignores")
_IGNORED = [("self-attention", "the order of the words",
             "self-attention by itself ignores the order of the words"),
            ("a bag-of-words model", "word order", "a bag-of-words model ignores word order"),
            ("the thermostat", "the outside temperature",
             "the thermostat ignores the outside temperature"),
            ("the hash function", "the letter case of the key",
             "the hash function ignores the letter case of the key")]


@given(st.sampled_from(_ABSENT), st.sampled_from(_IGNORED))
@settings(max_examples=60, deadline=None)
def test_a_negated_absence_reads_as_ignores_and_its_affirmation_as_the_opposite(
        absent: str, subject: tuple[str, str, str]) -> None:
    who, what, phrasing = subject
    clause = f"{who} {absent} {what}"
    assert "ignores" in plain_claim(clause)
    assert turned_around(clause, phrasing) is None
    assert content_words(phrasing) <= content_words(clause) | content_words("by itself")
    # "knows" is the opposite; "does not ignore" too
    assert turned_around(f"{who} knows {what}", phrasing) is not None
    assert turned_around(f"{who} does not ignore {what}", phrasing) is not None
    # words that only look alike are left as they are
    assert plain_claim(f"{who} has no parameters") == f"{who} has no parameters"


@given(st.sampled_from(["attention has no notion of order", "attention is blind to word order",
                        "self-attention has no notion of word order",
                        "self-attention doesn't know the order of the tokens"]),
       st.sampled_from(["", ", so we add positional encodings"]))
@settings(max_examples=16, deadline=None)
def test_attention_blind_to_order_is_credited(
        rubric: LoadedRubric, resources: GradingResources, claim: str, tail: str) -> None:
    graded = graded_item(rubric, resources, "A3", "a3.order", claim + tail)
    assert graded.points == graded.max_points


@given(st.sampled_from(_IGNORED), st.sampled_from(_ABSENT[:6]))
@settings(max_examples=12, deadline=None)
def test_the_negated_absence_class_holds_in_other_subjects(
        resources: GradingResources, subject: tuple[str, str, str], absent: str) -> None:
    who, what, phrasing = subject
    rubric = _rubric(f"What does {who} leave out?",
                     [{"id": "e", "label": phrasing, "phrasings": [phrasing]}])
    assert full_or_reviewed(_grade(rubric, f"{who} {absent} {what}.", resources))
    knows = _grade(rubric, f"{who} always knows {what}.", resources)
    assert knows.points < knows.max_points


# ---- one against several ----
_WIDTHS = ["the k best", "the top k", "the top-k", "k most likely", "several", "multiple"]
_KEPT = [("beam search keeps", "sequences", "beam search keeps only the single best sequence"),
         ("the cache holds", "pages", "the cache holds only a single page"),
         ("the scheduler tracks", "jobs", "the scheduler tracks just one job")]


@given(st.sampled_from(_WIDTHS), st.sampled_from(_KEPT))
@settings(max_examples=40, deadline=None)
def test_several_against_a_single_one_is_the_other_claim(
        width: str, kept: tuple[str, str, str]) -> None:
    verb, things, single = kept
    assert turned_around(f"{verb} {width} {things}", single) is not None
    assert turned_around(f"{verb} only one of the {things}", single) is None
    # a clause that says both (one against several) is not read as either
    assert turned_around(f"a single one is not enough, so it {verb} several {things}",
                         single) is None


@given(st.sampled_from(["beam search works because it keeps the k best sequences",
                        "beam search keeps the top k sequences",
                        "beam search keeps the k best partial sequences at each step",
                        "it works because it keeps the k best hypotheses"]))
@settings(max_examples=8, deadline=None)
def test_keeping_the_k_best_is_not_capped_by_keeping_a_single_one(
        rubric: LoadedRubric, resources: GradingResources, text: str) -> None:
    graded = graded_item(rubric, resources, "A6", "a6.beam", text)
    assert graded.points >= 3 or graded.status is Status.NEEDS_REVIEW
    assert "not greedy and not faster" not in graded.feedback  # no wrong claim capped it


# ---- going back is one term ----
@given(st.sampled_from(["never goes back to", "never revisits", "never undoes",
                        "can't go back and change", "never reconsiders"]),
       st.sampled_from(["an earlier choice", "a choice it made", "the earlier words"]))
@settings(max_examples=20, deadline=None)
def test_greedy_never_going_back_is_never_a_confident_zero(
        rubric: LoadedRubric, resources: GradingResources, verb: str, what: str) -> None:
    graded = graded_item(rubric, resources, "A6", "a6.greedy", f"greedy {verb} {what}")
    assert graded.points > 0 or graded.status is Status.NEEDS_REVIEW


def test_going_back_is_one_term_in_another_subject(resources: GradingResources) -> None:
    phrasing = "the greedy coin algorithm never reconsiders a coin it has chosen"
    rubric = _rubric("Why can the greedy coin-change algorithm fail?",
                     [{"id": "e", "label": phrasing, "phrasings": [phrasing]}])
    for text in ("it never goes back on a coin it has chosen.",
                 "it never revisits a coin once chosen.", "it never undoes a chosen coin."):
        assert full_or_reviewed(_grade(rubric, text, resources)), text


# ---- a chained reason ----
_CHAINS = [("because", "since"), ("because", "because"), ("since", "due to"),
           ("because", "thanks to")]


@given(st.sampled_from(_CHAINS), st.sampled_from(
    ["it has more neurons", "there are more parameters", "it has extra capacity"]))
@settings(max_examples=20, deadline=None)
def test_a_chained_reason_is_read_on_its_own(
        rubric: LoadedRubric, resources: GradingResources, chain: tuple[str, str],
        ground: str) -> None:
    first, second = chain
    text = f"a hidden layer fixes it {first} it's nonlinear {second} {ground}"
    assert reasons_of(text)[-1].strip() == ground
    graded = graded_item(rubric, resources, "A1", "a1.hidden_nonlinear", text)
    assert graded.status is Status.NEEDS_REVIEW or graded.points < graded.max_points
    # grounded in the rubric's own words, the credit stays
    right = (f"a hidden layer fixes it {first} it's nonlinear {second} its non-linear "
             "activation combines several linear boundaries")
    kept = graded_item(rubric, resources, "A1", "a1.hidden_nonlinear", right)
    assert kept.points == kept.max_points and kept.status is Status.GRADED


# ---- a pattern's qualifier left out ----
# (pattern, an answer naming the thing without the qualifier, one naming something else)
_QUALIFIED = [
    ("add* ... (to )?(the )?(input|token|word) (embedding*|vector*)",
     "a trainable table (nn.Parameter) added to the embeddings",
     "a trainable table kept apart from everything else"),
    ("stor* ... (hash|lookup) (table*|map*)", "the counts are stored in a table",
     "the counts are thrown away"),
    ("(heart|mitral|aortic) (valve*|flap*) ... clos*", "the valves close after each beat",
     "the blood keeps moving"),
]


@given(st.sampled_from(_QUALIFIED))
@settings(max_examples=6, deadline=None)
def test_a_qualifier_left_out_goes_to_a_person(
        resources: GradingResources, case: tuple[str, str, str]) -> None:
    pattern, loose, other = case
    [relaxed] = without_qualifier(pattern)
    assert find_any((pattern,), loose) is None and find_any((relaxed,), loose) is not None
    rubric = _rubric("What happens?", [{"id": "e", "patterns": [pattern]}])
    graded = _grade(rubric, loose, resources)
    assert graded.status is Status.NEEDS_REVIEW and graded.points == Decimal(0)
    assert find_any((relaxed,), other) is None


def test_a_pattern_without_a_qualifier_is_not_loosened() -> None:
    for pattern in ("permutation (invariant|equivariant)", "hidden (layer|unit)*",
                    "bias ... attention", "(keeps?|holds?) ... (k|top ?k) (best )?sequence*"):
        assert without_qualifier(pattern) == ()


@given(st.sampled_from(["(set|bag)", "(sum|average)", "(mean|max)", "(copy|clone)"]),
       st.sampled_from(["of", "over", "for", "to the", "in"]),
       st.sampled_from(["(tokens|words|vectors)", "(values|outputs)", "(rows|columns)"]))
@settings(max_examples=30, deadline=None)
def test_a_qualifier_is_never_a_head_noun_before_a_function_word(
        head: str, function: str, noun: str) -> None:
    """"(set|bag) of (tokens|words)" without its first group is "of (tokens|words)", which
    "the position of each word" matches: what is left must hold two words of content."""
    assert without_qualifier(f"{head} {function} {noun}") == ()
    assert without_qualifier(f"{head} {function} (input|token) {noun}") != ()


# ---- a negation counted at whichever word of its run is shared ----
@given(st.sampled_from(["linearly", "easily", "cleanly", "directly"]),
       st.sampled_from([("separable", "split"), ("separated", "divided"),
                        ("trained", "learned")]))
@settings(max_examples=24, deadline=None)
def test_a_negation_before_an_adverb_counts_on_the_shared_word(
        adverb: str, words: tuple[str, str]) -> None:
    word, synonym = words
    phrasing = f"the points are not {adverb} {word}"
    assert turned_around(f"the points cannot be {synonym}", phrasing) is None
    assert turned_around(f"the points can be {synonym}", phrasing) is not None


# ---- patterns read the words as the phrasings do ----
@given(st.sampled_from([("at once", "simultaneous*"), ("at the same time", "simultaneous*"),
                        ("has no notion of order", "ignor* ... order"),
                        ("is blind to the order", "ignor* ... order"),
                        ("can go back and fix a choice", "backtrack*")]))
@settings(max_examples=10, deadline=None)
def test_a_pattern_reads_a_phrase_as_its_one_word(case: tuple[str, str]) -> None:
    words, pattern = case
    element = {"id": "e", "label": "what it says", "patterns": [pattern]}
    config = WrittenConfig.model_validate(
        _rubric("What happens?", [element]).questions[0].items[0].config)
    found = find_elements(config, split_sentences(f"the model {words}."))
    assert "e" in found
    # the pattern's own words still come first, and a negation of them still counts
    assert "e" not in find_elements(config, split_sentences("the model does the usual thing."))


def test_several_heads_at_once_is_full_credit(
        rubric: LoadedRubric, resources: GradingResources) -> None:
    graded = graded_item(rubric, resources, "A5", "a5.why_heads",
                         "several heads look at different kinds of relationships at once")
    assert graded.points == graded.max_points


def test_a_phrase_read_as_one_word_keeps_its_negation() -> None:
    element = {"id": "e", "label": "it backtracks", "patterns": ["backtrack*"]}
    config = WrittenConfig.model_validate(
        _rubric("What happens?", [element]).questions[0].items[0].config)
    assert "e" not in find_elements(config, split_sentences("the model never goes back."))
    assert "e" in find_elements(config, split_sentences("the model goes back."))


# ---- a product said after its factors ----
@given(st.sampled_from(["the", "tiny", "small", "the local"]),
       st.sampled_from(["derivatives", "derivs", "gradients"]),
       st.sampled_from(["are multiplied over", "get multiplied across", "are multiplied through"]),
       st.sampled_from(["many layers", "the many layers"]))
@settings(max_examples=30, deadline=None)
def test_derivatives_multiplied_over_the_layers_states_the_product(
        rubric: LoadedRubric, resources: GradingResources, adjective: str, noun: str,
        multiplied: str, layers: str) -> None:
    graded = graded_item(rubric, resources, "A2", "a2.vanishing",
                         f"{adjective} {noun} {multiplied} {layers}")
    assert "the chain rule multiplies one derivative per layer" not in graded.feedback
