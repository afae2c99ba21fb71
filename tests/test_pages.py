"""The page templates: what they embed for the page script, and the rules
pages with their lessons."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from jinja2 import Environment, FileSystemLoader

from bakers.board import Board
from bakers.lessons import lessons_of

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


@pytest.mark.parametrize("game", GAMES)
def test_rules_page_draws_real_cards(env: Environment, game: str) -> None:
    page = env.get_template("rules.html").render(game=game, lessons=lessons_of(game))
    cards = re.findall(r'data-card="([A2-9TJQK][CDHS])" role="img" aria-label="([^"]+)"', page)
    assert len(cards) >= 6
    assert ("7H", "7 of hearts") in cards
    assert "one-page reference" in page and 'aria-current="page"' in page
    # each lesson (bakers.lessons, tested in test_lessons.py) links to its own address
    links = re.findall(r'class="button primary lesson-go" href="([^"]+)"', page)
    assert links == [lesson.address for lesson in lessons_of(game)]
    assert len(links) == (4 if game == "bakers_dozen" else 2)
