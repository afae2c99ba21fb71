#!/usr/bin/env python3
"""Check that the solver's behaviour is unchanged: verdicts, positions and lines.

For deals FROM..TO of each game (Baker's Game with 4 and 3 cells, FreeCell,
Baker's Dozen) it records, on the native engine:

* ``solve`` (the portfolio, lines replayed through the rules engine): the
  verdict, the count of positions, the line and its single-card form as text;
* ``decide_deals`` (what a survey runs: one call to the core for a run of
  deals, lines checked by the core's line checker): verdict, positions and
  the sizes of each line;
* ``solve(lines="short")`` on the first SHORT deals, bounded by positions
  rather than time so that it is deterministic: the short line and its bound.

``--write FILE`` stores the record (one JSON object per deal and kind, a few
MB); ``--against FILE`` records again and compares row by row, printing
every difference and a summary, with exit status 1 when anything differs::

    python bench/identity.py --write /tmp/before.jsonl
    ... change the code, rebuild ...
    python bench/identity.py --against /tmp/before.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator

from bakers.board import Board
from bakers.games import find_game
from bakers.solver import api

CONFIGS: tuple[tuple[str, int | None], ...] = (
    ("bakers_game", None), ("bakers_game", 3), ("freecell", None), ("bakers_dozen", None))
SHORT_STATES = 300_000  # the short deals' bound on positions (not time: deterministic)


def rows(first: int, last: int, short: int) -> Iterator[dict[str, object]]:
    for name, cells in CONFIGS:
        game = find_game(name, cells)
        label = f"{name}/{game.cells}"
        started = time.perf_counter()
        for deal in range(first, last + 1):
            r = api.solve(Board.deal(game, deal), engine="native")
            yield {"kind": "solve", "game": label, "deal": deal, "verdict": r.verdict.value,
                   "states": r.states, "limit": r.limit, "moves": list(r.move_texts),
                   "singles": list(r.single_move_texts), "player_moves": r.player_moves}
        for deal, d in enumerate(api.decide_deals(game, first, last - first + 1), first):
            yield {"kind": "survey", "game": label, "deal": deal, "verdict": d.verdict.value,
                   "states": d.states, "limit": d.limit, "moves": d.moves,
                   "singles": d.single_moves, "player_moves": d.player_moves}
        for deal in range(first, min(last, first + short - 1) + 1):
            r = api.solve(Board.deal(game, deal), engine="native", lines="short",
                          short_seconds=600.0, max_states=SHORT_STATES)
            yield {"kind": "short", "game": label, "deal": deal, "verdict": r.verdict.value,
                   "states": r.states, "moves": list(r.move_texts),
                   "player_moves": r.player_moves, "optimal": r.optimal,
                   "lower_bound": r.lower_bound}
        print(f"{label}: {time.perf_counter() - started:.1f} s", file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="first", type=int, default=1)
    ap.add_argument("--to", dest="last", type=int, default=1000)
    ap.add_argument("--short", type=int, default=20, help="deals with a short line (default 20)")
    out = ap.add_mutually_exclusive_group(required=True)
    out.add_argument("--write", metavar="FILE")
    out.add_argument("--against", metavar="FILE")
    args = ap.parse_args()
    if args.first < 1 or args.last < args.first or args.short < 0:
        ap.error("need 1 <= FROM <= TO and SHORT >= 0")
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            n = 0
            for row in rows(args.first, args.last, args.short):
                f.write(json.dumps(row, sort_keys=True) + "\n")
                n += 1
        print(f"{n} rows written to {args.write}")
        return 0
    with open(args.against, encoding="utf-8") as f:
        before = {(r["kind"], r["game"], r["deal"]): r for r in map(json.loads, f)}
    same = differ = 0
    seen = set()
    for row in rows(args.first, args.last, args.short):
        key = (row["kind"], row["game"], row["deal"])
        seen.add(key)
        old = before.get(key)
        if old == json.loads(json.dumps(row, sort_keys=True)):
            same += 1
            continue
        differ += 1
        if old is None:
            print(f"{key}: not in {args.against}")
            continue
        fields = sorted(k for k in row.keys() | old.keys() if row.get(k) != old.get(k))
        print(f"{key}: " + "; ".join(f"{k} {old.get(k)!r} -> {row.get(k)!r}" for k in fields))
    missing = len(before.keys() - seen)
    kinds = sorted({k[0] for k in seen})
    print(f"{same} identical, {differ} different, {missing} missing "
          f"({', '.join(kinds)}; deals {args.first}-{args.last}, "
          f"{', '.join(sorted({k[1] for k in seen}))})")
    return 0 if differ == 0 and missing == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
