"""The app's shared state and the way every request works on a game.

Database work, with the game logic around it (load, change, save, the game
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
cached object. Solver work goes to a process pool (:mod:`bakers.web.solving`)
and is only awaited.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any, TypeVar

import anyio
import anyio.to_thread
from fastapi import Depends, Request
from fastapi.responses import JSONResponse

from ..errors import BakersError
from ..session import Clock, Session
from ..store import GameNotFoundError, Store
from ..store.db import LoadedGame
from .dealer import Dealer
from .limits import Limits
from .models import NewGameBody
from .solving import SolverPool
from .views import game_view

T = TypeVar("T")

DB_THREADS = 8  # PostgreSQL calls running at once (each holds a pooled connection)
WARM_DELAY = 2.0  # seconds after the first game before the solver workers start


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
    """The app's shared state: the store, the solver pool, the dealer, the
    game locks and the options."""

    def __init__(self, store: Store, clock: Clock, *, hint_budget: float,
                 deal_budget: float, deal_tries: int, deal_deadline: float,
                 workers: int, db_threads: int | None = None,
                 warm_solver: bool = False, limits: Limits | None = None) -> None:
        self.store = store
        self.limits = limits if limits is not None else Limits()
        if db_threads is None:
            db_threads = 0 if store.url.startswith("sqlite") else DB_THREADS
        if store.memory:
            db_threads = min(db_threads, 1)  # one connection: one call at a time
        self.db_threads = db_threads
        self.clock = clock
        self.solver = SolverPool(workers=workers)
        self.hint_budget = hint_budget
        self.warm_solver = warm_solver
        self.locks = GameLocks()
        self.dealer = Dealer(store, self.solver, clock, self.db, deal_budget=deal_budget,
                             deal_tries=deal_tries, deal_deadline=deal_deadline)
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

    async def locked(self, game_id: str, work: Callable[[], T]) -> T:
        """``work`` on one game, holding the game's lock."""
        async with self.locks.hold(game_id):
            return await self.db(work)

    def load_own(self, game_id: str, player: str) -> LoadedGame:
        """The game ``game_id`` if ``player`` started it; to anyone else it
        does not exist (the same 404 as a game that does not)."""
        loaded = self.store.load(game_id)
        if loaded.player_id != player:
            raise GameNotFoundError("there is no game with this id")
        return loaded

    async def change(self, game_id: str, act: Callable[[Session], object],
                     extra: Callable[[], dict[str, Any]] | None = None, *,
                     player: str) -> JSONResponse:
        """Load ``player``'s game, change, save (after every move), answer
        with the game object (and ``extra``'s fields). A refused action
        changes nothing; an unexpected failure drops the cached copy so the
        saved game stays the truth."""
        store = self.store

        def work() -> JSONResponse:
            loaded = self.load_own(game_id, player)
            try:
                act(loaded.session)
            except BakersError:
                raise
            except Exception:
                store.forget(game_id)
                raise
            store.save(loaded)
            body = game_view(game_id, loaded.session)
            if extra is not None:
                body.update(extra())
            return JSONResponse(body)

        return await self.locked(game_id, work)

    async def create(self, body: NewGameBody, player: str) -> tuple[str, Session]:
        """Start the game ``body`` asks for; its id and session."""
        store = self.store
        replace = body.replace
        if replace is not None:
            await self.locked(replace, lambda: self.load_own(replace, player))  # 404 first
        session = await self.dealer.new_session(body)
        if replace is not None:
            await self.locked(replace, lambda: store.abandon(replace, player))
        return await self.save_new(session, player), session

    async def save_new(self, session: Session, player: str) -> str:
        """Save a new game of ``player``; its id."""
        game_id = await self.db(lambda: self.store.create_game(session, player))
        if self.warm_solver and not self.solver.started:
            # someone is playing: start the solver workers soon (not while
            # this page is being served), so the first hint need not wait
            asyncio.get_running_loop().call_later(WARM_DELAY, self.solver.warm_up)
        return game_id

    def stop(self) -> None:
        self.dealer.stop_refills()
        self.solver.shutdown()
        self.store.close()


async def table_of(request: Request) -> Table:
    """The app's :class:`Table` (a FastAPI dependency)."""
    table: Table = request.app.state.table
    return table


TableDep = Annotated[Table, Depends(table_of)]
"""A route's ``table`` parameter."""
