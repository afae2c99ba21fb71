"""``solve`` and ``hint``: an engine's verdict turned into checked moves.

:class:`SolveRequest` checks what is asked once; a search per engine
(``SEARCH_BY_ENGINE``) finds a verdict; a win's line is then made and
replayed before it is believed.

* The native engine (``native.py``, the C core) gives its line as card moves
  (card, count, destination), which ``native.play_line`` plays on the
  position in the board's own column and cell order.
* The Python engine (``engine.py``) gives a list of state keys; a light copy
  of the position (``_Sim``) reads each step off the difference between two
  keys — which card moved, how many, where to.

Run moves become single moves through the rules engine's one expansion
(:func:`bakers.board.run_moves`) on the Python side, and through the core's
own copy on the native side. Both lists are then replayed on fresh boards
with ``Board.push`` (or, with ``check="core"``, by the core's line checker)
before ``solve`` says *winnable*.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..board import Board, run_moves
from ..cards import Card
from ..errors import SolverError
from ..games import Game
from ..notation import Move, Place, PlaceKind, Position, count_player_moves
from ..verdicts import Verdict, check_limits, limit_text
from .engine import (
    NCARDS,
    SEP,
    TO_CELL,
    TO_EMPTY,
    TO_FOUNDATION,
    Budget,
    Rules,
    Weights,
    portfolio,
    tables,
)
from .native import AVAILABLE as NATIVE_AVAILABLE
from .native import (
    PLACE_FOUNDATION,
    Placed,
    Portfolio,
    as_moves,
    check_line,
    play_line_places,
    search_checked,
    search_deals,
    short_search,
)
from .native import Checked as NativeChecked
from .native import Outcome as NativeOutcome
from .native import deal_args as native_deal_args
from .native import exhaust as native_exhaust
from .native import relax as native_relax
from .native import search as native_search
from .proof import DiskPlan, spill

LINES = ("fast", "short")
SEARCHES = ("portfolio", "restarts", "exhaustive")
SHORT_SECONDS = 2.0   # the short search's time when no timeout is given
HINT_SHORT_SECONDS = 0.03  # and within a hint,
HINT_SHORT_UNTIL = 0.04  # ending this long after the hint was asked for at the latest


ENGINES = ("native", "python")


def default_engine() -> str:
    """``native`` wherever the compiled core was built, else ``python``;
    the environment variable ``BAKERS_ENGINE`` may choose either."""
    chosen = os.environ.get("BAKERS_ENGINE", "").strip().lower()
    if chosen == "python" or (chosen == "native" and NATIVE_AVAILABLE):
        return chosen
    return "native" if NATIVE_AVAILABLE else "python"


def check_engine(engine: str | None) -> str:
    """The engine to use for ``engine`` (``None``: the default). Raises
    :class:`SolverError` for an unknown name or a native core that is not built."""
    if engine is None:
        return default_engine()
    if engine not in ENGINES:
        raise SolverError(f"unknown engine {engine!r}: choose native or python")
    if engine == "native" and not NATIVE_AVAILABLE:
        raise SolverError("the native solver core is not built here; use --engine python")
    return engine


@dataclasses.dataclass(frozen=True)
class SolveResult:
    """A verdict with its evidence and its cost.

    ``moves`` replays through :meth:`Board.push` from the solved position to a
    win (run moves allowed); ``single_moves`` is the same line with every card
    movement explicit. Both are empty unless the verdict is winnable.
    ``limit`` names the limit that stopped an *unknown* search.
    ``move_texts`` and ``single_move_texts`` are the two lines in standard
    notation as :meth:`Board.move_text` writes them from the solved position
    (``36`` for a run too; ``/n`` only where bare ``36`` would differ).
    ``player_moves`` counts the moves of the line that do not go to a
    foundation, a run moved at once counting one; with ``lines="short"``,
    ``optimal`` says no shorter line exists (proven) and ``lower_bound`` is
    the bound the proof reached (no line has fewer player moves).
    ``disk_bytes``: the most bytes an exhaustive search that spilled to disk
    held there (0 when it stayed in memory).
    """

    verdict: Verdict
    moves: tuple[Move, ...] = ()
    single_moves: tuple[Move, ...] = ()
    states: int = 0
    seconds: float = 0.0
    limit: str | None = None
    move_texts: tuple[str, ...] = ()
    single_move_texts: tuple[str, ...] = ()
    engine: str = "python"
    player_moves: int | None = None
    optimal: bool = False
    lower_bound: int | None = None
    disk_bytes: int = 0

    def texts(self, single: bool = False) -> list[str]:
        """The line as text (``single``: every card movement explicit, each
        entry plain two-place notation such as ``81`` that moves one card). A
        result built without texts falls back to the explicit ``36/n`` form,
        which replays from any position."""
        moves, texts = ((self.single_moves, self.single_move_texts) if single
                        else (self.moves, self.move_texts))
        if len(texts) == len(moves):
            return list(texts)
        return [m.notation(with_count=not single) for m in moves]

    def to_json(self) -> dict[str, object]:
        return {
            "verdict": self.verdict.value,
            "moves": self.texts(),
            "single_moves": self.texts(single=True),
            "length": len(self.moves),
            "single_length": len(self.single_moves),
            "states": self.states,
            "seconds": round(self.seconds, 6),
            "limit": self.limit,
            "engine": self.engine,
            "player_moves": self.player_moves,
            "optimal": self.optimal,
            "lower_bound": self.lower_bound,
        }


@dataclasses.dataclass(frozen=True)
class HintResult:
    """The next move of a winning line, or why there is none."""

    verdict: Verdict
    move: Move | None
    message: str


NO_WINNING_LINE = "no winning line from here"


_tables = functools.cache(tables)

def _rules(game: Game, weights: Weights | None = None) -> Rules:
    """Fresh rules (with empty per-column caches) for one solve."""
    return Rules(game, _tables(game.build), weights)


def _root_key(rules: Rules, board: Board) -> bytes:
    pos = board.position
    fnd = bytearray(pos.foundations)
    cells = bytes(c.index for c in pos.cells if c is not None)
    cols = [bytes(c.index for c in col) for col in pos.columns]
    cells, cols = rules.close(fnd, cells, cols)
    return rules.make_key(fnd, cells, cols)


class _Sim:
    """A light copy of a position in card indices, in the board's own column
    and cell order, that turns the engine's card moves into board moves."""

    def __init__(self, rules: Rules, board: Board) -> None:
        pos = board.position
        self.rules = rules
        self.cols = [[c.index for c in col] for col in pos.columns]
        self.cells = [c.index if c is not None else -1 for c in pos.cells]
        self.fnd = list(pos.foundations)
        self.moves: list[Move] = []
        self.singles: list[Move] = []

    def key(self) -> bytes:
        cells = bytes(c for c in self.cells if c >= 0)
        return self.rules.make_key(bytes(self.fnd), cells, [bytes(c) for c in self.cols])

    def below(self) -> list[int]:
        """Per card: the card under it, -1 at a column's bottom, -2 in a cell,
        -3 on its foundation."""
        out = [-3] * NCARDS
        for col in self.cols:
            prev = -1
            for c in col:
                out[c] = prev
                prev = c
        for c in self.cells:
            if c >= 0:
                out[c] = -2
        return out

    def _where(self, card: int) -> Place:
        if card in self.cells:
            return Place.cell(self.cells.index(card))
        for j, col in enumerate(self.cols):
            if card in col:
                return Place.column(j)
        raise AssertionError(f"{Card.from_index(card)} is not in play")

    def _single(self, src: Place, dst: Place) -> None:
        """Move one card (no checks: the board replay checks)."""
        if src.is_cell:
            card = self.cells[src.index]
            self.cells[src.index] = -1
        else:
            card = self.cols[src.index].pop()
        if dst.is_foundation:
            self.fnd[card & 3] += 1
        elif dst.is_cell:
            self.cells[dst.index] = card
        else:
            self.cols[dst.index].append(card)
        self.singles.append(Move(src, dst, 1))

    def play(self, card: int, count: int, dst: int) -> None:
        """Play the engine move (card, count, destination)."""
        src = self._where(card)
        if dst == TO_FOUNDATION:
            target = Place.foundation()
        elif dst == TO_CELL:
            target = Place.cell(self.cells.index(-1))
        elif dst == TO_EMPTY:
            target = Place.column(next(j for j, col in enumerate(self.cols)
                                       if not col and not (src.is_column and j == src.index)))
        else:
            target = self._where(dst)
        self.moves.append(Move(src, target, count))
        if count == 1:
            self._single(src, target)
            return
        free = [i for i, c in enumerate(self.cells) if c < 0]
        empties = [j for j, col in enumerate(self.cols) if not col and j != target.index]
        for single in run_moves(count, src.index, target.index, free, empties):
            self._single(single.src, single.dst)

    def ready(self, card: int) -> bool:
        return self.fnd[card & 3] == card >> 2

    def autoplay(self) -> None:
        """Send safe cards home, as the engine's closure does."""
        rules = self.rules
        changed = True
        while changed:
            changed = False
            for j, col in enumerate(self.cols):
                while col and self.ready(col[-1]) and rules.is_safe(col[-1], self.fnd):
                    self._home(Place.column(j))
                    changed = True
            for i, c in enumerate(self.cells):
                if c >= 0 and self.ready(c) and rules.is_safe(c, self.fnd):
                    self._home(Place.cell(i))
                    changed = True

    def _home(self, src: Place) -> None:
        self.moves.append(Move(src, Place.foundation(), 1))
        self._single(src, Place.foundation())

    def step_to(self, parent: bytes, child: bytes) -> None:
        """Play the move that leads to the engine state ``child`` (with the
        closure after it); the move is read off the difference."""
        before = self.below()
        _, _, ccols = self.rules.parts(child)
        after = [-3] * NCARDS
        for col in ccols:
            prev = -1
            for c in col:
                after[c] = prev
                prev = c
        chead = child.split(SEP)[-1]
        for c in chead[5:]:
            after[c] = -2
        moved = [c for c in range(NCARDS) if after[c] != before[c] and after[c] != -3]
        if len(moved) > 1:
            raise AssertionError("more than one card moved between two states of the line")
        if moved:
            x = moved[0]
            if before[x] == -2:
                count = 1
            else:
                where = next(col for col in self.cols if x in col)
                count = len(where) - where.index(x)
            dst = after[x]
            code = TO_EMPTY if dst == -1 else TO_CELL if dst == -2 else dst
            self.play(x, count, code)
            self.autoplay()
            return
        # the moved card went home in the closure (or the move was to its
        # foundation): find the move among the parent's successors
        for key, (card, count, dst) in self.rules.successors(parent):
            if key == child:
                self.play(card, count, dst)
                self.autoplay()
                return
        raise AssertionError("no move leads to the next state of the line")


