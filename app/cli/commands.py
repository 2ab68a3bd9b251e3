"""The `gradeformer` command table and what the help says of each command, importing none of
them (app/cli/main.py prints the help from it; app/cli/program.py builds the typer program)."""

from __future__ import annotations

SUMMARY = "Automated grading for transformer homework."

# Command name -> (module, attribute): a function becomes a command, a Typer a command group.
# In this order in the help (commands, then groups, as typer lists them).
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("app.cli.ops", "serve"),
    "worker": ("app.cli.worker", "worker"),
    "grade": ("app.cli.grade_command", "grade"),
    "submit": ("app.cli.grading", "submit"),
    "import": ("app.cli.grading", "import_folder"),
    "regrade": ("app.cli.ops", "regrade"),
    "export": ("app.cli.ops", "export"),
    "doctor": ("app.cli.ops", "doctor"),
    "evaluate": ("app.cli.evaluate", "evaluate"),
    "publish": ("app.cli.release", "publish"),
    "schedule": ("app.cli.release", "schedule"),
    "grade-table": ("app.cli.grade_table", "grade_table"),
    "db": ("app.cli.admin", "db_app"),
    "rubric": ("app.cli.admin", "rubric_app"),
    "token": ("app.cli.admin", "token_app"),
    "roster": ("app.cli.roster", "roster_app"),
    "edition": ("app.cli.edition", "edition_app"),
    "risk": ("app.cli.risk", "risk_app"),
}
# Commands that grade in this process's own pool as soon as they have stored the uploads: the
# pool's fork server starts before the command's module is imported (app/grading/preload.py).
GRADING_NOW = frozenset({"submit", "import"})
# Commands that grade one document and end (`grade FILE`): the collector stays paused from
# typer's import to the exit. What they allocate is bounded by one upload and nearly all of it
# (modules, the rubric, the grader kinds' tables) lives until the process ends: a pass would
# walk it (2-5% of the command's instructions) and free next to nothing.
PAUSED_THROUGHOUT = frozenset({"grade"})


# What `gradeformer --help` says of each command, so that listing them imports none of them
# (tests/app/cli/test_lazy.py checks each against the command's own help).
SUMMARIES: dict[str, str] = {
    "serve": "Run the API server (behind a reverse proxy in production: see the README).",
    "worker": "Run a Celery grading worker (the API enqueues with GRADEFORMER_EXECUTOR=celery).",
    "grade": "Grade one file offline: no database, no server.",
    "submit": "Store a submission in the database and grade it now.",
    "import": "Every file of FOLDER becomes a submission; the student id is the file name's stem.",
    "regrade": "Re-grade every stored submission with the current rubric (parallel, resumable).",
    "export": "The grades of an assignment: the gradebook CSV (one row per student, one column "
    "per question, the total, the roster's LMS ids), Canvas's import CSV, or "
    "results.json.",
    "doctor": "Which sandbox layers are active on this machine, and the policy they enforce.",
    "evaluate": "Grade every file of FOLDER that has a <stem>.grades.yaml and report the "
    "agreement.",
    "publish": "Publish the grades: students then see what the rubric releases.",
    "schedule": "Show or change an assignment's dates, late policy and submission limit.",
    "grade-table": "Grade a table of short answers (student,question,answer) against a rubric.",
    "db": "Database schema.",
    "rubric": "Rubric files.",
    "token": "API tokens.",
    "roster": "The class roster (student ids, names, LMS ids).",
    "edition": "The handout edition graded: staff's, per assignment or per student.",
    "risk": "Risk control: error targets and calibrated thresholds per question.",
}

