"""What a graded run was computed from, and the same keys under another rubric.

A grading process records, with each result, the location key, the located answer count and,
per group, `[key, basis]` (`groups.grade_cached`), plus a digest of every unanswered question.
`RunKeys` recomputes those keys for a stored run under a new rubric, options and environment
with the same functions the grading process used, without the document: a key that did not
change names the results already stored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graders.cache.groups import cacheable_kind, compose_key, environment, static_part
from graders.cache.keys import (
    group_key_of,
    group_key_parts,
    location_key_head,
    location_key_of,
    location_part,
    missing_basis,
    missing_digest,
    options_digest,
)
from graders.context import GradingContext, GradingResources
from graders.documents.model import ParsedSubmission
from graders.registry import grader_version
from graders.results import ItemResult
from graders.rubric_model import LoadedRubric, Question, RubricItem

MISSING = "missing"
MISSING_MEMO = 4096  # unanswered questions' digests kept by (question, basis)
PARTS_MEMO = 1024  # groups' key parts kept (a rubric has a few dozen groups)


def answered(loaded: LoadedRubric, parsed: ParsedSubmission, question: Question) -> bool:
    """Whether the engine grades this question (else its items are missing, unread, or not
    asked by the declared edition)."""
    answer = parsed.answers.get(question.id)
    return (answer is not None and bool(answer.text.strip())
            and loaded.rubric.asks(question, parsed.handout))


def run_keys(loaded: LoadedRubric, parsed: ParsedSubmission, location: str, located: int,
             groups: Mapping[str, list[str]]) -> dict[str, Any]:
    """The stored form: {"location": key, "answers": n, "groups": {name: [key, basis]}}."""
    entries = dict(groups)
    for question in loaded.rubric.questions:
        if not answered(loaded, parsed, question):
            basis = missing_basis(parsed, question.id)
            entries[f"{question.id}/{MISSING}"] = [missing_digest(loaded, question, basis), basis]
    return {"location": location, "answers": located, "groups": entries}


@dataclass(frozen=True)
class GroupSpec:
    """One question's items of one kind, with the parts of its key the rubric fixes."""

    question: Question
    position: int  # the question's place in the rubric
    kind: str
    items: tuple[RubricItem, ...]
    static: str
    referenced: tuple[str, ...]
    env: str
    name: str = field(init=False, compare=False)  # "<question>/<kind>"

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", f"{self.question.id}/{self.kind}")


# Earlier results a group reads, by item id; None when they cannot be had without grading.
Resolve = Callable[[Sequence[str]], dict[str, ItemResult] | None]


class RunKeys:
    """A rubric's keys, computed once, applied to stored runs."""

    def __init__(self, loaded: LoadedRubric, options: Mapping[str, Any],
                 resources: GradingResources) -> None:
        self.loaded = loaded
        self.options = options
        self.projection = location_part(loaded)
        self._location_head = location_key_head(self.projection)
        self.position = {item.id: n for n, q in enumerate(loaded.rubric.questions)
                         for item in q.items}
        empty = ParsedSubmission(text="", format="text", answers={})
        self._missing: dict[tuple[str, str], str] = {}
        # Per group without earlier results to read, by what its key is made of but the
        # submission's part: what the key hashes around that part (`keys.group_key_parts`).
        self._parts: dict[tuple[str, str, str, str], tuple[bytes, bytes]] = {}
        self._spec_parts: dict[int, tuple[GroupSpec, Mapping[str, Any], tuple[bytes, bytes]]] = {}
        self.questions: list[tuple[Question, list[GroupSpec]]] = []
        for number, question in enumerate(loaded.rubric.questions):
            by_kind: dict[str, list[RubricItem]] = {}
            for item in question.items:
                by_kind.setdefault(item.grader, []).append(item)
            specs: list[GroupSpec] = []
            for kind, items in by_kind.items():
                version = grader_version(kind)  # the grader itself is not imported here
                if version is None or not cacheable_kind(kind):
                    specs.append(GroupSpec(question, number, kind, tuple(items), "", (), ""))
                    continue
                static, referenced = static_part(loaded, question, kind, version, items)
                context = GradingContext(rubric=loaded.rubric, question=question,
                                         submission=empty, resources=resources)
                specs.append(GroupSpec(question, number, kind, tuple(items), static, referenced,
                                       environment(kind, items, context, load=False)))
            self.questions.append((question, specs))

    def location_key(self, sha256: str, filename: str | None, content_type: str | None,
                     handout: str | None = None) -> str:
        return location_key_of(self._location_head, sha256, filename, content_type, handout)

    def missing(self, question: Question, basis: str) -> str:
        # Few reasons repeat across a class (the basis names the reason): each digest once.
        memo = (question.id, basis)
        found = self._missing.get(memo)
        if found is None:
            found = missing_digest(self.loaded, question, basis)
            if len(self._missing) >= MISSING_MEMO:
                self._missing.clear()
            self._missing[memo] = found
        return found

    def key(self, spec: GroupSpec, basis: str, resolve: Resolve) -> str | None:
        """The group's key on a submission whose located part it reads is `basis`; None when
        the earlier results it reads cannot be resolved."""
        if not spec.referenced:
            # A regrade computes every group's key of every stored run: the parts are kept by
            # the spec (a frozen dataclass, kept with them so that its id is not reused) and
            # the options mapping they were made for.
            kept = self._spec_parts.get(id(spec))
            if kept is not None and kept[0] is spec and kept[1] is self.options:
                return group_key_of(kept[2][0], basis, kept[2][1])
            made = (spec.static, spec.question.id, options_digest(self.options), spec.env)
            parts = self._parts.get(made)
            if parts is None:
                if len(self._parts) >= PARTS_MEMO:
                    self._parts.clear()
                parts = self._parts[made] = group_key_parts(made[0], made[1], made[2], "",
                                                            made[3])
            if len(self._spec_parts) >= PARTS_MEMO:
                self._spec_parts.clear()
            self._spec_parts[id(spec)] = (spec, self.options, parts)
            return group_key_of(parts[0], basis, parts[1])
        earlier = self.earlier_for(spec, resolve)
        if earlier is None:
            return None
        return compose_key(spec.static, basis, spec.question.id, self.options, earlier,
                           spec.referenced, spec.env)

    def earlier_for(self, spec: GroupSpec, resolve: Resolve) -> dict[str, ItemResult] | None:
        # The engine gives a group the results of earlier questions only.
        before = [r for r in spec.referenced if self.position.get(r, spec.position)
                  < spec.position]
        return resolve(before) if before else {}

    def changed_groups(self, old: RunKeys) -> frozenset[str]:
        """The groups (by name) whose rubric or environment part of the key differs from
        `old`'s, or that `old` did not have: every submission that answered one of them has a
        new key for it (a group whose earlier results changed is not listed: that depends on
        the submission)."""
        before = {spec.name: (spec.static, spec.env, spec.referenced)
                  for _, specs in old.questions for spec in specs}
        return frozenset(spec.name for _, specs in self.questions for spec in specs
                         if before.get(spec.name) != (spec.static, spec.env, spec.referenced))
