"""A value the answer denies (`the answer is not 64`, `d_head ≠ 64`, `d_head != 64`, `d_head
isn't 64`, `$d_{head} \\neq 64$`) goes to a reader, who decides what the student meant; the
reader's suggestion was still full points ("Correct: 64."), the credit for the value the student
says is not the answer. The suggestion is now none of the item's points, and says why."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import Status
from tests.graders.numeric.test_hedged_values import LABELS, grade

DENIED = ("{label} ≠ {v}", "{label} != {v}", "{label} isn't {v}", "the {label} is not {v}",
          "$ {label} \\neq {v} $", "the answer is not {v}", "{label} is not equal to {v}",
          "{label} =/= {v}", "{label}: never {v}")


@settings(max_examples=120, deadline=None)
@given(st.integers(2, 200_000), st.sampled_from(LABELS), st.sampled_from(DENIED))
def test_the_suggestion_for_a_denied_value_is_no_credit(v: int, label: str, frame: str) -> None:
    text = frame.format(label=label, v=v)
    result = grade(text, v, label)
    assert result.status is Status.NEEDS_REVIEW, (text, result)
    assert result.points == 0, (text, result.points, result.feedback)
    assert "negates" in result.feedback and not result.feedback.startswith("Correct"), \
        result.feedback


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 200_000), st.integers(1, 40), st.sampled_from(LABELS))
def test_a_value_affirmed_after_a_denied_one_keeps_its_credit(v: int, d: int, label: str
                                                              ) -> None:
    text = f"{label} is not {v + d} but {v}"
    result = grade(text, v, label)
    assert result.status is Status.GRADED and result.points == result.max_points, (text, result)
