"""The HTML pages: home, deal links (which start or reuse a game and
redirect to it) and the table of one game."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from ..deals import parse_deal_number
from ..errors import BakersError
from ..options import DEAL_LEVELS
from .errors import validation_message
from .middleware import player_of
from .models import NewGameBody
from .state import TableDep
from .templating import render
from .views import game_view

router = APIRouter(include_in_schema=False)


def page_body(game: str, request: Request, *, deal: str | None = None,
              daily: bool = False) -> NewGameBody:
    """The ``POST /api/games`` body a deal link's query asks for."""
    q = request.query_params
    cells_text = q.get("cells")
    level_text = q.get("level")
    winnable_text = q.get("winnable", "")
    try:
        cells = int(cells_text) if cells_text not in (None, "") else None
    except ValueError:
        raise BakersError(f"cells {cells_text!r} is not a number") from None
    if level_text not in (None, "", *DEAL_LEVELS):
        raise BakersError(f"unknown level {level_text!r}: choose easy, normal or hard")
    if cells is not None and not 0 <= cells <= 8:
        raise BakersError("free cells go from 0 to 8")
    try:
        return NewGameBody.model_validate({
            "game": game, "deal": deal, "cells": cells, "level": level_text or None,
            "daily": daily, "winnable": winnable_text.lower() in ("1", "true", "yes", "on")})
    except ValidationError as exc:
        raise BakersError(validation_message(RequestValidationError(exc.errors()))) from None


def to_game(game_id: str) -> Response:
    return RedirectResponse(f"/game/{game_id}", status_code=303)


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> Response:
    return render(request, "home.html", {})


@router.get("/play/daily/{game}")
async def play_daily(game: str, request: Request, table: TableDep) -> Response:
    game_id, _ = await table.create(page_body(game, request, daily=True), player_of(request))
    return to_game(game_id)


@router.get("/play/{game}/{deal}")
async def play_deal(game: str, deal: str, request: Request,
                    table: TableDep) -> Response:
    """A numbered deal. When this player has an untouched game of the same
    deal, cells and level, that game is reused instead of a new one."""
    parse_deal_number(deal)
    body = page_body(game, request, deal=deal)
    session = await table.dealer.new_session(body)
    player = player_of(request)
    store = table.store
    same = await table.db(lambda: store.find_untouched(
        player, session.game, session.deal, session.board.game.cells, session.level))
    if same is not None:
        return to_game(same)
    return to_game(await table.save_new(session, player))


@router.get("/play/{game}")
async def play_random(game: str, request: Request, table: TableDep) -> Response:
    game_id, _ = await table.create(page_body(game, request), player_of(request))
    return to_game(game_id)


@router.get("/game/{game_id}", response_class=HTMLResponse)
async def game_page(game_id: str, request: Request, table: TableDep) -> Response:
    def read() -> dict[str, Any]:
        session = table.store.load(game_id).session
        return {
            "game_json": game_view(game_id, session),
            "title": f"{session.board.game.title}"
                     + (f" #{session.deal}" if session.deal is not None else ""),
        }

    return render(request, "table.html", await table.locked(game_id, read))
