"""The compiled search core, seen from Python.

``bakers.solver._native`` (C, built by ``pip install .`` when a compiler is
there) runs the whole search: state, move generation, safe-autoplay closure,
canonical key, hash table, the best-first and beam searches and the limits.
This module checks every position before it reaches the core and turns the
game's rules into the plain numbers the core takes (rules as data: build
policy, empty-column policy, run moves, cells). The line it returns is in card
terms — ``(card, count, destination)`` — and :mod:`bakers.solver.api` plays it
on the board and replays it through the rules engine before it is believed.

>>> from bakers import Board
>>> if AVAILABLE:
...     out = search(Board.deal("freecell", 11982), Portfolio.for_game(
...         Board.deal("freecell", 11982).game), timeout=None, max_states=None,
...         max_memory_mb=None)
...     print(out.verdict)
... else:
...     print("impossible")
impossible
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Generic, TypeVar

from ..board import Board
from ..cards import Card
from ..deals import deal_column_indices, parse_deal_number
from ..errors import SolverError
from ..games import Build, EmptyColumn, Game, RunMoves
from ..notation import Move, Place
from .engine import WEIGHTS, Weights

_core: ModuleType | None
IMPORT_ERROR: str | None = None
try:
    _core = importlib.import_module("bakers.solver._native")
except ImportError as exc:  # not built (no compiler) or not loadable here
    _core = None
    IMPORT_ERROR = str(exc)

AVAILABLE = _core is not None
RECORD_BYTES: int = int(getattr(_core, "RECORD_BYTES", 0))
VERSION: int = int(getattr(_core, "VERSION", 0))
FEW_CELLS: int = int(getattr(_core, "FEW_CELLS", 0))  # FreeCell's few cells (bakers.h)

BUILD_CODES = {Build.SAME_SUIT: 0, Build.ALTERNATE_COLOUR: 1, Build.ANY_SUIT: 2}
PLACE_CELL = 100
PLACE_FOUNDATION = 200

# The portfolio (see bakers.solver): a complete best-first search first; when
# its first stage runs out, beam searches and the best-first search resumed in
# turn; then the best-first search with all that is left. Its stages, weights
# and the rival are data in the C library (csrc/portfolio.c, with the ranges
# each was chosen on): ``Portfolio.for_game`` reads them from there, and other
# portfolios (bench/portfolio.py, the tests) are handed to the core whole.


@dataclasses.dataclass(frozen=True)
class Rival:
    """A second best-first search, with greedier weights, that takes turns
    with the main one during the first stage: ``head`` positions first, then
    ``main_turn`` positions of the main search for every ``turn`` of its own,
    until it has expanded ``limit`` positions (a deal it has not won by then
    seldom falls to it, and a proof of loss should not pay for it). Both are
    complete searches of the same positions, so either one running out proves
    the deal lost, and the first to find a win ends the solve."""

    weights: Weights
    head: int
    main_turn: int
    turn: int
    limit: int


@dataclasses.dataclass(frozen=True)
class Race:
    """Best-first searches with other weights (``weightings``) that take
    turns of ``turn`` positions with the main one after the first stage, each
    keeping its own positions, until one wins or runs out of positions (all
    are complete, so that proves the deal lost) or ``until`` positions in all
    (-1: the whole budget). A deal costs at most ``len(weightings) + 1``
    times what the cheapest of them alone would: the schedule bets on no
    one weighting."""

    weightings: tuple[Weights, ...]
    turn: int
    until: int = -1


@dataclasses.dataclass(frozen=True)
class Restarts:
    """Best-first searches begun afresh one after another (a stage of width
    -2): search i with weights drawn field by field between ``low`` and
    ``high`` by a generator seeded with ``seed`` (every solve draws the same
    ones, so a verdict and its count do not change from run to run), for
    ``unit`` times the i-th term of Luby's sequence (1 1 2 1 1 2 4 1 1 2 ...)
    positions, until one wins or runs out of positions (a proof of loss).
    Luby's schedule is within a logarithmic factor of the best fixed cut-off
    for any spread of costs over the weightings: it bets on no weighting and
    on no length of search. With ``with_main`` the portfolio's main
    best-first search is resumed after each one for as many positions, so a
    proof of loss it would make costs at most twice as much."""

    unit: int
    seed: int
    low: Weights
    high: Weights
    with_main: bool = False


CardLine = list[tuple[int, int, int]]


_T = TypeVar("_T")


class _ByIdentity(Generic[_T]):
    """What ``make`` gives for some objects, made once per objects and found
    again by their identity (a Game's hash walks all its fields: 10 us a deal
    in a survey through an lru_cache). Keeps at most 64 entries."""

    def __init__(self, make: Callable[..., _T]) -> None:
        self._make = make
        self._memo: dict[tuple[int, ...], tuple[tuple[object, ...], _T]] = {}

    def __call__(self, *objs: object) -> _T:
        key = tuple(map(id, objs))
        hit = self._memo.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], objs, strict=True)):
            return hit[1]
        made = self._make(*objs)
        if len(self._memo) >= 64:
            self._memo.clear()
        self._memo[key] = (objs, made)
        return made


def _weights(w: Weights) -> tuple[int, int, int, int, int, int, int]:
    return (w.blocked, w.cell, w.home, w.empty, w.unbuilt, w.depth, w.need)


@dataclasses.dataclass(frozen=True)
class Portfolio:
    """The search parameters handed to the core: heuristic weights, the size
    of the first best-first stage, the later stages and the beams' weights.
    A later stage (``beams``) is a beam's width, or ``(width, k)`` with beam
    weights k alone; 0 the best-first search resumed; -1 the race; -2 the
    restarts; -3 the pool relaxation (pruning rule 8; -6 with its fine
    ladder of games, as :func:`relax`); -4 the exhaustive search (-7 under
    its own rules, as :func:`exhaust`, where the rules have pruning rule 7:
    Baker's Dozen; -8 that search begun afresh with the restarts' drawn
    weights on their schedule of lengths); -5 the
    probes (``(-5, n)``: a best-first search of n positions
    from each position one move deeper than the last probes stage, the first
    one move from the root); each of 0 and below as ``(code, n)`` for n
    positions (the core's bk_portfolio)."""

    weights: Weights
    first_stage: int
    beams: tuple[int | tuple[int, int], ...]
    beam_weights: tuple[Weights, ...]
    middle_stage: int = 2_000_000
    rival: Rival | None = None
    race: Race | None = None
    restarts: Restarts | None = None

    @classmethod
    def for_game(cls, game: Game) -> Portfolio:
        return _portfolio_for(game)

    @classmethod
    def restarts_for(cls, game: Game) -> Portfolio:
        """:meth:`with_restarts` of the game's portfolio, made once."""
        return _restarts_for(game)

    def with_restarts(self) -> Portfolio:
        """The solver's ``search="restarts"``: this portfolio as it is where
        its schedule ends with its restarts (see :class:`Restarts`) already;
        otherwise its first stage, then the restarts to the end of the
        budget in place of its beams (which can cost tens of millions of
        positions with few cells)."""
        if self.restarts is None:
            raise SolverError("this portfolio has no restarts")
        if self.beams and self.beams[-1] == -2:
            return self
        return dataclasses.replace(self, beams=(-2,))

    def with_seed(self, seed: int) -> Portfolio:
        """This portfolio with its restarts' weights drawn from ``seed``
        (0 to 2**64 - 1; the library's is 1): another sequence of weightings
        and so another chance on a deal one seed leaves unknown, each seed as
        deterministic as the default. Only for a schedule that has the
        restarts: Baker's Dozen's portfolio, or :meth:`with_restarts`."""
        if self.restarts is None or -2 not in self.beams:
            raise SolverError("a seed draws the restarts' weights: it goes with the "
                              "restarts search (Baker's Dozen's portfolio ends with it)")
        if not 0 <= seed < 1 << 64:
            raise SolverError(f"a seed is a whole number from 0 to 2**64 - 1, not {seed}")
        return dataclasses.replace(self, restarts=dataclasses.replace(self.restarts, seed=seed))

    @classmethod
    def _make(cls, game: Game) -> Portfolio:
        """The library's portfolio of ``game`` (the core must be built)."""
        if _core is None:
            raise RuntimeError(f"the native solver core is not available: {IMPORT_ERROR}")
        weights, first, middle, beams, beam_weights, rival, race, restarts = _core.portfolio(
            BUILD_CODES[game.build], game.empty_column is EmptyColumn.ANY, game.cells)
        return cls(Weights(*weights), first, tuple(beams), tuple(Weights(*w) for w in beam_weights),
                   middle, None if rival is None else Rival(Weights(*rival[0]), *rival[1:]),
                   None if race is None else Race(tuple(Weights(*w) for w in race[2]), race[0],
                                                  race[1]),
                   None if restarts is None else Restarts(restarts[0], restarts[1],
                                                          Weights(*restarts[2]),
                                                          Weights(*restarts[3]), restarts[4]))


_portfolio_for = _ByIdentity(Portfolio._make)
_restarts_for = _ByIdentity(lambda game: Portfolio.for_game(game).with_restarts())


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What the core found: ``verdict`` is winnable, impossible or unknown;
    ``limit`` names the limit that stopped it ("states", "timeout",
    "memory"); ``line`` is the winning line in card terms; ``disk_bytes`` the
    most bytes a search on disk held there (0: it stayed in memory)."""

    verdict: str
    limit: str | None
    states: int
    line: CardLine
    peak_bytes: int
    disk_bytes: int = 0


def _rival_args(rival: Rival | None) -> tuple[tuple[int, ...], int, int, int, int] | None:
    if rival is None:
        return None
    return _weights(rival.weights), rival.head, rival.main_turn, rival.turn, rival.limit


def _race_args(race: Race | None) -> tuple[int, int, tuple[tuple[int, ...], ...]] | None:
    if race is None:
        return None
    return race.turn, race.until, tuple(_weights(w) for w in race.weightings)


def _restarts_args(restarts: Restarts | None
                   ) -> tuple[int, int, tuple[int, ...], tuple[int, ...], bool] | None:
    if restarts is None:
        return None
    return (restarts.unit, restarts.seed, _weights(restarts.low), _weights(restarts.high),
            restarts.with_main)


def _rules_args(game: Game) -> tuple[int, int, int, int]:
    return (game.cells, BUILD_CODES[game.build],
            int(game.empty_column is EmptyColumn.ANY),
            int(game.run_moves is RunMoves.SUPERMOVE))


_last_checked: tuple[object, tuple[list[bytes], bytes]] | None = None


def position_args(board: Board) -> tuple[list[bytes], bytes]:
    """:func:`checked_position_args`, remembered for the last position seen
    (a position never changes: a move makes a new one), since one solve hands
    the same position to the core several times."""
    global _last_checked
    last = _last_checked
    if last is not None and last[0] is board.position:
        return last[1]
    args = checked_position_args(board)
    _last_checked = (board.position, args)
    return args


_CARD_INDEX = {card: card.index for card in map(Card.from_index, range(52))}


def checked_position_args(board: Board) -> tuple[list[bytes], bytes]:
    """The board's columns and cells as card-index bytes, after checking the
    position whole: 52 distinct cards, each in play or home, and the
    foundations built from the ace. Raises :class:`SolverError` otherwise, so that
    a malformed position never reaches the core."""
    pos = board.position
    game = board.game
    if len(pos.columns) != game.columns or len(pos.cells) != game.cells:
        raise SolverError("the position does not fit the game's columns and cells")
    index = _CARD_INDEX.__getitem__
    cols = [bytes(map(index, col)) for col in pos.columns]
    cells = bytes([index(c) for c in pos.cells if c is not None])
    seen = bytearray(52)
    for part in (*cols, cells):
        for c in part:
            if seen[c]:
                raise SolverError("a card appears twice in the position")
            seen[c] = 1
    for suit, height in enumerate(pos.foundations):
        if not 0 <= height <= 13:
            raise SolverError("a foundation height is out of range")
        for rank in range(13):
            card = rank * 4 + suit
            if seen[card] == (1 if rank < height else 0):
                raise SolverError("the foundations and the cards in play do not add up")
    if any(len(col) > 52 for col in cols):
        raise SolverError("a column is too long")
    return cols, cells


def search(board: Board, portfolio: Portfolio, *, timeout: float | None,
           max_states: int | None, max_memory_mb: int | None) -> Outcome:
    """Run the core's portfolio on ``board``'s position (the GIL is released
    while it runs)."""
    if _core is None:
        raise RuntimeError(f"the native solver core is not available: {IMPORT_ERROR}")
    cols, cells = position_args(board)
    status, limit, states, line, peak = _core.solve(
        cols, cells, *_solve_args(board.game, portfolio, timeout, max_states, max_memory_mb))
    return Outcome(status, limit, states, list(line or []), peak)


def _solve_args(game: Game, portfolio: Portfolio, timeout: float | None,
                max_states: int | None, max_memory_mb: int | None) -> tuple[object, ...]:
    """What the core's solve() and solve_checked() take after the position."""
    return (*_search_args(game, portfolio), *_limit_args(timeout, max_states, max_memory_mb))


def _make_search_args(game: Game, portfolio: Portfolio) -> tuple[object, ...]:
    """The rules and the portfolio as the core takes them (a survey hands
    the same ones over for every deal: see ``_search_args``)."""
    return (*_rules_args(game), _weights(portfolio.weights), portfolio.first_stage,
            portfolio.middle_stage, tuple(portfolio.beams),
            tuple(_weights(w) for w in portfolio.beam_weights), _rival_args(portfolio.rival),
            _race_args(portfolio.race), _restarts_args(portfolio.restarts))


_search_args = _ByIdentity(_make_search_args)


def _limit_args(timeout: float | None, max_states: int | None,
                max_memory_mb: int | None) -> tuple[int, float, int]:
    """The limits as the core takes them (negative: none)."""
    return (-1 if max_states is None else max_states, -1.0 if timeout is None else timeout,
            -1 if max_memory_mb is None else max_memory_mb)


@dataclasses.dataclass(frozen=True)
class Checked:
    """What :func:`search_checked` found: the verdict, the limit that stopped
    an unknown search, the positions, and for a win the sizes of its line
    (moves, single-card moves, player moves) and whether the core's line
    checker accepted it."""

    verdict: str
    limit: str | None
    states: int
    moves: int
    single_moves: int
    player_moves: int
    checked: bool


def deal_args(game: Game, deal: int) -> tuple[list[bytes], bytes]:
    """The columns of deal ``deal`` of ``game`` and its empty cells, one byte
    a cell (255: empty), as the core takes them: dealt by the core's copy of
    the Microsoft shuffle (60 times quicker than :mod:`bakers.deals`, whose
    deals it is tested against) once the number is checked."""
    deal = parse_deal_number(deal)
    if _core is not None:
        cols: list[bytes] = _core.deal(deal, game.columns, game.kings_to_bottom)
    else:
        cols = [bytes(c) for c in deal_column_indices(deal, game.columns, game.kings_to_bottom)]
    pack = b"".join(cols)
    if len(pack) != 52 or len(set(pack)) != 52 or max(pack) > 51:
        raise SolverError(f"deal {deal} is not a whole pack")  # never: a shuffle of range(52)
    return cols, b"\xff" * game.cells


def search_checked(game: Game, columns: list[bytes], cells_by_place: bytes,
                   portfolio: Portfolio, *, timeout: float | None, max_states: int | None,
                   max_memory_mb: int | None) -> Checked:
    """:func:`search`, then the winning line played on the position's own
    columns and cells and checked by the core's line checker (as
    :func:`play_line_places` and :func:`check_line` do) with no list handed
    to Python: for surveys of many deals, which keep only the line's sizes.
    ``columns`` and ``cells_by_place`` come from :func:`deal_args`."""
    if _core is None:
        raise RuntimeError(f"the native solver core is not available: {IMPORT_ERROR}")
    return _checked(_core.solve_checked(
        columns, cells_by_place, *_solve_args(game, portfolio, timeout, max_states,
                                              max_memory_mb)))


def search_deals(game: Game, first: int, count: int, portfolio: Portfolio, *,
                 timeout: float | None, max_states: int | None,
                 max_memory_mb: int | None) -> list[tuple[Checked, float]]:
    """:func:`search_checked` on deals ``first`` .. ``first + count - 1`` of
    ``game``, dealt by the core (as :func:`deal_args` does) and solved one
    after another in one call, with each solve's wall seconds: for surveys,
    with no Python between two deals."""
    if _core is None:
        raise RuntimeError(f"the native solver core is not available: {IMPORT_ERROR}")
    parse_deal_number(first)
    if count > 0:
        parse_deal_number(first + count - 1)
    answers = _core.solve_deals(first, count, game.columns, game.kings_to_bottom,
                                _solve_args(game, portfolio, timeout, max_states, max_memory_mb))
    return [(_checked(answer), seconds) for answer, seconds in answers]


def _checked(answer: tuple[str, str | None, int, tuple[int, int, int, int] | None, int]
             ) -> Checked:
    status, limit, states, sizes, _peak = answer
    moves, singles, player, ok = sizes if sizes is not None else (0, 0, 0, False)
    return Checked(status, limit, states, moves, singles, player, bool(ok))


def exhaust(board: Board, *, timeout: float | None, max_states: int | None,
            max_memory_mb: int | None) -> Outcome:
    """Run the core's exhaustive depth-first search on ``board``'s position:
    every reachable position once, each held in a compact form of about 12
    bytes (FreeCell) and 30 in all with the table, against the portfolio's
    100 or so, so that a proof of loss fits three times as many positions in
    memory. It finds wins too, but far later than the portfolio where the
    space is big (Baker's Dozen)."""
    if _core is None:
        raise RuntimeError(f"the native solver core is not available: {IMPORT_ERROR}")
    cols, cells = position_args(board)
    status, limit, states, line, peak = _core.exhaust(
        cols, cells, *_rules_args(board.game), _weights(Portfolio.for_game(board.game).weights),
        *_limit_args(timeout, max_states, max_memory_mb))
    return Outcome(status, limit, states, list(line or []), peak)


def relax(board: Board, *, timeout: float | None, max_states: int | None,
          max_memory_mb: int | None) -> Outcome:
    """Pruning rule 8 of :mod:`bakers.solver` (Baker's Dozen): the core's
    pool relaxation searched from ``board``'s position, each relaxed state one
    position of the budget. ``verdict`` is impossible when it proves the
    position lost, "open" when the relaxed game is won (which proves
    nothing), unknown at a limit."""
    if _core is None:
        raise RuntimeError(f"the native solver core is not available: {IMPORT_ERROR}")
    cols, cells = position_args(board)
    verdict, limit, states, _, peak = _core.relax(
        cols, cells, *_rules_args(board.game), *_limit_args(timeout, max_states, max_memory_mb))
    return Outcome("open" if verdict == "winnable" else verdict, limit, states, [], peak)


@dataclasses.dataclass(frozen=True)
class DiskOutcome:
    """What the disk-backed exhaustive search found: the search's outcome
    (its ``peak_bytes`` the memory it held, its ``disk_bytes`` the most bytes
    its work directory held)."""

    outcome: Outcome

    @property
    def disk_peak(self) -> int:
        return self.outcome.disk_bytes


Progress = Callable[[int, int, int, int], object]  # positions, layer, level, disk bytes


def exhaust_disk(board: Board, work_dir: str, *, timeout: float | None, max_states: int | None,
                 max_memory_mb: int | None, max_disk_bytes: int | None, resume: bool = False,
                 progress: Progress | None = None) -> DiskOutcome:
    """Run the core's exhaustive search breadth first with its positions on
    disk in ``work_dir`` (an existing directory): the same positions as
    :func:`exhaust`, so a proof of loss counts as many, in the memory given
    (half of it sorts) and at most ``max_disk_bytes`` of disk. Every finished
    level is a checkpoint there; ``resume`` goes on from it after a kill,
    with the same verdict and count as a run never stopped. ``progress`` is
    called now and then with the positions expanded, the layer (cards home),
    its level and the bytes on disk."""
    if _core is None:
        raise RuntimeError(f"the native solver core is not available: {IMPORT_ERROR}")
    cols, cells = position_args(board)
    (status, limit, states, line, peak), disk_peak = _core.exhaust_disk(
        cols, cells, *_rules_args(board.game), _weights(Portfolio.for_game(board.game).weights),
        *_limit_args(timeout, max_states, max_memory_mb), work_dir,
        -1 if max_disk_bytes is None else max_disk_bytes, resume, progress)
    return DiskOutcome(Outcome(status, limit, states, list(line or []), peak, disk_peak))


# The short-line search: beam widths, small ones (before the proof) first.
SHORT_WIDTHS = (10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000, 300_000)
PROVE_SHARE = 0.5  # of the time left when the proof starts
# The beams' ranking of positions with the same player moves made (FreeCell's
# chosen on deals 1-20 among fourteen candidates: cards home do not count).
SHORT_WEIGHTS = {**WEIGHTS, Build.ALTERNATE_COLOUR: Weights(blocked=3, cell=2, home=0, empty=1,
                                                             unbuilt=2)}


@dataclasses.dataclass(frozen=True)
class ShortOutcome:
    """What the short-line search found: ``line`` (card terms) when it found
    one of fewer player moves than it was given, else ``None``; the player
    moves of the best line known; whether no shorter line exists (proven);
    the lower bound reached; the positions expanded; the limit that ended it."""

    line: CardLine | None
    player_moves: int
    optimal: bool
    lower_bound: int
    states: int
    limit: str | None


def short_search(board: Board, upper: int, *, timeout: float | None,
                 max_states: int | None, max_memory_mb: int | None,
                 widths: tuple[int, ...] = SHORT_WIDTHS,
                 prove_share: float = PROVE_SHARE,
                 weights: Weights | None = None) -> ShortOutcome:
    """Look for a line of fewer than ``upper`` player moves from ``board``'s
    position (a known line has ``upper``), while time remains: beam searches
    of growing width, and an A* search with an admissible bound that proves a
    line shortest when it runs out of positions."""
    if _core is None:
        raise RuntimeError("the native solver core is not available")
    cols, cells = position_args(board)
    line, moves, optimal, lower, states, limit = _core.short(
        cols, cells, *_rules_args(board.game),
        _weights(weights or SHORT_WEIGHTS[board.game.build]), upper,
        list(widths), prove_share, *_limit_args(timeout, max_states, max_memory_mb))
    return ShortOutcome(None if line is None else list(line), moves, bool(optimal), lower,
                        states, limit)


def children(board: Board, weights: Weights | None = None, *, exhaustive: bool = False
             ) -> list[tuple[bytes, int, int, int, int]]:
    """The children the core's search generates from ``board``'s position:
    ``(key, card, count, destination, heuristic)``, keys in the core's
    52-byte form (see :func:`key_parts`), the heuristic under ``weights``
    (default: every weight 1 but ``need``, 0); with ``exhaustive``, those of
    the exhaustive search (its closure: see :func:`play_line`). For the
    differential tests."""
    if _core is None:
        raise RuntimeError("the native solver core is not available")
    cols, cells = position_args(board)
    w = None if weights is None else _weights(weights)
    return list(_core.children(cols, cells, *_rules_args(board.game), w, exhaustive))


def legal_moves(board: Board) -> list[tuple[int, int]]:
    """Every legal single-card move of ``board`` from the core's generator:
    ``(source, destination)``, columns 0..12, cells 100 + i, foundation 200."""
    if _core is None:
        raise RuntimeError("the native solver core is not available")
    cols, _ = position_args(board)
    return list(_core.legal_moves(cols, _cells_by_place(board), *_rules_args(board.game)))


def _place(code: int) -> Place:
    if code == PLACE_FOUNDATION:
        return Place.foundation()
    if code >= PLACE_CELL:
        return Place.cell(code - PLACE_CELL)
    return Place.column(code)


_MOVES: dict[tuple[int, int, int], Move] = {}


def _move(src: int, dst: int, count: int) -> Move:
    move = _MOVES[(src, dst, count)] = Move(_place(src), _place(dst), count)
    return move


Placed = list[tuple[int, int, int]]


def _cells_by_place(board: Board) -> bytes:
    return bytes(255 if c is None else c.index for c in board.position.cells)


def play_line_places(board: Board, line: CardLine, *, exhaustive: bool = False,
                     short: bool = False) -> tuple[Placed, Placed]:
    """:func:`play_line` as ``(source, destination, count)`` place codes."""
    if _core is None:
        raise RuntimeError("the native solver core is not available")
    cols, _ = position_args(board)
    moves, singles = _core.play_line(cols, _cells_by_place(board), *_rules_args(board.game),
                                     line, exhaustive, short)
    return moves, singles


def check_line(board: Board, singles: Placed) -> bool:
    """The core's own line checker, written from the rules and sharing no code
    with the search: every single-card move of ``singles`` is legal from
    ``board``'s position and the last one wins."""
    if _core is None:
        raise RuntimeError("the native solver core is not available")
    cols, _ = position_args(board)
    return bool(_core.check_line(cols, _cells_by_place(board), *_rules_args(board.game),
                                 singles))


def as_moves(placed: Placed) -> tuple[Move, ...]:
    try:
        return tuple(map(_MOVES.__getitem__, placed))
    except KeyError:
        return tuple([_MOVES[m] if m in _MOVES else _move(*m) for m in placed])


def play_line(board: Board, line: CardLine, *, exhaustive: bool = False, short: bool = False
              ) -> tuple[tuple[Move, ...], tuple[Move, ...]]:
    """The core's line played from ``board``'s position in its own column and
    cell order, the safe foundation moves after each move included (those of
    the exhaustive search's rules for one of its lines: in Baker's Dozen it
    sends more cards home, pruning rule 6), and the closure of the cells
    (in Baker's Game pruning rule 9's, cards in cells onto their exposed
    natural parents; in FreeCell with one to three cells rule 10's, when
    every cell is full; not for a line of the short search, ``short``, which
    makes none): the
    moves (runs moved at once) and the same line card by card. Nothing here
    is believed yet: the caller replays it through the rules engine."""
    moves, singles = play_line_places(board, line, exhaustive=exhaustive, short=short)
    return as_moves(moves), as_moves(singles)


def key_parts(key: bytes) -> tuple[bytes, bytes, list[bytes]]:
    """A core key (per card: the card beneath it, 52 column bottom, 53 cell,
    54 home) as foundations, sorted cells and columns (bottom card first)."""
    above = [-1] * 55
    fnd = [0, 0, 0, 0]
    cells: list[int] = []
    bottoms: list[int] = []
    for c, v in enumerate(key):
        if v < 52:
            above[v] = c
        elif v == 52:
            bottoms.append(c)
        elif v == 53:
            cells.append(c)
        else:
            fnd[c & 3] += 1
    cols: list[bytes] = []
    for b in bottoms:
        col = []
        c = b
        while c >= 0:
            col.append(c)
            c = above[c]
        cols.append(bytes(col))
    return bytes(fnd), bytes(sorted(cells)), cols
