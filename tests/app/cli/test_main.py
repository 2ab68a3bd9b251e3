"""The real `gradeformer` command (typer's runner, in process) on a migrated SQLite file."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from app.cli.main import app
from app.db.models import GradingRun, RegradeJob, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.review.service import set_override
from app.settings import get_settings
from graders.rubric import BUNDLED_RUBRICS

SLUG = "transformer-basics"
runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = tmp_path / "var" / "g.db"
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", f"sqlite:///{db}")
    monkeypatch.setenv("GRADEFORMER_WORKERS", "2")
    get_settings.cache_clear()
    yield db
    get_settings.cache_clear()


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, (result.output, result.exception)
    return result.output


def stdout_of(*args: str) -> str:
    """What a command writes to stdout alone (an export's warnings go to stderr)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


def _sessions(db: Path) -> sessionmaker[Session]:
    return make_sessionmaker(make_engine(f"sqlite:///{db}"))


def test_grade_offline_prints_one_json_object(env: Path, tmp_path: Path) -> None:
    answers = tmp_path / "s1.json"
    answers.write_text(
        json.dumps(
            {
                "student_id": "s1",
                "answers": {
                    "b1.d_head": "64",
                    "b1.per_matrix": "590592",
                    "B2": "[0.665, 0.245, 0.090]",
                },
            }
        )
    )
    out = run("grade", str(answers), "--assignment", SLUG, "--format", "json")
    body = json.loads(out)  # exactly one JSON object, nothing else on stdout
    assert set(body) == {"assignment", "total", "max_points", "items"}
    assert body["assignment"] == SLUG and body["max_points"] == 100
    assert set(body["items"][0]) == {
        "id",
        "question",
        "points",
        "max_points",
        "status",
        "feedback",
        "student_feedback",
        "confidence",
    }
    items = {i["id"]: i for i in body["items"]}
    assert items["b1.d_head"]["points"] == 4 and items["b1.per_matrix"]["points"] == 2
    assert body["total"] == sum(
        i["points"] for i in body["items"] if i["status"] not in ("pending", "grader_error")
    )
    assert not env.exists()  # offline: no database touched
    table = run("grade", str(answers), "--assignment", SLUG)
    assert "b1.per_matrix" in table and "bias" in table
    garbage = tmp_path / "g.txt"
    garbage.write_bytes(b"\x00\xff" * 100)
    assert "binary" in run("grade", str(garbage), "--assignment", SLUG, code=2)
    assert "no rubric" in run("grade", str(answers), "--assignment", "nope", code=1)


def test_rubric_validate(tmp_path: Path) -> None:
    assert "transformer-basics" in run("rubric", "validate", str(BUNDLED_RUBRICS / f"{SLUG}.yaml"))
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "slug: Bad Slug\ntitle: t\nquestions:\n  - id: Q\n    items:\n"
        "      - {id: q.a, points: 1, grader: telepathy}\n"
    )
    out = run("rubric", "validate", str(bad), code=1)
    assert "slug" in out


def test_rubric_validate_a_folder_checks_its_rubrics_not_its_batteries(tmp_path: Path) -> None:
    """A rubric's folder holds its batteries too: `rubric validate FOLDER` said "cannot read:
    Is a directory", while `evaluate --rubric FOLDER` took the folder."""
    example = Path(__file__).resolve().parents[3] / "docs" / "examples" / "positional-encoding"
    out = run("rubric", "validate", str(example))
    assert "ok " in out and "numpy-positional-encoding" in out and "pe.yaml" not in out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "holds no rubric" in run("rubric", "validate", str(empty), code=1)


def test_rubric_validate_notes_a_check_of_one_drawn_case(tmp_path: Path) -> None:
    """Each submission's cases are its own draw: a check of an edge (large logits) on one drawn
    case passes a program wrong at that edge whenever the draw misses it (an unguarded softmax
    passed the trial homework's 'stable' in two CI runs of three). Validate says so; the exit
    code is unchanged."""
    example = Path(__file__).resolve().parents[3] / "docs" / "examples" / "softmax-temperature"
    for name in ("softmax.yaml", "softmax.py", "softmax-temperature.yaml"):
        (tmp_path / name).write_text((example / name).read_text())
    assert "looks at one case" not in run("rubric", "validate", str(tmp_path))
    battery = tmp_path / "softmax.yaml"
    battery.write_text(battery.read_text().replace("group: large, repeat: 3,", "group: large,"))
    out = run("rubric", "validate", str(tmp_path))
    assert "ok " in out and "check 'stable' looks at one case, 'large logits'" in out


def test_rubric_load_refuses_a_rubric_whose_battery_does_not_build(
        env: Path, tmp_path: Path) -> None:
    """`rubric load` stored a rubric whose battery did not build (here: a class's method asked
    with a reference function): every code item of every submission was then a grader error,
    and the instructor was told nothing at load."""
    example = Path(__file__).resolve().parents[3] / "docs" / "examples" / "positional-encoding"
    for name in ("pe.yaml", "pos_encoding.py", "numpy-positional-encoding.yaml"):
        (tmp_path / name).write_text((example / name).read_text())
    battery = tmp_path / "pe.yaml"
    battery.write_text(battery.read_text().replace("function: pos_encoding\n",
                                                   "function: Encoder.encode\n", 1))
    run("db", "upgrade")
    out = run("rubric", "load", str(tmp_path / "numpy-positional-encoding.yaml"), code=1)
    assert "does not build" in out and "has a reference method" in out
    assert "numpy-positional-encoding" not in run("rubric", "list")


