"""A regrade's plan: from the old rubric, the new rubric and a stored run's keys, what each
submission needs. Pure: no database, no cache, no grading.

Per old rubric version (`plan_version`): whether its runs line up with the new rubric at all
(the same items in the same order), the groups as it stated them (what its stored results are
read back with), and the groups whose new key only the grading processes compute (a changed
code or written group: `RERUN`). Per stored run (`plan_run`): sent to the grading processes
untried (no stored run or keys, a version that does not line up, an answer to a re-run group),
or re-scored in place (app.regrade.fast), where each group's stored rows are kept when its key
did not change, else its results are read from the cache or graded in place."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from app.regrade.stored import StoredRun
from graders.cache.runs import GroupSpec, RunKeys
from graders.context import GradingResources
from graders.registry import kind_of
from graders.rubric import LoadedRubric


def in_place(kind: str) -> bool:
    """The kind is re-scored in this process on a cache miss (cheap, and needing nothing but the
    answer): its strategy's `rescores_in_place`."""
    return kind_of(kind).rescores_in_place


class Step(StrEnum):
    IN_PLACE = "in_place"  # stored rows kept where the keys did not change, the rest re-scored
    RERUN = "rerun"  # the grading processes grade the upload again


@dataclass(frozen=True)
class VersionPlan:
    """How the runs graded under one old rubric version are re-scored under the new one."""

    keys: RunKeys  # the old rubric's keys (the new rubric's own when it did not change)
    stated: Mapping[str, GroupSpec]  # the old rubric's groups, by name
    rerun: frozenset[str]  # groups whose new key only the grading processes compute


def groups_by_name(keys: RunKeys) -> dict[str, GroupSpec]:
    return {spec.name: spec for _, specs in keys.questions for spec in specs}


def plan_version(new: RunKeys, old: LoadedRubric,
                 resources: GradingResources) -> VersionPlan | None:
    """None when no run of `old` can be re-scored in place: its items are not the new
    rubric's in the same order (the stored rows would not line up)."""
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
    if any(name in run.keys.groups for name in version.rerun):
        return Step.RERUN
    return Step.IN_PLACE
