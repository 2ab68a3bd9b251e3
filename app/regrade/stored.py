"""What a regrade's fast path reads of a stored run: the submission, its current run's
totals and the keys the run was computed from (`graders.cache.runs`), never the upload; and a
re-scored run's new keys written as the stored text with only the changed keys replaced."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from app.db.models import GradingRun, Submission


class GroupKey(NamedTuple):
    """A group's key in a stored run, and the digest of the located answer it was made from
    (for an unanswered question: the reason it was not answered)."""

    key: str
    basis: str


@dataclass(frozen=True, slots=True)
class StoredKeys:
    """The keys a run was computed from (`graders.cache.runs.run_keys`), read once, typed."""

    location: str
    answers: int  # located answers
    groups: Mapping[str, GroupKey]


def parse_keys(value: Any) -> StoredKeys | None:
    """A stored run's keys; None when they are missing or not in the stored form."""
    if not isinstance(value, dict):
        return None
    location, answers, groups = value.get("location"), value.get("answers", 0), value.get("groups")
    if not (isinstance(location, str) and isinstance(answers, int)
            and isinstance(groups, dict)):
        return None
    parsed: dict[str, GroupKey] = {}
    for name, entry in groups.items():
        if not (isinstance(entry, list) and len(entry) == 2
                and isinstance(entry[0], str) and isinstance(entry[1], str)):
            return None
        parsed[name] = GroupKey(*entry)
    return StoredKeys(location, answers, parsed)


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
    keys: StoredKeys | None
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
        keys = None if text is None else parse_keys(json.loads(text))
        found[sid] = StoredRun(sid, student, status, sha, name, ctype, run_id, keys, version,
                               total, most, text, handout)
    return found


def keys_text(stored: StoredRun, new_groups: Mapping[str, GroupKey]) -> str:
    """The new keys as JSON text: the stored text with each changed key replaced when the
    groups are the same ones (the keys are digests, each found once), else encoded anew."""
    text, keys = stored.keys_text, stored.keys
    if text is not None and keys is not None and keys.groups.keys() == new_groups.keys():
        for name, new in new_groups.items():
            old = keys.groups[name]
            if old.key == new.key:
                continue
            if not (old.key and text.count(f'"{old.key}"') == 1 and old.basis == new.basis):
                break
            text = text.replace(f'"{old.key}"', _quoted(new.key), 1)
        else:
            return text
    return json.dumps({"location": keys.location if keys else None,
                       "answers": keys.answers if keys else 0,
                       "groups": {name: list(entry) for name, entry in new_groups.items()}})


def _quoted(key: str) -> str:
    """`json.dumps(key)`: a key ("group:" and a hex digest) needs no escaping."""
    if key.isascii() and key.isprintable() and '"' not in key and "\\" not in key:
        return f'"{key}"'
    return json.dumps(key)
