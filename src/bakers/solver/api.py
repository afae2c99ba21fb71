"""``solve`` and ``hint``: the engine's verdict turned into checked moves.

A winning line comes out of the engine as a list of state keys. A light copy
of the position (in the board's own column and cell order) reads each step off
the difference between two keys — which card moved, how many, where to — and
writes it as a board move, run moves expanded into single moves through free
cells and empty columns as the rules engine does. Both lists are then replayed
on fresh boards with ``Board.push`` before ``solve`` says *winnable*.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import functools
import itertools
import math
import os
import threading
import time
from collections.abc import Sequence

from ..board import Board
from ..cards import Card
from ..errors import SolverError
from ..games import Build, Game
from ..notation import Move, Place, PlaceKind, Position
from .engine import (
    BEAM_WEIGHTS,
    NCARDS,
    SEP,
    TO_CELL,
    TO_EMPTY,
    TO_FOUNDATION,
    BestFirst,
    Budget,
    Outcome,
    Rules,
    Weights,
    beam,
    tables,
)
from .native import AVAILABLE as NATIVE_AVAILABLE
from .native import Checked as NativeChecked
from .native import (
    Portfolio,
    as_moves,
    check_line,
    placed_player_moves,
    play_line,
    play_line_places,
    search_checked,
    search_deals,
    short_search,
)
from .native import deal_args as native_deal_args
from .native import exhaust as native_exhaust
from .native import search as native_search

LINES = ("fast", "short")
SEARCHES = ("portfolio", "exhaustive")
SHORT_SECONDS = 2.0   # the short search's time when no timeout is given
HINT_SHORT_SECONDS = 0.03  # and within a hint,
HINT_SHORT_UNTIL = 0.04  # ending this long after the hint was asked for at the latest


def player_moves(moves: tuple[Move, ...]) -> int:
    """Moves that do not go to a foundation (a run moved at once counts one)."""
    return sum(1 for m in moves if not m.dst.is_foundation)

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


def check_limits(timeout: float | None, max_states: int | None,
                 max_memory_mb: int | None) -> None:
    """Raise :class:`SolverError` unless every limit given is finite and positive."""
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise SolverError(f"the timeout must be a finite number of seconds above 0, not {timeout}")
    if max_states is not None and max_states < 1:
        raise SolverError(f"the state limit must be at least 1, not {max_states}")
    if max_memory_mb is not None and max_memory_mb < 1:
        raise SolverError(f"the memory limit must be at least 1 MB, not {max_memory_mb}")


class Verdict(enum.StrEnum):
    """The solver's answer about a position."""

    WINNABLE = "winnable"
    IMPOSSIBLE = "impossible"
    UNKNOWN = "unknown"


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

# The portfolio: a complete best-first search first; if its first budget runs
# out, beam searches (incomplete, but quick to find wins in huge spaces); then
# the best-first search again with all that is left.
FIRST_STAGE = {True: 200_000, False: 20_000}  # by "empty columns can be filled"
BEAMS = (300, 1000, 3000, 10_000)


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


def _search(rules: Rules, root: bytes, budget: Budget) -> Outcome:
    """Run the portfolio until a verdict or a limit."""
    main = BestFirst(rules, root)
    outcome = main.run(budget, FIRST_STAGE[rules.can_fill])
    if outcome.limit != "stage":
        return outcome
    beam_weights = (BEAM_WEIGHTS if rules.game.build is Build.ANY_SUIT
                    else (rules.weights,))
    budget.stored = len(main.seen)
    for width in BEAMS:
        for weights in beam_weights:
            outcome = beam(rules.reweighted(weights), root, width, budget)
            if outcome.line is not None or outcome.limit is not None:
                return outcome
    budget.stored = 0
    return main.run(budget)


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
        self._run(count, src.index, target.index, free, empties)

    def _run(self, n: int, src: int, dst: int, free: list[int], empties: list[int]) -> None:
        """A run of ``n`` cards as single moves: through the free cells, and by
        parking part of it in an empty column (the standard recursion)."""
        if n <= len(free) + 1:
            used = free[: n - 1]
            for ci in used:
                self._single(Place.column(src), Place.cell(ci))
            self._single(Place.column(src), Place.column(dst))
            for ci in reversed(used):
                self._single(Place.cell(ci), Place.column(dst))
            return
        spare, rest = empties[0], empties[1:]
        part = min((len(free) + 1) * 2 ** len(rest), n - 1)
        self._run(part, src, spare, free, rest)
        self._run(n - part, src, dst, free, rest)
        self._run(part, spare, dst, free, rest)

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
            between_columns = m.src.is_column and m.dst.is_column and not single
            bare: Move | None = None
            if between_columns:
                try:
                    bare = check.resolve(Move(m.src, m.dst, None))
                except ValueError:
                    bare = None
            played = check.push(m)
            texts.append(played.notation(with_count=between_columns and bare != played))
    except ValueError:
        return None
    return tuple(texts) if check.is_won() else None


