"""Answer groups (issue #15): the counted answers to one rubric item, clustered, decided at once.

Only the submission that counts per student is grouped (the gradebook's rule). A decision on a
group is one instructor override per member through the review service, so it is audited and
kept across regrades like any other; members may be excluded first or overridden afterwards.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from sqlalchemy.orm import Session

from app.assignments.service import current_rubric, require_assignment
from app.audit.repository import record
from app.db.locks import hold_decisions
from app.db.models import ItemScore, Override, Submission, User
from app.errors import Conflict, InvalidInput, NotFound
from app.groups import repository
from app.review.service import set_override
from app.sanitize import clean
from app.submissions.counting import counted_ids
from app.submissions.scoring import ACCEPTED_SUGGESTION, decided_feedback
from graders.answer_keys import Answer
from graders.embedding import EmbedderUnavailable, SentenceEmbedder, load_embedder
from graders.grouping import Group, group_answers
from graders.kind import Kind
from graders.registry import kind_of
from graders.results import to_points
from graders.rubric import RubricItem

ANSWER_CHARS = 4000  # of a representative answer shown
MEMBER_CHARS = 600  # of each member's answer shown
NEEDS_REVIEW = "needs_review"
ACCEPTED = ACCEPTED_SUGGESTION

_embedder_lock = threading.Lock()
_embedder: list[SentenceEmbedder | None] = []  # loaded once per process; [None]: unavailable


def _embed(cache_dir: Path | None = None) -> SentenceEmbedder | None:
    """The process's embedding model (its vectors also on disk in `cache_dir`, so a restarted
    server embeds no answer twice)."""
    with _embedder_lock:
        if not _embedder:
            try:
                _embedder.append(load_embedder(cache_dir))
            except EmbedderUnavailable:
                _embedder.append(None)
        return _embedder[0]


def _embed_texts(texts: Sequence[str]) -> NDArray[np.float32]:
    embedder = _embed()
    assert embedder is not None
    return embedder.embed(list(texts))


@dataclass(frozen=True)
class Member:
    submission_id: int
    student: str | None
    answer: str
    points: Decimal  # effective: the override where there is one
    suggested_points: Decimal  # the machine's
    machine_status: str
    confidence: float
    feedback: str
    needs_review: bool  # the machine was unsure and nobody decided yet
    decided: bool  # an instructor override exists
    comment: str | None
    # What the student reads of the decision once released (app/submissions/scoring.py
    # `decided_feedback`): an accepted suggestion's stored comment is staff vocabulary.
    said: str | None = None
    # Why one decision for the whole group may not fit this member: the machine flagged it as
    # possibly stating the opposite, or judged it otherwise than the group's representative.
    disputed: str = ""


@dataclass(frozen=True)
class AnswerGroup:
    id: str
    method: str
    signature: str
    size: int
    representative: str
    representative_submission: int
    needs_review: int
    decided: int
    # (points the machine suggested, members with that suggestion), most common first
    suggestions: list[tuple[Decimal, int]]
    members: list[Member]


@dataclass(frozen=True)
class ItemGroups:
    slug: str
    item_id: str
    title: str
    grader: str
    max_points: Decimal
    similarity: str  # how written answers were compared ("embedding", "exact text", "n/a")
    groups: list[AnswerGroup]
    # item id -> counted answers still needing review (every item of the rubric, in order)
    pending_by_item: dict[str, int] = field(default_factory=dict)

    @property
    def needs_review(self) -> int:
        return sum(g.needs_review for g in self.groups)

    @property
    def learns_from_overrides(self) -> bool:
        """Whether the item's kind learns from decisions (active grading, similar answers)."""
        return kind_of(self.grader).learns_from_overrides


@dataclass(frozen=True)
class Decision:
    group_id: str
    item_id: str
    decided: list[int]  # submissions that got the override
    excluded: list[int]
    kept: list[int]  # already decided, left alone
    # disputed members a decision of more points than their own suggestion left undecided
    held_back: list[int] = field(default_factory=list)


