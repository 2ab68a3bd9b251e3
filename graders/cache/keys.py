"""Cache keys: sha256 of a canonical encoding of exactly what determines each result.

Every key names its layer and the grader code it was computed by (`code_fingerprint`: the
explicit layer version and a hash of the `graders` package's source), so a version bump or any
change of grading code invalidates it. Student text enters keys only through its hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import threading
from collections.abc import Mapping, Sequence
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult
from graders.rubric_model import LoadedRubric, Question, Rubric, RubricItem

if TYPE_CHECKING:
    import numpy as np

# Bump a layer's version when what it stores changes meaning without a source change.
LOCATION_VERSION = "1"
GROUP_VERSION = "2"  # 2: answer-only kinds name their answer, not the document
SANDBOX_VERSION = "1"

# Options that change how a process runs, never what a grade is.
OPERATIONAL_OPTIONS = frozenset({
    "worker_nice", "result_cache_path", "result_cache_bytes", "document_seconds",
    "parse_seconds", "max_answers",
    # Where vectors are kept, not what they are (they are keyed by the model's fingerprint):
    # moving the database and its caches to another folder must not invalidate every key.
    "embedding_cache_dir",
    # Where batteries are looked for: their contents are in the code kind's environment key.
    "rubrics_dir",
})

_GRADERS = Path(__file__).resolve().parent.parent


def _default(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple | frozenset | set):
        return sorted(value, key=repr) if not isinstance(value, tuple) else list(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"no canonical form for {type(value).__name__}")


def canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=_default).encode()


def digest(*parts: object) -> str:
    return hashlib.sha256(canonical(list(parts))).hexdigest()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of every source and data file of the grading library, computed once."""
    return tree_fingerprint(_GRADERS)


_HASHED = (".py", ".json", ".yaml")


