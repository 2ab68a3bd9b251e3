"""Token management over HTTP (administrators)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request, status
from pydantic import BaseModel, Field

from app.auth import service
from app.auth.cache import TokenCache
from app.auth.dependencies import AdminUser
from app.db.models import ApiToken
from app.deps import IdPath, SessionDep

router = APIRouter(prefix="/api/v1/tokens", tags=["tokens"])


class TokenIn(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    role: str = Field(description="student, instructor or admin")


class TokenOut(BaseModel):
    id: int
    name: str
    role: str
    prefix: str
    created_at: datetime
    revoked_at: datetime | None

    @classmethod
    def of(cls, token: ApiToken) -> TokenOut:
        return cls(
            id=token.id,
            name=token.user.name,
            role=token.user.role,
            prefix=token.prefix,
            created_at=token.created_at,
            revoked_at=token.revoked_at,
        )


class IssuedTokenOut(TokenOut):
    token: str = Field(description="The secret; shown only in this response.")


@router.post(
    "", status_code=status.HTTP_201_CREATED, response_model=IssuedTokenOut,
    summary="Create an API token",
)
def create_token(body: TokenIn, session: SessionDep, admin: AdminUser) -> IssuedTokenOut:
    """A new bearer token for a user (created with the role if new); the secret is in this
    response only.

    Errors: 401 no or an unknown token; 403 not an admin; 409 the user exists with another
    role; 422 an empty name or an unknown role."""
    issued = service.create_token(session, body.name, body.role, admin)
    return IssuedTokenOut(**TokenOut.of(issued.record).model_dump(), token=issued.token)


@router.get("", response_model=list[TokenOut], summary="List API tokens")
def list_tokens(
    session: SessionDep,
    admin: AdminUser,
    include_revoked: Annotated[bool, Query()] = False,
) -> list[TokenOut]:
    """Every token (never its secret), active ones only unless `include_revoked`.

    Errors: 401 no or an unknown token; 403 not an admin."""
    return [TokenOut.of(t) for t in service.list_tokens(session, include_revoked)]


@router.delete("/{token_id}", response_model=TokenOut, summary="Revoke an API token")
def revoke_token(
    token_id: IdPath, request: Request, session: SessionDep, admin: AdminUser
) -> TokenOut:
    """Revoke a token: it is refused from the next request on.

    Errors: 401 no or an unknown token; 403 not an admin; 404 no such token."""
    token = service.revoke_token(session, token_id, admin)
    # Committed before the cache forgets it: a request verifying the token in between would
    # otherwise read it as still active and cache it again.
    session.commit()
    cache: TokenCache = request.app.state.token_cache
    cache.forget(token.token_hash)
    return TokenOut.of(token)
