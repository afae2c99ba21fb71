"""``bakers atlas run|report|export``: the solvability atlas from the command
line. The logic lives in ``bakers.atlas``."""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Table

from ..atlas import AtlasError, RunOptions, open_store
from ..atlas.plan import game_cells
from ..atlas.run import Tier, dask_executor, default_workers, run_atlas
from ..atlas.store import ResultRow
from ..games import GAMES


def _label(game: str, cells: int) -> str:
    g = GAMES[game]
    if not g.max_cells:
        return g.title
    return f"{g.title}, {cells} cell" if cells == 1 else f"{g.title}, {cells} cells"


@click.group("atlas")
def atlas() -> None:
    """Solvability tables for every game and cell count: run, report, export."""


@atlas.command("run")
@click.option("--games", default="all", show_default=True,
              help="'all' or a comma-separated list of games")
@click.option("--cells", "cells_text", default="0-8", show_default=True,
              help="free cells: a range or a list (Baker's Dozen has none)")
@click.option("--deals", "deals_text", default="1-32000", show_default=True,
              help="a range of deal numbers")
@click.option("--out", default="atlas.sqlite", show_default=True,
              help="the atlas file (SQLite), resumed if it exists")
@click.option("--scheduler", default=None,
              help="address of a Dask scheduler (tcp://host:8786); default: a local cluster")
@click.option("--workers", type=int, default=None,
              help="local worker processes (default: one per CPU)")
@click.option("--chunk", type=int, default=None,
              help="deals per task (default: as many as take about 2 s of solver time, "
                   "at most 2,000, and few enough for 8 tasks per worker)")
@click.option("--max-states", type=int, default=1_000_000, show_default=True,
              help="positions per solve in the first pass")
@click.option("--retry-max-states", type=int, default=30_000_000, show_default=True,
              help="positions per solve when retrying unknowns (0: no retry pass)")
@click.option("--retry-search", type=click.Choice(["portfolio", "restarts"]),
              default="portfolio", show_default=True,
              help="the retry pass's search: the portfolio, or its first stage then "
                   "restarts on Luby's schedule (bakers solve --restarts)")
@click.option("--retry-seed", type=int, default=None,
              help="the retry pass's restarts draw their weights from this seed instead of "
                   "the library's (1): a retry with another seed is another chance on a "
                   "deal still unknown (with --retry-search restarts, or Baker's Dozen)")
@click.option("--max-memory", type=int, default=4096, show_default=True,
              help="MB per solve before giving up with 'unknown'")
@click.option("--proof-max-states", type=int, default=2_000_000_000, show_default=True,
              help="positions per solve in the proof pass: what the retry left unknown, "
                   "searched exhaustively in a compact form (0: no proof pass)")
@click.option("--proof-memory", type=int, default=None,
              help="MB per solve in the proof pass (default: 3/4 of the machine's "
                   "memory shared by the local workers; 8,192 on a Dask cluster)")
@click.option("--proof-disk", type=float, default=None, metavar="GB",
              help="in the proof pass, a proof whose positions outgrow --proof-memory goes on "
                   "on disk, up to GB gigabytes, checkpointed in the user cache so that the "
                   "next run resumes it (default: memory only)")
@click.option("--timeout", type=float, default=None,
              help="seconds per solve (default: none; a timeout makes verdicts depend on speed)")
@click.option("--retry-unknown", is_flag=True,
              help="retry the unknowns earlier runs left, even at the same budget")
@click.option("--engine", type=click.Choice(["native", "python"]), default=None,
              help="solver engine (default: the solver's default)")
@click.option("--fallback-engine", type=click.Choice(["native", "python", "none"]),
              default=None, help="engine for what is still unknown after the retry "
              "(default: the native engine after the Python one, where it is built; "
              "none after the native engine)")
