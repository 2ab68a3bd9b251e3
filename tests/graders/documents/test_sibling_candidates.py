"""A sub-part answered in an unlabelled paragraph under its sibling's label is never `missing`.

Students often write the answer to 1b.ii as a second, unlabelled paragraph or bullet under the
label of 1b.i ("(b) (1) ... - and for q: ..."). Nothing labels it, and its words may match no
cue, but the text is in the document: the sibling's block is its best candidate, graded at a low
location confidence so a human checks it. Questions some handout editions do not ask, and
reported values next to an explanation, keep their honest `missing`.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.locate import locate
from graders.documents.review import CANDIDATE_CONFIDENCE
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: siblings
title: Sibling parts
handouts: ["2021", "2022"]
questions:
  - {id: 1a, part: "1",
     items: [{id: 1a, points: 1, grader: written, config: {reference: [x]}}]}
  - {id: 1b.i, part: "1",
     items: [{id: 1b.i, points: 1, grader: written, config: {reference: [x]}}]}
  - {id: 1b.ii, part: "1",
     items: [{id: 1b.ii, points: 1, grader: written, config: {reference: [x]}}]}
  - {id: 1c, part: "1",
     items: [{id: 1c, points: 1, grader: written, config: {reference: [x]}}]}
  - id: 1d.i
    part: "1"
    answer_kind: numeric
    items: [{id: 1d.i, points: 0, grader: numeric, config: {expected: 1}}]
  - {id: 1d.ii, part: "1",
     items: [{id: 1d.ii, points: 1, grader: written, config: {reference: [x]}}]}
  - id: 1e.i
    part: "1"
    handouts: ["2022"]
    items: [{id: 1e.i, points: 1, grader: written, config: {reference: [x]}}]
  - {id: 1e.ii, part: "1",
     items: [{id: 1e.ii, points: 1, grader: written, config: {reference: [x]}}]}
""").rubric

SUB_LABEL = st.sampled_from(["(1)", "(i)", "i.", "i)", "**(i)**", "$(1)$", "1)", "1."])
PART_LABEL = st.sampled_from(["(b)", "b)", "**(b)**", "## (b)", "- $(b)$"])
SEPARATOR = st.sampled_from(["\n\n", "\n\n- ", "\n\n  - ", "\n\nAnd for the second part: "])
PROSE = st.lists(st.sampled_from(["the weights", "move toward", "both keys", "so it follows",
                                  "with equal scores", "as shown above", "in that case"]),
                 min_size=6, max_size=14).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(SUB_LABEL, PART_LABEL, SEPARATOR, PROSE, PROSE)
def test_an_unlabelled_sub_part_under_its_sibling_goes_to_review(
    sub: str, part: str, sep: str, first: str, second: str
) -> None:
    text = (f"(a) An answer to the first part, long enough to be one.\n\n{part}\n\n"
            f"{sub} {first}.{sep}{second}.\n\n(c) The answer to part c goes here in full.\n")
    location = locate(text, RUBRIC)
    assert "1b.ii" not in location.missing
    answer = location.answers["1b.ii"]
    assert answer.confidence <= CANDIDATE_CONFIDENCE
    assert answer.start is not None and second.split()[0] in text[answer.start:answer.end]


def test_a_value_is_not_looked_for_in_an_explanation_and_unasked_parts_stay_missing() -> None:
    text = ("(a) An answer to the first part, long enough to be one.\n\n"
            "(d) (ii) A long explanation of the second sub-part of d, in words only.\n\n"
            "(e) (ii) The second sub-part of e, answered at length in words.\n")
    location = locate(text, RUBRIC)
    assert "1d.i" in location.missing  # a reported value, next to prose only
    assert "1e.i" in location.missing  # not asked by every handout edition


NUMBERED = st.sampled_from(
    [("1)", "2)"), ("1.", "2."), ("(1)", "(2)"), ("i)", "ii)"), ("i.", "ii.")])
# one style for every part of a document, as students write them
PART_STYLE = st.sampled_from(["({})", "{})", "**({})**", "## ({})", "- $({})$"])


@settings(max_examples=150, deadline=None)
@given(NUMBERED, PART_STYLE, PROSE, PROSE)
def test_numbers_under_an_empty_letter_heading_are_its_sub_parts(
    labels: tuple[str, str], style: str, first: str, second: str
) -> None:
    """"(b)" on its own, then "1) ..." and "2) ...": the letter's sub-parts, not question 1."""
    one, two = labels
    a, b, c = (style.format(x) for x in "abc")
    text = (f"{a}\n\nAn answer to the first part, long enough to be one.\n\n{b}\n\n"
            f"{one} {first}.\n\n{two} {second}.\n\n{c}\n\nThe answer to part c goes here.\n")
    location = locate(text, RUBRIC)
    for qid, body in (("1b.i", first), ("1b.ii", second)):
        answer = location.answers[qid]
        assert answer.confidence >= 0.8, (qid, text)
        assert body in answer.text and "part c" not in answer.text, (qid, answer.text)
    assert first not in location.answers["1a"].text


EQUATION = st.sampled_from(["(1)", "(2)", "(3)"])


@settings(max_examples=100, deadline=None)
@given(EQUATION, PART_STYLE, PROSE)
def test_an_equation_number_opening_a_line_is_not_a_label(
    number: str, style: str, prose: str
) -> None:
    """"(1)" after an answer's own text numbers an equation; it neither opens a question nor
    takes the letter's text away."""
    a, b = (style.format(x) for x in "ab")
    text = (f"{a}\n\nThe weights are computed first, as shown below.\n\n{number} {prose}.\n\n"
            f"{b}\n\nThe answer to part b goes here.\n")
    location = locate(text, RUBRIC)
    assert prose in location.answers["1a"].text, text
    assert "1b.i" not in location.answers or prose not in location.answers["1b.i"].text
