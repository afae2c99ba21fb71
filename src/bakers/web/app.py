"""The web table: the JSON API of docs/api.md and the pages around it.

``create_app(db_url)`` builds the ASGI app. Handlers are ``async``. Their
database work, with the game logic around it (load, change, save, the game
object), goes through :meth:`Table.db`:

* PostgreSQL: in a small thread pool (``db_threads``, default 8), so the
  network round trips of one request (about eight for a move) do not hold up
  every other request. Measured with 20 players and a 2.5 ms round trip:
  40 → 200 requests/s.
* SQLite: directly on the event loop (``db_threads=0``). A local file in WAL
  mode answers in well under a millisecond, and threads only cost there: with
  the loop busy, every hand-over of the GIL between it and a worker waits up
  to the interpreter's switch interval, and concurrent writers wait on
  SQLite's file lock (measured: p99 of a move 16 ms → 145 ms).

Two requests on the same game never overlap: each holds that game's lock
(:class:`GameLocks`) while its work runs, because a loaded game is a shared,
cached object. Solver work goes to a process pool
(:mod:`bakers.web.solving`) and is only awaited.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import functools
import html
import json
import os
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Literal, TypeVar

import anyio
import anyio.to_thread
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from jinja2 import TemplateNotFound
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..board import Board
from ..deals import daily_candidates, parse_deal_number, random_deal_number, today_utc
from ..errors import BakersError, IllegalMoveError, InvalidMoveError, UnknownGameError
from ..games import GAMES, Game, find_game
from ..session import Clock, Session, SessionError, level_cells, level_for
from ..store import GameNotFoundError, Store, StoreConflictError
from .solving import SolverPool

HERE = os.path.dirname(os.path.abspath(__file__))
STATIC_DIR = os.path.join(HERE, "static")
TEMPLATES_DIR = os.path.join(HERE, "templates")

MAX_BODY = 16 * 1024
DRAIN_LIMIT = 1024 * 1024
STOCK = 3  # proven winnable deals kept ready per game and cell count
STOCK_TRIES = 40  # random deals one background refill may try
WARM_DELAY = 2.0  # seconds after the first game before the solver workers start
CHECKPOINT_EVERY = 2.0  # seconds between SQLite WAL checkpoints (off the loop)
COOKIE = "bakers_player"
COOKIE_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
COOKIE_MAX_AGE = 10 * 365 * 24 * 3600
DB_THREADS = 8  # PostgreSQL calls running at once (each holds a pooled connection)

T = TypeVar("T")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# --- request bodies (documented in /openapi.json) ------------------------------------

class NewGameBody(BaseModel):
    """``POST /api/games``: which deal to play, at which level."""

    game: str = Field("bakers_game", max_length=200, examples=["bakers_game"])
    deal: int | str | None = Field(None, examples=[617])
    cells: int | None = Field(None, ge=0, le=8)
    level: Literal["easy", "normal", "hard"] | None = None
    daily: bool = False
    winnable: bool = False
    position: str | None = Field(None, max_length=4000)
    replace: str | None = Field(None, max_length=40)
    autoplay: Literal["off", "safe"] | None = None
    order: Literal["cell_first", "empty_first"] | None = None
    practice: bool = Field(False, description="a lesson: left out of the statistics "
                                              "and of the unfinished games list")


class MoveBody(BaseModel):
    """``POST /api/games/{id}/moves``: ``{"move": "3a"}`` or ``{"from": "3", "count": 2}``."""

    model_config = ConfigDict(populate_by_name=True)

    move: str | None = Field(None, max_length=16, examples=["3a"])
    from_: str | int | None = Field(None, alias="from", examples=["3"])
    count: int | None = Field(None, ge=1, le=52)


class SettingsBody(BaseModel):
    """``POST /api/games/{id}/settings``."""

    autoplay: Literal["off", "safe"] | None = None
    order: Literal["cell_first", "empty_first"] | None = None


GAME_DOC: dict[int | str, dict[str, Any]] = {200: {"description": "the game object of docs/api.md"},
            404: {"description": "no game with this id"},
            409: {"description": "the game is over, or not in a state for this action"}}


# --- errors ---------------------------------------------------------------------

def _status_of(exc: BakersError) -> int:
    if isinstance(exc, IllegalMoveError):
        return 422
    if isinstance(exc, (UnknownGameError, GameNotFoundError)):
        return 404
    if isinstance(exc, (SessionError, StoreConflictError)):
        return 409
    return 400


def _is_api(request: Request) -> bool:
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


def _error(request: Request, status: int, message: str) -> Response:
    if _is_api(request):
        return JSONResponse({"error": message}, status_code=status)
    return error_page(status, message)


def _validation_message(exc: RequestValidationError) -> str:
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


# --- middleware: body size limit and the player cookie ---------------------------------

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


# --- the app ------------------------------------------------------------------------

def games_catalogue() -> list[dict[str, Any]]:
    """The games for the home page and menus."""
    return [{"name": g.name, "title": g.title, "levels": list(g.levels),
             "max_cells": g.max_cells, "cells": g.cells, "columns": g.columns}
            for g in GAMES.values()]


class GameLocks:
    """One ``asyncio.Lock`` per game id, kept only while a request holds or
    waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @asynccontextmanager
    async def hold(self, game_id: str) -> AsyncIterator[None]:
        entry = self._locks.get(game_id)
        if entry is None:
            entry = self._locks[game_id] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[game_id]

    async def hold_all(self, stack: AsyncExitStack, game_ids: list[str]) -> None:
        """Take the locks of several games (in a fixed order, so two requests
        taking the same locks cannot wait for each other)."""
        for game_id in sorted(set(game_ids)):
            await stack.enter_async_context(self.hold(game_id))

    def __len__(self) -> int:
        return len(self._locks)


