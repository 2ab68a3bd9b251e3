"""Token buckets by key, in this process's memory: a rate with a burst, and how long to wait.

Used for uploads (per student) and sign-in attempts (per address and per token). The table of
keys is bounded: when it is full, buckets that have refilled completely (they hold no state a
fresh one would not) are dropped first, then the least recently used.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

MAX_KEYS = 100_000


class RateBuckets:
    def __init__(self, per_minute: float, burst: int, max_keys: int = MAX_KEYS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = per_minute / 60.0
        self._burst = float(burst)
        self._max = max_keys
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()  # tokens, at

    def take(self, key: Hashable) -> int:
        """Take one token for `key`: 0 if there was one, else the seconds to wait (≥ 1)."""
        now = self._clock()
        with self._lock:
            tokens, at = self._buckets.pop(key, (self._burst, now))
            tokens = min(self._burst, tokens + (now - at) * self._rate)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                return max(1, int((1.0 - tokens) / self._rate + 0.999))
            self._buckets[key] = (tokens - 1.0, now)
            if len(self._buckets) > self._max:
                self._forget(now)
            return 0

    def _forget(self, now: float) -> None:
        """Down to nine tenths of the bound, so that a flood of new keys pays for this scan
        once per tenth of the table, not on every take."""
        full = [k for k, (tokens, at) in self._buckets.items()
                if tokens + (now - at) * self._rate >= self._burst]
        for key in full:
            del self._buckets[key]
        while len(self._buckets) > self._max * 9 // 10:
            self._buckets.popitem(last=False)


def address_key(host: str) -> str:
    """The key a client address is throttled under: an IPv6 address by its /64 (one host or
    home network is given a whole /64 and can send from any address in it), others as they
    are."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # an IPv4 client on a dual-stack socket
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
