from __future__ import annotations

from graders.written.features import content_words, question_stems
from graders.written.lexical import stem


def test_stems_ignore_stop_words_and_inflection() -> None:
    assert set(content_words("The heads are attending", set())) == set(
        content_words("head attends", set()))
    assert stem("simulates") == stem("simulate")


def test_question_words_are_demoted() -> None:
    question = question_stems("What is the role of a prototype program?")
    reference = content_words(
        "To simulate the behaviour of portions of the desired software product.", question)
    answer = content_words("It simulates portions of the prototype product.", question)
    assert stem("prototype") not in answer
    assert len(set(reference) & set(answer)) == 3 and len(reference) == 6
