"""``bakers survey``: verdicts for a range of deals, with a progress bar, a
resumable CSV and a summary table. The logic lives in ``bakers.survey``."""

from __future__ import annotations

import json
import os

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ..deals import parse_deal_number
from ..games import GAMES, find_game
from ..solver import ENGINES
from ..survey import DealResult, Summary, SurveyError, check_range, survey
from ..verdicts import Limits
from .solver import engine_in_use


def _fmt_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:,.2f} s"


def _label(game: str, cells: int) -> str:
    g = find_game(game)
    return f"{g.title}, {cells} cells" if g.max_cells else g.title


def summary_table(s: Summary) -> Table:
    """The end-of-survey table."""
    table = Table(title=f"{_label(s.game, s.cells)}, deals {s.first:,}–{s.last:,}",
                  show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_row("deals", f"{s.deals:,}" + (f" ({s.missing:,} not done)" if s.missing else ""))
    for verdict in ("winnable", "impossible", "unknown"):
        n = s.counts[verdict]
        share = f"  ({100 * n / s.deals:.1f}%)" if s.deals else ""
        table.add_row(verdict, f"{n:,}{share}")
    if s.winnable_share is not None and s.winnable_ci95 is not None:
        lo, hi = s.winnable_ci95
        table.add_row("winnable of resolved",
                      f"{100 * s.winnable_share:.2f}%  (95% CI {100 * lo:.2f}–{100 * hi:.2f}%)")
    table.add_row("median time", _fmt_seconds(s.median_seconds))
    if s.worst_deal is not None:
        table.add_row("worst time", f"{_fmt_seconds(s.worst_seconds)}  (deal {s.worst_deal})")
    table.add_row("total time", _fmt_seconds(s.total_seconds))
    table.add_row("total states", f"{s.total_states:,}")
    if s.median_moves is not None:
        table.add_row("median solution",
                      f"{s.median_moves:g} moves ({s.median_single_moves:g} single-card)")
    table.add_row("solved now / from file", f"{s.solved_now:,} / {s.from_file:,}")
    return table


@click.command("survey")
@click.argument("game")
@click.argument("first")
@click.argument("last")
@click.option("--cells", type=int, default=None,
              help="free cells (default: the game's usual count)")
@click.option("--workers", type=int, default=None,
              help="worker processes (default: one per CPU)")
@click.option("--out", "out", default=None,
              help="CSV file, appended to and resumed [default: GAME_Ncells.csv]")
@click.option("--timeout", type=float, default=None, help="seconds per deal (default: none)")
@click.option("--max-states", type=int, default=3_000_000, show_default=True,
              help="positions per deal before giving up with 'unknown'")
@click.option("--max-memory", "max_memory", type=int, default=4096, show_default=True,
              help="MB per worker before giving up with 'unknown'")
@click.option("--engine", type=click.Choice(ENGINES), default=None,
              help="the search engine [default: native where built]")
@click.option("--check", type=click.Choice(("core", "rules")), default=None,
              help="what replays each winning line: the native core's line checker or "
                   "the rules engine [default: core with the native engine]")
@click.option("--short", is_flag=True,
              help="look for each deal's line of fewest player moves (native engine) and "
                   "record its player moves")
@click.option("--short-seconds", type=float, default=2.0, show_default=True,
              help="with --short: seconds of short-line search per deal")
@click.option("--retry-unknown", is_flag=True, help="solve again the deals the file has as unknown")
@click.option("--json", "as_json", is_flag=True, help="print the summary as JSON")
@click.option("--no-progress", is_flag=True, help="no progress bar")
def survey_cmd(game: str, first: str, last: str, cells: int | None, workers: int | None,
               out: str | None, timeout: float | None, max_states: int | None,
               max_memory: int | None, engine: str | None, check: str | None, short: bool,
               short_seconds: float, retry_unknown: bool, as_json: bool,
               no_progress: bool) -> None:
    """Solve deals FIRST to LAST of GAME and summarize the verdicts.

    GAME is one of: {games}. Deals run in parallel worker processes; each
    finished deal is written to the CSV at once, and running the same
    command again skips the deals the file already has.
    """
    g = find_game(game, cells)
    lo, hi = parse_deal_number(first), parse_deal_number(last)
    check_range(lo, hi)
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise SurveyError("--workers must be at least 1")
    path = out or f"{g.name}_{g.cells}cells.csv"
    limits = Limits.asked(timeout=timeout, max_states=max_states, max_memory_mb=max_memory,
                          engine=engine_in_use(engine), check=check,
                          short_seconds=short_seconds if short else None)

    err = Console(stderr=True)
    counts = {"winnable": 0, "impossible": 0, "unknown": 0}
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TimeRemainingColumn(),
        console=err, disable=no_progress)
    task: TaskID | None = None
    label = _label(g.name, g.cells)

    def counts_text() -> str:
        return (f"[green]{counts['winnable']} won[/] [red]{counts['impossible']} lost[/] "
                f"[yellow]{counts['unknown']} unknown[/]")

    def on_start(total: int, done: int) -> None:
        nonlocal task
        task = progress.add_task(label, total=total, completed=done, counts=counts_text())

    def on_result(result: DealResult) -> None:
        counts[result.verdict] += 1
        if task is not None and not no_progress:
            progress.update(task, advance=1, counts=counts_text())

    try:
        with progress:
            summary = survey(g, lo, hi, path, workers=workers, limits=limits,
                             retry_unknown=retry_unknown, on_start=on_start,
                             on_result=on_result)
    except KeyboardInterrupt:
        click.echo(f"stopped: finished deals are in {path}; run the same command to resume",
                   err=True)
        raise
    if as_json:
        click.echo(json.dumps({**summary.to_json(), "engine": engine}, indent=2))
    else:
        out_console = Console(highlight=False)
        out_console.print(summary_table(summary))
        out_console.print(f"rows in {path}", style="dim")


survey_cmd.help = (survey_cmd.help or "").replace("{games}", ", ".join(GAMES))

COMMANDS = [survey_cmd]