def test_a_database_without_its_schema_says_to_upgrade_it(env: Path, tmp_path: Path) -> None:
    """An instructor following the docs with a fresh GRADEFORMER_DATABASE_URL ran `rubric load`
    and `import` before `db upgrade` (only `serve` migrates by itself): SQLAlchemy's "no such
    table" traceback, not what to do."""
    env.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ada.md").write_text("Q1: 64\n")
    for args in (("rubric", "load", str(BUNDLED_RUBRICS / f"{SLUG}.yaml")),
                 ("import", str(tmp_path / "subs"), "--assignment", SLUG), ("rubric", "list")):
        out = run(*args, code=1)
        assert "gradeformer db upgrade" in out and "Traceback" not in out, (args, out)
    run("db", "upgrade")
    assert "loaded" in run("rubric", "load", str(BUNDLED_RUBRICS / f"{SLUG}.yaml"))


def test_tokens_db_import_export_regrade(env: Path, tmp_path: Path) -> None:
    run("db", "upgrade")
    assert env.exists()
    out = run("rubric", "load", str(BUNDLED_RUBRICS / f"{SLUG}.yaml"))
    assert f"{SLUG}: loaded" in out
    token = (
        run("token", "create", "--role", "instructor", "--name", "prof").strip().splitlines()[-1]
    )
    assert token.startswith("gf_") and len(token) > 30
    assert "prof" in run("token", "list")
    assert (
        "unknown role" in run("token", "create", "--role", "wizard", "--name", "x", code=1).lower()
    )

    folder = tmp_path / "inbox"
    folder.mkdir()
    right = {"b1.d_head": "64", "b1.per_matrix": "589824", "b1.total": "1769472"}
    for i in range(6):
        answers = right if i % 2 == 0 else {**right, "b1.per_matrix": "49152"}
        (folder / f"student{i}.json").write_text(json.dumps({"answers": answers}))
    (folder / "broken.json").write_text('{"answers": ')
    out = run("import", str(folder), "--assignment", SLUG)
    assert "imported 6 of 7 files" in out and "rejected" in out

    csv_out = stdout_of("export", "--assignment", SLUG)
    rows = list(csv.DictReader(io.StringIO(csv_out)))
    assert sorted(r["student"] for r in rows) == [f"student{i}" for i in range(6)]
    assert rows[0]["B1"] == "10.00" and rows[1]["B1"] == "8.00"

    sessions = _sessions(env)
    with unit_of_work(sessions) as session:
        prof = session.scalars(select(Submission)).first()
        assert prof is not None
        first_id = prof.id
        from app.auth.repository import get_user_by_name

        user = get_user_by_name(session, "prof")
        assert user is not None
        set_override(session, first_id, "b1.d_head", Decimal("1.5"), "Shown no work.", user)

    dry = run("regrade", "--assignment", SLUG, "--dry-run")
    assert "dry run: nothing stored" in dry
    with unit_of_work(sessions) as session:
        runs_before = session.scalar(select(func.count(GradingRun.id))) or 0
        assert session.scalar(select(func.count(RegradeJob.id))) == 0

    out = run("regrade", "--assignment", SLUG)
    assert "regraded 6 submissions" in out
    with unit_of_work(sessions) as session:
        assert session.scalar(select(func.count(GradingRun.id))) == runs_before + 6
    # The override survives the regrade.
    csv_out = stdout_of("export", "--assignment", SLUG)
    student0 = next(r for r in csv.DictReader(io.StringIO(csv_out)) if r["student"] == "student0")
    assert student0["B1"] == "7.50"

    # An interrupted regrade resumes: a running job that already did one submission.
    with unit_of_work(sessions) as session:
        done = session.scalars(select(GradingRun).where(GradingRun.is_current.is_(True))).first()
        assert done is not None
        job = RegradeJob(
            assignment_id=1,
            rubric_version_id=done.rubric_version_id,
            rubric_hash=done.rubric_hash,
            status="running",
            total=6,
            done=1,
        )
        session.add(job)
        session.flush()
        done.regrade_job_id = job.id
    out = run("regrade", "--assignment", SLUG)
    assert "regraded 5 submissions" in out and "resumed job" in out
    sessions.kw["bind"].dispose()


def test_submit_and_doctor(env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run("db", "upgrade")
    run("rubric", "load", str(BUNDLED_RUBRICS / f"{SLUG}.yaml"))
    answers = tmp_path / "mine.json"
    answers.write_text(json.dumps({"answers": {"b1.d_head": "64"}}))
    out = run("submit", str(answers), "--assignment", SLUG, "--student", "zed")
    assert "submission 1:" in out and "4 points" in out
    assert "no assignment" in run("submit", str(answers), "--assignment", "nope", code=1).lower()
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert "empty" in run("submit", str(empty), "--assignment", SLUG, code=2).lower()

    import graders.sandbox as sandbox

    class Layer:
        def __init__(self, name: str, active: bool, required: bool) -> None:
            self.name, self.active, self.required, self.detail = name, active, required, "why"

    monkeypatch.setattr(
        sandbox, "probe_layers",
        lambda policy=None: [Layer("seccomp", False, True), Layer("uts", True, False)],
    )
    out = run("doctor", code=1)
    assert "seccomp" in out and "inactive" in out
    monkeypatch.setenv("GRADEFORMER_ALLOW_INSECURE_SANDBOX", "1")
    get_settings.cache_clear()
    assert "runs anyway" in run("doctor")
