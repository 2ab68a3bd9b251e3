"""The operator's document limits and worker settings reach the grading processes typed
(`graders.options.GradingOptions`): what `Settings` says is what a grading process reads."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from app.settings import Settings
from graders.options import GradingOptions


@given(st.integers(1, 10_000), st.floats(0.1, 600), st.floats(0.1, 600), st.integers(0, 19),
       st.sampled_from(["rubrics", "elsewhere/rubrics"]))
def test_the_document_limits_reach_a_grading_process(
        answers: int, document: float, parse: float, nice: int, folder: str) -> None:
    settings = Settings(database_url="sqlite://", max_answers=answers, document_seconds=document,
                        parse_seconds=parse, worker_nice=nice, rubrics_dir=Path(folder))
    options = GradingOptions.from_mapping(settings.grading_options())
    assert options.max_answers == answers
    assert options.document_seconds == document and options.parse_seconds == parse
    assert options.worker_nice == nice
    assert options.rubrics_dir == Path(folder).resolve()


def test_a_process_told_nothing_has_no_limits() -> None:
    options = GradingOptions.from_mapping({})
    assert options.max_answers is None and options.document_seconds is None
    assert options.parse_seconds is None and options.rubrics_dir is None
    assert options.worker_nice == 0
