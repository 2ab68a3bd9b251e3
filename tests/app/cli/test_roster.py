"""`gradeformer roster import|list`, `export --format canvas|results` and `rubric validate`
through the real command on a migrated SQLite file."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import app
from graders.rubric import BUNDLED_RUBRICS
from tests.app.cli.test_main import SLUG, env, run

__all__ = ["env"]  # the fixture, used by name


def test_roster_import_export(env: Path, tmp_path: Path) -> None:
    run("db", "upgrade")
    run("rubric", "load", str(BUNDLED_RUBRICS / f"{SLUG}.yaml"))
    # Imported before the roster: student1 is not on the roster loaded next.
    folder = tmp_path / "inbox"
    folder.mkdir()
    for name in ("student0", "student1"):
        (folder / f"{name}.json").write_text(json.dumps({"answers": {"b1.d_head": "64"}}))
    run("import", str(folder), "--assignment", SLUG)
    roster = tmp_path / "roster.csv"
    roster.write_bytes(
        b"\xef\xbb\xbfUsername,Name,Email,SIS User ID,Section\n"
        b"student0,Ada Zero,ada@uni.edu,S0,L1\nstudent9,Nine,nine@uni.edu,S9,L2\n"
    )
    out = run("roster", "import", "course", str(roster))
    assert "course: 2 students imported" in out
    assert run("roster", "list").splitlines()[0].split("\t")[:4] == [
        "student0", "Ada Zero", "ada@uni.edu", "S0"]
    # With the roster loaded, a file named after no student on it is not imported.
    later = tmp_path / "later"
    later.mkdir()
    (later / "student7.json").write_text(json.dumps({"answers": {"b1.d_head": "64"}}))
    out = run("import", str(later), "--assignment", SLUG)
    assert "imported 0 of 1 files" in out and "rejected" in out

    # The CSV on stdout stays clean; what is not final is said on stderr.
    exported = CliRunner().invoke(app, ["export", "--assignment", SLUG, "--format", "canvas",
                                        "--canvas-assignment-id", "31"])
    assert exported.exit_code == 0, exported.output
    assert "warning: 1 row(s) have no student or are not on the roster" in exported.stderr
    assert "warning: Grades are not published" in exported.stderr
    rows = list(csv.reader(io.StringIO(exported.stdout)))
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert rows[0][5].endswith("(31)")
    by_name = {r[0]: r for r in rows[2:]}
    assert by_name["Ada Zero"][2] == "S0" and by_name["Ada Zero"][5] != ""
    assert by_name["Nine"][5] == ""
    assert by_name["student1"][2] == "" and by_name["student1"][5] != ""
    final = CliRunner().invoke(app, ["export", "--assignment", SLUG, "--format", "canvas",
                                     "--rows", "final"])
    assert "student1" not in final.stdout and "Ada Zero" in final.stdout
    assert "1 row(s) left out" in final.stderr

    results = json.loads(run("export", "--assignment", SLUG, "--format", "results"))
    assert {s["student_id"] for s in results["students"]} == {"student0", "student1", "student9"}

    # A bad row: one line naming it, exit 1, the roster unchanged.
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"username,email\nx,x@y.z\ny,not an address\n")
    result = CliRunner().invoke(app, ["roster", "import", "course", str(bad)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "row 3" in lines[0] and lines[0].startswith("error:")
    assert "student0" in run("roster", "list")
    assert "no assignment" in run("roster", "import", "nope", str(roster), code=1).lower()


def test_rubric_validate_prints_one_line_per_problem_with_its_line(tmp_path: Path) -> None:
    rubric = tmp_path / "r.yaml"
    rubric.write_text(
        "slug: r\ntitle: R\nquestions:\n  - id: Q\n    items:\n"
        "      - id: q.a\n        points: 1\n        grader: numeric\n"
        "        config:\n          expected: 2\n"
        "          known_mistakes: [{value: 3, points: 4, feedback: f}]\n"
        "          carry_forward: {from_item: q.bb, points: 1}\n"
    )
    result = CliRunner().invoke(app, ["rubric", "validate", str(rubric)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{rubric}: line 11: ") and "known mistake" in lines[0]
    assert lines[1].startswith(f"{rubric}: line 12: ") and "no item has that id" in lines[1]
    assert run("rubric", "validate", str(BUNDLED_RUBRICS / f"{SLUG}.yaml")).startswith("ok ")
