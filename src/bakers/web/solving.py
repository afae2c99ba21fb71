"""Solver work for the web table, off the event loop.

The solver is CPU-bound pure Python; run in threads it would hold the GIL and
delay every other player's moves, so it runs in a small pool of worker
*processes* (created on first use, at most two, shut down with the app). Each
job carries a time budget; the loop only awaits its future.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")

WORKERS = 2
MAX_PENDING = 8
WORKER_MEMORY_MB = 1024


def solve_deal(game: str, cells: int, deal: int, timeout: float) -> str:
    """Worker: the verdict ("winnable", "impossible", "unknown") for a deal."""
    from ..board import Board
    from ..solver import solve
    board = Board.deal(game, deal, cells=cells)
    result = solve(board, timeout=timeout, max_memory_mb=WORKER_MEMORY_MB)
    return str(result.verdict.value)


def rate_deal_job(game: str, cells: int, deal: int, budget: float) -> dict[str, object]:
    """Worker: the rating of a deal (:func:`bakers.solver.study.rate_deal`)."""
    from ..solver.study import rate_deal
    return rate_deal(game, deal, budget, cells=cells).to_json()


def hint_position(game: str, cells: int, text: str, budget: float
                  ) -> tuple[str, str | None, str]:
    """Worker: ``(verdict, move or None, message)`` for a position."""
    from ..board import Board
    from ..solver import hint
    board = Board.from_text(text, game=game, cells=cells)
    result = hint(board, budget=budget)
    move = None if result.move is None else result.move.notation(with_count=True)
    return str(result.verdict.value), move, result.message


def _watch_parent(parent: int) -> None:
    """Worker initializer: leave as soon as the server process is gone (even
    when it was killed and never shut the pool down)."""
    import os
    import threading
    import time

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(1.0)

    threading.Thread(target=watch, name="bakers-parent-watch", daemon=True).start()


def _warm() -> bool:
    from .. import solver  # noqa: F401  (import once so the first job is quick)
    return True


class SolverBusyError(RuntimeError):
    """Too many solver jobs are waiting already."""


class SolverPool:
    """A lazily created process pool with a cap on waiting jobs."""

    def __init__(self, workers: int = WORKERS, max_pending: int = MAX_PENDING) -> None:
        self.workers = workers
        self.max_pending = max_pending
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._pending = 0
        self.hints: OrderedDict[tuple[str, int, str], tuple[str, str | None, str]] = \
            OrderedDict()

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._executor is None:
            ctx = multiprocessing.get_context("spawn")
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=ctx,
                initializer=_watch_parent, initargs=(os.getpid(),))
        return self._executor

    @property
    def started(self) -> bool:
        return self._executor is not None

    def warm_up(self) -> None:
        """Start the workers in the background (they take a moment to import)."""
        if self.started:
            return
        pool = self._pool()
        for _ in range(self.workers):
            pool.submit(_warm)

    async def run(self, fn: Callable[..., T], *args: Any, timeout: float) -> T:
        """Run ``fn(*args)`` in a worker; wait at most ``timeout`` seconds."""
        if self._pending >= self.max_pending:
            raise SolverBusyError("the solver is busy: try again in a moment")
        loop = asyncio.get_running_loop()
        self._pending += 1
        try:
            future = loop.run_in_executor(self._pool(), fn, *args)
            return await asyncio.wait_for(future, timeout)
        except BrokenProcessPool:
            self._reset()
            raise
        finally:
            self._pending -= 1

    def _reset(self) -> None:
        """Stop the pool now: running searches are abandoned, and the worker
        processes are ended rather than left to finish."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=2)

    def shutdown(self) -> None:
        self._reset()

    async def hint(self, game: str, cells: int, text: str, budget: float
                   ) -> tuple[str, str | None, str]:
        """A hint for a position, remembered when the verdict is settled."""
        key = (game, cells, text)
        if key in self.hints:
            self.hints.move_to_end(key)
            return self.hints[key]
        try:
            answer = await self.run(hint_position, game, cells, text, budget,
                                    timeout=budget + 10.0)
        except (TimeoutError, BrokenProcessPool):
            return "unknown", None, "no verdict within the time budget: try again"
        except SolverBusyError as exc:
            return "unknown", None, str(exc)
        if answer[0] != "unknown":
            self.hints[key] = answer
            while len(self.hints) > 1000:
                self.hints.popitem(last=False)
        return answer

    async def verdict(self, game: str, cells: int, deal: int, budget: float) -> str:
        """The solver's verdict on a numbered deal within ``budget`` seconds."""
        try:
            return await self.run(solve_deal, game, cells, deal, budget,
                                  timeout=budget + 10.0)
        except (TimeoutError, BrokenProcessPool, SolverBusyError):
            return "unknown"
