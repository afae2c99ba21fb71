"""Choosing deals: numbered, random, daily, and proven-winnable ones (with a
small stock of proven deals refilled in the background), and the session a
``POST /api/games`` body asks for."""

from __future__ import annotations

import asyncio
import datetime as _dt
import functools
import secrets
import time
from collections.abc import Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol, TypeVar

from ..board import Board
from ..deals import daily_candidates, parse_deal_number, random_deal_number, today_utc
from ..errors import BakersError
from ..games import Game, find_game
from ..lessons import lesson_by_key
from ..options import Level
from ..session import Clock, Session, level_cells, level_for
from ..store import Store
from ..store.study import StudyStore
from .models import NewGameBody
from .solving import SolverBusyError, SolverPool, rate_deal_job

T = TypeVar("T")


ARCHIVE_DAYS = 60
"""How far back the daily-deal archive reaches (today included)."""


def archive_date(text: str | None) -> _dt.date:
    """The day of a daily deal: today, or a day of the archive (``YYYY-MM-DD``)."""
    today = today_utc()
    if text is None:
        return today
    try:
        date = _dt.date.fromisoformat(text)
    except ValueError:
        raise BakersError("date is a day written YYYY-MM-DD") from None
    if date > today:
        raise BakersError("that day's daily deal is not out yet")
    if (today - date).days >= ARCHIVE_DAYS:
        raise BakersError(f"the daily-deal archive keeps the last {ARCHIVE_DAYS} days")
    return date

class RunsDb(Protocol):
    """How the app runs store calls (:meth:`bakers.web.state.Table.db`)."""

    def __call__(self, work: Callable[[], T]) -> Awaitable[T]: ...


STOCK = 3  # proven winnable deals kept ready per game and cell count
STOCK_TRIES = 40  # random deals one background refill may try
RATED_TRIES = 240  # random deals rated at most when a band has no stored deal (1 in 20 is expert)
RATED_STOCK = 10  # stored deals of a band below which more are rated in the background
RATING_BUDGET = 2.0


