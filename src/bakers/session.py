"""A game being played: its history, clock, score, and undo/redo.

Pure logic, no I/O. Which place a clicked card goes to and which moves the
game makes by itself are the rules engine's (:meth:`Board.find_move`,
:meth:`Board.autoplay`); how a game is shown is :mod:`bakers.web.views`'s.
The store keeps a session as the dict of :meth:`Session.to_dict` (the deal,
every move grouped by player action, the redo list, the clock and the score),
so a saved game comes back with its whole undo history.

Rules of play kept here (SPEC §4, seed 004):

* **Score**: +10 for every card that reaches a foundation (also when autoplay
  or auto-finish sends it); −30 for every full 30 seconds of play; the score
  never drops below 0 (it is a running total clamped at 0 at each change);
  on a win a bonus of 600,000 ÷ whole seconds taken (at least 1). An undo takes
  back the points of the cards it brings down and counts as a move; a redo
  scores again and counts as a move.
* **Moves**: each player action (move, undo, redo) counts one; the moves
  the game makes by itself (autoplay, auto-finish) do not.
* **Clock**: starts with the first move, stops while paused and when the game
  ends. It never runs more than ``IDLE_LIMIT`` (10) seconds past the last
  request from the player's page: the page says it is still there every few
  seconds (:meth:`Session.touch`) and pauses the game when it is hidden, so a
  table left open, hidden or closed does not eat the score. Any action
  resumes a paused game.
* **Undo** takes back one player action together with the moves the game
  made after it; **redo** puts it back exactly.
* **Autoplay** ``safe`` sends every safe foundation card home after each
  player move (not after undo/redo); ``off`` never does. Independent of the
  setting, when every remaining card can go home by foundation moves alone the
  game plays them (auto-finish); in a lesson, which checks the player's own
  moves, only once its goal is met.
* **What counts**: a game goes into the statistics only once a move has been
  made on it (``played``; a restart does not clear it), and never when it is a
  ``practice`` game (a lesson: ``lesson`` names it, :mod:`bakers.lessons`).
  Abandoning a deal nobody moved on is no loss.
* **Help** (:class:`Help`): hints given, whether the "still winnable?"
  indicator was on while the game was played, and whether the solution was
  shown; kept with the result, so the statistics count wins without help
  apart. The indicator is on by default for Easy games and lessons.

>>> clock = FakeClock()
>>> s = Session(Board.deal("bakers_game", 617), clock=clock)
>>> s.status, s.score(), s.moves_count
(<Status.PLAYING: 'playing'>, 0, 0)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .board import Board, Movement
from .errors import BakersError, IllegalMoveError
from .games import find_game
from .notation import Move, Place
from .options import DEAL_LEVELS, Autoplay, ClickOrder, Level, Status
from .record import GameRecord

Clock = Callable[[], float]

IDLE_LIMIT = 10.0
"""Most seconds the clock runs past the last request from the page."""

POINTS_PER_CARD = 10
PENALTY = 30
PENALTY_PERIOD = 30
WIN_BONUS = 600_000

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
        """Fold the running stretch into the total (call at every request)."""
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


def level_cells(game: str, level: str) -> int:
    """Free cells of a level: Easy and Normal the game's own, Hard 3."""
    g = find_game(game)
    if level not in g.levels:
        raise BakersError(f"{g.title} has the levels {', '.join(g.levels)}, not {level!r}")
    return Level(level).cells(g.cells)


def level_for(game: str, cells: int, winnable: bool) -> Level:
    """The level a game of ``cells`` free cells counts under."""
    g = find_game(game)
    if cells == g.cells:
        return Level.EASY if winnable else Level.NORMAL
    if cells == Level.HARD.cells(g.cells) and Level.HARD in g.levels:
        return Level.HARD
    return Level.CUSTOM


def _choice(kind: type[Autoplay] | type[ClickOrder] | type[Level], value: str,
            what: str) -> Any:
    try:
        return kind(str(value))
    except ValueError:
        words = " or ".join(repr(v.value) for v in kind)
        raise BakersError(f"{what} is {words}, not {value!r}") from None


