"""A census: every deal of a huge range decided, kept as ranges, not rows.

``bakers census run GAME --cells N --deals A-B --out FILE`` cuts the range
into tasks of consecutive deals; a worker decides a task's deals in the
native core's batches (:func:`bakers.solver.decide_deals`, every winning
line checked by the core's line checker) and sends back only its counts
(winnable, impossible, unknown, positions, seconds) and its exceptional
deals — the impossible and the unknown ones, with their positions. The file
is JSON lines: a header naming the game and cells, then one line per task
done, so a billion deals fit in megabytes; a run on the same file skips the
ranges it already holds. Then the deals left unknown go on to the retry tier
(a larger budget) and the proof tier (the exhaustive search, on disk when it
outgrows memory: :mod:`bakers.solver.proof`), each verdict a line of its own.

``bakers census report FILE [--json]`` adds it up: the ranges done, the
counts per verdict, and the impossible and unknown deals.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import BakersError
from .games import Game, find_game
from .verdicts import Limits

FORMAT = "bakers census 1"
TASK_DEALS = 4096  # deals a task decides (one message each way)
VERDICTS3 = ("winnable", "impossible", "unknown")


class CensusError(BakersError):
    """A census that cannot run or a file that is not a census."""


@dataclasses.dataclass
class RangeDone:
    """What a task sends back: its range's counts and exceptional deals."""

    first: int
    last: int
    counts: dict[str, int]
    positions: int
    seconds: float
    impossible: list[tuple[int, int]]  # (deal, positions)
    unknown: list[tuple[int, int]]

    def line(self) -> dict[str, Any]:
        return {"first": self.first, "last": self.last, "counts": self.counts,
                "positions": self.positions, "seconds": round(self.seconds, 3),
                "impossible": self.impossible, "unknown": self.unknown}


def decide_range(game_name: str, cells: int, first: int, last: int, limits: Limits) -> RangeDone:
    """A worker's task: deals ``first``-``last`` in the core's batches."""
    from .solver import decide_deals

    game = find_game(game_name).with_cells(cells)
    counts = dict.fromkeys(VERDICTS3, 0)
    out = RangeDone(first, last, counts, 0, 0.0, [], [])
    step = 512
    for start in range(first, last + 1, step):
        n = min(step, last + 1 - start)
        for k, d in enumerate(decide_deals(game, start, n, timeout=limits.timeout,
                                           max_states=limits.max_states,
                                           max_memory_mb=limits.max_memory_mb)):
            verdict = d.verdict.value
            counts[verdict] += 1
            out.positions += d.states
            out.seconds += d.seconds
            if verdict == "impossible":
                out.impossible.append((start + k, d.states))
            elif verdict == "unknown":
                out.unknown.append((start + k, d.states))
    return out


# --- the file -------------------------------------------------------------------

@dataclasses.dataclass
class Census:
    """A census file read: its game and cells, the ranges done and what they
    found, and the later tiers' verdicts of deals left unknown."""

    game: str
    cells: int
    ranges: list[RangeDone]
    tiers: dict[int, tuple[str, int, str]]  # deal -> (verdict, positions, tier)

    def done(self) -> list[tuple[int, int]]:
        """The ranges done, merged, in order."""
        spans = sorted((r.first, r.last) for r in self.ranges)
        merged: list[tuple[int, int]] = []
        for a, b in spans:
            if merged and a <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    def verdicts(self) -> tuple[dict[str, int], dict[int, int], dict[int, int]]:
        """Counts per verdict with the later tiers applied; the impossible and
        the unknown deals (each with its positions)."""
        counts = dict.fromkeys(VERDICTS3, 0)
        impossible: dict[int, int] = {}
        unknown: dict[int, int] = {}
        for r in self.ranges:
            for v in VERDICTS3:
                counts[v] += r.counts.get(v, 0)
            impossible.update(r.impossible)
            unknown.update(r.unknown)
        for deal, (verdict, states, _) in self.tiers.items():
            if deal in unknown and verdict != "unknown":
                del unknown[deal]
                counts["unknown"] -= 1
                counts[verdict] += 1
                if verdict == "impossible":
                    impossible[deal] = states
            elif deal in unknown:
                unknown[deal] = states
        return counts, dict(sorted(impossible.items())), dict(sorted(unknown.items()))

    def report(self) -> dict[str, Any]:
        counts, impossible, unknown = self.verdicts()
        positions = sum(r.positions for r in self.ranges)
        seconds = sum(r.seconds for r in self.ranges)
        return {"game": self.game, "cells": self.cells,
                "ranges": [list(span) for span in self.done()],
                "deals": sum(b - a + 1 for a, b in self.done()),
                "counts": counts, "positions": positions, "seconds": round(seconds, 3),
                "impossible": list(impossible), "unknown": list(unknown),
                "impossible_positions": {str(d): s for d, s in impossible.items()},
                "tiers": {str(d): {"verdict": v, "positions": s, "tier": t}
                          for d, (v, s, t) in sorted(self.tiers.items())}}


