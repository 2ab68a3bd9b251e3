"""A bounded schemathesis run against the OpenAPI document of a live server: no request,
however malformed, gets a 500."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from app.db.session import make_engine, make_sessionmaker
from app.main import create_app
from app.settings import Settings
from tests.app.conftest import copy_sqlite, make_tokens
from tests.support.ports import free_port

# Examples per operation: ~20 operations, each example a real HTTP round trip.
EXAMPLES = 8



@pytest.fixture(scope="module")
def live(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> Iterator[tuple[str, str]]:
    url = copy_sqlite(sqlite_template, tmp_path_factory.mktemp("fuzz"))
    engine = make_engine(url)
    token = make_tokens(make_sessionmaker(engine))["prof"]
    app = create_app(Settings(database_url=url, workers=1, max_upload_bytes=64 * 1024))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield base, token
    server.should_exit = True
    thread.join(60)
    engine.dispose()


def test_no_request_gets_a_500(live: tuple[str, str]) -> None:
    base, token = live
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    headers = {"Authorization": f"Bearer {token}"}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15
    seen: list[int] = []
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            response = case.call_and_validate(
                headers=headers, checks=[not_a_server_error], timeout=30
            )
            seen.append(response.status_code)

        run()
    # Really exercised: many requests, answered with successes and refusals alike.
    assert len(seen) >= 5 * len(operations)
    assert any(200 <= code < 300 for code in seen) and any(400 <= code < 500 for code in seen)
    print(sorted(set(seen)), len(seen))
