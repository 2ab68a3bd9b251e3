"""Page routes answer errors with pages: a domain error (no such assignment, points out of
range) becomes an HTML page with the same status, not problem+json, with the navigation of
whoever is signed in."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from app.errors import DomainError
from app.web.auth import VIEWER_STATE, refusal


class PageRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def page_handler(request: Request) -> Response:
            try:
                return await handle(request)
            except DomainError as exc:
                # the signed-in viewer's own navigation (their name, Sign out), not a stranger's
                viewer = getattr(request.state, VIEWER_STATE, None)
                return refusal(request, viewer, exc.status, exc.title, exc.detail)

        return page_handler
