"""Studying at the table: the "still winnable?" indicator, which move lost a
game, the solution played back, and how hard a deal is.

All solver work runs in the app's worker processes (:mod:`.solving`), never
on the request path of a move: the page asks for the verdict after each
answer it draws (``GET /api/games/{id}/verdict``), and a newer request for
the same game cancels an older one still waiting for a worker. Verdicts are
remembered per game and position, so undo and redo cost nothing, and when a
position is lost the search for the move that lost it starts from the
verdicts already known.
"""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from concurrent.futures.process import BrokenProcessPool
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, StrictBool, StrictInt

from ..board import Board
from ..errors import BakersError
from ..notation import Move
from ..session import Session, SessionError
from ..store.study import StudyStore
from .middleware import address_of, player_of
from .solving import SolverBusyError, rate_deal_job
from .state import Table, TableDep
from .views import FOUNDATION_SUITS, movement_view

router = APIRouter(prefix="/api", tags=["study"])

INDICATOR_BUDGET = 1.0  # seconds of search for one indicator verdict
ANALYSIS_BUDGET = 2.0  # seconds per position when looking for the losing move
SOLUTION_BUDGET = 3.0  # seconds for the fast search to find a line
SOLUTION_SHORT_SECONDS = 0.5  # then seconds for the short search to shorten it
RATING_BUDGET = 2.0
KNOWN_GAMES = 500  # games whose position verdicts are remembered


# --- worker jobs (run in the solver's processes) ----------------------------------------------

def _start(game: str, cells: int, deal: int | None, position: str | None) -> Board:
    if deal is not None:
        return Board.deal(game, deal, cells=cells)
    assert position is not None
    return Board.from_text(position, game=game, cells=cells)


def indicator_job(game: str, cells: int, deal: int | None, position: str | None,
                  moves: list[str], known: dict[str, str], budget: float
                  ) -> tuple[str, int | None, str | None, dict[str, str]]:
    """The verdict on the position after ``moves``; when it is lost, the
    move after which it was (``index`` from 1, and its notation) if that is
    proven. ``known`` maps board texts of this game's positions to verdicts
    proven before; the answer adds those proven now."""
    from ..solver import Verdict
    from ..solver.study import analyse, positions_of, verdict_of
    start = _start(game, cells, deal, position)
    boards, texts = positions_of(start, moves)
    keys = [b.to_text() for b in boards]
    found: dict[str, str] = {}
    now = keys[-1]
    if now in known:
        verdict = known[now]
    else:
        verdict = verdict_of(boards[-1], budget).verdict.value
        found[now] = verdict
    if verdict != "impossible":
        return verdict, None, None, found
    proven = {i: Verdict(known.get(k) or found[k]) for i, k in enumerate(keys)
              if (known.get(k) or found.get(k)) in ("winnable", "impossible")}
    result = analyse(start, moves, budget, known=proven)
    for i, v in result.verdicts.items():
        if v is not Verdict.UNKNOWN:
            found[keys[i]] = v.value
    losing = result.first_losing_move
    if losing is None:
        return verdict, None, None, found
    return verdict, losing.index, texts[losing.index - 1], found


def analysis_job(game: str, cells: int, deal: int | None, position: str | None,
                 moves: list[str], budget: float) -> dict[str, Any]:
    """:func:`bakers.solver.study.analyse` of a game, with what the results
    screen draws: the position before the losing move and both moves' cards."""
    from ..solver.study import analyse
    start = _start(game, cells, deal, position)
    result = analyse(start, moves, budget)
    out = result.to_json()
    losing = result.first_losing_move
    if losing is not None:
        before = Board.from_text(losing.before, game=game, cells=cells)
        out["board"] = position_view(before)
        out["played"] = movement_view(before.movement(Move.from_str(losing.move)))
        out["kept_alive"] = (None if losing.alternative is None else
                             movement_view(before.movement(Move.from_str(losing.alternative))))
    return out


