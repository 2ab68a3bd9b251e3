"""A stored run re-scored from what it was computed from: no database, no upload.

Under the new rubric each group key a stored run recorded (`StoredRun.keys`; the plan:
graders.cache.plan) is computed again from the stored digests: a group whose key did not
change keeps its stored rows; a changed key is looked up in the result cache, else its grader
runs here on the located submission read from the cache (the kinds that re-score in place:
code and written groups need the sandbox or the embedding model, which live in the grading
processes). Anything else is left to the grading processes (`Rescorer.rescore` answers None);
so is, untried, a run that answered a changed code or written group (`Rescorer.untried`).
The caller reads the runs and stores what comes back (app.regrade.batches).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from decimal import Decimal
from typing import Any

from graders.cache.codecs import decode_parsed, decode_results, encode_results
from graders.cache.core import CACHE_KEY, ResultCache
from graders.cache.groups import cacheable
from graders.cache.keys import answer_digest
from graders.cache.plan import (
    GroupKey,
    Step,
    StoredKeys,
    VersionPlan,
    in_place,
    keys_text,
    parse_keys,
    plan_run,
    plan_version,
    same_result,
)
from graders.cache.runs import MISSING, GroupSpec, Resolve, RunKeys
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.engine import grade_group, unanswered_in
from graders.results import ItemResult
from graders.rubric_model import LoadedRubric, Question

MEMO_ENTRIES = 50_000


@dataclass(frozen=True, slots=True)
class StoredRun:
    """A submission's current run as a regrade reads it: the upload it was computed from, its
    keys as stored (JSON text) and its machine totals. The ids are the caller's."""

    submission_id: int
    run_id: int
    student: str | None
    sha256: str
    filename: str | None
    content_type: str | None
    handout: str | None  # the edition declared with the upload
    rubric_version_id: int
    total: Decimal
    max_points: Decimal
    keys_text: str | None
    keys: StoredKeys | None = field(init=False)

    def __post_init__(self) -> None:
        text = self.keys_text
        object.__setattr__(self, "keys", None if text is None else parse_keys(json.loads(text)))


@dataclass(slots=True)
class Rescored:
    """One run re-scored: the recomputed results that differ from its stored rows (the rest of
    the run is kept) and its new keys."""

    stored: StoredRun
    recomputed: dict[str, ItemResult]
    keys: str  # as JSON text
    regraded: bool = True  # whether any result was recomputed (or read), same or not


@dataclass
class RescoreStats:
    reused: int = 0  # runs whose every stored score was kept
    rescored: int = 0  # runs with some results recomputed or read from the cache
    sent: int = 0  # runs left to the grading processes
    sent_untried: int = 0  # of which untried: no keys, or a changed code/written group
    groups_run: int = 0
    groups_cached: int = 0
    located: int = 0  # located submissions read back from the cache

    def unsettled(self, done: Rescored) -> None:
        """`done`, counted as re-scored, goes to the grading processes after all."""
        if done.regraded:
            self.rescored -= 1
        else:
            self.reused -= 1
        self.sent += 1

    def summary(self) -> str:
        return (f"{self.reused} re-used stored scores, {self.rescored} re-scored in place "
                f"({self.groups_cached} grader results read from the cache, {self.groups_run} "
                f"recomputed here), {self.sent} sent to the grading processes "
                f"({self.sent_untried} without trying: no recorded keys, or a changed code or "
                "written group)")

    def add(self, more: RescoreStats) -> None:
        for counter in fields(self):
            setattr(self, counter.name, getattr(self, counter.name) + getattr(more, counter.name))


