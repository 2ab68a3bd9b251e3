"""Correct answers in the student's own words are never a confident 0.

A paraphrase set of our own writing for the class the issue reports: transformer-basics A4's
diagonal item (a token's query scored against its own key, so the diagonal tends to be large),
written the ways students write it: symbols (q_i · k_i, q_i^T k_i), "itself"/"its own",
reasons first or last, and in a longer answer that also covers the other A4 items.
"""

from __future__ import annotations

import pytest

from graders.results import Status
from tests.graders.written.conftest import Grade

PARAPHRASES = [
    "The diagonal entries are q_i · k_i, a token compared with its own key, so tokens attend "
    "strongly to themselves.",
    "Diagonal: q_i · k_i, a token compared with its own key … so tokens attend strongly to "
    "themselves.",
    "On the diagonal each position is scored against itself (q_i^T k_i). Query and key are "
    "projections of the same vector, so this score is usually the largest in its row.",
    "Entry (i, i) compares word i's query with word i's key. Since both come from the same "
    "embedding the dot product tends to be big, and every word puts a lot of attention on "
    "itself.",
    "The diagonal holds the self-similarity of each token: its query dotted with its own key. "
    "These values are typically high, which is why the attention map has a bright diagonal.",
    "Each token's query is matched against its own key on the diagonal; because they are "
    "computed from one input vector they agree, so a token mostly attends to itself.",
]

LONGER = ("Queries say what a token looks for, keys what it offers and values what it passes "
          "on. We divide by sqrt(d_k) because the dot product's variance grows with d_k and "
          "large logits saturate the softmax. ")


@pytest.mark.parametrize("text", PARAPHRASES)
@pytest.mark.parametrize("prefix", ["", LONGER])
def test_a_correct_paraphrase_is_not_a_confident_zero(grade: Grade, text: str,
                                                      prefix: str) -> None:
    result = next(r for r in grade("A4", prefix + text) if r.item_id == "a4.diagonal")
    assert not (result.points == 0 and result.status is Status.GRADED), result.feedback
