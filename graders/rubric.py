"""Rubric files: assignment -> questions -> items, validated with precise error messages."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from graders.disclosure import answer_values, states_value
from graders.label_phrases import LabelPatternError, expand
from graders.registry import config_model_for, is_known_kind
from graders.rubric_checks import battery_findings, compose, cross_checks, line_of

AnswerKind = Literal["prose", "numeric", "code", "derivation", "mixed"]
# When a student sees an item's points and feedback (Gradescope's vocabulary): at once, never,
# once the due date has passed, or once an instructor publishes the grades.
Visibility = Literal["visible", "hidden", "after_due_date", "after_published"]
# When a student sees the rubric's solutions (reference answers, expected values, private titles).
SolutionRelease = Literal["never", "after_due_date", "after_published"]


class RubricError(Exception):
    """A rubric file that cannot be used; `problems` holds one line per problem."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: " + "; ".join(problems))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RubricItem(_Strict):
    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    points: Decimal = Field(ge=0)  # 0: reported, not scored (e.g. a plausibility check)
    grader: str
    title: str = ""
    config: dict[str, Any] = Field(default_factory=dict)
    # None: the rubric's `release.visibility`.
    visibility: Visibility | None = None
    # Titles often state the answer ("d_head = 64"): a student sees one only when it is marked
    # public, or once solutions are released.
    title_public: bool = False
    # The model answer a student is shown when solutions are released (default: derived from
    # the grader's config: reference statements, expected values).
    solution: str = ""
    # The folder of the rubric file the item was read from (None: not read from a file, or
    # bundled): what a code item's battery path is relative to. Not part of the content.
    _rubric_dir: Path | None = PrivateAttr(default=None)

    @property
    def rubric_dir(self) -> Path | None:
        return self._rubric_dir

    @field_validator("points", mode="before")
    @classmethod
    def _exact_points(cls, value: object) -> object:
        if isinstance(value, float):
            return Decimal(str(value))
        return value

    def typed_config(self) -> BaseModel | None:
        """The grader kind's own config model, or None when that kind is not registered."""
        model = config_model_for(self.grader)
        return None if model is None else model.model_validate(self.config)


class Question(_Strict):
    id: str = Field(min_length=1)
    title: str = ""
    prompt: str = ""
    part: str = ""
    # Labels a student may write for this question ("Q1", "1.", "1a", ...): cues for location.
    labels: tuple[str, ...] = ()
    answer_kind: AnswerKind = "prose"
    # Key terms and expected values that identify this question's answer by its content.
    cues: tuple[str, ...] = ()
    # The handout editions that ask this question (empty: all of the rubric's `handouts`). A
    # student of another edition who has no answer to it is not marked down: its items count
    # for neither points nor maximum.
    handouts: tuple[str, ...] = ()
    items: tuple[RubricItem, ...] = Field(min_length=1)

    @field_validator("labels")
    @classmethod
    def _readable_labels(cls, labels: tuple[str, ...]) -> tuple[str, ...]:
        for label in labels:
            if not label.strip():
                raise ValueError("a label is empty")
            try:
                expand(label)
            except LabelPatternError as exc:
                raise ValueError(str(exc)) from None
        return labels


class Release(_Strict):
    """What students see of their results, and when."""

    visibility: Visibility = "after_published"
    solutions: SolutionRelease = "never"


class Rubric(_Strict):
    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$")
    title: str
    version: str = "1"
    description: str = ""
    # Written/symbolic results with lower confidence than this go to the review queue. When the
    # file does not set it, a written item graded by a calibrated model uses that model's own
    # threshold instead (`sets_review_threshold`).
    review_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    # The handout editions (years, versions) this rubric grades; see Question.handouts.
    handouts: tuple[str, ...] = ()
    questions: tuple[Question, ...] = Field(min_length=1)
    release: Release = Release()

    @model_validator(mode="after")
    def _unique_ids(self) -> Rubric:
        seen: set[str] = set()
        for question in self.questions:
            if question.id in seen:
                raise ValueError(f"question id {question.id!r} is used twice")
            seen.add(question.id)
        seen_items: set[str] = set()
        for item in self.items():
            if item.id in seen_items:
                raise ValueError(f"item id {item.id!r} is used twice")
            seen_items.add(item.id)
        for question in self.questions:
            unknown = sorted(set(question.handouts) - set(self.handouts))
            if unknown:
                raise ValueError(f"question {question.id!r} names handouts {unknown} that the "
                                 f"rubric's `handouts` does not list")
        return self

    def handouts_without(self, question: Question) -> tuple[str, ...]:
        """The rubric's handout editions that do not ask `question`."""
        if not question.handouts:
            return ()
        return tuple(h for h in self.handouts if h not in question.handouts)

    def asks(self, question: Question, handout: str | None) -> bool:
        """Whether the declared edition `handout` asks `question` (None: no edition declared,
        nothing says it does not)."""
        return handout is None or not question.handouts or handout in question.handouts

    def items(self) -> Iterator[RubricItem]:
        for question in self.questions:
            yield from question.items

    def question_of(self, item_id: str) -> Question:
        for question in self.questions:
            if any(item.id == item_id for item in question.items):
                return question
        raise KeyError(item_id)

    @property
    def sets_review_threshold(self) -> bool:
        """Whether the file states `review_threshold` (rather than taking the default)."""
        return "review_threshold" in self.model_fields_set

    def visibility_of(self, item: RubricItem) -> Visibility:
        return item.visibility or self.release.visibility

    @property
    def max_points(self) -> Decimal:
        return sum((item.points for item in self.items()), Decimal(0))


class LoadedRubric(BaseModel):
    """A validated rubric with the hash of the exact bytes it came from."""

    model_config = ConfigDict(frozen=True)

    rubric: Rubric
    content_hash: str
    source: str


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


def parse_rubric(text: str | bytes, source: str = "<rubric>",
                 rubric_dir: Path | None = None, default_dir: Path | None = None
                 ) -> LoadedRubric:
    """`rubric_dir`: the folder of the file the text came from, where its code items'
    batteries are looked for. Unset: the folder of `source` when it names a file, else the
    folder this text was last read from in this process, else `default_dir` (the operator's
    rubrics folder, for a grading process that only has the stored text), else the bundled
    rubrics/."""
    raw = text.encode() if isinstance(text, str) else text
    content_hash = hashlib.sha256(raw).hexdigest()
    known = rubric_dir or _folder_of(source) or _rubric_dirs.get(content_hash)
    rubric_dir = known or default_dir
    if known is not None:
        if len(_rubric_dirs) >= MAX_REMEMBERED:
            _rubric_dirs.clear()
        _rubric_dirs[content_hash] = known
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
            item._rubric_dir = rubric_dir
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
    return LoadedRubric(rubric=rubric, content_hash=content_hash, source=source)


def battery_problems(raw: bytes, rubric: Rubric) -> list[str]:
    """The code batteries a valid rubric names that do not build, one line each with its line
    (what `gradeformer rubric validate` adds to the checks of parse_rubric)."""
    findings = battery_findings(rubric)
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


BUNDLED_RUBRICS = Path(__file__).resolve().parent.parent / "rubrics"


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