class Rescorer:
    def __init__(self, loaded: LoadedRubric, options: Mapping[str, Any],
                 cache: ResultCache) -> None:
        self.loaded = loaded
        self.cache = cache
        self.resources = GradingResources(options=dict(options))
        self.resources.shared(CACHE_KEY, lambda: cache)
        self.keys = RunKeys(loaded, self.resources.options, self.resources)
        self.order = [item.id for item in loaded.rubric.items()]
        self.positions = {item_id: n for n, item_id in enumerate(self.order)}
        self.group_of = {item.id: spec for _, specs in self.keys.questions for spec in specs
                         for item in spec.items}
        self.max_answers = self.resources.settings.max_answers
        self.memo: dict[str, list[ItemResult]] = {}
        self.stats = RescoreStats()
        self.questions = [(question, f"{question.id}/{MISSING}", specs)
                          for question, specs in self.keys.questions]
        self.versions: dict[int, VersionPlan | None] = {}  # by stored runs' rubric version

    def untried(self, ids: Iterable[int], stored: Mapping[int, StoredRun],
                old_rubric: Callable[[int], LoadedRubric | None]) -> set[int]:
        """Those of `ids` the plan leaves to the grading processes untried (counted as sent):
        no stored run, no keys, or a changed code or written group. `old_rubric` reads a
        stored run's rubric version (once per version)."""
        found = {sid for sid in ids if plan_run(
            None if (run := stored.get(sid)) is None else run.keys,
            None if run is None else self._version(run.rubric_version_id, old_rubric))
            is Step.RERUN}
        self.stats.sent += len(found)
        self.stats.sent_untried += len(found)
        return found

    def _version(self, version_id: int,
                 old_rubric: Callable[[int], LoadedRubric | None]) -> VersionPlan | None:
        if version_id not in self.versions:
            try:
                old = old_rubric(version_id)
                plan = None if old is None else plan_version(self.keys, old, self.resources)
            except Exception:  # an old rubric this code cannot read: the grading processes
                plan = None
            self.versions[version_id] = plan
        return self.versions[version_id]

    def rescore(self, stored: StoredRun | None) -> Rescored | None:
        """The run re-scored, or None: it goes to the grading processes."""
        try:
            done = None if stored is None else self._rescore(stored)
        except Exception:  # anything unexpected here: the grading processes do it as before
            done = None
        if done is None:
            self.stats.sent += 1
        elif done.regraded:
            self.stats.rescored += 1
        else:
            self.stats.reused += 1
        return done

    def _cached(self, key: str, spec: GroupSpec, counted: bool = True
                ) -> list[ItemResult] | None:
        """The results under `key`: remembered, else read from the cache (`counted` as a
        grader result read instead of recomputed)."""
        found = self.memo.get(key)
        if found is None:
            question = spec.question.id
            found = self.cache.load(key, lambda p: decode_results(p, spec.items, question))
            if found is None:
                return None
            self.stats.groups_cached += counted
            self._remember(key, found)
        return found

    def _remember(self, key: str, results: list[ItemResult]) -> None:
        if len(self.memo) >= MEMO_ENTRIES:
            self.memo.clear()
        self.memo[key] = results

    def _rescore(self, stored: StoredRun) -> Rescored | None:
        keys = stored.keys
        if keys is None or keys.location != self.keys.location_key(
                stored.sha256, stored.filename, stored.content_type, stored.handout):
            return None
        if self.max_answers is not None and keys.answers > self.max_answers:
            return None
        run = _Run(self, stored, keys)
        for question, missing_name, specs in self.questions:
            missing = keys.groups.get(missing_name)
            if missing is not None:
                if not self._rescore_missing(run, question, missing_name, missing):
                    return None
                continue
            for spec in specs:
                entry = keys.groups.get(spec.name)
                if entry is None or not self._rescore_group(run, spec, entry):
                    return None
        differ = {item: r for item, r in run.recomputed.items() if item not in run.same}
        return Rescored(stored, differ, keys_text(stored.keys_text, keys, run.new_groups),
                        bool(run.recomputed))

    def _rescore_missing(self, run: _Run, question: Question, name: str,
                         entry: GroupKey) -> bool:
        """An unanswered question's items, recomputed when its digest changed."""
        digest = self.keys.missing(question, entry.basis)
        run.new_groups[name] = GroupKey(digest, entry.basis)
        if digest == entry.key:
            return True
        doc = run.located()
        if doc is None:
            return False
        # What the stored run's rubric gave them, when the digest it recorded names its question.
        old = None if run.plan is None else run.plan.keys
        was = None if old is None else next(
            (q for q, _ in old.questions if q.id == question.id), None)
        run.recompute(unanswered_in(self.loaded.rubric, question, doc), unanswered_in(
            old.loaded.rubric, was, doc) if old is not None and was is not None
            and old.missing(was, entry.basis) == entry.key else None)
        return True

    def _rescore_group(self, run: _Run, spec: GroupSpec, entry: GroupKey) -> bool:
        """A group's results: kept when its key did not change, else read from the cache or
        graded here; False when neither can be done here."""
        key = self.keys.key(spec, entry.basis, run.resolve)
        if key is None:
            return False
        if key == entry.key:
            run.new_groups[spec.name] = entry
            return True
        results = self._cached(key, spec)
        if results is None:
            results = self._grade(spec, key, run.resolve, run.located)
        if results is None:
            return False
        if cacheable(results):
            run.new_groups[spec.name] = GroupKey(key, entry.basis)
        run.recompute(results, self._stored(run, spec, entry))
        return True

    def _stored(self, run: _Run, spec: GroupSpec, entry: GroupKey) -> list[ItemResult] | None:
        """The results the stored rows were written from, with the group as its rubric stated
        it (a row whose new result is the same is not moved and written again): remembered,
        else graded again on the located answer already read, else read from the cache."""
        plan = run.plan
        stated = None if plan is None else plan.stated.get(spec.name)
        if plan is None or stated is None:
            return None
        found = self.memo.get(entry.key)
        if found is None and run.parsed is not None:
            found = self._regraded(entry.key, plan.keys, stated, entry.basis, run.parsed)
            if found is not None:
                self._remember(entry.key, found)
        return found if found is not None else self._cached(entry.key, stated, counted=False)

    def _regraded(self, key: str, keys: RunKeys, spec: GroupSpec, basis: str,
                  doc: ParsedSubmission) -> list[ItemResult] | None:
        """The results stored under `key`, graded again on the located answer (cheaper than
        reading them back): only when `key` is the group's key under the stored
        run's rubric (`keys`) for this very answer, with no earlier results to read. None:
        read them."""
        if (not in_place(spec.kind) or spec.referenced or not spec.static
                or keys.key(spec, basis, _no_earlier) != key):
            return None
        answer = _answer(doc, spec)
        if answer is None or answer_digest(answer) != basis:
            return None
        results = self._run(keys.loaded, spec, doc, {})
        return results if cacheable(results) else None

    def _grade(self, spec: GroupSpec, key: str, resolve: Resolve,
               located: Callable[[], ParsedSubmission | None]) -> list[ItemResult] | None:
        """The group's grader, run here on the located submission (cheap kinds only)."""
        if not in_place(spec.kind):
            return None
        doc = located()
        earlier = None if doc is None else self.keys.earlier_for(spec, resolve)
        if doc is None or earlier is None or _answer(doc, spec) is None:
            return None
        results = self._run(self.loaded, spec, doc, earlier)
        self.stats.groups_run += 1
        if cacheable(results):
            self.cache.save(key, encode_results(results))
            self._remember(key, results)
        return results

    def _run(self, loaded: LoadedRubric, spec: GroupSpec, doc: ParsedSubmission,
             earlier: dict[str, ItemResult]) -> list[ItemResult]:
        context = GradingContext(rubric=loaded.rubric, question=spec.question, submission=doc,
                                 resources=self.resources, earlier=earlier, per_submission={})
        return grade_group(spec.kind, list(spec.items), doc.answers[spec.question.id], context)

    def close(self) -> None:
        self.cache.flush()