def _suffix(name: str) -> str:
    """PurePath.suffix of a file name."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def tree_fingerprint(root: Path) -> str:
    """A hash of the .py, .json and .yaml files under `root` but in `__pycache__`: each one's
    path from `root`, then its bytes, in the order of their paths' parts (as sorted Paths).
    Walked with os.walk, which skips the caches' folders, rather than Path.rglob (a Path
    object per file and bytecode file: about half of the cost, paid by every command that
    computes a cache key)."""
    files: list[tuple[str, ...]] = []
    for folder, folders, names in os.walk(root):
        folders[:] = [f for f in folders if f != "__pycache__"]
        at = os.path.relpath(folder, root)
        parts = () if at == os.curdir else tuple(at.split(os.sep))
        files.extend((*parts, name) for name in names if _suffix(name) in _HASHED)
    hasher = hashlib.sha256()
    for parts in sorted(files):
        relative = "/".join(parts)
        with open(os.path.join(root, *parts), "rb") as handle:
            hasher.update(relative.encode() + b"\x00")
            hasher.update(handle.read())
        hasher.update(b"\x00")
    return hasher.hexdigest()


# --- location ---------------------------------------------------------------------------------

def location_projection(rubric: Rubric) -> dict[str, Any]:
    """What reading and locating a document reads of the rubric: the question structure and its
    wording, item ids (JSON uploads name them) and item cues; never points or feedback."""
    return {
        "handouts": list(rubric.handouts),
        "questions": [
            {
                "id": q.id, "title": q.title, "prompt": q.prompt, "part": q.part,
                "labels": list(q.labels), "answer_kind": q.answer_kind, "cues": list(q.cues),
                "handouts": list(q.handouts),
                "items": [{"id": i.id, "grader": i.grader, "cues": i.config.get("cues")}
                          for i in q.items],
            }
            for q in rubric.questions
        ],
    }


_projections: dict[str, str] = {}
_lock = threading.Lock()


def _location_part(loaded: LoadedRubric) -> str:
    with _lock:
        part = _projections.get(loaded.content_hash)
    if part is None:
        part = digest(location_projection(loaded.rubric))
        with _lock:
            if len(_projections) > 256:
                _projections.clear()
            _projections[loaded.content_hash] = part
    return part


def _upload_part(document: str, filename: str | None, content_type: str | None,
                 handout: str | None) -> list[str | None]:
    # The edition declared with the upload reads the same bytes differently; an undeclared
    # upload's part is what it always was.
    part = [document, filename, content_type]
    return part if handout is None else [*part, handout]


def location_key_for(projection: str, raw: bytes | None, filename: str | None,
                     content_type: str | None, *, document: str | None = None,
                     handout: str | None = None) -> str:
    """`document`: the upload's sha256 (hex) when the caller has it without the bytes (the
    `sha256` column of a stored submission): the same key as from `raw`. `handout`: the
    edition declared with the upload (the `handout` column)."""
    if document is None:
        if raw is None:
            raise ValueError("location_key_for needs the upload's bytes or their sha256")
        document = hashlib.sha256(raw).hexdigest()
    return "location:" + digest(LOCATION_VERSION, code_fingerprint(), projection,
                                *_upload_part(document, filename, content_type, handout))


def location_key_head(projection: str) -> bytes:
    """What `location_key_for` hashes before the upload's part, for `location_key_of` (a
    regrade computes the key of every stored submission under one rubric)."""
    return canonical([LOCATION_VERSION, code_fingerprint(), projection])[:-1]


def location_key_of(head: bytes, document: str, filename: str | None,
                    content_type: str | None, handout: str | None = None) -> str:
    """`location_key_for(projection, None, filename, content_type, document=document,
    handout=handout)`: the canonical list is the canonical head's items and these, joined by a
    comma."""
    tail = canonical(_upload_part(document, filename, content_type, handout))
    return "location:" + hashlib.sha256(head + b"," + tail[1:]).hexdigest()


def location_part(loaded: LoadedRubric) -> str:
    """The rubric's location projection, hashed (memoized by the rubric's content hash)."""
    return _location_part(loaded)


def location_key(loaded: LoadedRubric, raw: bytes, filename: str | None,
                 content_type: str | None, handout: str | None = None) -> str:
    return location_key_for(_location_part(loaded), raw, filename, content_type,
                            handout=handout)


# --- grader groups ----------------------------------------------------------------------------

_PARSED: TypeAdapter[ParsedSubmission] = TypeAdapter(ParsedSubmission)


def submission_digest(parsed: ParsedSubmission) -> str:
    """The located submission as graders see it (its text, format, answers and reasons)."""
    return hashlib.sha256(_PARSED.dump_json(parsed)).hexdigest()


_ANSWER: TypeAdapter[LocatedAnswer] = TypeAdapter(LocatedAnswer)


def answer_digest(answer: LocatedAnswer) -> str:
    """One located answer as a grader sees it (text, span, confidence, method, label, parts)."""
    return hashlib.sha256(_ANSWER.dump_json(answer)).hexdigest()


def missing_basis(parsed: ParsedSubmission, question_id: str) -> str:
    """What an unanswered question's results read of the located submission: why it is
    missing (the engine's default reason when the reader gave none), in a document that may
    not answer this assignment that doubt, unclaimed text that may answer it, and the declared
    handout edition."""
    parts: list[object] = [parsed.missing.get(question_id)]
    unsure = parsed.unsure.get(question_id)
    if unsure:  # after the reason, before the doubt: the digest of a sure absence is unchanged
        parts.append({"unsure": unsure})
    if parsed.doubt:
        parts.append(parsed.doubt)
    if parsed.handout is not None:
        parts.append({"handout": parsed.handout})
    return digest(*parts)


def missing_digest(loaded: LoadedRubric, question: Question, basis: str) -> str:
    """Everything an unanswered question's results are made of: the question and its items as
    the rubric states them (points included), the rubric's handout editions, the engine's code
    and why the answer is missing. Not a cache key (nothing is stored under it): a regrade
    compares it with the stored run's to reuse those rows."""
    rubric = loaded.rubric
    return "missing:" + digest(GROUP_VERSION, code_fingerprint(), list(rubric.handouts),
                               question.model_dump(mode="json"), basis)


_options: dict[int, tuple[Mapping[str, Any], str]] = {}


def options_digest(options: Mapping[str, Any]) -> str:
    """The options that can change a grade (a process keeps one mapping: hashed once)."""
    kept_before = _options.get(id(options))
    if kept_before is not None and kept_before[0] is options:
        return kept_before[1]
    kept = {k: v for k, v in options.items() if k not in OPERATIONAL_OPTIONS}
    try:
        found = digest(kept)
    except TypeError:  # an option without a canonical form: hash its repr, still exact
        found = digest(sorted((k, repr(v)) for k, v in kept.items()))
    if len(_options) > 64:
        _options.clear()
    _options[id(options)] = (options, found)
    return found


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, Mapping):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def referenced_items(rubric: Rubric, items: Sequence[RubricItem]) -> tuple[str, ...]:
    """Other items these items' configs name (a carry-forward reads that item's result)."""
    ids = {i.id for i in rubric.items()}
    own = {i.id for i in items}
    named = set().union(*(_strings(i.config) for i in items)) if items else set()
    return tuple(sorted((named & ids) - own))


