"""Errors as people read them: a 4xx JSON body ``{"error": "..."}`` on the
API, a plain page on the HTML routes; never a traceback."""

from __future__ import annotations

import html

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import BakersError, IllegalMoveError, UnknownGameError
from ..session import SessionError
from ..store import GameNotFoundError, StoreConflictError


def status_of(exc: BakersError) -> int:
    if isinstance(exc, IllegalMoveError):
        return 422
    if isinstance(exc, (UnknownGameError, GameNotFoundError)):
        return 404
    if isinstance(exc, (SessionError, StoreConflictError)):
        return 409
    return 400


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api")


def error_page(status: int, message: str) -> HTMLResponse:
    """A plain page for errors on the HTML routes."""
    title = {404: "Not found", 400: "Bad request", 409: "Not possible now",
             422: "Not allowed", 413: "Too large"}.get(status, "Something went wrong")
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · bakers</title>
<style>body{{font:17px/1.5 system-ui,sans-serif;background:#175c38;color:#fff;
margin:0;display:grid;place-items:center;min-height:100vh}}main{{max-width:34em;padding:2em}}
a{{color:#ffe08a}}</style></head>
<body><main><h1>{title}</h1><p class="error-message">{html.escape(message)}</p>
<p><a href="/">Back to the games</a></p></main></body></html>
"""
    return HTMLResponse(body, status_code=status)


def error_response(request: Request, status: int, message: str) -> Response:
    if is_api(request):
        return JSONResponse({"error": message}, status_code=status)
    return error_page(status, message)


def validation_message(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "the request is not valid"
    first = errors[0]
    if first.get("type") == "json_invalid":
        return "the body is not valid JSON"
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
    where = ".".join(loc)
    msg = str(first.get("msg", "is not valid"))
    if first.get("type") == "model_attributes_type" or (not where and "dict" in msg):
        return "the body must be a JSON object"
    return f"{where}: {msg}" if where else msg




async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    message = str(exc.detail)
    if exc.status_code == 404 and message == "Not Found":
        message = ("there is no such API endpoint" if is_api(request)
                   else "there is no such page")
    elif exc.status_code == 405:
        message = "this method is not allowed here"
    return error_response(request, exc.status_code, message)


async def validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return error_response(request, 400, validation_message(exc))


async def bakers_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BakersError)
    return error_response(request, status_of(exc), str(exc))


def install_error_handlers(app: FastAPI) -> None:
    """Every error of ``app`` as one sentence with its 4xx status."""
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(BakersError, bakers_error)
