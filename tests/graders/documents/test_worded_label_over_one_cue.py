"""A block labelled in words (`**Q8.**`, `Question 7`) and answered out of order, whose text
says one cue word of another question (the sixth trial homework: "recomputes activations"
under Q8, "each activation is dropped" under Q7's (a), while Q3's items are cued by
`activations`). Before, one such word was enough to keep the block where it was written, so
an answer to the last question written first was 'missing' at confidence 1, and a sub-part
went with the answer before it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: one-cue-against-a-label
title: One cue against a label
questions:
  - id: Q1
    labels: ["Q1", "Question 1", "1"]
    answer_kind: numeric
    items:
      - id: q1.total
        points: 1
        grader: numeric
        config: {expected: 16, cues: [activations, bytes]}
  - id: Q2
    labels: ["Q2", "Question 2", "2"]
    answer_kind: code
    cues: ["def clip", max_norm]
    items:
      - {id: q2, points: 1, grader: written, config: {reference: [Clip by the norm.]}}
  - id: Q3
    labels: ["Q3", "Question 3", "3"]
    answer_kind: prose
    items:
      - id: q3.a
        points: 1
        grader: written
        config: {subpart: a, reference: [Units are dropped at random.]}
      - id: q3.b
        points: 1
        grader: written
        config: {subpart: b, reference: [Dropout is off at evaluation.]}
  - id: Q4
    labels: ["Q4", "Question 4", "4"]
    answer_kind: prose
    items:
      - {id: q4, points: 1, grader: written, config: {reference: [Checkpointing saves memory.]}}
""").rubric

BODIES = {
    "Q1": ["2 + 2 + 4 + 4 + 4 = 16 bytes per parameter", "16 bytes each, 20.8 GB in all"],
    "Q2": ["```python\ndef clip(g, max_norm=1.0):\n    return g\n```",
           "```python\ndef clip(grads, max_norm=1.0):\n    return grads * 1.0\n```"],
    "Q3": ["(a) each activation is zeroed with probability p\n(b) at test time it is off",
           "(a) units are dropped at random, activations scaled by 1/(1-p)\n\n(b) nothing is "
           "dropped at evaluation"],
    "Q4": ["Gradient checkpointing recomputes the activations in the backward pass.",
           "Checkpointing: keep few activations and recompute the rest; offloading to CPU."],
}
WORDED = st.sampled_from(["**Q{}.**", "Question {}", "### Q{}", "Q{}."])


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.permutations(["Q1", "Q2", "Q3", "Q4"]), WORDED, st.integers(0, 1))
def test_a_label_in_words_outweighs_one_cue_of_another_question(
        order: list[str], label: str, pick: int) -> None:
    parts = [f"{label.format(q[1])}\n{BODIES[q][pick]}" for q in order]
    text = "Homework 6, in the order I did them\n\n" + "\n\n".join(parts) + "\n"
    parsed = read_submission(text.encode(), "s.md", None, RUBRIC)
    assert not parsed.missing, (text, parsed.missing)
    for qid in order:
        body = BODIES[qid][pick]
        got = parsed.answers[qid].text.strip()
        assert got.startswith(body.split("\n")[0][:12].strip("`")) or body[:12] in got, (
            text, qid, got)
        if qid == "Q3":
            assert "(a)" in got and "(b)" in got, (text, got)
