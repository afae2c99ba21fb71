"""The JSON API of docs/api.md and the page routes, in-process (Starlette's
TestClient) and once against a real server (the ``live_server`` fixture)."""

from __future__ import annotations

import asyncio
import html
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import BLOCKED

from bakers import Board, GameRecord
from bakers.deals import today_utc
from bakers.web import create_app

WIN_IN_TWO = """Foundations: H-J C-K D-Q S-J
QS KH
QH KS
KD
"""


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'api.sqlite3'}"


@pytest.fixture(params=[0, 4], ids=["on-loop", "threads"])
def client(request: pytest.FixtureRequest, db_url: str) -> Iterator[TestClient]:
    """The app over SQLite, its database calls on the event loop (SQLite's
    default) and in worker threads (PostgreSQL's default)."""
    app = create_app(db_url, deal_budget=2.0, hint_budget=2.0, db_threads=request.param)
    # as the page sends every state-changing request: JSON, even without a body
    with TestClient(app, raise_server_exceptions=False,
                    headers={"content-type": "application/json"}) as c:
        yield c


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("game", "bakers_game")
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


# --- games and moves ----------------------------------------------------------------

def test_create_numbered_deal(client: TestClient) -> None:
    r = client.post("/api/games", json={"game": "bakers_game", "deal": 617, "cells": 4})
    assert r.status_code == 201
    assert "bakers_player=" in r.headers.get("set-cookie", "")
    g = r.json()
    assert g["deal"] == 617 and g["game"] == "bakers_game" and g["status"] == "playing"
    assert g["level"] == "normal" and g["cells"] == 4 and g["columns_count"] == 8
    assert g["position"] == Board.deal("bakers_game", 617).to_text()
    assert g["moves"] == [] and "1a" in g["legal_moves"]
    assert {k: g["score"][k] for k in ("moves", "seconds", "score", "home")} == \
        {"moves": 0, "seconds": 0.0, "score": 0, "home": 0}
    assert client.get(f"/api/games/{g['id']}").json()["position"] == g["position"]


@pytest.mark.parametrize("body,cells,level", [
    ({"game": "freecell", "deal": 11982, "cells": 3}, 3, "hard"),
    ({"game": "freecell", "deal": 11982, "level": "hard"}, 3, "hard"),
    ({"game": "freecell", "deal": 5, "cells": 6}, 6, "custom"),
    ({"game": "bakers_dozen", "deal": 5}, 0, "normal"),
    ({"game": "Baker's Game", "deal": "617"}, 4, "normal"),
    ({"game": "bakers_game", "level": "normal"}, 4, "normal"),
    ({"game": "bakers_game", "level": "hard"}, 3, "hard"),
])
def test_levels_and_cells(client: TestClient, body: dict[str, Any], cells: int,
                          level: str) -> None:
    g = new_game(client, **body)
    assert (g["cells"], g["level"]) == (cells, level)
    assert len(g["freecells"]) == cells


def test_play_undo_redo_restart(client: TestClient) -> None:
    g = new_game(client, deal=617)
    gid = g["id"]
    r = client.post(f"/api/games/{gid}/moves", json={"move": "5a"})
    assert r.status_code == 200
    g = r.json()
    assert g["moves"][0] == "5a" and g["freecells"][0] == "JC" and g["can_undo"]
    g = client.post(f"/api/games/{gid}/undo", json={}).json()
    assert g["moves"] == [] and g["can_redo"] and g["score"]["moves"] == 2
    g = client.post(f"/api/games/{gid}/redo", json={}).json()
    assert g["moves"] == ["5a"] and not g["can_redo"]
    g = client.post(f"/api/games/{gid}/restart", json={}).json()
    assert g["moves"] == [] and g["score"]["moves"] == 0 and not g["can_undo"]
    assert client.post(f"/api/games/{gid}/redo", json={}).status_code == 409
    assert client.post(f"/api/games/{gid}/undo", json={}).status_code == 409


def test_best_place_move(client: TestClient) -> None:
    g = new_game(client, deal=617)
    r = client.post(f"/api/games/{g['id']}/moves", json={"from": "5"})
    assert r.status_code == 200
    assert r.json()["moves"] == ["5a"]
    r = client.post(f"/api/games/{g['id']}/moves", json={"from": 1, "count": 1})
    assert r.status_code == 200


def test_illegal_move_says_why(client: TestClient) -> None:
    g = new_game(client, deal=617)
    r = client.post(f"/api/games/{g['id']}/moves", json={"move": "1h"})
    assert r.status_code == 422
    assert "foundation" in r.json()["error"]
    r = client.post(f"/api/games/{g['id']}/moves", json={"move": "12"})
    assert r.status_code == 422
    assert "cannot go on" in r.json()["error"]


def test_run_capacity_message(client: TestClient) -> None:
    # 10♠..6♠ (5 cards) onto J♠ with 1 free cell and 1 empty column
    text = """Foundations: H-J C-J D-Q S-4
Freecells: KS QS 5S -
JS
TS 9S 8S 7S 6S
KH
KC
KD
QH
QC
:
"""
    g = new_game(client, position=text)
    r = client.post(f"/api/games/{g['id']}/moves", json={"move": "21"})
    assert r.status_code == 422
    assert r.json()["error"] == ("this run has 5 cards; with 1 free cell and 1 empty column "
                                 "you can move 4")


