"""The board: a position of one game plus the stack of moves that led there.

>>> board = Board.deal("bakers_game", 1)
>>> len(board.legal_moves) > 0, board.is_won()
(True, False)
>>> move = board.push_str("8a"); board.pop() == move
True
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Iterator

from .cards import Card, Suit
from .deals import deal_columns, parse_deal_number
from .errors import IllegalMoveError, InvalidMoveError
from .games import Build, EmptyColumn, Game, RunMoves, find_game
from .notation import (
    CELL_LETTERS,
    Move,
    Place,
    Position,
    format_position,
    parse_position,
)

PositionKey = tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]


class Target(enum.Enum):
    """A kind of place a clicked card may be sent to (:meth:`Board.find_move`)."""

    FOUNDATION = "foundation"
    BUILD = "build"  # a column whose exposed card it builds on
    CELL = "cell"
    EMPTY_COLUMN = "empty_column"


BEST_PLACE_ORDER = (Target.FOUNDATION, Target.BUILD, Target.CELL, Target.EMPTY_COLUMN)
"""Where a clicked card goes, first place first (seed 002)."""
EMPTY_FIRST_ORDER = (Target.FOUNDATION, Target.BUILD, Target.EMPTY_COLUMN, Target.CELL)
"""Seed 004's order: an empty column before a free cell."""


@dataclasses.dataclass(frozen=True)
class Movement:
    """Cards that went from one place to another in one move, bottom card
    first (a run move is one movement of several cards)."""

    cards: tuple[Card, ...]
    src: Place
    dst: Place

    def reversed(self) -> Movement:
        return Movement(self.cards, self.dst, self.src)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class LegalMoves:
    """The legal moves of a board: iterable, sized, supports ``in``."""

    def __init__(self, board: Board) -> None:
        self._board = board
        self._moves: list[Move] | None = None

    def _list(self) -> list[Move]:
        if self._moves is None:
            self._moves = self._board.generate_legal_moves()
        return self._moves

    def __iter__(self) -> Iterator[Move]:
        return iter(self._list())

    def __len__(self) -> int:
        return len(self._list())

    def __bool__(self) -> bool:
        return bool(self._list())

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, Move):
            return False
        try:
            resolved = self._board.resolve(move)
        except ValueError:
            return False
        return resolved in self._list()

    def __repr__(self) -> str:
        return f"<LegalMoves: {' '.join(m.notation(True) for m in self._list())}>"


