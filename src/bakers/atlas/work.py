"""What a worker does: plan and solve every deal of a chunk, return the
attempts. Runs in a local process or on a Dask worker; it touches no file, so
a worker needs only bakers installed, never the atlas file.

A chunk is self-contained: for each deal it carries the verdicts already known
(from earlier runs) and the cell counts already tried in vain at this budget,
so the worker's plan is the same wherever and whenever it runs.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import time
from typing import TYPE_CHECKING

from .. import __version__
from ..board import Board
from ..survey import cpu_seconds
from ..verdicts import Limits
from .errors import AtlasError
from .plan import IMPOSSIBLE, UNKNOWN, WINNABLE, next_cells

if TYPE_CHECKING:
    from ..solver.proof import DiskPlan


def engine_label(engine: str) -> str:
    """The engine stored with every attempt: its name and the package version
    (a winnable or impossible verdict is a proof whatever the engine; the label
    matters for unknowns and for costs).

    >>> engine_label("native")
    'native 0.1.0'
    """
    return f"{engine} {__version__}"


def budget_key(limits: Limits) -> str:
    """The budget as a canonical text, part of an attempt's key.

    >>> budget_key(Limits(timeout=None, max_states=500_000, max_memory_mb=4096))
    'states=500000 timeout=none memory=4096'
    >>> budget_key(Limits(None, 10**9, 8192, search="exhaustive"))
    'states=1000000000 timeout=none memory=8192 search=exhaustive'
    >>> budget_key(Limits(None, 10**10, 8192, search="exhaustive", max_disk_gb=60))
    'states=10000000000 timeout=none memory=8192 search=exhaustive disk=60'
    >>> budget_key(Limits(None, 30_000_000, 4096, search="restarts", seed=7))
    'states=30000000 timeout=none memory=4096 search=restarts seed=7'
    """
    def text(value: float | int | None) -> str:
        if value is None:
            return "none"
        return str(value) if isinstance(value, int) else f"{value:g}"

    key = (f"states={text(limits.max_states)} timeout={text(limits.timeout)} "
           f"memory={text(limits.max_memory_mb)}")
    if limits.search != "portfolio":
        key = f"{key} search={limits.search}"
    if limits.seed is not None:
        key = f"{key} seed={limits.seed}"
    return key if limits.max_disk_gb is None else f"{key} disk={text(limits.max_disk_gb)}"


def budget_parts(budget: str) -> dict[str, str]:
    """A budget key's parts by name.

    >>> budget_parts('states=1000 timeout=none memory=8192')['memory']
    '8192'
    """
    return dict(part.split("=", 1) for part in budget.split() if "=" in part)


def search_of(budget: str) -> str:
    """The search a budget key names (the portfolio unless it says).

    >>> search_of('states=1000 timeout=none memory=8192 search=exhaustive')
    'exhaustive'
    """
    return budget_parts(budget).get("search", "portfolio")


def seed_of(budget: str) -> int | None:
    """The restarts' seed a budget key names (``None``: the library's).

    >>> seed_of('states=1000 timeout=none memory=4096 seed=7'), seed_of('states=1000')
    (7, None)
    """
    seed = budget_parts(budget).get("seed")
    return None if seed is None else int(seed)


def covers(done: Limits, wanted: Limits) -> bool:
    """Whether a search under ``done`` went at least as far as one under
    ``wanted`` could (``None`` is no limit), so that repeating it under
    ``wanted`` is pointless.

    >>> covers(Limits(None, 1000, 4096), Limits(None, 500, 4096))
    True
    >>> covers(Limits(None, 1000, 4096), Limits(None, None, 4096))
    False
    >>> covers(Limits(None, 10**9, 8192, search="exhaustive"), Limits(None, 1000, 4096))
    False
    """
    def at_least(a: float | int | None, b: float | int | None) -> bool:
        return a is None or (b is not None and a >= b)

    return (done.search == wanted.search and done.seed == wanted.seed
            and at_least(done.max_disk_gb or 0, wanted.max_disk_gb or 0)
            and at_least(done.max_states, wanted.max_states)
            and at_least(done.timeout, wanted.timeout)
            and at_least(done.max_memory_mb, wanted.max_memory_mb))


@dataclasses.dataclass(frozen=True)
class DealJob:
    """One deal of one game: the requested cell counts, the verdicts known,
    and the cell counts already left unknown at this budget."""

    game: str
    deal: int
    cells: tuple[int, ...]
    solved: tuple[tuple[int, str], ...] = ()
    tried: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True)
class Chunk:
    """A task: consecutive deals solved under one budget."""

    jobs: tuple[DealJob, ...]
    limits: Limits
    tier: int = 0
    engine: str | None = None  # None: the solver's default engine


@dataclasses.dataclass(frozen=True)
class Attempt:
    """One call of the solver, as stored."""

    game: str
    cells: int
    deal: int
    verdict: str
    states: int
    seconds: float
    cpu_seconds: float
    moves: int | None
    limit: str
    engine: str
    limits: Limits
    disk_bytes: int = 0  # the most a proof on disk held there


def disk_plan(game: str, cells: int, deal: int, limits: Limits,
              kind: str = "atlas") -> DiskPlan | None:
    """Where a proof of the atlas (or of a census: ``kind``) spills to disk:
    a folder of its own per game, cells and deal in the user cache, so that a
    proof a run could not finish (a limit, a kill) goes on from its last
    checkpoint in the next run on this machine."""
    if limits.max_disk_gb is None or limits.search != "exhaustive":
        return None
    import platformdirs

    from ..solver.proof import STATE_FILE, DiskPlan

    folder = os.path.join(platformdirs.user_cache_dir("bakers"), "proofs",
                          f"{kind}-{game}-{cells}-{deal}")
    return DiskPlan(limits.max_disk_gb, folder,
                    resume=os.path.isfile(os.path.join(folder, STATE_FILE)), remove_dir=True)


def solve_one(game: str, cells: int, deal: int, limits: Limits,
              engine: str | None = None) -> Attempt:
    """One solver call on a dealt board (no move texts: the atlas keeps the
    verdict and the costs; a winning line is still replayed card by card
    before it is believed)."""
    from ..solver import check_engine, solve

    board = Board.deal(game, deal, cells=cells)
    start, cpu_start = time.perf_counter(), cpu_seconds()
    try:
        chosen = check_engine(engine if engine is not None else limits.engine)
        # a winning line is checked as in surveys: by the core's line checker
        # with the native engine, by the rules engine with the Python one
        check = limits.check or ("core" if chosen == "native" else "rules")
        result = solve(board, timeout=limits.timeout, max_states=limits.max_states,
                       max_memory_mb=limits.max_memory_mb, engine=chosen, texts=False,
                       check=check, search=limits.search, disk=disk_plan(game, cells, deal, limits),
                       seed=limits.seed)
    except Exception as exc:  # a solver bug or a bad engine name: name the deal
        raise AtlasError(f"{game} deal {deal} with {cells} cells: the solver failed: "
                         f"{type(exc).__name__}: {exc}") from None
    seconds = time.perf_counter() - start
    won = result.verdict.value == WINNABLE
    return Attempt(game=game, cells=cells, deal=deal, verdict=result.verdict.value,
                   states=result.states, seconds=seconds,
                   cpu_seconds=cpu_seconds() - cpu_start,
                   moves=len(result.moves) if won else None, limit=result.limit or "",
                   engine=engine_label(result.engine), limits=limits,
                   disk_bytes=result.disk_bytes)


def plan_deal(job: DealJob, limits: Limits, engine: str | None = None) -> list[Attempt]:
    """Solve ``job``'s deal at the cell counts the planner picks, one after
    another, until every requested count is decided or tried."""
    solved = dict(job.solved)
    tried = set(job.tried)
    out: list[Attempt] = []
    while (cells := next_cells(job.game, job.cells, solved, tried)) is not None:
        attempt = solve_one(job.game, cells, job.deal, limits, engine)
        out.append(attempt)
        if attempt.verdict in (WINNABLE, IMPOSSIBLE):
            solved[cells] = attempt.verdict
        else:
            assert attempt.verdict == UNKNOWN
            tried.add(cells)
    return out


def solve_chunk(chunk: Chunk) -> list[Attempt]:
    """The task a worker runs: every deal of the chunk, in order."""
    out: list[Attempt] = []
    for job in chunk.jobs:
        out.extend(plan_deal(job, chunk.limits, chunk.engine))
    return out


def solve_packed(chunk: bytes) -> bytes:
    """:func:`solve_chunk` on a pickled chunk, its attempts pickled: the
    form a Dask task takes. Dask looks through a task's arguments and
    serializes a list result piece by piece; as one bytes object each way, a
    chunk of a thousand deals costs the client and the scheduler a sixth of
    the CPU time."""
    return pickle.dumps(solve_chunk(pickle.loads(chunk)), protocol=pickle.HIGHEST_PROTOCOL)