def moved(g: dict[str, Any]) -> list[tuple[list[str], str, str]]:
    return [(m["cards"], m["from"], m["to"]) for m in g["action"]["movements"]]


def test_autoplay_setting_and_card_movements(client: TestClient) -> None:
    g = new_game(client, position=WIN_IN_TWO, autoplay="off")
    gid = g["id"]
    assert g["settings"]["autoplay"] == "off"
    g = client.post(f"/api/games/{gid}/settings", json={"autoplay": "safe"}).json()
    assert g["settings"] == {"autoplay": "safe", "order": "cell_first"}
    g = client.post(f"/api/games/{gid}/moves", json={"move": "34"}).json()
    assert moved(g) == [(["KD"], "3", "4"), (["KD"], "4", "h")] and g["action"]["kind"] == "move"
    g = client.post(f"/api/games/{gid}/moves", json={"move": "1a"}).json()
    assert g["status"] == "won" and g["legal_moves"] == []
    assert moved(g)[0] == (["KH"], "1", "a") and all(to == "h" for _c, _f, to in moved(g)[1:])
    assert len(moved(g)) == 5 and g["score"]["home"] == 52
    assert client.post(f"/api/games/{gid}/moves", json={"move": "1a"}).status_code == 409
    assert client.post(f"/api/games/{gid}/undo", json={}).status_code == 409
    assert client.get(f"/api/games/{gid}/hint").status_code == 409
    r = client.post(f"/api/games/{gid}/settings", json={"order": "empty_first"})
    assert r.json()["settings"]["order"] == "empty_first"


def test_pause_and_resume(client: TestClient) -> None:
    g = new_game(client, deal=1)
    assert client.post(f"/api/games/{g['id']}/pause", json={}).json()["paused"] is True
    assert client.post(f"/api/games/{g['id']}/resume", json={}).json()["paused"] is False


def test_record_replays(client: TestClient) -> None:
    g = new_game(client, deal=617)
    for move in ("5a", "8b"):
        g = client.post(f"/api/games/{g['id']}/moves", json={"move": move}).json()
    text = client.get(f"/api/games/{g['id']}/record").json()["record"]
    assert "Deal: 617" in text
    assert GameRecord.from_text(text).replay().to_text() == g["position"]


def test_history_is_standard_notation_and_legal_moves_explicit(client: TestClient) -> None:
    """``moves`` and the record say ``74`` for a run and ``78`` for one card;
    ``87/1`` keeps its length (bare ``87`` into the empty column would take
    two cards). ``legal_moves`` still write every column move's length."""
    g = new_game(client, deal=617, autoplay="off")
    sent = ["78/1", "7a", "7b", "7c", "7h", "7d", "b7", "c7", "d7", "4b", "74/3", "87/1"]
    for move in sent:
        assert move in g["legal_moves"]
        r = client.post(f"/api/games/{g['id']}/moves", json={"move": move})
        assert r.status_code == 200, r.text
        g = r.json()
    assert " ".join(g["moves"]) == "78 7a 7b 7c 7h 7d b7 c7 d7 4b 74 87/1"
    columns = "12345678"
    assert all("/" in m for m in g["legal_moves"] if m[0] in columns and m[1] in columns)
    text = client.get(f"/api/games/{g['id']}/record").json()["record"]
    assert text.endswith("Moves: 78 7a 7b 7c 7h 7d b7 c7 d7 4b 74 87/1\n")
    assert GameRecord.from_text(text).replay().to_text() == g["position"]


def test_replace_counts_as_a_loss_and_continue_list(client: TestClient) -> None:
    first = new_game(client, deal=1)
    client.post(f"/api/games/{first['id']}/moves", json={"move": "1a"})
    second = new_game(client, deal=2)
    listed = client.get("/api/games?status=playing").json()["games"]
    assert {x["id"] for x in listed} == {first["id"], second["id"]}
    third = new_game(client, deal=3, replace=first["id"])
    old = client.get(f"/api/games/{first['id']}").json()
    assert old["status"] == "abandoned" and old["played"] is True
    listed = [x["id"] for x in client.get("/api/games?status=playing").json()["games"]]
    assert listed[0] == third["id"] and first["id"] not in listed
    stats = client.get("/api/stats?game=bakers_game&level=normal").json()["stats"]
    assert stats[0]["played"] == 1 and stats[0]["lost"] == 1 and stats[0]["win_rate"] == 0.0
    # replacing a game that is over changes nothing, and someone else's is refused
    new_game(client, deal=4, replace=first["id"])
    stats = client.get("/api/stats?game=bakers_game&level=normal").json()["stats"]
    assert stats[0]["lost"] == 1
    client.cookies.clear()  # a new visitor: another player
    r = client.post("/api/games", json={"game": "bakers_game", "deal": 5,
                                        "replace": second["id"]})
    assert r.status_code == 404


def test_a_deal_without_a_move_is_not_played(client: TestClient) -> None:
    """Replacing a deal nobody moved on records nothing; after a restart the
    deal is still a played one."""
    untouched = new_game(client, deal=1)
    assert untouched["played"] is False
    new_game(client, deal=2, replace=untouched["id"])
    old = client.get(f"/api/games/{untouched['id']}").json()
    assert old["status"] == "abandoned" and old["played"] is False
    assert client.get("/api/stats").json()["stats"] == []
    restarted = new_game(client, deal=3)
    client.post(f"/api/games/{restarted['id']}/moves", json={"move": "1a"})
    g = client.post(f"/api/games/{restarted['id']}/restart", json={}).json()
    assert g["moves"] == restarted["moves"] and g["played"] is True  # the deal's own moves only
    new_game(client, deal=4, replace=restarted["id"])
    [row] = client.get("/api/stats").json()["stats"]
    assert (row["played"], row["lost"]) == (1, 1)


