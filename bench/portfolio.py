#!/usr/bin/env python3
"""Study of the core's first stage: what each best-first search costs alone,
deal by deal, and what schedules of them would cost.

    python bench/portfolio.py --game freecell --from 1 --to 3000
    python bench/portfolio.py --from 24001 --to 27000 --candidates 20 --cap 20000

Every search of the core is deterministic and keeps its own positions, so a
deal's cost under any schedule of turns between searches follows from what
each search costs alone on that deal. This script measures those costs with
the core (the portfolio's main search, its rival, and ``--candidates`` more
best-first searches with weights drawn from a seeded generator, each stopped
at ``--cap`` positions), then prints, on the same deals:

- the game's portfolio as the core runs it (its own count) beside the same
  schedule simulated from the costs alone (they must agree);
- the best turns for the main search and its rival on a grid;
- the best third search to add after the rival's turns, chosen greedily;
- the oracle: every deal at the cost of its cheapest search, a bound no
  schedule of these searches reaches;
- the costliest deals, with the searches that win them cheapest.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import random
import time
from collections.abc import Sequence

from bakers import Board
from bakers.games import find_game
from bakers.solver.engine import Weights
from bakers.solver.native import Portfolio, Rival, search

NEVER = 1 << 60  # a search stopped at the cap before it won


@dataclasses.dataclass(frozen=True)
class Turns:
    """The first stage's schedule: the rival's ``head`` positions first, then
    ``main`` positions of the main search for every ``rival`` of its own up
    to ``limit``; then, from ``third_at`` positions in all, a third search
    takes ``third`` positions for every ``main`` of the main search up to
    ``third_limit``."""

    head: int
    main: int
    rival: int
    limit: int
    third_at: int = 0
    third: int = 0
    third_limit: int = 0


def cost(main: int, rival: int, third: int, t: Turns) -> int:
    """Positions until the first of the searches wins (or the main search
    ends), each given its cost alone."""
    spent = 0
    used = [0, 0, 0]
    need = [main, rival, third]

    def run(i: int, q: int) -> bool:
        nonlocal spent
        step = min(q, need[i] - used[i])
        used[i] += step
        spent += step
        return used[i] >= need[i]

    if run(1, min(t.head, t.limit)):
        return spent
    while used[1] < t.limit:
        if run(0, t.main) or run(1, min(t.rival, t.limit - used[1])):
            return spent
    if t.third_limit and spent < t.third_at and run(0, t.third_at - spent):
        return spent
    while t.third_limit and used[2] < t.third_limit:
        if run(0, t.main) or run(2, min(t.third, t.third_limit - used[2])):
            return spent
    run(0, need[0])
    return spent


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--game", default="freecell", choices=["freecell"],
                    help="a game whose portfolio has a rival")
    ap.add_argument("--from", dest="first", type=int, default=1)
    ap.add_argument("--to", dest="last", type=int, default=1000)
    ap.add_argument("--cells", type=int, default=4)
    ap.add_argument("--candidates", type=int, default=12, help="more best-first searches")
    ap.add_argument("--cap", type=int, default=20_000, help="positions a candidate may take")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    game = find_game(args.game, cells=args.cells)
    base = Portfolio.for_game(game)
    if base.rival is None:
        raise SystemExit(f"{game.name} has no rival search")
    rng = random.Random(args.seed)
    searches: dict[str, Weights] = {"main": base.weights, "rival": base.rival.weights}
    for i in range(args.candidates):
        searches[f"w{i}"] = Weights(
            blocked=rng.choice([0, 1, 1, 2, 3]), cell=rng.choice([1, 2, 3, 4, 5, 6]),
            home=rng.choice([0, 1, 2, 3, 4]), empty=rng.choice([0, 1, 2, 3, 4, 6]),
            unbuilt=rng.choice([0, 1, 2, 3]), depth=rng.choice([1, 1, 2, 3]),
            need=rng.choice([0, 0, 1, 2]))
    deals = range(args.first, args.last + 1)
    boards = [Board.deal(game, d) for d in deals]
    big = 1 << 40
    t0 = time.perf_counter()
    core = [search(b, base, timeout=None, max_states=None, max_memory_mb=None).states
            for b in boards]
    print(f"{game.name}, deals {args.first}-{args.last}: the portfolio as the core runs it: "
          f"{sum(core):,} positions ({time.perf_counter() - t0:.1f} s)")
    costs: dict[str, list[int]] = {}
    for name, w in searches.items():
        alone = dataclasses.replace(base, first_stage=big,
                                    rival=Rival(w, head=big, main_turn=1, turn=1, limit=big))
        cap = None if name == "main" else args.cap
        out = [search(b, alone, timeout=None, max_states=cap, max_memory_mb=None)
               for b in boards]
        costs[name] = [o.states if o.verdict != "unknown" else NEVER for o in out]
        won = [c for c in costs[name] if c < NEVER]
        print(f"  {name:>5} alone {dataclasses.astuple(w)}: {sum(won):,} positions, "
              f"{len(out) - len(won)} past {args.cap:,}")
    r = base.rival
    now = Turns(r.head, r.main_turn, r.turn, r.limit)

    def total(t: Turns, third: str | None = None) -> int:
        c3 = costs[third] if third else [NEVER] * len(boards)
        rows = zip(costs["main"], costs["rival"], c3, strict=True)
        return sum(cost(m, v, x, t) for m, v, x in rows)

    per_deal = [cost(m, v, NEVER, now) for m, v in zip(costs["main"], costs["rival"], strict=True)]
    simulated = sum(per_deal)
    print(f"simulated from the costs alone: {simulated:,} "
          f"({'agrees' if simulated == sum(core) else 'DIFFERS'})")
    grid = [Turns(h, m, q, lim) for h, m, q, lim in itertools.product(
        (200, 400, 800), (256, 512, 1024), (32, 64, 128), (1000, 2000, 4000))]
    totals = {t: total(t) for t in grid}
    best = min(totals, key=totals.__getitem__)
    t2 = totals[best]
    print(f"best turns on the grid: {best.head}/{best.main}/{best.rival}/{best.limit}: "
          f"{t2:,} ({t2 / simulated:.3f} of now)")
    thirds = [(total(dataclasses.replace(now, third_at=1000, third=q, third_limit=lim), name),
               name, q, lim)
              for name in searches if name not in ("main", "rival")
              for q, lim in ((64, 2000), (128, 4000))]
    t3, name, q, lim = min(thirds)
    print(f"best third search from 1,000 positions: {name} {dataclasses.astuple(searches[name])}"
          f" turns of {q} up to {lim}: {t3:,} ({t3 / simulated:.3f} of now)")
    oracle = sum(min(c[i] for c in costs.values()) for i in range(len(boards)))
    print(f"oracle (each deal at its cheapest search): {oracle:,} "
          f"({oracle / simulated:.3f} of now)")
    order = sorted(range(len(boards)), key=lambda i: -per_deal[i])
    print("costliest deals: deal, positions now, the three cheapest searches")
    for i in order[:10]:
        cheapest = sorted((c[i], n) for n, c in costs.items())[:3]
        print(f"  {deals[i]:>7} {per_deal[i]:>9,}  " + ", ".join(
            f"{n} {c:,}" if c < NEVER else f"{n} -" for c, n in cheapest))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
