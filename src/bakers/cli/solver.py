"""The solver's commands, ``bakers solve`` and ``bakers hint`` (loaded by
``bakers.cli``, which turns library errors into one line and exit status 2).

A verdict — winnable, impossible or unknown — exits with status 0.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator

import click

from ..board import Board
from ..errors import BakersError
from ..solver import ENGINES, SolveResult, Verdict, check_engine, check_limits, hint, solve
from ..solver.native import AVAILABLE as NATIVE_AVAILABLE
from ..solver.native import IMPORT_ERROR
from ..solver.proof import DiskPlan
from .common import GAME_NAMES, load_board

_noted = False


def engine_in_use(engine: str | None) -> str:
    """The engine a command runs on (``None``: the default). Says once on
    stderr when that is the Python engine because the native core is not
    built here. Raises ``BakersError`` for an engine that is not available."""
    global _noted
    chosen = check_engine(engine)
    if engine is None and not NATIVE_AVAILABLE and not _noted:
        _noted = True
        click.echo("bakers: the native solver core is not built here "
                   f"({IMPORT_ERROR}); using the Python engine", err=True)
    return chosen


ENGINE_OPTION = click.option(
    "--engine", type=click.Choice(ENGINES), default=None,
    help="the search engine [default: native where built, else python]")


def _position(game: str, path: str | None, deal: str | None, cells: int | None) -> Board:
    if deal is not None and path is not None:
        raise BakersError("give a deal number or a position, not both")
    if deal is not None:
        return Board.deal(game, deal, cells=cells)
    if path is None:
        if sys.stdin.isatty():
            raise BakersError(
                "give a deal number (--deal N) or a position file (- for standard input)")
        path = "-"
    return load_board(path, game, cells)


def _summary(result: SolveResult, short: bool = False) -> str:
    searched = f"{result.states:,} positions searched in {result.seconds:.3f} s"
    if result.verdict is Verdict.WINNABLE:
        players = f"{result.player_moves} player moves"
        if short:
            players += (", proven shortest" if result.optimal else
                        f", no line shorter than {result.lower_bound}"
                        if result.lower_bound else "")
        return (f"winnable: {len(result.moves)} moves ({players}; "
                f"{len(result.single_moves)} single-card moves); {searched}")
    if result.verdict is Verdict.IMPOSSIBLE:
        return f"impossible: no winning line exists; {searched}"
    return f"unknown: stopped by the {result.limit}; {searched}"


@contextlib.contextmanager
def _disk_progress(max_disk: float | None, work_dir: str | None,
                   resume: bool) -> Iterator[DiskPlan | None]:
    """The disk plan of ``--max-disk``, with a progress bar on a terminal
    (positions, layer, level, disk) while the search is on disk."""
    if max_disk is None:
        yield None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                   transient=True, disable=not sys.stderr.isatty())
    task = bar.add_task("proof on disk", total=None)

    def show(states: int, layer: int, level: int, disk: int) -> None:
        bar.update(task, description=f"proof on disk: {states:,} positions, layer {layer} "
                                     f"(cards home), level {level}, {disk / 2**30:.2f} GB")

    with bar:
        yield DiskPlan(max_disk, work_dir, resume, show)


@click.command("solve")
@click.argument("game")
@click.argument("path", required=False)
@click.option("--deal", help="a numbered deal instead of a position")
@click.option("--cells", type=int, default=None, help="free cells (0-8; default 4)")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="give up (verdict unknown) after this many seconds")
@click.option("--max-states", type=click.IntRange(min=1), default=3_000_000,
              show_default=True, help="give up after expanding this many positions")
@click.option("--max-memory", type=click.IntRange(min=16), default=4096, show_default=True,
              help="give up before the search holds more than this many MB")
@click.option("--single", is_flag=True, help="list single-card moves (no run moves)")
@click.option("--short", is_flag=True,
              help="look for the line of fewest player moves while time remains "
                   "(--timeout, default 2 s), and prove it shortest where feasible")
@click.option("--exhaustive", is_flag=True,
              help="search every reachable position depth first, each in a compact form "
                   "(native engine): a third of the memory per position, for proofs of "
                   "loss too big for the default search; in Baker's Dozen after a relaxed "
                   "game that proves most lost deals at once")
@click.option("--restarts", is_flag=True,
              help="after the portfolio's first stage, best-first searches begun afresh "
                   "with weights drawn at random on Luby's schedule of lengths, taking "
                   "turns with the main search, to the end of the budget (native engine; "
                   "Baker's Dozen's portfolio ends so already): for deals the portfolio "
                   "leaves unknown at large budgets")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), default=None,
              help="draw the restarts' weights from this seed instead of the library's (1): "
                   "the same seed gives the same verdict and count; another one another "
                   "chance on a deal left unknown (with --restarts, or Baker's Dozen)")
@click.option("--max-disk", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="GB", help="with --exhaustive: once the positions no longer fit "
              "--max-memory, go on with them on disk, using at most GB gigabytes")
@click.option("--work-dir", type=click.Path(file_okay=False), default=None,
              help="with --max-disk: where the positions and checkpoints go (default: a "
                   "new folder in the user cache, removed once the search decides)")
@click.option("--resume", is_flag=True,
              help="with --max-disk and --work-dir: go on from the last checkpoint there")
@ENGINE_OPTION
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
def solve_cmd(game: str, path: str | None, deal: str | None, cells: int | None,
              timeout: float | None, max_states: int, max_memory: int, single: bool,
              short: bool, exhaustive: bool, restarts: bool, seed: int | None,
              max_disk: float | None,
              work_dir: str | None,
              resume: bool, engine: str | None, as_json: bool) -> None:
    """Solve a deal (--deal N) or the position in PATH (- for standard input).

    Prints the verdict — winnable (with a move list in standard notation),
    impossible (the whole reachable space was searched) or unknown (a limit
    stopped the search) — with the positions searched and the time taken.
    """
    board = _position(game, path, deal, cells)
    engine = engine_in_use(engine)
    check_limits(timeout, max_states, max_memory)
    if exhaustive and engine != "native":
        raise BakersError("--exhaustive needs the native engine")
    if restarts and (engine != "native" or exhaustive):
        raise BakersError("--restarts needs the native engine and goes without --exhaustive")
    if (work_dir is not None or resume) and max_disk is None:
        raise BakersError("--work-dir and --resume go with --max-disk")
    if max_disk is not None and not exhaustive:
        raise BakersError("--max-disk goes with --exhaustive")
    with _disk_progress(max_disk, work_dir, resume) as disk:
        result = solve(board, timeout=timeout, max_states=max_states, max_memory_mb=max_memory,
                       engine=engine, lines="short" if short else "fast",
                       search=("exhaustive" if exhaustive else
                               "restarts" if restarts else "portfolio"), disk=disk,
                       seed=seed)
    if as_json:
        out: dict[str, object] = {"game": board.game.name, "cells": board.game.cells}
        if board.deal_number is not None:
            out["deal"] = board.deal_number
        out.update(result.to_json())
        click.echo(json.dumps(out))
        return
    click.echo(_summary(result, short))
    if result.verdict is Verdict.WINNABLE:
        click.echo(" ".join(result.texts(single=single)))


@click.command("hint")
@click.argument("path", default="-")
@click.option("--game", default="freecell", show_default=True, help=GAME_NAMES)
@click.option("--cells", type=int, default=None, help="free cells (0-8; default 4)")
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=1.0,
              show_default=True, help="seconds the solver may take")
@ENGINE_OPTION
@click.option("--json", "as_json", is_flag=True, help="print the hint as JSON")
def hint_cmd(path: str, game: str, cells: int | None, budget: float, engine: str | None,
             as_json: bool) -> None:
    """The next move of a winning line from the position in PATH (- for
    standard input), or "no winning line from here" when it is lost."""
    board = load_board(path, game, cells)
    check_limits(budget, None, None)
    result = hint(board, budget=budget, engine=engine_in_use(engine))
    if as_json:
        click.echo(json.dumps({
            "verdict": result.verdict.value,
            "move": board.move_text(result.move) if result.move else None,
            "message": result.message,
            "engine": engine_in_use(engine),
        }))
        return
    if result.verdict is Verdict.UNKNOWN:
        click.echo(f"unknown: {result.message}")
    else:
        click.echo(result.message)


COMMANDS = [solve_cmd, hint_cmd]