def _limit_text(kind: str | None, timeout: float | None, max_states: int | None,
                max_memory_mb: int | None) -> str | None:
    """The native core's limit in the Python engine's words."""
    if kind == "timeout":
        return f"timeout {timeout:g} s"
    if kind == "states":
        return f"state limit {max_states:,}"
    if kind == "memory":
        return f"memory limit {max_memory_mb or 0:,} MB"
    return kind


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


def solve(board: Board, *, timeout: float | None = None,
          max_states: int | None = 3_000_000,
          max_memory_mb: int | None = 4096,
          engine: str | None = None,
          texts: bool = True,
          check: str = "rules",
          lines: str = "fast",
          short_seconds: float | None = None,
          short_until: float | None = None,
          search: str = "portfolio") -> SolveResult:
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

    ``search="exhaustive"`` (native engine only) runs the core's depth-first
    search of every reachable position instead of the portfolio: about a
    third of the memory per position, for proofs of loss too big for the
    portfolio; its lines are long and its wins in big spaces slow.

    :raises SolverError: an unknown engine, a limit that is not finite and
        positive, or a malformed position.
    """
    start = time.perf_counter()
    engine = check_engine(engine)
    check_limits(timeout, max_states, max_memory_mb)
    if check not in ("rules", "core"):
        raise SolverError(f"unknown line check {check!r}: choose rules or core")
    if check == "core" and engine != "native":
        raise SolverError("the core's line check needs the native engine")
    if lines not in LINES:
        raise SolverError(f"unknown lines {lines!r}: choose fast or short")
    if search not in SEARCHES:
        raise SolverError(f"unknown search {search!r}: choose {' or '.join(SEARCHES)}")
    if search == "exhaustive" and engine != "native":
        raise SolverError("the exhaustive search needs the native engine")
    if short_seconds is not None and not (math.isfinite(short_seconds) and short_seconds >= 0):
        raise SolverError(f"the short search's time must be finite and positive, "
                         f"not {short_seconds}")
    optimal, lower_bound = False, None
    exhaustive_line = False
    if engine == "native":
        if search == "exhaustive":
            found = native_exhaust(board, timeout=timeout, max_states=max_states,
                                   max_memory_mb=max_memory_mb)
        else:
            found = native_search(board, Portfolio.for_game(board.game), timeout=timeout,
                                  max_states=max_states, max_memory_mb=max_memory_mb)
        states = found.states
        if found.verdict != "winnable":
            return SolveResult(Verdict(found.verdict), states=states,
                               seconds=time.perf_counter() - start,
                               limit=_limit_text(found.limit, timeout, max_states,
                                                 max_memory_mb),
                               engine=engine)
        card_line = found.line
        if lines == "short":
            spent = time.perf_counter() - start
            short_time = (short_seconds if short_seconds is not None
                          else timeout - spent if timeout is not None else SHORT_SECONDS)
            if short_until is not None:
                short_time = min(short_time, short_until - spent)
            upper = sum(1 for _, _, dst in card_line if dst != -1)
            if short_time > 0.0005:
                short = short_search(board, upper, timeout=short_time, max_states=max_states,
                                     max_memory_mb=max_memory_mb)
                states += short.states
                if short.line is not None:
                    card_line = short.line
                optimal, lower_bound = short.optimal, short.lower_bound
        # a line of the exhaustive search is played by its own rules
        exhaustive_line = search == "exhaustive" and card_line is found.line
        make_line = functools.partial(play_line, board, card_line, exhaustive=exhaustive_line)
    else:
        rules = _rules(board.game)
        root = _root_key(rules, board)
        budget = Budget(timeout=timeout, max_states=max_states, max_memory_mb=max_memory_mb)
        outcome = _search(rules, root, budget)
        states = budget.states
        if outcome.line is None:
            verdict = Verdict.IMPOSSIBLE if outcome.exhausted else Verdict.UNKNOWN
            return SolveResult(verdict, states=states, seconds=time.perf_counter() - start,
                               limit=outcome.limit, engine=engine)
        make_line = functools.partial(_board_line, rules, board, outcome.line)
    move_texts: tuple[str, ...] = ()
    single_texts: tuple[str, ...] = ()
    problem = NOT_A_WIN
    try:
        if check == "core":
            placed, placed_singles = play_line_places(board, card_line,
                                                      exhaustive=exhaustive_line)
            ok = check_line(board, placed_singles)
            moves, singles = as_moves(placed), as_moves(placed_singles)
            count = placed_player_moves(placed)
        elif texts:
            moves, singles = make_line()
            replayed = _replay_texts(board, moves)
            single_replayed = (_replay_texts(board, singles, single=True)
                               if replayed is not None else None)
            ok = replayed is not None and single_replayed is not None
            move_texts = replayed or ()
            single_texts = single_replayed or ()
        else:
            moves, singles = make_line()
            ok = _replays(board, moves)
    except Exception as exc:  # a solver bug: say unknown, never a wrong verdict
        ok, problem = False, f"{type(exc).__name__}: {exc}"
    if not ok:
        return SolveResult(Verdict.UNKNOWN, states=states,
                           seconds=time.perf_counter() - start,
                           limit=_check_failed(problem), engine=engine)
    if check != "core":
        count = player_moves(moves)
    if lower_bound is not None and lower_bound > count:
        optimal, lower_bound = False, None  # never claim what the line contradicts
    optimal = optimal and lower_bound == count
    return SolveResult(Verdict.WINNABLE, moves, singles, states,
                       time.perf_counter() - start, None, move_texts, single_texts, engine,
                       count, optimal, lower_bound)


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
    the core deals nothing itself (the deal's columns come from
    :mod:`bakers.deals`), and plays its line on the deal's columns and cells
    and checks it with its line checker without handing it to Python. A line
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
                        _limit_text(found.limit, timeout, max_states, max_memory_mb))
    if not found.checked:
        return Decision(Verdict.UNKNOWN, found.states, seconds, _check_failed(NOT_A_WIN))
    return Decision(Verdict.WINNABLE, found.states, seconds, None, found.moves,
                    found.single_moves, found.player_moves)


# The rest of each winning line a hint came from, by the position its move
# leads to: a player who takes the hint is given the line's next move at once,
# without solving again (a suffix of a checked winning line wins from where
# it starts). Keyed by the exact position, so a board laid out otherwise, or
# reached any other way, is solved as before.
KNOWN_LINES = 512
_known_lines: collections.OrderedDict[tuple[Game, Position], tuple[Move, ...]] = \
    collections.OrderedDict()
_known_lock = threading.Lock()


def _line_key(board: Board) -> tuple[Game, Position]:
    return board.game, board.position


def _known_line(board: Board) -> tuple[Move, ...] | None:
    key = _line_key(board)
    with _known_lock:
        line = _known_lines.get(key)
        if line is not None:
            _known_lines.move_to_end(key)
        return line


def _remember_rest(board: Board, line: Sequence[Move]) -> None:
    """Remember that ``line[1:]`` wins from the position ``line[0]`` leads to,
    and so on through the moves home that follow it (a table that sends those
    cards home by itself reaches those positions)."""
    after = board.copy(stack=False)
    rests: list[tuple[tuple[Game, Position], tuple[Move, ...]]] = []
    for k in range(1, len(line)):
        after.push(line[k - 1])
        rests.append((_line_key(after), tuple(line[k:])))
        if line[k].dst.kind is not PlaceKind.FOUNDATION:
            break
    with _known_lock:
        for key, rest in rests:
            _known_lines[key] = rest
            _known_lines.move_to_end(key)
        while len(_known_lines) > KNOWN_LINES:
            _known_lines.popitem(last=False)


def hint(board: Board, budget: float = 1.0, engine: str | None = None) -> HintResult:
    """The first move of a winning line from ``board``'s position, found
    within ``budget`` seconds (the short search improving the line for a few
    hundredths of a second); or that the position is lost; or unknown. The
    next move of the line a previous hint came from, at once, when ``board``
    is where that hint's move led."""
    if board.is_won():
        return HintResult(Verdict.WINNABLE, None, "the game is already won")
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
        return HintResult(Verdict.IMPOSSIBLE, None, NO_WINNING_LINE)
    return HintResult(Verdict.UNKNOWN, None,
                      f"no verdict within the budget ({result.limit})")


__all__ = ["ENGINES", "LINES", "NCARDS", "SEARCHES", "Decision", "HintResult", "SolveResult",
           "Verdict", "check_engine", "check_limits", "decide_deal", "default_engine", "hint",
           "player_moves", "solve"]
