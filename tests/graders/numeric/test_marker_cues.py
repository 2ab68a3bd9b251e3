"""A sub-part's marker as a numeric item's cue matches the marker as students write it (trial 8's
`a) 0.54 GB`, trial 9's `a) s = 0.508/127 = 4e-3 b) q = 31 c) half a step = 2e-3`): the rubric
writes `(a)` as docs/rubrics.md says, the student `a)`, `a.`, `a:`, `**a)**`, `(a`, `3(a)`,
`3.a`, `Q3.a`, `3a)`. Before, the cue `(a)` matched only `(a)`: with every value carrying its
own marker and the others' avoid cues, `q5.scale` took (c)'s 2e-3 and `q5.error` (a)'s 4e-3,
both confidently wrong: `half a step` names (a)'s cue `step`, and only the markers tell the parts
apart."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import Status
from tests.graders.numeric.graded import grade_question

RUBRIC = """
slug: marked
title: Sub-parts marked by the student
questions:
  - id: Q5
    labels: ["Q5", "5"]
    answer_kind: numeric
    items:
      - id: q5.scale
        points: 1
        grader: numeric
        config: {expected: 0.004, rel_tolerance: 0.001, cues: ["(a)", scale, step],
                 avoid_cues: ["(b)", "(c)", code, error]}
      - id: q5.code
        points: 1
        grader: numeric
        config: {expected: 31, kind: integer, cues: ["(b)", code],
                 avoid_cues: ["(a)", "(c)", error, scale]}
      - id: q5.error
        points: 1
        grader: numeric
        config: {expected: 0.002, rel_tolerance: 0.001, cues: ["(c)", error, largest, max],
                 avoid_cues: ["(a)", "(b)", code]}
"""

_FORMS = ("{})", "{}.", "{}:", "**{})**", "**{}.**", "5({})", "5.{}", "Q5.{}", "5{})", "({}")
_VALUES = {"a": ("s = 0.508/127 = 4e-3", "0.004", "0.508 / 127 = 0.004"),
           "b": ("q = 31", "31", "code = 31"),
           "c": ("half a step = 2e-3", "0.002", "s/2 = 0.002")}


@st.composite
def _answers(draw: st.DrawFn) -> str:
    form = draw(st.sampled_from(_FORMS))
    join = draw(st.sampled_from([" ", "\n", "   ", "; "]))
    parts = [f"{form.format(p)} {draw(st.sampled_from(_VALUES[p]))}" for p in "abc"]
    return join.join(parts)


@settings(max_examples=80, deadline=None, database=None, derandomize=True)
@given(_answers())
def test_each_item_reads_the_value_its_marker_names(text: str) -> None:
    results = grade_question(RUBRIC, text)
    for item in ("q5.scale", "q5.code", "q5.error"):
        assert (results[item].status, results[item].points) == (Status.GRADED, 1), (text,
                                                                                   results[item])


def test_a_letter_in_a_word_is_no_marker() -> None:
    # "(sigma)" ends in `a)`, "pizza." in `a.`: a marker stands alone
    results = grade_question(RUBRIC, "error = 0.002 (sigma) and the scale 0.004, code 31")
    assert results["q5.error"].points == 1 and results["q5.scale"].points == 1
