"""Question labels as phrases and their pattern form: matched on words and numbers, whatever
the case, spacing, punctuation or markup; invalid patterns refused by the rubric validator."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.label_phrases import expand, is_phrase, starts_with, words
from graders.rubric import RubricError, parse_rubric


def _rubric(*labels: str) -> str:
    questions = "".join(f"""  - id: P{n}
    labels: {list(label)!r}
    items:
      - {{id: p{n}, points: 1, grader: written, config: {{reference: [x]}}}}
""" for n, label in enumerate(labels, start=1))
    return "slug: phrases\ntitle: Phrases\nquestions:\n" + questions


def test_short_labels_stay_with_the_label_grammar() -> None:
    assert not is_phrase("Q1") and not is_phrase("1b") and not is_phrase("2)")
    assert is_phrase("Question 2") and is_phrase("Problem Analysis") and is_phrase("(a|b) 1")


def test_pattern_forms() -> None:
    assert expand("(Exercise|Ex) 3.2") == [("exercise", "3", "2"), ("ex", "3", "2")]
    assert expand("[Inline] Question 1") == [("inline", "question", "1"), ("question", "1")]
    assert starts_with(words("**Learned embeddings** here"), ("learn*", "embeddings"))
    assert not starts_with(words("Question 10"), ("question", "1"))


@pytest.mark.parametrize("label", ["(Exercise|Ex 3.2", "Question [1", "a|b 2"])
def test_an_unreadable_pattern_is_refused_with_its_label(label: str) -> None:
    with pytest.raises(RubricError) as info:
        parse_rubric(_rubric((label,)))
    assert label in str(info.value)


SPELLINGS = [
    "## Inline Question {n}", "**Inline Question {n}:**", "### INLINE QUESTION {n}",
    "- inline question {n})", "**inline  question {n}.** ", "Inline-Question {n}:",
]


@given(st.lists(st.sampled_from(SPELLINGS), min_size=3, max_size=3))
def test_phrase_labels_match_whatever_the_markup(spellings: list[str]) -> None:
    rubric = parse_rubric(_rubric(*[(f"Inline Question {n}",) for n in (1, 2, 3)])).rubric
    doc = "\n\n".join(f"{s.format(n=n)}\n\nThe answer word{n}x holds."
                      for n, s in enumerate(spellings, start=1))
    parsed = read_submission(doc.encode(), "a.md", None, rubric)
    for n in (1, 2, 3):
        answer = parsed.answers[f"P{n}"]
        assert f"word{n}x" in answer.text and answer.strength == "strong", (n, answer, doc)


def test_exercise_and_problem_part_labels() -> None:
    rubric = parse_rubric(_rubric(("(Exercise|Ex) 3.1",), ("(Exercise|Ex) 3.2",),
                                  ("Problem 2(b)",))).rubric
    doc = ("Ex. 3.1\n\nThe first word1x.\n\n**Exercise 3.2**\n\nThe second word2x.\n\n"
           "PROBLEM 2 (b):\n\nThe third word3x.\n")
    parsed = read_submission(doc.encode(), "a.md", None, rubric)
    for n in (1, 2, 3):
        assert f"word{n}x" in parsed.answers[f"P{n}"].text
