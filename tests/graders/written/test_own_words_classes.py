"""Written items' ideas stated in words an instructor's rubric does not cover, when other items
of the question did match (issue #29; the trial homeworks `training` and `rotary`), generated:

- the answer to an item's own sub-part that nothing recognises, beside a credited other
  sub-part ("(b) At evaluation we use all the neurons.", "(b) Evaluation: the layer is a
  no-op.") goes to a person, not 0 at 0.9; one that only repeats the question's words ("(b) The
  same as for a stack.") keeps its confident zero;
- sub-parts marked after the question's number (`Q7.a`, `7-b`, `3.ii)`) are sub-parts, and
  an answer located after its first sub-part's label ("Q7.a") has that sub-part before the
  second's marker;
- a sentence nothing credits beside a partial credit in the item's own sub-part keeps it
  from being confident;
- words clipped with a full stop ("mixed prec.", "grad. accum.") read as the one word of the
  question they begin, and "w.p." as "with probability";
- an item asking for any k of its elements, given one it recognises and another alternative
  named in the words of one it does not ("activation recomputation" for checkpointing) is not
  a confident partial credit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.results import ItemResult, Status
from graders.rubric import Rubric, load_rubric
from graders.written.shorthand import expand
from graders.written.subparts import sub_answers
from graders.written.text import split_sentences
from tests.graders.written.conftest import grade_text

TRIALS = Path(__file__).resolve().parents[2] / "app" / "cli" / "trial_homeworks"

QUEUE: dict[str, Any] = {
    "slug": "queues", "title": "Queues", "questions": [{
        "id": "Q1", "prompt": "(a) In what order does a stack remove items? (b) And a queue?",
        "items": [
            {"id": "q1.stack", "points": 1, "grader": "written", "config": {
                "subpart": "a", "reference": ["A stack removes the last item added first."],
                "elements": [{"id": "lifo", "patterns": ["last in,? first out", "lifo",
                                                         "(last|latest|newest) ... first"]}]}},
            {"id": "q1.queue", "points": 1, "grader": "written", "config": {
                "subpart": "b", "reference": ["A queue removes the first item added first."],
                "elements": [{"id": "fifo", "patterns": ["first in,? first out", "fifo"]}]}},
        ]}]}


@pytest.fixture(scope="module")
def training() -> Rubric:
    return load_rubric(TRIALS / "training" / "rubric" / "training.yaml").rubric


@pytest.fixture(scope="module")
def queue(tmp_path_factory: pytest.TempPathFactory) -> Rubric:
    import yaml
    path = tmp_path_factory.mktemp("queue") / "queues.yaml"
    path.write_text(yaml.safe_dump(QUEUE))
    return load_rubric(path).rubric


def _item(results: list[ItemResult], item: str) -> ItemResult:
    return next(r for r in results if r.item_id == item)


def _not_a_confident_zero(result: ItemResult) -> None:
    assert result.points > 0 or result.status is Status.NEEDS_REVIEW, (
        result.points, result.confidence, result.feedback)


@given(st.sampled_from(["(a) ", "a) ", "Q1.a ", "1-a "]),
       st.sampled_from(["The newest item leaves first.", "Last in, first out."]),
       st.sampled_from(["the oldest element is served before later ones",
                        "whatever arrived earliest goes out next",
                        "items come out in arrival order"]))
@settings(max_examples=12, deadline=None)
def test_an_unread_answer_to_its_own_subpart_is_never_a_confident_zero(
        resources: GradingResources, queue: Rubric, a: str, stack: str, plain: str) -> None:
    b = a.replace("a", "b")
    answer = f"{a}{stack}\n{b}{plain[0].upper()}{plain[1:]}."
    results = grade_text(queue, "Q1", answer, resources)
    assert _item(results, "q1.stack").points == 1, answer
    _not_a_confident_zero(_item(results, "q1.queue"))


@given(st.sampled_from(["(a) ", "Q1.a "]),
       st.sampled_from(["The same as for a stack.", "Also in the stack's order.", "The same."]))
@settings(max_examples=6, deadline=None)
def test_a_subpart_answer_in_the_questions_words_keeps_its_confident_zero(
        resources: GradingResources, queue: Rubric, a: str, same: str) -> None:
    answer = f"{a}Last in, first out.\n{a.replace('a', 'b')}{same}"
    result = _item(grade_text(queue, "Q1", answer, resources), "q1.queue")
    assert result.points == 0 and result.status is Status.GRADED, result.feedback


@given(st.sampled_from(["Q7", "7", "Problem 7"]), st.sampled_from([".", "-"]),
       st.sampled_from([("a", "b", "c"), ("i", "ii", "iii")]))
def test_subparts_marked_after_the_questions_number(number: str, sep: str,
                                                    labels: tuple[str, str, str]) -> None:
    number = number.split()[-1]
    text = "\n".join(f"{number}{sep}{x}  Answer {x} here." for x in labels)
    assert [p.label for p in sub_answers(text)] == list(labels)


@given(st.sampled_from(["precision", "accumulation", "checkpointing", "probability"]),
       st.integers(min_value=4, max_value=6), st.sampled_from(["", " (fp16)", " -> less"]))
def test_a_word_clipped_with_a_full_stop_reads_as_the_questions_word(
        word: str, keep: int, after: str) -> None:
    words = frozenset({"precision", "accumulation", "checkpointing", "probability", "mixed",
                       "gradient", "with"})
    text = f"1. use {word[:keep]}.{after}"
    read = " ".join(s.norm for s in expand(split_sentences(text, 0), words))
    assert word in read, read


def test_a_clipped_word_that_begins_two_question_words_or_is_one_is_left_alone() -> None:
    words = frozenset({"precision", "precisely", "mixed", "trained", "training"})
    for text in ("mixed prec.", "we trained."):
        assert " ".join(s.norm for s in expand(split_sentences(text, 0), words)) == text


@given(st.sampled_from(["mixed prec. (fp16)", "mixed precision (bf16)"]),
       st.sampled_from(["grad. accum.", "gradient accum.", "grad. accumulation"]),
       st.sampled_from([" -> smaller batches in memory", ": fewer activations at once", ""]))
@settings(max_examples=10, deadline=None)
def test_clipped_technique_names_are_credited(resources: GradingResources, training: Rubric,
                                              mixed: str, accum: str, why: str) -> None:
    answer = f"1. {mixed} -> half the bytes\n2. {accum}{why}"
    result = _item(grade_text(training, "Q8", answer, resources), "q8.techniques")
    assert result.points == 2, result.feedback


@given(st.sampled_from(["zeroed", "dropped", "masked"]), st.sampled_from(["unit", "neuron"]))
@settings(max_examples=6, deadline=None)
def test_with_probability_written_wp(resources: GradingResources, training: Rubric,
                                     zeroed: str, unit: str) -> None:
    answer = (f"(a) In training each {unit} is {zeroed} w.p. p, the kept ones x 1/(1-p) so the "
              "mean stays the same.\n(b) In eval nothing is dropped or scaled.")
    assert _item(grade_text(training, "Q7", answer, resources), "q7.train").points == 2


@given(st.sampled_from(["sharded data parallel training", "mixed precision",
                        "gradient accumulation"]),
       st.sampled_from(["activation recomputation", "an optimiser keeping less state per weight",
                        "moving optimizer state to host RAM"]),
       st.booleans())
@settings(max_examples=12, deadline=None)
def test_an_alternative_in_other_words_beside_a_credited_one_is_not_a_confident_partial(
        resources: GradingResources, training: Rubric, known: str, other: str,
        first: bool) -> None:
    answer = f"{other}, and {known}" if first else f"{known}, and {other}"
    result = _item(grade_text(training, "Q8", answer, resources), "q8.techniques")
    assert result.points == 2 or result.status is Status.NEEDS_REVIEW, (answer, result.feedback)


@given(st.sampled_from(["Q1.b ", "(b) ", "b) ", "1-b "]),
       st.sampled_from(["The same as a stack.", "In the stack's order."]))
@settings(max_examples=8, deadline=None)
def test_an_answer_located_after_its_first_subparts_label(
        resources: GradingResources, queue: Rubric, b: str, wrong: str) -> None:
    # "Q1.a" was the label the answer was found after: the text before "Q1.b" is part (a), and
    # part (b) is not credited for what (a) says about a queue
    answer = f"Unlike a queue (first in, first out), the newest item leaves first.\n{b}{wrong}"
    results = grade_text(queue, "Q1", answer, resources)
    assert _item(results, "q1.stack").points == 1, answer
    assert _item(results, "q1.queue").points == 0, answer


def test_a_lone_marker_after_a_sentence_is_no_subpart() -> None:
    assert sub_answers("see eq. 2. done") == ()
    assert sub_answers("b) only") == ()


@given(st.sampled_from(["unit", "neuron", "activation"]),
       st.sampled_from(["dropped otherwise", "thrown away otherwise", "else removed"]),
       st.sampled_from(["the expected output is the same", "the mean is unchanged"]))
@settings(max_examples=10, deadline=None)
def test_a_sentence_nothing_credits_beside_a_partial_in_its_own_subpart(
        resources: GradingResources, training: Rubric, unit: str, dropped: str,
        same: str) -> None:
    answer = (f"(a) Each {unit} is kept with probability 1 - p and {dropped};\nkept ones are "
              f"scaled by 1/(1-p) so that {same}.\n(b) At test time nothing is dropped.")
    result = _item(grade_text(training, "Q7", answer, resources), "q7.train")
    assert result.points == 2 or result.status is Status.NEEDS_REVIEW, (answer, result.feedback)