class Table:
    """The app's shared state: the store, the solver pool, the options."""

    def __init__(self, store: Store, clock: Clock, *, hint_budget: float,
                 deal_budget: float, deal_tries: int, deal_deadline: float,
                 workers: int, db_threads: int | None = None) -> None:
        self.store = store
        if db_threads is None:
            db_threads = 0 if store.url.startswith("sqlite") else DB_THREADS
        if store.memory:
            db_threads = min(db_threads, 1)  # one connection: one call at a time
        self.db_threads = db_threads
        self.clock = clock
        self.solver = SolverPool(workers=workers)
        self.hint_budget = hint_budget
        self.deal_budget = deal_budget
        self.deal_tries = deal_tries
        self.deal_deadline = deal_deadline
        self.refills: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.daily_failed: dict[tuple[str, str], float] = {}
        self.locks = GameLocks()
        self._limiter: tuple[asyncio.AbstractEventLoop, anyio.CapacityLimiter] | None = None

    async def db(self, work: Callable[[], T]) -> T:
        """Run ``work`` (database calls and the game logic around them): in
        a worker thread (at most ``db_threads`` at once), or right here when
        ``db_threads`` is 0. Cancelling the caller waits for the thread to
        finish, so a game lock is never released while its work still runs."""
        if not self.db_threads:
            return work()
        loop = asyncio.get_running_loop()
        if self._limiter is None or self._limiter[0] is not loop:
            self._limiter = (loop, anyio.CapacityLimiter(self.db_threads))
        return await anyio.to_thread.run_sync(work, limiter=self._limiter[1])

    # --- choosing deals ---------------------------------------------------------

    async def winnable_deal(self, game: Game) -> tuple[int, str | None]:
        """A random deal proven winnable, or an unproven one and why.

        Deals proven in the background wait in a small stock, so an Easy game
        usually starts at once; otherwise random numbers are tried now."""
        stocked = await self.db(lambda: self.store.take_proven_deal(game.name, game.cells))
        self.refill(game)
        if stocked is not None:
            return stocked, None
        start = time.monotonic()
        tries = 0
        while tries < self.deal_tries and time.monotonic() - start < self.deal_deadline:
            batch = [random_deal_number()
                     for _ in range(min(self.solver.workers, self.deal_tries - tries))]
            tries += len(batch)
            verdicts = await asyncio.gather(
                *(self.solver.verdict(game.name, game.cells, n, self.deal_budget)
                  for n in batch))
            for n, verdict in zip(batch, verdicts, strict=True):
                if verdict == "winnable":
                    return n, None
        return random_deal_number(), (
            f"No winnable deal was proven in {tries} tries, so this deal is not proven "
            "winnable.")

    def refill(self, game: Game) -> None:
        """Top up the stock of proven deals of ``game`` in the background
        (one solver job at a time, so a worker stays free for hints)."""
        key = (game.name, game.cells)
        if key in self.refills:
            return

        async def run() -> None:
            tries = 0
            while (tries < STOCK_TRIES and await self.db(
                    lambda: self.store.count_proven_deals(game.name, game.cells)) < STOCK):
                tries += 1
                n = random_deal_number()
                if await self.solver.verdict(game.name, game.cells, n,
                                             self.deal_budget) == "winnable":
                    await self.db(functools.partial(
                        self.store.add_proven_deal, game.name, game.cells, n))

        task = asyncio.get_running_loop().create_task(run())
        self.refills[key] = task
        task.add_done_callback(lambda _t: self.refills.pop(key, None))

    def stop_refills(self) -> None:
        for task in list(self.refills.values()):
            task.cancel()

    async def daily_deal(self, game: Game, date: _dt.date) -> tuple[int, str | None]:
        """The daily deal of ``date``: the first candidate proven winnable."""
        key = date.isoformat()
        cached = await self.db(lambda: self.store.daily_deal(key, game.name))
        if cached is not None and cached[1]:
            return cached[0], None
        failed = self.daily_failed.get((key, game.name))
        if cached is not None and failed is not None and time.monotonic() - failed < 600:
            return cached[0], "Today's deal could not be proven winnable yet."
        candidates = daily_candidates(date, game.name)
        chosen: int | None = None
        start = time.monotonic()
        for n in candidates:
            if time.monotonic() - start > self.deal_deadline:
                break
            verdict = await self.solver.verdict(game.name, game.cells, n, self.deal_budget)
            if verdict == "winnable":
                chosen = n
                break
        if chosen is None:
            # not proven: play the first candidate, say so, try again next time
            fallback = cached[0] if cached is not None else candidates[0]
            await self.db(lambda: self.store.set_daily_deal(key, game.name, fallback, False))
            self.daily_failed[(key, game.name)] = time.monotonic()
            return fallback, "Today's deal could not be proven winnable yet."
        proven = chosen

        def remember() -> int:
            again = self.store.daily_deal(key, game.name)  # another request may have won
            if again is not None and again[1]:
                return again[0]
            self.store.set_daily_deal(key, game.name, proven, True)
            return proven

        return await self.db(remember), None

    async def new_session(self, body: NewGameBody) -> Session:
        """The session a ``POST /api/games`` body asks for."""
        game = find_game(body.game)
        choices = [body.deal is not None, body.daily, body.winnable, body.position is not None]
        if sum(choices) > 1:
            raise BakersError("choose one of deal, daily, winnable or position")
        if body.level is not None and body.level not in game.levels:
            raise BakersError(f"{game.title} has the levels {', '.join(game.levels)}")
        message: str | None = None
        daily: str | None = None
        if body.daily:
            if body.cells is not None and body.cells != game.cells:
                raise BakersError(
                    f"the daily deal is played with {game.cells} free cells")
            date = today_utc()
            deal, message = await self.daily_deal(game, date)
            board = Board.deal(game, deal)
            level = "daily"
            daily = date.isoformat()
        else:
            cells = body.cells
            if cells is not None and not 0 <= cells <= game.max_cells:
                raise BakersError(f"{game.title} has no free cells" if not game.max_cells
                                  else f"{game.title} allows 0 to {game.max_cells} free cells")
            if body.level is not None:
                wanted = level_cells(game.name, body.level)
                if cells is not None and cells != wanted:
                    raise BakersError(
                        f"the {body.level} level is played with {wanted} free cells")
                cells = wanted
            if cells is None:
                cells = game.cells
            g = game.with_cells(cells) if cells != game.cells else game
            winnable = body.winnable or (body.level == "easy" and body.deal is None
                                         and body.position is None)
            if body.position is not None:
                board = Board.from_text(body.position, game=g)
            elif body.deal is not None:
                board = Board.deal(g, parse_deal_number(body.deal))
            elif winnable:
                deal, message = await self.winnable_deal(g)
                board = Board.deal(g, deal)
            else:
                board = Board.deal(g, random_deal_number())
            level = body.level or level_for(game.name, cells, winnable)
        return Session(board, level=level, daily=daily, autoplay=body.autoplay or "safe",
                       order=body.order or "cell_first", clock=self.clock, message=message,
                       practice=body.practice)


