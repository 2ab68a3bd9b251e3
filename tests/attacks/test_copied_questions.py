"""Moving one's own grade up by copying the question: the prompt's own words hold what some
items' patterns look for ("Why is a stack of linear layers still linear?" for
a2.collapse, "... make the average more robust" for cs224n's 1e, "... no longer
permutation-equivariant" for its 2b.i). Uploaded as JSON answers through the API, the question
copied alone, or followed by "I do not know.", was `graded` full credit with no review; an honest
student who pastes the question above a wrong answer got the same credit. A careful TA gives the
question's own text nothing. Now a sentence of the answer that is the question's text (a run of
the prompt's words, or a question of only its words) is not read as the student's claim
(graders/written/echo.py); tests/graders/written/test_copied_questions.py generates the class.
Controls: the question copied above a right answer keeps its credit."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api

COPIES = {
    "a2 asked": ("transformer-basics", "A2", "a2.collapse",
                 "Why is a stack of linear layers still linear?"),
    "a2 whole prompt and no answer": (
        "transformer-basics", "A2", "a2.collapse",
        "Why is a stack of linear layers still linear? Why do gradients vanish in deep "
        "networks, and why does ReLU help compared with sigmoid? I do not know."),
    "1e": ("cs224n-attention", "1e", "1e",
           "Explain briefly why several heads make the average more robust."),
    "1e and a wrong answer": ("cs224n-attention", "1e", "1e",
                              "Explain briefly why several heads make the average more robust.\n"
                              "Because more heads means more parameters."),
    "2b.i": ("cs224n-attention", "2b.i", "2b.i",
             "Does adding position embeddings to the input let the layer tell word orders apart "
             "(so that it is no longer permutation-equivariant)? Why?"),
}


def _item(target: Api, who: str, slug: str, question: str, item: str,
          text: str) -> dict[str, object]:
    answer = target.client.post(f"/api/v1/assignments/{slug}/submissions?wait=true",
                                json={"answers": {question: text}}, headers=target.auth(who))
    assert answer.status_code == 201, answer.text
    body = target.client.get(f"/api/v1/submissions/{answer.json()['id']}",
                             headers=target.auth("prof")).json()
    return dict(next(i for i in body["items"] if i["id"] == item))


@pytest.mark.parametrize("name", sorted(COPIES))
def test_the_question_copied_earns_nothing(target: Api, name: str) -> None:
    item = _item(target, "alice", *COPIES[name])
    assert item["points"] == 0 or item["status"] == "needs_review", item


ANSWERED = {
    "a2": ("transformer-basics", "A2", "a2.collapse",
           "Why is a stack of linear layers still linear? Because W2(W1 x) = (W2 W1) x: a "
           "product of matrices is just one matrix, so the stack is a single linear map."),
    "1e": ("cs224n-attention", "1e", "1e",
           "Explain briefly why several heads make the average more robust.\nAveraging "
           "several heads reduces the variance of c."),
    "2b.i in the prompt's words": ("cs224n-attention", "2b.i", "2b.i",
                                   "Yes: it is no longer permutation-equivariant."),
}


@pytest.mark.parametrize("name", sorted(ANSWERED))
def test_the_question_copied_above_an_answer_keeps_its_credit(target: Api, name: str) -> None:
    item = _item(target, "bob", *ANSWERED[name])
    assert item["status"] == "graded" and item["points"] == item["max_points"], item
