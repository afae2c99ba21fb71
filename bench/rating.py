"""The difficulty rating over a range of deals: measure, then report.

    python bench/rating.py measure --games freecell,bakers_game,bakers_dozen \
        --deals 1-10000 --out ratings.csv --workers 1
    python bench/rating.py report ratings.csv --svg docs/rating.svg

``measure`` rates every deal with :func:`bakers.solver.study.rate` and
appends one CSV row per deal as soon as it is done (a rerun skips the deals
already there). ``report`` prints, per game, the verdicts, the percentiles
of the score over the winnable deals (where the band cut points come from),
the share in each band under the current cut points, the distribution of
the fewest cells, and draws the score histograms as one SVG.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import os
import statistics
import sys
from collections import Counter

FIELDS = ["game", "deal", "verdict", "fewest_cells", "fewest_proven", "player_moves",
          "states", "score", "rating", "seconds"]


def _rate(game: str, deal: int, budget: float) -> dict[str, object]:
    from bakers.solver.study import rate_deal
    return {k: v for k, v in rate_deal(game, deal, budget).to_json().items() if k in FIELDS}


def measure(games: list[str], first: int, last: int, out: str, workers: int,
            budget: float) -> None:
    done: set[tuple[str, int]] = set()
    if os.path.exists(out):
        with open(out, newline="") as fh:
            done = {(r["game"], int(r["deal"])) for r in csv.DictReader(fh)}
    todo = [(g, d) for g in games for d in range(first, last + 1) if (g, d) not in done]
    new = not os.path.exists(out) or os.path.getsize(out) == 0
    with open(out, "a", newline="") as fh, \
            concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        writer = csv.DictWriter(fh, FIELDS)
        if new:
            writer.writeheader()
        futures = {pool.submit(_rate, g, d, budget): (g, d) for g, d in todo}
        for n, future in enumerate(concurrent.futures.as_completed(futures), 1):
            writer.writerow(future.result())
            if n % 200 == 0:
                fh.flush()
                print(f"{n}/{len(todo)}", file=sys.stderr, flush=True)


def _quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def report(path: str, svg: str | None) -> None:
    from bakers.solver.study import BANDS, band_of
    rows: dict[str, list[dict[str, str]]] = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            rows.setdefault(r["game"], []).append(r)
    for game, rs in sorted(rows.items()):
        verdicts = Counter(r["verdict"] for r in rs)
        won = [r for r in rs if r["verdict"] == "winnable"]
        scores = [float(r["score"]) for r in won]
        print(f"## {game}: {len(rs)} deals, " + ", ".join(f"{k} {v}" for k, v in
                                                         sorted(verdicts.items())))
        if not scores:
            continue
        qs = {q: _quantile(scores, q) for q in (0.1, 0.25, 0.4, 0.5, 0.75, 0.9, 0.93, 0.99)}
        print("score percentiles: " + ", ".join(f"{int(q * 100)}th {v:.2f}"
                                                for q, v in qs.items()))
        bands = Counter(band_of(game, s) for s in scores)
        print("bands: " + ", ".join(f"{b} {bands[b]} ({100 * bands[b] / len(scores):.1f} %)"
                                    for b in BANDS))
        fewest = Counter(r["fewest_cells"] or "-" for r in won)
        print("fewest cells: " + ", ".join(f"{k}: {v}" for k, v in sorted(fewest.items())))
        pm = [int(r["player_moves"]) for r in won]
        st = [int(r["states"]) for r in won]
        print(f"player moves: median {statistics.median(pm)}, min {min(pm)}, max {max(pm)}; "
              f"states: median {statistics.median(st)}, max {max(st)}")
        print(f"rating time: total {sum(float(r['seconds']) for r in rs):.1f} s")
    if svg:
        _plot(rows, svg)


def _plot(rows: dict[str, list[dict[str, str]]], svg: str) -> None:
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    from bakers.solver.study import CUTS
    games = sorted(rows)
    fig, axes = plt.subplots(len(games), 1, figsize=(7, 2.6 * len(games)))
    if len(games) == 1:
        axes = [axes]
    for ax, game in zip(axes, games, strict=True):
        scores = [float(r["score"]) for r in rows[game] if r["verdict"] == "winnable"]
        ax.hist(scores, bins=60, color="#4a6fa5")
        for cut, name in zip(CUTS[game], ("medium", "hard", "expert"), strict=True):
            ax.axvline(cut, color="#b03a2e", linestyle="--", linewidth=1)
            ax.text(cut, ax.get_ylim()[1] * 0.92, f" {name}", color="#b03a2e", fontsize=8)
        ax.set_title(f"{game}: difficulty score of {len(scores):,} winnable deals")
        ax.set_ylabel("deals")
    axes[-1].set_xlabel("score = fewest cells + player moves / 20 + log10(positions) / 2")
    fig.tight_layout()
    fig.savefig(svg, format="svg", metadata={"Date": None})


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--games", default="freecell,bakers_game,bakers_dozen")
    m.add_argument("--deals", default="1-10000")
    m.add_argument("--out", required=True)
    m.add_argument("--workers", type=int, default=1)
    m.add_argument("--budget", type=float, default=5.0)
    r = sub.add_parser("report")
    r.add_argument("path")
    r.add_argument("--svg")
    a = p.parse_args()
    if a.cmd == "measure":
        first, last = (int(x) for x in a.deals.split("-"))
        measure(a.games.split(","), first, last, a.out, a.workers, a.budget)
    else:
        report(a.path, a.svg)


if __name__ == "__main__":
    main()