def create_app(db_url: str | None = None, *, clock: Clock = time.time,
               hint_budget: float = 2.0, deal_budget: float = 2.0, deal_tries: int = 20,
               deal_deadline: float = 15.0, workers: int = 2,
               warm_solver: bool = False, db_threads: int | None = None) -> FastAPI:
    """The bakers web app over the database at ``db_url`` (default: SQLite in
    the user data directory). The schema is created here if missing.

    The solver's worker processes start on first need; with ``warm_solver``
    they start when the first game is created (``bakers serve`` does that).
    ``db_threads``: database calls at once in worker threads; 0 runs them on
    the event loop; default 8 for PostgreSQL and 0 for SQLite (see above)."""
    store = Store(db_url, clock=clock)
    table = Table(store, clock, hint_budget=hint_budget, deal_budget=deal_budget,
                  deal_tries=deal_tries, deal_deadline=deal_deadline, workers=workers,
                  db_threads=db_threads)

    async def checkpoints() -> None:
        while True:
            await asyncio.sleep(CHECKPOINT_EVERY)
            await asyncio.to_thread(store.checkpoint)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(checkpoints()) if store.sqlite_path else None
        try:
            yield
        finally:
            if task is not None:
                task.cancel()
            table.stop_refills()
            table.solver.shutdown()
            store.close()

    app = FastAPI(
        title="bakers", version="0.1.0", lifespan=lifespan,
        description="Play Baker's Game, FreeCell and Baker's Dozen. Every game response "
                    "is the game object of docs/api.md; every error is "
                    '`{"error": "..."}` with a 4xx status.')
    app.state.table = table
    app.state.store = store
    app.add_middleware(BakersMiddleware)
    templates = Jinja2Templates(directory=TEMPLATES_DIR)
    if os.path.isdir(STATIC_DIR):
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    # --- error handlers -------------------------------------------------------------

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = str(exc.detail)
        if exc.status_code == 404 and message == "Not Found":
            message = ("there is no such API endpoint" if _is_api(request)
                       else "there is no such page")
        elif exc.status_code == 405:
            message = "this method is not allowed here"
        return _error(request, exc.status_code, message)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        return _error(request, 400, _validation_message(exc))

    @app.exception_handler(BakersError)
    async def bakers_error(request: Request, exc: BakersError) -> Response:
        return _error(request, _status_of(exc), str(exc))

    # --- helpers ------------------------------------------------------------------------

    def game_response(game_id: str, session: Session, status: int = 200) -> JSONResponse:
        return JSONResponse(session.to_api(game_id), status_code=status)

    async def locked(game_id: str, work: Callable[[], T]) -> T:
        """``work`` on one game: in a worker thread, holding the game's lock."""
        async with table.locks.hold(game_id):
            return await table.db(work)

    async def change(game_id: str, act: Callable[[Session], object]) -> Response:
        """Load, change, save (after every move), answer with the game object.
        A refused action changes nothing; an unexpected failure drops the
        cached copy so the saved game stays the truth."""
        def work() -> Response:
            loaded = store.load(game_id)
            try:
                act(loaded.session)
            except BakersError:
                raise
            except Exception:
                store.forget(game_id)
                raise
            store.save(loaded)
            return game_response(game_id, loaded.session)

        return await locked(game_id, work)

    async def create(body: NewGameBody, player: str) -> tuple[str, Response]:
        """Start the game ``body`` asks for: its id and its 201 answer."""
        replace = body.replace
        if replace is not None:
            old = await locked(replace, lambda: store.load(replace))  # 404 before solver work
            if old.player_id != player:
                raise GameNotFoundError("there is no game of yours with this id to replace")
        session = await table.new_session(body)
        if replace is not None:
            await locked(replace, lambda: store.abandon(replace, player))

        def save_new() -> tuple[str, Response]:
            game_id = store.create_game(session, player)
            return game_id, game_response(game_id, session, 201)

        game_id, response = await table.db(save_new)
        if warm_solver and not table.solver.started:
            # someone is playing: start the solver workers soon (not while
            # this page is being served), so the first hint need not wait
            asyncio.get_running_loop().call_later(WARM_DELAY, table.solver.warm_up)
        return game_id, response

    # --- the JSON API ---------------------------------------------------------------------

    @app.post("/api/games", status_code=201, tags=["games"],
              responses={201: {"description": "the new game object"},
                         404: {"description": "unknown game name"}})
    async def new_game(body: NewGameBody, request: Request) -> Response:
        """Start a game: a numbered deal, the daily deal, a winnable deal, a
        random one, or a position. ``replace`` abandons an unfinished game
        (a loss once a move was made on it); ``practice`` games (lessons) stay
        out of the statistics and of the unfinished games list."""
        _game_id, response = await create(body, player_of(request))
        return response

    @app.get("/api/games", tags=["games"])
    async def list_games(request: Request, status: str = Query("playing", max_length=20)
                         ) -> Response:
        """This player's unfinished games, newest first ("Continue"; practice
        games left out), or with ``status=all`` every game of theirs."""
        if status not in ("playing", "all"):
            raise BakersError("status is 'playing' or 'all'")
        player = player_of(request)
        ids = await table.db(lambda: store.list_game_ids(player, unfinished=status == "playing"))
        async with AsyncExitStack() as stack:
            await table.locks.hold_all(stack, ids)
            found = await table.db(
                lambda: [store.load(game_id).session.summary(game_id) for game_id in ids])
        return JSONResponse({"games": found})

    @app.get("/api/games/{game_id}", tags=["games"], responses=GAME_DOC)
    async def get_game(game_id: str) -> Response:
        """The game object."""
        return await locked(game_id, lambda: game_response(game_id, store.load(game_id).session))

    @app.post("/api/games/{game_id}/moves", tags=["games"],
              responses={**GAME_DOC, 422: {"description": "the move is refused; says why"}})
    async def play(game_id: str, body: MoveBody) -> Response:
        """Play a move (``{"move": "3a"}``) or send a card to its best place
        (``{"from": "3", "count": 1}``)."""
        if (body.move is None) == (body.from_ is None):
            raise InvalidMoveError(
                'send a move like {"move": "3a"}, or {"from": "3", "count": 1}')
        move, src = body.move, body.from_

        def act(session: Session) -> None:
            if move is not None:
                session.play(move)
            else:
                session.play_from(str(src), body.count or 1)

        return await change(game_id, act)

    def action(name: str, doc: str) -> None:
        async def handler(game_id: str) -> Response:
            return await change(game_id, lambda session: getattr(session, name)())
        handler.__doc__ = doc
        handler.__name__ = f"{name}_game"
        app.post(f"/api/games/{{game_id}}/{name}", tags=["games"], responses=GAME_DOC,
                 name=f"{name}_game")(handler)

    action("undo", "Take back the last move (it counts as a move and takes its points back).")
    action("redo", "Play again the move taken back last.")
    action("restart", "Back to the deal: history, moves and score cleared.")
    action("pause", "Stop the timer.")
    action("resume", "Run the timer again (any move also resumes).")

    @app.post("/api/games/{game_id}/settings", tags=["games"], responses=GAME_DOC)
    async def settings(game_id: str, body: SettingsBody) -> Response:
        """Autoplay ``off`` / ``safe``; best-place order ``cell_first`` / ``empty_first``."""
        return await change(game_id, lambda session: session.set_settings(
            autoplay=body.autoplay, order=body.order))

    @app.get("/api/games/{game_id}/hint", tags=["games"])
    async def get_hint(game_id: str) -> Response:
        """The next move of a winning line, or "no winning line from here"."""
        def read() -> tuple[str, int, str]:
            session = store.load(game_id).session
            if session.finished:
                raise SessionError("this game is over: no hint needed")
            g = session.board.game
            return g.name, g.cells, session.board.to_text()

        name, cells, text = await locked(game_id, read)
        verdict, move, message = await table.solver.hint(name, cells, text, table.hint_budget)
        return JSONResponse({"verdict": verdict, "move": move, "message": message})

    @app.get("/api/games/{game_id}/record", tags=["games"])
    async def get_record(game_id: str) -> Response:
        """The game record: deal and moves, as text to save, share and replay."""
        text = await locked(game_id, lambda: store.load(game_id).session.record().to_text())
        return JSONResponse({"record": text})

    @app.get("/api/stats", tags=["stats"])
    async def get_stats(request: Request,
                        game: str | None = Query(None, max_length=40),
                        level: str | None = Query(None, max_length=20)) -> Response:
        """This player's statistics per game and level."""
        name = find_game(game).name if game is not None else None
        player = player_of(request)
        rows = await table.db(lambda: store.stats(player, name, level))
        return JSONResponse({"stats": [s.to_dict() for s in rows]})

    # --- pages ----------------------------------------------------------------------------

    def render(request: Request, name: str, context: dict[str, Any]) -> Response:
        full = {"games": games_catalogue(), "game_json": None, "new_game": None, **context}
        try:
            return templates.TemplateResponse(request, name, full)
        except TemplateNotFound:
            return HTMLResponse(
                "<!doctype html><title>bakers</title><h1>bakers</h1>"
                "<p>The page templates are not installed.</p>"
                f"<pre>{html.escape(json.dumps(full.get('game_json'))[:2000])}</pre>")

    def next_deal(session: Session) -> dict[str, Any]:
        level = session.level
        base_level = level if level in ("easy", "normal", "hard") else None
        return {"game": session.game, "deal": None,
                "cells": session.board.game.cells if level != "daily" else None,
                "level": base_level if level != "daily" else "normal",
                "daily": False, "winnable": level == "easy"}

    def page_body(game: str, request: Request, *, deal: str | None = None,
                  daily: bool = False) -> NewGameBody:
        q = request.query_params
        cells_text = q.get("cells")
        level_text = q.get("level")
        winnable_text = q.get("winnable", "")
        try:
            cells = int(cells_text) if cells_text not in (None, "") else None
        except ValueError:
            raise BakersError(f"cells {cells_text!r} is not a number") from None
        if level_text not in (None, "", "easy", "normal", "hard"):
            raise BakersError(f"unknown level {level_text!r}: choose easy, normal or hard")
        if cells is not None and not 0 <= cells <= 8:
            raise BakersError("free cells go from 0 to 8")
        try:
            return NewGameBody.model_validate({
                "game": game, "deal": deal, "cells": cells, "level": level_text or None,
                "daily": daily, "winnable": winnable_text.lower() in ("1", "true", "yes", "on")})
        except ValidationError as exc:
            raise BakersError(_validation_message(RequestValidationError(exc.errors()))) \
                from None

    async def start_and_redirect(request: Request, body: NewGameBody) -> Response:
        game_id, _response = await create(body, player_of(request))
        return RedirectResponse(f"/game/{game_id}", status_code=303)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(request: Request) -> Response:
        return render(request, "home.html", {})

    @app.get("/play/daily/{game}", include_in_schema=False)
    async def play_daily(game: str, request: Request) -> Response:
        return await start_and_redirect(request, page_body(game, request, daily=True))

    @app.get("/play/{game}/{deal}", include_in_schema=False)
    async def play_deal(game: str, deal: str, request: Request) -> Response:
        parse_deal_number(deal)
        return await start_and_redirect(request, page_body(game, request, deal=deal))

    @app.get("/play/{game}", include_in_schema=False)
    async def play_random(game: str, request: Request) -> Response:
        return await start_and_redirect(request, page_body(game, request))

    @app.get("/game/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def game_page(game_id: str, request: Request) -> Response:
        def read() -> dict[str, Any]:
            session = store.load(game_id).session
            return {
                "game_json": session.to_api(game_id),
                "new_game": next_deal(session),
                "title": f"{session.board.game.title}"
                         + (f" #{session.deal}" if session.deal is not None else ""),
            }

        return render(request, "table.html", await locked(game_id, read))

    @app.get("/rules", include_in_schema=False)
    async def rules_index() -> Response:
        return RedirectResponse("/rules/bakers_game", status_code=307)

    @app.get("/rules/{game}", response_class=HTMLResponse, include_in_schema=False)
    async def rules_page(game: str, request: Request) -> Response:
        """Rules, worked examples, strategy, lessons and a printable reference."""
        found = find_game(game)  # an unknown game: the HTML 404 page
        if found.name != game:
            return RedirectResponse(f"/rules/{found.name}", status_code=308)
        return render(request, "rules.html", {"game": found.name,
                                              "title": f"How to play {found.title}"})

    return app
