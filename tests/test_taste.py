"""What players of the big sites look for, through the HTTP API: a run too
long for an empty column moves its longest part."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import LONG_RUN

from bakers import Board
from bakers.solver import solve
from bakers.web import create_app

TWO_OF_SIX = ("Moved 2 of 6 cards: with 1 free cell and 0 empty columns you can move 2 "
              "into an empty column")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'taste.sqlite3'}", deal_budget=2.0,
                     hint_budget=2.0)
    with TestClient(app, raise_server_exceptions=False,
                    headers={"content-type": "application/json"}) as c:
        yield c


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def intent(client: TestClient, gid: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"/api/games/{gid}/intent", json=body)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_a_run_dropped_on_an_empty_column_moves_its_longest_part(client: TestClient) -> None:
    g = new_game(client, game="freecell", position=LONG_RUN)
    after = intent(client, g["id"], **{"from": "1", "to": "8", "count": 6})
    assert after["refused"] is None
    assert after["columns"][7] == ["8S", "7H"]
    assert after["columns"][0] == ["QS", "JH", "TS", "9H"]
    assert after["moves"] == ["18"]
    assert after["message"] == TWO_OF_SIX
    # the note lasts until the next action
    later = intent(client, g["id"], **{"from": "2", "to": "d"})
    assert later["refused"] is None and later["message"] is None


def test_a_run_too_long_for_an_occupied_column_is_still_refused(client: TestClient) -> None:
    g = new_game(client, game="freecell", position=LONG_RUN)
    refused = intent(client, g["id"], **{"from": "1", "to": "6", "count": 6})
    assert refused["refused"] == ("this run has 6 cards; with 1 free cell and 1 empty column "
                                  "you can move 4")
    assert refused["columns"] == g["columns"] and refused["moves"] == []


def test_a_run_that_is_no_run_or_fits_is_unchanged(client: TestClient) -> None:
    g = new_game(client, game="freecell", position=LONG_RUN)
    # not a run: the refusal says so, nothing moves
    bad = intent(client, g["id"], **{"from": "2", "to": "8", "count": 3})
    assert bad["refused"] is not None and "not a run" in bad["refused"]
    # a run that fits moves whole, without a note
    fits = intent(client, g["id"], **{"from": "1", "to": "8", "count": 2})
    assert fits["refused"] is None and fits["message"] is None
    assert fits["columns"][7] == ["8S", "7H"]


def test_a_clicked_run_with_no_place_moves_its_longest_part(client: TestClient) -> None:
    g = new_game(client, game="freecell", position=LONG_RUN)
    after = intent(client, g["id"], **{"from": "1", "count": 6})
    assert after["refused"] is None and after["message"] == TWO_OF_SIX
    assert after["columns"][7] == ["8S", "7H"]


def test_written_notation_keeps_its_exact_count(client: TestClient) -> None:
    """A move typed with its count (``18/6``) means those cards: refused."""
    g = new_game(client, game="freecell", position=LONG_RUN)
    r = client.post(f"/api/games/{g['id']}/moves", json={"move": "18/6"})
    assert r.status_code == 422, r.text
    assert "you can move 2 into an empty column" in r.json()["error"]


def test_no_part_where_empty_columns_cannot_be_filled(client: TestClient) -> None:
    g = new_game(client, game="bakers_dozen", deal=3)
    r = intent(client, g["id"], **{"from": "1", "to": "2", "count": 2})
    assert r["refused"] == "Baker's Dozen moves single exposed cards only"
    assert r["columns"] == g["columns"] and r["moves"] == g["moves"]


# --- the deal's own safe cards, and "Auto-finish" -----------------------------------------

def test_safe_cards_go_home_right_after_the_deal(client: TestClient) -> None:
    # Baker's Game deal 2: column 1 ends with the ace of spades
    g = new_game(client, game="bakers_game", deal=2)
    assert g["moves"] == ["1h"] and g["foundations"]["S"] == 1
    assert g["score"]["home"] == 1 and g["score"]["moves"] == 0
    assert g["can_undo"] is False and g["played"] is False
    # kept through a reload, and after a move and a restart
    again = client.get(f"/api/games/{g['id']}").json()
    assert again["moves"] == ["1h"] and again["columns"] == g["columns"]
    legal = g["legal_moves"][0]
    played = client.post(f"/api/games/{g['id']}/moves", json={"move": legal}).json()
    assert played["moves"][0] == "1h" and played["can_undo"] is True
    undone = client.post(f"/api/games/{g['id']}/undo", json={}).json()
    assert undone["columns"] == g["columns"] and undone["can_undo"] is False
    restarted = client.post(f"/api/games/{g['id']}/restart", json={}).json()
    assert restarted["moves"] == ["1h"] and restarted["columns"] == g["columns"]
    # with autoplay off, the deal is left as dealt
    off = new_game(client, game="bakers_game", deal=2, autoplay="off")
    assert off["moves"] == [] and off["foundations"]["S"] == 0


FINISHABLE = """Foundations: H-J C-K D-K S-J
QS KH
KS QH
"""

NOT_FINISHABLE = """Foundations: H-J C-K D-Q S-J
QS KH
QH KS
KD
"""


def test_auto_finish_plays_up_the_rest_as_one_action(client: TestClient) -> None:
    g = new_game(client, game="bakers_game", position=FINISHABLE)
    assert g["status"] == "playing" and g["can_finish"] is True
    done = client.post(f"/api/games/{g['id']}/finish", json={})
    assert done.status_code == 200, done.text
    won = done.json()
    assert won["status"] == "won" and won["can_finish"] is False
    assert won["moves"] == ["2h", "1h", "1h", "2h"] and won["score"]["moves"] == 1
    assert len(won["action"]["movements"]) == 4


def test_auto_finish_is_refused_while_a_decision_is_left(client: TestClient) -> None:
    g = new_game(client, game="bakers_game", position=NOT_FINISHABLE)
    assert g["can_finish"] is False
    r = client.post(f"/api/games/{g['id']}/finish", json={})
    assert r.status_code == 409 and r.json()["error"] == (
        "the cards cannot all go home by themselves yet")
    assert client.get(f"/api/games/{g['id']}").json()["moves"] == []


# --- the daily-deal archive -------------------------------------------------------------------

def test_the_daily_archive_lists_the_days_with_the_players_results(client: TestClient) -> None:
    import datetime as dt

    from bakers.deals import today_utc

    today = today_utc()
    empty = client.get("/api/daily/freecell").json()
    assert empty["today"] == today.isoformat() and empty["streak"] == 0
    assert len(empty["days"]) == 60 and empty["days"][0]["date"] == today.isoformat()
    assert all(d["result"] is None for d in empty["days"])
    # yesterday's daily deal, played from the archive, and won
    yesterday = (today - dt.timedelta(days=1)).isoformat()
    g = new_game(client, game="freecell", daily=True, date=yesterday, autoplay="off")
    assert g["daily"] == yesterday and g["level"] == "daily"
    result = solve(Board.deal("freecell", g["deal"]), timeout=20)
    last: dict[str, Any] = g
    for move in result.moves:
        r = client.post(f"/api/games/{g['id']}/moves",
                        json={"move": move.notation(with_count=True)})
        assert r.status_code == 200, r.text
        last = r.json()
        if last["status"] == "won":
            break
    assert last["status"] == "won"
    won = last
    archive = client.get("/api/daily/freecell").json()
    day = archive["days"][1]
    assert day["date"] == yesterday and day["result"] == "won" and day["id"] == g["id"]
    assert day["moves"] == won["score"]["moves"]
    # today not played yet: the streak of yesterday's win stands
    assert archive["streak"] == 1
    # another game's archive is its own
    assert client.get("/api/daily/bakers_game").json()["streak"] == 0


def test_the_archive_refuses_days_it_does_not_keep(client: TestClient) -> None:
    import datetime as dt

    from bakers.deals import today_utc

    today = today_utc()
    for date, reason in (((today + dt.timedelta(days=1)).isoformat(), "not out yet"),
                         ((today - dt.timedelta(days=60)).isoformat(), "last 60 days"),
                         ("2026-13-01", "YYYY-MM-DD")):
        r = client.post("/api/games", json={"game": "freecell", "daily": True, "date": date})
        assert r.status_code == 400 and reason in r.json()["error"], r.text
    r = client.post("/api/games", json={"game": "freecell", "date": today.isoformat()})
    assert r.status_code == 400 and "goes with daily" in r.json()["error"]
    assert client.get("/api/daily/nosuchgame").status_code == 404


def test_the_archive_page_shows_a_calendar_of_playable_days(client: TestClient) -> None:
    from bakers.deals import today_utc

    today = today_utc().isoformat()
    page = client.get("/daily/freecell")
    assert page.status_code == 200
    text = page.text
    assert "FreeCell: daily deals" in text and "Current streak: <b>0</b>" in text
    assert f'href="/play/daily/freecell?date={today}"' in text
    assert text.count('class="day open"') == 60
    g = new_game(client, game="freecell", daily=True)
    again = client.get("/daily/freecell").text
    assert f'href="/game/{g["id"]}"' in again
    assert again.count('class="day open"') == 59 and 'class="day playing"' in again
    # a day's link deals that day's deal
    import datetime as dt
    yesterday = (today_utc() - dt.timedelta(days=1)).isoformat()
    start = client.get(f"/play/daily/freecell?date={yesterday}", follow_redirects=False)
    assert start.status_code == 303, start.text
    dealt = client.get("/api/games/" + start.headers["location"].rsplit("/", 1)[1]).json()
    assert dealt["daily"] == yesterday and dealt["level"] == "daily"
    assert client.get("/daily/nosuchgame").status_code == 404


def test_the_home_page_links_each_games_archive(client: TestClient) -> None:
    text = client.get("/").text
    for game in ("bakers_game", "freecell", "bakers_dozen"):
        assert f'href="/daily/{game}"' in text
