"""The browser tests' page object: a real page of the app in Chromium, with
helpers that read the table from the DOM, and axe-core's accessibility check.

Used by every ``test_browser*.py`` module; the ``browser`` and ``live_server``
fixtures are in ``conftest.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"

# A refused move is an expected answer (200 with its reason), so no failed
# load may appear in the console during normal play: any line is a bug.
EXPECTED_CONSOLE = re.compile(r"^$")


class Table:
    """A page of the app with helpers that read the table from the DOM."""

    def __init__(self, page: Any, base: str) -> None:
        self.page = page
        self.base = base.rstrip("/")
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))

    def _console(self, msg: Any) -> None:
        if msg.type == "error" and not EXPECTED_CONSOLE.search(msg.text):
            self.errors.append(f"console: {msg.text}")

    def open(self, path: str) -> None:
        self.page.goto(self.base + path)
        self.page.wait_for_selector("#app[data-ready='true']")

    def columns(self) -> list[list[str]]:
        return self.page.eval_on_selector_all(
            "#tableau .pile-column",
            "piles => piles.map(p => [...p.querySelectorAll('.card')].map(c => c.dataset.card))")

    def cell(self, letter: str) -> str | None:
        return self.page.eval_on_selector(
            f"#cells .pile[data-place='{letter}']",
            "p => { const c = p.querySelector('.card'); return c ? c.dataset.card : null; }")

    def moves(self) -> int:
        return int(self.page.text_content("#s-moves") or "0")

    def wait_moves(self, n: int) -> None:
        self.page.wait_for_function(
            "n => document.querySelector('#s-moves').textContent === String(n)", arg=n)

    def status(self) -> str:
        return (self.page.text_content("#status") or "").strip()

    def card(self, code: str) -> Any:
        return self.page.locator(f"#board .card[data-card='{code}']")

    def place_of(self, code: str) -> str:
        return self.page.eval_on_selector(
            f"#board .card[data-card='{code}']", "c => c.closest('.pile').dataset.place")

    def keys(self, *keys: str) -> None:
        for k in keys:
            self.page.keyboard.press(k)

    def drag(self, code: str, target_selector: str) -> None:
        """Press on a card, move across the table in steps, release on a pile."""
        src = self.card(code).bounding_box()
        dst = self.page.locator(target_selector).bounding_box()
        assert src and dst
        x0, y0 = src["x"] + src["width"] / 2, src["y"] + min(12, src["height"] / 4)
        x1, y1 = dst["x"] + dst["width"] / 2, dst["y"] + dst["height"] / 2
        mouse = self.page.mouse
        mouse.move(x0, y0)
        mouse.down()
        mouse.move(x0 + 10, y0 + 10, steps=2)
        mouse.move(x1, y1, steps=10)
        mouse.up()

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / name
        self.page.screenshot(path=str(path))
        return path


@contextmanager
def open_table(browser: Any, live_server: Any, **context: Any) -> Iterator[Table]:
    """A fresh browser context (a new player) on the live server; on leaving,
    fails if the page logged an error."""
    # Playwright's wait_for_function compiles its predicate with eval, which the
    # pages' Content-Security-Policy forbids; the policy itself is checked in a
    # real browser by tests/test_security.py
    options = {"viewport": {"width": 1280, "height": 800}, "reduced_motion": "reduce",
               "bypass_csp": True, **context}
    ctx = browser.new_context(**options)
    try:
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        table = Table(page, live_server.url)
        yield table
        assert table.errors == [], "console errors: " + "\n".join(table.errors)
    finally:
        ctx.close()


def open_deal(table: Table, game: str, deal: int, **body: Any) -> None:
    """Deal ``deal`` of ``game`` with the ``POST /api/games`` options ``body``
    (``autoplay="off"``: the deal as dealt, its safe cards left in play)."""
    if not table.page.url.startswith(table.base):
        table.page.goto(table.base + "/")
    game_id = table.page.evaluate("""async (body) => {
        const r = await fetch('/api/games', {method: 'POST', headers: {'Content-Type':
            'application/json'}, body: JSON.stringify(body)});
        return (await r.json()).id; }""", {"game": game, "deal": deal, **body})
    table.open(f"/game/{game_id}")


# --- accessibility: axe-core (bundled by axe-playwright-python) ---------------------------------

def axe_violations(page: Any) -> list[tuple[str, list[str]]]:
    from axe_playwright_python.sync_playwright import Axe

    result = Axe().run(page)
    return [(v["id"], [n["html"][:100] for n in v["nodes"]])
            for v in result.response["violations"]]