def _board_line(rules: Rules, board: Board, line: list[bytes]
                ) -> tuple[tuple[Move, ...], tuple[Move, ...]]:
    """The compressed and single-card moves that follow ``line`` from ``board``
    (the safe foundation moves between them included)."""
    sim = _Sim(rules, board)
    sim.autoplay()
    for parent, child in itertools.pairwise(line):
        sim.step_to(parent, child)
    return tuple(sim.moves), tuple(sim.singles)


def _replay_texts(board: Board, moves: tuple[Move, ...], single: bool = False
                  ) -> tuple[str, ...] | None:
    """Each move's standard text (``Board.move_text``), pushed in turn through
    the rules engine on a copy of ``board``; ``None`` unless it ends won.
    ``single``: every move carries one card, so every text is plain two-place
    notation (``81``, never ``81/1``) that any program replays as is."""
    check = board.copy(stack=False)
    texts: list[str] = []
    try:
        for m in moves:
            text = None if single else check.move_text(m)
            played = check.push(m)
            texts.append(text or played.notation())
    except ValueError:
        return None
    return tuple(texts) if check.is_won() else None


NOT_A_WIN = "the line did not replay to a win"


def _check_failed(problem: str) -> str:
    """The limit an *unknown* names when a found line failed its check."""
    return f"internal check failed: {problem}"


