"""Studying a game with the solver: the line to show, which move lost a game,
and how hard a deal is.

Everything here goes through :func:`bakers.solver.solve` only. The line to
show a player ("Show solution", the player moves of a deal's rating, the
move that kept a lost game alive) comes from one function,
:func:`solution_line`, so that the search behind it can change in one place.

* :func:`solution_line` — a winning line from a position, with its *player
  moves*: every move that does not go to a foundation, a run moved at once
  counting one. "Show solution" asks for the short line (the fast line
  improved by the short search for :data:`SHOW_SHORT_SECONDS`); the
  analysis's alternative move and the rating keep the fast line (the
  analysis must stay quick, and the rating's cut points were measured on
  fast lines: docs/rating.md).
* :func:`analyse` — the first move of a game after which the position could
  no longer be won: a binary search over the game's positions, with
  *impossible* proven for the position after that move and *winnable* for
  the one before it. Winnability can only be lost along a line (a position
  from which a winnable one is reached is itself winnable), so the verdicts
  along a game are *winnable* up to some move and *impossible* after it, and
  bisection finds the turn in about log2(moves) solves.
* :func:`rate` — a deal's difficulty from measured facts: the fewest free
  cells that still win it (FreeCell and Baker's Game), the player moves of
  its line, and the positions the search visited. See docs/rating.md.

>>> from bakers.board import Board
>>> line = solution_line(Board.deal("bakers_game", 617), budget=10.0)
>>> line.verdict.value, line.player_moves == count_player_moves(line.moves)
('winnable', True)
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..board import Board
from ..games import find_game
from ..notation import Move, count_player_moves
from . import SolveResult, Verdict, solve

DEFAULT_BUDGET = 2.0
"""Seconds the solver may spend on one position by default."""

SHOW_SHORT_SECONDS = 0.5
"""Seconds the short search spends improving the line "Show solution" plays
back (on top of the fast search that finds the first line): short enough
that the table answers at once."""


@dataclasses.dataclass(frozen=True)
class Line:
    """A line to show from a position: the verdict, and when winnable the
    moves (replayed through the rules by the solver), their notation as
    played from the position, and the player moves among them."""

    verdict: Verdict
    moves: tuple[Move, ...] = ()
    texts: tuple[str, ...] = ()
    player_moves: int | None = None
    states: int = 0
    seconds: float = 0.0
    limit: str | None = None
    lines: str = "fast"
    """Which search gave the line: ``fast`` or ``short``."""
    optimal: bool = False
    """(short lines) no line of fewer player moves exists: proven."""
    lower_bound: int | None = None
    """(short lines) the fewest player moves any line can have, as far as
    the short search proved it."""


def solution_line(board: Board, budget: float = DEFAULT_BUDGET, *,
                  short_seconds: float | None = None) -> Line:
    """The line to show from ``board``'s position.

    The one place that says which search gives the line a player sees and
    how its player moves are counted. Without ``short_seconds``, the fast
    search's line within ``budget`` seconds (the analysis's alternative
    move, ratings). With ``short_seconds``, the short search then improves
    that line for at most that long (``lines="short"`` of
    :func:`bakers.solver.solve`), so the whole call takes at most about
    ``budget + short_seconds``; "Show solution" uses
    :data:`SHOW_SHORT_SECONDS`.
    """
    if short_seconds is None:
        return _line(solve(board, timeout=budget), "fast")
    return _line(solve(board, timeout=budget, lines="short", short_seconds=short_seconds),
                 "short")


def _line(result: SolveResult, lines: str) -> Line:
    if result.verdict is not Verdict.WINNABLE:
        return Line(result.verdict, states=result.states, seconds=result.seconds,
                    limit=result.limit, lines=lines)
    return Line(result.verdict, result.moves, tuple(result.texts()),
                count_player_moves(result.moves), result.states, result.seconds,
                lines=lines, optimal=result.optimal,
                lower_bound=result.lower_bound if lines == "short" else None)


def verdict_of(board: Board, budget: float = DEFAULT_BUDGET) -> SolveResult:
    """The solver's verdict on ``board``'s position (a won position is
    winnable without a search)."""
    if board.is_won():
        return SolveResult(Verdict.WINNABLE)
    return solve(board, timeout=budget, texts=False)


# --- which move lost it -----------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class LosingMove:
    """The first move after which the game could no longer be won.

    ``index`` counts the record's moves from 1; ``before`` is the position
    the move was played from (board text), where ``alternative`` (the first
    move of a winning line) kept the game alive."""

    index: int
    move: str
    description: str
    alternative: str | None
    alternative_description: str | None
    before: str

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "move": self.move, "description": self.description,
                "alternative": self.alternative,
                "alternative_description": self.alternative_description,
                "before": self.before}


@dataclasses.dataclass(frozen=True)
class Analysis:
    """What :func:`analyse` found. ``verdicts`` maps each position it
    decided (0 = the start, i = after move i) to its verdict; ``unknown``
    lists the positions left unknown within the budget."""

    deal_verdict: Verdict
    first_losing_move: LosingMove | None
    unknown: tuple[int, ...]
    final_verdict: Verdict | None
    moves: int
    verdicts: dict[int, Verdict]
    message: str
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "deal_verdict": self.deal_verdict.value,
            "first_losing_move": (None if self.first_losing_move is None
                                  else self.first_losing_move.to_json()),
            "unknown": list(self.unknown),
            "final_verdict": None if self.final_verdict is None else self.final_verdict.value,
            "moves": self.moves,
            "solved": {str(i): v.value for i, v in sorted(self.verdicts.items())},
            "message": self.message,
            "seconds": round(self.seconds, 3),
        }


def positions_of(start: Board, moves: Sequence[Move | str]) -> tuple[list[Board], list[str]]:
    """The positions of a game (``[start, after move 1, …]``) and each move's
    notation as played. Raises ``IllegalMoveError`` naming the first move the
    rules refuse."""
    board = start.copy(stack=False)
    boards = [board.copy(stack=False)]
    texts: list[str] = []
    for i, move in enumerate(moves, 1):
        try:
            m = Move.from_str(move) if isinstance(move, str) else move
            texts.append(board.move_text(m))
            board.push(m)
        except ValueError as exc:
            raise type(exc)(f"move {i} ({move}): {exc}") from None
        boards.append(board.copy(stack=False))
    return boards, texts


def analyse(start: Board, moves: Sequence[Move | str], budget: float = DEFAULT_BUDGET, *,
            known: dict[int, Verdict] | None = None,
            decide: Callable[[Board], Verdict] | None = None) -> Analysis:
    """Find the first of ``moves`` (played from ``start``) after which the
    game could no longer be won.

    ``budget``: seconds for each position's verdict. ``known``: verdicts
    already proven for some positions (by index). ``decide`` replaces the
    solver (for tests). The claim is made only when the position before the
    move is proven winnable and the one after it proven impossible;
    otherwise ``first_losing_move`` is ``None`` and ``unknown`` says which
    positions stayed undecided.
    """
    t0 = time.perf_counter()
    boards, texts = positions_of(start, moves)
    n = len(texts)
    verdicts: dict[int, Verdict] = dict(known or {})

    def verdict(i: int) -> Verdict:
        if i not in verdicts:
            if decide is not None:
                verdicts[i] = decide(boards[i])
            else:
                verdicts[i] = verdict_of(boards[i], budget).verdict
        return verdicts[i]

    def done(deal: Verdict, losing: LosingMove | None, message: str,
             final: Verdict | None = None) -> Analysis:
        unknown = tuple(sorted(i for i, v in verdicts.items() if v is Verdict.UNKNOWN))
        if final is None:
            final = verdicts.get(n)
        return Analysis(deal, losing, unknown, final, n, dict(verdicts), message,
                        time.perf_counter() - t0)

    deal = verdict(0)
    if deal is Verdict.IMPOSSIBLE:
        return done(deal, None, "This deal could never be won: no move lost it.")
    if deal is Verdict.UNKNOWN:
        return done(deal, None, "The solver could not decide within its budget whether "
                                "the start could be won, so nothing is claimed.")
    if boards[n].is_won():
        verdicts[n] = Verdict.WINNABLE
        return done(deal, None, "This game was won: no move lost it.")
    final = verdict(n)
    if final is Verdict.WINNABLE:
        return done(deal, None, "The last position could still be won: no move lost it.")
    lo, hi = 0, n + 1 if final is Verdict.UNKNOWN else n  # lo winnable, hi impossible
    tried: set[int] = {0, n}
    while hi - lo > 1:
        mid = (lo + hi) // 2
        candidates = sorted((i for i in range(lo + 1, min(hi, n + 1)) if i not in tried),
                            key=lambda i: (abs(i - mid), i))
        if not candidates:
            break
        i = candidates[0]
        tried.add(i)
        v = verdict(i)
        if v is Verdict.WINNABLE:
            lo = i
        elif v is Verdict.IMPOSSIBLE:
            hi = i
    if hi - lo != 1 or hi > n:
        return done(deal, None, "Some positions stayed undecided within the budget, so "
                                "no move is named.")
    before = boards[lo]
    played = Move.from_str(texts[lo])
    # the fast line: any winning first move will do, and the analysis stays quick
    alive = solution_line(before, budget) if decide is None else None
    alternative = alt_text = None
    if alive is not None and alive.verdict is Verdict.WINNABLE and alive.moves:
        alternative = alive.texts[0]
        alt_text = before.describe_move(alive.moves[0])
    losing = LosingMove(hi, texts[lo], before.describe_move(played), alternative, alt_text,
                        before.to_text())
    said = f"Move {hi} ({texts[lo]}) lost the game: before it the game could be won"
    said += f", for instance with {alternative}." if alternative else "."
    return done(deal, losing, said)


# --- how hard is this deal --------------------------------------------------------------------

BANDS = ("easy", "medium", "hard", "expert")
"""The ratings of winnable deals, easiest first; ``expert`` is the hardest."""

# Score cut points per game (the score where each harder band begins), set at
# the 40th, 75th and 93rd percentiles of the score over the winnable deals
# 1-10,000 (docs/rating.md, measured with ``bakers rate``).
CUTS: dict[str, tuple[float, float, float]] = {
    "freecell": (5.21, 6.01, 6.85),
    "bakers_game": (6.46, 7.44, 7.99),
    "bakers_dozen": (2.93, 3.59, 4.06),
}


@dataclasses.dataclass(frozen=True)
class Rating:
    """A deal's difficulty: the measured facts and the band they fall in.

    ``fewest_cells``: the fewest free cells that still win the deal (``None``
    for Baker's Dozen, which has none, and for deals not won with the
    game's own cells); ``fewest_proven``: whether one cell fewer was proven
    impossible (else the count is an upper bound). ``player_moves``: the
    player moves of the deal's line; ``states``: positions the search
    visited to win it with the game's own cells."""

    game: str
    cells: int
    deal: int | None
    verdict: Verdict
    fewest_cells: int | None
    fewest_proven: bool
    player_moves: int | None
    states: int
    score: float | None
    rating: str
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "cells": self.cells, "deal": self.deal,
                "verdict": self.verdict.value, "fewest_cells": self.fewest_cells,
                "fewest_proven": self.fewest_proven, "player_moves": self.player_moves,
                "states": self.states, "score": self.score, "rating": self.rating,
                "seconds": round(self.seconds, 3)}


