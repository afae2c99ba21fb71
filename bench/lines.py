#!/usr/bin/env python3
"""Benchmark: how long are the lines? Player moves of the fast and the short
searches, and (FreeCell) of the best published near-optimal solutions.

A player move is a move that does not go to a foundation, a run moved at once
counting one (foundation moves are free, as under maximum autoplay); in
Baker's Dozen, any move of a card between columns.

    python bench/lines.py                                # all games, deals 1-100, 2 s a deal
    python bench/lines.py --game freecell --deals 1-1000 --seconds 2

Prints, per game: deals solved, mean and median player moves of each search,
the share of short lines proven shortest, the time taken, and for FreeCell
the reference table's mean and median on the same deals (from
tests/data/freecell_near_optimal_moves_1-1000.tsv) with the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bakers import Board
from bakers.solver import Verdict, solve

GAMES = ("bakers_game", "freecell", "bakers_dozen")
REFERENCE = (Path(__file__).resolve().parents[1] / "tests" / "data"
             / "freecell_near_optimal_moves_1-1000.tsv")


def reference() -> dict[int, int]:
    rows = REFERENCE.read_text().splitlines()[1:]
    return {int(d): int(m) for d, m in (row.split("\t") for row in rows if row.strip())}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--game", default="all", choices=["all", *GAMES])
    ap.add_argument("--deals", default="1-100", help="a range FIRST-LAST")
    ap.add_argument("--cells", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=2.0, help="short search per deal")
    args = ap.parse_args(argv)
    first, last = (int(x) for x in args.deals.split("-"))
    games = GAMES if args.game == "all" else (args.game,)
    table = Table(title=f"player moves, deals {first}-{last}, short search "
                        f"{args.seconds:g} s a deal, one worker")
    for name in ("game", "winnable", "fast mean", "fast median", "short mean", "short median",
                 "proven shortest", "reference mean", "short / reference", "time fast",
                 "time short"):
        table.add_column(name, justify="left" if name == "game" else "right")
    ref = reference()
    with Progress(console=Console(stderr=True), transient=True) as progress:
        for game in games:
            task = progress.add_task(game, total=last - first + 1)
            fast: dict[int, int] = {}
            short: dict[int, int] = {}
            proven = 0
            t_fast = t_short = 0.0
            for deal in range(first, last + 1):
                board = Board.deal(game, deal,
                                   cells=None if game == "bakers_dozen" else args.cells)
                start = time.perf_counter()
                a = solve(board, texts=False)
                t_fast += time.perf_counter() - start
                if a.verdict is Verdict.WINNABLE and a.player_moves is not None:
                    fast[deal] = a.player_moves
                    start = time.perf_counter()
                    b = solve(board, texts=False, lines="short", short_seconds=args.seconds)
                    t_short += time.perf_counter() - start
                    if b.player_moves is not None:
                        short[deal] = b.player_moves
                        proven += b.optimal
                progress.advance(task)
            on_ref = [d for d in short if game == "freecell" and args.cells == 4 and d in ref]
            ref_mean = statistics.mean(ref[d] for d in on_ref) if on_ref else None
            short_on_ref = statistics.mean(short[d] for d in on_ref) if on_ref else None
            table.add_row(
                game, f"{len(fast)}",
                f"{statistics.mean(fast.values()):.1f}" if fast else "-",
                f"{statistics.median(fast.values()):g}" if fast else "-",
                f"{statistics.mean(short.values()):.1f}" if short else "-",
                f"{statistics.median(short.values()):g}" if short else "-",
                f"{proven}/{len(short)} ({proven / len(short):.0%})" if short else "-",
                "-" if ref_mean is None else f"{ref_mean:.1f}",
                "-" if ref_mean is None or short_on_ref is None
                else f"{short_on_ref / ref_mean:.3f}",
                f"{t_fast:.1f} s", f"{t_short:.1f} s")
    Console(highlight=False).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
