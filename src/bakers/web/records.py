"""A player's own records: their games (as game records) and statistics,
exported as JSON or CSV, and a one-time transfer code that gives another
browser their identity. Each route answers for the player of the request's
cookie only."""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
from contextlib import AsyncExitStack
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from ..deals import today_utc
from ..errors import BakersError
from ..games import find_game
from ..store import GameNotFoundError
from ..store.db import TRANSFER_TTL
from .dealer import ARCHIVE_DAYS
from .middleware import address_of, player_of
from .models import ERRORS, RATE_ERRORS, TransferClaimBody, error_doc
from .state import Table, TableDep

router = APIRouter(prefix="/api", tags=["records"], responses=ERRORS)

GAME_FIELDS = ["id", "game", "level", "cells", "deal", "daily", "status", "practice", "moves",
               "score", "seconds", "started_at", "updated_at", "record"]
STATS_FIELDS = ["game", "level", "played", "won", "lost", "win_rate", "current_streak",
                "best_streak", "best_time", "fewest_moves", "best_score"]
FORMATS = {"json", "csv"}


def _format(value: str) -> str:
    if value not in FORMATS:
        raise BakersError("format is json or csv")
    return value


def _download(rows: list[dict[str, Any]], fields: list[str], fmt: str, name: str,
              key: str) -> Response:
    """``rows`` as a JSON or CSV file to save."""
    headers = {"Content-Disposition": f'attachment; filename="{name}.{fmt}"',
               "Cache-Control": "no-store"}
    if fmt == "json":
        return Response(json.dumps({key: rows}, indent=1), media_type="application/json",
                        headers=headers)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers=headers)


def _cell(value: Any) -> Any:
    """A CSV cell: booleans as true/false; text that a spreadsheet would run
    as a formula is quoted with a leading apostrophe."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value


@router.get("/export/games", responses={200: {"description": "the player's games"}})
async def export_games(request: Request, table: TableDep,
                       fmt: str = Query("json", alias="format", max_length=4)) -> Response:
    """Every game of this player with its game record (the ``record`` field:
    the text ``bakers replay`` reads), oldest first; ``format`` json or csv."""
    fmt = _format(fmt)
    player = player_of(request)
    store = table.store
    ids = await table.db(lambda: store.list_game_ids(player, unfinished=False, limit=100_000))
    async with AsyncExitStack() as stack:
        await table.locks.hold_all(stack, ids)
        rows = await table.db(lambda: store.games_of(player))
    return _download(rows, GAME_FIELDS, fmt, "bakers-games", "games")


@router.get("/export/stats", responses={200: {"description": "the player's statistics"}})
async def export_stats(request: Request, table: TableDep,
                       fmt: str = Query("json", alias="format", max_length=4)) -> Response:
    """This player's statistics per game and level (as ``GET /api/stats``)
    and, in JSON, every finished game that counts; ``format`` json or csv."""
    fmt = _format(fmt)
    player = player_of(request)
    stats = await table.db(lambda: [s.to_dict() for s in table.store.stats(player)])
    if fmt == "csv":
        return _download(stats, STATS_FIELDS, fmt, "bakers-stats", "stats")
    results = await table.db(lambda: table.store.results_of(player))
    return Response(json.dumps({"stats": stats, "results": results}, indent=1),
                    media_type="application/json",
                    headers={"Content-Disposition": 'attachment; filename="bakers-stats.json"',
                             "Cache-Control": "no-store"})


@router.post("/transfer", responses={200: {"description": "a one-time code"}, **RATE_ERRORS})
async def new_transfer_code(request: Request, table: TableDep) -> Response:
    """A one-time code, valid 15 minutes, that gives another browser this
    player's identity (games, statistics). A new code replaces the last."""
    player = player_of(request)
    table.limits.check("codes", player, address_of(request))
    code = await table.db(lambda: table.store.create_transfer_code(player))
    return JSONResponse({"code": code, "expires_in": TRANSFER_TTL},
                        headers={"Cache-Control": "no-store"})


@router.post("/transfer/claim", responses={
    200: {"description": "this browser now plays as the code's player"},
    404: error_doc("no such code, or it was used or has expired"), **RATE_ERRORS})
async def claim_transfer_code(body: TransferClaimBody, request: Request,
                              table: TableDep) -> Response:
    """Use a code made in another browser: from now on this browser is that
    player; the games it had so far move along with it."""
    player = player_of(request)
    table.limits.check("codes", player, address_of(request))
    owner = await table.db(lambda: table.store.claim_transfer_code(body.code, player))
    if owner is None:
        raise GameNotFoundError("this code is unknown, used already or expired")
    request.state.set_player = owner
    return JSONResponse({"transferred": True}, headers={"Cache-Control": "no-store"})


def _day_result(found: dict[str, Any] | None) -> str | None:
    if found is None:
        return None
    if found["status"] == "won":
        return "won"
    if found["status"] == "abandoned":
        return "lost" if found["played"] else None
    return "playing"


@router.get("/daily/{game}")
async def daily_archive(game: str, request: Request, table: TableDep) -> Response:
    """The daily-deal archive of ``game`` for this player: the last days,
    newest first, each with the player's result on it (``won``, ``lost``,
    ``playing`` or ``null``: not played), moves, seconds and game id; and the
    current streak of won daily deals (today's not yet won does not break it)."""
    return JSONResponse(await archive_of(table, player_of(request), game))


async def archive_of(table: Table, player: str, game: str) -> dict[str, Any]:
    """The body of ``GET /api/daily/{game}`` (the archive page draws it too)."""
    g = find_game(game)
    today = today_utc()
    since = today - _dt.timedelta(days=ARCHIVE_DAYS - 1)
    found = await table.db(lambda: table.store.daily_games(player, g.name, since.isoformat()))
    days = []
    for back in range(ARCHIVE_DAYS):
        date = (today - _dt.timedelta(days=back)).isoformat()
        mine = found.get(date)
        result = _day_result(mine)
        shown = mine if mine is not None and result is not None else None
        days.append({"date": date, "result": result,
                     "moves": None if shown is None else shown["moves"],
                     "seconds": None if shown is None else shown["seconds"],
                     "id": None if mine is None else mine["id"]})
    streak = 0
    for i, day in enumerate(days):
        if day["result"] == "won":
            streak += 1
        elif i > 0 or day["result"] == "lost":
            break
    return {"game": g.name, "title": g.title, "today": today.isoformat(),
            "streak": streak, "days": days}