def difficulty_score(fewest_cells: int | None, player_moves: int, states: int) -> float:
    """The number behind a rating: fewest cells + player moves ÷ 20 +
    log10(positions searched) ÷ 2.

    >>> difficulty_score(2, 40, 1000)
    5.5
    """
    cells = fewest_cells or 0
    return round(cells + player_moves / 20 + math.log10(max(states, 1)) / 2, 3)


def band_of(game: str, score: float) -> str:
    """The rating band of ``score`` for ``game``.

    >>> band_of("freecell", 3.0), band_of("freecell", 9.0)
    ('easy', 'expert')
    """
    cuts = CUTS[find_game(game).name]
    return BANDS[sum(1 for c in cuts if score >= c)]


def rate(board: Board, budget: float = DEFAULT_BUDGET) -> Rating:
    """Rate ``board``'s position (a deal) for its game with its own cells.

    One line with the game's own cells gives the verdict, the player moves
    and the search effort — the *fast* line, as when the cut points of
    :data:`CUTS` were measured (docs/rating.md): a short line has fewer
    player moves and more positions searched, so its score would fall in
    other bands; then, for games with free cells, solves with
    one cell fewer at a time until one is impossible (a win with k cells is
    a win with k + 1, so the first failure settles the fewest)."""
    t0 = time.perf_counter()
    g = board.game
    line = solution_line(board, budget)

    def rated(verdict: Verdict, fewest: int | None, proven: bool, rating: str,
              score: float | None = None) -> Rating:
        return Rating(g.name, g.cells, board.deal_number, verdict, fewest, proven,
                      line.player_moves, line.states, score, rating,
                      time.perf_counter() - t0)

    if line.verdict is not Verdict.WINNABLE:
        return rated(line.verdict, None, False, line.verdict.value)
    fewest: int | None = None
    proven = True
    if g.max_cells:
        fewest = g.cells
        proven = g.cells == 0
        occupied = sum(1 for c in board.cells if c is not None)
        for k in range(g.cells - 1, occupied - 1, -1):
            fewer = Board.from_text(board.to_text(), game=g.with_cells(k))
            v = verdict_of(fewer, budget).verdict
            if v is Verdict.WINNABLE:
                fewest = k
                proven = k == occupied
                continue
            proven = v is Verdict.IMPOSSIBLE
            break
    assert line.player_moves is not None
    score = difficulty_score(fewest, line.player_moves, line.states)
    return rated(Verdict.WINNABLE, fewest, proven, band_of(g.name, score), score)


def rate_deal(game: str, deal: int | str, budget: float = DEFAULT_BUDGET,
              cells: int | None = None) -> Rating:
    """:func:`rate` for deal ``deal`` of ``game``."""
    return rate(Board.deal(game, deal, cells=cells), budget)


__all__ = ["BANDS", "DEFAULT_BUDGET", "SHOW_SHORT_SECONDS", "Analysis", "Line", "LosingMove",
           "Rating", "analyse",
           "band_of", "difficulty_score", "positions_of", "rate",
           "rate_deal", "solution_line", "verdict_of"]
