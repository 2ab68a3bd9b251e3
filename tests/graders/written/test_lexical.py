from __future__ import annotations

import pytest

from graders.written.lexical import content_stems, recall


def test_stems_ignore_stop_words_and_inflection() -> None:
    assert content_stems("The heads are attending") == content_stems("head attends")


def test_recall_leaves_out_the_question_words() -> None:
    question = content_stems("What is the role of a prototype program?")
    reference = "To simulate the behaviour of portions of the desired software product."
    assert recall(reference, "It simulates portions of the product.", question) == pytest.approx(
        3 / 6)
    assert recall("the a of", "anything") is None