def test_practice_games_stay_out_of_stats_and_continue(client: TestClient) -> None:
    lesson = new_game(client, position=WIN_IN_TWO, practice=True, autoplay="off")
    assert lesson["practice"] is True
    assert new_game(client, deal=7)["practice"] is False
    client.post(f"/api/games/{lesson['id']}/moves", json={"move": "34"})
    listed = client.get("/api/games?status=playing").json()["games"]
    assert lesson["id"] not in [x["id"] for x in listed] and len(listed) == 1
    every = {x["id"]: x["practice"] for x in
             client.get("/api/games?status=all").json()["games"]}
    assert every[lesson["id"]] is True and len(every) == 2
    g = client.post(f"/api/games/{lesson['id']}/moves", json={"move": "1a"}).json()
    assert g["status"] == "won" and g["practice"] is True
    again = new_game(client, position=WIN_IN_TWO, practice=True)
    client.post(f"/api/games/{again['id']}/moves", json={"move": "34"})
    new_game(client, deal=8, replace=again["id"])
    assert client.get("/api/stats").json()["stats"] == []
    r = client.post("/api/games", json={"game": "bakers_game", "practice": "maybe"})
    assert r.status_code == 400


def test_stats_of_a_win(client: TestClient) -> None:
    g = new_game(client, position=WIN_IN_TWO)
    client.post(f"/api/games/{g['id']}/moves", json={"move": "34"})
    client.post(f"/api/games/{g['id']}/moves", json={"move": "1a"})
    [row] = client.get("/api/stats").json()["stats"]
    assert row["won"] == 1 and row["current_streak"] == 1 and row["best_streak"] == 1
    assert row["fewest_moves"] == 2 and row["best_score"] > 0


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db_url(request: pytest.FixtureRequest, db_url: str) -> str:
    if request.param == "sqlite":
        return db_url
    url: str = request.getfixturevalue("pg_db_url")
    return url


def test_game_continues_after_a_server_restart(any_db_url: str) -> None:
    db_url = any_db_url
    with TestClient(create_app(db_url)) as c:
        g = new_game(c, deal=617)
        for move in ("5a", "8b", "7c"):
            c.post(f"/api/games/{g['id']}/moves", json={"move": move})
        c.post(f"/api/games/{g['id']}/undo", json={})
        before = c.get(f"/api/games/{g['id']}").json()
        cookies = dict(c.cookies)
    with TestClient(create_app(db_url), cookies=cookies) as c:
        after = c.get(f"/api/games/{g['id']}").json()
        assert after["position"] == before["position"] and after["can_redo"]
        assert after["moves"] == ["5a", "8b"]
        assert [x["id"] for x in c.get("/api/games").json()["games"]] == [g["id"]]
        g2 = c.post(f"/api/games/{g['id']}/undo", json={}).json()
        g2 = c.post(f"/api/games/{g['id']}/undo", json={}).json()
        assert g2["position"] == Board.deal("bakers_game", 617).to_text()


# --- the solver at the table -----------------------------------------------------------

def test_hint_gives_a_legal_move(client: TestClient) -> None:
    g = new_game(client, deal=617)
    h = client.get(f"/api/games/{g['id']}/hint").json()
    assert h["verdict"] == "winnable"
    assert h["move"] in g["legal_moves"]
    assert h["message"]


def test_hint_on_a_lost_position(client: TestClient) -> None:
    g = new_game(client, game="freecell", cells=0, position=BLOCKED)
    h = client.get(f"/api/games/{g['id']}/hint").json()
    assert h["verdict"] == "impossible" and h["move"] is None
    assert h["message"] == "no winning line from here"


def test_verdict_answers_about_the_position_asked_for(client: TestClient) -> None:
    """Baker's Game 617 is lost after 3b. A question about an older position
    is answered stale at once and does not take the place of the game's own
    question; with the indicator off there is no verdict."""
    g = new_game(client, deal=617)
    gid = g["id"]
    assert client.get(f"/api/games/{gid}/verdict").json()["verdict"] is None
    assert client.post(f"/api/games/{gid}/indicator", json={"on": True}).status_code == 200
    assert client.get(f"/api/games/{gid}/verdict?moves=0").json()["verdict"] == "winnable"
    for move in ("3b", "8c"):
        assert client.post(f"/api/games/{gid}/moves", json={"move": move}).status_code == 200
    old = client.get(f"/api/games/{gid}/verdict?moves=1").json()
    assert old["stale"] is True and old["verdict"] is None and old["moves"] == 2
    now = client.get(f"/api/games/{gid}/verdict?moves=2").json()
    assert now["stale"] is False and now["moves"] == 2
    assert now["verdict"] == "impossible" and now["lost_at"] == 1 and now["lost_move"] == "3b"
    assert client.get(f"/api/games/{gid}/verdict").json()["verdict"] == "impossible"
    bad = client.get(f"/api/games/{gid}/verdict?moves=-1")
    assert bad.status_code == 400 and bad.json()["error"].startswith("moves")


