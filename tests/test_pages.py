"""The page templates: what they embed for the page script, and the rules
pages' lessons (each a real position that the rules engine and the solver
agree with)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from jinja2 import Environment, FileSystemLoader

from bakers.board import Board
from bakers.errors import IllegalMoveError
from bakers.solver import solve

TEMPLATES = Path(__file__).resolve().parents[1] / "src" / "bakers" / "web" / "templates"
GAMES = ("bakers_game", "freecell", "bakers_dozen")


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True)


def _attr(page: str, name: str) -> str:
    m = re.search(rf'{name}="([^"]*)"', page)
    assert m, f"no {name} attribute"
    return html.unescape(m.group(1))


def _game_object() -> dict[str, object]:
    board = Board.deal("bakers_game", 617)
    return {"id": "abc", "game": "bakers_game", "title": "Baker's Game",
            "position": board.to_text(),
            "columns": [[str(c) for c in col] for col in board.columns],
            "message": "<b>&\"'"}


@pytest.mark.parametrize("as_text", [False, True])
def test_table_embeds_the_game_object(env: Environment, as_text: bool) -> None:
    game = _game_object()
    payload: object = json.dumps(game) if as_text else game
    page = env.get_template("table.html").render(game_json=payload, title="Baker's Game #617")
    assert json.loads(_attr(page, "data-game")) == game
    assert 'type="module"' in page
    assert "<b>&" not in page  # the message stays text
    for needle in ('id="board"', 'role="status"', 'aria-live="polite"', "/static/js/main.js",
                   'id="dlg-results"', 'id="dlg-new"', "Replace this position?"):
        assert needle in page


def test_table_without_context_still_renders(env: Environment) -> None:
    page = env.get_template("table.html").render()
    assert "data-game=" not in page and 'id="board"' in page


def test_home_renders(env: Environment) -> None:
    page = env.get_template("home.html").render(games=[])
    for needle in ('name="game" value="bakers_dozen"', 'name="level" value="hard"', 'id="deal"',
                   'id="winnable"', 'id="btn-daily"', 'id="continue-list"', "/static/js/home.js"):
        assert needle in page


def _lessons(page: str) -> list[tuple[str, str]]:
    found = re.findall(r'data-game="([a-z_]+)" data-position="([^"]*)"', page)
    return [(g, html.unescape(p)) for g, p in found]


@pytest.mark.parametrize("game", GAMES)
def test_rules_page_draws_real_cards(env: Environment, game: str) -> None:
    page = env.get_template("rules.html").render(game=game)
    cards = re.findall(r'data-card="([A2-9TJQK][CDHS])" role="img" aria-label="([^"]+)"', page)
    assert len(cards) >= 6
    assert ("7H", "7 of hearts") in cards
    assert "one-page reference" in page and 'aria-current="page"' in page
    lessons = _lessons(page)
    assert len(lessons) == (4 if game == "bakers_dozen" else 1)
    assert all(g == game for g, _ in lessons)


def _board(game: str, index: int) -> Board:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True)
    page = env.get_template("rules.html").render(game=game)
    g, position = _lessons(page)[index]
    return Board.from_text(position, game=g)


@pytest.mark.parametrize("game, index", [("bakers_dozen", i) for i in range(4)]
                         + [("bakers_game", 0), ("freecell", 0)])
def test_every_lesson_is_a_winnable_position(game: str, index: int) -> None:
    board = _board(game, index)
    assert solve(board, timeout=10).verdict.value == "winnable"


def test_lessons_teach_what_they_say() -> None:
    # rank-only joins: 8♠ goes onto 9♥
    _board("bakers_dozen", 0).copy().push_str("23")
    # exposed singles only: the three-card run is refused, singles are not
    singles = _board("bakers_dozen", 1)
    with pytest.raises(IllegalMoveError, match="single exposed cards only"):
        singles.copy().push_str("12/3")
    for move in ("15", "16", "12"):
        singles.push_str(move)
    # closed empty columns: once column 1 is empty, Q♠ cannot go there
    closed = _board("bakers_dozen", 2)
    for move in ("1h", "2h", "4h", "4h", "1h"):
        closed.push_str(move)
    assert closed.columns[0] == ()
    with pytest.raises(IllegalMoveError, match="cannot be refilled"):
        closed.copy().push_str("21")
    closed.push_str("24")
    # foundations follow suit: A♥ home, then 5♥ onto 6♥ frees 3♥
    suits = _board("bakers_dozen", 3)
    suits.push_str("1h")
    suits.push_str("34")
    # run moves: four cards onto a column, only two into the empty column
    for game in ("bakers_game", "freecell"):
        runs = _board(game, 0)
        with pytest.raises(IllegalMoveError, match="you can move 2"):
            runs.copy().push_str("18/4")
        runs.push_str("12/4")
