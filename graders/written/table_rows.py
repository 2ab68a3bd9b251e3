"""Exact keys for whole rows of a graded table, so a second run over a table reuses results.

A row's result is a function of: its answer (the raw text: the cut to `MAX_ANSWER_CHARS` is
part of grading), its question's one-question rubric after instructor grades were learned
(exemplars, threshold), the whole rubric's content hash, the operator's options, the grading
code (`code_fingerprint`: every source and data file of `graders`), the embedding model and its
libraries (`model_fingerprint`), and, for a question with a cohort, every answer of that
question in the table in order (the cohort is built from them). A row's key hashes all of
them, so a change to any one is a miss, never a stale result. Keys are grouped by question and
cohort (`group`): one stored group holds the results of one question's answers in one table.

Storage is outside this package (`RowStore`); what is read back is validated as `ItemResult`s
of the question's items, and anything else is a miss.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from pydantic import TypeAdapter, ValidationError

from graders.cache.keys import canonical, code_fingerprint
from graders.embedding.cache import model_fingerprint
from graders.results import ItemResult
from graders.rubric_model import LoadedRubric

ROWS_VERSION = "1"
# Options that change where vectors are kept, never a result.
_OPERATIONAL = frozenset({"embedding_cache_dir"})
_STORED: TypeAdapter[dict[str, tuple[ItemResult, ...]]] = TypeAdapter(
    dict[str, tuple[ItemResult, ...]])


class RowStore(Protocol):
    """Groups of row results by key; a missing or unreadable group is None."""

    def get(self, group: str) -> bytes | None: ...

    def put(self, group: str, payload: bytes) -> None: ...


def answer_digest(answer: str) -> str:
    return hashlib.sha256(answer.encode()).hexdigest()


def cohort_digest(answers: Iterable[str]) -> str:
    """The answers a question's cohort is built from (their `answer_digest`s, in table order)."""
    hasher = hashlib.sha256()
    for digest in answers:
        hasher.update(digest.encode())
    return hasher.hexdigest()


def static_digest(part: LoadedRubric, options: Mapping[str, Any]) -> str:
    """Everything but the answer and the cohort a row of this question depends on."""
    kept = {k: v for k, v in options.items() if k not in _OPERATIONAL}
    return hashlib.sha256(canonical([
        ROWS_VERSION, code_fingerprint(), model_fingerprint(), part.content_hash,
        # Parts are model copies whose updated fields may hold lists where tuples are declared:
        # the same JSON either way, so pydantic's warning about it is not wanted.
        part.rubric.model_dump(mode="json", warnings=False), kept,
    ])).hexdigest()


def group_key(static: str, cohort: str) -> str:
    return hashlib.sha256(f"{static}\x00{cohort}".encode()).hexdigest()


def encode_group(results: Mapping[str, tuple[ItemResult, ...]]) -> bytes:
    return _STORED.dump_json(dict(results))


def decode_group(payload: bytes, part: LoadedRubric) -> dict[str, tuple[ItemResult, ...]]:
    """A stored group, checked against the question's items; empty when it does not fit."""
    question = part.rubric.questions[0]
    items = [i.id for i in question.items]
    try:
        stored = _STORED.validate_json(payload)
    except (ValidationError, ValueError):
        return {}
    for results in stored.values():
        if (sorted(r.item_id for r in results) != sorted(items)
                or any(r.question != question.id or r.points > r.max_points
                       for r in results)):
            return {}
    return stored