def test_winnable_and_easy_deals_are_proven(client: TestClient) -> None:
    from bakers.solver import Verdict, solve
    g = new_game(client, winnable=True)
    assert g["level"] == "easy" and g["message"] is None
    board = Board.deal("bakers_game", g["deal"])
    assert solve(board, timeout=10).verdict is Verdict.WINNABLE
    g = new_game(client, game="freecell", level="easy")
    assert g["level"] == "easy" and g["cells"] == 4 and g["deal"] is not None


def test_winnable_only_deals_come_from_the_stock(client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    store.add_proven_deal("bakers_game", 4, 617)
    g = new_game(client, winnable=True)
    assert g["deal"] == 617 and g["message"] is None and g["level"] == "easy"


def test_easy_and_expert_deals_come_from_the_rated_deals(client: TestClient) -> None:
    from bakers.solver.study import rate_deal
    from bakers.store.study import StudyStore
    store = client.app.state.store  # type: ignore[attr-defined]
    ratings = StudyStore(store.engine)
    easy = rate_deal("bakers_game", 2, budget=10)
    assert easy.rating == "easy"
    ratings.save_rating(easy.to_json())
    g = new_game(client, level="easy")
    assert g["deal"] == 2 and g["message"] is None and g["level"] == "easy"
    hardest = next(r for r in (rate_deal("bakers_game", n, budget=10) for n in range(1, 400))
                   if r.rating == "expert")
    ratings.save_rating(hardest.to_json())
    g = new_game(client, level="expert")
    assert g["deal"] == hardest.deal and g["level"] == "expert" and g["cells"] == 4


def test_unproven_winnable_deal_says_so(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from bakers.web.solving import SolverPool

    async def no_verdict(*_args: Any) -> str:
        return "unknown"

    monkeypatch.setattr(SolverPool, "verdict", no_verdict)
    app = create_app(db_url, deal_tries=3)
    with TestClient(app) as c:
        g = new_game(c, game="bakers_dozen", winnable=True)
        assert g["message"] == ("No winnable deal was proven in 3 tries, so this deal is "
                                "not proven winnable.")
        assert g["level"] == "easy"


def test_daily_deal_is_the_same_and_cached(client: TestClient) -> None:
    a = new_game(client, daily=True)
    b = new_game(client, daily=True)
    assert a["deal"] == b["deal"] and a["daily"] == today_utc().isoformat()
    assert a["level"] == "daily" and a["cells"] == 4
    store = client.app.state.store  # type: ignore[attr-defined]
    assert store.daily_deal(a["daily"], "bakers_game") == (a["deal"], True)


def test_slow_solver_work_does_not_delay_moves(db_url: str) -> None:
    """While a hint searches for its whole budget, moves still answer fast."""
    app = create_app(db_url, hint_budget=3.0)

    async def scenario() -> tuple[float, list[float], dict[str, Any]]:
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=transport, base_url="http://test") as ac:
            # warm the pool so the measured hint is pure search
            warm = (await ac.post("/api/games", json={"game": "bakers_game", "deal": 1})).json()
            await ac.get(f"/api/games/{warm['id']}/hint")
            hard = (await ac.post("/api/games", json={
                "game": "bakers_dozen", "deal": 8335890049})).json()
            mover = (await ac.post("/api/games", json={"game": "bakers_game",
                                                       "deal": 617})).json()
            start = time.perf_counter()
            hint_task = asyncio.create_task(ac.get(f"/api/games/{hard['id']}/hint"))
            await asyncio.sleep(0.3)
            times = []
            for action in ("moves", "undo") * 5:
                t = time.perf_counter()
                r = await ac.post(f"/api/games/{mover['id']}/{action}", json={"move": "5a"})
                times.append(time.perf_counter() - t)
                assert r.status_code == 200
            during = time.perf_counter() - start
            hint = (await hint_task).json()
            return during, times, hint

    during, times, hint = asyncio.run(scenario())
    assert max(times) < 0.5
    assert during < 2.5, "the moves waited for the hint"
    assert hint["verdict"] in ("unknown", "winnable", "impossible")


# --- the database off the event loop -------------------------------------------------

@pytest.mark.parametrize("database,threads", [("sqlite", 4), ("postgresql", None),
                                               ("sqlite", None)])
def test_database_work_runs_in_threads_one_request_per_game(
        request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        database: str, threads: int | None) -> None:
    """With a slow database (every save takes 0.6 s here), moves on different
    games run at the same time and the loop keeps answering; moves on one game
    still run one after another, each on the result of the last. (SQLite's
    default, on the loop, only keeps the order.)"""
    from bakers.store import Store

    if database == "sqlite":
        db_url = f"sqlite:///{tmp_path / 'slow.sqlite3'}"
    else:
        db_url = request.getfixturevalue("pg_db_url")

    original = Store.save
    saving: dict[str, int] = {}
    overlaps: list[str] = []

    def slow_save(self: Store, loaded: Any) -> None:
        saving[loaded.id] = saving.get(loaded.id, 0) + 1
        if saving[loaded.id] > 1:
            overlaps.append(loaded.id)
        time.sleep(0.6)
        try:
            original(self, loaded)
        finally:
            saving[loaded.id] -= 1

    monkeypatch.setattr(Store, "save", slow_save)
    app = create_app(db_url, db_threads=threads)
    threaded = app.state.table.db_threads > 0  # type: ignore[attr-defined]
    assert threaded == (database == "postgresql" or threads is not None)

    async def scenario() -> tuple[float, float, float, list[dict[str, Any]], dict[str, Any]]:
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=transport, base_url="http://test") as ac:
            games = [(await ac.post("/api/games", json={
                "game": "bakers_game", "deal": 617, "autoplay": "off"})).json()
                for _ in range(4)]
            start = time.perf_counter()
            moves = [asyncio.create_task(ac.post(f"/api/games/{g['id']}/moves",
                                                 json={"move": "1a"})) for g in games]
            await asyncio.sleep(0.05)
            t = time.perf_counter()
            assert (await ac.get("/rules/freecell")).status_code == 200
            aside = time.perf_counter() - t
            answers = [(await m).json() for m in moves]
            apart = time.perf_counter() - start
            gid = games[0]["id"]
            start = time.perf_counter()
            same = await asyncio.gather(*(ac.post(f"/api/games/{gid}/moves", json={"move": m})
                                          for m in ("2b", "3c", "4d")))
            together = time.perf_counter() - start
            assert [r.status_code for r in same] == [200, 200, 200], [r.text for r in same]
            final = (await ac.get(f"/api/games/{gid}")).json()
            return apart, aside, together, answers, final

    apart, aside, together, answers, final = asyncio.run(scenario())
    assert all(a["moves"] == ["1a"] for a in answers)
    if threaded:
        # one after another the four saves would take 2.4 s
        assert apart < 1.8, "moves on different games waited for each other"
        # a loop blocked by a save would answer after 0.6 s at least
        assert aside < 0.5, "the event loop waited for the database"
    assert together >= 1.8 and overlaps == []
    assert sorted(final["moves"]) == ["1a", "2b", "3c", "4d"]
    assert None not in final["freecells"] and final["score"]["moves"] == 4
    assert len(app.state.table.locks) == 0  # type: ignore[attr-defined]
    with TestClient(create_app(db_url)) as c:  # what was saved is what was answered
        assert c.get(f"/api/games/{final['id']}").json()["moves"] == final["moves"]