class Board:
    """A position of ``game`` with its move stack. Undo restores snapshots."""

    def __init__(self, game: Game | str, position: Position,
                 deal_number: int | None = None) -> None:
        self.game: Game = find_game(game)
        if len(position.columns) != self.game.columns:
            raise ValueError("position has the wrong number of columns for the game")
        if len(position.cells) != self.game.cells:
            raise ValueError("position has the wrong number of cells for the game")
        self.position = position
        self.deal_number = deal_number
        self.move_stack: list[Move] = []
        self._history: list[Position] = []

    # --- construction ------------------------------------------------------

    @classmethod
    def deal(cls, game: Game | str, number: int | str, cells: int | None = None) -> Board:
        """Microsoft-numbered deal ``number`` of ``game``."""
        g = find_game(game, cells)
        n = parse_deal_number(number)
        cols = deal_columns(n, g.columns, g.kings_to_bottom)
        pos = Position(tuple(tuple(c) for c in cols), (None,) * g.cells, (0, 0, 0, 0))
        return cls(g, pos, deal_number=n)

    @classmethod
    def from_text(cls, text: str, game: Game | str = "freecell",
                  cells: int | None = None) -> Board:
        """Board from Freecell Solver board text."""
        g = find_game(game, cells)
        return cls(g, parse_position(text, g.columns, g.cells))

    def to_text(self, unicode: bool = False) -> str:
        return format_position(self.position, unicode=unicode)

    def copy(self, stack: bool = True) -> Board:
        other = Board(self.game, self.position, self.deal_number)
        if stack:
            other.move_stack = list(self.move_stack)
            other._history = list(self._history)
        return other

    def root(self) -> Board:
        """A board at the position before the first move of the stack."""
        pos = self._history[0] if self._history else self.position
        return Board(self.game, pos, self.deal_number)

    # --- queries -------------------------------------------------------------

    @property
    def columns(self) -> tuple[tuple[Card, ...], ...]:
        return self.position.columns

    @property
    def cells(self) -> tuple[Card | None, ...]:
        return self.position.cells

    @property
    def foundations(self) -> tuple[int, int, int, int]:
        return self.position.foundations

    def cards_home(self) -> int:
        return sum(self.position.foundations)

    def is_won(self) -> bool:
        return self.cards_home() == 52

    def is_blocked(self) -> bool:
        """No legal move at all (and not won)."""
        return not self.is_won() and not self.generate_legal_moves()

    @property
    def legal_moves(self) -> LegalMoves:
        return LegalMoves(self)

    def key(self) -> PositionKey:
        """Hashable key in which column order and cell order do not matter."""
        return (tuple(sorted(self.position.columns)),
                tuple(sorted(c for c in self.position.cells if c is not None)))

    def free_cells(self) -> int:
        return sum(1 for c in self.position.cells if c is None)

    def empty_columns(self) -> int:
        return sum(1 for col in self.position.columns if not col)

    def run_capacity(self, to_empty_column: bool) -> int:
        """Longest run that may move: (F+1)·2^E, an empty destination not counted."""
        if self.game.run_moves is RunMoves.SINGLES:
            return 1
        empties = self.empty_columns() - (1 if to_empty_column else 0)
        return (self.free_cells() + 1) << max(empties, 0)

    def run_length(self, column: int) -> int:
        """Cards at the top of ``column`` that form a correctly built run."""
        col = self.position.columns[column]
        if not col:
            return 0
        if self.game.run_moves is RunMoves.SINGLES:
            return 1
        n = 1
        while n < len(col) and self.game.builds(col[-n], col[-n - 1]):
            n += 1
        return n

    # --- moves -----------------------------------------------------------------

    def generate_legal_moves(self) -> list[Move]:
        pos = self.position
        game = self.game
        out: list[Move] = []
        found = pos.foundations
        empty_cells = [i for i, c in enumerate(pos.cells) if c is None]
        can_fill = game.empty_column is EmptyColumn.ANY
        cap_occupied = self.run_capacity(False)
        cap_empty = self.run_capacity(True)
        for si, col in enumerate(pos.columns):
            if not col:
                continue
            src = Place.column(si)
            top = col[-1]
            if found[top.suit] == top.rank - 1:
                out.append(Move(src, Place.foundation(), 1))
            for ci in empty_cells:
                out.append(Move(src, Place.cell(ci), 1))
            run = self.run_length(si)
            for di, dcol in enumerate(pos.columns):
                if di == si:
                    continue
                if dcol:
                    target = dcol[-1]
                    for n in range(1, min(run, cap_occupied) + 1):
                        if game.builds(col[-n], target):
                            out.append(Move(src, Place.column(di), n))
                            break
                elif can_fill:
                    for n in range(1, min(run, cap_empty) + 1):
                        out.append(Move(src, Place.column(di), n))
        for ci, card in enumerate(pos.cells):
            if card is None:
                continue
            src = Place.cell(ci)
            if found[card.suit] == card.rank - 1:
                out.append(Move(src, Place.foundation(), 1))
            for di, dcol in enumerate(pos.columns):
                if dcol:
                    if game.builds(card, dcol[-1]):
                        out.append(Move(src, Place.column(di), 1))
                elif can_fill:
                    out.append(Move(src, Place.column(di), 1))
        return out

    def _check_place(self, place: Place) -> None:
        if place.is_column and not 0 <= place.index < self.game.columns:
            raise IllegalMoveError(
                f"there is no column {place.index + 1}: {self.game.title} has "
                f"{self.game.columns} columns")
        if place.is_cell and not 0 <= place.index < self.game.cells:
            if self.game.cells == 0:
                raise IllegalMoveError(f"{self.game.title} has no free cells here")
            last = CELL_LETTERS[self.game.cells - 1]
            raise IllegalMoveError(
                f"there is no free cell {CELL_LETTERS[place.index]}: this game has "
                f"{_plural(self.game.cells, 'free cell')} (a-{last})")

    def _why_not_builds(self, card: Card, onto: Card) -> str:
        game = self.game
        if onto.rank == 1:
            return f"{card.pretty()} cannot go on {onto.pretty()}: nothing is built on an ace"
        if onto.rank != card.rank + 1:
            return (f"{card.pretty()} cannot go on {onto.pretty()}: columns build down "
                    "one rank at a time")
        return f"{card.pretty()} cannot go on {onto.pretty()}: {game.title} {game.build.describe()}"

    def _capacity_message(self, count: int, to_empty: bool) -> str:
        cells = self.free_cells()
        empties = self.empty_columns() - (1 if to_empty else 0)
        cap = self.run_capacity(to_empty)
        where = " into an empty column" if to_empty else ""
        return (f"this run has {count} cards; with {_plural(cells, 'free cell')} and "
                f"{_plural(max(empties, 0), 'empty column')} you can move {cap}{where}")

    def resolve(self, move: Move) -> Move:
        """Check ``move`` and return it with its card count filled in.

        Raises ``IllegalMoveError`` with the reason when the position refuses it.
        """
        game = self.game
        pos = self.position
        src, dst = move.src, move.dst
        if src.is_foundation:
            raise IllegalMoveError("cards on a foundation never come back into play")
        self._check_place(src)
        self._check_place(dst)
        if src == dst:
            raise IllegalMoveError("a card cannot move onto its own place")
        if src.is_cell:
            card = pos.cells[src.index]
            if card is None:
                raise IllegalMoveError(f"{src.describe()} is empty")
            if move.count not in (None, 1):
                raise IllegalMoveError("a free cell holds a single card")
            if dst.is_cell:
                raise IllegalMoveError(
                    "a card in a free cell goes to a column or its foundation, "
                    "not to another cell")
            moved: tuple[Card, ...] = (card,)
        else:
            col = pos.columns[src.index]
            if not col:
                raise IllegalMoveError(f"{src.describe()} is empty")
            count = move.count
            if count is None:
                count = self._implied_count(src.index, dst)
            if count < 1:
                raise IllegalMoveError("a move carries at least one card")
            if count > 1 and game.run_moves is RunMoves.SINGLES:
                raise IllegalMoveError(f"{game.title} moves single exposed cards only")
            if count > len(col):
                raise IllegalMoveError(
                    f"{src.describe()} has only {_plural(len(col), 'card')}")
            if count > self.run_length(src.index):
                raise IllegalMoveError(
                    f"the top {count} cards of {src.describe()} are not a run: "
                    f"{game.title} {game.build.describe()}")
            moved = col[len(col) - count:]
        card = moved[0]
        n = len(moved)
        if dst.is_foundation:
            if n > 1:
                raise IllegalMoveError("cards go to a foundation one at a time")
            have = pos.foundations[card.suit]
            if have != card.rank - 1:
                if card.rank <= have:
                    raise IllegalMoveError(f"{card.pretty()} is already on its foundation")
                need = Card(have + 1, card.suit)
                raise IllegalMoveError(
                    f"{card.pretty()} cannot go to its foundation yet: it needs "
                    f"{need.pretty()} first")
        elif dst.is_cell:
            if game.cells == 0:
                raise IllegalMoveError(f"{game.title} has no free cells")
            if n > 1:
                raise IllegalMoveError("a free cell holds exactly one card")
            if pos.cells[dst.index] is not None:
                raise IllegalMoveError(f"{dst.describe()} is taken")
        else:
            dcol = pos.columns[dst.index]
            if dcol:
                if not game.builds(card, dcol[-1]):
                    raise IllegalMoveError(self._why_not_builds(card, dcol[-1]))
                if n > self.run_capacity(False):
                    raise IllegalMoveError(self._capacity_message(n, False))
            else:
                if game.empty_column is EmptyColumn.NONE:
                    raise IllegalMoveError(
                        f"empty columns cannot be refilled in {game.title}")
                if n > self.run_capacity(True):
                    raise IllegalMoveError(self._capacity_message(n, True))
        return Move(src, dst, n)

    def longest_part(self, move: Move) -> tuple[Move, str] | None:
        """For a run too long for the empty column it goes to: the move of its
        longest part that may go there, and the sentence that says so
        ("Moved 4 of 6 cards: with 1 free cell and 1 empty column you can
        move 4 into an empty column"). ``None`` for any other move, legal or
        refused for another reason (an occupied column keeps its refusal).
        """
        src, dst, count = move.src, move.dst, move.count
        game = self.game
        if (count is None or count < 2 or not src.is_column or not dst.is_column
                or src == dst or game.empty_column is EmptyColumn.NONE
                or game.run_moves is RunMoves.SINGLES):
            return None
        if not (0 <= src.index < game.columns and 0 <= dst.index < game.columns):
            return None
        if self.position.columns[dst.index] or count > self.run_length(src.index):
            return None
        cap = self.run_capacity(True)
        if not 1 <= cap < count:
            return None
        part = self.resolve(Move(src, dst, cap))
        cells = self.free_cells()
        empties = max(self.empty_columns() - 1, 0)
        why = (f"Moved {cap} of {count} cards: with {_plural(cells, 'free cell')} and "
               f"{_plural(empties, 'empty column')} you can move {cap} into an empty column")
        return part, why

    def _implied_count(self, column: int, dst: Place) -> int:
        """Cards that standard notation ``36`` moves: the one length that builds
        on an occupied column, or the longest movable run into an empty one."""
        col = self.position.columns[column]
        run = self.run_length(column)
        if not dst.is_column or not 0 <= dst.index < self.game.columns:
            return 1
        dcol = self.position.columns[dst.index]
        if dcol:
            for n in range(1, run + 1):
                if self.game.builds(col[-n], dcol[-1]):
                    return n
            return 1
        return max(1, min(run, self.run_capacity(True)))

    def move_text(self, move: Move) -> str:
        """The shortest notation that plays exactly ``move`` from this position.

        Standard ``36`` (one card or a run), ``3a``, ``a5``, ``5h``; the length
        is written (``36/2``, ``36/1``) only when bare ``36`` would move another
        number of cards: into an empty column, fewer than the longest movable
        run. Raises ``IllegalMoveError`` if ``move`` is not legal here.

        >>> board = Board.from_text("Foundations: H-J C-K D-K S-Q\\nKS QH\\n:\\nKH\\n")
        >>> board.move_text(Move.from_str("12/2")), board.move_text(Move.from_str("12/1"))
        ('12', '12/1')
        """
        move = self.resolve(move)
        try:
            bare = self.resolve(Move(move.src, move.dst, None))
        except IllegalMoveError:
            bare = None
        return move.notation(with_count=bare != move)

    def line_text(self, moves: Iterable[Move]) -> list[str]:
        """:meth:`move_text` of each of ``moves`` played in turn from this
        position (on a copy: this board does not change)."""
        board = self.copy(stack=False)
        out: list[str] = []
        for move in moves:
            out.append(board.move_text(move))
            board.push(move)
        return out

    def parse_move(self, text: str) -> Move:
        """Parse notation and check it here; the result has its count."""
        return self.resolve(Move.from_str(text))

    def push(self, move: Move) -> Move:
        """Play ``move`` (checked) and return it with its count."""
        move = self.resolve(move)
        self._history.append(self.position)
        self.move_stack.append(move)
        self.position = self._apply(move)
        return move

    def push_str(self, text: str) -> Move:
        return self.push(Move.from_str(text))

    def pop(self) -> Move:
        """Take back the last move, restoring the exact earlier position."""
        if not self.move_stack:
            raise IndexError("no move to take back")
        self.position = self._history.pop()
        return self.move_stack.pop()

    def _apply(self, move: Move) -> Position:
        pos = self.position
        cols = list(pos.columns)
        cells = list(pos.cells)
        found = list(pos.foundations)
        n = move.count or 1
        if move.src.is_cell:
            card = cells[move.src.index]
            assert card is not None
            moved: tuple[Card, ...] = (card,)
            cells[move.src.index] = None
        else:
            col = cols[move.src.index]
            moved = col[len(col) - n:]
            cols[move.src.index] = col[:len(col) - n]
        if move.dst.is_foundation:
            found[moved[0].suit] += 1
        elif move.dst.is_cell:
            cells[move.dst.index] = moved[0]
        else:
            cols[move.dst.index] = cols[move.dst.index] + moved
        return Position(tuple(cols), tuple(cells), (found[0], found[1], found[2], found[3]))

    def movements(self, moves: Iterable[Move]) -> list[Movement]:
        """The cards each of ``moves`` carries, played in turn from this
        position (on a copy: this board does not change).

        >>> board = Board.deal("bakers_game", 617)
        >>> [m.cards for m in board.movements([Move.from_str("1a")])]
        [(Card.from_str('JD'),)]
        """
        board = self.copy(stack=False)
        out: list[Movement] = []
        for move in moves:
            out.append(board.movement(move))
            board.push(move)
        return out

    def movement(self, move: Move) -> Movement:
        """The cards ``move`` carries from this position, bottom card first.

        :raises IllegalMoveError: if ``move`` is not legal here
        """
        move = self.resolve(move)
        if move.src.is_column:
            cards = self.position.columns[move.src.index][-(move.count or 1):]
        else:
            card = self.position.cells[move.src.index]
            assert card is not None
            cards = (card,)
        return Movement(tuple(cards), move.src, move.dst)

    def find_move(self, source: Place | str, count: int = 1,
                  prefer_empty_column: bool = False) -> Move:
        """The move a click on the card at ``source`` makes: that card, with
        the run of ``count`` cards from it when ``count`` > 1, to its best place.

        The places are tried in :data:`BEST_PLACE_ORDER` (foundation, a column
        where it builds, a free cell, an empty column), or
        :data:`EMPTY_FIRST_ORDER` with ``prefer_empty_column``. A run goes only
        onto a column; a whole column never moves into an empty one (that
        gives the same position back).

        >>> board = Board.from_text("Foundations: H-J C-K D-K S-Q\\nKH KS QH\\n:\\n")
        >>> board.find_move("1"), board.find_move("1", 2)
        (Move.from_str('1h'), Move.from_str('12/2'))

        :raises InvalidMoveError: ``count`` is not 1 to 52
        :raises IllegalMoveError: the place is empty or not there, the cards
            are not a run, or nothing can take them (the first reason a run
            was refused, else "… has nowhere to go")
        """
        game = self.game
        src = Place.from_str(source) if isinstance(source, str) else source
        if src.is_foundation:
            raise IllegalMoveError("cards on a foundation never come back into play")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 52:
            raise InvalidMoveError("count is the number of cards to move: 1 to 52")
        self._check_place(src)
        card: Card | None
        if src.is_cell:
            card = self.cells[src.index]
            if card is None:
                raise IllegalMoveError(f"{src.describe()} is empty")
            if count != 1:
                raise IllegalMoveError("a free cell holds a single card")
            whole_column = False
        else:
            col = self.columns[src.index]
            if not col:
                raise IllegalMoveError(f"{src.describe()} is empty")
            if count > 1 and game.run_moves is RunMoves.SINGLES:
                raise IllegalMoveError(f"{game.title} moves single exposed cards only")
            if count > len(col):
                raise IllegalMoveError(f"{src.describe()} has only {len(col)} cards")
            if count > self.run_length(src.index):
                raise IllegalMoveError(
                    f"the top {count} cards of {src.describe()} are not a run: "
                    f"{game.title} {game.build.describe()}")
            card = col[-count]
            whole_column = count == len(col)
        candidates: dict[Target, list[Move]] = {t: [] for t in Target}
        if count == 1:
            candidates[Target.FOUNDATION].append(Move(src, Place.foundation(), 1))
        for i, dcol in enumerate(self.columns):
            if src.is_column and i == src.index:
                continue
            if dcol:
                if game.builds(card, dcol[-1]):
                    candidates[Target.BUILD].append(Move(src, Place.column(i), count))
            elif (game.empty_column is EmptyColumn.ANY and not whole_column
                  and not candidates[Target.EMPTY_COLUMN]):
                candidates[Target.EMPTY_COLUMN].append(Move(src, Place.column(i), count))
        if count == 1 and src.is_column:
            free = [i for i, c in enumerate(self.cells) if c is None]
            candidates[Target.CELL] = [Move(src, Place.cell(free[0]), 1)] if free else []
        order = EMPTY_FIRST_ORDER if prefer_empty_column else BEST_PLACE_ORDER
        first_error: IllegalMoveError | None = None
        for target in order:
            for move in candidates[target]:
                try:
                    return self.resolve(move)
                except IllegalMoveError as exc:
                    if first_error is None and target is not Target.FOUNDATION:
                        first_error = exc
        if count > 1 and first_error is not None:
            raise first_error
        what = card.pretty() if count == 1 else f"the run from {card.pretty()}"
        raise IllegalMoveError(f"{what} has nowhere to go")

    def finishing_moves(self) -> list[Move] | None:
        """The foundation moves that win from here, or ``None`` when some card
        cannot go home by foundation moves alone."""
        # fast refusal: a card above a lower card of its own suit can never go first
        for col in self.columns:
            low = [14, 14, 14, 14]
            for c in col:
                if c.rank > low[c.suit]:
                    return None
                low[c.suit] = c.rank
        trial = self.copy(stack=False)
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

    def safe_autoplay_moves(self) -> list[Move]:
        """Foundation moves available now that can never cost a win."""
        out: list[Move] = []
        found = self.position.foundations
        tops: list[tuple[Place, Card | None]] = [
            (Place.column(i), col[-1] if col else None)
            for i, col in enumerate(self.position.columns)]
        tops += [(Place.cell(i), c) for i, c in enumerate(self.position.cells)]
        for place, card in tops:
            if (card is not None and found[card.suit] == card.rank - 1
                    and self.game.safe_to_foundation(card, found)):
                out.append(Move(place, Place.foundation(), 1))
        return out

    def autoplay(self, safe: bool = True, finish: bool = False) -> list[Move]:
        """The moves the game makes by itself, pushed and returned: safe
        foundation moves until none is left (with ``safe``); then, with
        ``finish``, when every remaining card can go home by foundation moves
        alone, all of them (auto-finish)."""
        done: list[Move] = []
        while safe:
            moves = self.safe_autoplay_moves()
            if not moves:
                break
            done.append(self.push(moves[0]))
        if finish:
            for move in self.finishing_moves() or []:
                done.append(self.push(move))
        return done

    def expand(self, move: Move) -> list[Move]:
        """The single-card moves that realise ``move`` through spare cells and
        empty columns (a single move expands to itself)."""
        move = self.resolve(move)
        n = move.count or 1
        if n == 1:
            return [move]
        pos = self.position
        cells = [i for i, c in enumerate(pos.cells) if c is None]
        empties = [i for i, col in enumerate(pos.columns) if not col and i != move.dst.index]
        out = run_moves(n, move.src.index, move.dst.index, cells, empties)
        check = self.copy(stack=False)
        for single in out:
            check.push(single)
        if check.position != self._apply(move):
            raise AssertionError("run expansion did not reproduce the run move")
        return out

    def describe_move(self, move: Move) -> str:
        """'7♥ from column 3 to free cell a' — for announcements."""
        move = self.resolve(move)
        n = move.count or 1
        if move.src.is_cell:
            card = self.position.cells[move.src.index]
        else:
            col = self.position.columns[move.src.index]
            card = col[len(col) - n]
        assert card is not None
        what = card.pretty() if n == 1 else f"{n} cards from {card.pretty()}"
        return f"{what} from {move.src.describe()} to {move.dst.describe()}"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Board) and self.game == other.game
                and self.position == other.position)

    def __hash__(self) -> int:
        return hash(self.position)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Board.from_text({self.to_text()!r}, game={self.game.name!r})"




