"""The HTML pages: home, deal links (which start or reuse a game and
redirect to it) and the table of one game.

A deal link starts a game only when it was opened from this site or typed
(see :func:`.security.navigation_from_this_site`); opened from another site
it shows a page with a "Deal it" button instead. The table of a game is for
its player; anyone else with the link sees the game read-only, with "Play
this deal" to start their own."""

from __future__ import annotations

import datetime as _dt
import os
from typing import Any

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from ..deals import parse_deal_number
from ..errors import BakersError
from ..games import GAMES, find_game
from ..options import DEAL_LEVELS
from ..session import Session, format_seconds
from .errors import validation_message
from .middleware import address_of, player_of
from .models import NewGameBody
from .records import archive_of
from .security import navigation_from_this_site
from .state import Table, TableDep
from .templating import STATIC_DIR, render
from .views import game_view, replay_deal

router = APIRouter(include_in_schema=False)


def page_body(game: str, request: Request, *, deal: str | None = None,
              daily: bool = False) -> NewGameBody:
    """The ``POST /api/games`` body a deal link's query asks for (``?date=``
    with the daily deal: a day of the archive)."""
    """The ``POST /api/games`` body a deal link's query asks for."""
    game = find_game(game).name  # an unknown game: 404
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
            "daily": daily, "winnable": winnable_text.lower() in ("1", "true", "yes", "on"),
            "date": (q.get("date") or None) if daily else None})
    except ValidationError as exc:
        raise BakersError(validation_message(RequestValidationError(exc.errors()))) from None


def to_game(game_id: str) -> Response:
    return RedirectResponse(f"/game/{game_id}", status_code=303)


@router.get("/", response_class=HTMLResponse)
async def home(request: Request) -> Response:
    archive = [{"game": g.name, "title": g.title} for g in GAMES.values()]
    return render(request, "home.html", {"archive": archive})


FAVICON = os.path.join(STATIC_DIR, "icons", "favicon-32.png")


@router.get("/favicon.ico")
async def favicon() -> Response:
    """The icon browsers ask for on every visit, whatever the page names."""
    return FileResponse(FAVICON, media_type="image/png",
                        headers={"Cache-Control": "public, max-age=604800"})


def ask_first(request: Request, body: NewGameBody, heading: str) -> Response:
    """The page that starts ``body``'s game on a click (a deal link opened
    from another site)."""
    return render(request, "start.html", {
        "heading": heading, "body": body.model_dump(mode="json", exclude_defaults=True)})


def deal_heading(body: NewGameBody) -> str:
    title = find_game(body.game).title
    if body.daily:
        return (f"Play the {title} daily deal of {body.date}?" if body.date
                else f"Play today's {title} deal?")
    if body.deal is not None:
        return f"Play {title} deal #{body.deal}?"
    return f"Play a new {title} deal?"


async def start_from_link(request: Request, table: Table, body: NewGameBody) -> Response:
    """Start ``body``'s game and go to it, or ask first (see the module)."""
    if not navigation_from_this_site(request.scope):
        find_game(body.game)  # an unknown game: 404 before asking
        return ask_first(request, body, deal_heading(body))
    player = player_of(request)
    table.limits.check("games", player, address_of(request))
    game_id, _ = await table.create(body, player)
    return to_game(game_id)


@router.get("/daily/{game}", response_class=HTMLResponse)
async def daily_page(game: str, request: Request, table: TableDep) -> Response:
    """The daily-deal archive: a calendar of the last days, each with the
    player's result, playable; the current streak."""
    data = await archive_of(table, player_of(request), game)
    weeks: list[list[dict[str, Any] | None]] = []
    days = list(reversed(data["days"]))  # oldest first
    first = _dt.date.fromisoformat(days[0]["date"])
    row: list[dict[str, Any] | None] = [None] * first.weekday()  # weeks start on Monday
    for day in days:
        date = _dt.date.fromisoformat(day["date"])
        row.append({**day, "day": date.day, "month": date.strftime("%b"),
                    "show_month": date.day == 1 or date == first,
                    "label": date.strftime("%A %d %B %Y"),
                    "time": None if day["seconds"] is None else format_seconds(day["seconds"])})
        if len(row) == 7:
            weeks.append(row)
            row = []
    if row:
        weeks.append(row + [None] * (7 - len(row)))
    return render(request, "daily.html", {**data, "weeks": weeks})


@router.get("/play/daily/{game}")
async def play_daily(game: str, request: Request, table: TableDep) -> Response:
    return await start_from_link(request, table, page_body(game, request, daily=True))


@router.get("/play/{game}/{deal}")
async def play_deal(game: str, deal: str, request: Request,
                    table: TableDep) -> Response:
    """A numbered deal. When this player has an untouched game of the same
    deal, cells and level, that game is reused instead of a new one."""
    parse_deal_number(deal)
    body = page_body(game, request, deal=deal)
    if not navigation_from_this_site(request.scope):
        find_game(body.game)
        return ask_first(request, body, deal_heading(body))
    session = await table.dealer.new_session(body)
    player = player_of(request)
    store = table.store
    same = await table.db(lambda: store.find_untouched(
        player, session.game, session.deal, session.board.game.cells, session.level))
    if same is not None:
        return to_game(same)
    table.limits.check("games", player, address_of(request))
    return to_game(await table.save_new(session, player))


@router.get("/play/{game}")
async def play_random(game: str, request: Request, table: TableDep) -> Response:
    return await start_from_link(request, table, page_body(game, request))


def play_this_deal(session: Session) -> dict[str, Any]:
    """The ``POST /api/games`` body of "Play this deal" under a shared game:
    the same deal (a past daily deal by its number), cells and level."""
    body = replay_deal(session)
    if session.daily is not None and session.deal is not None:
        body = {"game": session.game, "deal": session.deal,
                "cells": session.board.game.cells}
    return body


@router.get("/game/{game_id}", response_class=HTMLResponse)
async def game_page(game_id: str, request: Request, table: TableDep) -> Response:
    """The table, for the game's player; the read-only shared view for anyone else."""
    player = player_of(request)

    def read() -> tuple[bool, dict[str, Any]]:
        loaded = table.store.load(game_id)
        session = loaded.session
        title = (f"{session.board.game.title}"
                 + (f" #{session.deal}" if session.deal is not None else ""))
        if loaded.player_id != player:
            return False, {"heading": title, "g": game_view(game_id, session),
                           "record": session.record().to_text(),
                           "body": play_this_deal(session)}
        return True, {"game_json": game_view(game_id, session), "title": title}

    own, context = await table.locked(game_id, read)
    return render(request, "table.html" if own else "shared.html", context)
