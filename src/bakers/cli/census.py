"""``bakers census``: every deal of a huge range decided, kept as ranges
(the logic lives in ``bakers.census``)."""

from __future__ import annotations

import json
import os

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..census import TASK_DEALS, Plan, read, run
from ..games import find_game
from ..verdicts import Limits

SHOWN = 40  # exceptional deals the text report lists


@click.group("census")
def census() -> None:
    """Every deal of a range decided, kept as ranges done and exceptional deals."""


def _deals(text: str) -> tuple[int, int]:
    from ..atlas.plan import parse_deals

    return parse_deals(text)


@census.command("run")
@click.argument("game")
@click.option("--cells", type=click.IntRange(0, 8), default=None,
              help="free cells (default: the game's usual count)")
@click.option("--deals", "deals_text", required=True, help="a range of deals, A-B")
@click.option("--out", required=True, help="the census file (JSON lines), resumed if it exists")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="worker processes (default: one per CPU)")
@click.option("--max-states", type=click.IntRange(min=1), default=1_000_000, show_default=True,
              help="positions per deal in the first pass")
@click.option("--retry-max-states", type=click.IntRange(min=0), default=30_000_000,
              show_default=True, help="positions per deal for what the first pass left "
              "unknown (0: no retry)")
@click.option("--proof-max-states", type=click.IntRange(min=0), default=0, show_default=True,
              help="positions per deal for the exhaustive proof of what is still unknown "
                   "(0: no proof tier)")
@click.option("--proof-disk", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="GB", help="let a proof spill to disk, up to GB gigabytes")
@click.option("--max-memory", type=click.IntRange(min=16), default=4096, show_default=True,
              help="MB per solve")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="decide the tasks on this Dask scheduler's workers (pip install "
                   "'bakers[atlas]'); the later tiers run here")
@click.option("--task-deals", type=click.IntRange(1, 1_000_000), default=TASK_DEALS,
              show_default=True, help="consecutive deals a task decides (one message each "
              "way; a lost worker costs at most its tasks)")
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
def run_cmd(game: str, cells: int | None, deals_text: str, out: str, workers: int | None,
            max_states: int, retry_max_states: int, proof_max_states: int,
            proof_disk: float | None, max_memory: int, scheduler: str | None,
            task_deals: int, as_json: bool) -> None:
    """Decide every deal of --deals of GAME into the census file --out: the
    same command resumes a stopped run."""
    g = find_game(game)
    if cells is not None:
        g = g.with_cells(cells)
    first, last = _deals(deals_text)
    plan = Plan(g, first, last, workers=workers or os.cpu_count() or 1,
                limits=Limits(max_states=max_states, max_memory_mb=max_memory),
                retry=(Limits(max_states=retry_max_states, max_memory_mb=max_memory)
                       if retry_max_states else None),
                proof=(Limits(max_states=proof_max_states, max_memory_mb=max_memory,
                              search="exhaustive") if proof_max_states else None),
                proof_disk_gb=proof_disk, task_deals=task_deals, scheduler=scheduler)
    err = Console(stderr=True)
    bar = Progress(TextColumn(f"{g.title}, {g.cells} cells"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=err, transient=True,
                   disable=not err.is_terminal)
    with bar:
        task = bar.add_task("census", total=last - first + 1)
        result = run(out, plan, progress=lambda n: bar.update(task, completed=n))
    _print(result.report(), as_json)


@census.command("report")
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
def report_cmd(path: str, as_json: bool) -> None:
    """What the census file PATH holds: ranges done, counts, exceptional deals."""
    _print(read(path).report(), as_json)


def _print(report: dict[str, object], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(report))
        return
    counts = report["counts"]
    assert isinstance(counts, dict)
    ranges = report["ranges"]
    assert isinstance(ranges, list)
    click.echo(f"{report['game']}, {report['cells']} cells: {report['deals']:,} deals in "
               f"{', '.join(f'{a:,}-{b:,}' for a, b in ranges)}")
    click.echo("  " + ", ".join(f"{v} {n:,}" for v, n in counts.items()))
    for kind in ("impossible", "unknown"):
        deals = report[kind]
        assert isinstance(deals, list)
        shown = " ".join(str(d) for d in deals[:SHOWN]) or "none"
        more = f" … and {len(deals) - SHOWN:,} more (--json lists every one)" \
            if len(deals) > SHOWN else ""
        click.echo(f"  {kind}: {shown}{more}")


COMMANDS = [census]
