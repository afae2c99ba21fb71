"""The table's icons as PNG, rendered by Chromium from the project's own SVG
art in ``static/icons``: the touch icon (180 px), the web app manifest's
icons (192 and 512 px) and a 32 px favicon for browsers without SVG ones.

A build step of the repository, not of the server, which only serves the
committed files. After editing an SVG::

    python src/bakers/web/icons.py    # needs Playwright (the test extra) and chromium on PATH

and commit the PNGs; ``tests/test_browser.py`` fails while a PNG no longer
matches its SVG.
"""

from __future__ import annotations

import base64
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser

ICONS_DIR = Path(__file__).resolve().parent / "static" / "icons"

# (source SVG, PNG written, size in pixels)
RENDERS: tuple[tuple[str, str, int], ...] = (
    ("touch-icon.svg", "apple-touch-icon.png", 180),
    ("touch-icon.svg", "icon-192.png", 192),
    ("touch-icon.svg", "icon-512.png", 512),
    ("favicon.svg", "favicon-32.png", 32),
)


def svg_data_url(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")


def render_png(browser: Browser, svg: str, size: int) -> bytes:
    """``svg`` drawn at ``size`` × ``size`` pixels; what it leaves
    transparent stays transparent."""
    page = browser.new_page(viewport={"width": size, "height": size}, device_scale_factor=1)
    try:
        page.set_content(
            '<!doctype html><html><body style="margin:0">'
            f'<img src="{svg_data_url(svg)}" width="{size}" height="{size}" alt=""'
            ' style="display:block"></body></html>')
        page.evaluate("document.images[0].decode()")
        return page.screenshot(type="png", omit_background=True,
                               clip={"x": 0, "y": 0, "width": size, "height": size})
    finally:
        page.close()


def main() -> int:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        print("no `chromium` on PATH", file=sys.stderr)
        return 1
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            for source, target, size in RENDERS:
                png = render_png(browser, (ICONS_DIR / source).read_text(encoding="utf-8"), size)
                (ICONS_DIR / target).write_bytes(png)
                print(f"{target}: {size}×{size} from {source}")
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
