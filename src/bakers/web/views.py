"""The game object: the one place that turns a game into the JSON the page
(and any other client) reads, documented in docs/api.md.

It is complete, so the page derives nothing: the position and its legal
moves, the card movements of the last action in order (the game's own moves
included) for the animation, the game's rules as data (levels with their
cell counts, whether empty columns refill, whether runs move, the place
names), the clock and score with the rule that charges time, the status and
its message, and the bodies that deal the next deal or this one again.
"""

from __future__ import annotations

import functools
from typing import Any

from ..board import Movement
from ..games import GAMES, EmptyColumn, Game, RunMoves
from ..lessons import LESSONS, UnknownLessonError, lesson_by_key, next_lesson
from ..notation import CELL_LETTERS, COLUMN_LETTERS, FOUNDATION_LETTER, Place
from ..options import DEAL_LEVELS, Level, Status
from ..session import (
    IDLE_LIMIT,
    PENALTY,
    PENALTY_PERIOD,
    POINTS_PER_CARD,
    WIN_BONUS,
    Session,
    format_seconds,
)
from .shares import level_view

BLOCKED_MESSAGE = "No legal move remains: undo, restart or start a new deal."
PING_EVERY = 5.0
"""Seconds between the page's "still here" requests while a game runs."""

# foundations in the order the table shows them
FOUNDATION_SUITS = ("H", "C", "D", "S")
_SUIT_INDEX = {"C": 0, "D": 1, "H": 2, "S": 3}


def place_text(place: Place) -> str:
    """The notation letter of ``place`` (``3``, ``a``, ``h``)."""
    return str(place)


def place_name(place: Place) -> str:
    """``column 3``, ``free cell a``, ``the foundations``."""
    if place.is_foundation:
        return "the foundations"
    if place.is_cell:
        return f"free cell {CELL_LETTERS[place.index]}"
    return f"column {place.index + 1}"


def movement_view(movement: Movement) -> dict[str, Any]:
    return {"cards": [str(c) for c in movement.cards],
            "from": place_text(movement.src), "to": place_text(movement.dst)}


@functools.lru_cache(maxsize=64)
def rules_view(game: Game) -> dict[str, Any]:
    """A game's rules as data: what the page needs to offer the right choices
    without knowing any game by name (built once per rule set; read-only)."""
    own = GAMES[game.name].cells  # the game's own count (this game may be played with others)
    levels = [{"name": lv.value, "label": lv.label, "cells": lv.cells(own),
               "winnable": lv.winnable}
              for lv in DEAL_LEVELS if lv.value in game.levels]
    columns = [COLUMN_LETTERS[i] for i in range(game.columns)]
    cells = [CELL_LETTERS[i] for i in range(game.cells)]
    names = {p: place_name(Place.from_str(p)) for p in [*columns, *cells, FOUNDATION_LETTER]}
    return {
        "levels": levels,
        "cells": game.cells,
        "max_cells": game.max_cells,
        "empty_columns_refill": game.empty_column is EmptyColumn.ANY,
        "runs_move": game.run_moves is RunMoves.SUPERMOVE,
        "build": game.build.describe(),
        "places": {"columns": columns, "cells": cells, "foundation": FOUNDATION_LETTER,
                   "foundation_suits": list(FOUNDATION_SUITS), "names": names},
        "idle_limit": IDLE_LIMIT,
        "ping_every": PING_EVERY,
    }


def games_catalogue() -> list[dict[str, Any]]:
    """The games for the home page and menus."""
    return [{"name": g.name, "title": g.title, "levels": list(g.levels),
             "level_notes": [level_view(g, lv) for lv in g.levels],
             "max_cells": g.max_cells, "cells": g.cells, "columns": g.columns,
             "rules": rules_view(g)}
            for g in GAMES.values()]


def message_of(session: Session, status: Status) -> str | None:
    """The sentence the table shows for where the game stands."""
    if session.message:
        return session.message
    if status is Status.WON and session.lesson is not None:
        return f"All cards home in {session.moves_count} moves."  # a lesson keeps no score
    if status is Status.WON:
        seconds = session.seconds()
        return (f"You won in {session.moves_count} moves and {format_seconds(seconds)}: "
                f"score {session.score()}.")
    if status is Status.ABANDONED:
        return ("This game was abandoned." if session.played
                else "This deal was put away before any move: it does not count.")
    if status is Status.BLOCKED:
        return BLOCKED_MESSAGE
    return None


def next_deal(session: Session) -> dict[str, Any]:
    """The body of ``POST /api/games`` for the next deal like this one
    ("New deal"): same game, level and cells, and winnable-only when this one
    was dealt so. After a lesson: a full deal of its game."""
    if session.lesson is not None:
        return {"game": session.game}
    level = session.level
    body: dict[str, Any] = {"game": session.game}
    if level in DEAL_LEVELS:
        body["level"] = level.value
    if level is not Level.DAILY:
        body["cells"] = session.board.game.cells
    if session.winnable:
        body["winnable"] = True
    if session.practice:
        body["practice"] = True
    return body


def replay_deal(session: Session) -> dict[str, Any]:
    """The body of ``POST /api/games`` that deals this same deal again."""
    if session.lesson is not None:
        return {"lesson": session.lesson}
    if session.daily is not None:
        return {"game": session.game, "daily": True}
    body: dict[str, Any] = {"game": session.game}
    if session.deal is not None:
        body["deal"] = session.deal
    else:
        body["position"] = session.start.to_text()
    if session.level in DEAL_LEVELS:
        body["level"] = session.level.value
    body["cells"] = session.board.game.cells
    if session.winnable:
        body["winnable"] = True
    if session.practice:
        body["practice"] = True
    return body


