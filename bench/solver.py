#!/usr/bin/env python3
"""Benchmark: the bakers solver against Freecell Solver on the same deals.

Solves Microsoft deals FROM..TO with bakers and with ``fc-solve`` in one run
and prints, per configuration, the verdict agreement, total and median
seconds for each program, the ratio bakers / fc-solve, and median solution
lengths; then a Markdown block for the README. See bench/README.md.

Configurations (fc-solve arguments):

* Baker's Game: ``-l cn -g bakers_game`` (crooked-nose, an atomic-moves
  preset: its "could not solve" is a proof);
* FreeCell: ``-l lg`` (looking-glass) and the default (meta-moves: fast,
  but "could not solve" is not a proof);
* Baker's Dozen: bakers only (the Debian fc-solve is built for at most 10
  columns and refuses 13).

fc-solve is timed two ways: one process per deal, wall clock including
process start (the board comes from ``make-microsoft-freecell-board -t N``,
made before the clock starts), and in-process over the whole range with
``freecell-solver-range-parallel-solve``, whose per-board time stamps give
per-deal times without process start (the fairer comparison). bakers is
timed per ``solve()`` call inside its worker process, including the replay
check of every solution.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import dataclasses
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence

from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from bakers.board import Board
from bakers.games import find_game
from bakers.survey import DealResult, Limits, run_deals

FCS = "fc-solve"
RANGE_SOLVER = "freecell-solver-range-parallel-solve"
BOARD_MAKER = "make-microsoft-freecell-board"

console = Console(stderr=True, highlight=False)

NOTE = (
    "Times: bakers = one `solve()` call in a worker process (pure Python, includes "
    "replaying the solution); fc-solve = one process per deal, wall clock including "
    "process start; batch = `freecell-solver-range-parallel-solve`, one process for the "
    "range, per-deal times from its time stamps. CPU = user + system time of the "
    "solving process (less sensitive to other load on the machine). Moves count a run "
    "(sequence) move once; single-card moves count every card moved, foundation moves "
    "included.")


@dataclasses.dataclass(frozen=True)
class Config:
    """One fc-solve configuration to compare against bakers on one game."""

    game: str
    fcs_args: tuple[str, ...]
    exhaustive: bool  # whether fc-solve's "could not solve" proves impossibility

    def label(self) -> str:
        return " ".join((FCS, *self.fcs_args)) if self.fcs_args else f"{FCS} (default)"


CONFIGS: dict[str, list[Config]] = {
    "bakers_game": [Config("bakers_game", ("-l", "cn", "-g", "bakers_game"), True)],
    "freecell": [Config("freecell", ("-l", "lg"), False), Config("freecell", (), False)],
    "bakers_dozen": [],
}


@dataclasses.dataclass
class FcsResult:
    deal: int
    verdict: str
    seconds: float
    moves: int | None = None         # fc-solve moves (a sequence move counts once)
    single_moves: int | None = None  # cards moved
    cpu: float | None = None         # user + system CPU seconds of the process


# --- fc-solve ------------------------------------------------------------------

VERDICT_LINES = {
    "This game is solveable.": "winnable",
    "I could not solve this game.": "impossible",
    "Iterations count exceeded.": "unknown",
}
MOVE_RE = re.compile(r"^Move (?:a card|(\d+) cards|the sequence)\b")


def parse_fcs_output(text: str) -> tuple[str, int | None, int | None]:
    """Verdict and move counts from ``fc-solve -sel -m`` output."""
    verdict = "unknown"
    moves = singles = 0
    for line in text.splitlines():
        line = line.strip()
        if line in VERDICT_LINES:
            verdict = VERDICT_LINES[line]
        m = MOVE_RE.match(line)
        if m:
            moves += 1
            singles += int(m.group(1)) if m.group(1) else (13 if "sequence" in line else 1)
    if verdict != "winnable":
        return verdict, None, None
    return verdict, moves, singles


def fcs_extra_args(game: str, cells: int, iters: int | None) -> list[str]:
    extra = [] if cells == 4 else ["--freecells-num", str(cells)]
    return extra + ([] if iters is None else ["-mi", str(iters)])


def ms_board(deal: int) -> str:
    return subprocess.run([BOARD_MAKER, "-t", str(deal)], check=True, capture_output=True,
                          text=True).stdout


def run_timed(cmd: Sequence[str], stdin: str = "") -> tuple[str, int, float, float]:
    """Run ``cmd``; its output, exit status, wall seconds and CPU seconds
    (user + system, from ``wait4``, so other threads' children don't count)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)   # a board is far smaller than a pipe's buffer
    proc.stdin.close()
    out = proc.stdout.read()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return out, proc.returncode, seconds, usage.ru_utime + usage.ru_stime


