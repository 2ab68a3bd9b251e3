"""Answer groups: the answers to one rubric item clustered so that one decision can grade many.

Pure: no database, no web. Each answer gets a key from what its grader recorded (staff-side
evidence only):

- numeric items: the value the grader read, rounded to the item's tolerance (`value`);
- symbolic items: the canonical form the grader reports, else the expression (`expression`);
- code items: the per-test verdicts of the checks that ran (`behaviour`);
- written items (and anything without a usable reading): the normalised text (`text`), and then
  groups whose texts an embedding model finds near-identical are merged (`similar`, with a
  conservative threshold) when the grader's verdicts on them agree (the same elements stated,
  the same "may state the opposite" flag: `verdict_of`).

Identical documents (two copies of one file) always end in one group. Groups partition the
answers and come out in a deterministic order: largest first, then by key.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

import numpy as np
from numpy.typing import NDArray

# Student text is hostile: only a bounded prefix is normalised or parsed.
MAX_TEXT = 20_000
MAX_VALUE_TEXT = 400
MAX_NUMBERS = 64
# Cosine similarity above which two different written answers are one group. Conservative: a
# paraphrase that changes the meaning ("is" / "is not") must stay apart, so only near-copies
# (reordered clauses, filler words, typos) merge; the instructor can still exclude members.
SIMILARITY_THRESHOLD = 0.95

Embed = Callable[[Sequence[str]], NDArray[np.float32]]

_NON_WORD = re.compile(r"[\W_]+")
_THOUSANDS = re.compile(r"(?<=\d)[,\u2009\u202f](?=\d{3}(?!\d))")
_NUMBER = re.compile(
    r"(?P<m>[-+\u2212]?\d{1,40}(?:\.\d{1,40})?)"
    r"(?:\s{0,3}(?:[x×*]|\\times)\s{0,3}10\s{0,2}\^\s{0,2}\{?(?P<p>[-+\u2212]?\d{1,3})\}?"
    r"|[eE](?P<e>[-+\u2212]?\d{1,3}))?"
)
_READ_AS = re.compile(r"read as ([^;()]{1,200})")


@dataclass(frozen=True)
class Answer:
    """One submission's answer to the item: `member` is the submission's id."""

    member: int
    document: str  # the file's sha256: copies of one file are one group
    text: str  # the located answer (staff side)
    evidence: tuple[Mapping[str, Any], ...] = ()
    feedback: str = ""  # the grader's staff feedback (what it flagged)


# What a written grader's verdict on an answer is made of: the elements it found stated (its
# evidence notes "states: ...") and whether it flagged the answer as possibly stating the
# opposite of the reference. Two answers whose verdicts differ are never one group, however
# alike their words ("ignores word order" / "does not ignore word order").
_STATES = re.compile(r"^states: (.{1,400})")
OPPOSITE = "may state the opposite"


def verdict_of(answer: Answer) -> str:
    """The machine's verdict on a written answer, as a comparable string ("" for none)."""
    stated = sorted({m.group(1).strip() for e in _evidence(answer, "sentence")
                     if (m := _STATES.match(str(e.get("note", ""))[:500]))})
    flags = ["opposite"] if OPPOSITE in answer.feedback[:MAX_TEXT] else []
    return " + ".join(stated) + (" | " + ", ".join(flags) if flags else "")


def flagged_opposite(answer: Answer) -> bool:
    return OPPOSITE in answer.feedback[:MAX_TEXT]


@dataclass(frozen=True)
class Group:
    key: str  # stable id: a hash of the leading answer's kind and signature
    method: str  # value | expression | behaviour | text | similar | missing
    signature: str  # what the members share, readable ("590592", "square: pass | ...")
    members: tuple[int, ...]  # sorted submission ids
    representative: int  # the member whose answer stands for the group


def normalise_text(text: str) -> str:
    """Case, accents, punctuation and spacing removed: what two copies of an answer share."""
    folded = unicodedata.normalize("NFKC", text[:MAX_TEXT]).casefold()
    return _NON_WORD.sub(" ", folded).strip()


def _decimal(mantissa: str, exponent: str | None) -> Decimal | None:
    try:
        value = Decimal(mantissa.replace("\u2212", "-"))
        if exponent:
            value = value.scaleb(int(exponent.replace("\u2212", "-")))
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() else None


