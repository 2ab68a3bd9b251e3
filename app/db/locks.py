"""Transaction-long locks on a name, for writes that read before they insert or update.

On PostgreSQL two transactions may both read that a row is missing (a first override, a
question's first risk target) and both insert it, the second then failing on the unique key; or
update one student's rows in opposite orders and deadlock. Holding the same named lock first
puts them one after the other, and the second reads what the first wrote. On SQLite every
writing transaction takes the database's write lock when it begins (BEGIN IMMEDIATE,
app/db/session.py), which already does this: there the call costs nothing.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import text
from sqlalchemy.orm import Session


def lock_key(*name: object) -> int:
    """The lock's number: a signed 64-bit hash of `name`, the same in every process."""
    digest = hashlib.blake2b(repr(name).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def hold(session: Session, *name: object) -> None:
    """Hold the lock named `name` until the session's transaction ends (waiting for another
    transaction holding it, up to the connection's lock timeout). Holding it again in the same
    transaction is free."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": lock_key(*name)})


def hold_decisions(session: Session, assignment_id: int) -> None:
    """The lock every transaction that decides items of the assignment holds first: overrides
    set, removed or undone (one by one, per group, by active grading, in answering a regrade
    request) and the risk targets, each of which also rewrites the assignment's calibration
    snapshot. One lock for all of them, taken before any row lock, so that two of them never
    wait on each other's rows in opposite orders."""
    hold(session, "decisions", assignment_id)
