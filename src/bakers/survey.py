"""Surveys: the solver's verdict on every deal of a range, solved in worker
processes, one CSV row per deal, resumable, with a summary.

Each row is written and flushed as soon as its deal finishes, so a killed
survey loses at most the deals that were in flight; running it again with the
same file solves only the deals the file lacks.

The summary gives the share of winnable deals among the *resolved* ones
(winnable or impossible) with a 95% Wilson score interval:

>>> lo, hi = wilson_interval(8, 10)
>>> round(lo, 4), round(hi, 4)
(0.4902, 0.9433)
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import math
import os
import signal
import statistics
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

try:
    import resource as _resource
except ImportError:  # not on Windows
    _resource = None  # type: ignore[assignment]

from .board import Board
from .errors import BakersError
from .games import GAMES, Game, find_game
from .solver import Decision, check_engine, decide_deal, decide_deals, solve
from .verdicts import VERDICTS, Limits, Verdict

CSV_FIELDS = ("game", "cells", "deal", "verdict", "moves", "single_moves",
              "states", "seconds", "limit", "player_moves")
# files written before player moves were recorded: still read and extended
OLD_CSV_FIELDS = CSV_FIELDS[:-1]
Z95 = 1.959963984540054  # the standard normal quantile for a 95% two-sided interval


class SurveyError(BakersError):
    """A survey that cannot run as asked: a file for another game, a bad
    range, a worker that died."""


# --- one deal ----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class DealResult:
    """One deal's verdict. ``moves`` counts a run move once, ``single_moves``
    every card movement (both ``None`` unless the deal was won); ``seconds``
    is the wall-clock time of the ``solve`` call in the worker."""

    game: str
    cells: int
    deal: int
    verdict: str
    moves: int | None
    single_moves: int | None
    states: int
    seconds: float
    limit: str = ""
    cpu_seconds: float | None = None  # the worker's CPU time for the solve (not in the CSV)
    player_moves: int | None = None   # moves not to a foundation, a run counting one

    def to_row(self) -> dict[str, str]:
        return dict(zip(CSV_FIELDS, self.to_fields(), strict=True))

    def to_fields(self) -> tuple[str, ...]:
        """The row's fields in the order of ``CSV_FIELDS``."""
        return (self.game, str(self.cells), str(self.deal), self.verdict,
                "" if self.moves is None else str(self.moves),
                "" if self.single_moves is None else str(self.single_moves),
                str(self.states), f"{self.seconds:.4f}", self.limit,
                "" if self.player_moves is None else str(self.player_moves))

    @classmethod
    def from_row(cls, row: Mapping[str, str | None]) -> DealResult:
        """Parse a CSV row; raises ``ValueError`` when a field is malformed."""
        def text(name: str) -> str:
            value = row.get(name)
            if value is None:
                raise ValueError(f"missing field {name!r}")
            return value.strip()

        def optional_int(name: str) -> int | None:
            value = text(name)
            return int(value) if value else None

        verdict = text("verdict")
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}")
        seconds = float(text("seconds"))
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"bad seconds {seconds!r}")
        return cls(game=text("game"), cells=int(text("cells")), deal=int(text("deal")),
                   verdict=verdict, moves=optional_int("moves"),
                   single_moves=optional_int("single_moves"), states=int(text("states")),
                   seconds=seconds, limit=text("limit"),
                   player_moves=optional_int("player_moves") if "player_moves" in row else None)


def cpu_seconds() -> float:
    """This thread's CPU time. ``getrusage`` where there is one: on Linux it
    costs a couple of microseconds, where reading a CPU-time clock
    (``time.process_time``) right after a large solve can cost a tenth of a
    millisecond, as much as solving an easy deal."""
    if _resource is not None:
        usage = _resource.getrusage(_resource.RUSAGE_THREAD)
        return usage.ru_utime + usage.ru_stime
    return time.thread_time()


@dataclasses.dataclass(frozen=True)
class DealTask:
    """What a worker needs to solve one deal (small and picklable)."""

    game: str
    cells: int
    deal: int
    limits: Limits


