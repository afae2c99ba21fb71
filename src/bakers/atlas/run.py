"""Running an atlas: which deals still need work, chunks of them sent to
workers (in this process, a local cluster of processes, or a Dask cluster),
and each finished chunk written to the atlas file.

A run goes through up to four *tiers*: every deal under the first budget,
then the deals left with an unknown verdict, one per task, under the retry
budget, then under the proof budget with the exhaustive search (a proof of
loss holds three times the positions in the same memory), then those still
unknown on the fallback engine (the engines search differently: one may find
a win where the other runs out of memory).
What the file already holds decides what is left: a resolved verdict (at any
budget, by any engine) is never solved again, nor is an unknown whose budget
covers the tier's — so a killed run, started again, resumes where it stopped,
and a run over a finished range solves nothing. ``retry_unknown`` retries,
in the last tier, the unknowns that earlier runs left even at that budget.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import logging
import math
import os
import pickle
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from ..errors import SolverError
from ..verdicts import Limits
from .errors import AtlasError
from .plan import UNKNOWN, game_cells, next_cells, parse_cells, parse_deals, parse_games
from .store import AtlasStore, Known, ResultRow
from .work import Attempt, Chunk, DealJob, budget_key, covers, solve_chunk, solve_packed

BLOCK = 1000  # deals read from the file at a time when planning
MAX_CHUNK = 2000  # deals per task at most, unless --chunk says otherwise
FIRST_CHUNK = 20  # deals per task until some of a game's tasks are back
TASK_SECONDS = 2.0  # solver time per task aimed at once a game's pace is known
WORKER_DIED = "worker died"


Finished = tuple[Chunk, list[Attempt]]


class Executor(Protocol):
    """Runs chunks somewhere and yields them with their attempts as they
    finish (in any order), in batches: every chunk that finished since the
    last batch, so that a busy client writes several at once."""

    @property
    def workers(self) -> int:
        ...

    def batches(self, chunks: Iterator[Chunk]) -> Iterator[list[Finished]]:
        ...


class InlineExecutor:
    """Every chunk in this process, one after another (tests, debugging)."""

    @property
    def workers(self) -> int:
        return 1

    def batches(self, chunks: Iterator[Chunk]) -> Iterator[list[Finished]]:
        for chunk in chunks:
            yield [(chunk, solve_chunk(chunk))]


class DaskExecutor:
    """Chunks as tasks on a ``dask.distributed`` client, a few per worker in
    flight at a time so that a huge range costs no memory up front. The
    window is refilled as soon as chunks finish, before the client writes
    them, so that the workers never wait on the file.

    A chunk whose workers keep dying (Dask gives up after its
    ``allowed-failures`` retries, raising ``KilledWorker``) is split into one
    task per deal; a single deal that still kills its worker is recorded as
    unknown (``worker died``) at that budget, for ``--retry-unknown`` later.
    """

    def __init__(self, client: Any, per_worker: int = 4) -> None:
        self.client = client
        self.per_worker = per_worker

    @property
    def workers(self) -> int:
        return max(1, len(self.client.scheduler_info(n_workers=-1).get("workers", {})))

    def batches(self, chunks: Iterator[Chunk]) -> Iterator[list[Finished]]:
        dist = _distributed()
        as_completed, killed_worker = dist.as_completed, dist.KilledWorker
        window = self.workers * self.per_worker
        pending: list[Chunk] = []
        done_iter = as_completed()
        in_flight: dict[str, Chunk] = {}

        def submit(chunk: Chunk) -> None:
            future = self.client.submit(solve_packed, pickle.dumps(chunk, protocol=5),
                                        pure=False)
            in_flight[future.key] = chunk
            done_iter.add(future)

        def fill() -> None:
            while len(in_flight) < window:
                chunk = pending.pop() if pending else next(chunks, None)
                if chunk is None:
                    return
                submit(chunk)

        fill()
        while in_flight:
            try:
                futures = done_iter.next_batch(block=True)
            except StopIteration:  # pragma: no cover - nothing left in flight
                break
            batch: list[Finished] = []
            finished = [f for f in futures if f.status == "finished"]
            try:
                try:  # the finished ones in one round trip
                    values = self.client.gather(finished) if finished else []
                except Exception:  # lost since: each on its own, below
                    finished, values = [], []
                for future, value in zip(finished, values, strict=True):
                    batch.append((in_flight.pop(future.key), pickle.loads(value)))
                for future in futures:
                    if future.key not in in_flight:
                        continue
                    chunk = in_flight.pop(future.key)
                    try:
                        batch.append((chunk, pickle.loads(future.result())))
                    except killed_worker:
                        if len(chunk.jobs) > 1:
                            pending.extend(dataclasses.replace(chunk, jobs=(job,))
                                           for job in reversed(chunk.jobs))
                        else:
                            batch.append((chunk, died(chunk)))
            finally:
                for future in futures:
                    future.release()
            fill()
            if batch:
                yield batch


def died(chunk: Chunk) -> list[Attempt]:
    """Unknown attempts for the undecided cell counts of a one-deal chunk
    whose worker died every time it was tried."""
    from ..solver import check_engine
    from .work import engine_label

    label = engine_label(check_engine(chunk.engine))
    out: list[Attempt] = []
    for job in chunk.jobs:
        solved, tried = dict(job.solved), set(job.tried)
        while (k := next_cells(job.game, job.cells, solved, tried)) is not None:
            tried.add(k)
            out.append(Attempt(job.game, k, job.deal, UNKNOWN, 0, 0.0, 0.0, None,
                               WORKER_DIED, label, chunk.limits))
    return out


def _distributed() -> Any:
    """``dask.distributed`` (untyped, hence ``Any``), or a one-line error."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise AtlasError("the atlas needs dask.distributed: pip install 'bakers[atlas]'") from None


