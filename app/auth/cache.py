"""Recently verified bearer tokens, so that a busy client costs no database read per request.

An entry lives at most `ttl` seconds. A token revoked through this process's API is forgotten at
once; one revoked elsewhere (the CLI, another server process) is refused at the latest `ttl`
seconds later. Unknown or revoked tokens are never cached: every failed attempt is looked up.
"""

from __future__ import annotations

import threading
import time

from app.auth.service import Identity

TOKEN_CACHE_SECONDS = 1.0
MAX_ENTRIES = 10_000


class TokenCache:
    def __init__(self, ttl: float = TOKEN_CACHE_SECONDS, max_entries: int = MAX_ENTRIES) -> None:
        self.ttl = ttl
        self._max_entries = max_entries
        self._entries: dict[str, tuple[Identity, float]] = {}
        self._lock = threading.Lock()

    def get(self, token_hash: str) -> Identity | None:
        entry = self._entries.get(token_hash)
        if entry is None or entry[1] < time.monotonic():
            return None
        return entry[0]

    def put(self, token_hash: str, identity: Identity) -> None:
        if self.ttl <= 0:
            return
        now = time.monotonic()
        with self._lock:
            if len(self._entries) >= self._max_entries:
                self._entries = {k: v for k, v in self._entries.items() if v[1] >= now}
                if len(self._entries) >= self._max_entries:
                    self._entries.clear()
            self._entries[token_hash] = (identity, now + self.ttl)

    def forget(self, token_hash: str) -> None:
        with self._lock:
            self._entries.pop(token_hash, None)