def read(path: str | os.PathLike[str]) -> Census:
    """A census file; a last line cut short by a kill is ignored."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
    except OSError as exc:
        raise CensusError(f"{path}: {exc.strerror or exc}") from None
    try:
        head = json.loads(lines[0])
        if head.get("format") != FORMAT:
            raise ValueError("no census header")
        census = Census(str(head["game"]), int(head["cells"]), [], {})
    except (ValueError, KeyError, TypeError, IndexError):
        raise CensusError(f"{path}: not a census file") from None
    for n, text in enumerate(lines[1:], 2):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
            if "tier" in row:
                census.tiers[int(row["deal"])] = (str(row["verdict"]), int(row["positions"]),
                                                  str(row["tier"]))
            else:
                census.ranges.append(RangeDone(
                    int(row["first"]), int(row["last"]),
                    {v: int(row["counts"].get(v, 0)) for v in VERDICTS3},
                    int(row["positions"]), float(row["seconds"]),
                    [(int(d), int(s)) for d, s in row["impossible"]],
                    [(int(d), int(s)) for d, s in row["unknown"]]))
        except (ValueError, KeyError, TypeError):
            if n == len(lines) or all(not t.strip() for t in lines[n:]):
                break  # the last line, cut by a kill: its task is done again
            raise CensusError(f"{path}: line {n} is not a census line") from None
    return census


class _Writer:
    """Appends lines to the census file, flushed as they come."""

    def __init__(self, path: Path, game: Game) -> None:
        new = not path.exists() or path.stat().st_size == 0
        if not new:
            # a last line cut by a kill goes: its task is done again
            data = path.read_bytes()
            end = data.rfind(b"\n") + 1
            if end < len(data):
                with open(path, "r+b") as fh:
                    fh.truncate(end)
        self.fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())
        if new:
            self.write({"format": FORMAT, "game": game.name, "cells": game.cells})

    def write(self, row: dict[str, Any]) -> None:
        self.fh.write(json.dumps(row, separators=(",", ":")) + "\n")
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()


def _todo(first: int, last: int, done: list[tuple[int, int]], size: int
          ) -> Iterator[tuple[int, int]]:
    """The ranges of ``first``-``last`` not done, in tasks of at most ``size``."""
    at = first
    for a, b in [*done, (last + 1, last + 1)]:
        if b < at:
            continue
        gap_end = min(a - 1, last)
        while at <= gap_end:
            end = min(at + size - 1, gap_end)
            yield at, end
            at = end + 1
        at = max(at, b + 1)
        if at > last:
            return


# --- running --------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Plan:
    """A census run: the game, its cells, the range, the workers, the first
    budget, and the later tiers (``None``: none)."""

    game: Game
    first: int
    last: int
    workers: int = 1
    limits: Limits = dataclasses.field(default_factory=lambda: Limits(max_states=1_000_000))
    retry: Limits | None = dataclasses.field(
        default_factory=lambda: Limits(max_states=30_000_000))
    proof: Limits | None = None
    proof_disk_gb: float | None = None
    task_deals: int = TASK_DEALS
    scheduler: str | None = None  # a Dask scheduler's address: its workers decide the tasks


Progress = Callable[[int], object]  # deals done so far in this run


def run(path: str | os.PathLike[str], plan: Plan, progress: Progress | None = None) -> Census:
    """Run ``plan`` into the census file ``path`` (resumed if it exists) and
    return the census read back."""
    from .survey import _context, _init_worker

    file = Path(path)
    if file.exists() and file.stat().st_size:
        old = read(file)
        if (old.game, old.cells) != (plan.game.name, plan.game.cells):
            raise CensusError(f"{file}: a census of {old.game} with {old.cells} cells")
        done = old.done()
    else:
        done = []
    writer = _Writer(file, plan.game)
    try:
        todo = list(_todo(plan.first, plan.last, done, plan.task_deals))
        count = 0
        if plan.scheduler is not None and todo:
            for r in _on_dask(plan, todo):
                writer.write(r.line())
                count += r.last - r.first + 1
                if progress:
                    progress(count)
        elif plan.workers == 1:
            for a, b in todo:
                r = decide_range(plan.game.name, plan.game.cells, a, b, plan.limits)
                writer.write(r.line())
                count += b - a + 1
                if progress:
                    progress(count)
        elif todo:
            import concurrent.futures as cf

            with cf.ProcessPoolExecutor(max_workers=plan.workers, mp_context=_context(),
                                        initializer=_init_worker,
                                        initargs=(os.getpid(),)) as pool:
                window = plan.workers * 2
                pending = iter(todo)
                flying: set[cf.Future[RangeDone]] = set()

                def fill() -> None:
                    while len(flying) < window:
                        span = next(pending, None)
                        if span is None:
                            return
                        flying.add(pool.submit(decide_range, plan.game.name, plan.game.cells,
                                               span[0], span[1], plan.limits))

                fill()
                while flying:
                    finished, _ = cf.wait(flying, return_when=cf.FIRST_COMPLETED)
                    for fut in finished:
                        flying.discard(fut)
                        r = fut.result()
                        writer.write(r.line())
                        count += r.last - r.first + 1
                        if progress:
                            progress(count)
                    fill()
        _later_tiers(file, plan, writer)
    finally:
        writer.close()
    return read(file)


def _on_dask(plan: Plan, todo: list[tuple[int, int]]) -> Iterator[RangeDone]:
    """The tasks on the workers of the Dask scheduler ``plan.scheduler``, a
    window at a time (four per worker); each result as it comes. A task a
    lost worker held is run again by the scheduler on another."""
    import importlib

    try:
        dist = importlib.import_module("distributed")
    except ImportError:
        raise CensusError("--scheduler needs dask.distributed: pip install "
                          "'bakers[atlas]'") from None
    try:
        client = dist.Client(plan.scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise CensusError(f"cannot reach the Dask scheduler at {plan.scheduler}: "
                          f"{exc}") from None
    try:
        workers = max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))
        pending = iter(todo)
        done = dist.as_completed()

        def submit() -> bool:
            span = next(pending, None)
            if span is None:
                return False
            done.add(client.submit(decide_range, plan.game.name, plan.game.cells, span[0],
                                   span[1], plan.limits, pure=False))
            return True

        for _ in range(workers * 4):
            if not submit():
                break
        for future in done:
            result: RangeDone = future.result()
            future.release()
            submit()
            yield result
    finally:
        client.close()


def _later_tiers(file: Path, plan: Plan, writer: _Writer) -> None:
    """The deals still unknown: the retry budget, then the proof search."""
    from .atlas.work import disk_plan
    from .board import Board
    from .solver import solve

    census = read(file)
    for tier, limits in (("retry", plan.retry), ("proof", plan.proof)):
        if limits is None:
            continue
        _, _, unknown = census.verdicts()
        for deal in unknown:
            exhaustive = tier == "proof"
            # a proof on disk keeps its checkpoints in the user cache: a
            # killed or stopped run, started again, resumes it
            disk = (disk_plan(plan.game.name, plan.game.cells, deal,
                              dataclasses.replace(limits, max_disk_gb=plan.proof_disk_gb),
                              kind="census") if exhaustive and plan.proof_disk_gb else None)
            if census.tiers.get(deal, ("", 0, ""))[2] == tier and not (disk and disk.resume):
                continue  # tried at this tier already, nothing to resume
            board = Board.deal(plan.game, deal)
            start = time.perf_counter()
            result = solve(board, timeout=limits.timeout, max_states=limits.max_states,
                           max_memory_mb=limits.max_memory_mb, texts=False,
                           check="rules", search="exhaustive" if exhaustive else "portfolio",
                           disk=disk)
            writer.write({"tier": tier, "deal": deal, "verdict": result.verdict.value,
                          "positions": result.states,
                          "seconds": round(time.perf_counter() - start, 3)})
            census.tiers[deal] = (result.verdict.value, result.states, tier)
