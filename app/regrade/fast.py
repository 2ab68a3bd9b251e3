"""A regrade's fast path: re-score in this process from what the stored run was computed from.

For each submission the stored run recorded its location key and its groups' keys
(`graders.cache.runs`). Under the new rubric each key is computed again from the stored
digests, without the upload: a group whose key did not change keeps its stored rows (copied in
SQL); a changed key is looked up in the result cache, else its grader runs here on the located
submission read from the cache (the numeric grader and unanswered questions only: code and
written groups need the sandbox or the embedding model, which live in the grading processes).
Anything else, and any submission without recorded keys, goes to the grading processes.

Which changed groups the CLI cannot re-score is known from the rubric change alone: once per
stored runs' rubric version, its groups' rubric and environment parts are compared with the new
rubric's (`pool_only`); a submission that answered a changed code or written question goes to
the grading processes without being tried here (a battery change sends nearly all of them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.db.models import RubricVersion
from app.regrade.compare import same_result
from app.regrade.stored import StoredRun, keys_text
from graders.cache import CACHE_KEY, ResultCache
from graders.cache.codecs import decode_parsed, decode_results, encode_results
from graders.cache.groups import cacheable
from graders.cache.keys import answer_digest
from graders.cache.runs import MISSING, GroupSpec, RunKeys
from graders.context import GradingContext, GradingResources
from graders.documents.model import ParsedSubmission
from graders.engine import NO_ANSWER, grade_group, unanswered
from graders.results import ItemResult
from graders.rubric import LoadedRubric, Question, parse_rubric

# Kinds re-scored in this process on a cache miss: cheap, and needing nothing but the answer.
IN_PLACE_KINDS = frozenset({"numeric"})
MEMO_ENTRIES = 50_000


@dataclass(slots=True)
class Rescored:
    """One submission re-scored here: the results recomputed that differ from its stored rows
    (the rest of its stored run is kept) and its new keys; its status and totals follow
    (app.regrade.settle)."""

    stored: StoredRun
    recomputed: dict[str, ItemResult]
    keys: str  # as JSON text
    regraded: bool = True  # whether any result was recomputed (or read), same or not


@dataclass
class FastStats:
    reused: int = 0  # submissions whose every stored score was kept
    rescored: int = 0  # submissions with some results recomputed or read from the cache
    sent: int = 0  # submissions sent to the grading processes
    sent_untried: int = 0  # of which untried: no keys, or a changed code/written group
    groups_run: int = 0
    groups_cached: int = 0
    located: int = 0  # located submissions read back from the cache

    def unsettled(self, done: Rescored) -> None:
        """`done`, counted as re-scored here, goes to the grading processes after all (its
        stored rows did not cover what it needs)."""
        if done.regraded:
            self.rescored -= 1
        else:
            self.reused -= 1
        self.sent += 1


class FastPath:
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
        max_answers = options.get("max_answers")
        self.max_answers = None if max_answers is None else int(max_answers)
        self.memo: dict[str, list[ItemResult]] = {}
        self.stats = FastStats()
        self.by_name = {spec.name: spec for _, specs in self.keys.questions for spec in specs}
        self.questions = [(question, f"{question.id}/{MISSING}", specs)
                          for question, specs in self.keys.questions]
        self.blocked: dict[int, frozenset[str] | None] = {}  # by stored runs' rubric version
        # The groups as the stored runs' rubric (by version) stated them: what their stored
        # results are read back with.
        self.stated: dict[int, Mapping[str, GroupSpec]] = {}
        self.rubrics: dict[int, RunKeys] = {}

    def pool_only(self, session: Session, ids: Sequence[int],
                  stored: Mapping[int, StoredRun]) -> set[int]:
        """Those of `ids` the fast path is known not to re-score, without trying: no stored
        run or keys, a run graded under a rubric whose items were not these in this order, or
        an answer to a group the rubric change gave a new key that only the grading processes
        compute (code, written). Counted as sent."""
        untried: set[int] = set()
        for sid in ids:
            run = stored.get(sid)
            groups = None if run is None or not run.keys else run.keys.get("groups")
            blocked = None if run is None else self._blocked(session, run.rubric_version_id)
            if (run is None or blocked is None or not isinstance(groups, dict)
                    or any(name in groups for name in blocked)):
                untried.add(sid)
        self.stats.sent += len(untried)
        self.stats.sent_untried += len(untried)
        return untried

    def _blocked(self, session: Session, version_id: int) -> frozenset[str] | None:
        """The groups whose new key a run graded under `version_id` cannot have re-scored here;
        None when no run of that version can be (its rubric unreadable, or its items not the
        new rubric's in the same order: the stored rows would not line up)."""
        if version_id in self.blocked:
            return self.blocked[version_id]
        found: frozenset[str] | None = None
        text = session.get(RubricVersion, version_id)
        try:
            # Its file's name, as stored: a code item's battery lies beside that file.
            old = None if text is None else parse_rubric(text.source_text, text.source_name)
            if old is not None and [i.id for i in old.rubric.items()] == self.order:
                found = frozenset()
                self.stated[version_id] = self.by_name
                self.rubrics[version_id] = self.keys
                if old.content_hash != self.loaded.content_hash:
                    before = RunKeys(old, self.resources.options, self.resources)
                    found = frozenset(name for name in self.keys.changed_groups(before)
                                      if self.by_name[name].kind not in IN_PLACE_KINDS)
                    self.stated[version_id] = {spec.name: spec for _, specs in before.questions
                                               for spec in specs}
                    self.rubrics[version_id] = before
        except Exception:  # an old rubric this code cannot read: the grading processes
            found = None
        self.blocked[version_id] = found
        return found

    def rescore(self, stored: StoredRun | None) -> Rescored | None:
        """The submission re-scored, or None: it goes to the grading processes."""
        try:
            done = self._rescore(stored) if stored is not None else None
        except Exception:  # anything unexpected here: the grading processes do it as before
            done = None
        if done is None:
            self.stats.sent += 1
        elif done.regraded:
            self.stats.rescored += 1
        else:
            self.stats.reused += 1
        return done

    def _lookup(self, key: str, spec: GroupSpec) -> list[ItemResult] | None:
        found = self.memo.get(key)
        if found is not None:
            return found
        question = spec.question.id
        found = self.cache.load(key, lambda p: decode_results(p, spec.items, question))
        if found is not None:
            self.stats.groups_cached += 1
            self._remember(key, found)
        return found

    def _remember(self, key: str, results: list[ItemResult]) -> None:
        if len(self.memo) >= MEMO_ENTRIES:
            self.memo.clear()
        self.memo[key] = results

    def _rescore(self, stored: StoredRun) -> Rescored | None:
        keys = stored.keys
        if not keys:
            return None
        location = keys.get("location")
        groups = keys.get("groups")
        if not isinstance(groups, dict) or location != self.keys.location_key(
                stored.sha256, stored.filename, stored.content_type, stored.handout):
            return None
        if self.max_answers is not None and int(keys.get("answers", 0)) > self.max_answers:
            return None
        new_groups: dict[str, list[str]] = {}
        recomputed: dict[str, ItemResult] = {}
        same: set[str] = set()  # recomputed items whose result is the stored one
        parsed: list[ParsedSubmission | None] = []

        def located() -> ParsedSubmission | None:
            if not parsed:
                parsed.append(self.cache.load(str(location), decode_parsed))
                self.stats.located += 1
            return parsed[0]

        def resolve(ids: Sequence[str]) -> dict[str, ItemResult] | None:
            found: dict[str, ItemResult] = {}
            for item_id in ids:
                result = recomputed.get(item_id)
                if result is None:
                    spec = self.group_of.get(item_id)
                    entry = None if spec is None else new_groups.get(spec.name)
                    if spec is None or entry is None:
                        return None
                    results = self._lookup(entry[0], spec)
                    result = next((r for r in results or () if r.item_id == item_id), None)
                    if result is None:
                        return None
                found[item_id] = result
            return found

        for question, missing_name, specs in self.questions:
            missing = groups.get(missing_name)
            if missing is not None:
                digest = self.keys.missing(question, missing[1])
                new_groups[missing_name] = [digest, missing[1]]
                if digest != missing[0]:
                    doc = located()
                    if doc is None:
                        return None
                    kept = self._stored_missing(stored.rubric_version_id, question.id,
                                                missing, doc)
                    for result in _missing_results(self.loaded, question, doc):
                        recomputed[result.item_id] = result
                        if kept is not None and same_result(kept.get(result.item_id), result):
                            same.add(result.item_id)
                continue
            for spec in specs:
                entry = groups.get(spec.name)
                if not isinstance(entry, list) or len(entry) != 2:
                    return None
                basis = entry[1]
                key = self.keys.key(spec, basis, resolve)
                if key is None:
                    return None
                if key == entry[0]:
                    new_groups[spec.name] = [key, basis]
                    continue
                results = self._lookup(key, spec)
                if results is None:
                    results = self._grade(spec, key, resolve, located)
                    if results is None:
                        return None
                if cacheable(results):
                    new_groups[spec.name] = [key, basis]
                before = self._stored_results(entry[0], stored.rubric_version_id, spec.name,
                                              basis, parsed[0] if parsed else None)
                for result in results:
                    recomputed[result.item_id] = result
                if before is not None:
                    by_item = {r.item_id: r for r in before}
                    same.update(r.item_id for r in results
                                if same_result(by_item.get(r.item_id), r))
        differ = {item: r for item, r in recomputed.items() if item not in same}
        return Rescored(stored, differ, keys_text(stored, groups, new_groups),
                        bool(recomputed))

    def _stored_missing(self, version_id: int, question_id: str, entry: Sequence[str],
                        doc: ParsedSubmission) -> dict[str, ItemResult] | None:
        """The rows a stored run holds for an unanswered question: what its rubric gave them,
        when the digest it recorded names that rubric's question."""
        keys = self.rubrics.get(version_id)
        question = None if keys is None else next(
            (q for q, _ in keys.questions if q.id == question_id), None)
        if keys is None or question is None or keys.missing(question, entry[1]) != entry[0]:
            return None
        return {r.item_id: r for r in _missing_results(keys.loaded, question, doc)}

    def _stored_results(self, key: str, version_id: int, name: str, basis: str,
                        doc: ParsedSubmission | None = None) -> list[ItemResult] | None:
        """The results a stored run's rows of group `name` were written from: those its key
        names, read with the group's items as its rubric stated them (a row whose new result
        is the same stays: it is not moved and written again). With the located submission
        at hand (`doc`), a numeric group's are graded again rather than read (`_regraded`)."""
        spec = self.stated.get(version_id, {}).get(name)
        if spec is None:
            return None
        found = self.memo.get(key)
        if found is None:
            found = None if doc is None else self._regraded(key, version_id, spec, basis, doc)
            if found is None:
                question = spec.question.id
                found = self.cache.load(key, lambda p: decode_results(p, spec.items, question))
                if found is None:
                    return None
            self._remember(key, found)
        return found

    def _regraded(self, key: str, version_id: int, spec: GroupSpec, basis: str,
                  doc: ParsedSubmission) -> list[ItemResult] | None:
        """The results stored under `key`, graded again on the located answer already read
        (cheaper than reading them back): only when `key` is the group's key under the stored
        run's rubric for this very answer, with no earlier results to read (a key names all
        its results are computed from). None: read them back."""
        keys = self.rubrics.get(version_id)
        if (keys is None or spec.kind not in IN_PLACE_KINDS or spec.referenced
                or not spec.static or keys.key(spec, basis, _no_earlier) != key):
            return None
        answer = doc.answers.get(spec.question.id)
        if answer is None or not answer.text.strip() or answer_digest(answer) != basis:
            return None
        context = GradingContext(rubric=keys.loaded.rubric, question=spec.question,
                                 submission=doc, resources=self.resources, earlier={},
                                 per_submission={})
        results = grade_group(spec.kind, list(spec.items), answer, context)
        return results if cacheable(results) else None

    def _grade(self, spec: GroupSpec, key: str, resolve: Any,
               located: Any) -> list[ItemResult] | None:
        """The group's grader, run here on the located submission (cheap kinds only)."""
        if spec.kind not in IN_PLACE_KINDS:
            return None
        doc: ParsedSubmission | None = located()
        if doc is None:
            return None
        answer = doc.answers.get(spec.question.id)
        earlier = self.keys.earlier_for(spec, resolve)
        if answer is None or not answer.text.strip() or earlier is None:
            return None
        context = GradingContext(rubric=self.loaded.rubric, question=spec.question,
                                 submission=doc, resources=self.resources, earlier=earlier,
                                 per_submission={})
        results = grade_group(spec.kind, list(spec.items), answer, context)
        self.stats.groups_run += 1
        if cacheable(results):
            self.cache.save(key, encode_results(results))
            self._remember(key, results)
        return results

    def close(self) -> None:
        self.cache.flush()


def _no_earlier(ids: Sequence[str]) -> dict[str, ItemResult] | None:
    return None if ids else {}


def _missing_results(loaded: LoadedRubric, question: Question,
                     parsed: ParsedSubmission) -> list[ItemResult]:
    """What graders.engine gives the items of an unanswered question."""
    return unanswered(loaded.rubric, question, parsed.missing.get(question.id, NO_ANSWER),
                      parsed.doubt, parsed.handout, parsed.unsure.get(question.id, ""))
