"""The JSON API of docs/api.md: games, moves, the player's intents, undo and
the other actions, hints, records and statistics.

A game belongs to the player who started it: every route that changes a
game (or asks the solver about it) answers 404 to anyone else, as if it did
not exist. Reading a game and its record stays open to whoever has its id
(a share link)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from ..board import Board
from ..errors import BakersError, IllegalMoveError, InvalidMoveError
from ..games import find_game
from ..notation import Move, Place
from ..options import Status
from ..session import Session, SessionError
from .middleware import address_of, player_of
from .models import (
    ERRORS,
    GAME_ERRORS,
    MOVE_ERRORS,
    RATE_ERRORS,
    IntentBody,
    MoveBody,
    NewGameBody,
    SettingsBody,
    error_doc,
)
from .state import TableDep
from .views import game_view, movement_view, summary_view

GAME_DOC: dict[int | str, dict[str, Any]] = {
    200: {"description": "the game object of docs/api.md"}, **GAME_ERRORS}
READ_DOC: dict[int | str, dict[str, Any]] = {
    200: {"description": "the game object of docs/api.md"},
    404: error_doc("no game with this id")}

router = APIRouter(prefix="/api", tags=["games"], responses=ERRORS)


@router.post("/games", status_code=201,
             responses={201: {"description": "the new game object"},
                        404: error_doc("unknown game name, or no game of yours to replace"),
                        **RATE_ERRORS})
async def new_game(body: NewGameBody, request: Request,
                   table: TableDep) -> Response:
    """Start a game: a numbered deal, the daily deal, a winnable deal, a
    random one, or a position. ``replace`` abandons an unfinished game
    (a loss once a move was made on it); ``practice`` games (lessons) stay
    out of the statistics and of the unfinished games list."""
    player = player_of(request)
    table.limits.check("games", player, address_of(request))
    game_id, session = await table.create(body, player)
    return JSONResponse(game_view(game_id, session), status_code=201)


@router.get("/games")
async def list_games(request: Request, table: TableDep,
                     status: str = Query("playing", max_length=20)) -> Response:
    """This player's unfinished games ("Continue"; practice games left out):
    games with moves first, then the newest; or with ``status=all`` every
    game of theirs, newest first."""
    if status not in ("playing", "all"):
        raise BakersError("status is 'playing' or 'all'")
    player = player_of(request)
    store = table.store
    ids = await table.db(lambda: store.list_game_ids(player, unfinished=status == "playing"))
    async with AsyncExitStack() as stack:
        await table.locks.hold_all(stack, ids)
        found = await table.db(
            lambda: [summary_view(game_id, store.load(game_id).session) for game_id in ids])
    if status == "playing":
        found.sort(key=lambda g: not g["played"])  # stable: newest first within each
    return JSONResponse({"games": found})


@router.get("/games/{game_id}", responses=READ_DOC)
async def get_game(game_id: str, table: TableDep) -> Response:
    """The game object (read-only for anyone with the id: a share link)."""
    return await table.locked(
        game_id, lambda: JSONResponse(game_view(game_id, table.store.load(game_id).session)))


@router.post("/games/{game_id}/moves", responses={**GAME_DOC, **MOVE_ERRORS})
async def play(game_id: str, body: MoveBody, request: Request, table: TableDep) -> Response:
    """Play a move (``{"move": "3a"}``) or send a card to its best place
    (``{"from": "3", "count": 1}``)."""
    if (body.move is None) == (body.from_ is None):
        raise InvalidMoveError('send a move like {"move": "3a"}, or {"from": "3", "count": 1}')
    move, src, count = body.move, body.from_, body.count or 1

    def act(session: Session) -> None:
        if move is not None:
            session.play(move)
        else:
            session.play_from(str(src), count)

    return await table.change(game_id, act, player=player_of(request))


@router.post("/games/{game_id}/intent", responses=GAME_DOC)
async def intent(game_id: str, body: IntentBody, request: Request,
                 table: TableDep) -> Response:
    """What the player did on the table: cards taken from ``from`` and dropped
    on ``to`` (or, without ``to``, sent to their best place). A refusal is an
    expected answer here: 200 with the unchanged game object and ``refused``
    saying why (``null`` when the move was played)."""
    src = Place.from_str(body.from_)
    dst = None if body.to is None else Place.from_str(body.to)
    count = body.count
    store = table.store
    player = player_of(request)

    def work() -> JSONResponse:
        loaded = table.load_own(game_id, player)
        session = loaded.session
        try:
            if dst is None:
                session.play_from(src, count or 1)
            else:
                session.play(Move(src, dst, count), longest=True)
        except IllegalMoveError as exc:
            return JSONResponse({**game_view(game_id, session), "refused": str(exc)})
        except BakersError:
            raise
        except Exception:
            store.forget(game_id)
            raise
        store.save(loaded)
        return JSONResponse({**game_view(game_id, session), "refused": None})

    return await table.locked(game_id, work)


@router.post("/games/{game_id}/undo", responses=GAME_DOC)
async def undo_game(game_id: str, request: Request, table: TableDep) -> Response:
    """Take back the last move (it counts as a move and takes its points back)."""
    return await table.change(game_id, Session.undo, player=player_of(request))


@router.post("/games/{game_id}/redo", responses=GAME_DOC)
async def redo_game(game_id: str, request: Request, table: TableDep) -> Response:
    """Play again the move taken back last."""
    return await table.change(game_id, Session.redo, player=player_of(request))


@router.post("/games/{game_id}/finish", responses=GAME_DOC)
async def finish_game(game_id: str, request: Request, table: TableDep) -> Response:
    """Send every remaining card home when no decision is left (``can_finish``):
    one player action."""
    return await table.change(game_id, Session.finish, player=player_of(request))


@router.post("/games/{game_id}/restart", responses=GAME_DOC)
async def restart_game(game_id: str, request: Request, table: TableDep) -> Response:
    """Back to the deal: history, moves and score cleared."""
    return await table.change(game_id, Session.restart, player=player_of(request))


@router.post("/games/{game_id}/pause", responses=GAME_DOC)
async def pause_game(game_id: str, request: Request, table: TableDep) -> Response:
    """Stop the clock (the page also asks this when it is hidden or closed)."""
    return await table.change(game_id, Session.pause, player=player_of(request))


@router.post("/games/{game_id}/resume", responses=GAME_DOC)
async def resume_game(game_id: str, request: Request, table: TableDep) -> Response:
    """Run the clock again (any move also resumes)."""
    return await table.change(game_id, Session.resume, player=player_of(request))


@router.post("/games/{game_id}/ping", responses=GAME_DOC)
async def ping_game(game_id: str, request: Request, table: TableDep) -> Response:
    """The page is still open and shown: the clock runs on. Without this
    request the clock never runs more than 10 seconds past the last one."""
    return await table.change(game_id, Session.touch, player=player_of(request))


@router.post("/games/{game_id}/abandon", responses=GAME_DOC)
async def abandon_game(game_id: str, request: Request,
                       table: TableDep) -> Response:
    """Discard one of your unfinished games: a loss once a move was made on
    it; a deal nobody moved on is simply put away."""
    player = player_of(request)
    store = table.store

    def work() -> JSONResponse:
        loaded = table.load_own(game_id, player)
        if loaded.session.status is Status.WON or loaded.session.abandoned:
            raise SessionError("this game is over already")
        store.abandon(game_id, player)
        return JSONResponse(game_view(game_id, store.load(game_id).session))

    return await table.locked(game_id, work)


@router.post("/games/{game_id}/settings", responses=GAME_DOC)
async def settings(game_id: str, body: SettingsBody, request: Request,
                   table: TableDep) -> Response:
    """Autoplay ``off`` / ``safe``; best-place order ``cell_first`` / ``empty_first``."""
    return await table.change(game_id, lambda session: session.set_settings(
        autoplay=body.autoplay, order=body.order), player=player_of(request))


@router.get("/games/{game_id}/hint", responses={**GAME_ERRORS, **RATE_ERRORS})
async def get_hint(game_id: str, request: Request, table: TableDep) -> Response:
    """The next move of a winning line, or "no winning line from here"
    (only for the game's own player)."""
    player = player_of(request)

    def read() -> tuple[str, int, str]:
        session = table.load_own(game_id, player).session
        if session.finished:
            raise SessionError("this game is over: no hint needed")
        g = session.board.game
        return g.name, g.cells, session.board.to_text()

    name, cells, text = await table.locked(game_id, read)
    table.limits.check("hints", player, address_of(request))
    verdict, move, message = await table.solver.hint(name, cells, text, table.hint_budget)
    if verdict != "unknown":  # a hint given counts as help in the statistics
        await table.change(game_id, Session.note_hint, player=player)
    body: dict[str, Any] = {"verdict": verdict, "move": move, "message": message}
    if move is not None:  # what the page highlights: the cards and where they go
        try:
            moved = Board.from_text(text, game=name, cells=cells).movement(Move.from_str(move))
            body["movement"] = movement_view(moved)
        except BakersError:
            body["movement"] = None
    return JSONResponse(body)


@router.get("/games/{game_id}/record", responses=READ_DOC)
async def get_record(game_id: str, table: TableDep) -> Response:
    """The game record: deal and moves, as text to save, share and replay
    (readable by anyone with the id)."""
    text = await table.locked(
        game_id, lambda: table.store.load(game_id).session.record().to_text())
    return JSONResponse({"record": text})


@router.get("/stats", tags=["stats"])
async def get_stats(request: Request, table: TableDep,
                    game: str | None = Query(None, max_length=40),
                    level: str | None = Query(None, max_length=20)) -> Response:
    """This player's statistics per game and level."""
    name = find_game(game).name if game is not None else None
    player = player_of(request)
    rows = await table.db(lambda: table.store.stats(player, name, level))
    return JSONResponse({"stats": [s.to_dict() for s in rows]})