def _counted(session: Session, slug: str) -> tuple[list[int], list[RubricItem]]:
    """The ids of the submissions that count (one per student), and the rubric's items."""
    current = current_rubric(session, slug)
    return counted_ids(session, current.assignment), list(current.loaded.rubric.items())


def _member(score: ItemScore, submission: Submission, override: Override | None,
            answer: str) -> Member:
    return Member(
        submission_id=submission.id,
        student=submission.student,
        answer=clean(answer, MEMBER_CHARS),
        points=score.points if override is None else override.points,
        suggested_points=score.points,
        machine_status=score.status,
        confidence=score.confidence,
        feedback=clean(score.feedback, 2000),
        needs_review=score.status == NEEDS_REVIEW and override is None,
        decided=override is not None,
        comment=None if override is None else override.comment,
        said=None if override is None else decided_feedback(score, override),
    )


def _disputes(kind: Kind, group: Group, answers: dict[int, Answer]) -> dict[int, str]:
    """Members whose own evidence disagrees with the representative's, and why."""
    leader = kind.verdict(answers[group.representative])
    found: dict[int, str] = {}
    for member in group.members:
        answer = answers[member]
        if flag := kind.flagged(answer):
            found[member] = flag
        elif kind.verdict(answer) != leader:
            found[member] = "the machine judged this answer unlike the group's representative"
    return found


def _view(kind: Kind, group: Group, members: dict[int, Member], texts: dict[int, str],
          answers: dict[int, Answer]) -> AnswerGroup:
    disputes = _disputes(kind, group, answers)
    chosen = [replace(members[m], disputed=disputes.get(m, "")) for m in group.members]
    spread = Counter(m.suggested_points for m in chosen)
    return AnswerGroup(
        id=group.key,
        method=group.method,
        signature=clean(group.signature, 500),
        size=len(chosen),
        representative=clean(texts[group.representative], ANSWER_CHARS),
        representative_submission=group.representative,
        needs_review=sum(m.needs_review for m in chosen),
        decided=sum(m.decided for m in chosen),
        suggestions=sorted(spread.items(), key=lambda kv: (-kv[1], kv[0])),
        members=chosen,
    )


def _pending(session: Session, ids: Sequence[int], items: Sequence[RubricItem]) -> dict[str, int]:
    found = repository.pending_by_item(session, ids)
    return {i.id: found.get(i.id, 0) for i in items}


def pending_items(session: Session, slug: str) -> tuple[dict[str, int], dict[str, str]]:
    """Per rubric item (in order): counted answers still needing review, and its title."""
    ids, items = _counted(session, slug)
    return _pending(session, ids, items), {i.id: i.title for i in items}


def item_groups(
    session: Session, slug: str, item_id: str, cache_dir: Path | None = None
) -> ItemGroups:
    """The item's groups, those with the most answers still needing review first."""
    ids, items = _counted(session, slug)
    rubric_item = next((i for i in items if i.id == item_id), None)
    if rubric_item is None:
        raise NotFound(f"The rubric of {slug!r} has no item {item_id!r}.", item_id=item_id)
    decided = repository.overrides(session, ids, item_id)
    answers: list[Answer] = []
    members: dict[int, Member] = {}
    texts: dict[int, str] = {}
    for score, run, submission in repository.item_rows(session, ids, item_id):
        text = str(run.answers.get(score.question_id, ""))
        texts[submission.id] = text
        members[submission.id] = _member(score, submission, decided.get(submission.id), text)
        answers.append(Answer(submission.id, submission.sha256, text,
                              tuple(e for e in score.evidence if isinstance(e, dict)),
                              score.feedback or ""))
    similarity = "n/a"
    embed = None
    if kind_of(rubric_item.grader).learns_from_overrides:
        similarity = "exact text"
        if _embed(cache_dir) is not None:
            similarity, embed = "embedding", _embed_texts
    groups = group_answers(rubric_item.grader, rubric_item.config, answers, embed)
    by_member = {a.member: a for a in answers}
    kind = kind_of(rubric_item.grader)
    views = [_view(kind, g, members, texts, by_member) for g in groups]
    # Most unreviewed first, then largest; the grouping's own order breaks ties.
    order = {v.id: n for n, v in enumerate(views)}
    views.sort(key=lambda v: (-v.needs_review, -v.size, order[v.id]))
    return ItemGroups(slug, item_id, rubric_item.title or item_id, rubric_item.grader,
                      rubric_item.points, similarity, views, _pending(session, ids, items))