def run_moves(n: int, src: int, dst: int, cells: list[int], empties: list[int]) -> list[Move]:
    """The single-card moves that carry the top ``n`` cards of column ``src``
    onto column ``dst`` through the free cells ``cells`` and the empty columns
    ``empties`` (indices): the standard recursion, which parks the upper part
    of the run in an empty column, moves the rest, and brings it back. The
    one expansion of a run move: the rules engine's and the solver's.

    >>> [m.notation() for m in run_moves(3, 0, 1, [0], [2])]
    ['1a', '13', 'a3', '12', '3a', '32', 'a2']
    """
    out: list[Move] = []

    def carry(n: int, src: int, dst: int, empties: list[int]) -> None:
        if n <= len(cells) + 1:
            used = cells[: n - 1]
            for ci in used:
                out.append(Move(Place.column(src), Place.cell(ci), 1))
            out.append(Move(Place.column(src), Place.column(dst), 1))
            for ci in reversed(used):
                out.append(Move(Place.cell(ci), Place.column(dst), 1))
            return
        spare, rest = empties[0], empties[1:]
        part = min((len(cells) + 1) * 2 ** len(rest), n - 1)
        carry(part, src, spare, rest)
        carry(n - part, src, dst, rest)
        carry(part, spare, dst, rest)

    carry(n, src, dst, empties)
    return out


__all__ = ["Board", "Build", "LegalMoves", "Suit", "run_moves"]