_games: dict[tuple[str, int], Game] = {}


def _game(name: str, cells: int) -> Game:
    """``find_game(name, cells)``, looked up once per survey (a deal's
    own lookup costs a tenth of an easy deal's solve)."""
    game = _games.get((name, cells))
    if game is None:
        game = _games[name, cells] = find_game(name, cells)
    return game


def _engine_and_check(limits: Limits) -> tuple[str, str]:
    """The engine the limits choose, and what replays its winning lines."""
    engine = check_engine(limits.engine)
    return engine, limits.check or ("core" if engine == "native" else "rules")


def _core_case(engine: str, check: str, limits: Limits) -> bool:
    """The common case: the native core's portfolio, its line checker, and
    no short-line search, so that a line's sizes are all a row keeps."""
    return (engine, check, limits.short_seconds, limits.search) == (
        "native", "core", None, "portfolio")


def _in_core(limits: Limits) -> bool:
    return _core_case(*_engine_and_check(limits), limits)


def _row(game: str, cells: int, deal: int, found: Decision,
         cpu: float | None) -> DealResult:
    return DealResult(
        game=game, cells=cells, deal=deal, verdict=found.verdict.value,
        moves=found.moves, single_moves=found.single_moves, states=found.states,
        seconds=found.seconds, limit=found.limit or "", cpu_seconds=cpu,
        player_moves=found.player_moves)


def solve_deal(task: DealTask) -> DealResult:
    """Deal ``task.deal`` and solve it; runs in a worker process."""
    limits = task.limits
    engine, check = _engine_and_check(limits)
    cpu_start = cpu_seconds()
    try:
        if _core_case(engine, check, limits):
            found = decide_deal(_game(task.game, task.cells), task.deal,
                                timeout=limits.timeout, max_states=limits.max_states,
                                max_memory_mb=limits.max_memory_mb)
        else:
            board = Board.deal(task.game, task.deal, cells=task.cells)
            result = solve(board, timeout=limits.timeout, max_states=limits.max_states,
                           max_memory_mb=limits.max_memory_mb, engine=engine, texts=False,
                           check=check,
                           lines="fast" if limits.short_seconds is None else "short",
                           short_seconds=limits.short_seconds, search=limits.search)
            won = result.verdict is Verdict.WINNABLE
            found = Decision(result.verdict, result.states, result.seconds, result.limit,
                             len(result.moves) if won else None,
                             len(result.single_moves) if won else None,
                             result.player_moves if won else None, result.engine)
    except Exception as exc:  # a solver bug: name the deal, keep the survey's rows
        raise SurveyError(f"deal {task.deal}: the solver failed: "
                          f"{type(exc).__name__}: {exc}") from None
    return _row(task.game, task.cells, task.deal, found, cpu_seconds() - cpu_start)


BATCH_SECONDS = 0.05  # a batch of deals solved in one call to the core lasts about this
BATCH_MAX = 256


