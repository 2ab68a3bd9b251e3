"""What a regrade's fast path reads of a stored run: the submission, its current run's
totals and the keys the run was computed from (`graders.cache.runs`), never the upload; and a
re-scored run's new keys written as the stored text with only the changed keys replaced."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from app.db.models import GradingRun, Submission

_KEY_FIELDS = {"location", "answers", "groups"}  # a run's keys (graders.cache.runs.run_keys)


@dataclass(frozen=True, slots=True)
class StoredRun:
    """A submission and its current run, as the fast path reads them (never the upload)."""

    submission_id: int
    student: str | None
    status: str
    sha256: str
    filename: str | None
    content_type: str | None
    run_id: int
    keys: Mapping[str, Any] | None
    rubric_version_id: int
    total: Decimal  # the run's machine total and maximum
    max_points: Decimal
    keys_text: str | None = None  # `keys` as stored (JSON)
    handout: str | None = None  # the edition declared with the upload


def stored_runs(session: Session, ids: Sequence[int]) -> dict[int, StoredRun]:
    # Core, and the keys read as their JSON text: a re-scored run's new keys are that text
    # with the changed keys replaced (`keys_text`), never encoded again whole.
    rows = session.connection().execute(
        select(Submission.id, Submission.student, Submission.status, Submission.sha256,
               Submission.filename, Submission.content_type, GradingRun.id,
               cast(GradingRun.result_keys, Text), GradingRun.rubric_version_id,
               GradingRun.total, GradingRun.max_points, Submission.handout)
        .join(GradingRun, GradingRun.submission_id == Submission.id)
        .where(Submission.id.in_(list(ids)), GradingRun.is_current.is_(True))
    ).tuples().all()
    found: dict[int, StoredRun] = {}
    for (sid, student, status, sha, name, ctype, run_id, text, version, total, most,
         handout) in rows:
        keys = None if text is None else json.loads(text)
        found[sid] = StoredRun(sid, student, status, sha, name, ctype, run_id,
                               keys if isinstance(keys, dict) else None, version, total, most,
                               text, handout)
    return found


def keys_text(stored: StoredRun, groups: Mapping[str, Any],
              new_groups: Mapping[str, list[str]]) -> str:
    """The new keys as JSON text: the stored text with each changed key replaced when the
    groups are the same ones (the keys are digests, each found once), else encoded anew."""
    text = stored.keys_text
    keys = stored.keys
    if (text is not None and keys is not None and keys.keys() == _KEY_FIELDS
            and groups.keys() == new_groups.keys()):
        for name, (key, _) in new_groups.items():
            old = groups[name]
            if old[0] == key:
                continue
            if not (isinstance(old[0], str) and old[0] and text.count(f'"{old[0]}"') == 1
                    and old[1] == new_groups[name][1]):
                break
            text = text.replace(f'"{old[0]}"', _quoted(key), 1)
        else:
            return text
    return json.dumps({"location": keys.get("location") if keys else None,
                       "answers": keys.get("answers", 0) if keys else 0,
                       "groups": dict(new_groups)})


def _quoted(key: str) -> str:
    """`json.dumps(key)`: a key ("group:" and a hex digest) needs no escaping."""
    if key.isascii() and key.isprintable() and '"' not in key and "\\" not in key:
        return f'"{key}"'
    return json.dumps(key)
