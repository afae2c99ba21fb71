"""What the server sends for the newcomer's table (issue 27): the icon
browsers ask for, the games and levels the home page draws (with each
level's share of winnable deals), and moves numbered as the player counts
them."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bakers.web import create_app
from bakers.web.shares import WINNABLE_SHARE, share_text


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'pages.sqlite3'}")
    with TestClient(app, raise_server_exceptions=False,
                    headers={"content-type": "application/json"}) as c:
        yield c


def test_favicon_answers(client: TestClient) -> None:
    r = client.get("/favicon.ico")
    assert r.status_code == 200
    assert r.headers["content-type"] == "image/png"
    assert r.content.startswith(b"\x89PNG")
    assert "max-age" in r.headers["cache-control"]


def home_games(client: TestClient) -> dict[str, dict[str, Any]]:
    page = client.get("/").text
    m = re.search(r'id="new-form" data-games="([^"]*)"', page)
    assert m, "the home page's form carries no game data"
    return {g["name"]: g for g in json.loads(html.unescape(m.group(1)))}


def test_home_page_carries_titles_levels_and_winnable_shares(client: TestClient) -> None:
    games = home_games(client)
    assert {n: g["title"] for n, g in games.items()} == {
        "bakers_game": "Baker's Game", "freecell": "FreeCell", "bakers_dozen": "Baker's Dozen"}
    # Baker's Dozen has no Hard level: the page learns it here
    assert [lv["name"] for lv in games["bakers_dozen"]["level_notes"]] == [
        "easy", "normal", "expert"]
    hard = {lv["name"]: lv for lv in games["bakers_game"]["level_notes"]}["hard"]
    assert hard["cells"] == 3
    assert hard["winnable_share"] == pytest.approx(9_394 / 32_000)
    assert hard["note"] == "3 cells · random deals · 29 % can be won"
    normal = {lv["name"]: lv for lv in games["bakers_game"]["level_notes"]}["normal"]
    assert normal["note"] == "4 cells · random deals · 75 % can be won"
    easy = {lv["name"]: lv for lv in games["freecell"]["level_notes"]}["easy"]
    assert easy["winnable_share"] == 1.0 and "winnable deals" in easy["note"]
    dozen = {lv["name"]: lv for lv in games["bakers_dozen"]["level_notes"]}["normal"]
    assert dozen["note"] == "random deals · over 99 % can be won"


def test_shares_match_the_atlas_table() -> None:
    """The figures are docs/atlas.md's, row for row."""
    atlas = (Path(__file__).resolve().parents[1] / "docs" / "atlas.md").read_text("utf-8")
    titles = {"freecell": "FreeCell", "bakers_game": "Baker's Game"}
    for (game, cells), share in WINNABLE_SHARE.items():
        if game == "bakers_dozen":
            row = re.search(r"^\| Baker's Dozen \| – \|[^|]*\| [\d,]+ \| ([\d,]+) \| ([\d,]+) \|",
                            atlas, re.M)
            assert row
            won, lost = (int(x.replace(",", "")) for x in row.groups())
            assert share == won / (won + lost)
            continue
        row = re.search(rf"^\| {re.escape(titles[game])} \| {cells} \|[^|]*\| ([\d,]+) \| "
                        r"([\d,]+) \|", atlas, re.M)
        assert row, (game, cells)
        deals, won = (int(x.replace(",", "")) for x in row.groups())
        assert share == won / deals
    assert share_text(0.2935) == "29 % can be won"
    assert share_text(0.99996) == "over 99 % can be won"


def test_move_numbers_count_player_moves(client: TestClient) -> None:
    r = client.post("/api/games", json={"game": "bakers_game", "deal": 2, "level": "hard"})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    for move in ("1a", "1b"):
        r = client.post(f"/api/games/{gid}/moves", json={"move": move})
        assert r.status_code == 200, r.text
    g = r.json()
    # A♠ went home right after the deal (no move of the player's: 0), A♥ after
    # the player's 1a: four moves on record, two of the player's
    assert g["moves"] == ["1h", "1a", "1h", "1b"]
    assert g["move_numbers"] == [0, 1, 1, 2]
    assert g["score"]["moves"] == 2
    r = client.post(f"/api/games/{gid}/undo")
    assert r.json()["move_numbers"] == [0, 1, 1]


@pytest.mark.parametrize(("path", "said"), [
    ("/play/freecell/7", "column 1 to 8, free cell a to d, h for"),
    ("/play/bakers_game/2?level=hard", "column 1 to 8, free cell a to c, h for"),
    ("/play/bakers_dozen/5", "column 1 to 9 (t j q k for 10 to 13), h for"),
])
def test_board_label_names_the_game_s_own_places(client: TestClient, path: str,
                                                 said: str) -> None:
    page = client.get(path, headers={"sec-fetch-site": "same-origin"}).text
    label = re.search(r'aria-label="(Card table[^"]*)"', page)
    assert label and said in label.group(1)


@pytest.mark.parametrize(("game", "said"), [
    ("freecell", "columns 1–8, free cells a–d"), ("bakers_game", "columns 1–8, free cells a–d"),
    ("bakers_dozen", "columns 1–9, t j q k for 10–13, foundation h")])
def test_printable_reference_names_the_columns(client: TestClient, game: str, said: str) -> None:
    assert said in client.get(f"/rules/{game}").text