def _solve_in_batches(game: Game, deals: Iterable[int], limits: Limits
                      ) -> Generator[DealResult, None, None]:
    """Solve ``deals`` in this process, runs of consecutive deals at a time
    in one call to the core (:func:`bakers.solver.decide_deals`): one deal
    first, then twice as many while a batch takes less than BATCH_SECONDS, so
    that results still come a few times a second whatever the deals cost."""
    size = 1
    it = iter(deals)
    pending = next(it, None)
    while pending is not None:
        run = [pending]
        pending = None
        for deal in it:
            if deal != run[-1] + 1 or len(run) >= size:
                pending = deal
                break
            run.append(deal)
        start = time.perf_counter()
        try:
            found = decide_deals(game, run[0], len(run), timeout=limits.timeout,
                                 max_states=limits.max_states,
                                 max_memory_mb=limits.max_memory_mb)
        except Exception as exc:  # a solver bug: name the deals, keep the survey's rows
            raise SurveyError(f"deals {run[0]}-{run[-1]}: the solver failed: "
                              f"{type(exc).__name__}: {exc}") from None
        for deal, decision in zip(run, found, strict=True):
            yield _row(game.name, game.cells, deal, decision, None)
        if time.perf_counter() - start < BATCH_SECONDS:
            size = min(size * 2, BATCH_MAX)
        else:
            size = max(size // 2, 1)


TASK_DEALS = 2048  # consecutive deals a worker's task solves, in the core's batches


def _solve_range(name: str, cells: int, deals: list[int], limits: Limits) -> list[DealResult]:
    """A worker's task when the core decides: consecutive deals, solved in
    batches as one worker does, sent back in one message."""
    return list(_solve_in_batches(_game(name, cells), deals, limits))


def _solve_one(task: DealTask) -> list[DealResult]:
    """A worker's task when Python decides (or checks): one deal."""
    return [solve_deal(task)]


def _ranges(deals: Iterable[int], size: int) -> Iterator[list[int]]:
    """``deals`` cut into runs of consecutive deal numbers, each at most ``size``."""
    run: list[int] = []
    for deal in deals:
        if run and (deal != run[-1] + 1 or len(run) >= size):
            yield run
            run = []
        run.append(deal)
    if run:
        yield run


def _init_worker(parent: int) -> None:
    """Workers leave Ctrl-C to the parent, which stops them cleanly, and
    end themselves if the parent is killed outright (``kill -9``), rather
    than wait forever for work that will not come."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except OSError:
                pass  # exists but is not ours to signal: still alive

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _context() -> Any:
    """A start method that is safe with threads in the parent (rich's
    progress bar runs one): forkserver where there is one, else spawn."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def run_deals(game: Game, deals: Iterable[int], *, workers: int = 1,
              limits: Limits | None = None) -> Generator[DealResult, None, None]:
    """Solve ``deals`` of ``game`` in ``workers`` processes; yield each
    result as it finishes (completion order, not deal order).

    At most a few tasks per worker are queued at a time, so a huge range
    costs no memory up front. Closing the iterator early (or Ctrl-C) stops
    the workers at once.
    """
    if workers < 1:
        raise SurveyError("--workers must be at least 1")
    limits = limits or Limits()
    tasks = (DealTask(game.name, game.cells, deal, limits) for deal in deals)
    if workers == 1:
        # one worker: solve here, with no process to start and nothing to
        # send between processes (the native core releases the GIL, so the
        # progress bar keeps drawing)
        if _in_core(limits):
            yield from _solve_in_batches(_game(game.name, game.cells), deals, limits)
            return
        for task in tasks:
            yield solve_deal(task)
        return
    # the process pool's modules only where there are workers to start
    # (importing them costs a one-worker survey 25 ms of its start-up)
    import concurrent.futures as cf
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    window = workers * 2
    before = {p.pid for p in multiprocessing.active_children()}
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=_context(),
                                  initializer=_init_worker,
                                  initargs=(os.getpid(),))
    in_flight: dict[cf.Future[list[DealResult]], tuple[int, str]] = {}  # first deal, label
    finished = False
    # where the core decides, a task is a run of consecutive deals (one
    # message each way per run, not per deal: a deal costs the core about as
    # much as sending it); otherwise a task is a deal
    core = _in_core(limits)
    runs = _ranges(deals, TASK_DEALS) if core else iter(())

    def fill() -> None:
        while len(in_flight) < window:
            if core:
                run = next(runs, None)
                if run is None:
                    return
                label = f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0])
                in_flight[pool.submit(_solve_range, game.name, game.cells, run,
                                      limits)] = (run[0], label)
            else:
                task = next(tasks, None)
                if task is None:
                    return
                in_flight[pool.submit(_solve_one, task)] = (task.deal, str(task.deal))

    try:
        fill()
        while in_flight:
            done, _ = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            for future in sorted(done, key=in_flight.__getitem__):
                mine = in_flight.pop(future)
                try:
                    results = future.result()
                except BrokenProcessPool:
                    lost = [label for _, label in sorted([mine, *in_flight.values()])]
                    raise SurveyError(
                        "a worker process died (out of memory?) while solving "
                        f"deal {' or '.join(lost)}: lower --max-memory or "
                        "--workers, then run again to resume") from None
                yield from results
            fill()
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in multiprocessing.active_children():
                if proc.pid not in before:  # only the workers this call started
                    proc.terminate()
            for proc in multiprocessing.active_children():
                if proc.pid not in before:
                    proc.join(timeout=5)


