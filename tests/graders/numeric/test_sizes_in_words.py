"""A size written as a small numeral in words before its unit (trial 6's `8 × 16 × 2048 × 2048
entries of 2 bytes each, exactly one gibibyte.`; `two GB`, `one MiB`) states the value, as `1
GiB` does. Before, a lone small number word was always prose: the item read the working's
`2 bytes` (review, or 0 at 0.9 once the sub-part's marker `3.c` was read as its cue)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import Status
from tests.graders.numeric.graded import grade_question

_RUBRIC = """
slug: sizes
title: A size in words
questions:
  - id: Q3
    labels: ["Q3", "3"]
    answer_kind: numeric
    items:
      - {{id: q3.scores, points: 1, grader: numeric,
         config: {{expected: {expected}, rel_tolerance: 0.01, cues: ["(c)", scores]}}}}
"""

_SIZES = {"one gibibyte": 2**30, "two gibibytes": 2**31, "one GiB": 2**30, "four GB": 4 * 10**9,
          "two gigabytes": 2 * 10**9, "one MiB": 2**20, "eight bytes": 8}


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(sorted(_SIZES)),
       st.sampled_from(["**Problem 3.c** {w} entries of 2 bytes each, exactly {s}.",
                        "(c) the scores take {s}.", "(c) {w} values, {s} in all",
                        "(c) {s}"]))
def test_a_size_in_words_is_its_value(size: str, shape: str) -> None:
    text = shape.format(s=size, w="8 × 16 × 2048 × 2048")
    result = grade_question(_RUBRIC.format(expected=_SIZES[size]), text)["q3.scores"]
    assert (result.status, result.points) == (Status.GRADED, 1), (text, result)


def test_a_small_word_without_a_unit_is_still_prose() -> None:
    result = grade_question(_RUBRIC.format(expected=1), "(c) the scores need one more pass")
    assert result["q3.scores"].points == 0
