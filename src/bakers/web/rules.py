"""Rules pages: each game's rules with worked examples, strategy, the
interactive lessons (practice games started from the page) and a printable
reference."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..games import find_game
from .templating import render

router = APIRouter(include_in_schema=False)


@router.get("/rules")
async def rules_index() -> Response:
    return RedirectResponse("/rules/bakers_game", status_code=307)


@router.get("/rules/{game}", response_class=HTMLResponse)
async def rules_page(game: str, request: Request) -> Response:
    """Rules, worked examples, strategy, lessons and a printable reference."""
    found = find_game(game)  # an unknown game: the HTML 404 page
    if found.name != game:
        return RedirectResponse(f"/rules/{found.name}", status_code=308)
    return render(request, "rules.html", {"game": found.name,
                                          "title": f"How to play {found.title}"})
