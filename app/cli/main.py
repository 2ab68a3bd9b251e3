"""The `gradeformer` command."""

from __future__ import annotations

import typer

from app.cli import admin, evaluate, grade_table, grading, ops, release, risk, roster

app = typer.Typer(
    name="gradeformer",
    help="Automated grading for transformer homework.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(admin.db_app, name="db")
app.add_typer(admin.rubric_app, name="rubric")
app.add_typer(admin.token_app, name="token")
app.add_typer(roster.roster_app, name="roster")
app.add_typer(risk.risk_app, name="risk")
app.command()(ops.serve)
app.command()(grading.grade)
app.command()(grading.submit)
app.command("import")(grading.import_folder)
app.command()(ops.regrade)
app.command()(ops.export)
app.command()(ops.doctor)
app.command()(evaluate.evaluate)
app.command()(release.publish)
app.command()(release.schedule)
app.command("grade-table")(grade_table.grade_table)

if __name__ == "__main__":
    app()
