"""A battery file's schema problems as an instructor reads them: one per problem, with the
line of the YAML and the path to the field (`sdpa.yaml: line 9: parameters.mask: ...`), not
pydantic's report (its model names, input dumps and documentation links)."""

from __future__ import annotations

import difflib
from pathlib import Path

from pydantic import ValidationError

from graders.code.config import CodeCheckConfig
from graders.code.spec import (
    Adaptation,
    CaseSpec,
    CheckSpec,
    DimSpec,
    FunctionBatterySpec,
    ParameterSpec,
    ReferenceSpec,
)
from graders.rubric_checks import compose, line_of

# Where each field of a battery is written, for "did you mean" on a misspelt one (`repeats`)
# and for a right name in the wrong place (`credit` in a check).
PLACES = (("the battery's top level", FunctionBatterySpec), ("a parameter", ParameterSpec),
          ("a case", CaseSpec), ("a check", CheckSpec), ("a dim", DimSpec),
          ("the reference", ReferenceSpec), ("an adaptation", Adaptation),
          ("the rubric item's `config`", CodeCheckConfig))
FIELDS = sorted({name for _, model in PLACES for name in model.model_fields})


def _unknown_field(name: str) -> str:
    places = [place for place, model in PLACES if name in model.model_fields]
    if places:
        return f"{name!r} is not a field here: it belongs in " + " or ".join(places)
    close = difflib.get_close_matches(name, FIELDS, n=1, cutoff=0.75)
    return f"unknown field {name!r}" + (f" (did you mean {close[0]!r}?)" if close else "")


def spec_problems(path: Path, error: ValidationError) -> str:
    try:
        root = compose(path.read_bytes())
    except OSError:
        root = None
    found: list[str] = []
    for problem in error.errors():
        loc = tuple(problem["loc"])
        where = ".".join(str(k) for k in loc) or "(top level)"
        message = str(problem["msg"]).removeprefix("Value error, ")
        if problem["type"] == "extra_forbidden" and loc:
            message = _unknown_field(str(loc[-1]))
        elif loc and loc[-1] == "function" and problem["type"] == "string_pattern_mismatch":
            message = _not_a_name(problem.get("input"))
        line = line_of(root, loc)
        found.append(f"{'' if line is None else f'line {line}: '}{where}: {message}")
    return f"{path.name}: " + "; ".join(found)


def _not_a_name(value: object) -> str:
    """`function: np.linalg.norm` or `function: 2fast`: a battery calls a function its module
    (or the student's) binds at top level by a plain name, or a class's method
    (`LayerNorm.forward`); a check, a variants table or an adjust function is a plain name."""
    text = str(value)
    if "." in text:
        return (f"{text!r} is not a plain name: the battery's `function` and its reference's are "
                "a function bound at top level (`layer_norm`) or a class's method "
                f"(`{_camel(text.partition('.')[0])}.forward`); a check's, the variants' or an "
                "adjust function is a plain name of your module")
    return f"{text!r} is not a Python name (letters, digits and _, not starting with a digit)"


def _camel(name: str) -> str:
    """`layer_norm` -> `LayerNorm`."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_")) or "Model"
