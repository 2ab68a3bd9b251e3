"""Every error as RFC 9457 application/problem+json, from one place."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from app.errors import DomainError

log = logging.getLogger(__name__)

PROBLEM_TYPE_BASE = "https://gradeformer.dev/problems/"
MEDIA_TYPE = "application/problem+json"


class ProblemResponse(JSONResponse):
    media_type = MEDIA_TYPE


def problem(
    request: Request,
    status: int,
    title: str,
    detail: str,
    slug: str | None = None,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> ProblemResponse:
    body: dict[str, Any] = {
        **(extra or {}),
        "type": PROBLEM_TYPE_BASE + slug if slug else "about:blank",
        "title": title,
        "status": status,
        "detail": detail,
        "instance": request.url.path,
    }
    return ProblemResponse(body, status_code=status, headers=headers)


def _readable(errors: list[Any]) -> list[dict[str, Any]]:
    return [
        {"location": ".".join(str(p) for p in e.get("loc", ())), "message": e.get("msg", "")}
        for e in errors
    ]


async def _domain(request: Request, exc: Exception) -> ProblemResponse:
    assert isinstance(exc, DomainError)
    headers: dict[str, str] = {}
    if exc.status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    if "retry_after" in exc.extra:
        headers["Retry-After"] = str(exc.extra["retry_after"])
    return problem(request, exc.status, exc.title, exc.detail, exc.slug, headers, exc.extra)


async def _disconnected(request: Request, exc: Exception) -> Response:
    # The client went away mid-request: nobody will read an answer, and it is not our error.
    # One line, no traceback (the catch-all would log one and the server another).
    log.info("client disconnected during %s %s", request.method, request.url.path)
    return Response(status_code=499)


async def _validation(request: Request, exc: Exception) -> ProblemResponse:
    assert isinstance(exc, RequestValidationError)
    errors = _readable(list(exc.errors()))
    detail = "; ".join(f"{e['location']}: {e['message']}" for e in errors) or "Invalid request."
    return problem(
        request, 422, "Invalid request", detail, "invalid-request", extra={"errors": errors}
    )


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


async def _http(request: Request, exc: Exception) -> ProblemResponse:
    assert isinstance(exc, StarletteHTTPException)
    phrase = _phrase(exc.status_code)
    detail = exc.detail if isinstance(exc.detail, str) else phrase
    if exc.status_code == 404 and detail == phrase:
        detail = f"There is nothing at {request.url.path}."
    elif exc.status_code == 405:
        detail = f"{request.method} is not allowed on {request.url.path}."
    return problem(request, exc.status_code, phrase, detail, None, dict(exc.headers or {}))


async def _unexpected(request: Request, exc: Exception) -> ProblemResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem(
        request,
        500,
        "Internal server error",
        "Something went wrong on our side; the error has been logged.",
        "internal",
    )


def install(app: FastAPI) -> None:
    app.add_exception_handler(DomainError, _domain)
    app.add_exception_handler(ClientDisconnect, _disconnected)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _unexpected)


class Problem(BaseModel):
    """RFC 9457 problem details (extra members such as `errors` may follow)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    instance: str


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Declare problem+json error responses on a router, for the OpenAPI document."""
    return {
        s: {"model": Problem, "description": HTTPStatus(s).phrase, "content": {MEDIA_TYPE: {}}}
        for s in statuses
    }
