"""`gradeformer grade FILE` as a typer command: its options and help. The work is
`app.cli.grade.grade_file`, which the entry point also calls without typer (app/cli/fast.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.grade import HANDOUT_HELP, OutputFormat, grade_file


def grade(
    file: Annotated[Path, typer.Argument(help="The submission (JSON, text, .py, .ipynb, PDF)")],
    assignment: Annotated[
        str | None, typer.Option(help="Assignment (rubric) slug; default: the --rubric's slug")
    ] = None,
    format: Annotated[OutputFormat, typer.Option(help="table or json")] = OutputFormat.TABLE,
    rubric: Annotated[
        Path | None, typer.Option(help="A rubric file instead of the rubrics folder's")
    ] = None,
    show: Annotated[
        bool, typer.Option(help="Per question the text located and where; per item the evidence")
    ] = False,
    handout: Annotated[str | None, typer.Option(help=HANDOUT_HELP)] = None,
) -> None:
    """Grade one file offline: no database, no server."""
    grade_file(file, assignment, format, rubric, show, handout)
