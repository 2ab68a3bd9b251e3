"""Assignments are rubrics: loading a rubric creates the assignment or a new current version."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session

from app.assignments import repository
from app.audit.repository import record
from app.db.base import utcnow
from app.db.models import Assignment, RubricVersion, User
from app.errors import InvalidInput, NotFound, Unavailable
from graders.rubric import (
    LoadedRubric,
    RubricError,
    bundled_rubric_paths,
    parse_rubric,
    stored_rubric,
)
from graders.rubric_files import take_files

log = logging.getLogger(__name__)

_parsed: dict[str, LoadedRubric] = {}


@dataclass(frozen=True)
class CurrentRubric:
    assignment: Assignment
    version: RubricVersion
    loaded: LoadedRubric


@dataclass(frozen=True)
class LoadResult:
    assignment: Assignment
    version: RubricVersion
    changed: bool  # a new version became current


def parsed_version(version: RubricVersion) -> LoadedRubric:
    """The stored rubric text with its stored battery files, validated once per process (it is
    immutable per hash)."""
    loaded = _parsed.get(version.content_hash)
    if loaded is None:
        try:
            loaded = stored_rubric(version.source_text, version.source_name,
                                   version.battery_files)
        except RubricError as exc:
            # Valid when it was loaded: a version stored without its battery files finds them
            # beside its file, and they moved or changed since. The problems name the staff's
            # files: logged, not shown.
            log.error("the stored rubric %s cannot be rebuilt: %s", version.source_name,
                      "; ".join(exc.problems))
            raise Unavailable(
                "This assignment's rubric cannot be read now: a file it names beside it (a "
                "code battery) is missing or changed since it was loaded. Staff: load the "
                "rubric again (gradeformer rubric load)."
            ) from None
        _parsed[version.content_hash] = loaded
    return loaded


def require_assignment(session: Session, slug: str) -> Assignment:
    assignment = repository.get_by_slug(session, slug)
    if assignment is None:
        raise NotFound(f"There is no assignment {slug!r}.", slug=slug)
    return assignment


def current_rubric(session: Session, slug: str) -> CurrentRubric:
    assignment = require_assignment(session, slug)
    version = repository.current_version(session, assignment.id)
    if version is None:
        raise NotFound(f"Assignment {slug!r} has no rubric loaded.", slug=slug)
    return CurrentRubric(assignment, version, parsed_version(version))


def read_rubric(text: str, source: str) -> tuple[LoadedRubric, bytes | None]:
    """A rubric being loaded and the battery files it reads beside its file, read now: it is
    validated as it will be graded, from those files (`graders.rubric_files`)."""
    try:
        read = parse_rubric(text, source)
        files = take_files(read)
        loaded = read if files is None else parse_rubric(text, source, files=files)
    except RubricError as exc:
        raise InvalidInput(str(exc), problems=exc.problems) from exc
    return loaded, None if files is None else files.encode()


def load_rubric_text(
    session: Session, text: str, source: str, actor: User | None = None,
    read: tuple[LoadedRubric, bytes | None] | None = None,
) -> LoadResult:
    """`read`: what `read_rubric` found of this text, when the caller read it already."""
    loaded, files = read if read is not None else read_rubric(text, source)
    rubric = loaded.rubric
    assignment = repository.get_by_slug(session, rubric.slug)
    if assignment is None:
        assignment = repository.add_assignment(session, rubric.slug, rubric.title)
    else:
        assignment.title = rubric.title
    version = repository.find_version(session, assignment.id, loaded.content_hash)
    if version is None:
        version = repository.add_version(
            session, assignment, rubric.version, loaded.content_hash, text, source, files
        )
    changed = not version.is_current
    if changed:
        repository.make_current(session, version)
        record(
            session,
            actor,
            "rubric.load",
            "assignment",
            rubric.slug,
            {"rubric_hash": loaded.content_hash, "version": rubric.version, "source": source},
        )
    _parsed[loaded.content_hash] = loaded
    return LoadResult(assignment, version, changed)


def sync_rubric_dir(session: Session, directory: Path) -> list[LoadResult]:
    """Load every valid rubric file of a directory (the bundled rubrics at startup).

    A file becomes current only when its content changed since the sync last loaded it: a
    version an instructor loaded since (`gradeformer rubric load`, the API) stays current
    across restarts. An invalid file is logged and skipped, so one broken rubric does not take
    the service down; its assignment keeps its last good version.
    """
    results: list[LoadResult] = []
    for path in bundled_rubric_paths(directory):
        try:
            with session.begin_nested():
                results.append(
                    sync_rubric_text(session, path.read_bytes().decode("utf-8"), str(path))
                )
        except (InvalidInput, UnicodeDecodeError) as exc:
            log.error("rubric %s not loaded: %s", path, exc)
    return results


def sync_rubric_text(session: Session, text: str, source: str) -> LoadResult:
    """A rubric file read by the directory sync (see `sync_rubric_dir`)."""
    loaded, files = read = read_rubric(text, source)
    assignment = repository.get_by_slug(session, loaded.rubric.slug)
    if assignment is not None:
        last = repository.last_synced_version(session, assignment.id)
        current = repository.current_version(session, assignment.id)
        if last is not None and last.content_hash == loaded.content_hash:
            # The file did not change since the sync loaded it: whatever is current stays.
            return LoadResult(assignment, current or last, changed=False)
        if last is None and current is not None and current.source_name != source:
            # The first sync of a database that has no record of one: the current version came
            # from elsewhere, an instructor's choice that a start must not revert. The file is
            # recorded, so its next change becomes current.
            _synced(session, assignment, loaded, text, source, files)
            return LoadResult(assignment, current, changed=False)
        if (last is not None and files is not None and last.battery_files is None
                and last.source_text == text):
            # The same file, synced before versions kept their battery files: kept with them
            # now, and current only where the version it replaces was.
            version = _synced(session, assignment, loaded, text, source, files)
            if last.is_current and not version.is_current:
                repository.make_current(session, version)
                return LoadResult(assignment, version, changed=True)
            return LoadResult(assignment, current or version, changed=False)
    result = load_rubric_text(session, text, source, read=read)
    result.version.synced_at = utcnow()
    return result


def _synced(session: Session, assignment: Assignment, loaded: LoadedRubric, text: str,
            source: str, files: bytes | None) -> RubricVersion:
    """The version of a file the sync read, recorded as synced (not made current)."""
    version = repository.find_version(session, assignment.id, loaded.content_hash)
    if version is None:
        version = repository.add_version(session, assignment, loaded.rubric.version,
                                         loaded.content_hash, text, source, files)
    version.synced_at = utcnow()
    return version


def rubric_versions(session: Session) -> list[tuple[Assignment, list[RubricVersion]]]:
    """Every assignment with its rubric versions, oldest first."""
    return [(a, repository.versions(session, a.id)) for a in repository.list_all(session)]


def list_assignments(session: Session) -> list[Assignment]:
    return repository.list_all(session)
