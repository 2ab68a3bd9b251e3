"""Rubric files read and validated with precise error messages: the models (`graders.rubric_model`),
each item's config checked by its grader kind."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from graders.disclosure import answer_values, states_value
from graders.kind import Kind
from graders.registry import config_model_for, get_kind, is_known_kind
from graders.rubric_checks import compose, cross_checks, line_of
from graders.rubric_files import RubricFiles, content_hash, materialise
from graders.rubric_model import (
    BUNDLED_RUBRICS,
    AnswerKind,
    Finding,
    LoadedRubric,
    Question,
    Release,
    Rubric,
    RubricError,
    RubricItem,
    SolutionRelease,
    Visibility,
)

__all__ = [
    "BUNDLED_RUBRICS",
    "AnswerKind",
    "LoadedRubric",
    "Question",
    "Release",
    "Rubric",
    "RubricError",
    "RubricItem",
    "SolutionRelease",
    "Visibility",
    "battery_problems",
    "bundled_rubric_paths",
    "is_battery_file",
    "load_rubric",
    "parse_rubric",
    "stored_rubric",
]

def _location(loc: tuple[int | str, ...], data: Any) -> str:
    """Turn a pydantic location into a readable path, naming questions and items by id."""
    parts: list[str] = []
    node = data
    for key in loc:
        if isinstance(key, int) and isinstance(node, list) and 0 <= key < len(node):
            element = node[key]
            label = element.get("id") if isinstance(element, dict) else None
            parts[-1:] = [f"{parts[-1] if parts else ''}[{label or key}]"]
            node = element
        else:
            parts.append(str(key))
            node = node.get(key) if isinstance(node, dict) else None
    return ".".join(parts) or "(top level)"


def _problems(
    error: ValidationError, data: Any, lines: _Lines, prefix: tuple[int | str, ...] = ()
) -> list[str]:
    errors = error.errors()
    # A list whose elements failed is also reported as too short (pydantic counts only the
    # valid ones): noise beside the element's own error.
    nested = [tuple(e["loc"]) for e in errors]
    kept = [
        e for e in errors
        if not (e["type"] == "too_short"
                and any(len(n) > len(e["loc"]) and n[: len(e["loc"])] == tuple(e["loc"])
                        for n in nested))
    ]
    return [lines.at(prefix + tuple(e["loc"]), f"{_location(prefix + tuple(e['loc']), data)}: "
                     f"{e['msg']}") for e in kept]


class _Lines:
    """Prefixes a problem with the line of the YAML it comes from (the node tree is composed
    only when there is a problem to place)."""

    def __init__(self, raw: bytes) -> None:
        self._raw = raw
        self._root: yaml.Node | None = None
        self._composed = False

    def at(self, loc: tuple[int | str, ...], problem: str) -> str:
        if not self._composed:
            self._root, self._composed = compose(self._raw), True
        line = line_of(self._root, loc)
        return problem if line is None else f"line {line}: {problem}"


# libyaml's parser when PyYAML was built with it (ten times faster on a large rubric), with
# the same safe constructor: plain data only, whichever parser reads it.
_SafeLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _safe_load(raw: bytes) -> Any:
    return yaml.load(raw, Loader=_SafeLoader)  # a safe loader: plain data only


# The folder each rubric text was read from, by content hash: a stored rubric parsed again from
# its text alone (a grading worker) still finds the batteries beside its file.
_rubric_dirs: dict[str, Path] = {}
MAX_REMEMBERED = 1024


def _folder_of(source: str) -> Path | None:
    """The folder of `source` when it names a rubric file (a path recorded at load time)."""
    try:
        path = Path(source)
        if path.suffix in (".yaml", ".yml", ".toml") and path.is_file():
            return path.resolve().parent
    except (OSError, ValueError):
        return None
    return None


def stored_rubric(text: str, source: str, files: bytes | None,
                  default_dir: Path | None = None) -> LoadedRubric:
    """A stored rubric version rebuilt: from its text and the files stored with it (its code
    batteries as they were loaded, `graders.rubric_files`), wherever the folder it was loaded
    from is now; a version stored without files finds them as `parse_rubric` does."""
    if files is None:
        return parse_rubric(text, source, default_dir=default_dir)
    try:
        kept = RubricFiles.decode(files)
    except (ValueError, TypeError, IndexError) as exc:
        raise RubricError(source, [f"its stored battery files cannot be read: {exc}"]) from exc
    return parse_rubric(text, source, files=kept)


def parse_rubric(text: str | bytes, source: str = "<rubric>",
                 rubric_dir: Path | None = None, default_dir: Path | None = None,
                 files: RubricFiles | None = None) -> LoadedRubric:
    """`rubric_dir`: the folder of the file the text came from, where its code items'
    batteries are looked for. Unset: the folder of `source` when it names a file, else the
    folder this text was last read from in this process, else `default_dir` (the operator's
    rubrics folder, for a grading process that only has the stored text), else the bundled
    rubrics/. `files`: the batteries kept with a stored version, read from this process's copy
    of them (never from a folder); the rubric's hash then names them too."""
    raw = text.encode() if isinstance(text, str) else text
    text_hash = hashlib.sha256(raw).hexdigest()
    if files is not None:
        rubric_dir = materialise(files)
    else:
        known = rubric_dir or _folder_of(source) or _rubric_dirs.get(text_hash)
        rubric_dir = known or default_dir
        if known is not None:
            if len(_rubric_dirs) >= MAX_REMEMBERED:
                _rubric_dirs.clear()
            _rubric_dirs[text_hash] = known
    try:
        data = _safe_load(raw)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = "" if mark is None else f"line {mark.line + 1}: "
        raise RubricError(source, [f"{where}not valid YAML: {exc}".replace("\n", " ")]) from exc
    lines = _Lines(raw)
    if not isinstance(data, dict):
        raise RubricError(source, [lines.at((), "the top level must be a mapping with slug, "
                                                 "title, questions")])
    try:
        rubric = Rubric.model_validate(data)
    except ValidationError as exc:
        raise RubricError(source, _problems(exc, data, lines)) from exc
    problems: list[str] = []
    configs: dict[str, BaseModel] = {}
    for qi, question in enumerate(rubric.questions):
        for ii, item in enumerate(question.items):
            item.placed_in(rubric_dir)
            model = config_model_for(item.grader)
            loc: tuple[int | str, ...] = ("questions", qi, "items", ii)
            stated = states_value(item.title, answer_values(item)) if item.title_public else None
            if stated is not None:
                where = _location((*loc, "title_public"), data)
                problems.append(lines.at((*loc, "title_public"),
                    f"{where}: the title states the answer value {stated}; a public title "
                    "must not give the answer away"
                ))
            if model is None:
                if not is_known_kind(item.grader):
                    where = _location((*loc, "grader"), data)
                    problems.append(lines.at((*loc, "grader"),
                                             f"{where}: unknown grader kind {item.grader!r}"))
                continue  # a known kind that is not built yet: its items grade as pending
            try:
                configs[item.id] = model.model_validate(
                    item.config, context={"rubric_dir": rubric_dir})
            except ValidationError as exc:
                problems.extend(_problems(exc, data, lines, (*loc, "config")))
    for finding in cross_checks(rubric, configs):
        problems.append(lines.at(finding.loc, f"{_location(finding.loc, data)}: "
                                              f"{finding.message}"))
    if problems:
        raise RubricError(source, problems)
    return LoadedRubric(rubric=rubric, content_hash=content_hash(text_hash, files),
                        source=source)


