"""A battery file's schema problems as an instructor reads them: one per problem, with the
line of the YAML and the path to the field (`sdpa.yaml: line 9: parameters.mask: ...`), not
pydantic's report (its model names, input dumps and documentation links)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from graders.rubric_checks import compose, line_of


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
        line = line_of(root, loc)
        found.append(f"{'' if line is None else f'line {line}: '}{where}: {message}")
    return f"{path.name}: " + "; ".join(found)
