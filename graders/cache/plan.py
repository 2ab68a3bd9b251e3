"""A regrade's plan, from rubrics and stored keys alone: no database, no cache, no grading.

A stored run recorded its location key and its groups' keys (`graders.cache.runs`), read here
into their typed form (`parse_keys`). Per old rubric version (`plan_version`): whether its
runs line up with the new rubric (the same items in the same order), its groups as it stated
them (what its stored results are read back with), and the groups whose new key only the
grading processes compute (`rerun`: a changed group of a kind that does not re-score in
place, code or written). Per run (`plan_run`): re-scored in place (graders.cache.rescore: kept
where a group's key did not change, the rest read from the cache or graded there), or graded
again by the grading processes, untried. And a regrade's batches (`tapered`): the last ones
smaller, so that the workers end together.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from graders.cache.runs import GroupSpec, RunKeys
from graders.context import GradingResources
from graders.registry import kind_of
from graders.results import ItemResult
from graders.rubric_model import LoadedRubric


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


def keys_text(text: str | None, keys: StoredKeys | None,
              new_groups: Mapping[str, GroupKey]) -> str:
    """The new keys as JSON text: the stored `text` (of `keys`) with each changed key replaced
    when the groups are the same ones (the keys are digests, each found once), else encoded
    anew."""
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
    """The kind is re-scored outside the grading processes on a cache miss."""
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


def plan_run(keys: StoredKeys | None, version: VersionPlan | None) -> Step:
    """A stored run with `keys`, graded under the rubric version `version` plans."""
    if keys is None or version is None:
        return Step.RERUN
    return Step.RERUN if any(n in keys.groups for n in version.rerun) else Step.IN_PLACE


# The last batches are smaller, down to this share of a full one: the workers end within a
# small batch's time of each other, where one may otherwise idle for most of a full one's.
TAPER = 4


def tapered(chunks: list[list[int]], workers: int) -> list[list[int]]:
    """The same submissions in the same order, in batches of the largest chunk's size until
    the rest would give each worker fewer than two such, then smaller (at least 1/TAPER)."""
    ids = [sid for chunk in chunks for sid in chunk]
    full = max((len(chunk) for chunk in chunks), default=0)
    least = max(1, full // TAPER)
    batches: list[list[int]] = []
    at = 0
    while at < len(ids):
        size = min(full, max(least, -(-(len(ids) - at) // (2 * workers))))
        batches.append(ids[at : at + size])
        at += size
    return batches
