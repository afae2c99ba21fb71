"""A table to the player's taste, as players of the big sites expect it:
real Chromium (Playwright) against a real ``bakers serve``."""

from __future__ import annotations

from typing import Any

import pytest
from browser import Table, axe_violations, open_table
from conftest import CHROMIUM
from helpers import LONG_RUN

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH for the browser tests"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")
expect = sync_api.expect



def open_position(table: Table, game: str, text: str, **extra: Any) -> None:
    if not table.page.url.startswith(table.base):
        table.page.goto(table.base + "/")
    game_id = table.page.evaluate("""async ([body]) => {
        const r = await fetch('/api/games', {method: 'POST', headers: {'Content-Type':
            'application/json'}, body: JSON.stringify(body)});
        return (await r.json()).id; }""", [{"game": game, "position": text, **extra}])
    table.open(f"/game/{game_id}")


def test_a_run_dragged_to_an_empty_column_moves_as_many_as_the_rules_allow(
        browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server) as table:
        open_position(table, "freecell", LONG_RUN)
        table.drag("QS", "#tableau .pile[data-place='8']")
        table.wait_moves(1)
        assert table.columns()[7] == ["8S", "7H"]
        assert table.columns()[0] == ["QS", "JH", "TS", "9H"]
        expect(table.page.locator("#status")).to_have_text(
            "Moved 2 of 6 cards: with 1 free cell and 0 empty columns you can move 2 "
            "into an empty column")
        # onto an occupied column, the refusal stays
        table.drag("QS", "#tableau .pile[data-place='6']")
        expect(table.page.locator("#status")).to_contain_text("run has 4 cards")
        assert table.moves() == 1
        assert axe_violations(table.page) == []


FINISHABLE = """Foundations: H-J C-K D-K S-J
QS KH
KS QH
"""


def test_the_deal_sends_its_aces_home_and_auto_finish_plays_up_the_rest(
        browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server) as table:
        # Baker's Game deal 2: column 1 ends with the ace of spades
        table.open("/play/bakers_game/2")
        assert table.place_of("AS") == "h"
        assert table.moves() == 0
        expect(table.page.locator("#btn-undo")).to_be_disabled()
        expect(table.page.locator("#btn-finish")).to_be_hidden()
        open_position(table, "bakers_game", FINISHABLE)
        finish = table.page.locator("#btn-finish")
        expect(finish).to_be_visible()
        assert axe_violations(table.page) == []
        finish.click()
        table.page.locator("#app[data-status='won']").wait_for()
        expect(finish).to_be_hidden()
        assert table.moves() == 1


def test_the_table_to_the_players_taste_is_remembered(browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server) as table:
        page = table.page
        table.open("/play/bakers_game/617")
        width = table.card("7D").bounding_box()["width"]
        cells, found = (page.locator(s).bounding_box() for s in ("#cells", "#foundations"))
        assert cells and found and cells["x"] < found["x"]
        expect(page.locator("#s-time")).to_be_visible()
        page.click("#btn-settings")
        # a reduced-motion player starts with animations off
        expect(page.locator("select[name='taste-speed']")).to_have_value("off")
        assert axe_violations(page) == []
        page.select_option("select[name='taste-felt']", "blue")
        page.select_option("select[name='taste-size']", "smaller")
        page.check("input[name='taste-hand']")
        page.check("input[name='taste-clock']")
        page.check("input[name='taste-print']")
        page.click("#dlg-settings button[value='close']")
        table.shot("taste-blue-left-handed.png")

        def chosen() -> None:
            assert page.get_attribute("body", "data-felt") == "blue"
            expect(page.locator("#s-time")).to_be_hidden()
            expect(page.locator("#s-score")).to_be_hidden()
            expect(page.locator("#s-moves")).to_be_visible()
            box = table.card("7D").bounding_box()
            assert box and box["width"] < 0.9 * width + 1
            c, f = (page.locator(s).bounding_box() for s in ("#cells", "#foundations"))
            assert c and f and c["x"] > f["x"]  # left-handed: cells on the right

        chosen()
        page.reload()
        page.wait_for_selector("#app[data-ready='true']")
        chosen()  # remembered
        page.click("#btn-settings")
        expect(page.locator("input[name='taste-hand']")).to_be_checked()
        expect(page.locator("select[name='taste-felt']")).to_have_value("blue")
        assert axe_violations(page) == []


def test_animations_are_on_by_default_without_reduced_motion(
        browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server, reduced_motion="no-preference") as table:
        table.open("/play/bakers_game/617")
        table.page.click("#btn-settings")
        expect(table.page.locator("select[name='taste-speed']")).to_have_value("normal")


def test_the_daily_archive_calendar_opens_a_past_days_deal(
        browser: Any, live_server: Any) -> None:
    import datetime as dt

    from bakers.deals import today_utc

    yesterday = (today_utc() - dt.timedelta(days=1)).isoformat()
    with open_table(browser, live_server) as table:
        page = table.page
        page.goto(table.base + "/daily/freecell")
        expect(page.locator("h1")).to_have_text("FreeCell: daily deals")
        expect(page.locator("#daily-streak")).to_contain_text("Current streak: 0")
        assert page.locator(".daily-calendar td.day").count() == 60
        assert axe_violations(page) == []
        table.shot("daily-archive.png")
        page.locator(f".daily-calendar td[data-date='{yesterday}'] a").click()
        page.wait_for_selector("#app[data-ready='true']", timeout=30_000)
        game_id = page.url.rsplit("/", 1)[1]
        g = page.evaluate("async (id) => (await fetch('/api/games/' + id)).json()", game_id)
        assert g["daily"] == yesterday
        page.goto(table.base + "/daily/freecell")
        cell = page.locator(f".daily-calendar td[data-date='{yesterday}']")
        expect(cell).to_have_class("day playing")
        expect(cell.locator("a")).to_have_attribute("href", f"/game/{game_id}")


PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
SIDEWAYS = {"viewport": {"width": 844, "height": 390}, "has_touch": True, "is_mobile": True}


@pytest.mark.parametrize("screen", [PHONE, SIDEWAYS], ids=["upright", "sideways"])
def test_the_new_screens_fit_a_phone(browser: Any, live_server: Any,
                                     screen: dict[str, Any]) -> None:
    width = screen["viewport"]["width"]
    with open_table(browser, live_server, **screen) as table:
        page = table.page
        page.goto(table.base + "/daily/bakers_game")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert axe_violations(page) == []
        table.shot(f"daily-archive-{width}.png")
        table.open("/play/bakers_game/617")
        page.click("#btn-settings")
        page.locator("select[name='taste-felt']").scroll_into_view_if_needed()
        page.select_option("select[name='taste-felt']", "burgundy")
        page.check("input[name='taste-hand']")
        assert axe_violations(page) == []
        page.click("#dlg-settings button[value='close']")
        assert page.get_attribute("body", "data-felt") == "burgundy"
        c, f = (page.locator(s).bounding_box() for s in ("#cells", "#foundations"))
        assert c and f and c["x"] > f["x"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        table.shot(f"taste-{width}.png")