def group_static(loaded: LoadedRubric, question: Question, kind: str, version: str,
                 items: Sequence[RubricItem]) -> str:
    """Everything about a group that comes from the rubric and the code, points included."""
    rubric = loaded.rubric
    header = {"review_threshold": rubric.review_threshold, "handouts": list(rubric.handouts)}
    shape = question.model_dump(mode="json", exclude={"items"})
    return digest(GROUP_VERSION, code_fingerprint(), kind, version, header, shape,
                  [i.model_dump(mode="json") for i in items])


def earlier_digest(earlier: Mapping[str, ItemResult], referenced: Sequence[str]) -> str:
    if not referenced:
        return ""
    return digest([[r, earlier[r].model_dump(mode="json") if r in earlier else None]
                   for r in referenced])


_tails: dict[tuple[str, str], str] = {}


def group_key(static: str, submission: str, question_id: str, options: str, earlier: str,
              environment: str) -> str:
    head, after = group_key_parts(static, question_id, options, earlier, environment)
    return group_key_of(head, submission, after)


def group_key_parts(static: str, question_id: str, options: str, earlier: str,
                    environment: str) -> tuple[bytes, bytes]:
    """What `group_key` hashes before and after the submission's part (a regrade computes a
    group's key for many submissions: these once, `group_key_of` for each)."""
    # Every part but the question id and the environment is a fixed-length hex digest; those
    # two are hashed first so that no separator inside them can shift the fields.
    tail = _tails.get((question_id, environment))
    if tail is None:
        tail = hashlib.sha256(canonical([question_id, environment])).hexdigest()
        if len(_tails) > 4096:
            _tails.clear()
        _tails[(question_id, environment)] = tail
    return (static + "\x00").encode(), "\x00".join(("", options, earlier, tail)).encode()


def group_key_of(head: bytes, submission: str, after: bytes) -> str:
    return "group:" + hashlib.sha256(head + submission.encode() + after).hexdigest()


# --- sandbox ----------------------------------------------------------------------------------

def sandbox_key(source: str, arrays: Sequence[np.ndarray[Any, Any]], calls: Sequence[object],
                timeout_s: float | None, policy: object) -> str:
    """A job's observations are determined by its exact inputs and the sandbox that ran it."""
    import numpy as np  # only where an array is hashed: the group keys do without it

    hasher = hashlib.sha256()
    for array in arrays:
        native = np.asarray(array, order="C")  # 0-d stays 0-d: the child sees that shape
        hasher.update(canonical([native.dtype.str, list(native.shape)]))
        hasher.update(native.tobytes())
    return "sandbox:" + digest(
        SANDBOX_VERSION, code_fingerprint(), np.__version__, platform.python_version(),
        source, hasher.hexdigest(), [repr(c) for c in calls], timeout_s, repr(policy),
    )
