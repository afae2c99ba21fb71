"""Studying at the table, as a person does it: real Chromium (Playwright)
against a real ``bakers serve`` (the ``live_server`` fixture). The losing
moves used here are checked with Freecell Solver too, when it is installed.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from browser import Table, axe_violations, open_deal
from conftest import CHROMIUM, fc_solve_verdict

from bakers.board import Board
from bakers.record import GameRecord

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH for the browser tests"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")

DATA = Path(__file__).resolve().parent / "data"
RECORDS = json.loads((DATA / "analyse_records.json").read_text())
FC_SOLVE = shutil.which("fc-solve")


def wait_verdict(table: Table, verdict: str, timeout: float = 15_000) -> None:
    table.page.wait_for_selector(f"#indicator[data-verdict='{verdict}']", timeout=timeout)


def columns_of(board: Board) -> list[list[str]]:
    return [[str(c) for c in col] for col in board.columns]


def api_moves(table: Table, moves: list[str]) -> None:
    """Play moves through the JSON API from the page (the player's own
    cookie), autoplay off so that the record's own foundation moves play."""
    game_id = table.page.url.rsplit("/", 1)[1]
    table.page.evaluate(
        """async ([id, moves]) => {
             await fetch(`/api/games/${id}/settings`, {method: "POST",
               headers: {"Content-Type": "application/json"}, body: '{"autoplay": "off"}'});
             for (const m of moves) {
               const r = await fetch(`/api/games/${id}/moves`, {method: "POST",
                 headers: {"Content-Type": "application/json", Accept: "application/json"},
                 body: JSON.stringify({move: m})});
               if (!r.ok) throw new Error(await r.text());
             }
           }""", [game_id, moves])


# --- the indicator ----------------------------------------------------------------------------

def test_indicator_says_no_longer_winnable_after_a_known_losing_move(table: Table) -> None:
    """Baker's Game deal 617 at Easy (the indicator is on by default): 3b
    sends K♣ to a cell, after which the deal cannot be won."""
    if FC_SOLVE:
        board = Board.deal("bakers_game", 617)
        assert fc_solve_verdict(board) == "winnable"
        board.push_str("3b")
        assert fc_solve_verdict(board) == "impossible"
    table.open("/play/bakers_game/617?level=easy")
    wait_verdict(table, "winnable")
    assert "Still winnable" in (table.page.text_content("#indicator") or "")
    table.keys("3", "b")
    table.wait_moves(1)
    wait_verdict(table, "impossible")
    text = table.page.text_content("#indicator") or ""
    assert "No longer winnable" in text and "move 1 (3b)" in text
    assert table.page.get_attribute("#indicator", "data-lost-at") == "1"
    latency = int(table.page.get_attribute("#indicator", "data-latency") or "0")
    assert latency < 5000
    table.page.keyboard.press("Control+z")
    table.wait_moves(2)
    wait_verdict(table, "winnable")


def test_indicator_is_a_setting_off_by_default_at_normal(table: Table) -> None:
    table.open("/play/bakers_game/617")
    assert table.page.is_hidden("#indicator")
    table.page.click("#btn-settings")
    table.page.check("input[name='indicator']")
    table.page.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('indicator is on')")
    table.page.click("#dlg-settings button[value='close']")
    wait_verdict(table, "winnable")
    # a later move replaces the verdict: two quick moves, the answer is about the last
    table.keys("3", "b")
    table.keys("8", "c")
    table.wait_moves(2)
    wait_verdict(table, "impossible")
    assert table.page.get_attribute("#indicator", "data-moves") == "2"
    assert "since move 1 (3b)" in (table.page.text_content("#indicator") or "")


def test_indicator_asks_again_when_its_answer_was_taken_over(table: Table) -> None:
    """A verdict answered stale (another question took this one's place and
    was dropped) leaves the position undecided: the page asks again, once,
    and shows the answer about the position on the table."""
    stale: list[str] = []

    def first_stale(route: Any) -> None:
        if not stale and "moves=1" in route.request.url:
            stale.append(route.request.url)
            route.fulfill(status=200, content_type="application/json", body=json.dumps(
                {"moves": 1, "stale": True, "lost_at": None, "lost_move": None,
                 "verdict": None, "indicator": True}))
        else:
            route.continue_()

    table.page.route("**/verdict*", first_stale)
    table.open("/play/bakers_game/617?level=easy")
    wait_verdict(table, "winnable")
    table.keys("3", "b")
    table.wait_moves(1)
    wait_verdict(table, "impossible")
    assert len(stale) == 1
    assert table.page.get_attribute("#indicator", "data-moves") == "1"


# --- which move lost it -----------------------------------------------------------------------

def test_results_screen_names_the_move_that_lost_it(table: Table) -> None:
    case = next(c for c in RECORDS if c["deal"] == 12)
    record = GameRecord.from_text(case["record"])
    open_deal(table, "bakers_game", record.deal, autoplay="off")  # the record's own aces
    api_moves(table, list(record.moves))
    table.page.reload()
    table.page.wait_for_selector("#app[data-ready='true']")
    assert table.page.is_visible("#blocked")
    table.page.click("#blocked button[data-act='analyse']")
    table.page.wait_for_selector("#dlg-results[open]")
    table.page.wait_for_selector("#r-analysis[data-index]")
    index = case["first_losing_move"]
    assert table.page.get_attribute("#r-analysis", "data-index") == str(index)
    text = table.page.text_content("#r-analysis-text") or ""
    assert f"Move {index}, {case['move']}" in text
    assert table.page.locator("#r-analysis .mini-card.mini-lost").count() >= 1
    assert table.page.locator("#r-analysis .mini-card.mini-alive").count() >= 1
    assert "kept the game alive" in (table.page.text_content("#r-analysis-alive") or "")
    table.shot("results-analysis.png")
    assert axe_violations(table.page) == []


