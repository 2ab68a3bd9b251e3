"""The fast path's comparison of a recomputed result with the stored one is pydantic's
equality, and a comparison kept for two lists is the one made again."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.cache.plan import same_result
from graders.results import Evidence, ItemResult
from tests.graders.test_cache_shortcuts import results

changes = st.sampled_from([
    {}, {"points": "0.00"}, {"max_points": "9.99"}, {"feedback": "other"},
    {"student_feedback": None}, {"confidence": 0.5}, {"status": "graded"},
    {"evidence": ()}, {"evidence": (Evidence(kind="value", text="1"),)},
    {"grader_version": "2"}, {"item_id": "q.z"},
])


@settings(max_examples=300, deadline=None)
@given(given_results=results(), change=changes, which=st.integers(0, 2),
       rebuilt=st.booleans())
def test_same_result_is_pydantic_equality(given_results: list[ItemResult],
                                          change: dict[str, Any], which: int,
                                          rebuilt: bool) -> None:
    stored = given_results[which % len(given_results)]
    # Another object with the same fields (as read back from the cache), or the same one.
    other = ItemResult.model_validate({**stored.model_dump(), **change}) if rebuilt or change \
        else stored
    assert same_result(stored, other) == (stored == other)
    assert same_result(other, stored) == (other == stored)
    assert same_result(None, stored) is False


def test_a_result_of_a_subclass_is_compared_as_pydantic_compares_it() -> None:
    class Annotated(ItemResult):
        pass

    plain = ItemResult(item_id="a", question="Q", points=1, max_points=1, status="graded",
                       grader="numeric", grader_version="1")
    other = Annotated(**plain.model_dump())
    assert same_result(plain, other) == (plain == other)
