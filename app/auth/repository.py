"""Users and API tokens. Flushes, never commits."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload

from app.db.models import ApiToken, User


def get_user_by_name(session: Session, name: str) -> User | None:
    return session.scalar(select(User).where(User.name == name))


def add_user(session: Session, name: str, role: str) -> User:
    user = User(name=name, role=role)
    session.add(user)
    session.flush()
    return user


def add_token(session: Session, user: User, token_hash: str, prefix: str) -> ApiToken:
    token = ApiToken(user_id=user.id, token_hash=token_hash, prefix=prefix)
    session.add(token)
    session.flush()
    return token


def active_token(session: Session, token_hash: str) -> ApiToken | None:
    return session.scalar(
        select(ApiToken)
        .where(ApiToken.token_hash == token_hash, ApiToken.revoked_at.is_(None))
        .options(joinedload(ApiToken.user))
    )


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
