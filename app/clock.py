"""The service's notion of now: injected, so deadlines are tested without sleeping."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from app.db.base import utcnow

Clock = Callable[[], datetime]

system_clock: Clock = utcnow
