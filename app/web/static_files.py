"""The web app's one stylesheet and script, and the vendored KaTeX, served by the app (no
CDN)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import Response

router = APIRouter(tags=["web"])
STATIC = Path(__file__).with_name("static")
_TYPES = {
    "web.css": "text/css; charset=utf-8",
    "web.js": "text/javascript; charset=utf-8",
    # KaTeX (npm `katex`, MIT: static/KATEX-LICENSE), loaded by web.js only where math is shown
    "katex.min.js": "text/javascript; charset=utf-8",
}
_FILES = {name: (STATIC / name).read_bytes() for name in _TYPES}


@router.get("/static/{name}", include_in_schema=False)
def static_file(name: str) -> Response:
    """web.css, web.js or katex.min.js; anything else is 404."""
    body = _FILES.get(name)
    if body is None:
        return Response(status_code=404)
    return Response(body, media_type=_TYPES[name], headers={"Cache-Control": "max-age=300"})
