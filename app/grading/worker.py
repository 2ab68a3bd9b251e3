"""What a grading process runs: rubric text and the raw upload in, a plain outcome out.

The same function serves the local process pool, bulk regrades and Celery workers, so it takes
only plain values and keeps its expensive state (sandbox pool, models) for the process's life.
"""

from __future__ import annotations

import atexit
import gc
import hashlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field

from app.cache.store import open_cache
from app.calibration.context import annotate, apply_context, parse_context
from app.grading.deadline import DocumentDeadline, deadline
from graders.cache import CACHE_KEY, ResultCache
from graders.cache.codecs import decode_parsed, encode_parsed
from graders.cache.keys import location_key, submission_digest
from graders.cache.runs import run_keys
from graders.context import GradingResources
from graders.documents import read_submission
from graders.documents.model import InvalidDocument, ParsedSubmission
from graders.engine import grade_submission
from graders.options import GradingOptions
from graders.results import ItemResult
from graders.rubric import LoadedRubric, stored_rubric
from graders.rubric_model import RubricError

log = logging.getLogger(__name__)

ANSWER_CHARS = 4000

OutcomeStatus = Literal["graded", "needs_review", "pending", "grader_error", "error"]


class WorkerOutcome(BaseModel):
    """A grading result as data: picklable for the process pool, JSON for Celery."""

    model_config = ConfigDict(frozen=True)

    status: OutcomeStatus
    rubric_hash: str
    error: str | None = None
    student_id: str | None = None
    items: tuple[ItemResult, ...] = ()
    # Question id -> located answer text, capped: what a reviewer reads next to the score.
    answers: dict[str, str] = Field(default_factory=dict)
    # Seconds spent grading this document in the grading process.
    execution_time: float | None = None
    # What grading it recomputed and what it reused (graders.cache.CacheStats, as counts).
    work: dict[str, int] = Field(default_factory=dict)
    # What its results were computed from (graders.cache.rescore reads them back from the stored
    # run): the located submission's digest and {"location": key, "answers": n, "groups":
    # {"<question>/<kind>": [key, basis]}}; None when the result cache is off or a calibration
    # context annotated the results.
    located: str | None = None
    keys: dict[str, Any] | None = None


_resources: GradingResources | None = None
_rubrics: dict[str, LoadedRubric] = {}


def init_worker(options: Mapping[str, Any]) -> None:
    """Process-pool initializer: one GradingResources per process, kept for its lifetime.

    What the process inherited from the fork server (its preloads: NumPy, pydantic, the
    graders; about 50,000 objects) lives as long as it does, so it is frozen: else the first
    collection walked all of it, 27-30 ms of CPU in each of `import`'s grading processes
    (docs/benchmarks.md, issue #32's seventh sitting)."""
    global _resources
    gc.freeze()  # moves every tracked object to the permanent generation, walking none
    _die_with_parent()
    # Grading is throughput work; accepting uploads is latency work on the same cores.
    if niceness := GradingOptions.from_mapping(options).worker_nice:
        os.nice(niceness)
    _resources = GradingResources(options=dict(options))
    atexit.register(_resources.close)


def init_pool_worker(options: Mapping[str, Any]) -> None:
    """`init_worker` for the API's own pool. SIGTERM or Ctrl-C to the server's process group
    reaches its workers too: they must not die mid-grade (their jobs would fail); the server
    decides when they stop, and they exit with it."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    init_worker(options)


def _die_with_parent() -> None:
    """A worker must not outlive a server that was killed: it would hold memory and zygotes.

    The pool's processes are forked by multiprocessing's fork server, which itself outlives a
    killed server, so a parent-death signal is not enough: watch the server's sentinel."""
    parent = multiprocessing.parent_process()
    sentinel = getattr(parent, "sentinel", None)
    if sentinel is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _resources_for_process() -> GradingResources:
    global _resources
    if _resources is None:  # called outside a pool (offline `grade`, tests)
        _resources = GradingResources()
        atexit.register(_resources.close)
    return _resources


def warm(kinds: Sequence[str]) -> int:
    """A pool call made before the process's first documents: each kind starts what it keeps
    for the process's life (the code kind's sandbox) while the caller is still storing the
    documents. The process id."""
    from graders.registry import get_kind

    resources = _resources_for_process()
    for kind in kinds:
        if (strategy := get_kind(kind)) is not None:
            strategy.warm(resources)
    return os.getpid()


