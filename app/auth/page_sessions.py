"""Browser sessions for the HTML pages: a token is POSTed once, a random session id is kept in an
HttpOnly, SameSite=Strict cookie, and the token never appears in a URL, a log or page history.

Sessions live in this process's memory (a restart signs everyone out). Each stores the token
itself, which is checked again on every page load: revoking the token ends the session.

Signing in never signs anyone else out: a user holds at most `PER_USER` sessions (a new one ends
that user's oldest), and when the whole table is full of live sessions a sign-in is refused
(`SessionsFull`) rather than evicting another user's.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time

COOKIE = "gf_session"
SESSION_SECONDS = 8 * 3600
MAX_SESSIONS = 100_000
PER_USER = 20  # browsers and devices one person signs in from at once


class SessionsFull(RuntimeError):
    """Every session slot holds a live session of some user: try again later."""


def _key(session_id: str) -> str:
    # Only hashes are held as keys: a memory dump does not hand out live cookies.
    return hashlib.sha256(session_id.encode()).hexdigest()


class PageSessions:
    def __init__(self, ttl: float = SESSION_SECONDS, max_sessions: int = MAX_SESSIONS,
                 per_user: int = PER_USER) -> None:
        self.ttl = ttl
        self._max = max_sessions
        self._per_user = per_user
        self._lock = threading.Lock()
        self._sessions: dict[str, tuple[str, float]] = {}  # key -> (token, expires)
        self._owned: dict[int, list[str]] = {}  # user id -> that user's keys, oldest first
        self._csrf_key = secrets.token_bytes(32)

    def open(self, token: str, user_id: int) -> str:
        session_id = secrets.token_urlsafe(32)
        now = time.monotonic()
        with self._lock:
            keys = [k for k in self._owned.get(user_id, []) if k in self._sessions]
            while len(keys) >= self._per_user:
                del self._sessions[keys.pop(0)]
            if len(self._sessions) >= self._max:
                self._expire(now)
                if len(self._sessions) >= self._max:
                    raise SessionsFull
            key = _key(session_id)
            self._sessions[key] = (token, now + self.ttl)
            self._owned[user_id] = [*keys, key]
        return session_id

    def _expire(self, now: float) -> None:
        self._sessions = {k: v for k, v in self._sessions.items() if v[1] > now}
        self._owned = {u: live for u, keys in self._owned.items()
                       if (live := [k for k in keys if k in self._sessions])}

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
        # The token is hex: any other text is not it (and compare_digest raises TypeError on
        # a str that is not ASCII, a 500 for a form field anyone can fill).
        if not session_id or not value or not value.isascii() or self.token(session_id) is None:
            return False
        return hmac.compare_digest(self.csrf(session_id), value)
