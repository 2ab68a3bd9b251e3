"""One grader's results for one question's items, reused when nothing they depend on changed."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graders.cache.codecs import decode_results, encode_results
from graders.cache.core import UNCACHEABLE, ResultCache
from graders.cache.keys import (
    earlier_digest,
    group_key,
    group_static,
    options_digest,
    referenced_items,
)
from graders.context import GradingContext
from graders.registry import get_kind
from graders.results import ItemResult, Status
from graders.rubric_model import LoadedRubric, Question, RubricItem

_NOT_KEPT = frozenset({Status.GRADER_ERROR, Status.PENDING})

GradeGroup = Callable[[], list[ItemResult]]

_static: dict[tuple[str, str, str, str, str], tuple[str, tuple[str, ...]]] = {}
_lock = threading.Lock()


def _static_part(loaded: LoadedRubric, question: Question, kind: str, version: str,
                 items: Sequence[RubricItem]) -> tuple[str, tuple[str, ...]]:
    # The content hash names the rubric's text, but items may carry more than it says (the
    # exemplars and thresholds learned from instructor grades are added to their configs, per
    # submission): the memo is keyed by the items as given, not by the text alone, and by the
    # kind's version the static part is computed with.
    stated = hashlib.blake2b(repr([(i.id, i.points, i.config) for i in items]).encode(),
                             digest_size=16).hexdigest()
    memo = (loaded.content_hash, question.id, kind, version, stated)
    with _lock:
        found = _static.get(memo)
    if found is None:
        found = (group_static(loaded, question, kind, version, items),
                 referenced_items(loaded.rubric, items))
        with _lock:
            if len(_static) > 4096:
                _static.clear()
            _static[memo] = found
    return found


def environment(kind: str, items: Sequence[RubricItem], context: GradingContext,
                load: bool = True) -> str:
    """What a kind's results depend on besides the rubric, the answer and the options
    (`Kind.environment`: a code battery's files, the written grader's model)."""
    strategy = get_kind(kind)
    return "" if strategy is None else strategy.environment(items, context, load)


def key_basis(kind: str, context: GradingContext, located: str) -> str:
    """What of the located submission a group's key names (`Kind.key_basis`: its question's
    answer for a kind that reads only that, the programs for the code grader), else the whole
    located submission (`located`, its digest)."""
    strategy = get_kind(kind)
    basis = None if strategy is None else strategy.key_basis(context)
    return located if basis is None else basis


def cacheable_kind(kind: str) -> bool:
    """Whether a kind's results are a function of their key (`Kind.cacheable`)."""
    strategy = get_kind(kind)
    return strategy is not None and strategy.cacheable


def static_part(loaded: LoadedRubric, question: Question, kind: str, version: str,
                items: Sequence[RubricItem]) -> tuple[str, tuple[str, ...]]:
    """(the rubric's and the code's part of a group's key, the items it reads results of)."""
    return _static_part(loaded, question, kind, version, items)


def compose_key(static: str, basis: str, question_id: str, options: Mapping[str, Any],
                earlier: Mapping[str, ItemResult], referenced: Sequence[str],
                env: str) -> str:
    """A group's key: the grading process and a regrade's fast path both compute it here."""
    return group_key(static, basis, question_id, options_digest(options),
                     earlier_digest(earlier, referenced), env)


def grade_cached(cache: ResultCache, loaded: LoadedRubric, kind: str,
                 items: Sequence[RubricItem], context: GradingContext, submission: str,
                 grade: GradeGroup) -> list[ItemResult]:
    """`grade()`, or the stored results of the same group on the same located submission.
    The key of a group whose results are kept is recorded in `cache.keys` (the stored run
    remembers what its results were computed from)."""
    strategy = get_kind(kind)
    if not cache.enabled or strategy is None or not strategy.cacheable:
        return grade()
    static, referenced = _static_part(loaded, context.question, kind, strategy.version, items)
    basis = key_basis(kind, context, submission)
    key = compose_key(static, basis, context.question.id, context.resources.options,
                      context.earlier, referenced, environment(kind, items, context))
    question = context.question.id
    stored = cache.load(key, lambda payload: decode_results(payload, items, question))
    if stored is not None:
        cache.stats.groups_cached += 1
        cache.record(f"{question}/{kind}", key, basis)
        return stored
    scratch = context.per_submission
    if scratch is not None:
        scratch.pop(UNCACHEABLE, None)
    results = grade()
    cache.stats.groups_run += 1
    tainted = scratch is not None and scratch.pop(UNCACHEABLE, False)
    if cacheable(results) and not tainted:
        cache.save(key, encode_results(results))
        cache.record(f"{question}/{kind}", key, basis)
    return results


def cacheable(results: Sequence[ItemResult]) -> bool:
    return not any(r.status in _NOT_KEPT for r in results)