def _replays(board: Board, moves: tuple[Move, ...]) -> bool:
    """``moves`` pushed through the rules engine on a copy of ``board`` end
    in a win."""
    check = board.copy(stack=False)
    try:
        for m in moves:
            check.push(m)
    except ValueError:
        return False
    return check.is_won()


@dataclasses.dataclass(frozen=True)
class SolveRequest:
    """What :func:`solve` is asked, checked once, here: the limits, the engine
    (resolved: ``None`` becomes the default), what replays the line
    (``check``), the kind of line (``lines``) and of search (``search``), and
    the short search's time. Combinations an engine does not offer raise
    :class:`SolverError`.

    >>> SolveRequest(engine="python", search="exhaustive")
    Traceback (most recent call last):
    bakers.errors.SolverError: the exhaustive search needs the native engine
    """

    timeout: float | None = None
    max_states: int | None = 3_000_000
    max_memory_mb: int | None = 4096
    engine: str | None = None
    texts: bool = True
    check: str = "rules"
    lines: str = "fast"
    short_seconds: float | None = None
    short_until: float | None = None
    search: str = "portfolio"
    disk: DiskPlan | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        engine = check_engine(self.engine)
        object.__setattr__(self, "engine", engine)
        check_limits(self.timeout, self.max_states, self.max_memory_mb)
        if self.check not in ("rules", "core"):
            raise SolverError(f"unknown line check {self.check!r}: choose rules or core")
        if self.check == "core" and engine != "native":
            raise SolverError("the core's line check needs the native engine")
        if self.lines not in LINES:
            raise SolverError(f"unknown lines {self.lines!r}: choose fast or short")
        if self.search not in SEARCHES:
            raise SolverError(f"unknown search {self.search!r}: choose {' or '.join(SEARCHES)}")
        if self.search != "portfolio" and engine != "native":
            raise SolverError(f"the {self.search} search needs the native engine")
        if self.disk is not None and self.search != "exhaustive":
            raise SolverError("only the exhaustive search spills to disk")
        if self.seed is not None and (engine != "native" or self.search == "exhaustive"):
            raise SolverError("a seed draws the restarts' weights: it needs the native "
                              "engine and goes without the exhaustive search")
        if self.short_seconds is not None and not (
                math.isfinite(self.short_seconds) and self.short_seconds >= 0):
            raise SolverError(f"the short search's time must be finite and positive, "
                              f"not {self.short_seconds}")

    @property
    def engine_name(self) -> str:
        """The engine chosen (the default resolved)."""
        assert self.engine is not None
        return self.engine

    def limit(self, kind: str | None) -> str | None:
        """The words for the native core's limit ``kind``."""
        return limit_text(kind, self.timeout, self.max_states, self.max_memory_mb)


