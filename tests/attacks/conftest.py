"""A live app for the attack tests: a migrated SQLite file, a real grading pool and the real
document readers, its limits as shipped except where a test says otherwise; and a real
`gradeformer serve` for the attacks that need a socket (slow bodies, header bombs)."""

from __future__ import annotations

import secrets
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.orm import Session, sessionmaker

from app.db.session import make_engine, make_sessionmaker
from app.main import create_app
from app.settings import Settings
from tests.app.conftest import PG_ADMIN_URL, Api, copy_sqlite, make_tokens
from tests.app.conftest import postgres_template as postgres_template  # re-exported
from tests.app.conftest import sqlite_template as sqlite_template  # the fixture, re-exported
from tests.support.faultkit import Server

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"


def _app_on(url: str, **overrides: object) -> Iterator[Api]:
    given: dict[str, object] = {"database_url": url, "workers": 1, "upload_burst": 10_000,
                                "uploads_per_minute": 10_000, **overrides}
    settings = Settings(**given)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with TestClient(create_app(settings)) as client:
        yield Api(client, sessions, settings, make_tokens(sessions))
    engine.dispose()


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Api]:
    """One app per attack module. Upload rates are loosened (attacks upload in bursts); every
    other limit is the shipped default."""
    yield from _app_on(copy_sqlite(sqlite_template, tmp_path_factory.mktemp("attack")))


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres",
                                                               marks=pytest.mark.postgres)])
def either(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           sqlite_template: Path) -> Iterator[Api]:
    """`target` on each database: SQLite, and PostgreSQL (its integers are 32 bits, its text
    takes no NUL) when the server at 127.0.0.1:5432 answers (else that half skips)."""
    yield from _app_on_each(request, tmp_path_factory, sqlite_template)


def _app_on_each(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                 sqlite_template: Path, **overrides: object) -> Iterator[Api]:
    if request.param == "sqlite":
        yield from _app_on(copy_sqlite(sqlite_template, tmp_path_factory.mktemp("attack")),
                           **overrides)
        return
    template: str = request.getfixturevalue("postgres_template")
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"gf_attack_{secrets.token_hex(6)}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    try:
        yield from _app_on(make_url(PG_ADMIN_URL).set(database=name)
                           .render_as_string(hide_password=False), **overrides)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


HOLD_SECONDS = 1.0  # how long `stalled` holds an upload back for a job to finish (30 s shipped)


@dataclass
class Stalled:
    api: Api
    queue: str  # the broker queue nothing consumes


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres",
                                                               marks=pytest.mark.postgres)])
def stalled(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            sqlite_template: Path) -> Iterator[Stalled]:
    """`either` on the Celery path, publishing to a queue of its own on the Redis at
    127.0.0.1:6379 that no worker reads (every grading worker busy, or none started): jobs stay
    waiting. An upload past the waiting limit is held back for HOLD_SECONDS, not the shipped 30,
    then refused. Skips when Redis does not answer."""
    from tests.support.broker import BROKER, private_queue  # Celery only for these tests

    with private_queue("gf-attack") as queue:
        for api in _app_on_each(request, tmp_path_factory, sqlite_template,
                                executor="celery", celery_broker_url=BROKER,
                                upload_turn_seconds=HOLD_SECONDS):
            yield Stalled(api, queue)


class Running(Server):
    """A started `gradeformer serve` and the tokens of the database it serves."""

    tokens: dict[str, str]
    url: str


@contextmanager
def started(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path, name: str,
            env: dict[str, str]) -> Iterator[Running]:
    """`gradeformer serve` on a free port over a copy of the migrated SQLite template (folder
    `name`), with tokens made before it starts and `env` on top of faultkit's loosened upload
    limits; stopped by SIGTERM on leaving."""
    directory = tmp_path_factory.mktemp(name)
    url = copy_sqlite(sqlite_template, directory)
    engine = make_engine(url)
    tokens = make_tokens(make_sessionmaker(engine))
    engine.dispose()
    server = Running({"GRADEFORMER_DATABASE_URL": url, **env}, directory / "server.log")
    server.tokens, server.url = tokens, url
    server.start()
    try:
        yield server
    finally:
        server.signal_group(signal.SIGTERM)


class Live:
    def __init__(self, server: Server, tokens: dict[str, str]) -> None:
        self.server = server
        self.base = server.base
        self.port = server.port
        self.tokens = tokens

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    def healthz_seconds(self) -> float:
        began = time.monotonic()
        answer = httpx.get(f"{self.base}/healthz", timeout=10)
        assert answer.status_code == 200, answer.text
        return time.monotonic() - began


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Live]:
    """`gradeformer serve` on a free port over a migrated SQLite file, limits as shipped."""
    # The uploads a student may have in progress stay as shipped (the fault scenarios lift it).
    shipped = str(Settings.model_fields["uploads_in_progress"].default)
    env = {"GRADEFORMER_WORKERS": "1", "GRADEFORMER_UPLOADS_IN_PROGRESS": shipped}
    with started(tmp_path_factory, sqlite_template, "live", env) as server:
        yield Live(server, server.tokens)


@dataclass
class Served:
    """A real `gradeformer serve` over HTTP, with the face of `Api` the bomb helpers use: a
    client (httpx, over a socket), the database's sessions for making tokens, and tokens."""

    client: httpx.Client
    sessions: sessionmaker[Session]
    tokens: dict[str, str]

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Served]:
    """`gradeformer serve` in a process of its own over a migrated SQLite file, for the attacks
    that time /healthz while bombs are read: measured across a socket, the server's event loop
    is timed, not this process (whose client threads and heap share a GIL with an in-process
    app). Upload rates are loosened as for `target`; every other limit is as shipped."""
    shipped = {f"GRADEFORMER_{name.upper()}": str(Settings.model_fields[name].default)
               for name in ("uploads_in_progress", "student_quota_bytes")}
    with started(tmp_path_factory, sqlite_template, "served",
                 {"GRADEFORMER_WORKERS": "1", **shipped}) as server:
        engine = make_engine(server.url)
        try:
            with httpx.Client(base_url=server.base, timeout=120) as client:
                yield Served(client, make_sessionmaker(engine), server.tokens)
        finally:
            engine.dispose()