@dataclass
class Help:
    """What the player was helped with: ``hints`` given, the indicator on
    (``indicator``: now; ``indicator_used``: at some moment of play), the
    solution shown."""

    hints: int = 0
    indicator: bool = False
    indicator_used: bool = False
    solution: bool = False

    @property
    def helped(self) -> bool:
        return bool(self.hints) or self.indicator_used or self.solution

    def to_dict(self) -> dict[str, Any]:
        return {"hints": self.hints, "indicator": self.indicator,
                "indicator_used": self.indicator_used, "solution": self.solution}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Help:
        return cls(int(d.get("hints", 0)), bool(d.get("indicator", False)),
                   bool(d.get("indicator_used", False)), bool(d.get("solution", False)))


@dataclass(frozen=True)
class Action:
    """What the last action did: its kind (``move``, ``undo``, ``redo``,
    ``restart``…) and the card movements it caused, in order, the game's own
    moves included (undo lists them backwards, from where they went)."""

    kind: str
    movements: tuple[Movement, ...] = ()


class Session:
    """One game being played, with its history, clock and score."""

    def __init__(self, board: Board, *, level: Level | str = Level.NORMAL,
                 daily: str | None = None, autoplay: Autoplay | str = Autoplay.SAFE,
                 order: ClickOrder | str = ClickOrder.CELL_FIRST, clock: Clock = time.time,
                 message: str | None = None, practice: bool = False,
                 winnable: bool = False, lesson: str | None = None,
                 opening: bool = True) -> None:
        if board.move_stack:
            board = board.root()
        self.start = board.copy(stack=False)
        self.board = board
        self.level: Level = _choice(Level, level, "level")
        self.daily = daily
        self.clock = clock
        self.autoplay: Autoplay = Autoplay.SAFE
        self.order: ClickOrder = ClickOrder.CELL_FIRST
        self.set_settings(autoplay=autoplay, order=order)
        # per player action: its moves' notation (Board.move_text, as played)
        self.groups: list[list[str]] = []
        self.redo_stack: list[list[str]] = []
        self.moves_count = 0
        self.timer = Timer()
        self.score_state = Score()
        self.abandoned = False
        self.practice = practice or lesson is not None
        self.lesson = lesson  # the lesson's key (bakers.lessons), for a lesson
        # dealt with "winnable only": the next deal like this one is too
        self.winnable = winnable or self.level.winnable
        self.played = False  # a player move was made on this deal (restart keeps it)
        self.message = message  # a note from dealing, until the first action
        on = self.level is Level.EASY or self.practice
        self.help = Help(indicator=on, indicator_used=on)
        self.last_action = Action("deal")
        self.created = clock()
        self._legal_at: object = None
        self._legal: list[Move] = []
        # the safe cards the game sent home right after the deal (autoplay)
        self.opening: list[str] = []
        if opening:
            self._open()

    # --- queries ---------------------------------------------------------------

    @property
    def game(self) -> str:
        return self.board.game.name

    @property
    def deal(self) -> int | None:
        return self.start.deal_number

    def legal_moves(self) -> list[Move]:
        """The legal moves now (none once the game is over), computed once
        per position."""
        if self.finished:
            return []
        position = self.board.position
        if self._legal_at is not position:
            self._legal = self.board.generate_legal_moves()
            self._legal_at = position
        return self._legal

    @property
    def status(self) -> Status:
        if self.board.is_won():
            return Status.WON
        if self.abandoned:
            return Status.ABANDONED
        if not self.legal_moves():
            return Status.BLOCKED
        return Status.PLAYING

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
        return [*self.opening, *(m for group in self.groups for m in group)]

    @property
    def can_finish(self) -> bool:
        """Whether every remaining card can go home by foundation moves alone
        while the game is on: no decision left (:meth:`finish` plays them)."""
        if self.finished:
            return False
        return bool(self.board.finishing_moves())

    @property
    def can_undo(self) -> bool:
        return bool(self.groups) and not self.finished

    @property
    def can_redo(self) -> bool:
        return bool(self.redo_stack) and not self.finished

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
        return now

    def _open(self) -> None:
        """With autoplay ``safe``, the safe cards of a numbered deal go home
        right after the deal, as after any move (a set-up position is left
        as it was given): not a player action (nothing to undo), but moves
        of the game, kept apart (:attr:`opening`) and scored."""
        self.opening = []
        if (self.autoplay is not Autoplay.SAFE or self.deal is None  # a set-up position
                or self.board.is_won()):
            return
        trial = self.board.copy(stack=False)
        line = trial.autoplay(safe=True, finish=False)
        if line:
            self.opening, _ = self._play_line(line)
            self._score_change(line, +1)

    def _play_line(self, moves: Sequence[Move]) -> tuple[list[str], list[Movement]]:
        """Push ``moves`` (already checked); their texts and movements."""
        texts: list[str] = []
        movements: list[Movement] = []
        for move in moves:
            texts.append(self.board.move_text(move))
            movements.append(self.board.movement(move))
            self.board.push(move)
        return texts, movements

    def _lesson_met(self, groups: Sequence[Sequence[Move | str]]) -> bool:
        """Whether this lesson's goal is met on the line ``groups`` (true for
        a lesson that no longer matches its start: a plain practice game)."""
        from .lessons import UnknownLessonError, lesson_by_key
        assert self.lesson is not None
        try:
            lesson = lesson_by_key(self.lesson)
        except UnknownLessonError:
            return True
        if lesson.board().to_text() != self.start.to_text():
            return True
        texts = [[m if isinstance(m, str) else m.notation(with_count=True) for m in group]
                 for group in groups]
        return lesson.progress(self.start, texts).met

    def play(self, move: Move | str, *, longest: bool = False) -> Action:
        """Play the player's ``move`` (notation or Move), then the moves the
        game makes by itself. Raises ``IllegalMoveError`` with the reason if
        refused, changing nothing. With ``longest``, a run too long for the
        empty column it goes to moves its longest part that may go there,
        and the game's message says so (:meth:`Board.longest_part`)."""
        self._check_active()
        if isinstance(move, str):
            move = Move.from_str(move)
        note: str | None = None
        try:
            resolved = self.board.resolve(move)  # refuse before touching anything
        except IllegalMoveError:
            # a lesson checks the player's own moves: its refusals stay
            part = self.board.longest_part(move) if longest and self.lesson is None else None
            if part is None:
                raise
            resolved, note = part
        self._begin()
        trial = self.board.copy(stack=False)
        trial.push(resolved)
        line = [resolved, *trial.autoplay(safe=self.autoplay is Autoplay.SAFE)]
        # a lesson checks the player's own moves: it finishes by itself only
        # once its goal is met
        if self.lesson is None or self._lesson_met([*self.groups, line]):
            line += trial.autoplay(safe=False, finish=True)
        self._player_action(line)
        if note is not None and not self.board.is_won():
            self.message = note
        return self.last_action

    def finish(self) -> Action:
        """The player's "Auto-finish": every remaining card goes home, one
        player action (undone as one), when no decision is left."""
        self._check_active()
        line = self.board.copy(stack=False).finishing_moves()
        if not line:
            raise SessionError("the cards cannot all go home by themselves yet")
        self._begin()
        return self._player_action(line)

    def _player_action(self, line: Sequence[Move]) -> Action:
        """Play ``line`` (checked) as one player action: one group of the
        history, one move on the count, its points, the end settled."""
        group, movements = self._play_line(line)
        self.groups.append(group)
        self.redo_stack.clear()
        self.moves_count += 1
        self.played = True
        self._score_change(line, +1)
        self._settle_end()
        self.last_action = Action("move", tuple(movements))
        return self.last_action

    def play_from(self, src: Place | str, count: int = 1) -> Action:
        """Send the card at ``src`` (with the run above it when ``count`` > 1)
        to its best place (:meth:`Board.find_move`, in this game's click order).
        A run that has no place but is too long for an empty column moves its
        longest part that may go there."""
        self._check_active()
        try:
            move = self.board.find_move(src, count, self.order.prefer_empty_column)
        except IllegalMoveError:
            place = Place.from_str(src) if isinstance(src, str) else src
            empty = next((i for i, col in enumerate(self.board.columns) if not col), None)
            if count < 2 or not place.is_column or empty is None or self.lesson is not None:
                raise
            if self.board.longest_part(Move(place, Place.column(empty), count)) is None:
                raise
            return self.play(Move(place, Place.column(empty), count), longest=True)
        return self.play(move)

    def _score_change(self, moves: Sequence[Move], sign: int) -> None:
        home = sum(1 for m in moves if m.dst.is_foundation)
        if home:
            self.score_state.add(sign * POINTS_PER_CARD * home, self.seconds())

    def _settle_end(self) -> None:
        """After an action: a won game's clock stops and its bonus is added."""
        if self.board.is_won():
            now = self.clock()
            self.timer.stop(now)
            seconds = self.timer.seconds(now)
            self.score_state.settle(seconds)
            self.score_state.final = self.score_state.base + win_bonus(seconds)

    def undo(self) -> Action:
        """Take back the last player action and the moves the game made after
        it. Counts as a move and takes its points back."""
        self._check_active()
        if not self.groups:
            raise SessionError("there is no move to undo")
        self._begin()
        group = self.groups.pop()
        taken = [self.board.pop() for _ in group][::-1]
        movements = self.board.movements(taken)
        self.redo_stack.append(group)
        self.moves_count += 1
        self._score_change(taken, -1)
        self._settle_end()
        self.last_action = Action("undo", tuple(m.reversed() for m in reversed(movements)))
        return self.last_action

    def redo(self) -> Action:
        """Play again the last action taken back by undo."""
        self._check_active()
        if not self.redo_stack:
            raise SessionError("there is no move to redo")
        self._begin()
        trial = self.board.copy(stack=False)
        line = [trial.push(Move.from_str(text)) for text in self.redo_stack[-1]]
        self.redo_stack.pop()
        group, movements = self._play_line(line)
        self.groups.append(group)
        self.moves_count += 1
        self._score_change(line, +1)
        self._settle_end()
        self.last_action = Action("redo", tuple(movements))
        return self.last_action

    def restart(self) -> Action:
        """Back to the deal: history, moves and score cleared; the clock goes
        on (time already spent on the deal still counts)."""
        self._check_active()
        now = self._begin()
        self.board = self.start.copy(stack=False)
        self.groups = []
        self.redo_stack = []
        self.moves_count = 0
        self.score_state = Score(0, int(self.timer.seconds(now) // PENALTY_PERIOD))
        self._open()
        self.last_action = Action("restart")
        return self.last_action

    def touch(self) -> None:
        """The player's page is still open and shown: the clock runs on (it
        never runs more than ``IDLE_LIMIT`` seconds past the last touch)."""
        if not self.finished:
            self.timer.touch(self.clock())
        self.last_action = Action("touch")

    def pause(self) -> None:
        """Stop the clock (nothing to do once the game is over)."""
        self.last_action = Action("pause")
        if self.finished:
            return
        if self.timer.running or not self.timer.paused:
            self.timer.pause(self.clock())

    def resume(self) -> None:
        self.last_action = Action("resume")
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
        self.message = None
        self.last_action = Action("abandon")

    def set_settings(self, autoplay: Autoplay | str | None = None,
                     order: ClickOrder | str | None = None,
                     indicator: bool | None = None) -> None:
        if autoplay is not None:
            self.autoplay = _choice(Autoplay, autoplay, "autoplay")
        if order is not None:
            self.order = _choice(ClickOrder, order, "order")
        if indicator is not None:
            self.help.indicator = indicator
            if indicator and not self.finished:
                self.help.indicator_used = True
        self.last_action = Action("settings")

    def note_hint(self) -> None:
        """A hint was given: it counts as help."""
        if not self.finished:
            self.help.hints += 1

    def note_solution(self) -> None:
        """The solution was shown: it counts as help."""
        if not self.finished:
            self.help.solution = True

    def play_line(self, moves: Sequence[Move | str]) -> Action:
        """Play ``moves`` (a shown solution the player takes over) as one
        player action each, without autoplay in between (the line has its
        foundation moves). Nothing changes unless every move is legal in turn."""
        self._check_active()
        trial = self.board.copy(stack=False)
        line = [trial.push(Move.from_str(m) if isinstance(m, str) else m) for m in moves]
        if not line:
            raise SessionError("there is no move to play")
        self._begin()
        movements: list[Movement] = []
        for move in line:
            group, moved = self._play_line([move])
            self.groups.append(group)
            movements += moved
            self.moves_count += 1
            self._score_change([move], +1)
        self.redo_stack.clear()
        self.played = True
        self._settle_end()
        self.last_action = Action("move", tuple(movements))
        return self.last_action

    # --- persistence --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Everything needed to continue the game, undo history included."""
        return {
            "v": FORMAT_VERSION,
            "game": self.game,
            "cells": self.board.game.cells,
            "deal": self.deal,
            "position": None if self.deal is not None else self.start.to_text(),
            "level": self.level.value,
            "daily": self.daily,
            "opening": list(self.opening),
            "groups": [list(g) for g in self.groups],
            "redo": [list(g) for g in self.redo_stack],
            "moves_count": self.moves_count,
            "timer": self.timer.to_dict(),
            "score": self.score_state.to_dict(),
            "settings": {"autoplay": self.autoplay.value, "order": self.order.value},
            "abandoned": self.abandoned,
            "practice": self.practice,
            "lesson": self.lesson,
            "winnable": self.winnable,
            "played": self.played,
            "message": self.message,
            "created": self.created,
            "help": self.help.to_dict(),
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
                order=settings.get("order", "cell_first"), clock=clock,
                winnable=bool(data.get("winnable", False)), opening=False)
        s.opening = [s._push_text(Move.from_str(str(text))) for text in data.get("opening", [])]
        # saves written before the history used the shortest notation say
        # ``36/1``: each move is written again as Board.move_text writes it
        for group in data.get("groups", []):
            s.groups.append([s._push_text(Move.from_str(str(text))) for text in group])
        s.redo_stack = [[str(t) for t in g] for g in data.get("redo", [])]
        s.moves_count = int(data.get("moves_count", 0))
        s.timer = Timer.from_dict(data.get("timer", {}))
        s.score_state = Score.from_dict(data.get("score", {}))
        s.abandoned = bool(data.get("abandoned", False))
        s.practice = bool(data.get("practice", False))
        lesson = data.get("lesson")
        s.lesson = None if lesson is None else str(lesson)
        played = data.get("played")
        # saves from before "played" existed: any sign of play counts
        s.played = bool(played) if played is not None else bool(
            s.groups or s.redo_stack or s.moves_count or s.timer.accumulated
            or s.timer.since is not None)
        s.message = data.get("message")
        s.created = float(data.get("created", s.created))
        if "help" in data:
            s.help = Help.from_dict(data["help"])
        else:  # saves from before help was kept: the default of the level, no hint
            s.help = Help(indicator=s.level is Level.EASY or s.practice,
                          indicator_used=s.level is Level.EASY or s.practice)
        return s

    def _push_text(self, move: Move) -> str:
        text = self.board.move_text(move)
        self.board.push(move)
        return text


def format_seconds(seconds: float) -> str:
    """``1:05`` for 65 seconds, ``1:01:05`` past an hour."""
    total = int(seconds)
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


__all__ = [
    "DEAL_LEVELS", "IDLE_LIMIT", "Action", "FakeClock", "GameOverError", "Help", "Score",
    "Session",
    "SessionError", "Timer", "format_seconds", "level_cells", "level_for", "win_bonus",
]
