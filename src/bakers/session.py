"""A game being played: level, timer, score, autoplay, undo/redo history.

Pure logic shared by the web table and the command line; no I/O. The store
keeps a session as the dict of :meth:`Session.to_dict` (the deal, every move
grouped by player action, the redo list, the timer and the score state), so a
saved game comes back with its whole undo history.

Rules of play kept here (SPEC §4, seed 004):

* **Score**: +10 for every card that reaches a foundation (also when autoplay
  or auto-finish sends it); −30 for every full 30 seconds of play; the score
  never drops below 0 (it is a running total clamped at 0 at each change);
  on a win a bonus of 600,000 ÷ whole seconds taken (at least 1). An undo takes
  back the points of the cards it brings down and counts as a move; a redo
  scores again and counts as a move.
* **Moves**: each player action (move, undo, redo) counts one; the moves
  the game makes by itself (autoplay, auto-finish) do not.
* **Timer**: starts with the first move, stops while paused and when the game
  ends. A gap between two actions counts at most ``IDLE_LIMIT`` seconds, so a
  table left open overnight does not ruin a score. Any action resumes a paused
  game.
* **Undo** takes back one player action together with the moves the game
  made after it; **redo** puts it back exactly.
* **Autoplay** ``safe`` sends every safe foundation card home after each
  player move (not after undo/redo); ``off`` never does. Independent of the
  setting, when every remaining card can go home by foundation moves alone the
  game plays them (auto-finish).
* **What counts**: a game goes into the statistics only once a move has been
  made on it (``played``; a restart does not clear it), and never when it is a
  ``practice`` game (a lesson). Abandoning a deal nobody moved on is no loss.

>>> clock = FakeClock()
>>> s = Session(Board.deal("bakers_game", 617), clock=clock)
>>> s.status, s.score(), s.moves_count
('playing', 0, 0)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .board import Board
from .cards import Card
from .errors import BakersError, IllegalMoveError, InvalidMoveError
from .games import EmptyColumn, RunMoves, find_game
from .notation import CELL_LETTERS, GameRecord, Move, Place

Clock = Callable[[], float]

IDLE_LIMIT = 600.0
"""Most seconds a single gap between two actions adds to the timer."""

POINTS_PER_CARD = 10
PENALTY = 30
PENALTY_PERIOD = 30
WIN_BONUS = 600_000

AUTOPLAY_MODES = ("off", "safe")
ORDERS = ("cell_first", "empty_first")
LEVELS = ("easy", "normal", "hard", "custom", "daily")
STATUSES = ("playing", "won", "blocked", "abandoned")

BLOCKED_MESSAGE = "No legal move remains: undo, restart or start a new deal."
FORMAT_VERSION = 1


class SessionError(BakersError):
    """An action the game is not in a state for (HTTP 409)."""


class GameOverError(SessionError):
    """The game is won or abandoned: no more moves."""


class FakeClock:
    """A clock for tests: ``clock.advance(30)`` moves time on."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Timer:
    """Seconds of play: an accumulated total plus the running stretch."""

    accumulated: float = 0.0
    since: float | None = None  # clock value when the running stretch began
    paused: bool = False

    @property
    def running(self) -> bool:
        return self.since is not None

    def seconds(self, now: float) -> float:
        extra = 0.0
        if self.since is not None:
            extra = min(max(now - self.since, 0.0), IDLE_LIMIT)
        return self.accumulated + extra

    def touch(self, now: float) -> None:
        """Fold the running stretch into the total (call at every action)."""
        if self.since is not None:
            self.accumulated = self.seconds(now)
            self.since = now

    def start(self, now: float) -> None:
        """Run the timer (first move, or resuming)."""
        self.touch(now)
        if self.since is None:
            self.since = now
        self.paused = False

    def pause(self, now: float) -> None:
        self.stop(now)
        self.paused = True

    def stop(self, now: float) -> None:
        self.touch(now)
        self.since = None

    def to_dict(self) -> dict[str, Any]:
        return {"accumulated": self.accumulated, "since": self.since, "paused": self.paused}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Timer:
        since = d.get("since")
        return cls(float(d.get("accumulated", 0.0)),
                   None if since is None else float(since), bool(d.get("paused", False)))


