"""A live test app whose clock the test sets: deadlines and release without sleeping."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.assignments.service import load_rubric_text
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.main import create_app
from app.settings import Settings
from tests.app.conftest import Api, copy_sqlite, make_tokens

START = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
PROBLEM = "application/problem+json"


@dataclass
class FakeClock:
    now: datetime = START

    def __call__(self) -> datetime:
        return self.now


@dataclass
class ClockedApi(Api):
    clock: FakeClock

    def load(self, text: str) -> None:
        with unit_of_work(self.sessions) as session:
            load_rubric_text(session, text, "<test rubric>")

    def submit(self, slug: str, who: str, answers: dict[str, str], **query: str) -> Any:
        params = "&".join(f"{k}={v}" for k, v in {"wait": "true", **query}.items())
        return self.client.post(
            f"/api/v1/assignments/{slug}/submissions?{params}",
            json={"answers": answers},
            headers=self.auth(who),
        )

    def get(self, path: str, who: str) -> Any:
        response = self.client.get(path, headers=self.auth(who))
        assert response.status_code == 200, response.text
        return response.json()


def clocked_api(directory: Path, template: Path) -> Iterator[ClockedApi]:
    url = copy_sqlite(template, directory)  # migrated: a copy of the session's template
    settings = Settings(database_url=url, workers=1, max_upload_bytes=64 * 1024)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    clock = FakeClock()
    with TestClient(create_app(settings, clock=clock)) as client:
        yield ClockedApi(client, sessions, settings, make_tokens(sessions), clock)
    engine.dispose()


def problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body


@pytest.fixture(scope="module")
def capi(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> Iterator[ClockedApi]:
    yield from clocked_api(tmp_path_factory.mktemp("clocked"), sqlite_template)
