"""Bearer tokens: created once and shown once, stored as a sha256 hash, revocable."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection
from sqlalchemy.orm import Session, make_transient_to_detached

from app.audit.repository import record
from app.auth import repository
from app.db.base import utcnow
from app.db.models import ApiToken, Role, User
from app.errors import Conflict, InvalidInput, NotAuthenticated, NotFound

TOKEN_PREFIX = "gf_"


def hash_token(token: str) -> str:
    # Tokens carry 256 random bits, so a fast hash is enough: there is nothing to brute-force.
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class IssuedToken:
    token: str  # the secret: shown once
    record: ApiToken
    user: User


def create_token(session: Session, name: str, role: str, actor: User | None = None) -> IssuedToken:
    name = name.strip()
    if not name:
        raise InvalidInput("A token needs a non-empty user name.")
    # The name is the student id of every upload and row of an export: one that hides
    # characters (zero-width, tags, direction overrides) would show as another user's, and
    # PostgreSQL refuses NUL outright.
    if not name.isprintable():
        raise InvalidInput("A user name holds printable characters only (no control, "
                           "invisible or direction-changing characters, no blanks but the "
                           "space).")
    try:
        wanted = Role(role)
    except ValueError:
        roles = ", ".join(r.value for r in Role)
        raise InvalidInput(f"Unknown role {role!r}; use one of: {roles}.") from None
    user = repository.get_user_by_name(session, name) or repository.add_user(
        session, name, wanted.value)
    if user.role != wanted.value:
        raise Conflict(f"User {name!r} exists with role {user.role!r}, not {wanted.value!r}.")
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = repository.add_token(session, user, hash_token(secret), secret[:10])
    record(session, actor, "token.create", "api_token", token.id, {"user": name, "role": role})
    return IssuedToken(secret, token, user)


def authenticate(session: Session, secret: str) -> User:
    user = repository.active_token_user(session, hash_token(secret))
    if user is None:
        raise NotAuthenticated("The bearer token is unknown or revoked.")
    return user


@dataclass(frozen=True)
class Identity:
    """Who a token belongs to, as plain values that may be cached and shared."""

    id: int
    name: str
    role: str
    created_at: datetime

    def user(self) -> User:
        # A new detached object per request: callers may attach it to their session, and one
        # shared ORM instance would carry a request's state into another.
        user = User(id=self.id, name=self.name, role=self.role, created_at=self.created_at)
        make_transient_to_detached(user)
        return user


def identify(connection: Connection, secret: str) -> Identity:
    """`authenticate` for the request path: the same rule, without an ORM session."""
    row = repository.active_identity(connection, hash_token(secret))
    if row is None:
        raise NotAuthenticated("The bearer token is unknown or revoked.")
    user_id, name, role, created_at = row
    return Identity(user_id, name, role, created_at)


def list_tokens(session: Session, include_revoked: bool = False) -> list[ApiToken]:
    return repository.list_tokens(session, include_revoked)


def revoke_token(session: Session, token_id: int, actor: User | None = None) -> ApiToken:
    token = repository.get_token(session, token_id)
    if token is None:
        raise NotFound(f"There is no token {token_id}.")
    if token.revoked_at is None:
        repository.revoke(session, token, utcnow())
        record(session, actor, "token.revoke", "api_token", token.id)
    return token
