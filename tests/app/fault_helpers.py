"""Grading functions with faults built in, for the fault-injection tests: module level, so a
process pool can pickle them by name."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from app.grading.worker import WorkerOutcome, grade_document
from graders.context import GradingResources

POISON = b"KILL-MY-WORKER"
SLOW = b"GRADE-SLOWLY"


def grade_with_faults(
    rubric_text: str,
    raw: bytes,
    filename: str | None,
    content_type: str | None,
    resources: GradingResources | None = None,
    context: str | None = None,
    submission_id: int | None = None,
    handout: str | None = None,
) -> WorkerOutcome:
    """grade_document, except that a POISON document kills its grading process every time and
    a SLOW one takes a second first (time to kill or stop the process meanwhile)."""
    if POISON in raw:
        os.kill(os.getpid(), signal.SIGKILL)
    if SLOW in raw:
        time.sleep(1.0)
    else:
        time.sleep(0.05)
    return grade_document(rubric_text, raw, filename, content_type, resources, context,
                          submission_id, handout)


def grade_many_with_faults(
    rubric_text: str,
    documents: list[tuple[bytes, str | None, str | None, str | None]],
    context: str | None = None,
    submission_ids: list[int] | None = None,
) -> list[WorkerOutcome]:
    """grade_many (the regrade's call) with the faults of grade_with_faults."""
    ids: list[int | None] = list(submission_ids) if submission_ids else [None] * len(documents)
    return [
        grade_with_faults(rubric_text, raw, name, ctype, None, context, sid, handout)
        for (raw, name, ctype, handout), sid in zip(documents, ids, strict=True)
    ]


def grade_steadily(*args: Any, **kwargs: Any) -> WorkerOutcome:
    """grade_document after a fixed 0.2 s: every job costs the same, so order is measurable."""
    time.sleep(0.2)
    return grade_document(*args, **kwargs)
