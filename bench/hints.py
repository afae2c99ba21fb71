#!/usr/bin/env python3
"""Benchmark: hint latency on positions reached in play.

A simulated player plays each deal: mostly the solver's next move, now and
then a random legal move (as players stray), and asks for a hint at every
position, as the table's Hint button does (``bakers.solver.hint`` with the
table's budget). Prints, per game and engine, the hints asked, their verdicts
and the 50th, 90th, 99th percentile and worst latency.

    python bench/hints.py                       # all games, deals 1-20, native engine
    python bench/hints.py --game bakers_dozen --deals 1-50 --engines native,python
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from bakers import Board
from bakers.solver import Verdict, hint

GAMES = ("bakers_game", "freecell", "bakers_dozen")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def play(game: str, deal: int, engine: str, budget: float, stray: float, rng: random.Random,
         max_moves: int) -> tuple[list[float], Counter[str]]:
    board = Board.deal(game, deal)
    times: list[float] = []
    verdicts: Counter[str] = Counter()
    for _ in range(max_moves):
        if board.is_won():
            break
        start = time.perf_counter()
        answer = hint(board, budget=budget, engine=engine)
        times.append(time.perf_counter() - start)
        verdicts[answer.verdict.value] += 1
        moves = list(board.legal_moves)
        if not moves:
            break
        if answer.verdict is Verdict.WINNABLE and answer.move and rng.random() > stray:
            board.push(answer.move)
        else:
            board.push(rng.choice(moves))
    return times, verdicts


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--game", default="all", choices=["all", *GAMES])
    ap.add_argument("--deals", default="1-20", help="a range FIRST-LAST")
    ap.add_argument("--engines", default="native")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds a hint may take")
    ap.add_argument("--stray", type=float, default=0.2, help="share of random moves")
    ap.add_argument("--max-moves", type=int, default=150)
    args = ap.parse_args(argv)
    first, last = (int(x) for x in args.deals.split("-"))
    games = GAMES if args.game == "all" else (args.game,)
    table = Table(title=f"hints on positions reached in play, deals {first}-{last}, "
                        f"budget {args.budget:g} s")
    for name in ("game", "engine", "hints", "winnable/impossible/unknown", "p50 ms", "p90 ms",
                 "p99 ms", "worst ms", "under 50 ms"):
        table.add_column(name, justify="left" if name in ("game", "engine") else "right")
    for game in games:
        for engine in (e.strip() for e in args.engines.split(",") if e.strip()):
            rng = random.Random(f"{game}/{engine}")
            times: list[float] = []
            verdicts: Counter[str] = Counter()
            for deal in range(first, last + 1):
                t, v = play(game, deal, engine, args.budget, args.stray, rng, args.max_moves)
                times += t
                verdicts += v
            under = sum(1 for t in times if t < 0.05) / len(times)
            table.add_row(game, engine, f"{len(times):,}",
                          f"{verdicts['winnable']}/{verdicts['impossible']}/{verdicts['unknown']}",
                          f"{statistics.median(times) * 1e3:.1f}",
                          f"{percentile(times, 0.9) * 1e3:.1f}",
                          f"{percentile(times, 0.99) * 1e3:.1f}", f"{max(times) * 1e3:.1f}",
                          f"{under:.1%}")
    Console(highlight=False).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
