"""A "shotgun" answer: the right value listed side by side with other values that could answer the
item (`32, 64, 128`, one value a line, `d_head = 1, 2, ..., 100`). The grader once credited each
in full with no review unless another value carried the item's own label; a careful TA credits
none outright. A value listed beside it that could not answer the item (another magnitude), the
working of a chain (`768 / 12 = 64`) and one value written twice keep the full credit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import Status
from tests.graders.numeric.test_hedged_values import _full, grade

LABELS = ("d_head", "params", "total", "the count")
SEPARATORS = (", ", "; ", "\n", "\n\n", " ;  ", ",\n")
FRAMES = ("{values}", "{label} = {values}", "{label}: {values}", "$ {values} $")

values = st.integers(20, 200_000)


@st.composite
def shotguns(draw: st.DrawFn) -> tuple[int, str]:
    v = draw(values)
    # other values of the same magnitude (a tenth to ten times), at least one
    others = draw(st.lists(st.integers(max(1, v // 9), v * 9).filter(lambda w: w != v),
                           min_size=1, max_size=6, unique=True))
    where = draw(st.integers(0, len(others)))
    listed = [*others[:where], v, *others[where:]]
    separator = draw(st.sampled_from(SEPARATORS))
    text = draw(st.sampled_from(FRAMES)).format(
        label=draw(st.sampled_from(LABELS)), values=separator.join(map(str, listed)))
    return v, text


@settings(max_examples=60, deadline=None)
@given(shotguns(), st.sampled_from(LABELS))
def test_the_right_value_listed_among_others_is_not_full_credit(
        shotgun: tuple[int, str], label: str) -> None:
    v, text = shotgun
    result = grade(text, v, label)
    assert not _full(result), (text, result)
    assert result.status is Status.NEEDS_REVIEW, (text, result)
    assert "Conflicting" in result.feedback, result.feedback


HONEST = ("{label} = {a} / {b} = {v}", "{label} = {v}, {v}", "{label} = {v}\n{v}",
          "{label} = {v} ({a}/{b})", "{v}, i.e. {a} / {b}", "{label} = {v}, {tiny}",
          "{tiny}, {huge}, {label} = {v}", "2-a {label} = {v}\n2-b {a}", "3(a) {v} 3(b) {a}",
          "1. {label} = {v}\n2. {a} in all")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 500), st.integers(2, 64), st.sampled_from(LABELS),
       st.sampled_from(HONEST))
def test_one_value_with_its_working_or_far_off_neighbours_is_full_credit(
        v: int, b: int, label: str, frame: str) -> None:
    text = frame.format(label=label, v=v * 20, a=v * 20 * b, b=b, tiny=1, huge=v * 20 * 1000)
    result = grade(text, v * 20, label)
    assert _full(result), (text, result)