@contextlib.contextmanager
def dask_executor(scheduler: str | None, workers: int) -> Iterator[DaskExecutor]:
    """A client of the cluster at ``scheduler`` or, without one, of a local
    cluster of ``workers`` processes (one thread each) that ends with the
    block."""
    dist = _distributed()
    Client, LocalCluster = dist.Client, dist.LocalCluster
    if scheduler is None:
        if workers < 1:
            raise AtlasError("--workers must be at least 1")
        # memory_limit=0: the solver keeps its own per-deal memory limit
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=":0", memory_limit=0,
                          silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
            yield DaskExecutor(client)
        return
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise AtlasError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    try:
        yield DaskExecutor(client)
    finally:
        client.close()


# --- planning ------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Request:
    """What a run is asked for."""

    games: tuple[str, ...]
    cells: tuple[int, ...]
    first: int
    last: int
    limits: Limits
    retry_limits: Limits | None
    retry_unknown: bool = False
    chunk: int | None = None
    engine: str | None = None
    fallback_engine: str | None = None
    proof_limits: Limits | None = None

    def tiers(self) -> list[Tier]:
        """The first budget; the retry budget if it is larger; the proof
        budget (the exhaustive search, native engine only); then the retry
        budget (or the first) on the fallback engine, if it is another one."""
        from ..solver import check_engine

        engine = check_engine(self.engine)
        fallback = None if self.fallback_engine is None else check_engine(self.fallback_engine)
        out = [Tier(self.limits, engine)]
        if self.retry_limits is not None and not covers(self.limits, self.retry_limits):
            out.append(Tier(self.retry_limits, engine))
        portfolio = out[-1].limits
        if self.proof_limits is not None and engine == "native":
            out.append(Tier(self.proof_limits, engine))
        if fallback is not None and fallback != engine:
            out.append(Tier(portfolio, fallback))
        return out

    def options(self) -> dict[str, Any]:
        return {"games": list(self.games), "cells": list(self.cells), "first": self.first,
                "last": self.last, "budget": budget_key(self.limits),
                "retry_budget": None if self.retry_limits is None
                else budget_key(self.retry_limits),
                "proof_budget": None if self.proof_limits is None
                else budget_key(self.proof_limits),
                "retry_unknown": self.retry_unknown, "chunk": self.chunk,
                "engine": self.engine, "fallback_engine": self.fallback_engine}