def test_in_memory_database_under_concurrent_requests() -> None:
    """An in-memory SQLite database has one connection: its calls take turns."""
    app = create_app("sqlite://", db_threads=8)
    assert app.state.table.db_threads == 1  # type: ignore[attr-defined]

    async def scenario() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=transport, base_url="http://test") as ac:
            await ac.get("/api/stats")  # the player cookie
            made = await asyncio.gather(*(ac.post("/api/games", json={
                "game": "freecell", "deal": n}) for n in range(1, 13)))
            ids = [r.json()["id"] for r in made]
            moved = await asyncio.gather(*(ac.post(f"/api/games/{i}/moves",
                                                   json={"move": "1a"}) for i in ids))
            listed = (await ac.get("/api/games")).json()["games"]
            assert {g["id"] for g in listed} == set(ids)
            return [r.status_code for r in made + moved]

    assert set(asyncio.run(scenario())) == {200, 201}


# --- errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("path,body,status", [
    ("/api/games", {"game": "patience"}, 404),
    ("/api/games", {"game": "bakers_game", "deal": 0}, 400),
    ("/api/games", {"game": "bakers_game", "deal": "abc"}, 400),
    ("/api/games", {"game": "bakers_game", "deal": 10**12}, 400),
    ("/api/games", {"game": "bakers_game", "cells": 9}, 400),
    ("/api/games", {"game": "bakers_dozen", "level": "hard"}, 400),
    ("/api/games", {"game": "bakers_dozen", "cells": 2}, 400),
    ("/api/games", {"game": "bakers_game", "level": "hard", "cells": 4}, 400),
    ("/api/games", {"game": "bakers_game", "deal": 1, "daily": True}, 400),
    ("/api/games", {"game": "bakers_game", "position": "7H 8H"}, 400),
    ("/api/games", {"game": "bakers_game", "replace": "nope"}, 404),
    ("/api/games/nope/moves", {"move": "3a"}, 404),
    ("/api/games/nope/undo", None, 404),
    ("/api/nothing", None, 404),
])
def test_bad_requests(client: TestClient, path: str, body: Any, status: int) -> None:
    r = client.post(path, json=body) if body is not None else client.post(path)
    assert r.status_code == status, r.text
    assert isinstance(r.json()["error"], str) and r.json()["error"]


