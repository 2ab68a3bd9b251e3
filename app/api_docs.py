"""The interactive API pages (/docs: Swagger UI, /redoc: ReDoc), served without internet.

FastAPI's own pages load their scripts and styles from a CDN; these load the same assets from
the server itself (the `fastapi-offline` package ships them), so the pages work on a network
without internet access, and the pages' CSP allows no other origin. The inline script that
starts Swagger UI carries the response's nonce (app/middleware.py)."""

from __future__ import annotations

import secrets
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from app.middleware import NONCE_STATE

ASSETS = "/docs/assets"
DOCS, REDOC, OAUTH2_REDIRECT = "/docs", "/redoc", "/docs/oauth2-redirect"


def assets_dir() -> Path:
    return Path(str(files("fastapi_offline") / "static"))


def _with_nonce(request: Request, page: HTMLResponse) -> HTMLResponse:
    """The page, its scripts marked with a fresh nonce that the CSP then allows."""
    nonce = secrets.token_urlsafe(16)
    setattr(request.state, NONCE_STATE, nonce)
    body = bytes(page.body).decode("utf-8").replace("<script", f'<script nonce="{nonce}"')
    return HTMLResponse(body)


def install(app: FastAPI) -> None:
    """Serve /docs, /redoc and their assets; `app` was created with docs_url=None and
    redoc_url=None."""
    app.mount(ASSETS, StaticFiles(directory=assets_dir()), name="docs-assets")
    title = f"{app.title} API"
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(DOCS, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        return _with_nonce(request, get_swagger_ui_html(
            openapi_url=openapi_url,
            title=title,
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
            oauth2_redirect_url=OAUTH2_REDIRECT,
        ))  # fmt: skip

    @app.get(OAUTH2_REDIRECT, include_in_schema=False)
    async def swagger_ui_redirect(request: Request) -> HTMLResponse:
        return _with_nonce(request, get_swagger_ui_oauth2_redirect_html())

    @app.get(REDOC, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        return _with_nonce(request, get_redoc_html(
            openapi_url=openapi_url,
            title=title,
            redoc_js_url=f"{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS}/favicon.png",
            with_google_fonts=False,
        ))  # fmt: skip
