"""Web sign-in under attack: no user signs another out, floods are throttled, and a sign-in
started by another site's page is refused (login CSRF)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from app.auth.page_sessions import PageSessions, SessionsFull
from app.db.session import make_engine, make_sessionmaker
from app.main import create_app
from app.ratelimit import RateBuckets
from app.settings import Settings
from tests.app.conftest import Api, copy_sqlite, make_tokens


@given(st.lists(st.integers(0, 5), max_size=200), st.integers(1, 4))
@settings(max_examples=60, deadline=None)
def test_signing_in_never_ends_another_users_session(users: list[int], per_user: int) -> None:
    sessions = PageSessions(max_sessions=1000, per_user=per_user)
    first = {u: sessions.open(f"token-{u}", u) for u in range(6)}
    opened: dict[int, list[str]] = {u: [first[u]] for u in range(6)}
    for user in users:
        opened[user].append(sessions.open(f"token-{user}", user))
    for user, ids in opened.items():
        live = [i for i in ids if sessions.token(i) is not None]
        # each user keeps their newest sessions, up to the cap, whatever the others did
        assert live == ids[-per_user:], user
        assert all(sessions.token(i) == f"token-{user}" for i in live)


def test_a_full_table_refuses_a_sign_in_instead_of_evicting() -> None:
    sessions = PageSessions(max_sessions=3, per_user=5)
    kept = [sessions.open("t", u) for u in range(3)]
    with pytest.raises(SessionsFull):
        sessions.open("t", 99)
    assert all(sessions.token(k) == "t" for k in kept)
    sessions.close(kept[0])
    assert sessions.token(sessions.open("t", 99)) == "t"


def test_rate_buckets_refill_and_say_how_long_to_wait() -> None:
    now = [0.0]
    buckets = RateBuckets(per_minute=60, burst=2, max_keys=2, clock=lambda: now[0])
    assert buckets.take("a") == 0 and buckets.take("a") == 0
    assert buckets.take("a") == 1  # one per second after the burst
    now[0] += 1.0
    assert buckets.take("a") == 0
    for key in "bcdef":  # the table stays bounded
        buckets.take(key)
    assert len(buckets._buckets) <= 3


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Api]:
    url = copy_sqlite(sqlite_template, tmp_path_factory.mktemp("sign-in"))
    settings = Settings(database_url=url, workers=1, sign_ins_per_minute=60, sign_in_burst=12,
                        sign_ins_per_token_per_minute=5)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with TestClient(create_app(settings)) as client:
        yield Api(client, sessions, settings, make_tokens(sessions))
    engine.dispose()


def _sign_in(client: TestClient, token: str, **headers: str) -> int:
    answer = client.post("/sign-in", data={"token": token, "next": "/"}, headers=headers,
                         follow_redirects=False)
    return answer.status_code


def test_sign_in_from_another_sites_page_is_refused(api: Api) -> None:
    browser = TestClient(api.client.app)
    token = api.tokens["alice"]
    for foreign in ({"origin": "https://evil.example"}, {"origin": "null"},
                    {"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"}):
        assert _sign_in(browser, token, **foreign) == 403, foreign
        assert "gf_session" not in browser.cookies
    # the server's own page posts with its own origin
    assert _sign_in(browser, token, origin="http://testserver", **{"sec-fetch-site":
                                                                   "same-origin"}) == 303
    # or with Origin "null" (its no-referrer policy) and, on plain HTTP, no Fetch Metadata:
    # then the form's double-submit mark, which only the server's own form carries, decides
    own = TestClient(api.client.app)
    form = own.get("/")  # a page answering an anonymous visitor with the sign-in form
    mark = re.search(r'name="form" value="([^"]+)"', form.text)
    assert mark, form.text[:300]
    posted = own.post("/sign-in", data={"token": token, "next": "/", "form": mark.group(1)},
                      headers={"origin": "null"}, follow_redirects=False)
    assert posted.status_code == 303
    forged = TestClient(api.client.app).post(
        "/sign-in", data={"token": token, "next": "/", "form": mark.group(1)},
        headers={"origin": "null"}, follow_redirects=False)
    assert forged.status_code == 403  # the mark without the cookie: another site's page


def test_a_flood_of_sign_ins_is_throttled_and_signs_nobody_out(api: Api) -> None:
    prof = TestClient(api.client.app)
    assert _sign_in(prof, api.tokens["prof"]) == 303
    flood = TestClient(api.client.app)
    codes = [_sign_in(flood, api.tokens["bob"]) for _ in range(8)]
    assert codes[:5] == [303] * 5 and set(codes[5:]) == {429}  # five a minute with one token
    limited = flood.post("/sign-in", data={"token": api.tokens["bob"], "next": "/"})
    assert int(limited.headers["retry-after"]) >= 1 and "try again in" in limited.text
    guesses = [_sign_in(flood, f"guess-{n}") for n in range(6)]
    assert 429 in guesses  # the address's burst is spent too
    assert prof.get("/").status_code == 200 and 'name="token"' not in prof.get("/").text


@pytest.mark.postgres
def test_a_write_is_committed_before_its_answer_is_sent(postgres_db: str) -> None:
    """A token created over the API signs in at once from another connection: the route's
    transaction commits before the 201 leaves (with the commit after the response, about one
    sign-in in five was refused with 401 on PostgreSQL)."""
    import threading
    import time

    import httpx
    import uvicorn

    from app.auth.service import create_token
    from app.db.session import unit_of_work
    from tests.support.ports import free_port

    engine = make_engine(postgres_db)
    with unit_of_work(make_sessionmaker(engine)) as session:
        admin = create_token(session, "root", "admin").token
    engine.dispose()
    settings = Settings(database_url=postgres_db, workers=1, sign_ins_per_minute=10_000,
                        sign_in_burst=10_000)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    refused = 0
    try:
        with httpx.Client(base_url=base) as api, httpx.Client(base_url=base) as page:
            for n in range(60):
                made = api.post("/api/v1/tokens", json={"name": f"s{n}", "role": "student"},
                                headers={"Authorization": f"Bearer {admin}"})
                assert made.status_code == 201, made.text
                signed = page.post("/sign-in", data={"token": made.json()["token"], "next": "/"},
                                   follow_redirects=False)
                refused += signed.status_code == 401
    finally:
        server.should_exit = True
        thread.join(timeout=60)
    assert refused == 0
