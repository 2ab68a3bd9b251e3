"""What grading learned from an instructor's grades, as plain data for the grading processes.

The services compute it from the database (`service.py`); a grading process receives it as
JSON text next to the rubric text and applies it to the parsed rubric: the learned exemplars
join each written item's `config.exemplars`, and a calibrated threshold replaces the item's
review threshold. The graders stay pure: they only ever see a rubric.

An answer never serves as its own exemplar: a submission's own graded answers are left out when
it is graded, so its result stays a held-out measurement (what calibration relies on).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.registry import kind_of
from graders.results import ItemResult
from graders.rubric import LoadedRubric, Question, RubricItem

BELOW_THRESHOLD = "below the question's calibrated threshold"


class LearnedExemplar(BaseModel):
    model_config = ConfigDict(frozen=True)

    submission: int  # where the answer comes from (left out when that submission is graded)
    text: str
    points: Decimal


class LearnedItem(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str
    # None: too few instructor grades, the rubric's threshold stands.
    threshold: float | None = None
    exemplars: tuple[LearnedExemplar, ...] = ()
    # How the threshold was set (for the dashboard; grading needs only the two above).
    target: float | None = None
    calibrated_on: int = 0
    expected_error: float | None = None  # the bound at the threshold
    calibration_auto_share: float | None = None  # share of the graded ones auto-graded at it


class LearnedContext(BaseModel):
    """Per written item: the instructor-graded answers to compare with, and its threshold."""

    model_config = ConfigDict(frozen=True)

    rubric_hash: str = ""
    items: dict[str, LearnedItem] = Field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not any(i.exemplars or i.threshold is not None for i in self.items.values())


_parsed: dict[str, LearnedContext] = {}
_KEPT = 64


def parse_context(text: str) -> LearnedContext:
    """The context from its JSON text (kept per process: every job of a batch shares one)."""
    key = hashlib.sha256(text.encode()).hexdigest()
    found = _parsed.get(key)
    if found is None:
        if len(_parsed) >= _KEPT:
            _parsed.clear()
        found = _parsed[key] = LearnedContext.model_validate_json(text)
    return found


def _exemplars_for(item: LearnedItem, exclude: int | None) -> list[LearnedExemplar]:
    return [e for e in item.exemplars if e.submission != exclude]


def apply_context(loaded: LoadedRubric, context: LearnedContext,
                  exclude: int | None = None) -> LoadedRubric:
    """`loaded` with the learned exemplars (but those of submission `exclude`) and thresholds
    in its written items' configs. The content hash stays: the rubric is the same."""
    if context.empty or context.rubric_hash != loaded.content_hash:
        return loaded  # learned under another rubric: its items may not be these
    questions: list[Question] = []
    for question in loaded.rubric.questions:
        items: list[RubricItem] = []
        for item in question.items:
            learned = context.items.get(item.id)
            if learned is None or not kind_of(item.grader).learns_from_overrides:
                items.append(item)
                continue
            config: dict[str, Any] = dict(item.config)
            shown = [{"text": e.text, "points": min(e.points, item.points)}
                     for e in _exemplars_for(learned, exclude)]
            config["exemplars"] = [*config.get("exemplars", ()), *shown]
            if learned.threshold is not None:
                config["review_threshold"] = learned.threshold
            items.append(item.model_copy(update={"config": config}))
        questions.append(question.model_copy(update={"items": items}))
    rubric = loaded.rubric.model_copy(update={"questions": questions})
    return LoadedRubric(rubric=rubric, content_hash=loaded.content_hash, source=loaded.source)


def annotate(results: Sequence[ItemResult], loaded: LoadedRubric, context: LearnedContext,
             exclude: int | None, answers: Mapping[str, str],
             resources: GradingResources) -> tuple[ItemResult, ...]:
    """Staff feedback says what was learned: how many instructor-graded answers the item was
    compared with and the nearest one's grade; and, when the item went to review under a
    calibrated threshold, that this is why. Students never see any of it."""
    out: list[ItemResult] = []
    for result in results:
        learned = context.items.get(result.item_id)
        text = answers.get(result.question, "")
        if learned is None or context.rubric_hash != loaded.content_hash:
            out.append(result)
            continue
        notes: list[str] = []
        exemplars = _exemplars_for(learned, exclude)
        if exemplars and text.strip():
            notes.append(_exemplar_note(exemplars, result, loaded, text, resources))
        if learned.threshold is not None:
            if result.status.value == "needs_review" and result.confidence < learned.threshold:
                notes.append(f"Reason for review: confidence {result.confidence:.2f} is "
                             f"{BELOW_THRESHOLD} ({learned.threshold:.2f}, set from the "
                             "instructor's grades).")
            elif result.status.value == "graded":
                notes.append(f"Auto-graded: confidence {result.confidence:.2f} is at or above "
                             f"the question's calibrated threshold ({learned.threshold:.2f}).")
        if notes:
            feedback = " ".join([result.feedback, *notes]).strip()
            result = result.model_copy(update={"feedback": feedback})
        out.append(result)
    return tuple(out)


def _exemplar_note(exemplars: list[LearnedExemplar], result: ItemResult, loaded: LoadedRubric,
                   text: str, resources: GradingResources) -> str:
    # The written grader, its embedder and NumPy are imported by whoever uses them, not by
    # every importer of this module (a points-only regrade: issue #16). The grading processes'
    # fork server preloads them (app.grading.retry).
    from graders.written import shared_embedder
    from graders.written.config import Exemplar
    from graders.written.exemplars import nearest_exemplar

    count = len(exemplars)
    head = (f"Exemplars: compared with {count} instructor-graded answer"
            f"{'s' if count != 1 else ''} of this question")
    question = loaded.rubric.question_of(result.item_id)
    answer = LocatedAnswer(question.id, text, start=0, end=len(text), method="label")
    context = GradingContext(
        rubric=loaded.rubric, question=question,
        submission=ParsedSubmission(text=text, format="text", answers={question.id: answer}),
        resources=resources)
    embedder = shared_embedder(context)
    nearest = None if embedder is None else nearest_exemplar(
        embedder, text, [Exemplar(text=e.text, points=e.points) for e in exemplars])
    if nearest is None:
        return f"{head} (similarity unavailable: no nearest one)."
    index, score = nearest
    points = min(exemplars[index].points, result.max_points)
    return (f"{head}; the nearest (cosine {score:.2f}) was graded "
            f"{_points(points)} of {_points(result.max_points)}.")


def _points(value: Decimal) -> str:
    return format(value.normalize(), "f")