def fcs_one(args: Sequence[str], deal: int, board: str) -> FcsResult:
    cmd = [FCS, "-sel", "-m", *args, "-"]
    out, code, seconds, cpu = run_timed(cmd, board)
    if code < 0 or not any(line in out for line in VERDICT_LINES):
        raise RuntimeError(f"{' '.join(cmd)} failed on deal {deal}: {out.strip()[-300:]}")
    verdict, moves, singles = parse_fcs_output(out)
    return FcsResult(deal, verdict, seconds, moves, singles, cpu)


def fcs_per_process(args: Sequence[str], boards: dict[int, str], workers: int,
                    progress: Progress, label: str) -> tuple[dict[int, FcsResult], float]:
    task = progress.add_task(label, total=len(boards))
    out: dict[int, FcsResult] = {}
    start = time.perf_counter()
    with cf.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(fcs_one, args, d, b) for d, b in boards.items()]
        for f in cf.as_completed(futures):
            r = f.result()
            out[r.deal] = r
            progress.advance(task)
    return out, time.perf_counter() - start


RANGE_LINE = re.compile(
    r"^(Started|Reached|Unsolved|Intractable)(?: Board No\. (\d+))? at (\d+\.\d+)")


def parse_range_output(text: str) -> dict[int, FcsResult]:
    """Per-deal verdicts and times from the range solver's time stamps (a
    board's time runs from the previous "Reached" line to its own)."""
    out: dict[int, FcsResult] = {}
    last: float | None = None
    pending: dict[int, str] = {}
    for line in text.splitlines():
        m = RANGE_LINE.match(line.strip())
        if not m:
            continue
        kind, number, stamp = m.group(1), m.group(2), float(m.group(3))
        if kind == "Started":
            last = stamp
        elif kind == "Unsolved" and number:
            pending[int(number)] = "impossible"
        elif kind == "Intractable" and number:
            pending[int(number)] = "unknown"
        elif kind == "Reached" and number and last is not None:
            deal = int(number)
            out[deal] = FcsResult(deal, pending.pop(deal, "winnable"), stamp - last)
            last = stamp
    return out