@dataclasses.dataclass
class _Found:
    """What an engine's search found: a verdict and its positions; for a win,
    how to make the line (board moves and single moves) and, on the native
    engine, the core's line as played on the board's places (for the core's
    own check), with what the short search proved."""

    verdict: Verdict
    states: int
    limit: str | None = None
    make_line: Callable[[], tuple[tuple[Move, ...], tuple[Move, ...]]] | None = None
    placed: tuple[Placed, Placed] | None = None  # the core's line played, on the board's places
    exhaustive_line: bool = False
    short_line: bool = False
    optimal: bool = False
    lower_bound: int | None = None
    disk_bytes: int = 0


def _exhaustive(board: Board, req: SolveRequest, start: float) -> NativeOutcome:
    """The exhaustive search (on disk with ``req.disk``). In Baker's Dozen
    pruning rule 8 first: the pool relaxation from the root, which proves
    most lost deals in a few thousand relaxed states; they count with the
    search's positions, in the same budget (when its memory runs out, the
    search goes on without it)."""
    spent = 0
    if _rules(board.game).dead_holds:
        relaxed = native_relax(board, timeout=req.timeout, max_states=req.max_states,
                               max_memory_mb=req.max_memory_mb)
        if relaxed.verdict == "impossible" or (relaxed.verdict == "unknown"
                                               and relaxed.limit != "memory"):
            return relaxed
        spent = relaxed.states
    elapsed = time.perf_counter() - start
    timeout = None if req.timeout is None else max(req.timeout - elapsed, 0.001)
    max_states = None if req.max_states is None else max(req.max_states - spent, 1)
    if req.disk is not None:
        found = spill(board, req.disk, timeout=timeout, max_states=max_states,
                      max_memory_mb=req.max_memory_mb)
    else:
        found = native_exhaust(board, timeout=timeout, max_states=max_states,
                               max_memory_mb=req.max_memory_mb)
    return dataclasses.replace(found, states=found.states + spent)


