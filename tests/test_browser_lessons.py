"""Lessons at the table, as a person takes them: real Chromium (Playwright)
against a real ``bakers serve`` (the ``live_server`` fixture). Every wait is
on the page's own elements (no script evaluated from a string, which the
pages' Content-Security-Policy forbids)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser import Table, axe_violations, open_table
from conftest import CHROMIUM

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH for the browser tests"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")
expect = sync_api.expect


def ready(table: Table) -> None:
    table.page.locator("#app[data-ready='true']").wait_for()


def moves_are(table: Table, n: int) -> None:
    expect(table.page.locator("#s-moves")).to_have_text(str(n))


def fetch_json(table: Table, path: str) -> Any:
    return table.page.evaluate("async (p) => (await fetch(p)).json()", path)


def test_a_lesson_teaches_beside_the_board_and_leads_to_the_next(
        browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server) as table:
        page = table.page
        page.goto(table.base + "/rules/bakers_dozen")
        page.locator(".lesson-go").nth(1).click()  # exposed singles only
        page.wait_for_url(re.compile(r"/lessons/bakers_dozen/2$"))
        ready(table)
        panel = page.locator("#lesson")
        expect(panel).to_be_visible()
        expect(page.locator("#lesson-count")).to_have_text("Lesson 2 of 4")
        expect(page.locator("#lesson-h")).to_have_text("Exposed singles only")
        expect(page.locator("#lesson-text")).to_contain_text("one at a time")
        expect(page.locator("#lesson-steps li")).to_have_text(["To do: 9♦ on 10♠"])
        expect(page.locator("#lesson-state")).to_have_text("Not met yet.")
        expect(page.locator("#lesson-next")).to_be_hidden()
        expect(page.locator("#subtitle")).to_contain_text("Practice")
        # beside the board: the panel is right of the cards, at the same height
        board = page.locator("#board").bounding_box()
        box = panel.bounding_box()
        assert board and box and box["x"] >= board["x"] + board["width"] - 1
        assert box["y"] < board["y"] + board["height"]
        # the still-winnable indicator is on by default in a lesson
        page.locator("#indicator[data-verdict='winnable']").wait_for(timeout=20_000)
        table.shot("lesson-bakers-dozen-2.png")
        assert axe_violations(page) == []
        # a refused move explains itself, as in play, and the goal stays open
        table.drag("9D", "#tableau .pile[data-place='2']")
        expect(page.locator("#status")).to_contain_text("single exposed cards only")
        assert table.place_of("9D") == "1"
        table.keys("1", "5")  # 7♦ onto 8♦
        moves_are(table, 1)
        table.keys("1", "6")  # 8♠ onto 9♠
        moves_are(table, 2)
        expect(page.locator("#lesson-state")).to_have_text("Not met yet.")
        # reopening the address continues the same game
        page.goto(table.base + "/lessons/bakers_dozen/2")
        ready(table)
        moves_are(table, 2)
        table.keys("1", "2")  # 9♦ onto 10♠: the goal, then every card goes home
        expect(page.locator("#lesson-state")).to_contain_text("Goal met")
        expect(page.locator("#lesson-steps li.met")).to_have_count(1)
        expect(panel).to_have_attribute("data-met", "true")
        nxt = page.locator("#lesson-next")
        expect(nxt).to_be_visible()
        expect(nxt).to_have_text("Next lesson: Closed empty columns")
        expect(nxt).to_be_focused()  # a lesson has no results screen: the way on has focus
        expect(page.locator("#dlg-results")).not_to_have_attribute("open", "")
        table.shot("lesson-bakers-dozen-2-met.png")
        assert axe_violations(page) == []
        nxt.click()
        page.wait_for_url(re.compile(r"/lessons/bakers_dozen/3$"))
        ready(table)
        expect(page.locator("#lesson-h")).to_have_text("Closed empty columns")
        expect(page.locator("#lesson-steps li")).to_have_text(
            ["To do: column 1 empty", "To do: Q♠ on K♠"])
        # the steps tick off in order as the server checks them
        for keys in (("1", "h"), ("2", "h"), ("4", "h"), ("4", "h"), ("1", "h")):
            table.keys(*keys)
        moves_are(table, 5)
        expect(page.locator("#lesson-steps li")).to_have_text(
            ["Done: column 1 empty", "To do: Q♠ on K♠"])
        table.keys("2", "1")  # Q♠ into the closed column: refused
        expect(page.locator("#status")).to_contain_text("cannot be refilled")
        table.keys("2", "4")
        expect(page.locator("#lesson-state")).to_contain_text("Goal met")
        # lessons never count: not in Continue, not in the statistics
        assert fetch_json(table, "/api/stats")["stats"] == []
        assert fetch_json(table, "/api/games")["games"] == []


def test_the_run_lessons_and_then_a_full_deal(browser: Any, live_server: Any) -> None:
    """FreeCell on a phone: seed 003's transfer, with cells and an empty
    column, then with two cells alone; the last lesson offers a full deal."""
    with open_table(browser, live_server, viewport={"width": 390, "height": 844},
                    has_touch=True, is_mobile=True) as table:
        page = table.page
        page.goto(table.base + "/lessons/freecell/1")
        ready(table)
        expect(page.locator("#lesson-h")).to_have_text("Moving a run")
        expect(page.locator("#lesson-moves")).to_have_text("In one move.")
        assert axe_violations(page) == []
        table.shot("lesson-freecell-1-phone.png")
        # into the empty column only 2 of the 4 cards may go: refused with the reason
        table.keys("1", "Shift+ArrowUp", "Shift+ArrowUp", "Shift+ArrowUp", "8")
        expect(page.locator("#status")).to_contain_text("you can move 2")
        moves_are(table, 0)
        table.keys("1", "Shift+ArrowUp", "Shift+ArrowUp", "Shift+ArrowUp", "2")
        expect(page.locator("#lesson-state")).to_contain_text("Goal met")
        nxt = page.locator("#lesson-next")
        expect(nxt).to_have_attribute("href", "/lessons/freecell/2")
        nxt.click()
        page.wait_for_url(re.compile(r"/lessons/freecell/2$"))
        ready(table)
        expect(page.locator("#lesson-h")).to_have_text("Cells carry a run")
        # another move first: the goal asks for the run in one move, so the
        # lesson is dealt again (a lesson does not finish by itself before its goal)
        table.keys("3", "c")
        moves_are(table, 1)
        expect(page.locator("#lesson-state")).to_contain_text("restart the lesson (or undo)")
        again = page.locator("#lesson-again")
        expect(again).to_be_visible()
        again.click()
        page.wait_for_url(re.compile(r"/lessons/freecell/2$"))
        ready(table)
        moves_are(table, 0)
        expect(page.locator("#lesson-state")).to_have_text("Not met yet.")
        table.keys("1", "Shift+ArrowUp", "Shift+ArrowUp", "2")
        expect(page.locator("#lesson-state")).to_contain_text("try a full deal")
        expect(page.locator("#lesson-next")).to_be_hidden()
        full = page.locator("#lesson-full")
        expect(full).to_be_visible()
        expect(full).to_have_attribute("href", "/play/freecell")
        assert axe_violations(page) == []
        full.click()
        ready(table)
        assert re.search(r"/game/[A-Za-z0-9_-]+$", page.url)
        expect(page.locator("#lesson")).to_be_hidden()
        expect(page.locator("#subtitle")).not_to_contain_text("Practice")
