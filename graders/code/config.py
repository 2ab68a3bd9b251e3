"""A code item's configuration in the rubric: which battery, which check, its tolerances."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationInfo, model_validator

from graders.rubric_model import BUNDLED_RUBRICS, RubricItem

CheckName = Literal["interface", "scaling", "row_softmax", "weights", "output", "stable", "causal"]
ATTENTION_CHECKS: tuple[str, ...] = ("interface", "scaling", "row_softmax", "weights", "output",
                                     "stable", "causal")
# The validation context key naming the folder of the rubric file being read.
RUBRIC_DIR = "rubric_dir"

# Local names under which a crashed function's attention weights are looked for (salvage).
DEFAULT_SALVAGE_NAMES: tuple[str, ...] = (
    "weights", "attn_weights", "attention_weights", "attn", "attention", "probs", "p", "w",
    "alpha", "a", "softmax",
)

# The grader's version (CodeGrader.version), one definition: it names the grader's code in every
# cache key, and the keys read it here without importing the grader (graders.registry).
VERSION = "4"


# Resolving walks the file system (realpath); a rubric names the same few batteries for every
# submission, so a process resolves each once.
@lru_cache(maxsize=256)
def resolve_battery(relative: str, base: Path = BUNDLED_RUBRICS) -> Path:
    """A battery path inside the rubric's folder (never outside it). Inside is decided on the
    path as written (`..` cannot leave the folder); a link the folder's owner placed in it (a
    folder of shared batteries linked beside a rubric) is followed."""
    folder = Path(os.path.abspath(base))
    written = Path(os.path.normpath(folder / relative))
    if folder not in written.parents:
        raise ValueError(f"battery {relative!r} must lie inside {base}")
    return written.resolve()


# libyaml's parser when PyYAML has it (the same safe constructor; the pure-Python reader took
# most of the time an offline `grade` spends checking a rubric with code items).
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=256)
def _battery_checks(path: Path, mtime_ns: int) -> tuple[str, ...] | None:
    """The check names a battery file offers (None: unreadable; the build reports why)."""
    try:
        raw = yaml.load(path.read_bytes(), Loader=_SAFE_LOADER)  # a safe loader: plain data
    except (OSError, yaml.YAMLError):
        return None
    if isinstance(raw, dict) and "parameters" in raw:
        checks = raw.get("checks")
        if not isinstance(checks, dict):
            return ()
        names = tuple(str(k) for k in checks)
        # An attention battery offers every attention built-in, as the attention format does.
        attention = any(isinstance(c, dict) and "attention" in c for c in checks.values())
        return tuple(dict.fromkeys(names + ATTENTION_CHECKS)) if attention else names
    return ATTENTION_CHECKS


class CodeCheckConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # The question's battery (function, inputs, reference, known bugs), relative to the folder
    # of the rubric file that names it (bundled rubrics: rubrics/), and inside that folder.
    battery: str
    # One of the battery's checks: an attention battery's fixed list, or a general battery's
    # `checks` names.
    check: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    rtol: float = Field(default=1e-6, ge=0)
    atol: float = Field(default=1e-8, ge=0)
    # Decide this check on the arrays a crashed function had computed (its local variables at
    # the crash), when its return never happened.
    # all: the check's points need every input to pass (a bug that only a degenerate input such
    # as n = 1 hides still costs them); per_input: points in proportion to the inputs passed.
    credit: Literal["all", "per_input"] = "all"
    salvage: bool = False
    salvage_names: tuple[str, ...] = DEFAULT_SALVAGE_NAMES
    # When the sandbox lacks a required isolation layer (and the operator has not allowed an
    # insecure sandbox) the program is never run with less isolation: `review` waits for a
    # person (needs_review, 0 points, the reason); `error` fails loudly (grader_error), for a
    # course that regrades such items once the layers are back.
    when_isolation_missing: Literal["review", "error"] = "review"

    _path: Path = PrivateAttr(default=BUNDLED_RUBRICS)

    @model_validator(mode="after")
    def _exists(self, info: ValidationInfo) -> CodeCheckConfig:
        context = info.context if isinstance(info.context, dict) else {}
        base = Path(context.get(RUBRIC_DIR) or BUNDLED_RUBRICS)
        path = resolve_battery(self.battery, base)
        if not path.is_file() and base != BUNDLED_RUBRICS:
            # Not beside the rubric: a bundled battery (a copy of a bundled rubric names them).
            bundled = resolve_battery(self.battery, BUNDLED_RUBRICS)
            path = bundled if bundled.is_file() else path
        if not path.is_file():
            raise ValueError(f"battery file {self.battery!r} not found under {base}")
        checks = _battery_checks(path, path.stat().st_mtime_ns)
        if checks is not None and self.check not in checks:
            raise ValueError(f"check {self.check!r} is not one of the battery's checks "
                             f"({', '.join(checks) or 'none'})")
        self._path = path
        return self

    @property
    def path(self) -> Path:
        """The battery file, resolved against the folder of the rubric that names it."""
        return self._path


_validated: dict[int, tuple[RubricItem, CodeCheckConfig]] = {}


def item_config(item: RubricItem) -> CodeCheckConfig:
    """The item's validated config. A parsed rubric is immutable and a worker keeps it for its
    life, so each item is validated once rather than once per submission; the item itself is
    kept with its entry, so its id cannot be reused by another object while cached."""
    entry = _validated.get(id(item))
    if entry is not None and entry[0] is item:
        return entry[1]
    config = CodeCheckConfig.model_validate(item.config,
                                            context={RUBRIC_DIR: item.rubric_dir})
    if len(_validated) >= 4096:
        _validated.clear()
    _validated[id(item)] = (item, config)
    return config
