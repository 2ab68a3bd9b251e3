"""What a regrade reads of a stored run (never the upload) and its plan for it.

A stored run recorded its location key and its groups' keys (`graders.cache.runs`). Per old
rubric version (`plan_version`): whether its runs line up with the new rubric (the same items in
the same order), its groups as it stated them (what its stored results are read back with), and
the groups whose new key only the grading processes compute (`rerun`: a changed code or written
group). Per run (`plan_run`): re-scored in place (app.regrade.fast), or sent to the grading
processes untried. The plan is pure: no database, no cache, no grading.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any, NamedTuple

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from app.db.models import GradingRun, Submission
from graders.cache.runs import GroupSpec, RunKeys
from graders.context import GradingResources
from graders.registry import kind_of
from graders.results import ItemResult
from graders.rubric import LoadedRubric


class GroupKey(NamedTuple):
    """A group's key, and the digest of the located answer it was made from (for an unanswered
    question: the reason it was not answered)."""

    key: str
    basis: str


@dataclass(frozen=True, slots=True)
class StoredKeys:
    location: str
    answers: int  # located answers
    groups: Mapping[str, GroupKey]


def parse_keys(value: Any) -> StoredKeys | None:
    """None when the keys are missing or not in the stored form."""
    if not isinstance(value, dict):
        return None
    location, answers, groups = value.get("location"), value.get("answers", 0), value.get("groups")
    if not (isinstance(location, str) and isinstance(answers, int) and isinstance(groups, dict)):
        return None
    if not all(isinstance(entry, list) and len(entry) == 2
               and all(isinstance(e, str) for e in entry) for entry in groups.values()):
        return None
    return StoredKeys(location, answers, {name: GroupKey(*entry) for name, entry in groups.items()})


@dataclass(frozen=True, slots=True)
class StoredRun:
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
    # The keys are read as their JSON text: a re-scored run's new keys are that text with the
    # changed keys replaced (`keys_text`), never encoded again whole.
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
            text = text.replace(f'"{old.key}"', json.dumps(new.key), 1)
        else:
            return text
    return json.dumps({"location": keys.location if keys else None,
                       "answers": keys.answers if keys else 0,
                       "groups": {name: list(entry) for name, entry in new_groups.items()}})


def same_result(stored: ItemResult | None, result: ItemResult) -> bool:
    return stored is not None and (stored is result or stored == result)


def in_place(kind: str) -> bool:
    """The kind is re-scored in this process on a cache miss (its `rescores_in_place`)."""
    return kind_of(kind).rescores_in_place


class Step(StrEnum):
    IN_PLACE = "in_place"  # stored rows kept where the keys did not change, the rest re-scored
    RERUN = "rerun"  # the grading processes grade the upload again


@dataclass(frozen=True)
class VersionPlan:
    keys: RunKeys  # the old rubric's keys (the new rubric's own when it did not change)
    stated: Mapping[str, GroupSpec]  # the old rubric's groups, by name
    rerun: frozenset[str]  # groups whose new key only the grading processes compute


def groups_by_name(keys: RunKeys) -> dict[str, GroupSpec]:
    return {spec.name: spec for _, specs in keys.questions for spec in specs}


def plan_version(new: RunKeys, old: LoadedRubric,
                 resources: GradingResources) -> VersionPlan | None:
    """None when the items of `old` are not the new rubric's in the same order."""
    if [i.id for i in old.rubric.items()] != [i.id for i in new.loaded.rubric.items()]:
        return None
    if old.content_hash == new.loaded.content_hash:
        return VersionPlan(new, groups_by_name(new), frozenset())
    before = RunKeys(old, new.options, resources)
    kinds = {name: spec.kind for name, spec in groups_by_name(new).items()}
    return VersionPlan(before, groups_by_name(before), frozenset(
        name for name in new.changed_groups(before) if not in_place(kinds[name])))


def plan_run(run: StoredRun | None, version: VersionPlan | None) -> Step:
    if run is None or run.keys is None or version is None:
        return Step.RERUN
    return Step.RERUN if any(n in run.keys.groups for n in version.rerun) else Step.IN_PLACE
