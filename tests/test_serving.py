"""Storage and processes behind a real server: SQLite's write-ahead log stays
bounded under sustained writes with every acknowledged move kept; the
durability settings; several server processes on one PostgreSQL database;
SQLite refusing --workers; the schema upgraded from release 0.1's."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from conftest import LIVE_LIMITS, start_server

from bakers.board import Board
from bakers.session import Session
from bakers.store import Store
from bakers.store.db import SCHEMA_VERSION

DATA = Path(__file__).resolve().parent / "data"


Acked = dict[str, tuple[int, list[str]]]


async def play_flat_out(urls: list[str], players: int, seconds: float, seed: int = 0,
                        twin_every: int = 0) -> tuple[Acked, dict[str, int], list[str], int]:
    """``players`` players, each on its own game, sending moves (a random
    legal one, now and then an undo) as fast as answers come, for
    ``seconds``; each request goes to the next of ``urls`` in turn. With
    ``twin_every``, every so many moves the same move goes to two servers at
    once. Returns for each game the last acknowledged answer (its count of
    actions and its moves) and the number of actions acknowledged, the
    unexpected answers, and the number of actions answered in all."""
    acked: Acked = {}
    counts: dict[str, int] = {}
    problems: list[str] = []
    answered = 0
    deadline = time.monotonic() + seconds

    async def one(k: int) -> None:
        nonlocal answered
        rng = random.Random(seed * 1000 + k)
        clients = [httpx.AsyncClient(base_url=u, timeout=30) for u in urls]
        try:
            cookie = None
            turn = k
            game: dict[str, Any] | None = None
            while time.monotonic() < deadline:
                c = clients[turn % len(clients)]
                turn += 1
                if cookie:
                    c.cookies.set("bakers_player", cookie)
                if game is None or game["status"] != "playing" or not game["legal_moves"]:
                    body: dict[str, Any] = {"game": "freecell", "deal": rng.randrange(1, 30000),
                                            "autoplay": "off"}
                    r = await c.post("/api/games", json=body)
                    if r.status_code != 201:
                        problems.append(f"new game: {r.status_code} {r.text[:100]}")
                        return
                    game = r.json()
                    cookie = cookie or r.cookies.get("bakers_player")
                    acked[game["id"]] = (0, [])
                    counts[game["id"]] = 0
                    continue
                path = f"/api/games/{game['id']}/moves"
                body = {"move": rng.choice(game["legal_moves"])}
                if game["can_undo"] and rng.random() < 0.1:
                    path, body = f"/api/games/{game['id']}/undo", {}
                if twin_every and answered % twin_every == 0 and len(clients) > 1:
                    other = clients[turn % len(clients)]
                    other.cookies.set("bakers_player", cookie or "")
                    answers = await asyncio.gather(c.post(path, json=body),
                                                   other.post(path, json=body))
                else:
                    answers = [await c.post(path, json=body)]
                for r in answers:
                    if r.status_code == 200:
                        answered += 1
                        g = r.json()
                        counts[g["id"]] += 1
                        if g["score"]["moves"] >= acked[g["id"]][0]:
                            acked[g["id"]] = (g["score"]["moves"], g["moves"])
                            game = g
                    elif r.status_code not in (409, 422) or len(answers) == 1:
                        problems.append(f"{path}: {r.status_code} {r.text[:100]}")
        finally:
            for c in clients:
                await c.aclose()

    await asyncio.gather(*(one(k) for k in range(players)))
    return acked, counts, problems, answered


def assert_saved_as_answered(db_url: str, acked: Acked,
                             counts: dict[str, int]) -> None:
    """The last answer to each game is what was saved, and the saved game made
    as many actions as were answered: none lost, none applied twice."""
    store = Store(db_url)
    try:
        for game_id, (count, moves) in acked.items():
            session = store.load(game_id).session
            assert session.moves == moves and session.moves_count == count, game_id
            assert count == counts[game_id], game_id
    finally:
        store.close()


@pytest.mark.slow
def test_sqlite_log_stays_bounded_under_twenty_writers(tmp_path: Path) -> None:
    path = tmp_path / "load.sqlite3"
    server = start_server(f"sqlite:///{path}", tmp_path / "server.log", args=LIVE_LIMITS)
    sizes: list[int] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            try:
                sizes.append(os.path.getsize(str(path) + "-wal"))
            except OSError:
                sizes.append(0)
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        acked, counts, problems, answered = asyncio.run(
            play_flat_out([server.url], players=20, seconds=30))
    finally:
        stop.set()
        sampler.join()
        server.stop()
    assert problems == []
    assert answered > 300, answered  # the load was real: at least ten writes a second
    biggest = max(sizes)
    print(f"\n{answered} moves in 30 s; WAL at most {biggest / 2**20:.1f} MB "
          f"over {len(sizes)} samples")
    assert biggest < 16 * 2**20, biggest
    assert_saved_as_answered(f"sqlite:///{path}", acked, counts)


def test_durability_settings(tmp_path: Path) -> None:
    for durability, expected in (("normal", 1), ("full", 2)):
        store = Store(f"sqlite:///{tmp_path / durability}.sqlite3", durability=durability)
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == expected
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        store.close()
    with pytest.raises(ValueError, match="normal or full"):
        Store("sqlite://", durability="sometimes")


def test_durability_on_postgresql(pg_db_url: str) -> None:
    for durability, expected in (("normal", "off"), ("full", "on")):
        store = Store(pg_db_url, durability=durability)
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW synchronous_commit").scalar() == expected
        store.close()


def test_sqlite_refuses_several_workers(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "bakers", "serve", "--port", "0", "--workers", "2",
                        "--db", str(tmp_path / "x.sqlite3")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "bakers: SQLite takes one server process: --workers above 1 needs PostgreSQL "
        "(--db postgresql://…)"] or "needs PostgreSQL" in r.stderr
    assert "Traceback" not in r.stderr


def test_two_servers_on_one_postgresql_database(pg_db_url: str, tmp_path: Path) -> None:
    """One server of two worker processes and one of one, on the same
    database; every player sends each request to the other server than the
    last, and now and then the same move to both at once."""
    a = start_server(pg_db_url, tmp_path / "a.log", args=(*LIVE_LIMITS, "--workers", "2"))
    b = start_server(pg_db_url, tmp_path / "b.log", args=LIVE_LIMITS)
    try:
        acked, counts, problems, answered = asyncio.run(
            play_flat_out([a.url, b.url], players=12, seconds=15, seed=3, twin_every=7))
    finally:
        a.stop()
        b.stop()
    assert problems == [], problems[:5]
    assert answered > 200
    assert_saved_as_answered(pg_db_url, acked, counts)
    for log in (tmp_path / "a.log", tmp_path / "b.log"):
        text = log.read_text()
        assert "Traceback" not in text and "Exception" not in text, text[-2000:]


# --- schema migrations ---------------------------------------------------------------------

def release_0_1_store() -> ModuleType:
    """The store module of release 0.1 (tests/data/store_release_0_1.py.txt),
    loaded beside today's (its relative imports resolve in bakers.store)."""
    spec = importlib.util.spec_from_loader("bakers.store.release_0_1", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "bakers.store"
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    source = (DATA / "store_release_0_1.py.txt").read_text(encoding="utf-8")
    exec(compile(source, "store_release_0_1.py", "exec"), module.__dict__)
    return module


def _upgrade_from_release_0_1(url: str, tmp_path: Path) -> None:
    old = release_0_1_store()
    before = old.Store(url)
    session = Session(Board.deal("bakers_game", 617), autoplay="off")
    game_id = before.create_game(session, "player-one-0123456789")
    loaded = before.load(game_id)
    loaded.session.play("5a")
    loaded.session.play("8b")
    before.save(loaded)
    won = Session(Board.from_text("Foundations: H-Q C-K D-K S-K\nKH\n", game="bakers_game"))
    won_id = before.create_game(won, "player-one-0123456789")
    done = before.load(won_id)
    done.session.play("1h")
    before.save(done)
    before.engine.dispose()
    with sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://")).connect() as c:
        tables = set(sa.inspect(c).get_table_names())
    assert "schema_version" not in tables and "games" in tables

    after = Store(url)
    try:
        assert after.schema_version() == SCHEMA_VERSION
        again = after.load(game_id)
        assert again.session.moves == ["5a", "8b"] and again.player_id.startswith("player-one")
        [stats] = after.stats("player-one-0123456789")
        assert (stats.played, stats.won) == (1, 1)
        code = after.create_transfer_code("player-one-0123456789")  # the new table works
        assert after.claim_transfer_code(code, "someone-else-01234567") == "player-one-0123456789"
        assert after.migrate() == []  # a second start changes nothing
    finally:
        after.close()
    # and a real server serves the upgraded database
    server = start_server(url, tmp_path / "server.log")
    try:
        with httpx.Client(base_url=server.url, timeout=10,
                          cookies={"bakers_player": "player-one-0123456789"}) as c:
            r = c.post(f"/api/games/{game_id}/moves", json={"move": "7c"})
            assert r.status_code == 200 and r.json()["moves"] == ["5a", "8b", "7c"]
    finally:
        server.stop()


def test_upgrade_a_sqlite_database_made_by_release_0_1(tmp_path: Path) -> None:
    _upgrade_from_release_0_1(f"sqlite:///{tmp_path / 'old.sqlite3'}", tmp_path)


def test_upgrade_a_postgresql_database_made_by_release_0_1(pg_db_url: str,
                                                           tmp_path: Path) -> None:
    _upgrade_from_release_0_1(pg_db_url, tmp_path)