# --- the CSV file --------------------------------------------------------------

class SurveyFile:
    """A survey's CSV: read what is done, then append rows one by one.

    Rows are never rewritten; a deal listed twice counts with its last row
    (``--retry-unknown`` appends a new row for a deal that was unknown).
    """

    def __init__(self, path: str | os.PathLike[str], game: Game) -> None:
        self.path = Path(path)
        self.game = game
        self._fh: io.TextIOWrapper | None = None
        self._writer: Any = None
        self._fields: tuple[str, ...] = ()
        self._width = len(CSV_FIELDS)  # an old file's rows lack the last field

    def load(self) -> dict[int, DealResult]:
        """The rows already in the file, by deal. Refuses a file that is not
        a survey or is a survey of another game or cell count. A last line cut
        short by a kill is dropped (its deal will be solved again)."""
        if not self.path.exists():
            return {}
        if self.path.is_dir():
            raise SurveyError(f"{self.path}: is a directory, not a CSV file")
        data = self.path.read_bytes()
        if not data.strip():
            return {}
        cut = data.rfind(b"\n") + 1
        if cut < len(data):  # a partial last line: the survey was killed mid-write
            data = data[:cut]
            with self.path.open("r+b") as fh:
                fh.truncate(cut)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SurveyError(f"{self.path}: not a bakers survey CSV (not text)") from None
        reader = csv.DictReader(io.StringIO(text, newline=""))
        self._fields = tuple(reader.fieldnames or ())
        if self._fields not in (CSV_FIELDS, OLD_CSV_FIELDS):
            raise SurveyError(
                f"{self.path}: not a bakers survey CSV (its header should be "
                f"{','.join(CSV_FIELDS)}); choose another --out")
        done: dict[int, DealResult] = {}
        for line, row in enumerate(reader, start=2):
            try:
                result = DealResult.from_row(row)
            except (ValueError, TypeError) as exc:
                raise SurveyError(f"{self.path}, line {line}: {exc}") from None
            if (result.game, result.cells) != (self.game.name, self.game.cells):
                theirs = GAMES[result.game].title if result.game in GAMES else result.game
                raise SurveyError(
                    f"{self.path} holds a survey of {theirs} with {result.cells} cells, "
                    f"not {self.game.title} with {self.game.cells}: choose another --out")
            done[result.deal] = result
        return done

    def open(self) -> None:
        new = not self.path.exists() or self.path.stat().st_size == 0
        self._fh = open(self.path, "a", encoding="utf-8", newline="")  # noqa: SIM115
        self._width = len(CSV_FIELDS if new else self._fields or CSV_FIELDS)
        self._writer = csv.writer(self._fh, lineterminator="\n")
        if new:
            self._writer.writerow(CSV_FIELDS)
            self._fh.flush()

    def append(self, result: DealResult) -> None:
        """Write one row and flush it, so a kill cannot lose it."""
        if self._fh is None:
            self.open()
        assert self._fh is not None
        self._writer.writerow(result.to_fields()[:self._width])
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> SurveyFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- the summary -----------------------------------------------------------------