def _native_search(board: Board, req: SolveRequest, start: float) -> _Found:
    """The native engine: the core's portfolio (or its exhaustive search),
    then with ``lines="short"`` the short search with the time left."""
    if req.search == "exhaustive":
        found = _exhaustive(board, req, start)
    else:
        portfolio = (Portfolio.restarts_for(board.game) if req.search == "restarts"
                     else Portfolio.for_game(board.game))
        if req.seed is not None:
            portfolio = portfolio.with_seed(req.seed)
        found = native_search(board, portfolio, timeout=req.timeout,
                              max_states=req.max_states, max_memory_mb=req.max_memory_mb)
    states = found.states
    if found.verdict != "winnable":
        return _Found(Verdict(found.verdict), states, req.limit(found.limit),
                      disk_bytes=found.disk_bytes)
    assert found.line is not None
    card_line = found.line
    optimal, lower_bound = False, None
    placed: tuple[Placed, Placed] | None = None  # the line as played, when it was
    if req.lines == "short":
        spent = time.perf_counter() - start
        short_time = (req.short_seconds if req.short_seconds is not None
                      else req.timeout - spent if req.timeout is not None else SHORT_SECONDS)
        if req.short_until is not None:
            short_time = min(short_time, req.short_until - spent)
        # the line's player moves as it is played: with the closure's moves
        # of pruning rules 9 and 10, which the search's own steps leave out
        placed = play_line_places(board, card_line, exhaustive=req.search == "exhaustive")
        upper = sum(1 for _, dst, _ in placed[0] if dst != PLACE_FOUNDATION)
        if short_time > 0.0005:
            short = short_search(board, upper, timeout=short_time, max_states=req.max_states,
                                 max_memory_mb=req.max_memory_mb)
            states += short.states
            if short.line is not None:
                card_line, placed = short.line, None
            optimal, lower_bound = short.optimal, short.lower_bound
    # a line of the exhaustive search is played by its own rules
    exhaustive_line = req.search == "exhaustive" and card_line is found.line
    short_line = card_line is not found.line
    line = placed if placed is not None else play_line_places(
        board, card_line, exhaustive=exhaustive_line, short=short_line)
    return _Found(Verdict.WINNABLE, states,
                  make_line=lambda: (as_moves(line[0]), as_moves(line[1])),
                  placed=line, exhaustive_line=exhaustive_line,
                  short_line=short_line, optimal=optimal, lower_bound=lower_bound,
                  disk_bytes=found.disk_bytes)


def _python_search(board: Board, req: SolveRequest, start: float) -> _Found:
    """The Python reference engine: its own portfolio (no short search)."""
    rules = _rules(board.game)
    root = _root_key(rules, board)
    budget = Budget(timeout=req.timeout, max_states=req.max_states,
                    max_memory_mb=req.max_memory_mb)
    outcome = portfolio(rules, root, budget)
    if outcome.line is None:
        verdict = Verdict.IMPOSSIBLE if outcome.exhausted else Verdict.UNKNOWN
        return _Found(verdict, budget.states, outcome.limit)
    return _Found(Verdict.WINNABLE, budget.states,
                  make_line=functools.partial(_board_line, rules, board, outcome.line))


SEARCH_BY_ENGINE: dict[str, Callable[[Board, SolveRequest, float], _Found]] = {
    "native": _native_search, "python": _python_search}


