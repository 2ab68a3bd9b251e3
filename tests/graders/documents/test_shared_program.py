"""Several code questions answered by one unlabelled program ("Here is my code for questions
1-4": one fenced block defining every asked class, in any order): each question whose own cue
(`class FeedForward`) the program names shares it, weakly located (a person confirms), never
`missing` at full confidence; a class the program does not define stays missing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.locate import locate
from graders.documents.review import CANDIDATE_CONFIDENCE
from graders.rubric import parse_rubric

CLASSES = ("Embedding", "FeedForward", "KVCache", "SinusoidalPositions")


def _rubric(count: int):  # type: ignore[no-untyped-def]
    questions = "\n".join(
        f"  - {{id: Q{i + 1}, labels: [\"Q{i + 1}\", \"Question {i + 1}\"], answer_kind: code, "
        f"cues: [\"class {name}\"], items: [{{id: q{i + 1}, points: 1, grader: written, "
        f"config: {{reference: [x]}}}}]}}"
        for i, name in enumerate(CLASSES[:count]))
    return parse_rubric(f"slug: shared\ntitle: Shared program\nquestions:\n{questions}\n"
                        "  - {id: Q9, labels: [\"Q9\", \"Question 9\"], answer_kind: prose, "
                        "items: [{id: q9, points: 1, grader: written, "
                        "config: {reference: [x]}}]}\n").rubric


def _class(name: str) -> str:
    return (f"class {name}:\n    def __init__(self, d):\n        self.d = d\n\n"
            f"    def forward(self, x):\n        return x * self.d\n")


INTRO = st.sampled_from(["Here is my code for questions 1-4 in one file:",
                         "All my code is below.", "My solutions:", ""])


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(st.just(n), st.permutations(range(n)))),
       INTRO, st.booleans())
def test_one_program_answers_every_code_question_it_names(
        drawn: tuple[int, list[int]], intro: str, numpy_first: bool) -> None:
    count, order = drawn
    body = "\n\n".join(_class(CLASSES[i]) for i in order)
    code = ("import numpy as np\n\n" if numpy_first else "") + body
    text = (f"Student name\n\n{intro}\n\n```python\n{code}```\n\nQuestion 9: the answer to the "
            "written question, in a few words of prose.\n")
    location = locate(text, _rubric(count))
    for i in range(count):
        qid = f"Q{i + 1}"
        assert qid not in location.missing, (qid, location.missing, text)
        answer = location.answers[qid]
        assert f"class {CLASSES[i]}" in answer.text, (qid, answer)
        assert answer.strength == "weak", answer  # no label names it: a person confirms
        if "the program answering" in answer.note:
            assert answer.confidence <= CANDIDATE_CONFIDENCE


def test_a_class_the_program_does_not_define_stays_missing() -> None:
    text = ("Here is my code:\n\n```python\nimport numpy as np\n\n" + _class("Embedding")
            + "\n" + _class("KVCache") + "```\n\nQuestion 9: prose answering the last one.\n")
    location = locate(text, _rubric(4))
    assert "Q2" in location.missing and "Q4" in location.missing, location.answers.keys()
    assert "Q3" not in location.missing
