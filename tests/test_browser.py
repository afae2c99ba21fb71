"""The table as a person uses it: real Chromium (Playwright) against a real
``bakers serve`` on a free port (the ``live_server`` fixture).

Every move goes through the page's own controls: clicks, drags, typed
notation, buttons. Screenshots land in ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import Table, axe_violations, open_deal, open_table
from conftest import CHROMIUM

from bakers.board import Board
from bakers.errors import IllegalMoveError
from bakers.notation import Move

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no `chromium` on PATH (apt-get install chromium) for the browser tests"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")


# --- helpers (the page object and the ``table`` fixture: browser.py, conftest.py) ------------

def deal_617() -> Board:
    return Board.deal("bakers_game", 617)


def top_cards(board: Board) -> list[str]:
    return [str(col[-1]) for col in board.columns]


# --- tests ----------------------------------------------------------------------------------

def test_deal_link_draws_the_deal(table: Table) -> None:
    table.open("/play/bakers_game/617")
    assert re.search(r"/game/[A-Za-z0-9_-]+$", table.page.url)
    board = deal_617()
    assert table.columns() == [[str(c) for c in col] for col in board.columns]
    assert table.page.locator("#board .card[data-card]").count() == 52
    assert table.card("7D").get_attribute("aria-label") == "7 of diamonds"
    assert table.card("TH").get_attribute("aria-label") == "10 of hearts"
    assert table.card("AD").get_attribute("aria-label") == "ace of diamonds"
    places = table.page.eval_on_selector_all(
        "#board .pile", "ps => ps.map(p => p.dataset.place)")
    assert places == ["a", "b", "c", "d", "h", "h", "h", "h", *"12345678"]
    assert "Baker's Game" in (table.page.text_content("#title") or "")
    assert "Deal 617" in (table.page.text_content("#subtitle") or "")
    assert table.page.text_content("#s-home") == "0"
    table.shot("table-desktop-1280x800.png")


def test_click_moves_a_card_to_its_best_place(table: Table) -> None:
    table.open("/play/bakers_game/617")
    board = deal_617()
    top = top_cards(board)[0]
    table.card(top).click()
    table.wait_moves(1)
    assert table.columns()[0] == [str(c) for c in board.columns[0][:-1]]
    assert table.place_of(top) != "1"


def test_select_then_target_and_double_click(table: Table) -> None:
    """Setting "click selects": click a card, then where it goes; a double
    click sends a card to its foundation."""
    # column 1 ends with the ace of spades (autoplay off: left there)
    open_deal(table, "bakers_game", 2, autoplay="off")
    board = Board.deal("bakers_game", 2)
    assert str(board.columns[0][-1]) == "AS"
    table.page.click("#btn-settings")
    table.page.check("input[name='clickmode'][value='select']")
    assert table.page.is_checked("input[name='autoplay'][value='off']")
    table.page.click("#dlg-settings button[value='close']")
    second = str(board.columns[1][-1])
    table.card(second).click()
    assert "selected" in (table.card(second).get_attribute("class") or "")
    assert table.moves() == 0
    table.page.click("#cells .pile[data-place='c']")
    table.wait_moves(1)
    assert table.cell("c") == second
    table.card("AS").dblclick()
    table.wait_moves(2)
    assert table.place_of("AS") == "h"
    assert table.page.text_content("#s-home") == "1"


def test_drag_and_drop_with_the_mouse(table: Table) -> None:
    table.open("/play/bakers_game/617")
    board = deal_617()
    top = top_cards(board)[1]
    table.drag(top, "#cells .pile[data-place='b']")
    table.wait_moves(1)
    assert table.cell("b") == top
    # a refused drop: the card slides back and the reason is shown
    other = top_cards(board)[0]
    target = top_cards(board)[2]
    table.drag(other, f"#board .card[data-card='{target}']")
    table.page.wait_for_function("document.querySelector('#status').classList.contains('error')")
    with pytest.raises(IllegalMoveError) as refused:
        board.push(Move.from_str("13"))
    assert table.status() == str(refused.value)
    assert table.place_of(other) == "1"
    assert table.moves() == 1


def test_typed_notation_and_refusal(table: Table) -> None:
    table.open("/play/bakers_game/617")
    board = deal_617()
    table.keys("3", "a")
    table.wait_moves(1)
    assert table.cell("a") == top_cards(board)[2]
    board.push_str("3a")
    # an illegal move typed as notation: refused with the server's reason
    with pytest.raises(IllegalMoveError) as refused:
        board.push(Move.from_str("12"))
    table.keys("1", "2")
    table.page.wait_for_function("document.querySelector('#status').classList.contains('error')")
    assert table.status() == str(refused.value)
    assert table.page.get_attribute("#status", "role") == "status"
    assert table.moves() == 1
    # Escape cancels a chosen source
    table.keys("4", "Escape", "5", "b")
    table.wait_moves(2)
    assert table.cell("b") == str(board.columns[4][-1])
    board.push_str("5b")
    # arrows and Enter: focus a pile, pick it up, move, drop
    table.page.locator("#cells .pile[data-place='c']").focus()
    focused = lambda: table.page.evaluate("document.activeElement.dataset.place")  # noqa: E731
    table.keys("ArrowDown")  # to a column below the cells
    source = focused()
    assert source in "12345678"
    table.keys("Enter", "ArrowUp")
    assert focused() in "abcdh"
    for _ in range(8):
        if focused() == "c":
            break
        table.keys("ArrowRight")
    table.keys("Enter")
    table.wait_moves(3)
    assert table.cell("c") == str(board.columns[int(source) - 1][-1])


def test_undo_redo_with_buttons_and_keys(table: Table) -> None:
    table.open("/play/bakers_game/617")
    board = deal_617()
    start = table.columns()
    table.keys("1", "a")
    table.wait_moves(1)
    after = table.columns()
    table.page.click("#btn-undo")
    table.wait_moves(2)  # an undo counts as a move
    assert table.columns() == start and table.cell("a") is None
    table.page.click("#btn-redo")
    table.wait_moves(3)
    assert table.columns() == after and table.cell("a") == top_cards(board)[0]
    table.keys("Control+z")
    table.wait_moves(4)
    assert table.columns() == start
    table.keys("Control+y")
    table.wait_moves(5)
    assert table.columns() == after
    table.keys("Control+z", "Control+Shift+z")
    table.wait_moves(7)
    assert table.columns() == after
    assert table.page.is_disabled("#btn-redo")


def test_reload_continues_with_history(table: Table) -> None:
    table.open("/play/bakers_game/617")
    table.keys("1", "a", "2", "b")
    table.wait_moves(2)
    before = table.columns()
    url = table.page.url
    table.page.reload()
    table.page.wait_for_selector("#app[data-ready='true']")
    assert table.page.url == url
    assert table.columns() == before
    assert table.moves() == 2
    assert table.page.is_enabled("#btn-undo")
    table.keys("Control+z")
    table.wait_moves(3)
    assert table.cell("b") is None and table.cell("a") is not None


def test_hint_pause_and_new_deal(table: Table) -> None:
    table.open("/play/bakers_game/617")
    table.keys("1", "a")
    table.wait_moves(1)
    table.page.click("#btn-hint")
    table.page.wait_for_function(
        "!document.querySelector('#status').textContent.startsWith('Looking')", timeout=15_000)
    hinted = table.page.locator("#board .hint").count()
    text = table.status()
    assert (hinted >= 2 and text.startswith("Hint:")) or "no winning line" in text.lower() \
        or "solver" in text.lower()
    # pause hides the board and stops the clock
    table.page.click("#btn-pause")
    table.page.wait_for_selector("#paused:not([hidden])")
    assert table.page.locator("#board").is_hidden()
    shown = table.page.text_content("#s-time")
    table.page.wait_for_timeout(1100)
    assert table.page.text_content("#s-time") == shown
    table.page.click("#btn-resume")
    table.page.wait_for_selector("#paused", state="hidden")
    # new deal asks before replacing an unfinished position
    old_url = table.page.url
    table.page.click("#btn-new")
    table.page.wait_for_selector("#dlg-new[open]")
    assert "Replace this position?" in (table.page.text_content("#dlg-new") or "")
    table.page.click("#dlg-new button[value='replace']")
    table.page.wait_for_function("u => location.href !== u", arg=old_url)
    table.wait_moves(0)
    assert table.page.locator("#board .card[data-card]").count() == 52


def test_win_through_the_page(browser: Any, live_server: Any) -> None:
    """A whole winning game typed as notation (the solver's line), autoplay off
    through the settings dialog, then the celebration and the results screen."""
    board = Board.deal("bakers_game", 33)
    from bakers.solver import solve

    result = solve(board, timeout=20)
    assert result.verdict.value == "winnable"
    with open_table(browser, live_server, reduced_motion="no-preference") as table:
        open_deal(table, "bakers_game", 33, autoplay="off")
        replica = board.copy()
        for i, move in enumerate(result.moves):
            if table.page.get_attribute("#app", "data-status") == "won":
                break
            text = move.notation(with_count=True)
            src, dst = text[0], text[1]
            implied = replica.resolve(Move.from_str(text[:2])).count
            keys = [src]
            if implied != move.count:
                keys += ["Shift+ArrowDown"] + ["Shift+ArrowUp"] * ((move.count or 1) - 1)
            table.keys(*keys, dst)
            replica.push(move)
            table.page.wait_for_function(
                "n => document.querySelector('#s-moves').textContent === String(n)"
                " || document.querySelector('#app').dataset.status === 'won'", arg=i + 1)
        table.page.wait_for_selector("#dlg-results[open]", timeout=15_000)
        assert table.page.text_content("#dlg-results-h") == "You won!"
        assert table.page.text_content("#s-home") == "52"
        table.page.wait_for_function(
            "document.querySelectorAll('#r-stats div').length >= 5")
        stats = table.page.text_content("#r-stats") or ""
        assert "Played" in stats and "Won" in stats
        assert int(table.page.text_content("#r-moves") or "0") >= 1
        table.shot("results-desktop.png")
        table.page.click("#dlg-results button[value='new']")
        table.page.wait_for_selector("#dlg-results", state="hidden")
        table.wait_moves(0)


def test_phone_layout_touch_drag_and_wide_board(browser: Any, live_server: Any) -> None:
    with open_table(browser, live_server, viewport={"width": 390, "height": 844},
                    is_mobile=True, has_touch=True, device_scale_factor=2) as table:
        table.open("/play/bakers_game/617")
        page = table.page
        # the eight columns fit the width of the phone
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = table.card("JD").bounding_box()
        assert box and box["width"] >= 38
        table.shot("table-phone-390x844.png")
        # a touch drag (Pointer Events from a finger) from column 1 to cell a
        src = table.card(top_cards(deal_617())[0]).bounding_box()
        dst = page.locator("#cells .pile[data-place='a']").bounding_box()
        assert src and dst
        cdp = page.context.new_cdp_session(page)
        x0, y0 = src["x"] + src["width"] / 2, src["y"] + 10
        x1, y1 = dst["x"] + dst["width"] / 2, dst["y"] + dst["height"] / 2
        cdp.send("Input.dispatchTouchEvent",
                 {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
        for k in range(1, 9):
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
                {"x": x0 + (x1 - x0) * k / 8, "y": y0 + (y1 - y0) * k / 8}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        table.wait_moves(1)
        assert table.cell("a") == top_cards(deal_617())[0]
        # Baker's Dozen: all 13 columns fit the phone's width, nothing scrolls sideways
        table.open("/play/bakers_dozen/5")
        assert page.locator("#tableau .pile-column").count() == 13
        places = page.eval_on_selector_all(
            "#tableau .pile-column", "ps => ps.map(p => p.dataset.place)")
        assert places[9:] == ["t", "j", "q", "k"]
        wide = page.evaluate(
            "(() => { const f = document.querySelector('#frame');"
            " return [f.scrollWidth, f.clientWidth]; })()")
        assert wide[0] <= wide[1]
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        last = page.locator("#tableau .pile[data-place='k']").bounding_box()
        assert last and last["x"] + last["width"] <= 390
        # and the table uses the phone's height: the longest column ends on screen
        bottom = page.evaluate(
            "Math.max(...[...document.querySelectorAll('#tableau .card')]"
            ".map(c => c.getBoundingClientRect().bottom))")
        assert bottom <= 844
        table.shot("bakers-dozen-phone-390x844.png")


# --- phone and desktop layouts --------------------------------------------------------------

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}

# Every tableau card's box, and the page's width, as the player sees them
# (two frames on, when a bar that changed height has had the table laid out).
TABLEAU_BOXES = """async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return {
    scrollWidth: document.documentElement.scrollWidth,
    frame: [document.querySelector('#frame').scrollWidth,
            document.querySelector('#frame').clientWidth],
    columns: [...document.querySelectorAll('#tableau .pile-column')].map(p =>
        [...p.querySelectorAll('.card')].map(c => {
            const r = c.getBoundingClientRect();
            return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                    width: r.width};
        })),
  };
}"""


def long_columns_position(game: str) -> str:
    """A board text with long columns: FreeCell's first column holds 19
    cards; Baker's Dozen's columns 1 and 8 (one in each row of a phone)
    hold 13. No ace is exposed."""
    deck = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    n, cols = (8, {0: deck[:19]}) if game == "freecell" else (13, {0: deck[:13], 7: deck[13:26]})
    rest = deck[sum(map(len, cols.values())):]
    others = [i for i in range(n) if i not in cols]
    for j, i in enumerate(others):
        k = len(rest) // (len(others) - j)
        cols[i], rest = rest[:k], rest[k:]
    lines = []
    for i in range(n):
        col = cols[i]
        lines.append(" ".join([col[-1], *col[:-1]] if col[-1][0] == "A" else col))
    return "\n".join(lines) + "\n"


def open_position(table: Table, game: str, text: str) -> None:
    game_id = table.page.evaluate("""async ([game, position]) => {
        const r = await fetch('/api/games', {method: 'POST', headers: {'Content-Type':
            'application/json'}, body: JSON.stringify({game, position, practice: true})});
        return (await r.json()).id; }""", [game, text])
    table.open(f"/game/{game_id}")


def assert_fits_phone(boxes: dict[str, Any], min_width: float) -> list[dict[str, float]]:
    """Nothing scrolls sideways, every card of every column is inside the
    390×844 viewport, at least ``min_width`` wide, and each covered card
    shows a strip tall enough to read its corner."""
    assert boxes["scrollWidth"] <= 390
    assert boxes["frame"][0] <= boxes["frame"][1]
    cards = [c for col in boxes["columns"] for c in col]
    assert cards
    for c in cards:
        assert c["left"] >= 0 and c["right"] <= 390, c
        assert c["top"] >= 0 and c["bottom"] <= 844, c
        assert c["width"] >= min_width, c
    for col in boxes["columns"]:
        for upper, lower in itertools.pairwise(col):
            assert lower["top"] - upper["top"] >= 14, (upper, lower)
    return cards


def test_phone_layout_uses_the_height_it_has(browser: Any, live_server: Any) -> None:
    """At 390×844: Baker's Dozen's 13 columns in readable cards that fill
    the width and much of the height; FreeCell and Baker's Game fill the
    width; long columns of every game still fit the screen."""
    with open_table(browser, live_server, **PHONE) as table:
        page = table.page
        open_deal(table, "bakers_dozen", 5, autoplay="off")  # its aces left in play
        boxes = page.evaluate(TABLEAU_BOXES)
        cards = assert_fits_phone(boxes, min_width=44)
        assert len(cards) == 52
        # the cards reach down most of the screen: 13 columns in one thin
        # row of 26 px cards ended at 306 px of 844
        assert max(c["bottom"] for c in cards) >= 0.65 * 844
        assert min(c["left"] for c in cards) <= 20
        assert max(c["right"] for c in cards) >= 370
        table.shot("phone-390x844-bakers-dozen.png")
        # arrows go row by row: foundations, columns 1-7, columns 8-k
        table.keys("ArrowDown")
        assert page.evaluate("document.activeElement.dataset.place") == "1"
        table.keys("ArrowDown")
        assert page.evaluate("document.activeElement.dataset.place") == "8"
        table.keys("ArrowUp")
        assert page.evaluate("document.activeElement.dataset.place") == "1"
        # a drop near the top of a second-row column lands there, not on the
        # first-row column whose landing zone reaches down over it
        assert table.columns()[6][-1] == "6C" and table.columns()[11][-1] == "7C"
        src = table.card("6C").bounding_box()
        dst = page.locator("#tableau .pile[data-place='q']").bounding_box()
        assert src and dst
        x1, y1 = dst["x"] + 6, dst["y"] + 4
        above = page.evaluate(
            "([x, y]) => [...document.querySelectorAll('#tableau .pile-column')].some(p => {"
            " const r = p.getBoundingClientRect(); const cs = p.querySelectorAll('.card');"
            " const b = cs[cs.length - 1].getBoundingClientRect().bottom;"
            " return p.dataset.place !== 'q' && x >= r.left && x <= r.right && y > b"
            " && y <= b + 40; })", [x1, y1])
        assert above, "the drop point is not inside another column's landing zone"
        page.mouse.move(src["x"] + src["width"] / 2, src["y"] + 8)
        page.mouse.down()
        page.mouse.move(src["x"] + src["width"] / 2 + 10, src["y"] + 18, steps=2)
        page.mouse.move(x1, y1, steps=10)
        page.mouse.up()
        sync_api.expect(page.locator("#s-moves")).to_have_text("1")
        assert table.place_of("6C") == "q"
        open_position(table, "bakers_dozen", long_columns_position("bakers_dozen"))
        lengths = [len(c) for c in table.columns()]
        assert (lengths[0], lengths[7]) == (13, 13)
        assert_fits_phone(page.evaluate(TABLEAU_BOXES), min_width=44)
        table.shot("phone-390x844-bakers-dozen-long-columns.png")

        for game, deal in (("freecell", 11982), ("bakers_game", 617)):
            table.open(f"/play/{game}/{deal}")
            cards = assert_fits_phone(page.evaluate(TABLEAU_BOXES), min_width=42)
            # eight columns fill the width, and fanned out they reach down
            # most of the screen (they ended at 57 % of it)
            assert min(c["left"] for c in cards) <= 8
            assert max(c["right"] for c in cards) >= 382
            assert max(c["bottom"] for c in cards) >= 0.7 * 844
            table.shot(f"phone-390x844-{game.replace('_', '-')}.png")
        open_position(table, "freecell", long_columns_position("freecell"))
        assert len(table.columns()[0]) == 19
        assert_fits_phone(page.evaluate(TABLEAU_BOXES), min_width=42)
        table.shot("phone-390x844-freecell-long-column.png")


def test_desktop_layout_keeps_one_row_of_big_cards(browser: Any, live_server: Any) -> None:
    """At 1366×768 every game keeps its columns in one row of big cards,
    all on screen."""
    with open_table(browser, live_server, viewport={"width": 1366, "height": 768}) as table:
        page = table.page
        for game, deal, width in (("bakers_game", 617, 95), ("freecell", 11982, 95),
                                  ("bakers_dozen", 5, 90)):
            table.open(f"/play/{game}/{deal}")
            boxes = page.evaluate(TABLEAU_BOXES)
            assert boxes["scrollWidth"] <= 1366
            tops = {round(col[0]["top"]) for col in boxes["columns"]}
            assert len(tops) == 1, f"{game}: columns in more than one row"
            cards = [c for col in boxes["columns"] for c in col]
            assert all(c["width"] >= width for c in cards), game
            assert all(c["right"] <= 1366 and c["bottom"] <= 768 for c in cards), game
            table.shot(f"desktop-1366x768-{game.replace('_', '-')}.png")


# Every visible control of the toolbar: its own box, and the box of what it
# draws (its own box joined with the boxes of its text, which a label too
# long for its button spills out of), two frames on.
TOOLBAR_BOXES = """async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const box = r => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom});
  const controls = [...document.querySelectorAll('.toolbar > *')].filter(c => {
    const r = c.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(c).visibility !== 'hidden';
  });
  return {
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth, innerHeight: window.innerHeight,
    controls: controls.map(c => {
      const own = box(c.getBoundingClientRect());
      const drawn = {...own};
      const walk = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
      for (let t = walk.nextNode(); t; t = walk.nextNode()) {
        if (!t.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(t);
        for (const r of range.getClientRects()) {
          if (!r.width || !r.height) continue;
          drawn.left = Math.min(drawn.left, r.left); drawn.right = Math.max(drawn.right, r.right);
          drawn.top = Math.min(drawn.top, r.top); drawn.bottom = Math.max(drawn.bottom, r.bottom);
        }
      }
      return {name: c.id || c.className, text: c.textContent.trim(), own, drawn};
    }),
  };
}"""


def assert_toolbar_fits(boxes: dict[str, Any]) -> list[dict[str, Any]]:
    """Nothing scrolls sideways; every toolbar control lies inside the
    viewport, draws its label inside its own box, is a touch target of at
    least 24×24 px, and overlaps no other control."""
    width, height = boxes["innerWidth"], boxes["innerHeight"]
    assert boxes["scrollWidth"] <= width
    controls = boxes["controls"]
    assert len(controls) >= 10, controls
    for a, b in itertools.combinations(controls, 2):
        p, q = a["drawn"], b["drawn"]
        apart = (p["right"] <= q["left"] + 0.5 or q["right"] <= p["left"] + 0.5
                 or p["bottom"] <= q["top"] + 0.5 or q["bottom"] <= p["top"] + 0.5)
        assert apart, f"{a['name']} {p} overlaps {b['name']} {q}"
    for c in controls:
        own, drawn = c["own"], c["drawn"]
        assert drawn["left"] >= 0 and drawn["right"] <= width, c
        assert drawn["top"] >= 0 and drawn["bottom"] <= height, c
        assert own["right"] - own["left"] >= 24 and own["bottom"] - own["top"] >= 24, c
        assert (drawn["left"] >= own["left"] - 0.5 and drawn["right"] <= own["right"] + 0.5
                and drawn["top"] >= own["top"] - 0.5 and drawn["bottom"] <= own["bottom"] + 0.5), \
            f"the label of {c['name']} spills out of it: {c}"
    return controls


def test_phone_toolbar_controls_fit_without_overlap(browser: Any, live_server: Any) -> None:
    """At 390×844 the ten toolbar controls of every game show their whole
    icon and label, none over another, all on screen; Resume, the longest
    label of the pause button, too. At 1366×768 they stay in one row."""
    with open_table(browser, live_server, **PHONE) as table:
        page = table.page
        for game, deal in (("bakers_game", 617), ("freecell", 1), ("bakers_dozen", 1)):
            table.open(f"/play/{game}/{deal}")
            controls = assert_toolbar_fits(page.evaluate(TOOLBAR_BOXES))
            assert {c["name"] for c in controls} >= {
                "btn-undo", "btn-redo", "btn-hint", "btn-solution", "btn-restart", "btn-new",
                "toggle", "btn-pause", "btn-settings", "btn-help"}
            table.shot(f"toolbar-phone-390x844-{game.replace('_', '-')}.png")
        page.click("#btn-pause")
        sync_api.expect(page.locator("#btn-pause .lbl")).to_have_text("Resume")
        assert_toolbar_fits(page.evaluate(TOOLBAR_BOXES))
        page.click("#btn-pause")
        sync_api.expect(page.locator("#btn-pause .lbl")).to_have_text("Pause")
    with open_table(browser, live_server, viewport={"width": 1366, "height": 768}) as table:
        for game, deal in (("bakers_game", 617), ("freecell", 1), ("bakers_dozen", 1)):
            table.open(f"/play/{game}/{deal}")
            controls = assert_toolbar_fits(table.page.evaluate(TOOLBAR_BOXES))
            assert len({round(c["own"]["top"]) for c in controls}) == 1, game


# --- icons ----------------------------------------------------------------------------------

def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_favicon_touch_icon_and_manifest(table: Table) -> None:
    """Every page links an SVG favicon, a 32 px PNG one, a 180×180 touch
    icon and a web app manifest whose icons resolve at their stated sizes."""
    page = table.page
    links = "sel => { const l = document.querySelector(sel); return l && l.href; }"
    for path in ("/", "/rules/freecell"):
        page.goto(table.base + path)
        for sel in ("link[rel='icon'][type='image/svg+xml']", "link[rel='icon'][sizes='32x32']",
                    "link[rel='apple-touch-icon']", "link[rel='manifest']"):
            assert page.evaluate(links, sel), f"{path}: no {sel}"
    table.open("/play/bakers_game/617")
    touch = page.request.get(page.evaluate(links, "link[rel='apple-touch-icon']"))
    assert touch.status == 200 and touch.headers["content-type"] == "image/png"
    assert png_size(touch.body()) == (180, 180)
    small = page.request.get(page.evaluate(links, "link[rel='icon'][sizes='32x32']"))
    assert small.status == 200 and png_size(small.body()) == (32, 32)
    svg = page.request.get(page.evaluate(links, "link[rel='icon'][type='image/svg+xml']"))
    assert svg.status == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    manifest = page.request.get(page.evaluate(links, "link[rel='manifest']"))
    assert manifest.status == 200
    data = manifest.json()
    assert data["short_name"] == "bakers" and data["start_url"] == "/"
    pngs = [i for i in data["icons"] if i["type"] == "image/png"]
    assert {i["sizes"] for i in pngs} >= {"192x192", "512x512"}
    for icon in data["icons"]:
        answer = page.request.get(table.base + icon["src"])
        assert answer.status == 200, icon
        if icon["type"] == "image/png":
            w, h = png_size(answer.body())
            assert icon["sizes"] == f"{w}x{h}"


def test_icon_pngs_match_their_svg(browser: Any) -> None:
    """The committed PNGs are what ``bakers.web.icons`` renders from the SVGs
    now (run ``python src/bakers/web/icons.py`` after editing one)."""
    import base64

    from bakers.web import icons

    page = browser.new_page()
    try:
        for source, target, size in icons.RENDERS:
            fresh = icons.render_png(browser, (icons.ICONS_DIR / source).read_text(), size)
            kept = (icons.ICONS_DIR / target).read_bytes()
            assert png_size(kept) == (size, size), target
            diff = page.evaluate("""async ([a, b, size]) => {
                const pixels = async (src) => {
                    const img = new Image();
                    img.src = src;
                    await img.decode();
                    const c = new OffscreenCanvas(size, size);
                    const g = c.getContext('2d');
                    g.drawImage(img, 0, 0);
                    return g.getImageData(0, 0, size, size).data;
                };
                const [p, q] = [await pixels(a), await pixels(b)];
                let sum = 0;
                for (let i = 0; i < p.length; i++) sum += Math.abs(p[i] - q[i]);
                return sum / p.length; }""", [
                "data:image/png;base64," + base64.b64encode(fresh).decode(),
                "data:image/png;base64," + base64.b64encode(kept).decode(), size])
            assert diff < 2.0, f"{target} differs from {source} by {diff:.2f} per channel"
    finally:
        page.close()


def test_home_page_deals_continues_and_counts(table: Table) -> None:
    table.page.set_viewport_size({"width": 1280, "height": 800})
    table.page.goto(table.base + "/")
    table.page.check("input[name='game'][value='freecell']", force=True)
    table.page.check("input[name='level'][value='hard']", force=True)
    table.page.fill("#deal", "11982")
    table.page.click("#btn-deal")
    table.page.wait_for_selector("#app[data-ready='true']")
    sub = table.page.text_content("#subtitle") or ""
    assert "Deal 11982" in sub and "Hard" in sub and "3 cells" in sub
    assert table.page.locator("#cells .pile").count() == 3
    table.keys("1", "a")
    table.wait_moves(1)
    game_url = table.page.url
    table.page.goto(table.base + "/")
    table.page.wait_for_selector("#continue-list a")
    link = table.page.locator("#continue-list a").first
    assert "FreeCell" in (link.text_content() or "")
    table.page.wait_for_function("!document.querySelector('#stats').textContent.includes('Loading')")
    table.shot("home-desktop.png")
    link.click()
    table.page.wait_for_selector("#app[data-ready='true']")
    assert table.page.url == game_url
    assert table.moves() == 1
    # four-colour deck and help are one click away
    table.page.click("#btn-settings")
    table.page.check("input[name='fourcolour']")
    table.page.click("#dlg-settings button[value='close']")
    assert "four-colour" in (table.page.get_attribute("body", "class") or "")
    table.keys("?")
    table.page.wait_for_selector("#dlg-help[open]")
    assert table.page.locator("#dlg-help [data-help='freecell']").is_visible()
    assert table.page.locator("#dlg-help [data-help='bakers_game']").is_hidden()


def test_rules_page_and_a_lesson(table: Table) -> None:
    answer = table.page.goto(table.base + "/rules/bakers_dozen")
    assert answer is not None and answer.status == 200
    assert table.page.locator(".example .card[data-card]").count() >= 8
    table.shot("rules-bakers-dozen-desktop.png")
    assert table.page.locator(".lesson-go").count() == 4
    table.page.locator(".lesson-go").nth(1).click()  # exposed singles only
    table.page.wait_for_selector("#app[data-ready='true']")
    assert "Baker's Dozen" in (table.page.text_content("#title") or "")
    table.drag("9D", "#tableau .pile[data-place='2']")
    table.page.wait_for_function("document.querySelector('#status').classList.contains('error')")
    assert "single exposed cards only" in table.status()
    assert table.place_of("9D") == "1"
    table.keys("1", "5")  # 7♦ onto 8♦: a single card is fine
    table.wait_moves(1)
    assert table.place_of("7D") == "5"
    # a lesson is a practice game: said so, and not in "Continue"
    assert "Practice" in (table.page.text_content("#subtitle") or "")
    lesson_url = table.page.url
    table.page.goto(table.base + "/")
    table.page.wait_for_function(
        "!document.querySelector('#continue-list').textContent.includes('Looking')")
    assert table.page.locator("#continue-list a").count() == 0
    # the help panel of the table links to the game's rules page
    table.page.goto(lesson_url)
    table.page.wait_for_selector("#app[data-ready='true']")
    table.keys("?")
    table.page.wait_for_selector("#dlg-help[open]")
    assert table.page.get_attribute("#help-rules", "href") == "/rules/bakers_dozen"
    table.page.click("#help-rules")
    table.page.wait_for_url("**/rules/bakers_dozen")
    assert "How to play Baker's Dozen" in (table.page.text_content("h1") or "")


def test_a_deal_without_a_move_is_replaced_without_asking(table: Table) -> None:
    table.open("/play/bakers_game/617")
    first = table.page.url
    table.page.click("#btn-new")
    table.page.wait_for_function("u => location.href !== u", arg=first)
    table.page.wait_for_selector("#app[data-ready='true']")
    assert table.page.locator("#dlg-new[open]").count() == 0
    old = table.page.evaluate(
        "u => fetch('/api/games/' + u.split('/').pop()).then(r => r.json())", first)
    assert old["status"] == "abandoned" and old["played"] is False
    stats = table.page.evaluate("fetch('/api/stats').then(r => r.json())")
    assert stats["stats"] == []


# --- what players hit: winnable-only, the clock, Continue, pointer and keys ---------------------

def api_game(table: Table) -> dict[str, Any]:
    game: dict[str, Any] = table.page.evaluate(
        "fetch('/api/games/' + location.pathname.split('/').pop()).then(r => r.json())")
    return game


def test_winnable_only_sticks_through_new_deals(table: Table) -> None:
    table.open("/play/bakers_game?level=hard&winnable=1")
    toggle = table.page.locator("#winnable-only")
    assert toggle.is_checked() and api_game(table)["winnable"] is True
    for _ in range(2):
        first = table.page.url
        table.page.click("#btn-new")  # no move made: replaced without asking
        table.page.wait_for_function("u => location.href !== u", arg=first)
        table.page.wait_for_function("document.querySelector('#s-moves').textContent === '0'")
        g = api_game(table)
        assert g["level"] == "hard" and g["winnable"] is True and g["message"] is None
        assert toggle.is_checked()
    # switched off, the next deal is a random one again
    toggle.uncheck()
    first = table.page.url
    table.page.click("#btn-new")
    table.page.wait_for_function("u => location.href !== u", arg=first)
    assert api_game(table)["winnable"] is False


def test_a_hidden_page_pauses_the_clock_and_resumes_on_return(table: Table) -> None:
    table.open("/play/bakers_game/617")
    table.keys("1", "a")
    table.wait_moves(1)
    set_hidden = """hidden => {
        Object.defineProperty(document, 'hidden', {value: hidden, configurable: true});
        Object.defineProperty(document, 'visibilityState',
                              {value: hidden ? 'hidden' : 'visible', configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }"""
    table.page.evaluate(set_hidden, True)
    table.page.wait_for_function(
        "fetch('/api/games/' + location.pathname.split('/').pop()).then(r => r.json())"
        ".then(g => g.paused)", polling=100)
    table.page.evaluate(set_hidden, False)
    table.page.wait_for_function(
        "fetch('/api/games/' + location.pathname.split('/').pop()).then(r => r.json())"
        ".then(g => !g.paused && g.clock_running)", polling=100)
    assert table.page.locator("#paused").is_hidden()


def test_refusals_pointer_drop_and_enter_after_arrows(table: Table) -> None:
    """A drop lands on the pile under the pointer, even when the dragged card
    overlaps another pile more; a typed source then Enter plays the best
    place wherever arrow keys left the focus; a refusal logs nothing."""
    table.open("/play/bakers_game/617")
    board = deal_617()
    top = top_cards(board)[1]
    src = table.card(top).bounding_box()
    b = table.page.locator("#cells .pile[data-place='b']").bounding_box()
    assert src and b
    grab_x, grab_y = src["x"] + src["width"] - 3, src["y"] + 8
    # the pointer ends just inside cell b's left edge: the card hangs over cell a
    end_x, end_y = b["x"] + 4, b["y"] + b["height"] / 2
    mouse = table.page.mouse
    mouse.move(grab_x, grab_y)
    mouse.down()
    mouse.move(grab_x - 10, grab_y - 10, steps=2)
    mouse.move(end_x, end_y, steps=10)
    mouse.up()
    table.wait_moves(1)
    assert table.cell("b") == top and table.cell("a") is None
    # a refused drop: the reason, and no red line in the console
    table.drag(top_cards(board)[0], f"#board .card[data-card='{top_cards(board)[2]}']")
    table.page.wait_for_function("document.querySelector('#status').classList.contains('error')")
    assert table.errors == []
    # "1", arrows somewhere else, Enter: column 1's card goes to its best place
    table.page.locator("#tableau .pile[data-place='5']").focus()
    table.keys("1", "ArrowRight", "ArrowRight", "Enter")
    table.wait_moves(2)
    assert table.cell("a") == top_cards(board)[0]


def test_continue_lists_moves_first_and_discards_after_asking(table: Table) -> None:
    table.open("/play/freecell/101")
    table.keys("1", "a", "2", "b")
    table.wait_moves(2)
    played = table.page.url
    table.open("/play/freecell/102")
    untouched = table.page.url
    table.open("/play/freecell/102")
    assert table.page.url == untouched  # the same untouched game is reused
    table.page.goto(table.base + "/")
    table.page.wait_for_selector("#continue-list a")
    items = table.page.locator("#continue-list li")
    assert "2 moves" in (items.nth(0).text_content() or "")
    assert "not started" in (items.nth(1).text_content() or "")
    assert table.page.locator("#continue-list a").first.get_attribute("href") == \
        played.replace(table.base, "")
    items.nth(0).locator("button.discard").click()
    table.page.wait_for_selector("#dlg-discard[open]")
    assert "counts as a lost game" in (table.page.text_content("#dlg-discard") or "")
    table.page.click("#dlg-discard button[value='discard']")
    table.page.wait_for_function("document.querySelectorAll('#continue-list a').length === 1")
    table.page.wait_for_function("document.querySelector('#stats').textContent.includes('FreeCell')")


@pytest.fixture
def fake_clock_server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """The app in this process on a free port, its clock a FakeClock."""
    import socket
    import threading

    import uvicorn

    from bakers.session import FakeClock
    from bakers.web import create_app

    clock = FakeClock()
    app = create_app(f"sqlite:///{tmp_path / 'clock.sqlite3'}", clock=clock)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.05)
    try:
        yield f"http://127.0.0.1:{port}/", clock
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def test_the_score_line_charges_time_as_it_passes(
        browser: Any, fake_clock_server: tuple[str, Any]) -> None:
    """−30 for every 30 s shows as it happens, by the server's own rule, with
    no move made (the page's clock and the server's move on together)."""
    url, clock = fake_clock_server
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce",
                              bypass_csp=True)  # see open_table
    try:
        page = ctx.new_page()
        page.clock.install()
        # The page says every 5 s that it is open; each of those pings is held
        # here until the page's 5 s have run, so its answer (the server's
        # seconds, shown at once) lands after them whatever the machine's speed.
        held: list[Any] = []
        page.route("**/ping", lambda route: held.append(route))
        table = Table(page, url)
        # column 1 ends with the ace of spades (autoplay off: left there)
        open_deal(table, "bakers_game", 2, autoplay="off")
        table.keys("1", "h")
        table.wait_moves(1)
        assert page.text_content("#s-score") == "10"
        # from here the page's time moves only by run_for: a slow machine's
        # real seconds never reach its clock between two checks
        page.clock.pause_at(page.evaluate("Date.now()") + 1)

        def answer_pings() -> None:
            """Wait for the ping the page sent in its last 5 s, then let it
            through with any sent earlier (while a slow machine made the move,
            or as the clock paused)."""
            deadline = time.monotonic() + 10
            while not held and time.monotonic() < deadline:
                page.wait_for_timeout(20)
            assert held, "no ping in 5 s"
            page.wait_for_timeout(50)
            while held:
                with page.expect_response("**/ping") as answer:
                    held.pop(0).continue_()
                assert answer.value.ok

        for k in range(1, 8):  # 35 s pass
            clock.advance(5)
            page.clock.run_for(5000)
            answer_pings()
            page.wait_for_function("t => document.querySelector('#s-time').textContent === t",
                                   arg=f"0:{5 * k:02d}")
            expected = "10" if 5 * k < 30 else "0"
            page.wait_for_function("s => document.querySelector('#s-score').textContent === s",
                                   arg=expected)
        assert table.moves() == 1 and table.errors == []
    finally:
        ctx.close()


WIN_IN_TWO = "Foundations: H-J C-K D-Q S-J\nQS KH\nQH KS\nKD\n"


@pytest.mark.parametrize("viewport", [(1280, 800), (390, 844)])
def test_axe_finds_no_violation(browser: Any, live_server: Any,
                                viewport: tuple[int, int]) -> None:
    """No violation of any impact on the home page, each game's table, the
    rules pages, a lesson, and every dialog."""
    w, h = viewport
    with open_table(browser, live_server, viewport={"width": w, "height": h}) as table:
        page = table.page
        checked: dict[str, list[tuple[str, list[str]]]] = {}

        def check(name: str) -> None:
            checked[name] = axe_violations(page)

        page.goto(table.base + "/")
        page.wait_for_function("!document.querySelector('#stats').textContent.includes('Loading')")
        check("home")
        for game, deal in (("bakers_game", 617), ("freecell", 11982), ("bakers_dozen", 5)):
            table.open(f"/play/{game}/{deal}")
            check(f"table {game}")
            answer = page.goto(table.base + f"/rules/{game}")
            assert answer is not None and answer.status == 200
            check(f"rules {game}")
        page.locator(".lesson-go").first.click()
        page.wait_for_selector("#app[data-ready='true']")
        check("lesson")
        table.keys("?")
        page.wait_for_selector("#dlg-help[open]")
        check("help dialog")
        page.keyboard.press("Escape")
        page.click("#btn-settings")
        page.wait_for_selector("#dlg-settings[open]")
        check("settings dialog")
        page.click("#dlg-settings button[value='close']")
        table.open("/play/bakers_game/618")
        table.keys("1", "a")
        table.wait_moves(1)
        page.click("#btn-new")
        page.wait_for_selector("#dlg-new[open]")
        check("replace dialog")
        page.click("#dlg-new button[value='cancel']")
        won = page.evaluate("""async text => {
            const post = (p, b) => fetch(p, {method: 'POST', headers: {'Content-Type':
                'application/json'}, body: JSON.stringify(b)}).then(r => r.json());
            const g = await post('/api/games', {game: 'bakers_game', position: text});
            await post(`/api/games/${g.id}/moves`, {move: '34'});
            await post(`/api/games/${g.id}/moves`, {move: '1a'});
            return g.id; }""", WIN_IN_TWO)
        table.open(f"/game/{won}")
        page.wait_for_selector("#dlg-results[open]")
        page.wait_for_function("document.querySelectorAll('#r-stats div').length >= 5")
        check("results dialog")
        page.goto(table.base + "/")
        page.wait_for_selector("#continue-list button.discard")
        page.locator("#continue-list button.discard").first.click()
        page.wait_for_selector("#dlg-discard[open]")
        check("discard dialog")
        if w < 500:
            table.shot("home-phone-390x844.png")
        assert {k: v for k, v in checked.items() if v} == {}
        assert len(checked) == 13
