"""What the offline commands (`grade`, `evaluate`) share: reading a file under the upload limit
and finding the rubric, from files named on the command line or the rubrics folder."""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from pathlib import Path

from app.cli.context import fail, settings
from graders.rubric import (
    LoadedRubric,
    RubricError,
    bundled_rubric_paths,
    is_battery_file,
    load_rubric,
)

RUBRIC_SUFFIXES = (".yaml", ".yml")


class UnreadableFile(Exception):
    """A file the commands do not read: `reason` in words, `code` the command's exit status."""

    def __init__(self, path: Path, reason: str, code: int) -> None:
        super().__init__(f"{path}: {reason}")
        self.reason = reason
        self.code = code


def read_within(path: Path, limit: int) -> bytes:
    """At most `limit` bytes of `path`, else UnreadableFile: never more than limit + 1 bytes are
    read, so a file of many gigabytes (or /dev/zero) costs no more memory than the limit."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise UnreadableFile(path, f"cannot be read ({exc.strerror})", 1) from None
    if len(raw) > limit:
        raise UnreadableFile(path, f"larger than the upload limit of {limit} bytes", 2)
    return raw


def read_upload(path: Path) -> bytes:
    try:
        return read_within(path, settings().max_upload_bytes)
    except UnreadableFile as exc:
        raise fail(str(exc), exc.code) from None


def content_type(path: Path) -> str | None:
    return mimetypes.guess_type(path.name)[0]


def rubric_file(slug: str, explicit: Path | None) -> Path:
    """`explicit`, else the rubric of `slug` in the rubrics folder (GRADEFORMER_RUBRICS_DIR)."""
    if explicit is not None:
        return explicit
    directory = settings().rubrics_dir
    named = directory / f"{slug}.yaml"
    if named.is_file():
        return named
    for path in bundled_rubric_paths(directory):
        try:
            if load_rubric(path).rubric.slug == slug:
                return path
        except RubricError:
            continue
    raise fail(f"no rubric for assignment {slug!r} in {directory}")


def load_or_fail(path: Path) -> tuple[LoadedRubric, str]:
    """The validated rubric and its text; its problems end the command."""
    try:
        loaded = load_rubric(path)
        return loaded, path.read_bytes().decode("utf-8")
    except RubricError as exc:
        raise fail(str(exc)) from None


def rubric_paths(paths: Sequence[Path]) -> list[Path]:
    """The files named, a folder standing for its rubric files (*.yaml/*.yml but the batteries
    beside them)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p for p in path.iterdir()
                if p.is_file() and p.suffix in RUBRIC_SUFFIXES and not is_battery_file(p)
            )
            if not found:
                raise fail(f"{path} holds no rubric (*.yaml) files")
            files.extend(found)
        else:
            files.append(path)
    return files


def given_rubrics(paths: Sequence[Path]) -> dict[str, str]:
    """Slug -> rubric text of every file named, a folder standing for its *.yaml/*.yml files."""
    rubrics: dict[str, str] = {}
    for file in rubric_paths(paths):
        loaded, text = load_or_fail(file)
        slug = loaded.rubric.slug
        if slug in rubrics:
            raise fail(f"{file}: a second rubric for assignment {slug!r}")
        rubrics[slug] = text
    return rubrics