class _Run:
    """One stored run being re-scored: its new keys, the results recomputed (and which of
    them are the stored ones), and its located submission, read from the cache once needed."""

    def __init__(self, rescorer: Rescorer, stored: StoredRun, keys: StoredKeys) -> None:
        self.rescorer, self.stored, self.keys = rescorer, stored, keys
        self.new_groups: dict[str, GroupKey] = {}
        self.recomputed: dict[str, ItemResult] = {}
        self.same: set[str] = set()  # recomputed items whose result is the stored one
        self.plan = rescorer.versions.get(stored.rubric_version_id)  # of its rubric version
        self.parsed: ParsedSubmission | None = None  # once read
        self._read = False

    def recompute(self, results: list[ItemResult], before: list[ItemResult] | None) -> None:
        """`results` recomputed; those equal to their result in `before` (what the stored rows
        were written from) are the stored ones."""
        by_item = {r.item_id: r for r in before or ()}
        for result in results:
            self.recomputed[result.item_id] = result
            if same_result(by_item.get(result.item_id), result):
                self.same.add(result.item_id)

    def located(self) -> ParsedSubmission | None:
        if not self._read:
            self._read = True
            self.parsed = self.rescorer.cache.load(self.keys.location, decode_parsed)
            self.rescorer.stats.located += 1
        return self.parsed

    def resolve(self, ids: Sequence[str]) -> dict[str, ItemResult] | None:
        """Earlier results a group reads: recomputed ones, else the cache's under their new
        group key."""
        found: dict[str, ItemResult] = {}
        for item_id in ids:
            result = self.recomputed.get(item_id)
            if result is None:
                spec = self.rescorer.group_of.get(item_id)
                entry = None if spec is None else self.new_groups.get(spec.name)
                if spec is None or entry is None:
                    return None
                results = self.rescorer._cached(entry.key, spec)
                result = next((r for r in results or () if r.item_id == item_id), None)
                if result is None:
                    return None
            found[item_id] = result
        return found


def _answer(doc: ParsedSubmission, spec: GroupSpec) -> LocatedAnswer | None:
    """The group's question's located answer, when it is not blank (the engine grades it)."""
    answer = doc.answers.get(spec.question.id)
    return answer if answer is not None and answer.text.strip() else None


def _no_earlier(ids: Sequence[str]) -> dict[str, ItemResult] | None:
    return None if ids else {}
