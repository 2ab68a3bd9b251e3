"""Re-scoring an item's undecided answers with its decisions as exemplars, through the same
path a regrade takes: the learned context (`app.calibration`: the decisions as the written
item's exemplars, its calibrated threshold) applied to the rubric, then `grade_submission` of
the answer as a one-question submission. Results are kept per process (the same answer under
the same decisions is graded once), keyed by digests, never by the text.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
from numpy.typing import NDArray

from graders.context import GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.rubric import LoadedRubric

REMEMBER = 50_000  # re-scored answers kept per process
_lock = threading.Lock()
_known: OrderedDict[bytes, tuple[Decimal, float]] = OrderedDict()
_resources: dict[str, GradingResources] = {}


@dataclass(frozen=True)
class Suggestion:
    points: Decimal
    confidence: float


def resources_for(options: Mapping[str, Any]) -> GradingResources:
    """One set of grading resources (the encoder above all) per process and options.

    The decisions taken here are the answers the machine chose to ask about, not a sample of
    the item's answers, so their mean offset from the reference model is left out
    (`written_exemplar_offset`: on Mohler 7-12 it moved the undecided answers the wrong way,
    docs/active-grading.md); each still counts as an exemplar for the answers close to it, as
    much as the reference model doubts that answer's own points (`written_exemplar_by_doubt`:
    the decided answers are atypical, and an answer the model is sure of is rarely helped by
    them; on Mohler 7-12, 93.2% to 94.2% of the answers within 1 point at 20 decisions per 100)."""
    options = {**options, "written_exemplar_offset": False, "written_exemplar_by_doubt": True}
    key = json.dumps(options, sort_keys=True, default=str)
    with _lock:
        if key not in _resources:
            _resources[key] = GradingResources(options=dict(options))
        return _resources[key]


def _question_part(loaded: LoadedRubric, question_id: str) -> LoadedRubric:
    question = next(q for q in loaded.rubric.questions if q.id == question_id)
    one = loaded.rubric.model_copy(update={"questions": [question]})
    return LoadedRubric(rubric=one, content_hash=loaded.content_hash, source=loaded.source)


def _digest(*parts: str) -> bytes:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.digest()


def rescore(loaded: LoadedRubric, question_id: str, item_id: str, texts: Sequence[str],
            resources: GradingResources) -> list[Suggestion]:
    """The item's points and confidence for each answer text under `loaded` (the rubric with
    the learned context applied)."""
    from graders.engine import grade_submission  # the scoring modules: only when re-scoring

    part = _question_part(loaded, question_id)
    item = next(i for q in part.rubric.questions for i in q.items if i.id == item_id)
    context = _digest(loaded.content_hash, item_id,
                      json.dumps(item.config, sort_keys=True, default=str))
    out: list[Suggestion] = []
    for text in texts:
        key = _digest(context.hex(), text)
        with _lock:
            kept = _known.get(key)
            if kept is not None:
                _known.move_to_end(key)
        if kept is None:
            answer = LocatedAnswer(question_id, text, start=0, end=len(text), method="label")
            submission = ParsedSubmission(text=text, format="text",
                                          answers={question_id: answer})
            result = next(r for r in grade_submission(part, submission, resources).items
                          if r.item_id == item_id)
            kept = (result.points, result.confidence)
            with _lock:
                _known[key] = kept
                if len(_known) > REMEMBER:
                    _known.popitem(last=False)
        out.append(Suggestion(*kept))
    return out


def similarity(loaded: LoadedRubric, question_id: str, texts: Sequence[str],
               resources: GradingResources) -> NDArray[np.float64] | None:
    """Cosines between the answers' whole-text vectors (the written grader's own encoder, as
    its options say); None when it is unavailable or switched off."""
    from graders.context import GradingContext
    from graders.written.grader import shared_embedder

    if not texts:
        return None
    part = _question_part(loaded, question_id)
    context = GradingContext(rubric=part.rubric, question=part.rubric.questions[0],
                             submission=ParsedSubmission(text="", format="text", answers={}),
                             resources=resources)
    embedder = shared_embedder(context)
    if embedder is None:
        return None
    vectors = embedder.embed([t[:4000] or " " for t in texts]).astype(np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms == 0, 1, norms)
    cosines: NDArray[np.float64] = vectors @ vectors.T
    return cosines