class Dealer:
    """Deals for new games. ``db`` runs store calls as the app runs them."""

    def __init__(self, store: Store, solver: SolverPool, clock: Clock,
                 db: RunsDb, *, deal_budget: float,
                 deal_tries: int, deal_deadline: float) -> None:
        self.store = store
        self.solver = solver
        self.clock = clock
        self.db = db
        self.deal_budget = deal_budget
        self.deal_tries = deal_tries
        self.deal_deadline = deal_deadline
        self.refills: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.daily_failed: dict[tuple[str, str], float] = {}
        self._study: StudyStore | None = None

    @property
    def study(self) -> StudyStore:
        if self._study is None:
            self._study = StudyStore(self.store.engine)
        return self._study

    async def _rate(self, game: Game, deal: int) -> dict[str, object] | None:
        """Rate a deal in a worker and store the rating (``None``: no answer)."""
        try:
            rated = await self.solver.run(rate_deal_job, game.name, game.cells, deal,
                                          RATING_BUDGET, timeout=RATING_BUDGET * 10 + 10)
        except (TimeoutError, SolverBusyError, BrokenProcessPool):
            return None
        if rated["verdict"] != "unknown":
            await self.db(functools.partial(self.study.save_rating, rated))
        return rated

    async def rated_deal(self, game: Game, band: str) -> tuple[int, str | None]:
        """A deal proven winnable and rated ``band``: one of those rated
        before (stored), or random deals rated now until one is; when none
        is found in time, the nearest winnable one found, and why."""
        stored = await self.db(lambda: self.study.rated_deals(game.name, game.cells, band))
        if len(stored) < RATED_STOCK:
            self._rate_more(game)
        if stored:
            return secrets.choice(stored), None
        start = time.monotonic()
        tries = 0
        best: tuple[float, int] | None = None  # (distance from the band, deal)
        while tries < RATED_TRIES and time.monotonic() - start < self.deal_deadline:
            batch = [random_deal_number() for _ in range(self.solver.workers)]
            tries += len(batch)
            for rated in await asyncio.gather(*(self._rate(game, n) for n in batch)):
                if rated is None or rated["verdict"] != "winnable":
                    continue
                if rated["rating"] == band:
                    return int(str(rated["deal"])), None
                score = float(str(rated["score"]))
                far = -score if band == "expert" else score
                if best is None or far < best[0]:
                    best = (far, int(str(rated["deal"])))
        if best is not None:
            return best[1], (f"No deal rated {band} was found in {tries} tries: this one is "
                             "proven winnable and the nearest found.")
        return random_deal_number(), (
            f"No winnable deal was proven in {tries} tries, so this deal is not proven "
            "winnable.")

    def _rate_more(self, game: Game) -> None:
        """Rate a few random deals in the background, one at a time, so the
        levels' bands fill up."""
        key = ("rated:" + game.name, game.cells)
        if key in self.refills:
            return

        async def run() -> None:
            try:
                for _ in range(STOCK_TRIES):
                    await self._rate(game, random_deal_number())
            except Exception:  # the app is closing (or the database is away): stop
                return

        task = asyncio.get_running_loop().create_task(run())
        self.refills[key] = task
        task.add_done_callback(lambda _t: self.refills.pop(key, None))

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

    def lesson_session(self, body: NewGameBody) -> Session:
        """A lesson's game: its position, autoplay off (unless asked), a
        practice game, the indicator on."""
        assert body.lesson is not None
        lesson = lesson_by_key(body.lesson)
        if (body.deal is not None or body.daily or body.position is not None
                or body.winnable or body.level is not None):
            raise BakersError("a lesson has its own position: send the lesson alone")
        if body.cells is not None and body.cells != find_game(lesson.game).cells:
            raise BakersError("a lesson is played with the game's own free cells")
        board = lesson.board()
        return Session(board, level=level_for(lesson.game, board.game.cells, False),
                       autoplay=body.autoplay or "off",
                       order=body.order or "cell_first", clock=self.clock, practice=True,
                       lesson=lesson.key)

    async def new_session(self, body: NewGameBody) -> Session:
        """The session a ``POST /api/games`` body asks for."""
        if body.lesson is not None:
            return self.lesson_session(body)
        game = find_game(body.game)
        if body.date is not None and not body.daily:
            raise BakersError("date goes with daily: a past day's daily deal")
        choices = [body.deal is not None, body.daily, body.position is not None]
        if sum(choices) > 1:
            raise BakersError("choose one of deal, daily or position")
        if body.daily and body.winnable:
            raise BakersError("the daily deal is always winnable: choose daily or winnable")
        if body.level is not None and body.level not in game.levels:
            raise BakersError(f"{game.title} has the levels {', '.join(game.levels)}")
        message: str | None = None
        daily: str | None = None
        winnable = body.winnable or (body.level is not None and body.level.winnable)
        if body.daily:
            if body.cells is not None and body.cells != game.cells:
                raise BakersError(
                    f"the daily deal is played with {game.cells} free cells")
            date = archive_date(body.date)
            deal, message = await self.daily_deal(game, date)
            board = Board.deal(game, deal)
            level = Level.DAILY
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
            if body.position is not None:
                board = Board.from_text(body.position, game=g)
            elif body.deal is not None:
                board = Board.deal(g, parse_deal_number(body.deal))
            elif (body.level is not None and body.level.rating is not None
                  and cells == game.cells):
                deal, message = await self.rated_deal(g, body.level.rating)
                board = Board.deal(g, deal)
            elif winnable:
                deal, message = await self.winnable_deal(g)
                board = Board.deal(g, deal)
            else:
                board = Board.deal(g, random_deal_number())
            level = body.level or level_for(game.name, cells, winnable)
        return Session(board, level=level, daily=daily, autoplay=body.autoplay or "safe",
                       order=body.order or "cell_first", clock=self.clock, message=message,
                       practice=body.practice, winnable=winnable)
