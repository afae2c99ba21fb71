"""Lessons: each a real position whose goal (data) the server checks, at its
own address, never in the statistics."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bakers.board import Board
from bakers.errors import IllegalMoveError, UnknownGameError
from bakers.lessons import (
    LESSON_DATA,
    LESSONS,
    Step,
    UnknownLessonError,
    find_lesson,
    lesson_by_key,
    lessons_of,
    next_lesson,
)
from bakers.session import Session
from bakers.solver import Verdict, solve
from bakers.web import create_app
from bakers.web.views import game_view

ALL = [lesson for found in LESSONS.values() for lesson in found]


# --- the lessons as data ----------------------------------------------------------------------

def test_every_game_has_its_lessons_in_order() -> None:
    assert [len(LESSONS[g]) for g in ("bakers_dozen", "bakers_game", "freecell")] == [4, 2, 2]
    for game, found in LESSONS.items():
        assert [lesson.number for lesson in found] == list(range(1, len(found) + 1))
        assert all(lesson.game == game and lesson.key == f"{game}/{lesson.number}"
                   for lesson in found)
    assert lessons_of("Baker's Dozen") == LESSONS["bakers_dozen"]
    assert next_lesson(find_lesson("bakers_dozen", 3)) == find_lesson("bakers_dozen", 4)
    assert next_lesson(find_lesson("bakers_dozen", 4)) is None
    assert lesson_by_key("freecell/2").title == "Cells carry a run"
    for bad in ("freecell/3", "freecell/0", "freecell/x", "freecell", "nope/1"):
        with pytest.raises(UnknownGameError):  # an unknown lesson: 404, as an unknown game
            lesson_by_key(bad)
    with pytest.raises(UnknownLessonError, match="lessons 1 to 2"):
        find_lesson("freecell", 3)


@pytest.mark.parametrize("lesson", ALL, ids=[lesson.key for lesson in ALL])
def test_every_lesson_is_winnable_and_its_goal_is_not_met_at_the_start(lesson: Any) -> None:
    board = lesson.board()
    assert solve(board, timeout=10).verdict is Verdict.WINNABLE
    start = lesson.progress(board, [])
    assert not start.met and not start.over and not any(start.steps)


def test_step_data_is_checked() -> None:
    for bad in ({}, {"home": ["AH"], "empty": 1}, {"on": "9H"}, {"empty": 0},
                {"home": ["AH"], "colour": "red"}):
        with pytest.raises(ValueError):
            Step.from_data(bad)
    with pytest.raises(ValueError):
        Step.from_data({"home": ["1X"]})


# --- the goal checks --------------------------------------------------------------------------

def test_home_step() -> None:
    board = Board.from_text("Foundations: H-5 C-K D-K S-K\n6H\nKH QH JH TH 9H 8H 7H\n",
                            game="bakers_game")
    step = Step.from_data({"home": ["5H", "6H"]})
    assert step.text() == "5♥, 6♥ home"
    assert not step.met(board)
    board.push_str("1h")
    assert step.met(board)
    assert Step.from_data({"home": ["AH", "2H", "3H"]}).text() == "A♥ to 3♥ home"


def test_on_step_needs_the_whole_run_right_on_the_card() -> None:
    board = Board.from_text("Foundations: H-5 C-J D-J S-6\nFreecells: QS JS TS -\n"
                            "6H TH 9H 8H 7H\nKH QH JH\nKS 9S 8S 7S\nKC\nKD\nQC\nQD\n:\n",
                            game="bakers_game")
    step = Step.from_data({"on": "JH", "run": ["TH", "9H", "8H", "7H"]})
    assert step.text() == "10♥ 9♥ 8♥ 7♥ on J♥"
    assert not step.met(board)
    part = board.copy()
    part.push_str("18")  # 7♥ alone to the empty column: the run is broken up
    assert not step.met(part)
    assert not Step.from_data({"on": "JH", "run": ["9H", "8H"]}).met(board)
    board.push_str("12/4")
    assert step.met(board)


def test_empty_step() -> None:
    board = Board.from_text("Foundations: H-K C-K D-9 S-8\nKD 9S\nTS QS TD\nJS\nKS QD JD\n",
                            game="bakers_dozen")
    step = Step.from_data({"empty": 1})
    assert step.text() == "column 1 empty" and not step.met(board)
    for move in ("1h", "2h", "4h", "4h", "1h"):
        board.push_str(move)
    assert step.met(board)
    assert not Step.from_data({"empty": 14}).met(board)


def test_steps_are_met_in_order_along_the_current_line() -> None:
    lesson = find_lesson("bakers_dozen", 1)  # 8♠ on 9♥, then the hearts home
    start = lesson.board()
    # 8♠ straight home: the hearts get home but the rank-only join was never made
    direct = [["2h"], ["2h"], ["4h"], ["6h"], ["3h"], ["1h"], ["1h"], ["1h"], ["1h"]]
    board = start.copy()
    for group in direct:
        for move in group:
            board.push_str(move)
    assert Step.from_data(LESSON_DATA["bakers_dozen"][0]["goal"][1]).met(board)
    done = lesson.progress(start, direct)
    assert done.steps == (False, False) and not done.met
    taught = [["23"], ["2h"], ["4h"], ["6h"], ["3h"], ["3h"], ["1h"], ["1h"], ["1h"], ["1h"]]
    halfway = lesson.progress(start, taught[:3])
    assert halfway.steps == (True, False) and not halfway.met
    done = lesson.progress(start, taught)
    assert done.steps == (True, True) and done.met and done.at == len(taught)


def test_a_move_limit_counts_player_actions() -> None:
    lesson = find_lesson("freecell", 1)  # the run onto J♥ in one move
    start = lesson.board()
    assert lesson.goal_text() == "10♠ 9♥ 8♠ 7♥ on J♥, in one move"
    assert lesson.progress(start, [["12/4"]]).met
    late = lesson.progress(start, [["5d"], ["d5"], ["12/4"]])
    assert not late.met and late.over and late.at == 3
    stray = lesson.progress(start, [["5d"]])
    assert not stray.met and stray.over
    # card by card is the same transfer, but not what this lesson asks
    singles = [["1d"], ["18"], ["d8"], ["1d"], ["12"], ["d2"], ["82"], ["d2"]]
    board = start.copy()
    with pytest.raises(IllegalMoveError):
        for group in singles:
            for move in group:
                board.push_str(move)


def test_the_lessons_teach_what_they_say() -> None:
    singles = find_lesson("bakers_dozen", 2).board()
    with pytest.raises(IllegalMoveError, match="single exposed cards only"):
        singles.copy().push_str("12/3")
    closed = find_lesson("bakers_dozen", 3).board()
    for move in ("1h", "2h", "4h", "4h", "1h"):
        closed.push_str(move)
    with pytest.raises(IllegalMoveError, match="cannot be refilled"):
        closed.copy().push_str("21")
    for key in ("bakers_game/1", "freecell/1"):
        runs = lesson_by_key(key).board()
        with pytest.raises(IllegalMoveError, match="you can move 2"):
            runs.copy().push_str("18/4")
    for key in ("bakers_game/2", "freecell/2"):  # two cells, no empty column: 3 cards
        cells = lesson_by_key(key).board()
        assert sum(c is None for c in cells.cells) == 2
        assert all(cells.columns)
        cells.copy().push_str("12/3")


# --- the game object ----------------------------------------------------------------------------

def test_a_lesson_session_reports_its_goal_and_saves_its_key() -> None:
    lesson = find_lesson("bakers_dozen", 2)
    session = Session(lesson.board(), autoplay="off", practice=True, lesson=lesson.key)
    view = game_view("x", session)["lesson"]
    assert view["key"] == "bakers_dozen/2" and view["number"] == 2 and view["count"] == 4
    assert view["steps"] == [{"text": "9♦ on 10♠", "met": False}]
    assert not view["met"] and view["message"] is None
    assert view["next"] == {"number": 3, "title": "Closed empty columns",
                            "address": "/lessons/bakers_dozen/3"}
    for move in ("15", "16"):
        session.play(move)
    again = Session.from_dict(json.loads(json.dumps(session.to_dict())))
    assert again.lesson == "bakers_dozen/2" and again.practice
    assert not game_view("x", again)["lesson"]["met"]
    again.play("12")  # 9♦ onto 10♠, and then every card goes home by itself
    view = game_view("x", again)["lesson"]
    assert view["met"] and view["steps"][0]["met"] and again.status.value == "won"
    assert view["message"].startswith("Goal met. Next: lesson 3")
    assert game_view("x", again)["replay"] == {"lesson": "bakers_dozen/2"}
    assert game_view("x", again)["next_deal"] == {"game": "bakers_dozen"}
    # undo takes the goal back with the move
    cells = Session(find_lesson("bakers_game", 2).board(), lesson="bakers_game/2")
    cells.play("12/3")
    assert game_view("x", cells)["lesson"]["met"] and cells.status.value == "playing"
    cells.undo()
    assert not game_view("x", cells)["lesson"]["met"]
    # another move first: the goal can no longer be met in one move
    cells.play("3c")
    view = game_view("x", cells)["lesson"]
    assert view["over"] and view["retry"] and "restart the lesson (or undo)" in view["message"]
    # the cards all home without the goal: the lesson is to be taken again
    direct = Session(find_lesson("bakers_dozen", 1).board(), lesson="bakers_dozen/1",
                     autoplay="off")
    direct.play("2h")  # 8♠ straight home (no rank-only join)
    # a lesson finishes by itself only once its goal is met: the player plays on
    assert direct.status.value == "playing" and len(direct.moves) == 1
    while direct.status.value == "playing":
        direct.play(next(m for m in direct.legal_moves() if m.dst.is_foundation))
    assert direct.status.value == "won"
    view = game_view("x", direct)["lesson"]
    assert not view["met"] and not view["over"] and view["retry"]
    assert view["message"] == "The game ended before the goal was met: try the lesson again."
    assert game_view("y", Session(lesson.board()))["lesson"] is None


def test_the_last_lesson_leads_to_a_full_deal() -> None:
    lesson = find_lesson("freecell", 2)
    session = Session(lesson.board(), autoplay="off", lesson=lesson.key)
    assert session.practice and session.help.indicator  # the indicator is on for lessons
    session.play("12/3")
    view = game_view("x", session)["lesson"]
    assert view["met"] and view["next"] is None and view["full_deal"] == "/play/freecell"
    assert "last FreeCell lesson: try a full deal" in view["message"]


# --- at its own address -------------------------------------------------------------------------

@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'lessons.sqlite3'}", deal_budget=2.0,
                     hint_budget=2.0)
    with TestClient(app, raise_server_exceptions=False,
                    headers={"content-type": "application/json"}) as c:
        yield c


def _game_of(page: str) -> dict[str, Any]:
    found = re.search(r'data-game="([^"]*)"', page)
    assert found is not None
    data: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return data


def test_a_lesson_address_opens_and_continues_its_game(client: TestClient) -> None:
    r = client.get("/lessons/bakers_dozen/2")
    assert r.status_code == 200 and 'id="lesson"' in r.text
    game = _game_of(r.text)
    assert game["lesson"]["key"] == "bakers_dozen/2" and game["practice"] is True
    assert game["settings"]["autoplay"] == "off" and game["study"]["indicator"] is True
    assert "Lesson 2 of Baker's Dozen: Exposed singles only" in html.unescape(r.text)
    # a refused move says why, as in play
    refused = client.post(f"/api/games/{game['id']}/intent",
                          json={"from": "1", "to": "2", "count": 3}).json()
    assert "single exposed cards only" in refused["refused"]
    client.post(f"/api/games/{game['id']}/moves", json={"move": "15"})
    # opening the address again continues the same game while its goal is not met
    again = _game_of(client.get("/lessons/bakers_dozen/2").text)
    assert again["id"] == game["id"] and again["moves"] == ["15"]
    for move in ("16", "12"):
        done = client.post(f"/api/games/{game['id']}/moves", json={"move": move}).json()
    assert done["lesson"]["met"] is True
    assert done["lesson"]["next"]["address"] == "/lessons/bakers_dozen/3"
    # with the goal met, the address deals the lesson afresh
    fresh = _game_of(client.get("/lessons/bakers_dozen/2").text)
    assert fresh["id"] != game["id"] and fresh["moves"] == []
    # never in "Continue" nor in the statistics, even when won
    four = _game_of(client.get("/lessons/bakers_dozen/4").text)
    for move in ("1h", "34"):
        won = client.post(f"/api/games/{four['id']}/moves", json={"move": move}).json()
    # a lesson checks the player's own moves: the hearts go home one by one,
    # and once the goal is met the rest goes home by itself
    assert won["status"] == "playing" and won["lesson"]["met"] is False
    while won["status"] == "playing":
        home = next(m for m in won["legal_moves"] if m.endswith("h"))
        won = client.post(f"/api/games/{four['id']}/moves", json={"move": home}).json()
    assert won["status"] == "won" and won["lesson"]["met"] is True
    assert client.get("/api/games").json()["games"] == []
    assert client.get("/api/stats").json()["stats"] == []


def test_lesson_addresses_and_refusals(client: TestClient) -> None:
    for path, where in (("/lessons/Bakers-Dozen/2", "/lessons/bakers_dozen/2"),
                        ("/lessons/freecell/01", "/lessons/freecell/1")):
        r = client.get(path, follow_redirects=False)
        assert r.status_code == 308 and r.headers["location"] == where
    r = client.get("/lessons/freecell", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/lessons/freecell/1"
    for path in ("/lessons/freecell/3", "/lessons/freecell/x", "/lessons/patience/1"):
        r = client.get(path)
        assert r.status_code == 404 and "<html" in r.text.lower()
    # opened from another site: asks first, and the button's body opens the lesson
    r = client.get("/lessons/freecell/2", headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 200 and 'id="lesson"' not in r.text and "start-game" in r.text
    body = json.loads(html.unescape(re.search(r'data-body="([^"]*)"', r.text).group(1)))
    assert body == {"lesson": "freecell/2"}
    game = client.post("/api/games", json=body).json()
    assert game["lesson"]["key"] == "freecell/2" and game["cells"] == 4
    # the API: a lesson alone, by its key
    for bad, status in (({"lesson": "freecell/9"}, 404),
                        ({"lesson": "freecell/1", "deal": 5}, 400),
                        ({"lesson": "freecell/1", "cells": 2}, 400),
                        ({"lesson": 3}, 400)):
        assert client.post("/api/games", json=bad).status_code == status, bad


def test_the_rules_page_links_each_lesson(client: TestClient) -> None:
    page = client.get("/rules/bakers_dozen").text
    links = re.findall(r'href="(/lessons/[a-z_]+/\d+)"', page)
    assert links == [f"/lessons/bakers_dozen/{n}" for n in range(1, 5)]
    assert "Goal:</b> 8♠ on 9♥, then 6♥ to K♥ home." in page
    page = client.get("/rules/freecell").text
    assert "/lessons/freecell/2" in page and "in one move" in page
