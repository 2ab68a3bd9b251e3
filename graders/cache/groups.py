"""One grader's results for one question's items, reused when nothing they depend on changed."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from graders.cache.codecs import decode_results, encode_results
from graders.cache.core import ResultCache
from graders.cache.keys import (
    answer_digest,
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
from graders.rubric import LoadedRubric, Question, RubricItem

# Kinds whose results are a function of the key. `symbolic` is left out: its worker pool gives
# up on slow expressions by wall time, so the same answer may come back otherwise.
CACHEABLE_KINDS = frozenset({"numeric", "code", "written"})
_NOT_KEPT = frozenset({Status.GRADER_ERROR, Status.PENDING})

GradeGroup = Callable[[], list[ItemResult]]

_static: dict[tuple[str, str, str, str], tuple[str, tuple[str, ...]]] = {}
_files: dict[tuple[str, int, int], str] = {}
_lock = threading.Lock()


def _static_part(loaded: LoadedRubric, question: Question, kind: str, version: str,
                 items: Sequence[RubricItem]) -> tuple[str, tuple[str, ...]]:
    # The content hash names the rubric's text, but items may carry more than it says (the
    # exemplars and thresholds learned from instructor grades are added to their configs, per
    # submission): the memo is keyed by the items as given, not by the text alone.
    stated = hashlib.blake2b(repr([(i.id, i.points, i.config) for i in items]).encode(),
                             digest_size=16).hexdigest()
    memo = (loaded.content_hash, question.id, kind, stated)
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


_environments: dict[tuple[tuple[str, str], ...], tuple[float, str]] = {}
RECHECK_S = 1.0  # battery files are looked at again after this long


def environment(kind: str, items: Sequence[RubricItem], context: GradingContext,
                load: bool = True) -> str:
    """What a kind's results depend on besides the rubric, the answer and the options: a code
    battery's files (inputs, reference, known bugs) and the written grader's model (its
    identity, `model_identity`; "none" without one). `load=False` (a regrade's keys in the
    CLI) names the model without loading it: a model that is installed but fails to load is
    then named where the grading processes say "none", a mismatch that only sends those
    submissions to the grading processes."""
    if kind == "code":
        from graders.code.config import item_config

        # Keyed by the names the rubric writes and the files' contents, not where the install
        # lives; the paths only say which files to read.
        names = tuple(sorted({(item_config(i).battery, str(item_config(i).path))
                              for i in items}))
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
        from graders.written.settings import WrittenSettings

        settings = WrittenSettings.from_options(context.resources.options)
        if settings.similarity == "off":
            return "none"
        identity = model_identity(settings.max_tokens)
        if load and identity != "none":
            # Only where the grader runs: a regrade's keys (load=False) do not import it.
            from graders.written.grader import shared_embedder

            if shared_embedder(context) is None:
                return "none"
        return identity
    return ""


_models: dict[int, str] = {}


def model_identity(max_tokens: int) -> str:
    """The embedding model as the written grader would load it, without loading it: its id,
    runtime and token cap (`SentenceEmbedder.model_id`) and the size and time of each of its
    files; "none" when it is not installed or cannot be read."""
    with _lock:
        found = _models.get(max_tokens)
    if found is None:
        found = _model_identity(max_tokens)
        with _lock:
            _models[max_tokens] = found
    return found


def _model_identity(max_tokens: int) -> str:
    import json

    from graders.embedding.files import (
        MODEL_ID,
        RUNTIME,
        BertConfig,
        EmbedderUnavailable,
        model_directory,
    )

    try:
        directory = model_directory()
        config = BertConfig.from_file(directory / "config.json")
        pooling = json.loads((directory / "1_Pooling" / "config.json").read_text())
        stated = json.loads((directory / "sentence_bert_config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens") or max_tokens < 8:
            return "none"
        tokens = min(max_tokens, int(stated.get("max_seq_length", 256)), config.max_positions)
        files = sorted((str(p.relative_to(directory)), p.stat().st_size, p.stat().st_mtime_ns)
                       for p in directory.rglob("*") if p.is_file())
    except (EmbedderUnavailable, OSError, KeyError, ValueError, TypeError):
        return "none"
    digest = hashlib.sha256(repr(files).encode()).hexdigest()[:32]
    return f"{MODEL_ID}|{RUNTIME}|{tokens}|{digest}"


def _python_beside(battery: Path) -> list[Path]:
    """The Python files in a battery's folder: its module (reference and known bugs) and
    whatever that module may import or read. The other batteries' YAML files beside it are
    read only by their own batteries: adding or editing one leaves this battery's key alone."""
    return [p for p in battery.parent.iterdir() if p.is_file() and p.suffix == ".py"]


def _batteries(names: Sequence[tuple[str, str]]) -> str:
    if names:
        parts: list[str] = []
        for name, where in names:
            try:
                battery = Path(where)
                files = sorted({battery, *_python_beside(battery)})
                parts.append(name + "=" + ",".join(f"{p.name}:{_file_digest(p)}" for p in files))
            except (OSError, ValueError):
                parts.append(name + "=unreadable")
        return ";".join(parts)
    return ""


# Kinds whose grader reads nothing of the submission but its question's located answer (besides
# the question, the items, the review threshold, the options and the earlier results it names):
# their group key names that answer, not the whole document, so two documents that give the
# same answer share the entry (checked against the grader's code by tests/graders).
ANSWER_ONLY_KINDS = frozenset({"numeric"})


def key_basis(kind: str, context: GradingContext, located: str) -> str:
    """What of the located submission a group's key names: its question's answer for a kind
    that reads only that, the programs for the code grader (`graders.code.basis`), else the
    whole located submission (`located`, its digest)."""
    if kind in ANSWER_ONLY_KINDS:
        answer = context.submission.answers.get(context.question.id)
        if answer is not None:
            return answer_digest(answer)
    if kind == "code":
        from graders.code.basis import code_basis

        basis = code_basis(context)
        if basis is not None:
            return basis
    return located


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
    grader = get_grader(kind)
    if not cache.enabled or kind not in CACHEABLE_KINDS or grader is None:
        return grade()
    static, referenced = _static_part(loaded, context.question, kind, grader.version, items)
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
