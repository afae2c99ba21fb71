"""The table as a newcomer meets it (issue 27, items 1-11): real Chromium
(Playwright) against a real ``bakers serve`` (the ``live_server`` fixture),
on a desktop and on a phone (upright and sideways, touch). Every wait is on
the page's own elements."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from browser import Table, axe_violations, open_deal, open_table
from conftest import CHROMIUM

from bakers.board import Board

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH for the browser tests"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")
expect = sync_api.expect

PHONE_UPRIGHT = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
PHONE_SIDEWAYS = {"viewport": {"width": 844, "height": 390}, "has_touch": True, "is_mobile": True}


def ready(table: Table) -> None:
    table.page.locator("#app[data-ready='true']").wait_for()


def moves_are(table: Table, n: int) -> None:
    expect(table.page.locator("#s-moves")).to_have_text(str(n))


def deal7(table: Table) -> None:
    """FreeCell deal 7 as dealt (autoplay off, so its A♣ stays in play)."""
    open_deal(table, "freecell", 7, autoplay="off")


def two_moves_on_deal7(table: Table) -> None:
    """Deal 7 as dealt, then A♣ home and 6♠ to its best place."""
    deal7(table)
    table.card("AC").click()
    moves_are(table, 1)
    table.card("6S").click()
    moves_are(table, 2)


def centre(table: Table, code: str) -> tuple[float, float]:
    box = table.card(code).bounding_box()
    assert box
    return box["x"] + box["width"] / 2, box["y"] + 10


def settle(table: Table) -> None:
    """Long enough for any answer the page could still be waiting for."""
    time.sleep(0.8)


# --- item 1: a double-click is one intent ----------------------------------------------------

def test_double_click_sends_the_ace_home_and_nothing_else(table: Table) -> None:
    deal7(table)  # column 2 ends 4♣ A♣
    x, y = centre(table, "AC")
    table.page.mouse.click(x, y)
    time.sleep(0.15)
    table.page.mouse.click(x, y)
    expect(table.page.locator("#s-home")).to_have_text("1")
    settle(table)
    moves_are(table, 1)
    assert table.place_of("AC") == "h"
    assert table.columns()[1][-1] == "4C"


def test_double_click_on_a_card_that_cannot_go_home_is_one_click(table: Table) -> None:
    deal7(table)  # column 3 ends 3♠ 6♠
    x, y = centre(table, "6S")
    table.page.mouse.click(x, y)
    time.sleep(0.15)
    table.page.mouse.click(x, y)
    moves_are(table, 1)
    settle(table)
    moves_are(table, 1)
    assert table.columns()[2][-1] == "3S"
    assert "foundation" not in table.status()


def only_the_ace_went_home(table: Table) -> None:
    """Deal 7 after a double click on A♣: the ace home, one move, and 4♣,
    which the ace uncovered, still where it was."""
    expect(table.page.locator("#s-home")).to_have_text("1")
    settle(table)
    moves_are(table, 1)
    assert table.columns()[1][-1] == "4C"


def test_double_tap_on_a_phone_is_one_intent(browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server, **PHONE_UPRIGHT) as table:
        deal7(table)
        x, y = centre(table, "AC")
        table.page.touchscreen.tap(x, y)
        time.sleep(0.15)
        table.page.touchscreen.tap(x, y)
        only_the_ace_went_home(table)


def test_double_click_in_select_mode_sends_home(table: Table) -> None:
    deal7(table)
    table.page.click("#btn-settings")
    table.page.check("input[name='clickmode'][value='select']")
    table.page.click("#dlg-settings button[value='close']")
    table.card("AC").dblclick()
    only_the_ace_went_home(table)


# --- item 2: Restart asks; typed moves never press a focused button --------------------------

def test_restart_asks_first(table: Table) -> None:
    two_moves_on_deal7(table)
    page = table.page
    page.click("#btn-restart")
    dialog = page.locator("#dlg-new")
    expect(dialog).to_be_visible()
    expect(page.locator("#dlg-new-h")).to_contain_text("Restart")
    assert axe_violations(page) == []
    page.click("#dlg-new button[value='cancel']")
    settle(table)
    moves_are(table, 2)
    assert table.place_of("AC") == "h"
    page.click("#btn-restart")
    expect(dialog).to_be_visible()
    page.click("#dlg-new button[value='replace']")
    moves_are(table, 0)
    assert table.columns() == [[str(c) for c in col] for col in Board.deal("freecell", 7).columns]
    expect(page.locator("#btn-restart")).to_be_disabled()
    # the same question serves New deal again, in its own words
    table.card("AC").click()
    moves_are(table, 1)
    page.click("#btn-new")
    expect(page.locator("#dlg-new-h")).to_have_text("Replace this position?")
    page.click("#dlg-new button[value='cancel']")


@pytest.mark.parametrize("button", ["#btn-undo", "#btn-restart"])
def test_typed_source_then_enter_plays_even_with_a_button_focused(
        table: Table, button: str) -> None:
    two_moves_on_deal7(table)
    page = table.page
    page.focus(button)
    table.keys("1", "Enter")  # column 1's J♠: its best place
    moves_are(table, 3)
    settle(table)
    expect(page.locator("#dlg-new")).to_be_hidden()
    assert table.columns()[0][-1] == "KH"
    assert table.place_of("AC") == "h"
    assert table.columns()[2][-1] == "3S"


# --- item 3: coming back to a game shows its cards -------------------------------------------

def test_continue_shows_the_cards_and_play_goes_on(table: Table) -> None:
    page = table.page
    deal7(table)
    table.card("AC").click()
    moves_are(table, 1)
    page.click(".brand")
    link = page.locator("#continue-list a").first
    expect(link).to_contain_text("FreeCell · deal 7")
    link.click()
    ready(table)
    expect(page.locator("#paused")).to_be_hidden()
    expect(table.card("6S")).to_be_visible()
    table.card("6S").click()  # a move resumes the game
    moves_are(table, 2)
    expect(page.locator("#s-time")).not_to_have_text("0:00", timeout=5_000)
    # an untouched deal's link opened again shows its cards too
    table.open("/play/freecell/8")
    page.click(".brand")
    expect(page.locator("#continue-list a").first).to_be_visible()
    table.open("/play/freecell/8")
    expect(page.locator("#paused")).to_be_hidden()
    expect(page.locator("#board .card").first).to_be_visible()
    # a pause the player asks for still hides the cards, and says how to go on
    page.click("#btn-pause")
    expect(page.locator("#paused")).to_be_visible()
    page.locator("#paused").click(position={"x": 20, "y": 20})
    expect(page.locator("#status")).to_contain_text("Resume")


# --- items 6 and 7: the table fits a sideways phone; the deal number shows on a desktop ------

def test_sideways_phone_shows_the_whole_table(browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server, **PHONE_SIDEWAYS) as table:
        deal7(table)
        page = table.page
        assert page.evaluate("document.documentElement.scrollHeight") <= 390
        for code in ("JS", "AC", "6S", "5S", "4D", "3C", "6D", "7D"):  # the playable ends
            box = table.card(code).bounding_box()
            assert box and box["y"] + box["height"] <= 390, code
        assert page.locator("#btn-undo").get_attribute("title")
        expect(page.locator("#btn-undo")).to_have_accessible_name("Undo")
        expect(page.locator("#subtitle")).to_contain_text("Deal 7")
        x, y = centre(table, "AC")
        table.page.touchscreen.tap(x, y)
        expect(page.locator("#s-home")).to_have_text("1")
        table.shot("newcomer-sideways-844x390.png")
        assert axe_violations(page) == []


@pytest.mark.parametrize("size", [(1366, 768), (1024, 600)])
def test_desktop_shows_the_deal_number_whole(
        browser: Any, live_server: Any, size: tuple[int, int]) -> None:
    w, h = size
    with open_table(browser, live_server, viewport={"width": w, "height": h}) as table:
        table.open("/play/bakers_game/2")
        sub = table.page.locator("#subtitle")
        expect(sub).to_have_text(re.compile(r"^Deal 2 · "))
        assert sub.evaluate("e => e.scrollWidth <= e.clientWidth && e.clientWidth > 0")
        box = sub.bounding_box()
        assert box and box["x"] + box["width"] <= w


def test_home_statistics_fit_a_small_desktop(browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server, viewport={"width": 1024, "height": 600}) as table:
        page = table.page
        deal7(table)
        table.card("AC").click()
        moves_are(table, 1)
        page.click("#btn-new")
        page.click("#dlg-new button[value='replace']")
        moves_are(table, 0)
        page.goto(table.base + "/")
        wrap = page.locator("#stats")
        expect(wrap.locator("table.stats")).to_be_visible()
        expect(wrap.locator("th").last).to_have_text("Best score")
        assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth")


# --- item 5: the home page says what share of a level's deals can be won; the rating waits -----

def test_home_says_how_many_deals_of_a_level_can_be_won(table: Table) -> None:
    page = table.page
    page.goto(table.base + "/")
    hard = page.locator("#level-hard")
    page.locator("label.choice", has_text="Baker's Game").click()
    expect(hard).to_contain_text("3 cells · random deals · 29 % can be won")
    expect(page.locator("label.choice", has_text="Normal")).to_contain_text("75 % can be won")
    page.locator("label.choice", has_text="FreeCell").click()
    expect(hard).to_contain_text("over 99 % can be won")
    page.locator("label.choice", has_text="Baker's Dozen").click()
    expect(hard.locator("input")).to_be_disabled()
    expect(page.locator("label.choice", has_text="Normal")).not_to_contain_text("cells")
    table.shot("newcomer-home-levels.png")
    assert axe_violations(page) == []


def test_rating_hidden_during_play_unless_asked_and_shown_after(table: Table) -> None:
    page = table.page
    table.open("/play/bakers_game/2?level=hard")
    settle(table)
    time.sleep(1.5)  # the rating's answer has come by now
    expect(page.locator("#rating")).to_be_hidden()
    page.click("#btn-settings")
    page.check("input[name='showrating']")
    page.click("#dlg-settings button[value='close']")
    expect(page.locator("#rating")).to_be_visible()
    expect(page.locator("#rating")).to_contain_text("Rating:")
    page.click("#btn-settings")
    page.uncheck("input[name='showrating']")
    page.click("#dlg-settings button[value='close']")
    expect(page.locator("#rating")).to_be_hidden()
    # the results screen shows it: give the game up with a move made
    table.keys("1", "a")
    moves_are(table, 1)
    game_id = page.url.rsplit("/", 1)[1]
    page.evaluate("""async (id) => { await fetch(`/api/games/${id}/abandon`, {method: "POST",
                 headers: {"Content-Type": "application/json"}, body: "{}"}); }""", game_id)
    table.open(f"/game/{game_id}")
    expect(page.locator("#dlg-results")).to_be_visible()
    expect(page.locator("#r-rating")).to_contain_text("Rating:")


# --- item 4: moves numbered as the player counts them ----------------------------------------

def test_the_losing_move_is_numbered_as_the_player_counts(table: Table) -> None:
    page = table.page
    table.open("/play/bakers_game/2?level=hard")  # A♠ goes home right after the deal
    page.click("#btn-settings")
    page.check("input[name='indicator']")
    page.click("#dlg-settings button[value='close']")
    for n, keys in enumerate((("1", "a"), ("1", "b")), 1):
        table.keys(*keys)
        moves_are(table, n)
    indicator = page.locator("#indicator[data-verdict='impossible']")
    indicator.wait_for(timeout=30_000)
    # the record's fourth move (A♠ went home after the deal, A♥ after the
    # player's 1a): the player's second
    assert indicator.get_attribute("data-lost-at") == "4"
    expect(indicator).to_contain_text("since move 2 (1b)")
    game_id = page.url.rsplit("/", 1)[1]
    page.evaluate("""async (id) => { await fetch(`/api/games/${id}/abandon`, {method: "POST",
                 headers: {"Content-Type": "application/json"}, body: "{}"}); }""", game_id)
    table.open(f"/game/{game_id}")
    expect(page.locator("#r-analysis-text")).to_contain_text("Move 2, 1b", timeout=30_000)


# --- item 10: polish -------------------------------------------------------------------------

def test_messages_are_sentences_and_keep_the_board_still(browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server, **PHONE_UPRIGHT) as table:
        page = table.page
        table.open("/play/bakers_game/2")
        board_top = page.locator("#tableau").bounding_box()
        status = page.locator("#status")
        table.keys("2", "h")  # 5♠ cannot go home: refused with the server's reason
        expect(status).to_contain_text("cannot go to its foundation")
        text = status.text_content() or ""
        assert not text[0].islower(), text
        # a message of two lines (the longest reasons) leaves the columns where they were
        page.evaluate("document.querySelector('#status').textContent = 'x '.repeat(80)")
        after = page.locator("#tableau").bounding_box()
        assert board_top and after and after["y"] == board_top["y"]


def test_enter_on_an_empty_free_cell_picks_nothing_up(table: Table) -> None:
    deal7(table)
    page = table.page
    page.locator("#cells .pile[data-place='a']").focus()
    table.keys("Enter")
    expect(page.locator("#status")).to_contain_text("Free cell a is empty")
    expect(page.locator("#board .selected")).to_have_count(0)
    # the next Enter on a column picks it up as before
    page.locator("#tableau .pile[data-place='1']").focus()
    table.keys("Enter")
    expect(page.locator("#status")).to_contain_text("From column 1")


WIN_IN_TWO = "Foundations: H-J C-K D-Q S-J\nQS KH\nQH KS\nKD\n"


def test_solution_is_disabled_after_a_win(table: Table) -> None:
    page = table.page
    page.goto(table.base + "/")
    won = page.evaluate("""async text => {
        const post = (p, b) => fetch(p, {method: 'POST', headers: {'Content-Type':
            'application/json'}, body: JSON.stringify(b)}).then(r => r.json());
        const g = await post('/api/games', {game: 'bakers_game', position: text});
        return g.id; }""", WIN_IN_TWO)
    table.open(f"/game/{won}")
    expect(page.locator("#btn-solution")).to_be_enabled()
    table.keys("3", "4")
    table.keys("1", "a")
    expect(page.locator("#dlg-results")).to_be_visible(timeout=10_000)
    expect(page.locator("#btn-solution")).to_be_disabled()


def test_unplayed_deals_do_not_pile_up_under_continue(table: Table) -> None:
    page = table.page
    for deal in (11982, 11982, 11983, 11984):
        table.open(f"/play/freecell/{deal}")
    deal7(table)
    table.card("AC").click()
    moves_are(table, 1)
    page.goto(table.base + "/")
    items = page.locator("#continue-list a")
    expect(items.first).to_be_visible()
    titles = items.all_text_contents()
    assert len(titles) == 2, titles  # the played game and the latest untouched deal
    assert any("deal 7" in t for t in titles)


def test_playback_buttons_are_drawn(table: Table) -> None:
    table.open("/play/bakers_game/2")
    for button in ("#pb-back", "#pb-play", "#pb-fwd"):
        icon = table.page.locator(f"{button} .ico")
        assert icon.evaluate("e => e.tagName.toLowerCase()") == "svg"
        assert not re.search(r"[\u23e9-\u23ff]", table.page.locator(button).inner_text())


# --- item 8: a lesson checks the player's own moves, keeps no score, no celebration ----------

def test_a_lesson_checks_the_players_own_moves(browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server, reduced_motion="no-preference") as table:
        page = table.page
        page.goto(table.base + "/lessons/bakers_dozen/1")
        ready(table)
        expect(page.locator("#lesson-text")).to_contain_text("send the hearts home")
        expect(page.locator("#s-score")).to_be_hidden()
        home = page.locator("#s-home")
        start = int(home.text_content() or "0")
        table.keys("2", "3")  # 8♠ onto 9♥: the first step, and no card goes home by itself
        moves_are(table, 1)
        expect(page.locator("#lesson-steps li.met")).to_have_count(1)
        settle(table)
        assert int(home.text_content() or "0") == start
        expect(page.locator("#lesson-state")).to_have_text("Not met yet.")
        # the player sends the hearts home, one by one
        for n, key in enumerate(("2", "4", "6", "3", "3", "1", "1", "1", "1"), 2):
            table.keys(key, "h")
            if n < 10:
                moves_are(table, n)
        expect(page.locator("#lesson-state")).to_contain_text("Goal met")
        expect(page.locator("#lesson-steps li.met")).to_have_count(2)
        expect(home).to_have_text("52")
        for _ in range(5):  # no card flies over the panel
            assert page.locator("#fx *").count() == 0
            time.sleep(0.2)
        assert "score" not in table.status().lower()
        expect(page.locator("#s-score")).to_be_hidden()