def solution_job(game: str, cells: int, text: str, budget: float,
                 short_seconds: float = SOLUTION_SHORT_SECONDS) -> dict[str, Any]:
    """The line to show from a position, each step with its card movement
    and the position after it (what the page draws while playing it back):
    the short line, the fast search's line improved for ``short_seconds``."""
    from ..solver.study import solution_line
    board = Board.from_text(text, game=game, cells=cells)
    line = solution_line(board, budget, short_seconds=short_seconds)
    steps = []
    for move, notation in zip(line.moves, line.texts, strict=True):
        said = board.describe_move(move)
        moved = board.movement(move)
        board.push(move)
        steps.append({"move": notation, "say": said, "movement": movement_view(moved),
                      "position": position_view(board)})
    return {"verdict": line.verdict.value, "steps": steps,
            "player_moves": line.player_moves, "limit": line.limit, "lines": line.lines,
            "optimal": line.optimal, "lower_bound": line.lower_bound}


# --- views ------------------------------------------------------------------------------------

def position_view(board: Board) -> dict[str, Any]:
    """A position as the page draws it (the game object's fields)."""
    found = board.foundations
    index = {"C": 0, "D": 1, "H": 2, "S": 3}
    return {"columns": [[str(c) for c in col] for col in board.columns],
            "freecells": [None if c is None else str(c) for c in board.cells],
            "foundations": {s: found[index[s]] for s in FOUNDATION_SUITS}}


def _origin(session: Session) -> tuple[str, int, int | None, str | None]:
    start_text = None if session.deal is not None else session.start.to_text()
    return session.game, session.board.game.cells, session.deal, start_text


# --- shared state: remembered verdicts, pending indicator jobs --------------------------------

class StudyState:
    """Per app: verdicts remembered per game, the indicator job waiting for
    each game, finished analyses, and the study tables of the store."""

    def __init__(self, table: Table) -> None:
        self.known: OrderedDict[str, dict[str, str]] = OrderedDict()
        self.pending: dict[str, asyncio.Task[Any]] = {}
        self.analyses: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self.store = StudyStore(table.store.engine)

    def known_of(self, game_id: str) -> dict[str, str]:
        known = self.known.setdefault(game_id, {})
        self.known.move_to_end(game_id)
        while len(self.known) > KNOWN_GAMES:
            self.known.popitem(last=False)
        return known


def study_of(table: Table) -> StudyState:
    state: StudyState | None = getattr(table, "study", None)
    if state is None:
        state = StudyState(table)
        table.study = state  # type: ignore[attr-defined]
    return state


# --- the indicator ----------------------------------------------------------------------------

class IndicatorBody(BaseModel):
    """``POST /api/games/{id}/indicator``: the "still winnable?" indicator on or off."""

    on: StrictBool


@router.post("/games/{game_id}/indicator")
async def set_indicator(game_id: str, body: IndicatorBody, request: Request,
                        table: TableDep) -> Response:
    """Turn the "still winnable?" indicator on or off for this game (being on
    while the game is played counts as help in the statistics)."""
    return await table.change(game_id, lambda s: s.set_settings(indicator=body.on),
                              player=player_of(request))


