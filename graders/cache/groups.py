"""One grader's results for one question's items, reused when nothing they depend on changed."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from graders.cache.codecs import decode_results, encode_results
from graders.cache.core import ResultCache
from graders.cache.keys import (
    earlier_digest,
    group_key,
    group_static,
    options_digest,
    referenced_items,
)
from graders.cache.sandbox import UNCACHEABLE
from graders.context import GradingContext
from graders.registry import get_grader
from graders.results import ItemResult, Status
from graders.rubric import LoadedRubric, RubricItem

# Kinds whose results are a function of the key. `symbolic` is left out: its worker pool gives
# up on slow expressions by wall time, so the same answer may come back otherwise.
CACHEABLE_KINDS = frozenset({"numeric", "code", "written"})
_NOT_KEPT = frozenset({Status.GRADER_ERROR, Status.PENDING})

GradeGroup = Callable[[], list[ItemResult]]

_static: dict[tuple[str, str, str, str], tuple[str, tuple[str, ...]]] = {}
_files: dict[tuple[str, int, int], str] = {}
_lock = threading.Lock()


def _static_part(loaded: LoadedRubric, context: GradingContext, kind: str, version: str,
                 items: Sequence[RubricItem]) -> tuple[str, tuple[str, ...]]:
    # The content hash names the rubric's text, but items may carry more than it says (the
    # exemplars and thresholds learned from instructor grades are added to their configs, per
    # submission): the memo is keyed by the items as given, not by the text alone.
    stated = hashlib.blake2b(repr([(i.id, i.points, i.config) for i in items]).encode(),
                             digest_size=16).hexdigest()
    memo = (loaded.content_hash, context.question.id, kind, stated)
    with _lock:
        found = _static.get(memo)
    if found is None:
        found = (group_static(loaded, context.question, kind, version, items),
                 referenced_items(loaded.rubric, items))
        with _lock:
            if len(_static) > 4096:
                _static.clear()
            _static[memo] = found
    return found


def _file_digest(path: Path) -> str:
    stat = path.stat()
    memo = (str(path), stat.st_mtime_ns, stat.st_size)
    with _lock:
        found = _files.get(memo)
    if found is None:
        found = hashlib.sha256(path.read_bytes()).hexdigest()
        with _lock:
            _files[memo] = found
    return found


_environments: dict[tuple[str, ...], tuple[float, str]] = {}
RECHECK_S = 1.0  # battery files are looked at again after this long


def environment(kind: str, items: Sequence[RubricItem], context: GradingContext) -> str:
    """What a kind's results depend on besides the rubric, the answer and the options: a code
    battery's files (inputs, reference, known bugs) and the written grader's model."""
    if kind == "code":
        from graders.code.config import item_config

        names = tuple(sorted({item_config(i).battery for i in items}))
        now = time.monotonic()
        with _lock:
            seen = _environments.get(names)
        if seen is not None and now - seen[0] < RECHECK_S:
            return seen[1]
        found = _batteries(names)
        with _lock:
            _environments[names] = (now, found)
        return found
    if kind == "written":
        from graders.written.grader import shared_embedder

        embedder = shared_embedder(context)
        return "none" if embedder is None else embedder.model_id
    return ""


def _batteries(names: Sequence[str]) -> str:
    if names:
        from graders.code.config import resolve_battery

        parts: list[str] = []
        for name in names:
            try:
                battery = resolve_battery(name)
                files = sorted(p for p in battery.parent.iterdir() if p.is_file()
                               and p.suffix in (".yaml", ".py"))
                parts.append(name + "=" + ",".join(f"{p.name}:{_file_digest(p)}" for p in files))
            except (OSError, ValueError):
                parts.append(name + "=unreadable")
        return ";".join(parts)
    return ""


def grade_cached(cache: ResultCache, loaded: LoadedRubric, kind: str,
                 items: Sequence[RubricItem], context: GradingContext, submission: str,
                 grade: GradeGroup) -> list[ItemResult]:
    """`grade()`, or the stored results of the same group on the same located submission."""
    grader = get_grader(kind)
    if not cache.enabled or kind not in CACHEABLE_KINDS or grader is None:
        return grade()
    static, referenced = _static_part(loaded, context, kind, grader.version, items)
    key = group_key(static, submission, context.question.id,
                    options_digest(context.resources.options),
                    earlier_digest(context.earlier, referenced),
                    environment(kind, items, context))
    question = context.question.id
    stored = cache.load(key, lambda payload: decode_results(payload, items, question))
    if stored is not None:
        cache.stats.groups_cached += 1
        return stored
    scratch = context.per_submission
    if scratch is not None:
        scratch.pop(UNCACHEABLE, None)
    results = grade()
    cache.stats.groups_run += 1
    tainted = scratch is not None and scratch.pop(UNCACHEABLE, False)
    if not tainted and not any(r.status in _NOT_KEPT for r in results):
        cache.save(key, encode_results(results))
    return results
