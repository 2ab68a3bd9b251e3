"""Browser sessions for the HTML pages: a token is POSTed once, a random session id is kept in an
HttpOnly, SameSite=Strict cookie, and the token never appears in a URL, a log or page history.

Sessions live in this process's memory (a restart signs everyone out). Each stores the token
itself, which is checked again on every page load: revoking the token ends the session.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time

COOKIE = "gf_session"
SESSION_SECONDS = 8 * 3600
MAX_SESSIONS = 10_000


def _key(session_id: str) -> str:
    # Only hashes are held as keys: a memory dump does not hand out live cookies.
    return hashlib.sha256(session_id.encode()).hexdigest()


class PageSessions:
    def __init__(self, ttl: float = SESSION_SECONDS, max_sessions: int = MAX_SESSIONS) -> None:
        self.ttl = ttl
        self._max = max_sessions
        self._lock = threading.Lock()
        self._sessions: dict[str, tuple[str, float]] = {}
        self._csrf_key = secrets.token_bytes(32)

    def open(self, token: str) -> str:
        session_id = secrets.token_urlsafe(32)
        now = time.monotonic()
        with self._lock:
            if len(self._sessions) >= self._max:
                self._sessions = {k: v for k, v in self._sessions.items() if v[1] > now}
                if len(self._sessions) >= self._max:  # all live: the oldest half goes
                    oldest = sorted(self._sessions.items(), key=lambda kv: kv[1][1])
                    self._sessions = dict(oldest[len(oldest) // 2 :])
            self._sessions[_key(session_id)] = (token, now + self.ttl)
        return session_id

    def token(self, session_id: str | None) -> str | None:
        if not session_id or len(session_id) > 100:
            return None
        with self._lock:
            entry = self._sessions.get(_key(session_id))
        if entry is None or entry[1] < time.monotonic():
            return None
        return entry[0]

    def close(self, session_id: str | None) -> None:
        if session_id:
            with self._lock:
                self._sessions.pop(_key(session_id), None)

    def csrf(self, session_id: str) -> str:
        """The session's CSRF token for its forms: derived from the (HttpOnly) session id with
        a key of this process, so a page of another site can neither read nor guess it."""
        return hmac.new(self._csrf_key, session_id.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, session_id: str | None, value: str | None) -> bool:
        if not session_id or not value or self.token(session_id) is None:
            return False
        return hmac.compare_digest(self.csrf(session_id), value)