def test_bad_moves(client: TestClient) -> None:
    g = new_game(client, deal=617)
    url = f"/api/games/{g['id']}/moves"
    for body, status in [({"move": "zz"}, 400), ({"move": "3a" * 20}, 400), ({}, 400),
                         ({"move": "3a", "from": "3"}, 400), ({"from": "h"}, 422),
                         ({"from": "1", "count": 0}, 400), ({"from": "1", "count": 3}, 422),
                         ({"move": 5}, 400), ({"from": [1]}, 400), ({"move": "9a"}, 422)]:
        r = client.post(url, json=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["error"]
    assert client.get("/api/games/" + "x" * 300).status_code == 404
    assert client.get("/api/games?status=weird").status_code == 400
    assert client.get("/api/stats?game=nope").status_code == 404


def test_body_too_large(client: TestClient) -> None:
    r = client.post("/api/games", content=b"{" + b" " * 20000 + b"}",
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "too large" in r.json()["error"]

    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b" " * 1024

    r = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


BAD_BODIES = [b"", b"null", b"[]", b"{", b'"x"', b"123", b"{\"game\": 5}", b"\xff\xfe",
              b'{"game": "bakers_game", "deal": 1e400}', b'{"deal": true}',
              b'{"game": null}', b'{"game": "bakers_game", "position": 7}',
              b'{"game": "bakers_game", "cells": -1}', b'{"game": "x' + b"y" * 100 + b'"}']


@pytest.mark.parametrize("body", BAD_BODIES)
def test_bad_bodies_never_500(client: TestClient, body: bytes) -> None:
    g = new_game(client, deal=1)
    for path in ("/api/games", f"/api/games/{g['id']}/moves", f"/api/games/{g['id']}/settings"):
        r = client.post(path, content=body, headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500 or r.status_code in (200, 201), (path, body, r.text)
        assert r.headers["content-type"].startswith("application/json")
        if r.status_code >= 400:
            assert r.json()["error"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=10)
fields = st.sampled_from(["game", "deal", "cells", "level", "daily", "winnable", "position",
                          "replace", "move", "from", "count", "autoplay", "order"])


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.dictionaries(fields, json_values, max_size=4) | json_values,
       target=st.sampled_from(["", "/moves", "/settings"]))
def test_fuzzed_bodies_never_500(client: TestClient, body: Any, target: str) -> None:
    if target == "" and isinstance(body, dict):
        # keep the fuzz off the solver paths (those are tested above)
        body.pop("daily", None)
        body.pop("winnable", None)
        body["level"] = body.get("level") if body.get("level") != "easy" else "normal"
    gid = client.app.state.fuzz_id if hasattr(client.app.state, "fuzz_id") else None  # type: ignore[attr-defined]
    if gid is None:
        gid = new_game(client, deal=2)["id"]
        client.app.state.fuzz_id = gid  # type: ignore[attr-defined]
    path = "/api/games" if target == "" else f"/api/games/{gid}{target}"
    r = client.post(path, content=json.dumps(body),
                    headers={"content-type": "application/json"})
    assert r.status_code < 500, (path, body, r.text)
    if r.status_code >= 400:
        assert r.json()["error"]


# --- pages ---------------------------------------------------------------------------------

def test_deal_link_creates_a_game_and_redirects(client: TestClient) -> None:
    r = client.get("/play/bakers_game/617", follow_redirects=False)
    assert r.status_code == 303
    location = r.headers["location"]
    assert location.startswith("/game/")
    page = client.get(location)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    gid = location.rsplit("/", 1)[1]
    assert client.get(f"/api/games/{gid}").json()["deal"] == 617


@pytest.mark.parametrize("url,cells,level", [
    ("/play/freecell/11982?cells=3", 3, "hard"),
    ("/play/bakers_game/617?level=hard", 3, "hard"),
    ("/play/bakers_game", 4, "normal"),
    ("/play/bakers_game?winnable=1", 4, "easy"),
    ("/play/daily/bakers_game", 4, "daily"),
])
def test_page_links(client: TestClient, url: str, cells: int, level: str) -> None:
    r = client.get(url, follow_redirects=False)
    assert r.status_code == 303, r.text
    gid = r.headers["location"].rsplit("/", 1)[1]
    g = client.get(f"/api/games/{gid}").json()
    assert (g["cells"], g["level"]) == (cells, level)


def test_table_page_context(db_url: str) -> None:
    app = create_app(db_url)
    seen: dict[str, Any] = {}
    from fastapi.templating import Jinja2Templates

    original = Jinja2Templates.TemplateResponse

    def spy(self: Any, request: Any, name: str, context: dict[str, Any],
            *args: Any, **kw: Any) -> Any:
        seen[name] = context
        return original(self, request, name, context, *args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Jinja2Templates, "TemplateResponse", spy)
        with TestClient(app) as c:
            r = c.get("/play/freecell/5?cells=3")
            assert r.status_code == 200
            c.get("/")
    ctx = seen["table.html"]
    assert ctx["game_json"]["deal"] == 5 and ctx["game_json"]["cells"] == 3
    assert ctx["game_json"]["next_deal"] == {"game": "freecell", "cells": 3, "level": "hard"}
    assert {g["name"] for g in ctx["games"]} == {"bakers_game", "freecell", "bakers_dozen"}
    assert all({"name", "title", "levels", "max_cells"} <= set(g) for g in ctx["games"])
    home = seen.get("home.html")
    if home is not None:
        assert home["game_json"] is None


@pytest.mark.parametrize("url,status", [
    ("/play/patience/1", 404), ("/play/bakers_game/abc", 400), ("/play/bakers_game/0", 400),
    ("/play/bakers_game/1?cells=x", 400), ("/play/bakers_game/1?level=insane", 400),
    ("/play/bakers_dozen/1?level=hard", 400), ("/game/nope", 404), ("/nowhere", 404),
    ("/play/" + "x" * 150 + "/1", 404), ("/rules/patience", 404), ("/rules/" + "x" * 150, 404),
])
def test_friendly_error_pages(client: TestClient, url: str, status: int) -> None:
    r = client.get(url)
    assert r.status_code == status
    assert "text/html" in r.headers["content-type"]
    assert "Back to the games" in r.text


@pytest.mark.parametrize("game,title", [("bakers_game", "Baker's Game"),
                                        ("freecell", "FreeCell"),
                                        ("bakers_dozen", "Baker's Dozen")])
def test_rules_pages(client: TestClient, game: str, title: str) -> None:
    r = client.get(f"/rules/{game}")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    page = r.text
    assert f"<h1>How to play {title}</h1>" in html.unescape(page)
    assert f'<a href="/rules/{game}" aria-current="page">' in page
    assert page.count(f'lesson-go" href="/lessons/{game}/') == (
        4 if game == "bakers_dozen" else 2)
    assert f'href="/play/{game}"' in page and "/static/js/rules.js" in page


def test_rules_links_and_names(client: TestClient) -> None:
    home = client.get("/").text
    for game in ("bakers_game", "freecell", "bakers_dozen"):
        assert f'href="/rules/{game}"' in home
    g = new_game(client, deal=1)
    assert 'id="help-rules" href="/rules/' in client.get(f"/game/{g['id']}").text
    r = client.get("/rules/FreeCell", follow_redirects=False)
    assert r.status_code == 308 and r.headers["location"] == "/rules/freecell"
    r = client.get("/rules", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/rules/bakers_game"


def test_home_and_openapi(client: TestClient) -> None:
    assert client.get("/").status_code == 200
    spec = client.get("/openapi.json").json()
    for path in ("/api/games", "/api/games/{game_id}", "/api/games/{game_id}/moves",
                 "/api/games/{game_id}/undo", "/api/games/{game_id}/redo",
                 "/api/games/{game_id}/restart", "/api/games/{game_id}/hint",
                 "/api/stats", "/api/games/{game_id}/record"):
        assert path in spec["paths"], path


# --- a real server ----------------------------------------------------------------------------

def test_live_server_plays(live_server: Any) -> None:
    with httpx.Client(base_url=live_server.url, timeout=10) as c:
        assert c.get("/").status_code == 200
        r = c.post("/api/games", json={"game": "bakers_game", "deal": 617})
        assert r.status_code == 201
        gid = r.json()["id"]
        r = c.post(f"/api/games/{gid}/moves", json={"move": "5a"})
        assert r.status_code == 200 and r.json()["moves"] == ["5a"]
        assert c.get(f"/game/{gid}").status_code == 200
        assert c.post("/api/games", content=b"x" * 20000,
                      headers={"content-type": "application/json"}).status_code == 413
    assert live_server.db_url.startswith("sqlite:///")


def test_serve_command_is_registered() -> None:
    from click.testing import CliRunner

    from bakers.cli import add_commands, cli
    add_commands()
    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db", "--open", "--db-threads"):
        assert option in result.output


def test_bind_socket_free_port() -> None:
    import socket

    from bakers.cli.web import bind_socket, url_for
    sock = bind_socket("127.0.0.1", 0)
    try:
        port = sock.getsockname()[1]
        assert port > 0 and sock.proto == socket.IPPROTO_TCP
        assert url_for("0.0.0.0", port) == f"http://127.0.0.1:{port}/"
    finally:
        sock.close()


def test_stopping_the_server_ends_its_solver_workers(tmp_path: Path,
                                                    server_starter: Any) -> None:
    import shutil
    import subprocess

    if shutil.which("pgrep") is None:
        pytest.skip("needs pgrep")
    server = server_starter(f"sqlite:///{tmp_path / 'w.sqlite3'}", tmp_path / "log.txt")
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            g = c.post("/api/games", json={"game": "freecell", "deal": 1}).json()
            assert c.get(f"/api/games/{g['id']}/hint").json()["verdict"] == "winnable"
        found = subprocess.run(["pgrep", "-P", str(server.process.pid)],
                               capture_output=True, text=True).stdout.split()
        assert found, "the hint should have started solver workers"
    finally:
        server.stop()
    time.sleep(0.5)
    alive = [pid for pid in found if Path(f"/proc/{pid}").exists()
             and "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")]
    assert alive == []


# --- the table's own requests: intents, the clock, winnable-only, Continue -------------------

def test_intent_plays_or_says_why_without_an_error_status(client: TestClient) -> None:
    """The page sends what the player did; a refusal is an expected answer
    (200, ``refused``), not a 4xx the browser logs as a failed load."""
    g = new_game(client, deal=617)
    gid = g["id"]
    refused = client.post(f"/api/games/{gid}/intent", json={"from": "1", "to": "2"})
    assert refused.status_code == 200
    body = refused.json()
    assert body["refused"] == "J♦ cannot go on K♠: columns build down one rank at a time"
    assert body["moves"] == [] and body["columns"] == g["columns"]
    played = client.post(f"/api/games/{gid}/intent", json={"from": "1", "to": "a"}).json()
    assert played["refused"] is None and played["moves"] == ["1a"]
    assert moved(played) == [(["JD"], "1", "a")]
    best = client.post(f"/api/games/{gid}/intent", json={"from": "2"}).json()
    assert best["refused"] is None and best["moves"][1].startswith("2")
    run = client.post(f"/api/games/{gid}/intent", json={"from": "4", "to": "8", "count": 3})
    assert run.status_code == 200 and "not a run" in run.json()["refused"]
    for bad in ({"from": "z"}, {"to": "a"}, {"from": "1", "to": "a", "count": 0}, []):
        r = client.post(f"/api/games/{gid}/intent", json=bad)
        assert r.status_code == 400 and r.json()["error"]


def test_undo_lists_the_movements_backwards(client: TestClient) -> None:
    g = new_game(client, position=WIN_IN_TWO, autoplay="safe")
    client.post(f"/api/games/{g['id']}/moves", json={"move": "34"})
    undone = client.post(f"/api/games/{g['id']}/undo", json={}).json()
    assert undone["action"]["kind"] == "undo"
    assert moved(undone) == [(["KD"], "h", "4"), (["KD"], "4", "3")]


def test_the_game_object_carries_the_rules_as_data(client: TestClient) -> None:
    dozen = new_game(client, game="bakers_dozen", deal=5)["rules"]
    assert dozen["empty_columns_refill"] is False and dozen["runs_move"] is False
    assert [lv["name"] for lv in dozen["levels"]] == ["easy", "normal", "expert"]
    assert dozen["places"]["columns"][9:] == ["t", "j", "q", "k"] and dozen["places"]["cells"] == []
    hard = new_game(client, deal=5, level="hard")
    assert hard["rules"]["places"]["cells"] == ["a", "b", "c"]
    assert {lv["name"]: lv["cells"] for lv in hard["rules"]["levels"]} == \
        {"easy": 4, "normal": 4, "hard": 3, "expert": 4}
    assert hard["rules"]["idle_limit"] <= 10 and hard["scoring"]["penalty"] == 30
    assert hard["replay"] == {"game": "bakers_game", "deal": 5, "level": "hard", "cells": 3}


def test_winnable_only_sticks_for_new_deal_and_replay(client: TestClient) -> None:
    """Baker's Game Hard with "winnable only": the next deal and a replay
    keep the setting, and each new deal is a proven one."""
    from bakers.solver import solve

    g = new_game(client, level="hard", winnable=True)
    assert g["level"] == "hard" and g["cells"] == 3 and g["winnable"] is True
    assert g["next_deal"] == {"game": "bakers_game", "level": "hard", "cells": 3,
                              "winnable": True}
    nxt = client.post("/api/games", json=g["next_deal"]).json()
    assert nxt["winnable"] is True and nxt["level"] == "hard" and nxt["message"] is None
    board = Board.deal("bakers_game", nxt["deal"], cells=3)
    assert solve(board, timeout=10).verdict.value == "winnable"
    again = client.post("/api/games", json=nxt["replay"]).json()
    assert again["deal"] == nxt["deal"] and again["winnable"] is True
    assert again["next_deal"]["winnable"] is True
    plain = new_game(client, level="hard")
    assert "winnable" not in plain["next_deal"] and plain["winnable"] is False


def test_ping_keeps_the_clock_and_silence_stops_it(db_url: str) -> None:
    from bakers.session import FakeClock

    clock = FakeClock()
    with TestClient(create_app(db_url, clock=clock)) as c:
        g = new_game(c, deal=617)
        c.post(f"/api/games/{g['id']}/moves", json={"move": "1a"})
        for _ in range(4):
            clock.advance(5)
            assert c.post(f"/api/games/{g['id']}/ping", json={}).status_code == 200
        assert c.get(f"/api/games/{g['id']}").json()["score"]["seconds"] == 20
        clock.advance(300)  # the page was closed: no request for 5 minutes
        later = c.get(f"/api/games/{g['id']}").json()
        assert later["score"]["seconds"] <= 30


def test_continue_lists_games_with_moves_first_and_discards(client: TestClient) -> None:
    played = new_game(client, deal=11)
    client.post(f"/api/games/{played['id']}/moves", json={"move": "1a"})
    client.post(f"/api/games/{played['id']}/moves", json={"move": "2b"})
    untouched = new_game(client, deal=12)
    listed = client.get("/api/games").json()["games"]
    assert [x["id"] for x in listed] == [played["id"], untouched["id"]]
    assert listed[0]["moves"] == 2 and listed[0]["played"] is True and listed[1]["moves"] == 0
    gone = client.post(f"/api/games/{played['id']}/abandon", json={})
    assert gone.status_code == 200 and gone.json()["status"] == "abandoned"
    assert [x["id"] for x in client.get("/api/games").json()["games"]] == [untouched["id"]]
    [row] = client.get("/api/stats").json()["stats"]
    assert row["lost"] == 1
    assert client.post(f"/api/games/{played['id']}/abandon", json={}).status_code == 409
    client.cookies.clear()  # another player: to them the game does not exist
    assert client.post(f"/api/games/{untouched['id']}/abandon", json={}).status_code == 404


def test_a_deal_link_reuses_an_untouched_game(client: TestClient) -> None:
    first = client.get("/play/bakers_game/617?level=hard", follow_redirects=False)
    again = client.get("/play/bakers_game/617?level=hard", follow_redirects=False)
    assert first.headers["location"] == again.headers["location"]
    other = client.get("/play/bakers_game/617", follow_redirects=False)
    assert other.headers["location"] != first.headers["location"]
    gid = first.headers["location"].rsplit("/", 1)[1]
    client.post(f"/api/games/{gid}/moves", json={"move": "1a"})
    third = client.get("/play/bakers_game/617?level=hard", follow_redirects=False)
    assert third.headers["location"] != first.headers["location"]
    assert len(client.get("/api/games").json()["games"]) == 3
