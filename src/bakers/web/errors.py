"""Errors as people read them: a 4xx JSON body ``{"error": "..."}`` on the
API, a plain page on the HTML routes; never a traceback."""

from __future__ import annotations

import html
import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import BakersError, IllegalMoveError, UnknownGameError
from ..session import SessionError
from ..store import GameNotFoundError, StoreConflictError
from .limits import RateLimitedError

MAX_MESSAGE = 300  # characters of an error message, at most
MAX_QUOTE = 40  # characters of a quoted value in it, at most
# a quoted value: an apostrophe inside a word (Baker's) neither opens nor closes one
_QUOTED = re.compile(r"(?<!\w)'(?:[^']|(?<=\w)'(?=\w))*'(?!\w)|(?<!\w)\"[^\"]*\"")


def shorten(message: str) -> str:
    """``message`` with every quoted value cut to a short excerpt and the
    whole bounded, so an error never echoes a long field back.

    >>> shorten("unknown game '" + "x" * 500 + "'")
    "unknown game 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'"
    """
    def cut(m: re.Match[str]) -> str:
        text = m.group(0)
        if len(text) <= MAX_QUOTE:
            return text
        return text[:MAX_QUOTE - 9] + "…" + text[-1]

    message = _QUOTED.sub(cut, message)
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE - 1] + "…"
    return message


def status_of(exc: BakersError) -> int:
    if isinstance(exc, RateLimitedError):
        return 429
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
             422: "Not allowed", 413: "Too large",
             429: "Too many requests"}.get(status, "Something went wrong")
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · bakers</title>
<link rel="stylesheet" href="/static/error.css"></head>
<body class="error-page"><main><h1>{title}</h1>
<p class="error-message">{html.escape(shorten(message))}</p>
<p><a href="/">Back to the games</a></p></main></body></html>
"""
    return HTMLResponse(body, status_code=status)


def error_response(request: Request, status: int, message: str,
                   headers: dict[str, str] | None = None) -> Response:
    if is_api(request):
        return JSONResponse({"error": shorten(message)}, status_code=status, headers=headers)
    page = error_page(status, message)
    if headers:
        page.headers.update(headers)
    return page


def validation_message(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "the request is not valid"
    first = errors[0]
    if first.get("type") == "json_invalid":
        return "the body is not valid JSON"
    # the field's name; not the union member pydantic tried last ("deal.int")
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
    where = loc[0] if loc else ""
    msg = str(first.get("msg", "is not valid")).removeprefix("Value error, ")
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
    headers = ({"Retry-After": str(exc.retry_after)}
               if isinstance(exc, RateLimitedError) else None)
    return error_response(request, status_of(exc), str(exc), headers)


def install_error_handlers(app: FastAPI) -> None:
    """Every error of ``app`` as one sentence with its 4xx status."""
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(BakersError, bakers_error)