def _checked_win(board: Board, req: SolveRequest, found: _Found, start: float) -> SolveResult:
    """A win's line made and replayed — by the rules engine, or by the core's
    line checker — before it is believed; a line that fails gives *unknown*."""
    move_texts: tuple[str, ...] = ()
    single_texts: tuple[str, ...] = ()
    problem = NOT_A_WIN
    try:
        if req.check == "core":
            assert found.placed is not None
            placed, placed_singles = found.placed
            ok = check_line(board, placed_singles)
            moves, singles = as_moves(placed), as_moves(placed_singles)
        else:
            assert found.make_line is not None
            moves, singles = found.make_line()
            if req.texts:
                replayed = _replay_texts(board, moves)
                single_replayed = (_replay_texts(board, singles, single=True)
                                   if replayed is not None else None)
                ok = replayed is not None and single_replayed is not None
                move_texts = replayed or ()
                single_texts = single_replayed or ()
            else:
                ok = _replays(board, moves)
    except Exception as exc:  # a solver bug: say unknown, never a wrong verdict
        ok, problem = False, f"{type(exc).__name__}: {exc}"
    if not ok:
        return SolveResult(Verdict.UNKNOWN, states=found.states,
                           seconds=time.perf_counter() - start,
                           limit=_check_failed(problem), engine=req.engine_name,
                           disk_bytes=found.disk_bytes)
    count = count_player_moves(moves)
    optimal, lower_bound = found.optimal, found.lower_bound
    if lower_bound is not None and lower_bound > count:
        optimal, lower_bound = False, None  # never claim what the line contradicts
    optimal = optimal and lower_bound == count
    return SolveResult(Verdict.WINNABLE, moves, singles, found.states,
                       time.perf_counter() - start, None, move_texts, single_texts, req.engine_name,
                       count, optimal, lower_bound, found.disk_bytes)


def solve(board: Board, *, timeout: float | None = None,
          max_states: int | None = 3_000_000,
          max_memory_mb: int | None = 4096,
          engine: str | None = None,
          texts: bool = True,
          check: str = "rules",
          lines: str = "fast",
          short_seconds: float | None = None,
          short_until: float | None = None,
          search: str = "portfolio",
          disk: DiskPlan | None = None,
          seed: int | None = None) -> SolveResult:
    """Decide whether ``board``'s current position can be won.

    Works for every game and cell count, on either engine (``native``, the
    compiled core and the default wherever it was built, or ``python``, the
    reference). *winnable* comes with a move list replayed through the rules
    engine; *impossible* means the whole reachable space (under the sound
    pruning described in :mod:`bakers.solver`) was searched; *unknown* names
    the limit that stopped the search. ``texts=False`` (for surveys) skips the
    notation of the lines; the line is still replayed before it is believed.
    ``check`` says by what: ``rules`` (the default) pushes every move through
    the rules engine (:meth:`Board.push`); ``core`` (native engine only, for
    surveys of many deals) has the compiled core's line checker — written
    from the rules, sharing no code with the search, and tested against the
    rules engine — replay the line card by card; it gives no notation.

    ``lines="short"`` then looks for a line of fewer player moves (moves that
    do not go to a foundation; a run moved at once counts one) with the time
    left — ``short_seconds``, or what remains of ``timeout``, or 2 s —
    and says whether it proved the line shortest (``optimal``) and the lower
    bound it reached; ``short_until`` (seconds from the call) ends it sooner
    when the fast search took long, so that a hint never waits on both. The
    Python engine has no short search: it answers with its fast line,
    ``optimal`` false.

    ``search="restarts"`` (native engine only) runs the portfolio's first
    stage, then its restarts to the end of the budget
    (:meth:`~bakers.solver.native.Portfolio.with_restarts`): best-first
    searches begun afresh with drawn weights on Luby's schedule, taking turns
    with the main search in FreeCell and Baker's Game — for deals the
    portfolio leaves unknown at large budgets. Baker's Dozen's portfolio
    ends with its restarts already.

    ``seed`` (native engine, a search with restarts: ``search="restarts"``,
    or Baker's Dozen's portfolio, which ends with them) draws the restarts'
    weights from another seed than the library's (1): a verdict and its
    count are the same for the same seed, and another seed is another chance
    on a deal one seed leaves unknown.

    ``search="exhaustive"`` (native engine only) runs the core's depth-first
    search of every reachable position instead of the portfolio: about a
    third of the memory per position, for proofs of loss too big for the
    portfolio; its lines are long and its wins in big spaces slow. With
    ``disk`` (a :class:`~bakers.solver.proof.DiskPlan`) it goes on with its
    positions on disk once they no longer fit ``max_memory_mb``, checkpointed
    and resumable (:mod:`bakers.solver.proof`).

    :raises SolverError: an unknown engine, a limit that is not finite and
        positive, or a malformed position.
    """
    start = time.perf_counter()
    req = SolveRequest(timeout, max_states, max_memory_mb, engine, texts, check, lines,
                       short_seconds, short_until, search, disk, seed)
    found = SEARCH_BY_ENGINE[req.engine_name](board, req, start)
    if found.verdict is not Verdict.WINNABLE:
        return SolveResult(found.verdict, states=found.states,
                           seconds=time.perf_counter() - start, limit=found.limit,
                           engine=req.engine_name, disk_bytes=found.disk_bytes)
    return _checked_win(board, req, found, start)


