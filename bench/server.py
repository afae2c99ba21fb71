"""Server benchmark: move round trips with 20 concurrent players, and the
time to the first page.

Starts a real ``bakers serve`` on a free port (SQLite in a temporary folder),
then runs N players at once (asyncio + httpx.AsyncClient, one client and one
cookie per player). Each player starts a numbered Baker's Game deal with
autoplay off and replays the solver's winning line move by move, with an
undo now and then; when a game is won it starts the next deal. Every POST
is timed from send to complete response.

Two rounds: *stress* (no pause between a player's moves: every player fires
its next move as soon as the last one answered) and *paced* (a player thinks
50–150 ms between moves, still far quicker than a person). Target (issue 4):
p99 < 20 ms with 20 players; the first page under 1 s.

    python bench/server.py [--players 20] [--moves 150] [--db URL]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from conftest import start_server  # noqa: E402

from bakers import Board  # noqa: E402
from bakers.solver import Verdict, solve  # noqa: E402


def solution_lines(count: int) -> list[tuple[int, list[str]]]:
    """Winnable Baker's Game deals with their winning lines (computed here,
    before the clock starts)."""
    out: list[tuple[int, list[str]]] = []
    deal = 1
    while len(out) < count:
        try:
            result = solve(Board.deal("bakers_game", deal), timeout=10)
        except Exception as exc:  # a solver bug must not stop the benchmark
            print(f"  deal {deal}: solver failed ({exc!r}); skipped")
            deal += 1
            continue
        if result.verdict is Verdict.WINNABLE:
            out.append((deal, [m.notation(with_count=True) for m in result.moves]))
        deal += 1
    return out


async def player(url: str, lines: list[tuple[int, list[str]]], moves: int,
                 think: tuple[float, float], times: list[float], server: list[float],
                 rng: random.Random) -> int:
    """Play ``moves`` moves; return the number of games won."""
    won = 0
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:
        done = 0
        game_id: str | None = None
        while done < moves:
            deal, line = lines[rng.randrange(len(lines))]
            body: dict[str, object] = {"game": "bakers_game", "deal": deal, "autoplay": "off"}
            if game_id is not None:
                body["replace"] = game_id
            r = await client.post("/api/games", json=body)
            r.raise_for_status()
            game_id = r.json()["id"]
            for move in line:
                if done >= moves:
                    break
                if think[1]:
                    await asyncio.sleep(rng.uniform(*think))
                if rng.random() < 0.1 and done + 2 < moves:
                    # take the last move back and play it again
                    for action in ("undo", "redo"):
                        t = time.perf_counter()
                        r = await client.post(f"/api/games/{game_id}/{action}")
                        times.append(time.perf_counter() - t)
                        server.append(server_ms(r))
                        done += 1
                t = time.perf_counter()
                r = await client.post(f"/api/games/{game_id}/moves", json={"move": move})
                times.append(time.perf_counter() - t)
                server.append(server_ms(r))
                done += 1
                if r.status_code != 200:
                    raise RuntimeError(f"move {move} of deal {deal}: {r.status_code} {r.text}")
                if r.json()["status"] == "won":
                    won += 1
                    break
    return won


def server_ms(response: httpx.Response) -> float:
    """The server's own time from its Server-Timing header."""
    value = response.headers.get("server-timing", "app;dur=0")
    return float(value.split("dur=", 1)[1])


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


async def round_(url: str, lines: list[tuple[int, list[str]]], players: int, moves: int,
                 think: tuple[float, float]) -> tuple[list[float], list[float], int, float]:
    times: list[float] = []
    server: list[float] = []
    start = time.perf_counter()
    wins = await asyncio.gather(*(player(url, lines, moves, think, times, server,
                                         random.Random(i))
                                  for i in range(players)))
    return times, server, sum(wins), time.perf_counter() - start


def first_page(url: str) -> list[tuple[str, float]]:
    """Seconds to fetch each page with its CSS and JS, as a fresh browser would."""
    out = []
    with httpx.Client(base_url=url, timeout=30) as client:
        for path in ("/", "/play/bakers_game/617", "/play/freecell/11982?cells=3"):
            t = time.perf_counter()
            r = client.get(path, follow_redirects=True)
            r.raise_for_status()
            for asset in ("/static/table.css", "/static/table.js", "/static/home.js"):
                if asset.rsplit("/", 1)[1].split(".")[0] in r.text or asset.endswith(".css"):
                    client.get(asset)
            out.append((path, time.perf_counter() - t))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--moves", type=int, default=150, help="moves per player per round")
    parser.add_argument("--db", default=None, help="database URL (default: SQLite in a temp dir)")
    args = parser.parse_args()

    print("solving deals for the players to replay…", flush=True)
    lines = solution_lines(12)
    folder = Path(tempfile.mkdtemp(prefix="bakers-bench-"))
    db_url = args.db or f"sqlite:///{folder / 'bench.sqlite3'}"
    live = start_server(db_url, folder / "server.log")
    try:
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"server: {live.url}  db: {db_url.split('@')[-1]}")
        print(f"machine: {os.cpu_count()} cpus, load average {load} "
              "(other work on the machine shows up in the tail figures)")
        pages = first_page(live.url)
        for path, seconds in pages:
            print(f"first page {path:<32} {seconds * 1000:7.1f} ms  (target < 1000 ms)")
        asyncio.run(round_(live.url, lines, 4, 20, (0, 0)))  # warm up
        print(f"\n{args.players} players, {args.moves} moves each "
              "(autoplay off, 10 % undo+redo)")
        print(f"{'round':<26}{'requests':>9}{'req/s':>7}{'p50 ms':>8}{'p90 ms':>8}"
              f"{'p99 ms':>8}{'max ms':>8}  {'server p50/p99/max ms':>22}")
        verdicts: list[str] = []
        for name, think in (("stress (no think time)", (0.0, 0.0)),
                            ("paced (think 50-150 ms)", (0.05, 0.15))):
            times, own, _wins, wall = asyncio.run(
                round_(live.url, lines, args.players, args.moves, think))
            ms = [t * 1000 for t in times]
            inside = (f"{statistics.median(own):.2f}/{percentile(own, 99):.2f}/"
                      f"{max(own):.1f}")
            print(f"{name:<26}{len(ms):>9}{len(ms) / wall:>7.0f}"
                  f"{statistics.median(ms):>8.2f}{percentile(ms, 90):>8.2f}"
                  f"{percentile(ms, 99):>8.2f}{max(ms):>8.2f}  {inside:>22}")
            verdicts.append(f"{name}: p99 {'<' if percentile(ms, 99) < 20 else '>='} 20 ms")
        print("\ntarget p99 < 20 ms. " + "; ".join(verdicts))
        print("(stress keeps every player's next request waiting on the last one with no "
              "pause:\n the client and the server then share the CPUs flat out, so its "
              "round trips are mostly queueing)")
    finally:
        live.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