def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``.

    Unlike the plain ``p ± z·sqrt(p(1-p)/n)`` it stays inside [0, 1] and
    keeps its coverage when ``p`` is near 0 or 1, as winnable rates are.

    >>> wilson_interval(10, 10)[1], wilson_interval(0, 10)[0]
    (1.0, 0.0)
    """
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError("need 0 <= successes <= n and n > 0")
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


@dataclasses.dataclass(frozen=True)
class Summary:
    """Figures for one range of one game and cell count."""

    game: str
    title: str
    cells: int
    first: int
    last: int
    deals: int
    counts: dict[str, int]
    winnable_share: float | None       # among resolved deals
    winnable_ci95: tuple[float, float] | None
    median_seconds: float | None
    worst_seconds: float | None
    worst_deal: int | None
    total_seconds: float
    total_states: int
    median_moves: float | None
    median_single_moves: float | None
    solved_now: int = 0
    from_file: int = 0
    out: str | None = None

    @property
    def resolved(self) -> int:
        return self.counts["winnable"] + self.counts["impossible"]

    @property
    def missing(self) -> int:
        return self.last - self.first + 1 - self.deals

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["resolved"] = self.resolved
        data["winnable_percent"] = (None if self.winnable_share is None
                                    else round(100 * self.winnable_share, 3))
        data["winnable_ci95_percent"] = (None if self.winnable_ci95 is None
                                         else [round(100 * x, 3) for x in self.winnable_ci95])
        del data["winnable_ci95"]
        return data


def summarize(game: Game, first: int, last: int, results: Iterable[DealResult],
              *, solved_now: int = 0, out: str | None = None) -> Summary:
    """Summarize the results whose deal lies in ``first``–``last``."""
    chosen = [r for r in results if first <= r.deal <= last]
    counts = {v: 0 for v in VERDICTS}
    for r in chosen:
        counts[r.verdict] += 1
    resolved = counts["winnable"] + counts["impossible"]
    share = counts["winnable"] / resolved if resolved else None
    ci = wilson_interval(counts["winnable"], resolved) if resolved else None
    times = [r.seconds for r in chosen]
    worst = max(chosen, key=lambda r: r.seconds, default=None)
    won = [r for r in chosen if r.verdict == "winnable"]
    moves = [r.moves for r in won if r.moves is not None]
    singles = [r.single_moves for r in won if r.single_moves is not None]
    return Summary(
        game=game.name, title=game.title, cells=game.cells, first=first, last=last,
        deals=len(chosen), counts=counts, winnable_share=share, winnable_ci95=ci,
        median_seconds=statistics.median(times) if times else None,
        worst_seconds=worst.seconds if worst else None,
        worst_deal=worst.deal if worst else None,
        total_seconds=sum(times), total_states=sum(r.states for r in chosen),
        median_moves=statistics.median(moves) if moves else None,
        median_single_moves=statistics.median(singles) if singles else None,
        solved_now=solved_now, from_file=len(chosen) - solved_now, out=out)


# --- a whole survey --------------------------------------------------------------

MAX_RANGE = 100_000_000


def check_range(first: int, last: int) -> None:
    if first > last:
        raise SurveyError(f"the range {first}–{last} is empty: FIRST must not exceed LAST")
    if last - first + 1 > MAX_RANGE:
        raise SurveyError(f"at most {MAX_RANGE:,} deals in one survey")


def survey(game: Game, first: int, last: int, out: str | os.PathLike[str], *,
           workers: int = 1, limits: Limits | None = None, retry_unknown: bool = False,
           on_start: Callable[[int, int], None] | None = None,
           on_result: Callable[[DealResult], None] | None = None) -> Summary:
    """Solve deals ``first``–``last`` of ``game`` that ``out`` lacks, appending
    a row per deal, and summarize the whole range.

    ``on_start(total, already_done)`` and ``on_result(result)`` feed a
    progress display.
    """
    check_range(first, last)
    if workers < 1:
        raise SurveyError("--workers must be at least 1")
    store = SurveyFile(out, game)
    done = store.load()
    skip = {d for d, r in done.items() if first <= d <= last
            and not (retry_unknown and r.verdict == "unknown")}
    todo = (d for d in range(first, last + 1) if d not in skip)
    if on_start:
        on_start(last - first + 1, len(skip))
    solved_now = 0
    with store, contextlib.closing(
            run_deals(game, todo, workers=workers, limits=limits)) as results:
        store.open()
        for result in results:
            store.append(result)
            done[result.deal] = result
            solved_now += 1
            if on_result:
                on_result(result)
    return summarize(game, first, last, done.values(), solved_now=solved_now, out=str(out))