class RubricText(NamedTuple):
    """A stored rubric as the grading processes get it: its text, the file it was loaded from
    (`rubric_versions.source_name`) and the battery files kept with it
    (`rubric_versions.battery_files`), which it is graded with wherever that file is now. A
    version stored without them finds its batteries beside that file."""

    text: str
    source: str | None = None
    files: bytes | None = None

    @classmethod
    def of(cls, rubric: str | RubricText) -> RubricText:
        return cls(rubric) if isinstance(rubric, str) else rubric

    @classmethod
    def of_version(cls, version: StoredVersion) -> RubricText:
        return cls(version.source_text, version.source_name, version.battery_files)


class StoredVersion(Protocol):
    """What a stored rubric version gives the grading processes (a row, or a copy of one)."""

    @property
    def source_text(self) -> str: ...
    @property
    def source_name(self) -> str | None: ...
    @property
    def battery_files(self) -> bytes | None: ...


def _sha256(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def _rubric(rubric: str | RubricText, options: GradingOptions) -> LoadedRubric:
    text, source, files = RubricText.of(rubric)
    key = _sha256(text) + (_sha256(files) if files is not None else "")
    if key not in _rubrics:
        # A version without its battery files, in a process that never read the rubric's file
        # (forked before the command read it): its batteries are beside the file it was loaded
        # from, else in the operator's rubrics folder.
        _rubrics[key] = stored_rubric(text, source or "<stored rubric>", files,
                                      default_dir=options.rubrics_dir)
    return _rubrics[key]


def _unbuildable(rubric: str | RubricText, exc: RubricError) -> WorkerOutcome:
    """A stored rubric this process cannot rebuild (its batteries moved or changed since it was
    loaded): the submission waits for staff, never a student's zero. The problems are logged
    here; the outcome names the rubric's file only (staff see it, students never do)."""
    text, source, files = RubricText.of(rubric)
    log.error("the stored rubric %s cannot be rebuilt in a grading process: %s",
              source or "<stored rubric>", "; ".join(exc.problems))
    why = ("the battery files stored with it could not be used (the server's log says why)"
           if files else "its code batteries were not found where it was loaded from, or "
           "changed since")
    return WorkerOutcome(
        status="grader_error", rubric_hash=_sha256(text),
        error=f"The rubric ({Path(source).name if source else 'as stored'}) could not be "
              f"rebuilt in the grading process: {why}. Load the rubric again (gradeformer "
              "rubric load) and regrade.")


def grade_document(rubric_text: str | RubricText, raw: bytes, filename: str | None,
                   content_type: str | None, resources: GradingResources | None = None,
                   context: str | None = None, submission_id: int | None = None,
                   handout: str | None = None) -> WorkerOutcome:
    """`context`: what was learned from the instructor's grades (`app.calibration.context`,
    JSON); `submission_id`: the document's submission, whose own graded answers it leaves out;
    `handout`: the edition declared with the upload."""
    resources = resources if resources is not None else _resources_for_process()
    outcome = _grade_one(rubric_text, _Upload(raw, filename, content_type, handout), resources,
                         context, submission_id)
    _cache(resources).flush()
    return outcome


# grade_document or one with its signature (a module-level function: it is pickled to the
# processes; tests hand in one that injects faults).
Grade = Callable[..., WorkerOutcome]


class _Upload(NamedTuple):
    raw: bytes
    filename: str | None
    content_type: str | None
    handout: str | None = None


def remember_rubric(text: str, loaded: LoadedRubric) -> None:
    """`loaded`, parsed from `text` by this process already (the offline `grade` read its
    file): grading with `text` then does not parse it again."""
    if (key := _sha256(text)) == loaded.content_hash:  # the very text, not a file changed since
        _rubrics[key] = loaded


def _cache(resources: GradingResources) -> ResultCache:
    """The process's result cache, opened from its options on first use (after a deadline
    closed the resources, again)."""
    return resources.shared(CACHE_KEY, lambda: open_cache(resources.options))


def _read(loaded: LoadedRubric, upload: _Upload, resources: GradingResources
          ) -> tuple[ParsedSubmission, str | None]:
    """The located answers and their cache key: from the cache when this document was read
    under the same question structure (and declared edition), else read (and kept)."""
    cache = _cache(resources)
    key = location_key(loaded, *upload) if cache.enabled else None
    parsed = cache.load(key, decode_parsed) if key is not None else None
    if parsed is not None:
        cache.stats.location_cached += 1
        return parsed, key
    parsed = read_submission(upload.raw, upload.filename, upload.content_type, loaded.rubric,
                             upload.handout)
    if key is not None:
        cache.stats.located += 1
        cache.save(key, encode_parsed(parsed))
    return parsed, key


def _grade_one(rubric_text: str | RubricText, upload: _Upload, resources: GradingResources,
               context: str | None, submission_id: int | None) -> WorkerOutcome:
    """`grade_document` without writing what it computed to the cache (the caller does)."""
    started = time.perf_counter()
    cache = _cache(resources)
    cache.reset_stats()
    cache.take_keys()
    try:
        loaded = _rubric(rubric_text, resources.settings)
    except RubricError as exc:
        return _unbuildable(rubric_text, exc)
    learned = parse_context(context) if context else None
    if learned is not None:
        loaded = apply_context(loaded, learned, submission_id)
    limit = resources.settings.document_seconds
    try:
        with deadline(limit):
            outcome = _grade(loaded, upload, resources)
            if learned is not None and outcome.items:
                items = annotate(outcome.items, loaded, learned, submission_id,
                                 outcome.answers, resources)
                # Annotated results are not what the groups' keys name: nothing is recorded.
                outcome = outcome.model_copy(update={"items": items, "located": None,
                                                     "keys": None})
    except DocumentDeadline:
        # Whatever the sandbox pool or a model was doing is abandoned mid-way: start them
        # afresh for the next document rather than trust their state.
        resources.close()
        outcome = _failed(loaded, "needs_review", f"Reading and grading this document took "
                          f"longer than {limit:g} s (the per-document limit); a human needs to "
                          "look at it.")
    work = cache.reset_stats().as_dict() if cache.enabled else {}
    return outcome.model_copy(update={"execution_time": time.perf_counter() - started,
                                      "work": work})


def _failed(loaded: LoadedRubric, status: OutcomeStatus, error: str) -> WorkerOutcome:
    return WorkerOutcome(status=status, rubric_hash=loaded.content_hash, error=error)


def _grade(loaded: LoadedRubric, upload: _Upload, resources: GradingResources) -> WorkerOutcome:
    reading = resources.settings.parse_seconds
    try:
        # Reading is linear work on at most a few MB: far less than grading needs. A document
        # whose reading outlives its share is hostile or pathological, whatever remains.
        with deadline(reading):
            parsed, location = _read(loaded, upload, resources)
    except DocumentDeadline:
        return _failed(loaded, "needs_review", f"Reading this document took longer than "
                       f"{reading} s (the limit for finding the answers); a human needs to look "
                       "at it.")
    except InvalidDocument as exc:
        return _failed(loaded, "error", str(exc))
    except Exception as exc:  # our bug while reading: the submission stays, marked for a human
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return _failed(loaded, "grader_error", f"Internal error while reading the document "
                       f"({type(exc).__name__} in {where.name}); a human needs to look at this "
                       "submission.")
    max_answers = resources.settings.max_answers
    located = len(parsed.answers) + sum(len(a.parts) for a in parsed.answers.values())
    if max_answers is not None and located > max_answers:
        return _failed(loaded, "error", f"The document holds {located} answers; at most "
                       f"{max_answers} are accepted.")
    located_digest = submission_digest(parsed) if location is not None else None
    outcome = grade_submission(loaded, parsed, resources, located_digest)
    keys = (run_keys(loaded, parsed, location, located, _cache(resources).take_keys())
            if location is not None else None)
    return WorkerOutcome(
        status=outcome.status.value,
        rubric_hash=outcome.rubric_hash,
        student_id=parsed.student_id,
        items=outcome.items,
        answers={q: a.text[:ANSWER_CHARS] for q, a in parsed.answers.items()},
        located=located_digest,
        keys=keys,
    )


# (bytes, file name, content type) or, declaring a handout edition, (..., edition)
Document = tuple[bytes, str | None, str | None] | tuple[bytes, str | None, str | None, str | None]


def grade_many(rubric_text: str | RubricText, documents: Sequence[Document],
               context: str | None = None, submission_ids: list[int] | None = None
               ) -> list[WorkerOutcome]:
    """Several documents in one call: bulk regrades pay the process round trip once per batch.
    `submission_ids` (one per document) name whose own graded answers each leaves out.
    What they computed goes to the cache in one write at the end."""
    ids: list[int | None] = list(submission_ids) if submission_ids else [None] * len(documents)
    resources = _resources_for_process()
    try:
        return [
            _grade_one(rubric_text, _Upload(*document), resources, context, sid)
            for document, sid in zip(documents, ids, strict=True)
        ]
    finally:
        _cache(resources).flush()
