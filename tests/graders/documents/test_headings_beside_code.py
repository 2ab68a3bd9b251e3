"""Markdown headings over answers written as `name = value` lines.

The class: a Markdown solution set whose headings carry the question labels ("## A1", "## B1")
and where some answers are one-line assignments ("d_head = 64", "Sum = 11.107"). A "#" line next
to code is normally a Python comment (code pasted without a fence), but when the document uses
labelled headings of that level away from code too, those lines are its headings.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.locate import locate
from graders.rubric import BUNDLED_RUBRICS, load_rubric

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
QUESTIONS = ["A1", "A2", "A3", "B1", "B2"]
PROSE = {
    "A1": "One perceptron draws a single line, and XOR is not linearly separable.",
    "A2": "Stacked linear maps stay linear; gradients shrink through saturating activations.",
    "A3": "Attention ignores order, so position is encoded, e.g. sinusoidal or rotary.",
    "B1": "The head size is 768 divided by 12, which is 64.",
    "B2": "The normaliser is e^2 + e + 1, about 11.107.",
}
ASSIGNMENT = {
    "A1": "hidden_units = 2",
    "A2": "relu_gradient = 1",
    "A3": "rope_dim = 64",
    "B1": "d_head = 768 / 12 = 64",
    "B2": "Sum = 11.107",
}


@settings(max_examples=120, deadline=None)
@given(
    st.sampled_from(["## {}", "### {}", "## {}.", "## **{}**"]),
    st.lists(st.booleans(), min_size=len(QUESTIONS), max_size=len(QUESTIONS)),
    st.booleans(),
)
def test_labelled_headings_over_assignments_are_headings(
    heading: str, as_code: list[bool], title: bool
) -> None:
    if all(as_code):
        as_code[0] = False  # one heading over prose: the document's headings are known
    parts = ["# Homework 1" if title else ""]
    for qid, code in zip(QUESTIONS, as_code, strict=True):
        parts.append(heading.format(qid) + "\n" + (ASSIGNMENT[qid] if code else PROSE[qid]))
    text = "\n\n".join(p for p in parts if p) + "\n"
    location = locate(text, RUBRIC)
    for qid, code in zip(QUESTIONS, as_code, strict=True):
        own = ASSIGNMENT[qid] if code else PROSE[qid]
        assert qid in location.answers, (qid, location.missing.get(qid), text)
        found = location.answers[qid].text
        assert own in found, (qid, found, text)
        others = [q for q in QUESTIONS if q != qid and
                  (ASSIGNMENT[q] in found or PROSE[q] in found)]
        assert not others, (qid, others, found)


def test_comments_in_unfenced_code_are_still_not_headings() -> None:
    text = ("## B3\nHere is my attention:\n\ndef attention(Q, K, V):\n"
            "    ## compute the scores\n    scores = Q @ K.T\n    return scores\n")
    location = locate(text, RUBRIC)
    assert "compute the scores" in location.answers["B3"].text
