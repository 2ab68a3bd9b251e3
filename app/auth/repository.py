"""Users and API tokens. Flushes, never commits."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, Row, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, joinedload

from app.db.models import ApiToken, User


def get_user_by_name(session: Session, name: str) -> User | None:
    return session.scalar(select(User).where(User.name == name))


def add_user(session: Session, name: str, role: str) -> User:
    """A new user, or the one of that name another transaction stored meanwhile (two first
    tokens for one person at once: the second insert meets the unique name)."""
    user = User(name=name, role=role)
    try:
        with session.begin_nested():
            session.add(user)
            session.flush()
    except IntegrityError:
        stored = get_user_by_name(session, name)
        if stored is None:
            raise
        return stored
    return user


def add_token(session: Session, user: User, token_hash: str, prefix: str) -> ApiToken:
    token = ApiToken(user_id=user.id, token_hash=token_hash, prefix=prefix)
    session.add(token)
    session.flush()
    return token


def active_token_user(session: Session, token_hash: str) -> User | None:
    """The user of an unrevoked token: one indexed lookup (token_hash is unique)."""
    return session.scalar(
        select(User)
        .join(ApiToken, ApiToken.user_id == User.id)
        .where(ApiToken.token_hash == token_hash, ApiToken.revoked_at.is_(None))
    )


def active_identity(connection: Connection, token_hash: str) -> Row[int, str, str, datetime] | None:
    """(id, name, role, created_at) of an unrevoked token's user, as plain columns on a bare
    connection: every request with a token not seen lately pays for this lookup, and the ORM
    session around it would cost four times the query."""
    return connection.execute(
        select(User.id, User.name, User.role, User.created_at)
        .join(ApiToken, ApiToken.user_id == User.id)
        .where(ApiToken.token_hash == token_hash, ApiToken.revoked_at.is_(None))
    ).first()


def list_tokens(session: Session, include_revoked: bool) -> list[ApiToken]:
    query = select(ApiToken).options(joinedload(ApiToken.user)).order_by(ApiToken.id)
    if not include_revoked:
        query = query.where(ApiToken.revoked_at.is_(None))
    return list(session.scalars(query))


def get_token(session: Session, token_id: int) -> ApiToken | None:
    return session.get(ApiToken, token_id)


def revoke(session: Session, token: ApiToken, when: datetime) -> None:
    token.revoked_at = when
    session.flush()