@router.get("/games/{game_id}/verdict")
async def get_verdict(game_id: str, request: Request, table: TableDep,
                      moves: Annotated[int | None, Query(ge=0)] = None) -> Response:
    """Whether the position can still be won: ``winnable``, ``impossible``
    (with ``lost_at``, the move after which it was, when proven) or
    ``unknown`` (not proven within the budget). ``moves`` says which position
    the answer is about (the number of moves played), ``stale`` that a
    newer request for this game took over before this one was decided. A
    question about an older position (the ``moves`` asked for is not the
    game's) is answered ``stale`` at once and leaves the game's pending
    question alone."""
    player = player_of(request)
    study = study_of(table)

    def read() -> tuple[tuple[str, int, int | None, str | None], list[str], bool, bool]:
        session = table.load_own(game_id, player).session
        return _origin(session), session.moves, session.help.indicator, session.board.is_won()

    origin, played, on, won = await table.locked(game_id, read)
    base = {"moves": len(played), "stale": False, "lost_at": None, "lost_move": None}
    if moves is not None and moves != len(played):
        return JSONResponse({**base, "verdict": None, "indicator": on, "stale": True})
    if not on:
        return JSONResponse({**base, "verdict": None, "indicator": False})
    if won:
        return JSONResponse({**base, "verdict": "winnable", "indicator": True})
    known = study.known_of(game_id)
    old = study.pending.pop(game_id, None)
    if old is not None:
        old.cancel()
    job = asyncio.ensure_future(table.solver.run(
        indicator_job, *origin, played, dict(known), INDICATOR_BUDGET,
        timeout=INDICATOR_BUDGET * 4 + 10))
    study.pending[game_id] = job
    try:
        verdict, lost_at, lost_move, found = await job
    except asyncio.CancelledError:
        if job.cancelled() and not _cancelling():
            return JSONResponse({**base, "verdict": None, "indicator": True, "stale": True})
        raise
    except (TimeoutError, BrokenProcessPool, SolverBusyError):
        verdict, lost_at, lost_move, found = "unknown", None, None, {}
    finally:
        if study.pending.get(game_id) is job:
            del study.pending[game_id]
    known.update(found)
    return JSONResponse({**base, "verdict": verdict, "indicator": True,
                         "lost_at": lost_at, "lost_move": lost_move})


def _cancelling() -> bool:
    """Whether the running request itself is being cancelled (not only the
    job it waited for)."""
    task = asyncio.current_task()
    return bool(task is not None and task.cancelling())


# --- which move lost it -----------------------------------------------------------------------

@router.get("/games/{game_id}/analysis")
async def get_analysis(game_id: str, request: Request, table: TableDep) -> Response:
    """After a lost, blocked or abandoned game: the first move after which it
    could no longer be won (``first_losing_move``: index from 1, the move, a
    move that kept it alive, the position before it), or why none is named.
    """
    player = player_of(request)
    study = study_of(table)

    def read() -> tuple[tuple[str, int, int | None, str | None], list[str]]:
        session = table.load_own(game_id, player).session
        if session.board.is_won():
            raise SessionError("this game was won: there is no losing move to find")
        if not session.abandoned and session.legal_moves():
            raise SessionError("the analysis comes when the game is over: blocked or "
                               "abandoned")
        return _origin(session), session.moves

    origin, moves = await table.locked(game_id, read)
    key = (game_id, len(moves))
    if key not in study.analyses:
        table.limits.check("hints", player, address_of(request))
        try:
            study.analyses[key] = await table.solver.run(
                analysis_job, *origin, moves, ANALYSIS_BUDGET,
                timeout=ANALYSIS_BUDGET * 40 + 10)
        except (TimeoutError, BrokenProcessPool):
            raise BakersError("the analysis took too long: try again") from None
        while len(study.analyses) > 200:
            study.analyses.popitem(last=False)
    return JSONResponse(study.analyses[key])


# --- the solution, played back ----------------------------------------------------------------

