"""The HTTP layer under every route: bodies over 16 KiB are refused, every
visitor gets a ``bakers_player`` cookie, and every answer says how long the
server took (``Server-Timing``)."""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import Request

MAX_BODY = 16 * 1024
DRAIN_LIMIT = 1024 * 1024
COOKIE = "bakers_player"
COOKIE_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
COOKIE_MAX_AGE = 10 * 365 * 24 * 3600

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BakersMiddleware:
    """Refuses bodies over 16 KiB with 413 (by Content-Length and while
    streaming) and gives every visitor a ``bakers_player`` cookie."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        player = _cookie_player(scope)
        new_cookie = player is None
        if player is None:
            player = secrets.token_urlsafe(18)
        scope.setdefault("state", {})["player"] = player

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if new_cookie:
                    headers.append((b"set-cookie", (
                        f"{COOKIE}={player}; Path=/; Max-Age={COOKIE_MAX_AGE}; "
                        "SameSite=Lax; HttpOnly").encode()))
                # how long the server took, for the benchmark and the browser's tools
                spent = (time.perf_counter() - started) * 1000
                headers.append((b"server-timing", f"app;dur={spent:.2f}".encode()))
                message["headers"] = headers
            await send(message)

        if scope.get("method") in ("POST", "PUT", "PATCH", "DELETE"):
            length = _content_length(scope)
            if length is not None and length > self.max_body:
                if length <= DRAIN_LIMIT:
                    await _drain(receive)
                await self._too_large(send_with_cookie)
                return
            chunks: list[bytes] = []
            size = 0
            more = True
            while more:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                more = bool(message.get("more_body", False))
                if size > self.max_body:
                    if more:
                        await _drain(receive, size)
                    await self._too_large(send_with_cookie)
                    return
                chunks.append(chunk)
            body = b"".join(chunks)
            sent = False

            async def replay() -> Message:
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await self.app(scope, replay, send_with_cookie)
            return
        await self.app(scope, receive, send_with_cookie)

    @staticmethod
    async def _too_large(send: Send) -> None:
        body = json.dumps({"error": "the request body is too large (16 KiB at most)"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


async def _drain(receive: Receive, size: int = 0) -> None:
    """Read and drop the rest of a refused body (up to ``DRAIN_LIMIT``), so the
    client gets the 413 answer instead of a reset connection."""
    more = True
    while more and size <= DRAIN_LIMIT:
        message = await receive()
        if message["type"] != "http.request":
            return
        size += len(message.get("body", b""))
        more = bool(message.get("more_body", False))


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _cookie_player(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            text: str = bytes(value).decode("latin-1")
            for part in text.split(";"):
                key, _, val = part.strip().partition("=")
                if key == COOKIE and COOKIE_RE.match(val):
                    return val
    return None


def player_of(request: Request) -> str:
    player: object = getattr(request.state, "player", None)
    return player if isinstance(player, str) else secrets.token_urlsafe(18)
