"""A JSON upload that answers one question or item under two keys (`{"B1.d_head": 64,
"d_head": 12}`: an LMS that sends the item's id and its short name, a student who corrects an
answer by adding a key) gives two answers to one item. Which the student meant is for a person
to say: the first key's value is graded as the suggestion and the question goes to review with
both keys named. The same value under two keys is one answer."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.engine import grade_submission
from graders.results import Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric

LOADED = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
RUBRIC = LOADED.rubric
ITEM = "b1.d_head"  # numeric, 64 is right


@st.composite
def spellings(draw: st.DrawFn) -> str:
    """One of the keys an item is reached by: its id, or its id behind its question's, any
    case, any spaces around."""
    base = draw(st.sampled_from(["b1.d_head", "b1.b1.d_head"]))
    flips = draw(st.lists(st.booleans(), min_size=len(base), max_size=len(base)))
    pad = draw(st.sampled_from(["", " "]))
    return pad + "".join(c.upper() if f else c.lower()
                         for c, f in zip(base, flips, strict=True)) + pad


@st.composite
def two_keys(draw: st.DrawFn) -> tuple[str, str]:
    first = draw(spellings())
    return first, draw(spellings().filter(lambda k: k != first))


@settings(max_examples=25, deadline=None)
@given(keys=two_keys(), first=st.sampled_from(["64", "12", "128"]),
       second=st.sampled_from(["64", "12", "32"]))
def test_two_keys_for_one_item(keys: tuple[str, str], first: str, second: str) -> None:
    raw = json.dumps({"answers": {keys[0]: first, keys[1]: second, "B2": "11.107"}}).encode()
    parsed = read_submission(raw, "s.json", None, RUBRIC)
    b1 = parsed.answers["B1"]
    assert b1.parts[ITEM] == first  # the first key's value, never replaced by the second
    outcome = grade_submission(LOADED, parsed)
    result = next(r for r in outcome.items if r.item_id == ITEM)
    if first == second:
        assert b1.strength == "strong"
        assert result.status is Status.GRADED
        assert result.points == (result.max_points if first == "64" else 0)
    else:
        assert b1.strength == "weak" and ITEM in b1.weak_reason
        assert keys[0][:40] in b1.weak_reason and keys[1][:40] in b1.weak_reason
        assert result.status is Status.NEEDS_REVIEW
        assert "two JSON keys" in result.feedback
        # the suggestion is the first value's grade
        assert result.points == (result.max_points if first == "64" else 0)
    # another question's answer is untouched
    assert parsed.answers["B2"].strength == "strong"


def test_a_question_key_twice_with_different_answers_goes_to_review() -> None:
    raw = json.dumps({"answers": {"A1": "XOR is not linearly separable.",
                                  "a1": "XOR is linearly separable."}}).encode()
    parsed = read_submission(raw, "s.json", None, RUBRIC)
    assert parsed.answers["A1"].text == "XOR is not linearly separable."
    assert parsed.answers["A1"].strength == "weak"
    assert "'A1', graded, and 'a1'" in parsed.answers["A1"].weak_reason


def test_a_long_key_is_cut_in_the_reason() -> None:
    long = "B1." + "x" * 5000
    raw = json.dumps({"answers": {"b1.d_head": "64", "B1.D_HEAD": "12", long: "1"}}).encode()
    parsed = read_submission(raw, "s.json", None, RUBRIC)
    assert len(parsed.answers["B1"].weak_reason) < 200
