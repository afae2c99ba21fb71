"""uvicorn's HTTP protocol with a header timeout.

uvicorn closes a kept-alive connection that stays idle, but a connection
that sends part of a request's headers and then nothing is kept open for
ever (a few hundred of them exhaust a server). Here every connection must
deliver a request's complete headers within ``HEADER_TIMEOUT`` seconds of
opening, or of the end of its last answer; otherwise it is closed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

HEADER_TIMEOUT = 5.0


class HeaderTimeoutProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    """uvicorn's protocol (httptools or h11, whichever it picks) that closes
    connections whose request headers do not arrive in time."""

    header_timeout = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._waiting_after: object = None  # the request cycle answered last

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._waiting_after = self.cycle
        self._header_timer = self.loop.call_later(self.header_timeout, self._header_timeout)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _request_started(self) -> bool:
        cycle = self.cycle
        return cycle is not None and cycle is not self._waiting_after

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self._request_started() and not self.cycle.response_complete:
            return  # the headers came and the request is being answered
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._header_timer is not None and self._request_started():
            self._cancel_header_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)