@dataclasses.dataclass(frozen=True)
class Decision:
    """What :func:`decide_deal` gives: :class:`SolveResult`'s verdict, states,
    seconds and limit, and for a win the sizes of the line (``moves``,
    ``single_moves``, ``player_moves``) in place of the line itself."""

    verdict: Verdict
    states: int
    seconds: float
    limit: str | None
    moves: int | None = None
    single_moves: int | None = None
    player_moves: int | None = None
    engine: str = "native"


def decide_deal(game: Game, deal: int, *, timeout: float | None = None,
                max_states: int | None = 3_000_000,
                max_memory_mb: int | None = 4096) -> Decision:
    """``solve(Board.deal(game, deal), engine="native", check="core")`` for
    surveys of many deals, which keep only the sizes of each winning line:
    the core deals the deal itself (its copy of the Microsoft shuffle, tested
    against :mod:`bakers.deals`), plays its line on the deal's columns and
    cells and checks it with its line checker without handing it to Python. A line
    that does not check gives *unknown*, never a wrong verdict.

    :raises SolverError: a limit that is not finite and positive.
    :raises RuntimeError: the native core is not built.
    """
    start = time.perf_counter()
    check_limits(timeout, max_states, max_memory_mb)
    columns, cells = native_deal_args(game, deal)
    found = search_checked(game, columns, cells, Portfolio.for_game(game), timeout=timeout,
                           max_states=max_states, max_memory_mb=max_memory_mb)
    return _decision(found, time.perf_counter() - start, timeout, max_states, max_memory_mb)


def decide_deals(game: Game, first: int, count: int, *, timeout: float | None = None,
                 max_states: int | None = 3_000_000,
                 max_memory_mb: int | None = 4096) -> list[Decision]:
    """:func:`decide_deal` for deals ``first`` .. ``first + count - 1``, in
    one call to the core (which also deals them): what a survey solving deals
    in turn in one process uses. Each decision's seconds are its own solve's."""
    check_limits(timeout, max_states, max_memory_mb)
    found = search_deals(game, first, count, Portfolio.for_game(game), timeout=timeout,
                         max_states=max_states, max_memory_mb=max_memory_mb)
    return [_decision(f, seconds, timeout, max_states, max_memory_mb) for f, seconds in found]


def _decision(found: NativeChecked, seconds: float, timeout: float | None,
              max_states: int | None, max_memory_mb: int | None) -> Decision:
    if found.verdict != "winnable":
        return Decision(Verdict(found.verdict), found.states, seconds,
                        limit_text(found.limit, timeout, max_states, max_memory_mb))
    if not found.checked:
        return Decision(Verdict.UNKNOWN, found.states, seconds, _check_failed(NOT_A_WIN))
    return Decision(Verdict.WINNABLE, found.states, seconds, None, found.moves,
                    found.single_moves, found.player_moves)


# The rest of each winning line a hint came from, by the position its move
# leads to: a player who takes the hint is given the line's next move at once,
# without solving again (a suffix of a checked winning line wins from where
# it starts). Keyed by the exact position, so a board laid out otherwise, or
# reached any other way, is solved as before.
_Key = tuple[Game, Position]
_V = TypeVar("_V")
KNOWN_LINES = 512
_known_lines: collections.OrderedDict[_Key, tuple[Move, ...]] = collections.OrderedDict()
_known_lock = threading.Lock()


def _line_key(board: Board) -> _Key:
    return board.game, board.position


