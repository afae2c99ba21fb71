"""The HTTP layer under every route: security headers on every answer,
state-changing requests only from this site's pages and as JSON (see
:mod:`.security`), bodies over 16 KiB refused and slow ones cut off, every
visitor given a ``bakers_player`` cookie (``HttpOnly; SameSite=Lax``, and
``Secure`` over HTTPS), and every answer saying how long the server took
(``Server-Timing``)."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import Request

from .security import (
    CSP,
    SECURITY_HEADERS,
    UNSAFE_METHODS,
    content_type_refusal,
    cross_site_refusal,
)

MAX_BODY = 16 * 1024
BODY_TIMEOUT = 10.0  # seconds a client may take to send a body once its headers are in
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
    """Security headers on every answer; state-changing requests refused
    when they come from another site (403) or are not JSON (415); bodies over
    16 KiB refused with 413 (by Content-Length and while streaming), bodies
    not sent within ``BODY_TIMEOUT`` with 408, bodies that are not UTF-8
    with 400; every visitor given a ``bakers_player`` cookie. A route may
    hand the browser another identity by setting ``request.state.set_player``
    (a transfer code)."""

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
        state = scope.setdefault("state", {})
        state["player"] = player
        secure = scope.get("scheme") == "https"

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                cookie = state.get("set_player") or (player if new_cookie else None)
                if cookie:
                    headers.append((b"set-cookie", (
                        f"{COOKIE}={cookie}; Path=/; Max-Age={COOKIE_MAX_AGE}; "
                        "SameSite=Lax; HttpOnly" + ("; Secure" if secure else "")).encode()))
                if not any(name == b"content-security-policy" for name, _ in headers):
                    headers.append((b"content-security-policy", CSP.encode()))
                headers.extend(SECURITY_HEADERS)
                if secure:
                    headers.append((b"strict-transport-security", b"max-age=31536000"))
                # how long the server took, for the benchmark and the browser's tools
                spent = (time.perf_counter() - started) * 1000
                headers.append((b"server-timing", f"app;dur={spent:.2f}".encode()))
                message["headers"] = headers
            await send(message)

        if scope.get("method") in UNSAFE_METHODS:
            refusal = cross_site_refusal(scope)
            if refusal is not None:
                await _refuse(send_with_cookie, 403, refusal, receive)
                return
            refusal = content_type_refusal(scope)
            if refusal is not None:
                await _refuse(send_with_cookie, 415, refusal, receive)
                return
            length = _content_length(scope)
            if length is not None and length > self.max_body:
                await _refuse(send_with_cookie, 413, TOO_LARGE,
                              receive if length <= DRAIN_LIMIT else None)
                return
            chunks: list[bytes] = []
            size = 0
            more = True
            deadline = asyncio.get_running_loop().time() + BODY_TIMEOUT
            while more:
                try:
                    async with asyncio.timeout_at(deadline):
                        message = await receive()
                except TimeoutError:
                    await _refuse(send_with_cookie, 408,
                                  "the request body took too long to arrive", None)
                    return
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                more = bool(message.get("more_body", False))
                if size > self.max_body:
                    if more:
                        await _drain(receive, size)
                    await _refuse(send_with_cookie, 413, TOO_LARGE, None)
                    return
                chunks.append(chunk)
            body = b"".join(chunks)
            try:
                body.decode("utf-8")
            except UnicodeDecodeError as exc:
                await _refuse(send_with_cookie, 400,
                              f"the body is not valid UTF-8 (byte {exc.start})", None)
                return
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


TOO_LARGE = "the request body is too large (16 KiB at most)"


async def _refuse(send: Send, status: int, message: str, drain: Receive | None) -> None:
    """Answer ``status`` with ``{"error": message}`` and close the connection
    (after reading what is left of the body, when ``drain`` is given, so the
    client gets the answer instead of a reset connection)."""
    if drain is not None:
        await _drain(drain)
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


async def _drain(receive: Receive, size: int = 0) -> None:
    """Read and drop the rest of a refused body (up to ``DRAIN_LIMIT``), so the
    client gets the 413 answer instead of a reset connection."""
    more = True
    deadline = asyncio.get_running_loop().time() + BODY_TIMEOUT
    while more and size <= DRAIN_LIMIT:
        try:
            async with asyncio.timeout_at(deadline):
                message = await receive()
        except TimeoutError:
            return
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


def address_of(request: Request) -> str:
    """The client's address (the proxy's forwarded one behind ``--behind-proxy``)."""
    client = request.client
    return client.host if client is not None else ""
