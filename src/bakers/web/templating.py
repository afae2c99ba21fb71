"""Page templates (Jinja2, shipped with the package)."""

from __future__ import annotations

import html
import json
import os
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import TemplateNotFound

from .views import games_catalogue

HERE = os.path.dirname(os.path.abspath(__file__))
STATIC_DIR = os.path.join(HERE, "static")
TEMPLATES_DIR = os.path.join(HERE, "templates")

templates = Jinja2Templates(directory=TEMPLATES_DIR)


def render(request: Request, name: str, context: dict[str, Any]) -> Response:
    """The page ``name`` with ``context`` (and the games catalogue)."""
    full = {"games": games_catalogue(), "game_json": None, **context}
    try:
        return templates.TemplateResponse(request, name, full)
    except TemplateNotFound:
        return HTMLResponse(
            "<!doctype html><title>bakers</title><h1>bakers</h1>"
            "<p>The page templates are not installed.</p>"
            f"<pre>{html.escape(json.dumps(full.get('game_json'))[:2000])}</pre>")
