"""A grading process killed (SIGKILL) during bulk work: a CLI import, a CLI regrade, and a
regrade the API runs in the background. Is any document lost, failed (`grader_error`) or graded
twice?

    python benchmarks/bulk_faults.py [--documents 40]

Each scenario runs the real `gradeformer` command or server on a fresh SQLite database with two
grading processes, and kills one of them once the run has stored its first results. The
documents are synthetic submissions (tests/support/synthetic.py); none of them is at fault, so
every one must end graded exactly once by the run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import httpx  # noqa: E402
from report import write_section  # noqa: E402
from sqlalchemy import Select, func, select  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.models import GradingRun, RegradeJob, Submission  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.support.faultkit import Server, kill_a_grading_process  # noqa: E402
from tests.support.synthetic import submission  # noqa: E402

SLUG = "transformer-basics"
Result = dict[str, object]


def environment(folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "GRADEFORMER_DATABASE_URL": f"sqlite:///{folder / 'g.db'}",
        "GRADEFORMER_EMBEDDING_CACHE_DIR": str(folder.parent / "emb"),
        "GRADEFORMER_WORKERS": "2",
        "GRADEFORMER_REGRADE_BATCH": "8",
        "GRADEFORMER_RESULT_CACHE": "false",  # a regrade that reuses results runs no process
    }


def cli(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", *args],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def scalar(url: str, query: Select[Any]) -> int:
    engine = make_engine(url)
    try:
        with unit_of_work(make_sessionmaker(engine, read_only=True)) as session:
            return int(session.scalar(query) or 0)
    finally:
        engine.dispose()


def prepared(folder: Path, documents: int) -> tuple[dict[str, str], Path]:
    folder.mkdir()
    env = environment(folder)
    for args in (("db", "upgrade"), ("rubric", "load", str(REPO / "rubrics" / f"{SLUG}.yaml"))):
        assert cli(env, *args).wait() == 0, args
    inbox = folder / "inbox"
    inbox.mkdir()
    for index in range(documents):
        raw, name, _ = submission(index, seed=11)
        (inbox / name).write_bytes(raw)
    return env, inbox


def counts(url: str, documents: int, regrade_job: int | None) -> Result:
    engine = make_engine(url)
    try:
        with unit_of_work(make_sessionmaker(engine, read_only=True)) as session:
            statuses = list(session.scalars(select(Submission.status)))
            which = (GradingRun.regrade_job_id.is_(None) if regrade_job is None
                     else GradingRun.regrade_job_id == regrade_job)  # fmt: skip
            runs = dict(session.execute(
                select(GradingRun.submission_id, func.count()).where(which)
                .group_by(GradingRun.submission_id)
            ).all())  # fmt: skip
    finally:
        engine.dispose()
    return {
        "documents": documents,
        "lost": documents - len(statuses),
        "grader_error": statuses.count("grader_error"),
        "not graded by the run": documents - len(runs),
        "graded twice": sum(1 for n in runs.values() if n > 1),
    }


def killed_run(run: subprocess.Popen[bytes], url: str, progressed: Select[Any]) -> float:
    began = time.monotonic()
    kill_a_grading_process(run.pid, lambda: run.poll() is None, lambda: scalar(url, progressed) > 0)
    assert run.wait(timeout=1800) == 0, "the command failed"
    return time.monotonic() - began


def cli_import(folder: Path, documents: int) -> Result:
    env, inbox = prepared(folder, documents)
    url = env["GRADEFORMER_DATABASE_URL"]
    run = cli(env, "import", str(inbox), "--assignment", SLUG)
    seconds = killed_run(run, url, select(func.count()).select_from(GradingRun))
    return {**counts(url, documents, None), "seconds": round(seconds, 1)}


def cli_regrade(folder: Path, documents: int) -> Result:
    env, inbox = prepared(folder, documents)
    url = env["GRADEFORMER_DATABASE_URL"]
    assert cli(env, "import", str(inbox), "--assignment", SLUG).wait() == 0
    run = cli(env, "regrade", "--assignment", SLUG)
    regraded = select(func.count()).where(GradingRun.regrade_job_id.is_not(None))
    seconds = killed_run(run, url, regraded)
    job = scalar(url, select(func.max(RegradeJob.id)))
    return {**counts(url, documents, job), "seconds": round(seconds, 1)}


def api_regrade(folder: Path, documents: int) -> Result:
    env, inbox = prepared(folder, documents)
    url = env["GRADEFORMER_DATABASE_URL"]
    assert cli(env, "import", str(inbox), "--assignment", SLUG).wait() == 0
    engine = make_engine(url)
    with unit_of_work(make_sessionmaker(engine)) as session:
        token = create_token(session, "bench", "instructor").token
    engine.dispose()
    server = Server(env, folder / "api.log")
    server.start()
    try:
        headers = {"authorization": f"Bearer {token}"}
        began = time.monotonic()
        job = httpx.post(f"{server.base}/api/v1/assignments/{SLUG}/regrade", headers=headers,
                         timeout=60).json()  # fmt: skip

        def status() -> dict[str, object]:
            answer: dict[str, object] = httpx.get(
                f"{server.base}{job['status_url']}", headers=headers, timeout=60
            ).json()
            return answer

        assert server.process is not None
        regraded = select(func.count()).where(GradingRun.regrade_job_id == job["id"])
        kill_a_grading_process(
            server.process.pid, lambda: status()["status"] == "running",
            lambda: scalar(url, regraded) > 0,
        )  # fmt: skip
        while (state := status())["status"] == "running":
            time.sleep(0.3)
        seconds = time.monotonic() - began
    finally:
        server.signal_group(signal.SIGKILL)
    return {**counts(url, documents, int(job["id"])), "seconds": round(seconds, 1),
            "job": state["status"]}  # fmt: skip


COLUMNS = ("documents", "lost", "grader_error", "not graded by the run", "graded twice", "seconds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=40)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gf-bulk-faults-"))
    results: dict[str, Result] = {}
    try:
        for name, scenario in (
            ("CLI import", cli_import),
            ("CLI regrade", cli_regrade),
            ("API background regrade", api_regrade),
        ):
            results[name] = scenario(root / name.replace(" ", "-"), args.documents)
            print(name, results[name], flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rows = ["| scenario | " + " | ".join(COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
    rows += [f"| {name} | " + " | ".join(str(r.get(c, "")) for c in COLUMNS) + " |"
             for name, r in results.items()]  # fmt: skip
    body = (
        "## Bulk faults\n\n"
        f"{args.documents} synthetic submissions per scenario, 2 grading processes; one of them "
        "killed (SIGKILL) once the run had stored its first results. *lost*: submissions "
        "missing; *not graded by the run*: no result from this import or regrade job; "
        "*seconds*: the whole run, retries included (a shared 2-core machine: other work "
        "inflates it).\n\n" + "\n".join(rows)
    )
    write_section("bulk_faults", body)
    print(body)


if __name__ == "__main__":
    main()