@dataclass
class Score:
    """The running score: ``base`` after the last change, with the 30-second
    periods already charged (``periods``); ``final`` once the game is over.

    >>> s = Score(); s.add(10, 5.0); s.value(5.0), s.value(31.0)
    (10, 0)
    """

    base: int = 0
    periods: int = 0
    final: int | None = None

    def value(self, seconds: float) -> int:
        if self.final is not None:
            return self.final
        due = int(seconds // PENALTY_PERIOD) - self.periods
        return max(0, self.base - PENALTY * max(due, 0))

    def settle(self, seconds: float) -> None:
        """Charge the periods that have passed (clamping at 0)."""
        self.base = self.value(seconds)
        self.periods = max(self.periods, int(seconds // PENALTY_PERIOD))

    def add(self, points: int, seconds: float) -> None:
        self.settle(seconds)
        self.base = max(0, self.base + points)

    def to_dict(self) -> dict[str, Any]:
        return {"base": self.base, "periods": self.periods, "final": self.final}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Score:
        final = d.get("final")
        return cls(int(d.get("base", 0)), int(d.get("periods", 0)),
                   None if final is None else int(final))


def win_bonus(seconds: float) -> int:
    """600,000 ÷ whole seconds taken (at least one second).

    >>> win_bonus(120.7), win_bonus(0.2)
    (5000, 600000)
    """
    return WIN_BONUS // max(1, int(seconds))


def finishing_moves(board: Board) -> list[Move] | None:
    """The foundation moves that win from here, or ``None`` when some card
    cannot go home by foundation moves alone."""
    found = board.foundations
    # fast refusal: a card above a lower card of its own suit can never go first
    for col in board.columns:
        low = [14, 14, 14, 14]
        for card in col:
            if card.rank > low[card.suit]:
                return None
            low[card.suit] = card.rank
    trial = board.copy(stack=False)
    out: list[Move] = []
    while not trial.is_won():
        found = trial.foundations
        step: Move | None = None
        for i, col in enumerate(trial.columns):
            if col and found[col[-1].suit] == col[-1].rank - 1:
                step = Move(Place.column(i), Place.foundation(), 1)
                break
        if step is None:
            for i, maybe in enumerate(trial.cells):
                if maybe is not None and found[maybe.suit] == maybe.rank - 1:
                    step = Move(Place.cell(i), Place.foundation(), 1)
                    break
        if step is None:
            return None
        out.append(trial.push(step))
    return out


def level_cells(game: str, level: str) -> int:
    """Free cells of a level: Easy and Normal 4 (the game's own), Hard 3."""
    g = find_game(game)
    if level not in g.levels:
        raise BakersError(f"{g.title} has the levels {', '.join(g.levels)}, not {level!r}")
    return 3 if level == "hard" else g.cells


def level_for(game: str, cells: int, winnable: bool) -> str:
    """The level a game of ``cells`` free cells counts under."""
    g = find_game(game)
    if cells == g.cells:
        return "easy" if winnable else "normal"
    if cells == 3 and "hard" in g.levels:
        return "hard"
    return "custom"


@dataclass
class ActionResult:
    """What one player action did: the move the player made (if any) and the
    moves the game then made itself."""

    move: str | None = None
    auto: list[str] = field(default_factory=list)


class Session:
    """One game being played, with its history, timer and score."""

    def __init__(self, board: Board, *, level: str = "normal", daily: str | None = None,
                 autoplay: str = "safe", order: str = "cell_first",
                 clock: Clock = time.time, message: str | None = None,
                 practice: bool = False) -> None:
        if board.move_stack:
            board = board.root()
        self.start = board.copy(stack=False)
        self.board = board
        if level not in LEVELS:
            raise BakersError(f"unknown level {level!r}: choose easy, normal or hard")
        self.level = level
        self.daily = daily
        self.clock = clock
        self.settings: dict[str, str] = {"autoplay": "safe", "order": "cell_first"}
        self.set_settings(autoplay=autoplay, order=order)
        # per player action: its moves' notation (Board.move_text, as played)
        self.groups: list[list[str]] = []
        self.redo_stack: list[list[str]] = []
        self.moves_count = 0
        self.timer = Timer()
        self.score_state = Score()
        self.abandoned = False
        self.practice = practice
        self.played = False  # a player move was made on this deal (restart keeps it)
        self.message = message
        self.last_auto: list[str] = []
        self.created = clock()
        self._legal_at: object = None
        self._legal: list[Move] = []

    # --- queries ---------------------------------------------------------------

    @property
    def game(self) -> str:
        return self.board.game.name

    @property
    def deal(self) -> int | None:
        return self.start.deal_number

    def _legal_moves(self) -> list[Move]:
        """The board's legal moves, computed once per position."""
        position = self.board.position
        if self._legal_at is not position:
            self._legal = self.board.generate_legal_moves()
            self._legal_at = position
        return self._legal

    @property
    def status(self) -> str:
        if self.board.is_won():
            return "won"
        if self.abandoned:
            return "abandoned"
        if not self._legal_moves():
            return "blocked"
        return "playing"

    @property
    def finished(self) -> bool:
        return self.abandoned or self.board.is_won()

    @property
    def counts_in_stats(self) -> bool:
        """Whether this game's result goes into the statistics: not for a
        practice game, nor for a deal left without a single move."""
        return self.played and not self.practice

    @property
    def paused(self) -> bool:
        return self.timer.paused and not self.finished

    def seconds(self) -> float:
        return self.timer.seconds(self.clock())

    def score(self) -> int:
        return self.score_state.value(self.seconds())

    @property
    def moves(self) -> list[str]:
        """Every move played so far, the game's own included, in order."""
        return [m for group in self.groups for m in group]

    @property
    def can_undo(self) -> bool:
        return bool(self.groups) and not self.finished

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_stack) and not self.finished

    def legal_moves(self) -> list[str]:
        if self.finished:
            return []
        # explicit counts (runs carry /n, column-to-column moves /1): clients read
        # every count off the text; the history uses the standard Board.move_text
        return [m.notation(with_count=True) for m in self._legal_moves()]

    def record(self) -> GameRecord:
        start_text = None if self.deal is not None else self.start.to_text()
        return GameRecord(self.game, self.board.game.cells, tuple(self.moves),
                          deal=self.deal, position=start_text)

    # --- actions ---------------------------------------------------------------

    def _check_active(self) -> None:
        if self.board.is_won():
            raise GameOverError("this game is won: start a new deal")
        if self.abandoned:
            raise GameOverError("this game was abandoned: start a new deal")

    def _begin(self) -> float:
        """Common start of an action: resume the timer, clear transient state."""
        now = self.clock()
        self.timer.start(now)
        self.message = None
        self.last_auto = []
        return now

    def _push(self, move: Move) -> str:
        text = self.board.move_text(move)
        self.board.push(move)
        return text

    def play(self, move: Move | str) -> ActionResult:
        """Play the player's ``move`` (notation or Move), then autoplay and
        auto-finish. Raises ``IllegalMoveError`` with the reason if refused."""
        self._check_active()
        if isinstance(move, str):
            move = Move.from_str(move)
        resolved = self.board.resolve(move)  # refuse before touching anything
        self._begin()
        group = [self._push(resolved)]
        auto = self._after_move()
        group += auto
        self.groups.append(group)
        self.redo_stack.clear()
        self.moves_count += 1
        self.played = True
        self._score_change(group, +1)
        self._settle_end()
        return ActionResult(group[0], auto)

    def play_from(self, src: Place | str, count: int = 1) -> ActionResult:
        """Send the card at ``src`` (with the run above it when ``count`` > 1)
        to its best place."""
        self._check_active()
        return self.play(self.best_move(src, count))

    def _after_move(self) -> list[str]:
        auto: list[str] = []
        if self.settings["autoplay"] == "safe":
            while True:
                safe = self.board.safe_autoplay_moves()
                if not safe:
                    break
                auto.append(self._push(safe[0]))
        finish = finishing_moves(self.board)
        if finish:
            for m in finish:
                auto.append(self._push(m))
        self.last_auto = auto
        return auto

    def _score_change(self, moves: Sequence[str], sign: int) -> None:
        home = sum(1 for m in moves if Move.from_str(m).dst.is_foundation)
        if home:
            self.score_state.add(sign * POINTS_PER_CARD * home, self.seconds())

    def _settle_end(self) -> None:
        """After an action: finish a won game, or say that it is blocked."""
        if self.board.is_won():
            now = self.clock()
            self.timer.stop(now)
            seconds = self.timer.seconds(now)
            self.score_state.settle(seconds)
            self.score_state.final = self.score_state.base + win_bonus(seconds)
            self.message = (f"You won in {self.moves_count} moves and "
                            f"{format_seconds(seconds)}: score {self.score_state.final}.")
        elif not self._legal_moves():
            self.message = BLOCKED_MESSAGE

    def undo(self) -> ActionResult:
        """Take back the last player action and the moves the game made after
        it. Counts as a move and takes its points back."""
        self._check_active()
        if not self.groups:
            raise SessionError("there is no move to undo")
        self._begin()
        group = self.groups.pop()
        for _ in group:
            self.board.pop()
        self.redo_stack.append(group)
        self.moves_count += 1
        self._score_change(group, -1)
        self._settle_end()
        return ActionResult(None, [])

    def redo(self) -> ActionResult:
        """Play again the last action taken back by undo."""
        self._check_active()
        if not self.redo_stack:
            raise SessionError("there is no move to redo")
        self._begin()
        group = [self._push(Move.from_str(text)) for text in self.redo_stack.pop()]
        self.groups.append(group)
        self.moves_count += 1
        self._score_change(group, +1)
        self._settle_end()
        return ActionResult(group[0], [])

    def restart(self) -> None:
        """Back to the deal: history, moves and score cleared; the timer goes
        on (time already spent on the deal still counts)."""
        self._check_active()
        now = self._begin()
        self.board = self.start.copy(stack=False)
        self.groups = []
        self.redo_stack = []
        self.moves_count = 0
        self.score_state = Score(0, int(self.timer.seconds(now) // PENALTY_PERIOD))
        self._settle_end()

    def pause(self) -> None:
        """Stop the timer (nothing to do once the game is over)."""
        if self.finished:
            return
        if self.timer.running or not self.timer.paused:
            self.timer.pause(self.clock())

    def resume(self) -> None:
        if self.finished:
            return
        if self.timer.paused:
            self.timer.paused = False
            if self.groups or self.timer.accumulated:
                self.timer.start(self.clock())

    def abandon(self) -> None:
        """Give the game up: a loss once a move was made on it (see
        :attr:`counts_in_stats`); a deal nobody moved on is simply put away."""
        self._check_active()
        now = self.clock()
        self.timer.stop(now)
        self.score_state.settle(self.timer.seconds(now))
        self.score_state.final = self.score_state.base
        self.abandoned = True
        self.message = ("This game was abandoned." if self.played
                        else "This deal was put away before any move: it does not count.")

    def set_settings(self, autoplay: str | None = None, order: str | None = None) -> None:
        if autoplay is not None:
            if autoplay not in AUTOPLAY_MODES:
                raise BakersError(f"autoplay is 'off' or 'safe', not {autoplay!r}")
            self.settings["autoplay"] = autoplay
        if order is not None:
            if order not in ORDERS:
                raise BakersError(f"order is 'cell_first' or 'empty_first', not {order!r}")
            self.settings["order"] = order

    # --- best place ------------------------------------------------------------

    def best_move(self, src: Place | str, count: int = 1) -> Move:
        """The move a click on the card at ``src`` makes (``count`` cards from
        the top of a column: that card and the run above it).

        Order (seed 002): foundation, a column where it builds, a free cell, an
        empty column; with ``order == "empty_first"`` (seed 004) an empty column
        comes before a free cell. A run only goes onto a column. A card never
        goes alone into an empty column from a column it would leave empty.
        """
        board = self.board
        game = board.game
        if isinstance(src, str):
            src = Place.from_str(src)
        if src.is_foundation:
            raise IllegalMoveError("cards on a foundation never come back into play")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 52:
            raise InvalidMoveError("count is the number of cards to move: 1 to 52")
        if src.is_column and not 0 <= src.index < game.columns:
            raise IllegalMoveError(f"there is no column {src.index + 1}: {game.title} has "
                                   f"{game.columns} columns")
        if src.is_cell and not 0 <= src.index < game.cells:
            raise IllegalMoveError(f"there is no free cell {CELL_LETTERS[src.index]} here")
        card: Card | None
        if src.is_cell:
            card = board.cells[src.index]
            if card is None:
                raise IllegalMoveError(f"{src.describe()} is empty")
            if count != 1:
                raise IllegalMoveError("a free cell holds a single card")
            whole_column = False
        else:
            col = board.columns[src.index]
            if not col:
                raise IllegalMoveError(f"{src.describe()} is empty")
            if count > 1 and game.run_moves is RunMoves.SINGLES:
                raise IllegalMoveError(f"{game.title} moves single exposed cards only")
            if count > len(col):
                raise IllegalMoveError(f"{src.describe()} has only {len(col)} cards")
            if count > board.run_length(src.index):
                raise IllegalMoveError(
                    f"the top {count} cards of {src.describe()} are not a run: "
                    f"{game.title} {game.build.describe()}")
            card = col[-count]
            whole_column = count == len(col)
        builds: list[Move] = []
        empties: list[Move] = []
        for i, dcol in enumerate(board.columns):
            if src.is_column and i == src.index:
                continue
            if dcol:
                if game.builds(card, dcol[-1]):
                    builds.append(Move(src, Place.column(i), count))
            elif game.empty_column is EmptyColumn.ANY and not whole_column:
                empties.append(Move(src, Place.column(i), count))
        cells: list[Move] = []
        if count == 1 and src.is_column:
            cells = [Move(src, Place.cell(i), 1) for i, c in enumerate(board.cells) if c is None]
        order: list[Move] = []
        if count == 1:
            order.append(Move(src, Place.foundation(), 1))
        order += builds
        if count == 1:
            order += (empties[:1] + cells[:1]) if self.settings["order"] == "empty_first" \
                else (cells[:1] + empties[:1])
        else:
            order += empties[:1]
        first_error: IllegalMoveError | None = None
        for move in order:
            try:
                return board.resolve(move)
            except IllegalMoveError as exc:
                if first_error is None and not move.dst.is_foundation:
                    first_error = exc
        if count > 1 and first_error is not None:
            raise first_error
        what = card.pretty() if count == 1 else f"the run from {card.pretty()}"
        raise IllegalMoveError(f"{what} has nowhere to go")

    # --- the API's game object ---------------------------------------------------

    def to_api(self, game_id: str) -> dict[str, Any]:
        """The game object of docs/api.md."""
        board = self.board
        g = board.game
        legal = [] if self.finished else self._legal_moves()
        if board.is_won():
            status = "won"
        elif self.abandoned:
            status = "abandoned"
        else:
            status = "playing" if legal else "blocked"
        seconds = self.seconds()
        return {
            "id": game_id,
            "game": g.name,
            "title": g.title,
            "level": self.level,
            "cells": g.cells,
            "columns_count": g.columns,
            "deal": self.deal,
            "daily": self.daily,
            "status": status,
            "paused": self.paused,
            "position": board.to_text(),
            "columns": [[str(c) for c in col] for col in board.columns],
            "freecells": [None if c is None else str(c) for c in board.cells],
            "foundations": {"H": board.foundations[2], "C": board.foundations[0],
                            "D": board.foundations[1], "S": board.foundations[3]},
            "legal_moves": [m.notation(with_count=True) for m in legal],
            "moves": self.moves,
            "last_auto": list(self.last_auto),
            "can_undo": self.can_undo,
            "can_redo": self.can_redo,
            "score": {"moves": self.moves_count, "seconds": round(seconds, 1),
                      "score": self.score_state.value(seconds), "home": board.cards_home()},
            "settings": dict(self.settings),
            "practice": self.practice,
            "played": self.played,
            "message": self.message or (BLOCKED_MESSAGE if status == "blocked" else None),
        }

    def summary(self, game_id: str) -> dict[str, Any]:
        """A short description for lists ("Continue")."""
        seconds = self.seconds()
        return {
            "id": game_id, "game": self.game, "title": self.board.game.title,
            "level": self.level, "cells": self.board.game.cells, "deal": self.deal,
            "daily": self.daily, "status": self.status, "practice": self.practice,
            "score": {"moves": self.moves_count, "seconds": round(seconds, 1),
                      "score": self.score_state.value(seconds),
                      "home": self.board.cards_home()},
        }

    # --- persistence --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Everything needed to continue the game, undo history included."""
        return {
            "v": FORMAT_VERSION,
            "game": self.game,
            "cells": self.board.game.cells,
            "deal": self.deal,
            "position": None if self.deal is not None else self.start.to_text(),
            "level": self.level,
            "daily": self.daily,
            "groups": [list(g) for g in self.groups],
            "redo": [list(g) for g in self.redo_stack],
            "moves_count": self.moves_count,
            "timer": self.timer.to_dict(),
            "score": self.score_state.to_dict(),
            "settings": dict(self.settings),
            "abandoned": self.abandoned,
            "practice": self.practice,
            "played": self.played,
            "message": self.message,
            "last_auto": list(self.last_auto),
            "created": self.created,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], clock: Clock = time.time) -> Session:
        """Rebuild a session saved by :meth:`to_dict`, replaying its moves."""
        if data.get("v") != FORMAT_VERSION:
            raise BakersError("this saved game was written by another version of bakers")
        game, cells = str(data["game"]), int(data["cells"])
        if data.get("deal") is not None:
            start = Board.deal(game, int(data["deal"]), cells=cells)
        else:
            start = Board.from_text(str(data["position"]), game=game, cells=cells)
        settings = data.get("settings", {})
        s = cls(start, level=str(data.get("level", "normal")), daily=data.get("daily"),
                autoplay=settings.get("autoplay", "safe"),
                order=settings.get("order", "cell_first"), clock=clock)
        # saves written before the history used the shortest notation say
        # ``36/1``: each move is written again as Board.move_text writes it
        for group in data.get("groups", []):
            s.groups.append([s._push(Move.from_str(str(text))) for text in group])
        s.redo_stack = [[str(t) for t in g] for g in data.get("redo", [])]
        s.moves_count = int(data.get("moves_count", 0))
        s.timer = Timer.from_dict(data.get("timer", {}))
        s.score_state = Score.from_dict(data.get("score", {}))
        s.abandoned = bool(data.get("abandoned", False))
        s.practice = bool(data.get("practice", False))
        played = data.get("played")
        # saves from before "played" existed: any sign of play counts
        s.played = bool(played) if played is not None else bool(
            s.groups or s.redo_stack or s.moves_count or s.timer.accumulated
            or s.timer.since is not None)
        s.message = data.get("message")
        s.last_auto = [str(t) for t in data.get("last_auto", [])]
        s.created = float(data.get("created", s.created))
        return s


def format_seconds(seconds: float) -> str:
    """``1:05`` for 65 seconds, ``1:01:05`` past an hour."""
    total = int(seconds)
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


__all__ = [
    "IDLE_LIMIT", "ActionResult", "FakeClock", "GameOverError", "Score", "Session",
    "SessionError", "Timer", "finishing_moves", "level_cells", "level_for",
    "win_bonus",
]
