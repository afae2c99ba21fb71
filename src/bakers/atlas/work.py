"""What a worker does: plan and solve every deal of a chunk, return the
attempts. Runs in a local process or on a Dask worker; it touches no file, so
a worker needs only bakers installed, never the atlas file.

A chunk is self-contained: for each deal it carries the verdicts already known
(from earlier runs) and the cell counts already tried in vain at this budget,
so the worker's plan is the same wherever and whenever it runs.
"""

from __future__ import annotations

import dataclasses

from .. import __version__
from ..survey import DealTask, Limits, solve_deal
from .plan import IMPOSSIBLE, UNKNOWN, WINNABLE, next_cells

ENGINE = f"bakers {__version__}"
"""The engine label stored with every attempt: the package version whose
solver produced it (a winnable or impossible verdict is a proof whatever the
engine; the label matters for unknowns and for costs)."""


def budget_key(limits: Limits) -> str:
    """The budget as a canonical text, part of an attempt's key.

    >>> budget_key(Limits(timeout=None, max_states=500_000, max_memory_mb=4096))
    'states=500000 timeout=none memory=4096'
    """
    def text(value: float | int | None) -> str:
        return "none" if value is None else f"{value:g}"

    return (f"states={text(limits.max_states)} timeout={text(limits.timeout)} "
            f"memory={text(limits.max_memory_mb)}")


def covers(done: Limits, wanted: Limits) -> bool:
    """Whether a search under ``done`` went at least as far as one under
    ``wanted`` could (``None`` is no limit), so that repeating it under
    ``wanted`` is pointless.

    >>> covers(Limits(None, 1000, 4096), Limits(None, 500, 4096))
    True
    >>> covers(Limits(None, 1000, 4096), Limits(None, None, 4096))
    False
    """
    def at_least(a: float | int | None, b: float | int | None) -> bool:
        return a is None or (b is not None and a >= b)

    return (at_least(done.max_states, wanted.max_states)
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


def plan_deal(job: DealJob, limits: Limits) -> list[Attempt]:
    """Solve ``job``'s deal at the cell counts the planner picks, one after
    another, until every requested count is decided or tried."""
    solved = dict(job.solved)
    tried = set(job.tried)
    out: list[Attempt] = []
    while (cells := next_cells(job.game, job.cells, solved, tried)) is not None:
        r = solve_deal(DealTask(job.game, cells, job.deal, limits))
        out.append(Attempt(
            game=job.game, cells=cells, deal=job.deal, verdict=r.verdict, states=r.states,
            seconds=r.seconds, cpu_seconds=r.cpu_seconds if r.cpu_seconds is not None
            else r.seconds, moves=r.moves, limit=r.limit, engine=ENGINE, limits=limits))
        if r.verdict in (WINNABLE, IMPOSSIBLE):
            solved[cells] = r.verdict
        else:
            assert r.verdict == UNKNOWN
            tried.add(cells)
    return out


def solve_chunk(chunk: Chunk) -> list[Attempt]:
    """The task a worker runs: every deal of the chunk, in order."""
    out: list[Attempt] = []
    for job in chunk.jobs:
        out.extend(plan_deal(job, chunk.limits))
    return out
