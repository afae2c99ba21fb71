#!/usr/bin/env python3
"""Benchmark: both bakers engines and Freecell Solver on the same deals, in one run.

For each game, deals FROM..TO, one worker each:

* ``bakers survey --workers 1 --engine native`` and ``--engine python``, run
  as the command a user types: wall clock from start-up to the last CSV row,
  every verdict of the native engine with its line checked (by the core's line
  checker; ``--check rules`` replays through the rules engine instead);
* the native core alone, in process: the search without line or check, for
  its positions per second;
* ``freecell-solver-range-parallel-solve`` (fc-solve's in-process range
  solver) and ``fc-solve`` as one process per deal (boards made before the
  clock starts), with fc-solve's iteration counts.

Configurations: Baker's Game ``-g bakers_game -l cn`` (an atomic-moves
preset: its "could not solve" is a proof); FreeCell ``-l lg`` (fast, and it
may give up on a deal: "could not solve" is not a proof there). fc-solve is
built for at most 10 columns, so Baker's Dozen runs bakers alone.

Prints a table per game (wall time, positions, positions per second,
verdicts, agreement with the native engine, ratio of wall times) and a
Markdown block for docs/benchmarks.md. See bench/README.md.
"""

from __future__ import annotations

import argparse
import compileall
import csv
import dataclasses
import functools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

from rich.console import Console
from rich.table import Table

from bakers.board import Board
from bakers.solver import native

FCS = "fc-solve"
RANGE_SOLVER = "freecell-solver-range-parallel-solve"
BOARD_MAKER = "make-microsoft-freecell-board"
FCS_ARGS = {
    "bakers_game": ("-g", "bakers_game", "-l", "cn"),
    "freecell": ("-l", "lg"),
}

console = Console(stderr=True, highlight=False)


@dataclasses.dataclass
class Run:
    """One program's run over the deals."""

    label: str
    wall: float
    verdicts: dict[int, str]
    positions: int | None
    per_deal: list[float] = dataclasses.field(default_factory=list)
    walls: list[float] = dataclasses.field(default_factory=list)  # every repeat's wall

    def spread(self) -> str:
        """The repeats' walls, lowest to highest (one run: its wall)."""
        if len(self.walls) < 2:
            return f"{self.wall:.2f}"
        return f"{min(self.walls):.2f}–{max(self.walls):.2f}"

    def counts(self) -> str:
        c = [sum(1 for v in self.verdicts.values() if v == k)
             for k in ("winnable", "impossible", "unknown")]
        return "/".join(map(str, c))


# --- bakers --------------------------------------------------------------------------

def compile_package() -> None:
    """Bytecode for the package, as an install from a wheel leaves it (an
    editable install under PYTHONDONTWRITEBYTECODE compiles every module at
    each start: 80 ms of each survey)."""
    compileall.compile_dir(os.path.dirname(os.path.dirname(native.__file__)), quiet=1)


