#!/usr/bin/env python3
"""The cost model of a census of all FreeCell Pro deals 1-8,589,934,591.

Samples the whole range stratified: it is cut into ``--strata`` equal
strata and from each, ``--runs`` runs of ``--run`` consecutive deals start at
random (seeded) points — consecutive deal numbers are independent shuffles,
and a run goes to the core in one batch, as a census task does. Each deal is
decided at the census's first budget (1 M positions) and the unknown ones
again at the retry budget (30 M). Prints per stratum and in all: deals per
second per worker, positions per deal, the share impossible and the share
that needs the retry tier; then the projection for the full range.

    python bench/census_plan.py --cells 4
    python bench/census_plan.py --cells 3 --strata 64 --runs 2 --run 1000
"""

from __future__ import annotations

import argparse
import random
import time

from bakers.games import find_game
from bakers.solver import decide_deal, decide_deals

LAST = 8_589_934_591
SPLIT = 2**31  # the dealing differs above it


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", type=int, default=4)
    ap.add_argument("--strata", type=int, default=64)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--run", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    game = find_game("freecell").with_cells(args.cells)
    rng = random.Random(args.seed)
    width = LAST // args.strata
    total = {"deals": 0, "seconds": 0.0, "positions": 0, "impossible": 0, "retry": 0,
             "retry_seconds": 0.0, "unknown": 0}
    halves = {False: [0, 0.0], True: [0, 0.0]}  # above 2^31: deals, seconds
    print(f"FreeCell, {args.cells} cells: {args.strata} strata x {args.runs} runs x "
          f"{args.run} deals, seed {args.seed}")
    for s in range(args.strata):
        lo = 1 + s * width
        for _ in range(args.runs):
            first = rng.randrange(lo, lo + width - args.run)
            start = time.perf_counter()
            found = decide_deals(game, first, args.run, max_states=1_000_000)
            spent = time.perf_counter() - start
            total["deals"] += args.run
            total["seconds"] += spent
            halves[first > SPLIT][0] += args.run
            halves[first > SPLIT][1] += spent
            for k, d in enumerate(found):
                total["positions"] += d.states
                if d.verdict.value == "impossible":
                    total["impossible"] += 1
                elif d.verdict.value == "unknown":
                    total["retry"] += 1
                    t = time.perf_counter()
                    again = decide_deal(game, first + k, max_states=30_000_000)
                    total["retry_seconds"] += time.perf_counter() - t
                    total["unknown"] += again.verdict.value == "unknown"
    n = total["deals"]
    rate = n / total["seconds"]
    per_deal = (total["seconds"] + total["retry_seconds"]) / n
    cpu_hours = per_deal * LAST / 3600
    print(f"deals {n:,}: {rate:,.0f} deals/s per worker at the first budget; "
          f"{total['positions'] / n:,.0f} positions a deal")
    for above, (d, sec) in halves.items():
        if d:
            print(f"  deals {'above' if above else 'up to'} 2^31: {d / sec:,.0f} deals/s")
    print(f"impossible {total['impossible']:,} ({total['impossible'] / n:.4%}); retry tier "
          f"{total['retry']:,} ({total['retry'] / n:.4%}, {total['retry_seconds']:.1f} s); "
          f"still unknown after it {total['unknown']:,}")
    print(f"projection for 1-{LAST:,}: {cpu_hours:,.0f} CPU-hours; "
          f"{cpu_hours / 100:,.1f} h on 100 workers, {cpu_hours / 1000 * 60:,.0f} min on 1,000; "
          f"impossible about {total['impossible'] / n * LAST:,.0f}")


if __name__ == "__main__":
    main()