@dataclasses.dataclass(frozen=True)
class Tier:
    """One pass of a run: a budget on an engine."""

    limits: Limits
    engine: str


def tried_cells(known: Known | None, tier: Tier, retry: bool, run: int) -> set[int]:
    """The cell counts the tier's engine left unknown under a budget
    covering the tier's (with ``retry``: only those tried by this run)."""
    if known is None:
        return set()
    return {k for k, attempts in known.unknown.items()
            if any(covers(done, tier.limits) and engine == tier.engine
                   and (not retry or by == run) for done, by, engine in attempts)}


def chunk_size(request: Request, workers: int) -> int:
    """Deals per task at most: the requested size, or enough tasks for about
    8 per worker and game, at most ``MAX_CHUNK`` deals each."""
    if request.chunk is not None:
        return request.chunk
    deals = request.last - request.first + 1
    return max(1, min(MAX_CHUNK, math.ceil(deals / (8 * workers))))


class ChunkSizes:
    """Deals per task, game by game: ``limit`` when ``fixed`` (``--chunk``,
    and the retry tiers' one deal per task); otherwise ``FIRST_CHUNK`` (or
    ``limit`` if smaller) until some of the game's tasks are back, then as
    many deals as take about ``TASK_SECONDS`` of solver time at the pace seen
    so far, from 1 to ``limit``. A task of cheap deals (FreeCell with 4
    cells, about a millisecond) thus carries a thousand or more, and its
    costs in the scheduler and the client spread over as many deals; a task
    of expensive ones (Baker's Dozen) a few, so that a lost worker loses
    little and the tail of a run balances."""

    def __init__(self, limit: int, *, fixed: bool = False) -> None:
        self.limit = max(1, limit)
        self.fixed = fixed
        self.deals: dict[str, int] = {}
        self.seconds: dict[str, float] = {}

    def __call__(self, game: str) -> int:
        if self.fixed:
            return self.limit
        deals = self.deals.get(game, 0)
        if not deals:
            return min(FIRST_CHUNK, self.limit)
        seconds = self.seconds[game]
        if seconds <= 0:
            return self.limit
        return max(1, min(self.limit, int(TASK_SECONDS * deals / seconds)))

    def observe(self, chunk: Chunk, attempts: list[Attempt]) -> None:
        """A finished chunk's deals and solver time."""
        if chunk.jobs:
            game = chunk.jobs[0].game
            self.deals[game] = self.deals.get(game, 0) + len(chunk.jobs)
            self.seconds[game] = self.seconds.get(game, 0.0) + sum(a.seconds for a in attempts)


@dataclasses.dataclass
class RunSummary:
    run: int
    solves: int = 0
    solve_seconds: float = 0.0
    wall_seconds: float = 0.0
    chunks: int = 0
    synced: int = 0
    per_tier: list[int] = dataclasses.field(default_factory=list)
    unknown_left: int = 0


def run_atlas(store: AtlasStore, request: Request, executor: Executor, *,
              on_rows: Callable[[list[ResultRow]], None] | None = None,
              on_tier: Callable[[int, Tier], None] | None = None) -> RunSummary:
    """Solve what ``request`` needs that ``store`` lacks; write chunks as
    they finish, those that finish together in one transaction. ``on_rows``
    sees the table rows each transaction wrote."""
    if request.chunk is not None and request.chunk < 1:
        raise AtlasError("--chunk must be at least 1")
    start = time.perf_counter()
    run = store.start_run(request.options())
    summary = RunSummary(run=run)
    tiers = request.tiers()
    for number, tier in enumerate(tiers):
        if on_tier:
            on_tier(number, tier)
        retry = request.retry_unknown and number == len(tiers) - 1
        sizes = (ChunkSizes(chunk_size(request, executor.workers),
                            fixed=request.chunk is not None)
                 if number == 0 else ChunkSizes(1, fixed=True))
        chunks = _chunks(store, request, tier, number, retry, run, sizes, summary, on_rows)
        solves = 0
        for batch in executor.batches(chunks):
            # every chunk that finished meanwhile, in one transaction
            rows = store.record_many(run, [
                (attempts, [(job.game, job.deal, job.cells) for job in chunk.jobs])
                for chunk, attempts in batch])
            for chunk, attempts in batch:
                solves += len(attempts)
                summary.solve_seconds += sum(a.seconds for a in attempts)
                summary.chunks += 1
                sizes.observe(chunk, attempts)
            if on_rows:
                on_rows(rows)
        summary.per_tier.append(solves)
        summary.solves += solves
    store.finish_run(run)
    summary.wall_seconds = time.perf_counter() - start
    summary.unknown_left = sum(
        store.count_done(game, k, request.first, request.last)[UNKNOWN]
        for game in request.games for k in game_cells(game, request.cells))
    return summary