def fcs_batch(args: Sequence[str], first: int, last: int, workers: int, iters: int | None
              ) -> tuple[dict[int, FcsResult], float]:
    """Run the range solver over first..last, split into ``workers`` chunks
    solved side by side; returns per-deal results and the total CPU time."""
    n = last - first + 1
    size = -(-n // workers)
    chunks = [(a, min(a + size - 1, last)) for a in range(first, last + 1, size)]
    limit = [] if iters is None else ["--total-iterations-limit", str(iters)]

    def run(chunk: tuple[int, int]) -> tuple[dict[int, FcsResult], float]:
        cmd = [RANGE_SOLVER, str(chunk[0]), str(chunk[1]), "1", *limit, *args]
        text, code, _, cpu = run_timed(cmd)
        if code != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {text.strip()[-300:]}")
        return parse_range_output(text), cpu

    out: dict[int, FcsResult] = {}
    cpu = 0.0
    with cf.ThreadPoolExecutor(max_workers=workers) as pool:
        for part, part_cpu in pool.map(run, chunks):
            out.update(part)
            cpu += part_cpu
    return out, cpu


# --- figures -------------------------------------------------------------------------

def median(values: Iterable[float | int | None]) -> float | None:
    xs = [float(v) for v in values if v is not None]
    return statistics.median(xs) if xs else None


def rnd(x: float | None) -> float | None:
    return None if x is None else round(x, 5)


def ms(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.2f} s" if x >= 1 else f"{1000 * x:.1f} ms"


def secs(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.3f} s" if x < 1 else f"{x:.2f} s"


def ratio(a: float | None, b: float | None) -> str:
    return "–" if a is None or not b else f"{a / b:.2f}×"


def num(x: float | None) -> str:
    return "–" if x is None else f"{x:g}"


def verdict_counts(verdicts: Iterable[str]) -> str:
    vs = list(verdicts)
    return "/".join(str(vs.count(v)) for v in ("winnable", "impossible", "unknown"))


@dataclasses.dataclass
class Row:
    """The figures of one configuration."""

    title: str
    config: str
    deals: int
    bakers_verdicts: str
    fcs_verdicts: str
    agree: str
    disagree: list[int]
    bakers_total: float
    bakers_cpu: float | None
    fcs_cpu: float | None
    batch_cpu: float | None
    bakers_median: float | None
    bakers_worst: float | None
    fcs_total: float | None
    fcs_median: float | None
    batch_total: float | None
    batch_median: float | None
    both_won: int
    bakers_moves: float | None
    bakers_singles: float | None
    fcs_moves: float | None
    fcs_singles: float | None


def total(values: Iterable[float | None]) -> float | None:
    xs = list(values)
    return None if not xs or any(x is None for x in xs) else sum(x for x in xs if x is not None)


def make_row(title: str, config: str, bakers: dict[int, DealResult],
             fcs: dict[int, FcsResult] | None, batch: dict[int, FcsResult] | None,
             batch_cpu: float | None = None) -> Row:
    deals = sorted(bakers)
    b_secs = [bakers[d].seconds for d in deals]
    agree, disagree = "–", []
    won: list[int] = []
    if fcs is not None:
        disagree = [d for d in deals if d not in fcs or fcs[d].verdict != bakers[d].verdict]
        agree = f"{len(deals) - len(disagree)}/{len(deals)}"
        won = [d for d in deals if bakers[d].verdict == "winnable"
               and d in fcs and fcs[d].verdict == "winnable"]
    else:
        won = [d for d in deals if bakers[d].verdict == "winnable"]
    return Row(
        title=title, config=config, deals=len(deals),
        bakers_verdicts=verdict_counts(bakers[d].verdict for d in deals),
        fcs_verdicts="–" if fcs is None else verdict_counts(
            fcs[d].verdict for d in deals if d in fcs),
        agree=agree, disagree=disagree,
        bakers_total=sum(b_secs), bakers_median=median(b_secs),
        bakers_cpu=total(bakers[d].cpu_seconds for d in deals),
        fcs_cpu=None if fcs is None else total(r.cpu for r in fcs.values()),
        batch_cpu=batch_cpu,
        bakers_worst=max(b_secs, default=None),
        fcs_total=None if fcs is None else sum(r.seconds for r in fcs.values()),
        fcs_median=None if fcs is None else median(r.seconds for r in fcs.values()),
        batch_total=None if batch is None else sum(r.seconds for r in batch.values()),
        batch_median=None if batch is None else median(r.seconds for r in batch.values()),
        both_won=len(won),
        bakers_moves=median(bakers[d].moves for d in won),
        bakers_singles=median(bakers[d].single_moves for d in won),
        fcs_moves=None if fcs is None else median(fcs[d].moves for d in won),
        fcs_singles=None if fcs is None else median(fcs[d].single_moves for d in won),
    )


METRICS: list[tuple[str, Callable[[Row], str]]] = [
    ("deals", lambda r: str(r.deals)),
    ("verdicts bakers (W/I/U)", lambda r: r.bakers_verdicts),
    ("verdicts fc-solve (W/I/U)", lambda r: r.fcs_verdicts),
    ("verdict agreement", lambda r: r.agree),
    ("bakers total", lambda r: secs(r.bakers_total)),
    ("bakers median", lambda r: ms(r.bakers_median)),
    ("bakers worst", lambda r: ms(r.bakers_worst)),
    ("fc-solve total (process per deal)", lambda r: secs(r.fcs_total)),
    ("fc-solve median (process per deal)", lambda r: ms(r.fcs_median)),
    ("ratio bakers / fc-solve (totals)", lambda r: ratio(r.bakers_total, r.fcs_total)),
    ("fc-solve total (batch)", lambda r: secs(r.batch_total)),
    ("fc-solve median (batch)", lambda r: ms(r.batch_median)),
    ("ratio bakers / batch (totals)", lambda r: ratio(r.bakers_total, r.batch_total)),
    ("ratio bakers / batch (medians)", lambda r: ratio(r.bakers_median, r.batch_median)),
    ("CPU total: bakers", lambda r: secs(r.bakers_cpu)),
    ("CPU total: fc-solve process per deal", lambda r: secs(r.fcs_cpu)),
    ("CPU total: fc-solve batch", lambda r: secs(r.batch_cpu)),
    ("CPU ratio bakers / fc-solve", lambda r: ratio(r.bakers_cpu, r.fcs_cpu)),
    ("CPU ratio bakers / batch", lambda r: ratio(r.bakers_cpu, r.batch_cpu)),
    ("deals won by both", lambda r: str(r.both_won)),
    ("median moves, bakers / fc-solve",
     lambda r: f"{num(r.bakers_moves)} / {num(r.fcs_moves)}"),
    ("median single-card moves, bakers / fc-solve",
     lambda r: f"{num(r.bakers_singles)} / {num(r.fcs_singles)}"),
]


def rich_table(title: str, rows: list[Row]) -> Table:
    """Metrics down, configurations across: fits a terminal."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1))
    table.add_column("", style="bold", overflow="fold")
    for r in rows:
        table.add_column(f"{r.title}\n{r.config}", justify="right", overflow="fold")
    for name, get in METRICS:
        table.add_row(name, *(get(r) for r in rows))
    return table


def markdown(rows: list[Row]) -> str:
    headers = ["", *(f"{r.title}<br>{r.config}" for r in rows)]
    lines = ["| " + " | ".join(headers) + " |",
             "|---|" + "---:|" * len(rows)]
    lines += ["| " + " | ".join([name, *(get(r) for r in rows)]) + " |"
              for name, get in METRICS]
    return "\n".join(lines)


# --- the run -------------------------------------------------------------------------------

def new_progress() -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console)


def solve_with_bakers(game: str, cells: int | None, deals: range, workers: int,
                      limits: Limits, progress: Progress) -> tuple[dict[int, DealResult], float]:
    g = find_game(game, cells if find_game(game).max_cells else None)
    task = progress.add_task(f"bakers {g.name}", total=len(deals))
    out: dict[int, DealResult] = {}
    start = time.perf_counter()
    for r in run_deals(g, deals, workers=workers, limits=limits):
        out[r.deal] = r
        progress.advance(task)
    return out, time.perf_counter() - start


def check_tools(names: Iterable[str]) -> None:
    missing = [n for n in names if shutil.which(n) is None]
    if missing:
        sys.exit(f"error: {', '.join(missing)} not on PATH (Debian: apt-get install "
                 "freecell-solver-bin), or use --skip-fcs")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--game", default="all",
                    choices=("all", "bakers_game", "freecell", "bakers_dozen"),
                    help="all = Baker's Game and FreeCell (the games fc-solve deals)")
    ap.add_argument("--from", dest="first", type=int, default=1)
    ap.add_argument("--to", dest="last", type=int, default=1000)
    ap.add_argument("--cells", type=int, default=4)
    ap.add_argument("--workers", type=int, default=1,
                    help="processes for each program (the same for both)")
    ap.add_argument("--skip-fcs", action="store_true", help="time bakers only")
    ap.add_argument("--no-batch", action="store_true", help="skip the range-solver run")
    ap.add_argument("--timeout", type=float, default=None, help="bakers: seconds per deal")
    ap.add_argument("--max-states", type=int, default=3_000_000, help="bakers: states per deal")
    ap.add_argument("--fcs-iters", type=int, default=None,
                    help="fc-solve: iterations per deal (default: no limit)")
    ap.add_argument("--csv", default=None, help="write per-deal figures to this file")
    a = ap.parse_args(argv)
    if not 1 <= a.first <= a.last:
        ap.error("need 1 <= --from <= --to")
    if a.workers < 1:
        ap.error("--workers must be at least 1")
    games = ["bakers_game", "freecell"] if a.game == "all" else [a.game]
    use_fcs = not a.skip_fcs and any(CONFIGS[g] for g in games)
    if use_fcs:
        check_tools([FCS, BOARD_MAKER] + ([] if a.no_batch else [RANGE_SOLVER]))

    deals = range(a.first, a.last + 1)
    limits = Limits(timeout=a.timeout, max_states=a.max_states)
    rows: list[Row] = []
    per_deal: list[dict[str, object]] = []
    boards: dict[int, str] = {}
    mismatched: list[int] = []
    with new_progress() as progress:
        if use_fcs:
            task = progress.add_task("boards from " + BOARD_MAKER, total=len(deals))
            for d in deals:
                boards[d] = ms_board(d)
                if boards[d].split() != Board.deal("freecell", d).to_text().split():
                    mismatched.append(d)
                progress.advance(task)
        for game in games:
            g = find_game(game)
            bakers, wall = solve_with_bakers(game, a.cells, deals, a.workers, limits, progress)
            title = (f"{g.title}, {a.cells} cells" if g.max_cells else g.title)
            configs = CONFIGS[game] if use_fcs else []
            if not configs:
                rows.append(make_row(title, "bakers only", bakers, None, None))
            for config in configs:
                args = [*config.fcs_args, *fcs_extra_args(game, a.cells, a.fcs_iters)]
                fcs, _ = fcs_per_process(args, boards, a.workers, progress,
                                         config.label())
                batch, batch_cpu = None, None
                if not a.no_batch:
                    batch, batch_cpu = fcs_batch(args, a.first, a.last, a.workers,
                                                 a.fcs_iters)
                    off = [d for d in deals if d in batch and d in fcs
                           and batch[d].verdict != fcs[d].verdict]
                    if off:
                        console.print(f"[yellow]note: the range solver and fc-solve differ "
                                      f"on deals {off[:20]}[/]")
                label = config.label()
                rows.append(make_row(title, label, bakers, fcs, batch, batch_cpu))
                for d in deals:
                    per_deal.append({
                        "game": game, "cells": a.cells, "config": label, "deal": d,
                        "bakers_verdict": bakers[d].verdict,
                        "bakers_limit": bakers[d].limit,
                        "bakers_states": bakers[d].states,
                        "bakers_cpu": rnd(bakers[d].cpu_seconds),
                        "bakers_seconds": round(bakers[d].seconds, 5),
                        "bakers_moves": bakers[d].moves,
                        "bakers_single_moves": bakers[d].single_moves,
                        "fcs_verdict": fcs[d].verdict,
                        "fcs_seconds": round(fcs[d].seconds, 5),
                        "fcs_cpu": rnd(fcs[d].cpu),
                        "fcs_batch_seconds": (round(batch[d].seconds, 5)
                                              if batch and d in batch else None),
                        "fcs_moves": fcs[d].moves, "fcs_single_moves": fcs[d].single_moves,
                    })
            console.print(f"bakers {game}: {wall:.2f} s wall for {len(deals)} deals")

    out = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    plural = "s" if a.workers > 1 else ""
    out.print(rich_table(f"Deals {a.first}–{a.last}, {a.workers} worker{plural} per program",
                         rows))
    for r in rows:
        if r.disagree:
            out.print(f"[red]{r.title} / {r.config}: verdicts differ on "
                      f"{len(r.disagree)} deals: {r.disagree[:30]}[/]")
    if mismatched:
        out.print(f"[red]bakers and {BOARD_MAKER} deal differently: {mismatched[:30]}[/]")
    elif boards:
        out.print(f"deals: bakers' layouts match {BOARD_MAKER} on all {len(boards)}")
    out.print("\nMarkdown:\n", style="bold")
    print(f"Microsoft deals {a.first}–{a.last}, {a.workers} worker{plural} per program.\n")
    print(markdown(rows))
    print()
    print(NOTE)
    if a.csv and per_deal:
        with open(a.csv, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(per_deal[0]))
            writer.writeheader()
            writer.writerows(per_deal)
        out.print(f"per-deal figures in {a.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