def find_group(groups: ItemGroups, group_id: str) -> AnswerGroup:
    for group in groups.groups:
        if group.id == group_id:
            return group
    raise NotFound(
        f"Item {groups.item_id!r} has no group {group_id!r} now (answers were regraded or "
        "decided since the page was loaded); reload the groups.",
        group_id=group_id,
    )


def decide(
    session: Session,
    slug: str,
    item_id: str,
    group_id: str,
    actor: User,
    *,
    points: Decimal | None,
    comment: str = "",
    exclude: Sequence[int] = (),
    replace_decided: bool = False,
    disputed: str = "refuse",
    cache_dir: Path | None = None,
) -> Decision:
    """Grade every member of a group at once: `points` for all, or (None) each member's own
    machine suggestion. Excluded members, and members already decided unless
    `replace_decided`, are left as they are.

    A disputed member (see Member.disputed) is never given more than its own suggestion
    without being asked: `disputed` says what to do with such members when `points` would:
    "refuse" (Conflict naming them), "hold" (leave them undecided, in `held_back`) or
    "confirm" (the instructor has seen them: they get `points` too)."""
    # Before the groups are read: a second decision at once reads what the first decided.
    hold_decisions(session, require_assignment(session, slug).id)
    groups = item_groups(session, slug, item_id, cache_dir)
    group = find_group(groups, group_id)
    in_group = {m.submission_id for m in group.members}
    strangers = sorted(set(exclude) - in_group)
    if strangers:
        raise InvalidInput(f"Not members of group {group_id}: {strangers[:20]}.",
                           not_members=strangers[:100])
    if points is not None:
        exact = to_points(points)
        if exact != points or not Decimal(0) <= exact <= groups.max_points:
            raise InvalidInput(
                f"Points for {item_id} must be between 0 and {groups.max_points} in hundredths; "
                f"got {points}.", max_points=str(groups.max_points))
    excluded = sorted(set(exclude))
    kept = [m.submission_id for m in group.members
            if m.decided and not replace_decided and m.submission_id not in excluded]
    targets = [m for m in group.members
               if m.submission_id not in excluded and m.submission_id not in kept]
    raised = [m for m in targets
              if m.disputed and points is not None and points > m.suggested_points]
    if raised and disputed == "refuse":
        raise Conflict(
            f"{len(raised)} member(s) of this group were judged otherwise by the machine; "
            f"{points} points would raise them: confirm them (disputed: confirm), leave them "
            "undecided (disputed: hold) or exclude them.",
            disputed={str(m.submission_id): m.disputed for m in raised[:100]})
    held_back = [m.submission_id for m in raised] if disputed == "hold" else []
    targets = [m for m in targets if m.submission_id not in held_back]
    if not targets:
        raise Conflict("Every member of this group is excluded or already decided.",
                       group_id=group_id)
    text = comment.strip() or ("" if points is not None else ACCEPTED)
    # Held while the overrides are written: each one's lookup of its submission then hits the
    # session's identity map instead of the database.
    held = repository.submissions(session, [m.submission_id for m in targets])
    with session.no_autoflush:  # one member's audit entry need not be written before the next
        for member in targets:
            chosen = member.suggested_points if points is None else points
            set_override(session, member.submission_id, item_id, chosen, text, actor)
    del held
    record(session, actor, "groups.decide", "assignment", slug, {
        "item_id": item_id,
        "group": group_id,
        "signature": group.signature[:200],
        "points": None if points is None else str(points),
        "accepted_suggestion": points is None,
        "decided": [m.submission_id for m in targets],
        "excluded": excluded,
        "kept": kept,
        "held_back": held_back,
        "confirmed_disputed": [m.submission_id for m in raised] if disputed == "confirm" else [],
    })
    return Decision(group_id, item_id, [m.submission_id for m in targets], excluded, kept,
                    held_back)
