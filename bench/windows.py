"""Every window of consecutive deals: bakers' survey against fc-solve's range solver.

    python bench/windows.py --from 1 --to 60000 --window 12000
    python bench/windows.py --game bakers_game --from 1 --to 32000 --window 8000

Runs ``bakers survey --workers 1`` and ``freecell-solver-range-parallel-solve``
(``-l lg`` for FreeCell, ``-g bakers_game -l cn`` for Baker's Game) once each
over the whole span (4 cells), takes each
program's time on every deal (bakers' CSV; fc-solve's stamps between boards),
and estimates what each program would take on every window of ``--window``
consecutive deals inside the span: the window's deal times, plus for bakers
its start-up (the wall of a one-deal survey) and its cost per row outside the
core (the rest of its wall, spread evenly over the deals). Prints the worst
and the best windows by the ratio fc-solve / bakers, and checks the estimate
against real runs of the span's first and worst windows.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from solver import FCS_ARGS, bakers_survey, compile_package, fcs_range, repeated

from bakers.solver import native


def startup(game: str) -> float:
    """The wall of a one-deal survey: bakers' start-up and exit."""
    best = float("inf")
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "bakers", "survey", game, "1", "1",
                            "--workers", "1", "--out", os.path.join(tmp, "s.csv"),
                            "--no-progress"], check=True, capture_output=True)
            best = min(best, time.perf_counter() - start)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=sorted(FCS_ARGS), default="freecell")
    ap.add_argument("--from", dest="first", type=int, default=1)
    ap.add_argument("--to", dest="last", type=int, default=60_000)
    ap.add_argument("--window", type=int, default=12_000)
    ap.add_argument("--check", type=int, default=3,
                    help="rounds of the real runs that check the estimate (0: none)")
    args = ap.parse_args(argv)
    n = args.last - args.first + 1
    w = args.window
    if w < 1 or w > n:
        ap.error("the window must fit in the span")
    if not native.AVAILABLE:
        raise SystemExit(f"the native core is not built: {native.IMPORT_ERROR}")
    compile_package()
    game = args.game
    boot = startup(game)
    ours = bakers_survey(game, args.first, args.last, 4, "native", None, 3_000_000)
    theirs = fcs_range(game, args.first, args.last, 4)
    if len(ours.per_deal) != n or len(theirs.per_deal) != n:
        raise SystemExit("a program did not report every deal")
    per_row = max(0.0, ours.wall - boot - sum(ours.per_deal)) / n
    po = list(itertools.accumulate(ours.per_deal, initial=0.0))
    pt = list(itertools.accumulate(theirs.per_deal, initial=0.0))
    est = []
    for i in range(n - w + 1):
        b = po[i + w] - po[i] + boot + per_row * w
        f = pt[i + w] - pt[i]
        est.append((f / b, args.first + i, b, f))
    print(f"{game}, 4 cells, deals {args.first}-{args.last}: bakers {ours.wall:.2f} s "
          f"(start-up {boot:.2f} s, {per_row * 1e6:.1f} us a deal outside the core), "
          f"fc-solve {' '.join(FCS_ARGS[game])} {theirs.wall:.2f} s; verdicts agree on "
          f"{sum(1 for d, v in theirs.verdicts.items() if ours.verdicts.get(d) == v)}/{n}")
    ratios = sorted(e[0] for e in est)
    print(f"{len(est)} windows of {w:,} deals, fc-solve / bakers estimated: "
          f"worst {ratios[0]:.2f}, median {ratios[len(ratios) // 2]:.2f}, "
          f"best {ratios[-1]:.2f}; windows where bakers is slower: "
          f"{sum(1 for r in ratios if r < 1)}")
    worst = min(est)
    print(f"worst window: deals {worst[1]}-{worst[1] + w - 1}, "
          f"bakers {worst[2]:.2f} s, fc-solve {worst[3]:.2f} s (estimated)")
    if args.check:
        for first in sorted({args.first, worst[1]}):
            last = first + w - 1
            b, f = repeated([
                functools.partial(bakers_survey, game, first, last, 4, "native", None,
                                  3_000_000),
                functools.partial(fcs_range, game, first, last, 4)], args.check)
            print(f"deals {first}-{last} run {args.check} times: bakers {b.wall:.2f} s, "
                  f"fc-solve {f.wall:.2f} s, ratio {f.wall / b.wall:.2f} "
                  f"(estimated {est[first - args.first][0]:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