@router.post("/games/{game_id}/solution")
async def show_solution(game_id: str, request: Request, table: TableDep) -> Response:
    """The line to show from the current position, step by step (each with
    its card movement and the position after it). Counts as help once a line
    is found. ``at`` is the number of moves played when it was asked."""
    player = player_of(request)

    def read() -> tuple[str, int, str, int]:
        session = table.load_own(game_id, player).session
        if session.finished:
            raise SessionError("this game is over: there is no solution to show")
        g = session.board.game
        return g.name, g.cells, session.board.to_text(), len(session.moves)

    name, cells, text, at = await table.locked(game_id, read)
    table.limits.check("hints", player, address_of(request))
    try:
        line = await table.solver.run(solution_job, name, cells, text, SOLUTION_BUDGET,
                                      SOLUTION_SHORT_SECONDS,
                                      timeout=SOLUTION_BUDGET + SOLUTION_SHORT_SECONDS + 10)
    except (TimeoutError, BrokenProcessPool):
        line = {"verdict": "unknown", "steps": [], "player_moves": None, "limit": "timeout",
                "lines": "short", "optimal": False, "lower_bound": None}
    if line["verdict"] == "winnable":
        def note() -> None:
            loaded = table.load_own(game_id, player)
            if len(loaded.session.moves) == at:
                loaded.session.note_solution()
                table.store.save(loaded)

        await table.locked(game_id, note)
        message = (f"A winning line of {len(line['steps'])} moves "
                   f"({line['player_moves']} of them yours, the rest to the foundations"
                   + ("; none shorter exists)." if line["optimal"] else ")."))
    elif line["verdict"] == "impossible":
        message = "No winning line from here: this position cannot be won."
    else:
        message = "No winning line was found within the time allowed."
    return JSONResponse({**line, "at": at, "message": message,
                         "start": position_view(Board.from_text(text, game=name,
                                                                cells=cells))})


class TakeOverBody(BaseModel):
    """``POST /api/games/{id}/solution/take``: play the first moves of a
    shown solution (the player takes over there)."""

    at: StrictInt = Field(ge=0, description="moves played when the solution was shown")
    moves: list[str] = Field(max_length=400)


@router.post("/games/{game_id}/solution/take")
async def take_over(game_id: str, body: TakeOverBody, request: Request,
                    table: TableDep) -> Response:
    """Keep the position reached in playback: its moves are played (each
    checked by the rules, each a move) from the position where it began."""
    def act(session: Session) -> None:
        if len(session.moves) != body.at:
            raise SessionError("the game moved on since the solution was shown: show it again")
        session.note_solution()
        session.play_line(body.moves)

    return await table.change(game_id, act, player=player_of(request))


# --- how hard is this deal --------------------------------------------------------------------

async def rating_of(table: Table, game: str, cells: int, deal: int) -> dict[str, Any]:
    """The stored rating of a deal, or one computed now and stored."""
    study = study_of(table)
    stored = await table.db(functools.partial(study.store.rating, game, cells, deal))
    if stored is not None:
        return stored
    try:
        rated: dict[str, Any] = await table.solver.run(
            rate_deal_job, game, cells, deal, RATING_BUDGET, timeout=RATING_BUDGET * 10 + 10)
    except (TimeoutError, BrokenProcessPool):
        raise BakersError("rating this deal took too long: try again") from None
    if rated["verdict"] != "unknown":
        await table.db(functools.partial(study.store.save_rating, rated))
    return rated


@router.get("/games/{game_id}/rating")
async def get_rating(game_id: str, request: Request, table: TableDep) -> Response:
    """How hard this game's deal is: fewest cells that win it, player moves
    of its line, positions searched, and the band (``rating``). A game
    from a position has no rating."""
    player = player_of(request)

    def read() -> tuple[str, int, int | None]:
        session = table.load_own(game_id, player).session
        return session.game, session.board.game.cells, session.deal

    game, cells, deal = await table.locked(game_id, read)
    if deal is None:
        return JSONResponse({"rating": None, "message": "a position, not a numbered deal"})
    return JSONResponse(await rating_of(table, game, cells, deal))


# --- statistics over time ---------------------------------------------------------------------

@router.get("/stats/history", tags=["stats"])
async def stats_history(request: Request, table: TableDep) -> Response:
    """This player's finished games in order (when, won, seconds, moves,
    score, help), and per game and level the wins with and without help."""
    study = study_of(table)
    player = player_of(request)
    rows = await table.db(functools.partial(study.store.history, player))
    return JSONResponse({"results": rows, "summary": StudyStore.summary(rows)})
