"""`gradeformer regrade|export|doctor|serve`."""

from __future__ import annotations

import errno
import json
import os
import socket
import time
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from sqlalchemy.orm import Session, sessionmaker

from app.assignments.service import current_rubric
from app.cli.context import (
    collector_paused,
    console,
    database,
    domain_errors,
    errors,
    fail,
    safe,
    settings,
    startup_frozen,
)
from app.db.base import utcnow
from app.db.session import unit_of_work
from app.exports.checks import Rows
from app.grading.processes import ProcessPools
from app.regrade import jobs
from app.regrade.jobs import JobStatus
from app.regrade.runner import RegradeReport, run_regrade

DIFF_ROWS = 50
FOLLOW_SECONDS = 1.0


def _diff_table(report: RegradeReport) -> Table:
    table = Table(
        "submission",
        "student",
        "total",
        "status",
        "items changed",
        title=f"{report.changed} submissions would change"
        if report.dry_run
        else f"{report.changed} submissions changed",
    )
    for change in report.changes[:DIFF_ROWS]:
        items = ", ".join(
            f"{i.item_id} {i.old_points if i.old_points is not None else '-'}→{i.new_points}"
            for i in change.items
        )
        table.add_row(
            str(change.submission_id),
            safe(change.student or ""),
            f"{change.old_total if change.old_total is not None else '-'} → {change.new_total}",
            change.old_status
            if change.old_status == change.new_status
            else f"{change.old_status} → {change.new_status}",
            items,
        )
    if len(report.changes) > DIFF_ROWS:
        table.caption = f"first {DIFF_ROWS} of {len(report.changes)} shown"
    return table


def _progress(columns: tuple[ProgressColumn, ...]) -> Progress:
    """A progress bar on stderr. Redrawn by a thread only on a terminal (or in Jupyter):
    elsewhere rich shows the bar once, when it stops, and a redraw writes nothing."""
    live = errors.is_terminal or errors.is_jupyter
    return Progress(*columns, console=errors, auto_refresh=live)


def _follow(
    sessions: sessionmaker[Session], job_id: int, columns: tuple[ProgressColumn, ...]
) -> JobStatus:
    """Another process runs the assignment's job: show its progress until it ends."""
    with _progress(columns) as progress:
        task = progress.add_task(f"regrade job {job_id} (running elsewhere)", total=None)
        while True:
            with unit_of_work(sessions) as session:
                job = jobs.job_status(session, job_id)
            progress.update(task, total=job.total, completed=job.done)
            if job.status != "running":
                return job
            time.sleep(FOLLOW_SECONDS)


def regrade(
    assignment: Annotated[str, typer.Option(help="Assignment slug")],
    dry_run: Annotated[bool, typer.Option(help="Show the score changes, store nothing")] = False,
    workers: Annotated[int | None, typer.Option(help="Grading processes")] = None,
) -> None:
    """Re-grade every stored submission with the current rubric (parallel, resumable).

    While the server (or another command) runs the assignment's regrade job, this follows that
    job instead of starting a second one."""
    cfg = settings()
    started = time.perf_counter()
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with database() as sessions, domain_errors(), startup_frozen():
        lease: jobs.Claim | None = None
        if not dry_run:
            # The claim reads the rubric: its grader modules are imported now.
            with collector_paused(), unit_of_work(sessions) as session:
                lease = jobs.claim(
                    session, assignment, None, timedelta(seconds=cfg.regrade_stale_seconds)
                )
            if not lease.ours:
                job = _follow(sessions, lease.job_id, columns)
                console.print(
                    f"regrade job {job.id} of {assignment}: {job.status}, {job.done} of "
                    f"{job.total} regraded, {job.changed} scores changed"
                    + (f" ({safe(job.error)})" if job.error else "")
                )
                if job.status != "done":
                    raise typer.Exit(1)
                return
        with unit_of_work(sessions) as session:
            # What its processes' fork server imports first (app/grading/preload.py).
            rubric = current_rubric(session, assignment).loaded.rubric
            kinds = {item.grader for item in rubric.items()}
        pools = ProcessPools(
            workers or cfg.workers, cfg.grading_options(), cfg.max_grading_attempts, kinds
        )
        try:
            with _progress(columns) as progress:
                task = progress.add_task("regrading", total=None)

                def advance(n: int, total: int) -> None:
                    progress.update(task, total=total, advance=n)

                report = run_regrade(
                    sessions,
                    assignment,
                    pools,
                    dry_run=dry_run,
                    batch_size=cfg.regrade_batch,
                    progress=advance,
                    lease=lease,
                )
        finally:
            pools.close()
    elapsed = time.perf_counter() - started
    if dry_run:
        console.print(_diff_table(report))
        # The dry run did the grading a regrade would do now: what it recomputed is what the
        # regrade would have; it is cached for the regrade that follows.
        console.print(f"would recompute: {report.work_summary()}")
    else:
        console.print(f"recomputed: {report.work_summary()}")
    rate = report.total / elapsed if elapsed > 0 else 0.0
    resumed = (
        f", resumed job {report.job_id} ({report.already_done} done before)"
        if report.resumed
        else ""
    )
    verb = "would change" if dry_run else "changed"
    console.print(
        f"regraded {report.total} submissions of {assignment} in {elapsed:.1f} s "
        f"({rate:.0f}/s){resumed}; {report.changed} scores {verb}"
        + (" (dry run: nothing stored)" if dry_run else "")
    )