def bakers_survey(game: str, first: int, last: int, cells: int, engine: str, check: str | None,
                  max_states: int) -> Run:
    """``bakers survey`` as a user runs it, timed from start-up to exit."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "survey.csv")
        cmd = [sys.executable, "-m", "bakers", "survey", game, str(first), str(last),
               "--workers", "1", "--engine", engine, "--out", out, "--no-progress",
               "--max-states", str(max_states)]
        if game != "bakers_dozen":
            cmd += ["--cells", str(cells)]
        if check:
            cmd += ["--check", check]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[-400:]}")
        with open(out, newline="") as fh:
            rows = list(csv.DictReader(fh))
    verdicts = {int(r["deal"]): r["verdict"] for r in rows}
    positions = sum(int(r["states"]) for r in rows)
    label = f"bakers survey --engine {engine}" + (f" --check {check}" if check else "")
    return Run(label, wall, verdicts, positions, [float(r["seconds"]) for r in rows])


def native_core(game: str, first: int, last: int, cells: int, max_states: int) -> Run:
    """The native search alone (no line played, nothing checked)."""
    boards = [Board.deal(game, d, cells=None if game == "bakers_dozen" else cells)
              for d in range(first, last + 1)]
    portfolio = native.Portfolio.for_game(boards[0].game)
    verdicts: dict[int, str] = {}
    positions = 0
    per: list[float] = []
    start = time.perf_counter()
    for deal, board in zip(range(first, last + 1), boards, strict=True):
        t = time.perf_counter()
        found = native.search(board, portfolio, timeout=None, max_states=max_states,
                              max_memory_mb=4096)
        per.append(time.perf_counter() - t)
        verdicts[deal] = found.verdict
        positions += found.states
    return Run("native core alone (search only)", time.perf_counter() - start, verdicts,
               positions, per)


# --- fc-solve ------------------------------------------------------------------------

RANGE_LINE = re.compile(r"^(Started|Reached|Unsolved|Intractable)(?: Board No\. (\d+))? at "
                        r"(\d+\.\d+)(?: \(total_num_iters=(\d+)\))?")


def fcs_range(game: str, first: int, last: int, cells: int) -> Run:
    """The range solver over the deals, one process; per-deal verdicts from
    its Unsolved/Intractable lines, iterations from its running total."""
    extra = [] if cells == 4 else ["--freecells-num", str(cells)]
    cmd = [RANGE_SOLVER, str(first), str(last), "1", *FCS_ARGS[game], *extra]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stdout.strip()[-300:]}")
    verdicts: dict[int, str] = {}
    pending: dict[int, str] = {}
    iters = 0
    last_stamp: float | None = None
    per: list[float] = []
    for line in proc.stdout.splitlines():
        m = RANGE_LINE.match(line.strip())
        if not m:
            continue
        kind, number, stamp = m.group(1), m.group(2), float(m.group(3))
        if kind == "Started":
            last_stamp = stamp
        elif kind in ("Unsolved", "Intractable") and number:
            pending[int(number)] = "impossible" if kind == "Unsolved" else "unknown"
        elif kind == "Reached" and number:
            deal = int(number)
            verdicts[deal] = pending.pop(deal, "winnable")
            if m.group(4):
                iters = int(m.group(4))
            if last_stamp is not None:
                per.append(stamp - last_stamp)
            last_stamp = stamp
    return Run(f"{RANGE_SOLVER} {' '.join(FCS_ARGS[game])}", wall, verdicts, iters, per)


STATES_LINE = re.compile(r"Total number of states checked is (\d+)")


def fcs_per_process(game: str, first: int, last: int, cells: int) -> Run:
    """``fc-solve`` once per deal; the boards are made before the clock starts."""
    boards = {d: subprocess.run([BOARD_MAKER, "-t", str(d)], check=True, capture_output=True,
                                text=True).stdout for d in range(first, last + 1)}
    extra = [] if cells == 4 else ["--freecells-num", str(cells)]
    cmd = [FCS, *FCS_ARGS[game], *extra, "-"]
    verdicts: dict[int, str] = {}
    iters = 0
    per: list[float] = []
    start = time.perf_counter()
    for deal, board in boards.items():
        t = time.perf_counter()
        out = subprocess.run(cmd, input=board, capture_output=True, text=True).stdout
        per.append(time.perf_counter() - t)
        verdicts[deal] = ("winnable" if "This game is solveable." in out
                          else "impossible" if "I could not solve" in out else "unknown")
        m = STATES_LINE.search(out)
        iters += int(m.group(1)) if m else 0
    return Run(f"{FCS} {' '.join(FCS_ARGS[game])}, a process per deal",
               time.perf_counter() - start, verdicts, iters, per)


# --- report --------------------------------------------------------------------------

def agreement(run: Run, reference: Run) -> str:
    same = sum(1 for d, v in reference.verdicts.items() if run.verdicts.get(d) == v)
    return f"{same}/{len(reference.verdicts)}"


def rate(run: Run) -> str:
    if not run.positions:
        return "-"
    return f"{run.positions / run.wall:,.0f}"


def repeated(make: list[Callable[[], Run]], repeat: int) -> list[Run]:
    """Each maker's run ``repeat`` times, in rounds (every program once a
    round, so a slow moment of the machine falls on all of them alike), as
    one run per maker with the median wall. Verdicts and positions must be
    the same in every repeat."""
    rounds = [[m() for m in make] for _ in range(repeat)]
    out = []
    for i in range(len(make)):
        runs = [r[i] for r in rounds]
        first = runs[0]
        for other in runs[1:]:
            if (other.verdicts, other.positions) != (first.verdicts, first.positions):
                raise RuntimeError(f"{first.label}: verdicts or positions differ between repeats")
        walls = [r.wall for r in runs]
        out.append(dataclasses.replace(first, wall=statistics.median(walls), walls=walls))
    return out


def table(title: str, runs: list[Run], reference: Run) -> Table:
    t = Table(title=title)
    for name in ("program", "wall s", "walls", "median ms", "positions", "positions/s",
                 "won/lost/unknown", "agrees with native", "wall / native"):
        t.add_column(name, justify="left" if name == "program" else "right")
    for run in runs:
        med = statistics.median(run.per_deal) * 1000 if run.per_deal else None
        t.add_row(run.label, f"{run.wall:.2f}", run.spread(), "-" if med is None else f"{med:.2f}",
                  "-" if run.positions is None else f"{run.positions:,}", rate(run),
                  run.counts(), agreement(run, reference), f"{run.wall / reference.wall:.2f}")
    return t


def markdown(title: str, runs: list[Run], reference: Run) -> str:
    lines = [f"**{title}**", "",
             "| program | wall s | walls | positions | positions/s | won/lost/unknown | agrees | "
             "wall / bakers native |",
             "|---|---:|---:|---:|---:|---|---:|---:|"]
    for run in runs:
        lines.append(f"| {run.label} | {run.wall:.2f} | {run.spread()} | "
                     f"{'-' if run.positions is None else f'{run.positions:,}'} | {rate(run)} | "
                     f"{run.counts()} | {agreement(run, reference)} | "
                     f"{run.wall / reference.wall:.2f} |")
    return "\n".join(lines)


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--game", default="all",
                    choices=["all", "bakers_game", "freecell", "bakers_dozen"])
    ap.add_argument("--from", dest="first", type=int, default=1)
    ap.add_argument("--to", dest="last", type=int, default=1000)
    ap.add_argument("--cells", type=int, default=4)
    ap.add_argument("--engines", default="native,python",
                    help="bakers engines to run, comma-separated (default: both)")
    ap.add_argument("--check", choices=["core", "rules"], default=None,
                    help="how the native survey checks lines (default: the survey's)")
    ap.add_argument("--max-states", type=int, default=3_000_000)
    ap.add_argument("--skip-fcs", action="store_true", help="time bakers only")
    ap.add_argument("--no-per-process", action="store_true",
                    help="skip fc-solve as one process per deal")
    ap.add_argument("--repeat", type=positive, default=1,
                    help="run every program this many times, in rounds, and report the "
                         "median wall (the machine's speed moves by 10-25%% between runs)")
    args = ap.parse_args(argv)
    if not native.AVAILABLE:
        console.print(f"the native core is not built: {native.IMPORT_ERROR}")
        return 2
    compile_package()
    games = ["bakers_game", "freecell", "bakers_dozen"] if args.game == "all" else [args.game]
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    fcs_ok = not args.skip_fcs and all(shutil.which(t) for t in (FCS, RANGE_SOLVER, BOARD_MAKER))
    if not args.skip_fcs and not fcs_ok:
        console.print("fc-solve's tools are not on PATH (apt-get install freecell-solver-bin); "
                      "timing bakers alone")
    blocks = []
    out = Console(highlight=False)
    for game in games:
        n = args.last - args.first + 1
        console.print(f"[bold]{game}[/]: deals {args.first}-{args.last} ({n})")
        make: list[Callable[[], Run]] = []
        for engine in engines:
            make.append(functools.partial(
                bakers_survey, game, args.first, args.last, args.cells, engine,
                args.check if engine == "native" else None, args.max_states))
        make.append(functools.partial(native_core, game, args.first, args.last, args.cells,
                                      args.max_states))
        if fcs_ok and game in FCS_ARGS:
            make.append(functools.partial(fcs_range, game, args.first, args.last, args.cells))
            if not args.no_per_process:
                make.append(functools.partial(fcs_per_process, game, args.first, args.last,
                                              args.cells))
        console.print(f"  {len(make)} programs, {args.repeat} round(s) ...")
        runs = repeated(make, args.repeat)
        reference = next((r for r in runs if r.label.startswith("bakers survey --engine native")),
                         runs[0])
        cells = "" if game == "bakers_dozen" else f", {args.cells} cells"
        title = f"{game}{cells}, deals {args.first}-{args.last}, one worker each"
        if args.repeat > 1:
            title += f", median wall of {args.repeat} rounds"
        out.print(table(title, runs, reference))
        blocks.append(markdown(title, runs, reference))
    print("\n" + "\n\n".join(blocks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