def parse_numbers(text: str, vector: bool = False) -> list[Decimal]:
    """The numbers of a recorded value ("1,771,776", "[0.67, 0.24]", "5.9 × 10^5"); in a
    vector a comma always separates components."""
    cleaned = text[:MAX_VALUE_TEXT]
    if not vector:
        cleaned = _THOUSANDS.sub("", cleaned)
    found: list[Decimal] = []
    for match in _NUMBER.finditer(cleaned):
        value = _decimal(match.group("m"), match.group("p") or match.group("e"))
        if value is not None:
            found.append(value)
        if len(found) >= MAX_NUMBERS:
            break
    return found


def rounded(value: Decimal, tolerance: Decimal | None, integer: bool) -> str:
    """A value as its group sees it: to the item's tolerance, else exactly."""
    if integer and value == value.to_integral_value():
        return str(int(value))
    if tolerance is not None and tolerance > 0:
        steps = (value / tolerance).to_integral_value(rounding=ROUND_HALF_EVEN)
        value = steps * tolerance
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _tolerance(config: Mapping[str, Any]) -> Decimal | None:
    raw = config.get("abs_tolerance")
    if isinstance(raw, int | float | str) and not isinstance(raw, bool):
        try:
            tolerance = Decimal(str(raw))
        except InvalidOperation:
            return None
        return tolerance if tolerance.is_finite() and tolerance > 0 else None
    return None


def _evidence(answer: Answer, kind: str) -> list[Mapping[str, Any]]:
    return [e for e in answer.evidence if isinstance(e, Mapping) and e.get("kind") == kind]


def _value_key(answer: Answer, config: Mapping[str, Any]) -> str | None:
    values = _evidence(answer, "value")
    if not values:
        return None
    # The grader's own reading ("read as 589824"): an unevaluated "768x768" is its value.
    read = _READ_AS.search(str(values[-1].get("note", ""))[:MAX_VALUE_TEXT])
    text = read.group(1) if read else str(values[-1].get("text", ""))
    numbers = parse_numbers(text, vector=config.get("kind") == "vector")
    if not numbers:
        return None
    tolerance = _tolerance(config)
    integer = config.get("kind") == "integer"
    parts = [rounded(n, tolerance, integer) for n in numbers]
    return parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"


def _expression_key(answer: Answer) -> str | None:
    readings = _evidence(answer, "expression")
    if not readings:
        return None
    parts: list[str] = []
    for reading in readings:
        canonical = _READ_AS.search(str(reading.get("note", ""))[:MAX_VALUE_TEXT])
        shown = canonical.group(1) if canonical else str(reading.get("text", ""))
        parts.append(re.sub(r"\s+", "", shown[:MAX_VALUE_TEXT]))
    return "; ".join(parts)


def _behaviour_key(answer: Answer) -> str | None:
    checks = [str(c.get("text", ""))[:MAX_VALUE_TEXT] for c in _evidence(answer, "check")]
    return " | ".join(checks) if checks else None


def answer_key(kind: str, config: Mapping[str, Any], answer: Answer) -> tuple[str, str]:
    """(method, signature) of one answer; equal pairs are always one group."""
    if not answer.text.strip():
        return "missing", "(no answer)"
    reading: str | None = None
    method = "text"
    if kind == "numeric":
        reading, method = _value_key(answer, config), "value"
    elif kind == "symbolic":
        reading, method = _expression_key(answer), "expression"
    elif kind == "code":
        reading, method = _behaviour_key(answer), "behaviour"
    if reading is None:
        return "text", normalise_text(answer.text) or "(no words)"
    return method, reading


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


def _merge_similar(clusters: list[_Cluster], embed: Embed, threshold: float) -> list[_Cluster]:
    """Greedy, deterministic: each text cluster (largest first) joins the most similar leader
    at or above the threshold, else leads its own."""
    texts = [c for c in clusters if c.method == "text"]
    others = [c for c in clusters if c.method != "text"]
    if len(texts) < 2:
        return clusters
    vectors = embed([c.members[0].text[:MAX_TEXT] for c in texts])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
    verdicts = [verdict_of(c.members[0]) for c in texts]
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
    if embed is not None and kind == "written":
        clusters = sorted(_merge_similar(clusters, embed, threshold), key=lambda c: c.order)
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