@click.option("--json", "as_json", is_flag=True, help="print the run's summary as JSON")
@click.option("--no-progress", is_flag=True, help="no progress bars")
def run_cmd(out: str, scheduler: str | None, as_json: bool, no_progress: bool,
            **options: Any) -> None:
    """Solve every game × cells × deal asked for that the atlas file lacks.

    For FreeCell and Baker's Game each deal is solved at as few cell counts
    as monotonicity allows (a win with k cells is a win with k+1); deals
    left unknown are retried with the larger budget. Stop it at any time:
    the same command resumes.
    """
    asked = RunOptions(**options)
    request = asked.request(on_cluster=scheduler is not None)
    names, cells, first, last = request.games, request.cells, request.first, request.last
    workers = asked.workers

    err = Console(stderr=True)
    progress = Progress(TextColumn("{task.description:<24}"), BarColumn(),
                        MofNCompleteColumn(), TextColumn("{task.fields[counts]}"),
                        console=err, disable=no_progress)
    tasks: dict[tuple[str, int], TaskID] = {}
    counts: dict[tuple[str, int], dict[str, int]] = {}
    last_refresh = 0.0
    with open_store(out) as store:
        def show(force: bool = False) -> None:
            nonlocal last_refresh
            now = time.monotonic()
            if no_progress or (not force and now - last_refresh < 0.5):
                return
            last_refresh = now
            for key, task in tasks.items():
                c = counts[key]
                progress.update(task, completed=sum(c.values()),
                                counts=f"[green]{c['winnable']} won[/] [red]{c['impossible']} "
                                       f"lost[/] [yellow]{c['unknown']} unknown[/]")

        def recount() -> None:
            """The bars from the file (counting a table cell's rows takes
            longer the more it has: only at the start and the end)."""
            if no_progress:
                return
            for game, k in tasks:
                counts[game, k] = store.count_done(game, k, first, last)
            show(force=True)

        def on_rows(rows: list[ResultRow]) -> None:
            """The bars from the rows each batch wrote."""
            if no_progress:
                return
            for row in rows:
                c = counts.get((row.game, row.cells))
                if c is None or not first <= row.deal <= last:
                    continue
                c[row.verdict] += 1
                if row.previous is not None:
                    c[row.previous] -= 1
            show()

        def on_tier(number: int, tier: Tier) -> None:
            if number and not no_progress:
                states = tier.limits.max_states
                how = ("exhaustive search, " if tier.limits.search == "exhaustive" else "")
                err.print(f"retry pass: unknowns solved again on the {tier.engine} engine "
                          f"({how}max states {'none' if states is None else f'{states:,}'}, "
                          f"{tier.limits.max_memory_mb:,} MB)", style="dim")

        try:
            with dask_executor(scheduler, workers or default_workers()) as executor, progress:
                for game in names:
                    for k in game_cells(game, cells):
                        tasks[game, k] = progress.add_task(
                            _label(game, k), total=last - first + 1, counts="")
                recount()
                summary = run_atlas(store, request, executor, on_rows=on_rows, on_tier=on_tier)
                recount()
        except KeyboardInterrupt:
            click.echo(f"stopped: finished chunks are in {out}; run the same command to "
                       "resume", err=True)
            raise
        table_rows = [(game, k, store.count_done(game, k, first, last))
                      for game in names for k in game_cells(game, cells)]
    if as_json:
        click.echo(json.dumps({
            "out": out, "solves": summary.solves, "solves_per_tier": summary.per_tier,
            "solve_seconds": round(summary.solve_seconds, 3),
            "wall_seconds": round(summary.wall_seconds, 3), "chunks": summary.chunks,
            "unknown": summary.unknown_left,
            "tables": [{"game": g, "cells": k, **c} for g, k, c in table_rows]}, indent=2))
        return
    table = Table(title=f"deals {first:,}–{last:,}", title_justify="left")
    for name in ("table cell", "winnable", "impossible", "unknown", "winnable share"):
        table.add_column(name, justify="left" if name == "table cell" else "right")
    for game, k, c in table_rows:
        resolved = c["winnable"] + c["impossible"]
        share = f"{100 * c['winnable'] / resolved:.2f}%" if resolved else "–"
        table.add_row(_label(game, k), f"{c['winnable']:,}", f"{c['impossible']:,}",
                      f"{c['unknown']:,}", share)
    console = Console(highlight=False)
    console.print(table)
    console.print(f"{summary.solves:,} solves ({summary.per_tier}), "
                  f"{summary.solve_seconds:,.1f} s of solver time in "
                  f"{summary.wall_seconds:,.1f} s; {summary.unknown_left:,} unknown; "
                  f"atlas in {out}", style="dim")


@atlas.command("report")
@click.argument("path")
@click.option("--html", "html_out", default=None, help="write the HTML report here")
@click.option("--markdown", "md_out", default=None,
              help="write the Markdown report here ('-': standard output)")
@click.option("--hardest", type=int, default=20, show_default=True,
              help="how many of the hardest deals to list")
def report_cmd(path: str, html_out: str | None, md_out: str | None, hardest: int) -> None:
    """Tables, intervals, comparisons and plots from the atlas file PATH
    (Markdown on standard output when neither --html nor --markdown is given)."""
    from ..atlas.report import gather, html_page, markdown

    if hardest < 0:
        raise AtlasError("--hardest must be at least 0")
    with open_store(path, create=False) as store:
        figures = gather(store, hardest=hardest)
    if not figures.cells:
        raise AtlasError(f"{path}: the atlas has no results yet")
    if html_out:
        Path(html_out).write_text(html_page(figures), encoding="utf-8")
    if md_out or not html_out:
        text = markdown(figures)
        if md_out and md_out != "-":
            Path(md_out).write_text(text, encoding="utf-8")
        else:
            click.echo(text)


@atlas.command("export")
@click.argument("path")
@click.option("--out", default="-", show_default=True, help="CSV file ('-': standard output)")
def export_cmd(path: str, out: str) -> None:
    """Every row of the atlas file PATH as CSV:
    game,cells,deal,verdict,how,states,seconds."""
    from ..atlas.report import export_rows

    with open_store(path, create=False) as store:
        if out == "-":
            csv.writer(sys.stdout, lineterminator="\n").writerows(export_rows(store))
            return
        with open(out, "w", encoding="utf-8", newline="") as fh:
            csv.writer(fh, lineterminator="\n").writerows(export_rows(store))


@atlas.command("merge")
@click.argument("path")
@click.argument("others", nargs=-1, required=True)
def merge_cmd(path: str, others: tuple[str, ...]) -> None:
    """Take the attempts of the atlas files OTHERS (run elsewhere) into the
    atlas file PATH, and make its rows again from all of them."""
    for other in others:
        with open_store(other, create=False) as theirs, open_store(path) as store:
            added, rows = store.merge(theirs)
        click.echo(f"{other}: {added:,} attempts taken in, {rows:,} rows written")


COMMANDS = [atlas]