def _chunks(store: AtlasStore, request: Request, tier: Tier, number: int, retry: bool,
            run: int, sizes: Callable[[str], int], summary: RunSummary,
            on_rows: Callable[[list[ResultRow]], None] | None) -> Iterator[Chunk]:
    """The chunks of one tier, planned block by block of deals, games
    interleaved so that every table cell fills at the same pace; a chunk
    holds ``sizes(game)`` consecutive deals to solve (asked when it is made)
    and may span blocks. Deals with nothing to solve whose table rows are
    missing (the verdicts follow from another run's attempts) get their rows
    here, without a task."""
    pending: dict[str, list[DealJob]] = {game: [] for game in request.games}
    for block in range(request.first, request.last + 1, BLOCK):
        block_last = min(block + BLOCK - 1, request.last)
        for game in request.games:
            cells = tuple(game_cells(game, request.cells))
            known = store.known(game, block, block_last)
            jobs = pending[game]
            sync: list[tuple[str, int, tuple[int, ...]]] = []
            for deal in range(block, block_last + 1):
                k = known.get(deal)
                if k is None and cells:  # nothing known: every requested count is open
                    jobs.append(DealJob(game, deal, cells))
                    continue
                solved = dict(k.solved) if k else {}
                tried = tried_cells(k, tier, retry, run)
                if next_cells(game, cells, solved, tried) is None:
                    if k is None or not set(cells) <= k.rows:
                        sync.append((game, deal, cells))
                    continue
                jobs.append(DealJob(game, deal, cells, tuple(sorted(solved.items())),
                                    tuple(sorted(tried))))
            if sync:
                rows = store.record(run, [], sync)
                summary.synced += len(sync)
                if on_rows and rows:
                    on_rows(rows)
            while jobs and len(jobs) >= (size := sizes(game)):
                yield Chunk(tuple(jobs[:size]), tier.limits, number, tier.engine)
                del jobs[:size]
    for game in request.games:
        jobs = pending[game]
        while jobs:
            size = sizes(game)
            yield Chunk(tuple(jobs[:size]), tier.limits, number, tier.engine)
            del jobs[:size]


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """What ``bakers atlas run`` is asked, as typed: games, cells and deals as
    text, budgets as numbers. :meth:`request` checks every field and builds the
    :class:`Request`; bad values raise :class:`AtlasError` naming the option."""

    games: str = "all"
    cells_text: str = "0-8"
    deals_text: str = "1-32000"
    workers: int | None = None
    chunk: int | None = None
    max_states: int = 1_000_000
    retry_max_states: int = 30_000_000
    retry_search: str = "portfolio"
    retry_seed: int | None = None
    max_memory: int = 4096
    proof_max_states: int = 2_000_000_000
    proof_memory: int | None = None
    proof_disk: float | None = None
    timeout: float | None = None
    retry_unknown: bool = False
    engine: str | None = None
    fallback_engine: str | None = None

    def request(self, on_cluster: bool = False) -> Request:
        """The run's request (``on_cluster``: a Dask scheduler was named, which
        sets the proof pass's default memory).

        >>> RunOptions(games="freecell", cells_text="4", deals_text="1-10").request().cells
        (4,)
        >>> RunOptions(chunk=0).request()
        Traceback (most recent call last):
        bakers.atlas.errors.AtlasError: --chunk must be at least 1
        """
        names = parse_games(self.games)
        cells = parse_cells(self.cells_text)
        first, last = parse_deals(self.deals_text)
        if self.workers is not None and self.workers < 1:
            raise AtlasError("--workers must be at least 1")
        if self.chunk is not None and self.chunk < 1:
            raise AtlasError("--chunk must be at least 1")
        if self.max_states < 1 or self.retry_max_states < 0 or self.proof_max_states < 0:
            raise AtlasError("--max-states must be at least 1, --retry-max-states and "
                             "--proof-max-states at least 0")
        if self.max_memory < 16 or (self.proof_memory is not None and self.proof_memory < 16):
            raise AtlasError("--max-memory and --proof-memory must be at least 16 (MB)")
        if self.timeout is not None and not self.timeout > 0:
            raise AtlasError("--timeout must be a positive number of seconds")
        if self.proof_disk is not None and not 0 < self.proof_disk < float("inf"):
            raise AtlasError("--proof-disk must be a positive number of GB")
        from ..solver import check_engine, default_engine

        main_engine = check_engine(self.engine)
        fallback_engine = self.fallback_engine
        if fallback_engine is None:
            # the native engine, where it is built, for what the Python engine
            # leaves; the Python engine expands a position about a hundred
            # times slower, so it never finishes a search the native engine
            # gave up on for its budget: no fallback then unless asked for
            fallback_engine = ("native" if main_engine == "python" and default_engine() == "native"
                               else "none")
        limits = Limits(timeout=self.timeout, max_states=self.max_states,
                        max_memory_mb=self.max_memory)
        if self.retry_search not in ("portfolio", "restarts"):
            raise AtlasError("--retry-search must be portfolio or restarts")
        if self.retry_search == "restarts" and main_engine != "native":
            raise AtlasError("--retry-search restarts needs the native engine")
        if self.retry_seed is not None:
            if main_engine != "native":
                raise AtlasError("--retry-seed needs the native engine")
            # each game's retry portfolio takes the seed, or says why not
            from ..games import find_game
            from ..solver.native import Portfolio

            try:
                for name in names:
                    game = find_game(name)
                    (Portfolio.restarts_for(game) if self.retry_search == "restarts"
                     else Portfolio.for_game(game)).with_seed(self.retry_seed)
            except SolverError as exc:
                raise AtlasError(f"--retry-seed: {exc}") from None
        retry = (Limits(timeout=self.timeout, max_states=self.retry_max_states,
                        max_memory_mb=self.max_memory, search=self.retry_search,
                        seed=self.retry_seed)
                 if self.retry_max_states else None)
        proof_memory = self.proof_memory
        if proof_memory is None:
            proof_memory = (PROOF_MEMORY_CLUSTER if on_cluster
                            else default_proof_memory(self.workers or default_workers()))
        proof = (Limits(timeout=self.timeout, max_states=self.proof_max_states,
                        max_memory_mb=proof_memory, search="exhaustive",
                        max_disk_gb=self.proof_disk)
                 if self.proof_max_states else None)
        return Request(tuple(names), tuple(cells), first, last, limits, retry,
                       retry_unknown=self.retry_unknown, chunk=self.chunk, engine=self.engine,
                       fallback_engine=None if fallback_engine == "none" else fallback_engine,
                       proof_limits=proof)


def default_workers() -> int:
    return os.cpu_count() or 1


PROOF_MEMORY_CLUSTER = 8192  # MB per proof on a Dask cluster's workers


def default_proof_memory(workers: int) -> int:
    """MB per solve in the proof pass on a local cluster: three quarters of
    the machine's memory shared by its workers (8,192 where the machine does
    not say), never below the first pass's 4,096."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (AttributeError, ValueError, OSError):
        return PROOF_MEMORY_CLUSTER
    return max(4096, total * 3 // 4 // max(1, workers))
