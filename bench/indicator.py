"""How soon the "still winnable?" verdict follows a move, against a real
server (``bakers serve`` on a free port, SQLite, the native engine).

    python bench/indicator.py --games 20 --moves 60

Each game is a Baker's Game deal at Easy (the indicator on). A player
follows a winning line, leaves it now and then with a random move (and then
plays at random), as people do; after every move's answer the verdict is
asked at once, as the page does. Prints the move round trip and the time
from the move's answer to the verdict's (median, 95th percentile, worst),
per verdict.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bakers.board import Board
from bakers.solver import solve


def start_server(folder: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bakers", "serve", "--port", "0", "--db",
         f"sqlite:///{folder / 'bench.sqlite3'}"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"running at (http://\S+/)", line)
        if m:
            return proc, m.group(1).rstrip("/")
    raise RuntimeError("the server did not start")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--moves", type=int, default=60)
    p.add_argument("--leave", type=float, default=0.08, help="chance to leave the line")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    folder = Path(tempfile.mkdtemp(prefix="bakers-bench-"))
    proc, base = start_server(folder)
    rtt: list[float] = []
    lag: dict[str, list[float]] = {}
    try:
        with httpx.Client(base_url=base, headers={"Origin": base}, timeout=60) as client:
            for deal in rng.sample(range(1, 30_000), a.games):
                board = Board.deal("bakers_game", deal)
                line = list(solve(board, timeout=5).moves)
                game = client.post("/api/games", json={
                    "game": "bakers_game", "deal": deal, "level": "easy",
                    "autoplay": "off"}).json()
                gid = game["id"]
                on_line = bool(line)
                client.get(f"/api/games/{gid}/verdict")  # the verdict on the deal
                for _ in range(a.moves):
                    legal = game["legal_moves"]
                    if not legal or game["status"] != "playing":
                        break
                    if on_line and rng.random() > a.leave:
                        move = board.move_text(line.pop(0))
                    else:
                        on_line = False
                        move = rng.choice(legal)
                    board.push_str(move)
                    on_line = on_line and bool(line)
                    t0 = time.perf_counter()
                    game = client.post(f"/api/games/{gid}/moves", json={"move": move}).json()
                    t1 = time.perf_counter()
                    verdict = client.get(f"/api/games/{gid}/verdict").json()
                    t2 = time.perf_counter()
                    rtt.append(t1 - t0)
                    lag.setdefault(str(verdict["verdict"]), []).append(t2 - t1)
    finally:
        proc.terminate()
        proc.wait(10)
    every = [x for xs in lag.values() for x in xs]
    print(f"{len(rtt)} moves in {a.games} games (Baker's Game, Easy, native engine)")
    print(f"move round trip: median {statistics.median(rtt) * 1000:.1f} ms, "
          f"p95 {pct(rtt, 0.95) * 1000:.1f} ms")
    print(f"verdict after the move's answer: median {statistics.median(every) * 1000:.1f} ms, "
          f"p95 {pct(every, 0.95) * 1000:.1f} ms, worst {max(every) * 1000:.0f} ms, "
          f"within 200 ms: {100 * sum(x <= 0.2 for x in every) / len(every):.1f} %")
    for verdict, xs in sorted(lag.items()):
        print(f"  {verdict}: {len(xs)} moves, median {statistics.median(xs) * 1000:.1f} ms, "
              f"p95 {pct(xs, 0.95) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
