"""Page routes answer errors with pages: a domain error (no such assignment, points out of
range) becomes an HTML page with the same status, not problem+json."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from app.errors import DomainError
from app.web.markup import e, layout


class PageRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def page_handler(request: Request) -> Response:
            try:
                return await handle(request)
            except DomainError as exc:
                body = (
                    f'<p class="error">{e(exc.detail)}</p>'
                    '<p><a href="/">Back to the start page</a></p>'
                )
                return layout(exc.title, body, None, "", status=exc.status)

        return page_handler
