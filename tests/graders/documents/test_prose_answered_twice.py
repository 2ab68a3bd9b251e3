"""Two explanations under one prose question's label: `## Q2` with one answer, `## Q2` again (right
after, or after the last question) with another in other words. The locator joined them (or
kept the first) as a strong answer, and the written grader credited whatever either said,
without review. Now the answer is weak ("Q2 is answered twice in words ..."): a TA decides which
one the student stands by, or whether both count. The same explanation written twice, a
heading marked `(continued)`, or a short note ("See above.") stays strong."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric

N = 3
RUBRIC = parse_rubric("slug: prose\ntitle: Prose\nquestions:\n" + "".join(
    f"""  - id: Q{n}
    labels: ["Q{n}", "Question {n}", "{n}"]
    answer_kind: prose
    items:
      - id: q{n}.why
        points: 2
        grader: written
        config: {{elements: [{{id: e, patterns: [softmax]}}]}}
""" for n in range(1, N + 1))).rubric
HEADINGS = ["## Q{n}", "### Question {n}", "**Q{n}.**", "Question {n}:"]
EXPLANATIONS = [
    "Scaling keeps the dot products from growing with the key dimension, so the softmax "
    "does not saturate and gradients stay useful during training.",
    "Without masking, each position could attend to future tokens and the decoder would "
    "cheat by copying the next word it is asked to predict.",
    "Multiple heads let the model look at different relation types in parallel, such as "
    "syntax in one head and coreference in another head.",
    "Residual connections give gradients a direct path through deep stacks, which makes "
    "optimisation stable even with many layers.",
]


def _document(heading: str, bodies: dict[int, list[str]], tail: list[tuple[str, str]]) -> str:
    lines = ["# Homework", ""]
    for n in range(1, N + 1):
        for body in bodies[n]:
            lines += [heading.format(n=n), body, ""]
    for head, body in tail:
        lines += [head, body, ""]
    return "\n".join(lines)


def _strength(text: str, qid: str) -> tuple[str, str]:
    parsed = read_submission(text.encode(), "hw.md", None, RUBRIC)
    answer = parsed.answers[qid]
    return answer.strength, answer.weak_reason


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HEADINGS), st.integers(1, N), st.permutations(range(len(EXPLANATIONS))),
       st.booleans())
def test_two_explanations_under_one_label_go_to_review(
        heading: str, k: int, order: list[int], at_the_end: bool) -> None:
    bodies = {n: [EXPLANATIONS[order[n - 1]]] for n in range(1, N + 1)}
    other = EXPLANATIONS[order[N]]
    tail: list[tuple[str, str]] = []
    if at_the_end and k < N:
        tail = [(heading.format(n=k), other)]
    else:
        bodies[k].append(other)
    text = _document(heading, bodies, tail)
    strength, why = _strength(text, f"Q{k}")
    assert strength == "weak" and "answered twice" in why, (text, why)
    for n in range(1, N + 1):
        if n != k:
            assert _strength(text, f"Q{n}")[0] == "strong", (text, n)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(HEADINGS), st.integers(1, N), st.permutations(range(len(EXPLANATIONS))),
       st.sampled_from(["same", "continued", "note"]))
def test_one_explanation_under_a_repeated_label_stays_strong(
        heading: str, k: int, order: list[int], how: str) -> None:
    bodies = {n: [EXPLANATIONS[order[n - 1]]] for n in range(1, N + 1)}
    if how == "same":
        bodies[k].append(bodies[k][0])
    elif how == "note":
        bodies[k].append("See above.")
    text = _document(heading, bodies, [])
    if how == "continued":
        first = text.index(heading.format(n=k)) + len(heading.format(n=k))
        line_end = text.index("\n", first + 1)
        text = (text[:line_end] + "\n" + EXPLANATIONS[order[N]] + "\n\n" + heading.format(n=k)
                + " (continued)\n" + bodies[k][0] + text[line_end:])
    assert _strength(text, f"Q{k}")[0] == "strong", text