def lesson_view(session: Session) -> dict[str, Any] | None:
    """A lesson's instruction, goal and progress (``None`` for other games):
    the goal checked here, on the game's current line."""
    if session.lesson is None:
        return None
    try:
        lesson = lesson_by_key(session.lesson)
    except UnknownLessonError:
        return None
    start = lesson.board()
    if start.to_text() != session.start.to_text():
        return None  # a lesson changed since this game began: a plain practice game
    progress = lesson.progress(session.start, session.groups)
    after = next_lesson(lesson)
    title = session.board.game.title
    if progress.met:
        message = ("Goal met. " + (f"Next: lesson {after.number}, {after.title}." if after
                                   else f"That was the last {title} lesson: try a full deal."))
    elif progress.over:
        needed = "one move" if lesson.moves == 1 else f"{lesson.moves} moves"
        message = (f"The goal asks for {needed}: "
                   + ("try the lesson again." if session.finished
                      else "restart the lesson (or undo) and try again."))
    elif session.finished:
        message = "The game ended before the goal was met: try the lesson again."
    else:
        message = None
    return {
        "key": lesson.key, "number": lesson.number, "count": len(LESSONS[lesson.game]),
        "title": lesson.title, "instruction": lesson.instruction,
        "goal": lesson.goal_text(),
        "steps": [{"text": step.text(), "met": met}
                  for step, met in zip(lesson.steps, progress.steps, strict=True)],
        "moves": lesson.moves, "met": progress.met, "over": progress.over,
        # the goal can no longer be met in this game: the lesson's address deals it afresh
        "retry": not progress.met and (progress.over or session.finished),
        "message": message, "address": lesson.address,
        "next": None if after is None else {"number": after.number, "title": after.title,
                                             "address": after.address},
        "full_deal": f"/play/{lesson.game}", "rules": f"/rules/{lesson.game}#lessons",
    }


def score_view(session: Session) -> dict[str, Any]:
    seconds = session.seconds()
    state = session.score_state
    return {"moves": session.moves_count, "seconds": round(seconds, 1),
            "score": state.value(seconds), "home": session.board.cards_home(),
            # what the page needs to charge time as it passes, as the server does
            "base": state.base, "periods": state.periods, "final": state.final}


def game_view(game_id: str, session: Session) -> dict[str, Any]:
    """The game object of docs/api.md."""
    board = session.board
    g = board.game
    legal = session.legal_moves()
    status = session.status
    found = board.foundations
    return {
        "id": game_id,
        "game": g.name,
        "title": g.title,
        "level": session.level.value,
        "level_label": session.level.label,
        "cells": g.cells,
        "columns_count": g.columns,
        "deal": session.deal,
        "daily": session.daily,
        "status": status.value,
        "paused": session.paused,
        "clock_running": session.timer.running and not session.paused,
        "position": board.to_text(),
        "columns": [[str(c) for c in col] for col in board.columns],
        "freecells": [None if c is None else str(c) for c in board.cells],
        "foundations": {s: found[_SUIT_INDEX[s]] for s in FOUNDATION_SUITS},
        "legal_moves": [m.notation(with_count=True) for m in legal],
        "moves": session.moves,
        # each move of the record numbered as the player counts moves: the
        # cards that went home by themselves share their move's number; the
        # safe cards sent home right after the deal are no move of the player (0)
        "move_numbers": [0 for _ in session.opening]
        + [n for n, group in enumerate(session.groups, 1) for _ in group],
        "action": {"kind": session.last_action.kind,
                   "movements": [movement_view(m) for m in session.last_action.movements]},
        "can_undo": session.can_undo,
        "can_redo": session.can_redo,
        # no decision left: the table offers "Auto-finish" (POST .../finish)
        "can_finish": session.can_finish,
        "score": score_view(session),
        "scoring": {"points_per_card": POINTS_PER_CARD, "penalty": PENALTY,
                    "period": PENALTY_PERIOD, "win_bonus": WIN_BONUS},
        "settings": {"autoplay": session.autoplay.value, "order": session.order.value},
        "rules": rules_view(g),
        "practice": session.practice,
        "lesson": lesson_view(session),
        "winnable": session.winnable,
        "played": session.played,
        # the "still winnable?" indicator's setting and the help given so far
        "study": {"indicator": session.help.indicator, "help": session.help.to_dict(),
                  "helped": session.help.helped},
        "message": message_of(session, status),
        "next_deal": next_deal(session),
        "replay": replay_deal(session),
    }


def summary_view(game_id: str, session: Session) -> dict[str, Any]:
    """A short description for lists ("Continue")."""
    return {
        "id": game_id, "game": session.game, "title": session.board.game.title,
        "level": session.level.value, "level_label": session.level.label,
        "cells": session.board.game.cells, "deal": session.deal,
        "daily": session.daily, "status": session.status.value, "practice": session.practice,
        "played": session.played, "moves": session.moves_count,
        "score": score_view(session),
    }


__all__ = ["BLOCKED_MESSAGE", "game_view", "games_catalogue", "lesson_view", "movement_view",
           "next_deal",
           "replay_deal", "rules_view", "summary_view"]