def _recall(cache: collections.OrderedDict[_Key, _V], key: _Key) -> _V | None:
    """``cache``'s entry for ``key`` (now its newest), or None."""
    with _known_lock:
        value = cache.get(key)
        if value is not None:
            cache.move_to_end(key)
        return value


def _keep(cache: collections.OrderedDict[_Key, _V], items: Sequence[tuple[_Key, _V]],
          limit: int) -> None:
    """Put ``items`` in ``cache`` as its newest entries, the oldest dropped
    past ``limit``."""
    with _known_lock:
        for key, value in items:
            cache[key] = value
            cache.move_to_end(key)
        while len(cache) > limit:
            cache.popitem(last=False)


def _known_line(board: Board) -> tuple[Move, ...] | None:
    return _recall(_known_lines, _line_key(board))


def _remember_rest(board: Board, line: Sequence[Move]) -> None:
    """Remember that ``line[1:]`` wins from the position ``line[0]`` leads to,
    and so on through the moves home that follow it (a table that sends those
    cards home by itself reaches those positions)."""
    after = board.copy(stack=False)
    rests: list[tuple[_Key, tuple[Move, ...]]] = []
    for k in range(1, len(line)):
        after.push(line[k - 1])
        rests.append((_line_key(after), tuple(line[k:])))
        if line[k].dst.kind is not PlaceKind.FOUNDATION:
            break
    _keep(_known_lines, rests, KNOWN_LINES)


# Positions known lost, by the exact position: every position reached from a
# lost one is lost (a winning line from it would make one from the position
# before it). When a hint finds a position lost, the positions one move on
# from it, and those the moves home after such a move reach, are remembered,
# so a player who plays on after a loss is told at once, and so on from there.
KNOWN_LOST = 4096
_known_lost: collections.OrderedDict[_Key, bool] = collections.OrderedDict()


def _is_known_lost(board: Board) -> bool:
    return _recall(_known_lost, _line_key(board)) is not None


def _remember_lost(board: Board) -> None:
    """Remember ``board``'s position, lost, and the positions one move on."""
    keys = [_line_key(board)]
    for move in board.legal_moves:
        after = board.copy(stack=False)
        after.push(move)
        keys.append(_line_key(after))
        for _ in range(NCARDS):  # the moves home that may follow, the first each time
            home = next((m for m in after.legal_moves
                         if m.dst.kind is PlaceKind.FOUNDATION), None)
            if home is None:
                break
            after.push(home)
            keys.append(_line_key(after))
    _keep(_known_lost, [(key, True) for key in keys], KNOWN_LOST)


def hint(board: Board, budget: float = 1.0, engine: str | None = None) -> HintResult:
    """The first move of a winning line from ``board``'s position, found
    within ``budget`` seconds (the short search improving the line for a few
    hundredths of a second); or that the position is lost; or unknown. The
    next move of the line a previous hint came from, at once, when ``board``
    is where that hint's move led; that the position is lost, at once, when
    a hint found the position it came from lost."""
    if board.is_won():
        return HintResult(Verdict.WINNABLE, None, "the game is already won")
    if _is_known_lost(board):
        _remember_lost(board)
        return HintResult(Verdict.IMPOSSIBLE, None, NO_WINNING_LINE)
    line = _known_line(board)
    if line is None:
        result = solve(board, timeout=budget, engine=engine, lines="short",
                       short_seconds=min(HINT_SHORT_SECONDS, budget),
                       short_until=HINT_SHORT_UNTIL)
        if result.verdict is Verdict.WINNABLE:
            line = tuple(result.moves)
    if line is not None:
        move = line[0]
        _remember_rest(board, line)
        return HintResult(Verdict.WINNABLE, move,
                          f"{board.move_text(move)}: {board.describe_move(move)}")
    if result.verdict is Verdict.IMPOSSIBLE:
        _remember_lost(board)
        return HintResult(Verdict.IMPOSSIBLE, None, NO_WINNING_LINE)
    return HintResult(Verdict.UNKNOWN, None,
                      f"no verdict within the budget ({result.limit})")


__all__ = ["ENGINES", "LINES", "NCARDS", "SEARCHES", "Decision", "HintResult", "SolveResult",
           "Verdict", "check_engine", "check_limits", "decide_deal", "default_engine", "hint",
           "solve"]