def export(
    assignment: Annotated[str, typer.Option(help="Assignment slug")],
    output: Annotated[Path | None, typer.Option(help="Write here instead of stdout")] = None,
    format_: Annotated[
        str,
        typer.Option("--format", help="gradebook (CSV), canvas (Canvas's gradebook CSV) or "
                     "results (results.json of every student)"),
    ] = "gradebook",
    canvas_assignment_id: Annotated[
        str | None,
        typer.Option(help="canvas: the assignment's Canvas id (the number in its address)"),
    ] = None,
    rows: Annotated[
        str,
        typer.Option(help="gradebook, canvas: all (every row; what is not final is warned "
                     "about) or final (leave out rows still in review or without a student)"),
    ] = "all",
) -> None:
    """The grades of an assignment: the gradebook CSV (one row per student, one column per
    question, the total, the roster's LMS ids), Canvas's import CSV, or results.json."""
    if format_ not in ("gradebook", "canvas", "results"):
        raise fail(f"unknown format {format_!r}: gradebook, canvas or results")
    if rows not in ("all", "final"):
        raise fail(f"unknown --rows {rows!r}: all or final")
    chosen: Rows = "final" if rows == "final" else "all"
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        # Imported here: the exports need the submission services, which `regrade` does not.
        from app.exports.canvas import canvas_csv
        from app.exports.results import assignment_results
        from app.exports.service import export_check, gradebook_csv

        if format_ != "results":
            for warning in export_check(session, assignment).warnings(chosen):
                errors.print(f"warning: {warning}", markup=False, soft_wrap=True)
        if format_ == "canvas":
            body = canvas_csv(session, assignment, canvas_assignment_id, rows=chosen)
        elif format_ == "results":
            body = json.dumps(assignment_results(session, assignment, utcnow()), indent=2,
                              ensure_ascii=False) + "\n"
        else:
            body = gradebook_csv(session, assignment, chosen)
    if output is None:
        print(body, end="")
    else:
        output.write_text(body, encoding="utf-8")
        errors.print(f"wrote {output}")


def doctor() -> None:
    """Which sandbox layers are active on this machine, and the policy they enforce."""
    try:
        from graders.sandbox import SandboxPolicy, policy_facts, probe_layers
    except ImportError as exc:
        raise fail(f"the sandbox (graders.sandbox.probe_layers) is not available: {exc}") from None
    try:  # the operator's policy (GRADEFORMER_SANDBOX_*), as the grading processes read it
        operator = SandboxPolicy.from_options(settings().grading_options())
    except ValueError as exc:
        raise fail(str(exc)) from None
    layers = list(probe_layers(operator))
    table = Table("layer", "active", "required", "detail", title="sandbox layers")
    for layer in layers:
        table.add_row(
            layer.name,
            "[green]yes[/green]" if layer.active else "[red]no[/red]",
            "yes" if layer.required else "",
            layer.detail,
        )
    console.print(table)
    policy = Table("policy", "what holds", title="sandbox policy")
    for name, fact in policy_facts(operator, layers=layers):
        policy.add_row(name, fact)
    console.print(policy)
    missing = [layer.name for layer in layers if layer.required and not layer.active]
    if not missing:
        console.print("all required layers are active")
        return
    if settings().allow_insecure_sandbox:
        console.print(
            f"[yellow]required layers inactive: {', '.join(missing)}; "
            "GRADEFORMER_ALLOW_INSECURE_SANDBOX is set, so student code runs anyway[/yellow]"
        )
        return
    raise fail(
        f"required sandbox layers inactive: {', '.join(missing)} "
        "(set GRADEFORMER_ALLOW_INSECURE_SANDBOX=1 to run student code anyway)"
    )


def _ready_database(url: str) -> None:
    """Migrate the embedded SQLite database; refuse any other that is not at the newest schema
    (an operator upgrades a shared database on purpose, not as a side effect of a restart)."""
    # Imported here: Alembic (and the dialects it loads) is only for `serve`, not `regrade`.
    from sqlalchemy.engine import make_url

    from app.db.migrate import is_current, upgrade

    try:
        if is_current(url):
            return
    except Exception as exc:  # unreachable server, bad URL, wrong password
        raise fail(
            f"cannot open the database: {type(exc).__name__}: {exc}".splitlines()[0]
        ) from None
    if make_url(url).get_backend_name() == "sqlite":
        errors.print("migrating the SQLite database to the newest schema")
        upgrade(url)
        return
    raise fail("the database is not migrated to the newest schema: run `gradeformer db upgrade`")


def port_in_use(host: str, port: int) -> bool:
    """Whether another process listens on host:port: checked before
    starting, so a second `make run` says so in one line instead of starting up and then
    failing with uvicorn's raw `[Errno 98]`. Bound as uvicorn binds (SO_REUSEADDR), so a port
    a stopped server left in TIME_WAIT is free."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            # Another problem (a host not on this machine) is uvicorn's to report.
            return exc.errno == errno.EADDRINUSE
    return False


def serve(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = int(os.environ.get("PORT", "8000")),
) -> None:
    """Run the API server (behind a reverse proxy in production: see the README)."""
    import uvicorn

    from app.heads import bounded_heads

    if port_in_use(host, port):
        raise fail(f"port {port} on {host} is already in use (is gradeformer already "
                   f"running?); choose another: make run PORT={port + 1}, or gradeformer serve "
                   f"--port {port + 1}.")
    cfg = settings()
    _ready_database(cfg.database_url)
    # SIGTERM (to the PID or the whole group) or Ctrl-C: stop accepting, give open requests this
    # long, then the application's shutdown finishes or gives back its jobs in as much again.
    grace = max(1, int(cfg.shutdown_grace_seconds))
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        # More open connections than this are answered 503 at once instead of queueing.
        limit_concurrency=cfg.max_connections,
        timeout_keep_alive=cfg.keep_alive_seconds,
        timeout_graceful_shutdown=grace,
        # httptools' protocol, with request heads bounded in size and time while they arrive.
        http=bounded_heads(cfg.request_head_seconds),
    )