# --- the solution, played back ----------------------------------------------------------------

def test_playback_steps_forward_and_back_and_returns_to_the_start(table: Table) -> None:
    table.open("/play/bakers_game/617")
    deal = columns_of(Board.deal("bakers_game", 617))
    table.page.click("#btn-solution")
    table.page.wait_for_selector("#dlg-solution[open]")
    assert axe_violations(table.page) == []
    table.page.click("#dlg-solution button[value='show']")
    table.page.wait_for_selector("#playback:not([hidden])")
    assert re.fullmatch(r"Step 0 of \d+", table.page.text_content("#pb-step") or "")
    # the keyboard steps the line; each step is announced
    table.page.keyboard.press("ArrowRight")
    table.page.wait_for_selector("#playback[data-step='1']")
    table.page.wait_for_function(
        "() => document.querySelector('#announce').textContent.startsWith('Step 1 of')")
    table.page.click("#pb-fwd")
    table.page.wait_for_selector("#playback[data-step='2']")
    after_two = table.columns()
    assert after_two != deal
    table.page.click("#pb-back")
    table.page.wait_for_selector("#playback[data-step='1']")
    table.page.keyboard.press("ArrowLeft")
    table.page.wait_for_selector("#playback[data-step='0']")
    assert table.columns() == deal
    # play and pause
    table.page.select_option("#pb-speed", "fast")
    table.page.click("#pb-play")
    table.page.wait_for_function(
        "() => Number(document.querySelector('#playback').dataset.step) >= 2")
    table.page.click("#pb-play")
    assert table.page.get_attribute("#pb-play", "aria-pressed") == "false"
    assert axe_violations(table.page) == []
    # leaving returns to where the playback began; no move was made
    table.page.click("#pb-exit")
    table.page.wait_for_selector("#playback", state="hidden")
    assert table.columns() == deal
    assert table.moves() == 0
    # the table takes moves again
    table.keys("3", "b")
    table.wait_moves(1)


def test_take_over_keeps_the_position_reached_and_counts_as_help(table: Table) -> None:
    table.open("/play/bakers_game/617")
    table.page.click("#btn-solution")
    table.page.click("#dlg-solution button[value='show']")
    table.page.wait_for_selector("#playback:not([hidden])")
    for step in (1, 2, 3):
        table.page.click("#pb-fwd")
        table.page.wait_for_selector(f"#playback[data-step='{step}']")
    reached = table.columns()
    # while the solution plays the table takes no move
    table.keys("1", "a")
    assert "solution is playing" in table.status()
    table.page.click("#pb-take")
    table.page.wait_for_selector("#playback", state="hidden")
    table.wait_moves(3)
    assert table.columns() == reached
    game_id = table.page.url.rsplit("/", 1)[1]
    game = table.page.evaluate(
        "async (id) => (await fetch(`/api/games/${id}`)).json()", game_id)
    assert game["study"]["help"]["solution"] is True
    assert game["study"]["helped"] is True
    assert len(game["moves"]) == 3


# --- how hard is this deal --------------------------------------------------------------------

def test_expert_deals_only_rated_proven_winnable_deals(table: Table) -> None:
    from bakers.solver import Verdict
    from bakers.solver.study import rate_deal
    # the first Expert deal of a fresh server rates random deals until one is
    # rated expert (the solver's workers start then too)
    table.page.set_default_navigation_timeout(60_000)
    # the rating shows during play when the player asks for it (a setting)
    table.page.goto(table.base + "/")
    table.page.evaluate("localStorage.setItem('bakers.prefs', JSON.stringify({showrating: true}))")
    for _ in range(2):
        table.open("/play/bakers_game?level=expert")
        game_id = table.page.url.rsplit("/", 1)[1]
        game = table.page.evaluate(
            "async (id) => (await fetch(`/api/games/${id}`)).json()", game_id)
        assert game["level"] == "expert" and game["message"] is None
        rating = rate_deal("bakers_game", game["deal"], budget=10)
        assert rating.verdict is Verdict.WINNABLE and rating.rating == "expert"
        table.page.wait_for_selector("#rating:not([hidden])")
        assert "Rating: expert" in (table.page.text_content("#rating") or "")
        assert "Expert" in (table.page.text_content("#subtitle") or "")


# --- statistics over time ---------------------------------------------------------------------

def test_home_draws_results_over_time(table: Table) -> None:
    for deal in (617, 618):
        table.open(f"/play/bakers_game/{deal}")
        table.keys("3", "b")
        table.wait_moves(1)
        game_id = table.page.url.rsplit("/", 1)[1]
        table.page.evaluate(
            """async (id) => { await fetch(`/api/games/${id}/abandon`, {method: "POST",
                 headers: {"Content-Type": "application/json"}, body: "{}"}); }""", game_id)
    table.page.goto(table.base + "/")
    table.page.wait_for_selector("#history:not([hidden]) svg.history-chart")
    dots = table.page.locator("#history .history-dot.lost").count()
    assert dots >= 2
    caption = table.page.text_content("#history figcaption") or ""
    assert "without help" in caption
    assert axe_violations(table.page) == []
