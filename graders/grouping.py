"""Answer groups: the answers to one rubric item clustered so that one decision can grade many.

Pure: no database, no web. Each answer gets a key from what its grader recorded (staff-side
evidence only), as its kind's strategy reads it (`Kind.group_reading`: the value a numeric
grader read, the canonical form of an expression, the verdicts of a code item's checks, the
choices of a choice item); an answer without a usable reading is keyed by its normalised text
(`text`). For a kind that learns from overrides (written answers), groups whose texts an
embedding model finds near-identical are then merged (`similar`, with a conservative threshold)
when the grader's verdicts on them agree (`Kind.verdict`).

Identical documents (two copies of one file) always end in one group. Groups partition the
answers and come out in a deterministic order: largest first, then by key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from graders.answer_keys import MAX_TEXT, Answer, normalise_text
from graders.registry import get_kind

# Cosine similarity above which two different written answers are one group. Conservative: a
# paraphrase that changes the meaning ("is" / "is not") must stay apart, so only near-copies
# (reordered clauses, filler words, typos) merge; the instructor can still exclude members.
SIMILARITY_THRESHOLD = 0.95

Embed = Callable[[Sequence[str]], NDArray[np.float32]]


@dataclass(frozen=True)
class Group:
    key: str  # stable id: a hash of the leading answer's kind and signature
    method: str  # value | expression | behaviour | choice | text | similar | missing
    signature: str  # what the members share, readable ("590592", "square: pass | ...")
    members: tuple[int, ...]  # sorted submission ids
    representative: int  # the member whose answer stands for the group


def answer_key(kind: str, config: Mapping[str, Any], answer: Answer) -> tuple[str, str]:
    """(method, signature) of one answer; equal pairs are always one group."""
    if not answer.text.strip():
        return "missing", "(no answer)"
    strategy = get_kind(kind)
    found = None if strategy is None else strategy.group_reading(config, answer)
    if strategy is None or found is None:
        return "text", normalise_text(answer.text) or "(no words)"
    return strategy.group_method, found


def group_key(method: str, signature: str) -> str:
    return hashlib.sha256(f"{method}\0{signature}".encode()).hexdigest()[:16]


@dataclass
class _Cluster:
    method: str
    signature: str
    members: list[Answer]
    representative: int

    @property
    def order(self) -> tuple[int, str, str]:
        return (-len(self.members), self.method, self.signature)


def _merge_similar(clusters: list[_Cluster], embed: Embed, threshold: float,
                   verdict: Callable[[Answer], str]) -> list[_Cluster]:
    """Greedy, deterministic: each text cluster (largest first) joins the most similar leader
    at or above the threshold, else leads its own."""
    texts = [c for c in clusters if c.method == "text"]
    others = [c for c in clusters if c.method != "text"]
    if len(texts) < 2:
        return clusters
    vectors = embed([c.members[0].text[:MAX_TEXT] for c in texts])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
    verdicts = [verdict(c.members[0]) for c in texts]
    leaders: list[int] = []
    merged: dict[int, _Cluster] = {}
    for index, cluster in enumerate(texts):
        # only a leader the grader judged alike (same elements, same flags) may take it
        alike = [n for n, leader in enumerate(leaders) if verdicts[leader] == verdicts[index]]
        if alike:
            scores = vectors[[leaders[n] for n in alike]] @ vectors[index]
            best = alike[int(np.argmax(scores))]
            if float(np.max(scores)) >= threshold:
                leader = merged[leaders[best]]
                leader.members.extend(cluster.members)
                leader.method = "similar"
                continue
        leaders.append(index)
        merged[index] = _Cluster(cluster.method, cluster.signature, list(cluster.members),
                                 cluster.representative)
    return others + [merged[i] for i in leaders]


def _merge_documents(clusters: list[_Cluster]) -> list[_Cluster]:
    """Clusters holding copies of one document become one (the first in order leads)."""
    parent = list(range(len(clusters)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for index, cluster in enumerate(clusters):
        for answer in cluster.members:
            first = owner.setdefault(answer.document, index)
            a, b = find(first), find(index)
            if a != b:
                parent[max(a, b)] = min(a, b)
    out: dict[int, _Cluster] = {}
    for index, cluster in enumerate(clusters):
        root = find(index)
        if root == index:
            out[root] = _Cluster(cluster.method, cluster.signature, list(cluster.members),
                                 cluster.representative)
        else:
            out[root].members.extend(cluster.members)
    return list(out.values())


def group_answers(
    kind: str,
    config: Mapping[str, Any],
    answers: Sequence[Answer],
    embed: Embed | None = None,
    threshold: float = SIMILARITY_THRESHOLD,
) -> list[Group]:
    """The answers to one item, partitioned into groups, largest first."""
    exact: dict[tuple[str, str], list[Answer]] = {}
    for answer in sorted(answers, key=lambda a: a.member):
        exact.setdefault(answer_key(kind, config, answer), []).append(answer)
    clusters = sorted(
        (_Cluster(method, signature, members, members[0].member)
         for (method, signature), members in exact.items()),
        key=lambda c: c.order,
    )
    strategy = get_kind(kind)
    if embed is not None and strategy is not None and strategy.learns_from_overrides:
        clusters = sorted(_merge_similar(clusters, embed, threshold, strategy.verdict),
                          key=lambda c: c.order)
    clusters = sorted(_merge_documents(clusters), key=lambda c: c.order)
    groups: list[Group] = []
    for cluster in clusters:
        members = tuple(sorted(a.member for a in cluster.members))
        groups.append(Group(
            key=group_key(cluster.method if cluster.method != "similar" else "text",
                          cluster.signature),
            method=cluster.method,
            signature=cluster.signature,
            members=members,
            representative=cluster.representative,
        ))
    return groups