def battery_problems(raw: bytes, rubric: Rubric) -> list[str]:
    """The code batteries a valid rubric names that do not build, one line each with its line
    (what `gradeformer rubric validate` adds to the checks of parse_rubric)."""
    return _kind_lines(raw, rubric, lambda kind: kind.rubric_findings(rubric))


def battery_notes(raw: bytes, rubric: Rubric) -> list[str]:
    """What a valid rubric's kinds suggest a second look at, one line each with its line
    (`gradeformer rubric validate` prints them as notes; the exit code is unchanged)."""
    return _kind_lines(raw, rubric, lambda kind: kind.rubric_notes(rubric))


def _kind_lines(raw: bytes, rubric: Rubric, ask: Callable[[Kind], list[Finding]]
                ) -> list[str]:
    """What each kind of the rubric's items says of it (`ask` of its strategy), one line
    each with the line of the file it points at."""
    findings = [finding for kind in sorted({item.grader for item in rubric.items()})
                if (strategy := get_kind(kind)) is not None
                for finding in ask(strategy)]
    if not findings:
        return []
    lines, data = _Lines(raw), _safe_load(raw)
    return [lines.at(f.loc, f"{_location(f.loc, data)}: {f.message}") for f in findings]


def load_rubric(path: Path | str) -> LoadedRubric:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RubricError(str(path), [f"cannot read: {exc.strerror}"]) from exc
    return parse_rubric(raw, str(path), path.resolve().parent)



# A code battery beside its rubric (docs/rubrics.md) is YAML too: a top-level `function:` and no
# `questions:` says a file is a battery, not a rubric.
_TOP_FUNCTION = re.compile(r"(?m)^function[ \t]*:")
_TOP_QUESTIONS = re.compile(r"(?m)^questions[ \t]*:")


def is_battery_file(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False  # unreadable: left to the rubric loader, which says why
    return bool(_TOP_FUNCTION.search(text)) and not _TOP_QUESTIONS.search(text)


def bundled_rubric_paths(directory: Path = BUNDLED_RUBRICS) -> list[Path]:
    """The rubric files of a rubrics folder: its *.yaml files, less the code batteries kept
    beside their rubric."""
    return sorted(p for p in directory.glob("*.yaml") if p.is_file() and not is_battery_file(p))
