"""Notation: moves (``3a``, ``a5``, ``5h``, ``36``) and Freecell Solver
board text (game records, which replay moves on a board, are in
:mod:`bakers.record`).

Places are written as in standard FreeCell notation: columns ``1``–``8``,
free cells ``a``–``d``, foundation ``h``. Extensions, chosen so that no two
places share a letter:

* columns 10–13 (Baker's Dozen) are ``t``, ``j``, ``q``, ``k`` (the ranks
  10, jack, queen, king);
* free cells 5–8 are ``e``, ``f``, ``g``, ``i`` (``h`` stays the foundation);
* a column-to-column move may state its length: ``36/2``. Without it, ``36``
  moves the one length that builds on an occupied column, or the longest run
  that fits into an empty one. Records, move histories and solver lines write
  the length only where bare ``36`` would move another number of cards (see
  :meth:`Board.move_text`), so the 4-cell, 8-column notation stays exactly
  standard and still replays exactly.

>>> Move.from_str("3a"), str(Move.from_str("36/2")), Move.from_str("qk").src.index
(Move.from_str('3a'), '36', 11)
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Iterable, Sequence

from .cards import Card, Suit, rank_from_str, rank_to_str
from .errors import CardError, InvalidMoveError, PositionError

COLUMN_LETTERS = "123456789tjqk"
CELL_LETTERS = "abcdefgi"
FOUNDATION_LETTER = "h"


class PlaceKind(enum.Enum):
    COLUMN = "column"
    CELL = "cell"
    FOUNDATION = "foundation"


@dataclasses.dataclass(frozen=True, order=True)
class Place:
    """A column, a free cell or the foundations (0-based ``index``)."""

    kind: PlaceKind
    index: int = 0

    @classmethod
    def column(cls, index: int) -> Place:
        return cls(PlaceKind.COLUMN, index)

    @classmethod
    def cell(cls, index: int) -> Place:
        return cls(PlaceKind.CELL, index)

    @classmethod
    def foundation(cls) -> Place:
        return cls(PlaceKind.FOUNDATION, 0)

    @classmethod
    def from_str(cls, text: str) -> Place:
        t = text.strip().lower()
        if t == "10":
            return cls.column(9)
        if len(t) == 1:
            if t == FOUNDATION_LETTER:
                return cls.foundation()
            if t in COLUMN_LETTERS:
                return cls.column(COLUMN_LETTERS.index(t))
            if t in CELL_LETTERS:
                return cls.cell(CELL_LETTERS.index(t))
        raise InvalidMoveError(
            f"{text!r} is not a place: columns are 1-9 (t j q k for 10-13), "
            "free cells a-d (e f g i for 5-8), foundation h")

    @property
    def is_column(self) -> bool:
        return self.kind is PlaceKind.COLUMN

    @property
    def is_cell(self) -> bool:
        return self.kind is PlaceKind.CELL

    @property
    def is_foundation(self) -> bool:
        return self.kind is PlaceKind.FOUNDATION

    def __str__(self) -> str:
        if self.kind is PlaceKind.COLUMN:
            return COLUMN_LETTERS[self.index]
        if self.kind is PlaceKind.CELL:
            return CELL_LETTERS[self.index]
        return FOUNDATION_LETTER

    def describe(self) -> str:
        if self.kind is PlaceKind.COLUMN:
            return f"column {self.index + 1}"
        if self.kind is PlaceKind.CELL:
            return f"free cell {CELL_LETTERS[self.index]}"
        return "the foundations"


_MOVE_RE = re.compile(r"^\s*(10|[0-9a-z])\s*(?:-|to|>)?\s*(10|[0-9a-z])\s*(?:/\s*(\d+))?\s*$",
                      re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class Move:
    """A move from ``src`` to ``dst`` of ``count`` cards (``None``: the board
    decides, as standard notation leaves it implied)."""

    src: Place
    dst: Place
    count: int | None = None

    @classmethod
    def from_str(cls, text: str) -> Move:
        """Parse ``3a``, ``a5``, ``5h``, ``36`` or ``36/2``."""
        if not isinstance(text, str) or len(text) > 16:
            raise InvalidMoveError("a move is written like 3a, a5, 5h or 36")
        m = _MOVE_RE.match(text)
        if not m:
            raise InvalidMoveError(
                f"{text!r} is not a move: write source then destination, like 3a, a5, 5h or 36")
        src, dst = Place.from_str(m.group(1)), Place.from_str(m.group(2))
        count = int(m.group(3)) if m.group(3) else None
        if count is not None and not 1 <= count <= 52:
            raise InvalidMoveError(f"{text!r}: a move carries 1 to 52 cards")
        if src.is_foundation:
            raise InvalidMoveError(f"{text!r}: cards on a foundation never come back into play")
        if count is None and not (src.is_column and dst.is_column):
            count = 1  # only column-to-column moves can carry a run
        return cls(src, dst, count)

    @property
    def is_run(self) -> bool:
        return self.count is not None and self.count > 1

    def notation(self, with_count: bool = False) -> str:
        """Standard notation; ``with_count`` appends ``/n`` for runs, and ``/1``
        for a single card from column to column, so the text resolves to this
        move in any position (the explicit form of the API's ``legal_moves``).
        :meth:`Board.move_text` gives the shortest text for one position."""
        base = f"{self.src}{self.dst}"
        if with_count and self.count is not None and (
                self.count > 1 or (self.src.is_column and self.dst.is_column)):
            return f"{base}/{self.count}"
        return base

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Move.from_str({self.notation(with_count=True)!r})"


def format_moves(moves: Iterable[Move], with_count: bool = False) -> str:
    return " ".join(m.notation(with_count) for m in moves)


# --- positions ---------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Position:
    """The cards' places: columns (bottom to exposed), cells, foundation ranks."""

    columns: tuple[tuple[Card, ...], ...]
    cells: tuple[Card | None, ...]
    foundations: tuple[int, int, int, int]

    def cards(self) -> list[Card]:
        out = [c for col in self.columns for c in col]
        out += [c for c in self.cells if c is not None]
        for suit in Suit:
            out += [Card(r, suit) for r in range(1, self.foundations[suit] + 1)]
        return out


FOUNDATION_ORDER = (Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES)


def count_player_moves(moves: Iterable[Move]) -> int:
    """The moves a player makes: every move that does not go to a foundation
    (a run moved at once counts one). Lines are measured in these everywhere
    (the solver's short lines, analysis, ratings, surveys).

    >>> count_player_moves([Move.from_str("3a"), Move.from_str("5h"), Move.from_str("36")])
    2
    """
    return sum(1 for m in moves if not m.dst.is_foundation)


def format_position(pos: Position, unicode: bool = False) -> str:
    """Freecell Solver board text; the bare column lines (as
    ``make-microsoft-freecell-board -t`` prints them) when nothing is home or in
    a cell."""
    def card(c: Card) -> str:
        return c.unicode() if unicode else str(c)

    lines: list[str] = []
    if any(pos.foundations):
        parts = [f"{s.letter}-{rank_to_str(pos.foundations[s]) if pos.foundations[s] else '0'}"
                 for s in FOUNDATION_ORDER]
        lines.append("Foundations: " + " ".join(parts))
    if any(c is not None for c in pos.cells):
        lines.append("Freecells: " + " ".join(card(c) if c else "-" for c in pos.cells))
    colon = any(not col for col in pos.columns)
    for col in pos.columns:
        text = " ".join(card(c) for c in col)
        lines.append((": " + text).rstrip() if colon else text)
    return "\n".join(lines) + "\n"


def parse_position(text: str, columns: int, cells: int) -> Position:
    """Read Freecell Solver board text for a layout of ``columns`` and ``cells``."""
    if len(text) > 20_000:
        raise PositionError("board text is too long to be a position")
    foundations = [0, 0, 0, 0]
    cell_cards: list[Card | None] = []
    cols: list[list[Card]] = []
    seen: dict[Card, str] = {}
    saw_foundations = False

    def take(card: Card, where: str) -> None:
        if card in seen:
            raise PositionError(f"{card.pretty()} appears twice ({seen[card]} and {where})")
        seen[card] = where

    def parse_card(token: str, where: str) -> Card:
        try:
            return Card.from_str(token)
        except CardError as exc:
            raise PositionError(f"{where}: {exc}") from None

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        stripped = line.strip()
        lower = stripped.lower()
        if lower.startswith("foundations:"):
            if saw_foundations:
                raise PositionError(f"line {lineno}: a second Foundations line")
            saw_foundations = True
            for token in stripped.split(":", 1)[1].split():
                m = re.fullmatch(r"([CDHS])-(0|10|[A2-9TJQK])", token, re.IGNORECASE)
                if not m:
                    raise PositionError(
                        f"line {lineno}: foundation {token!r} is not like H-5 or S-0")
                suit = Suit.from_str(m.group(1))
                foundations[suit] = 0 if m.group(2) == "0" else rank_from_str(m.group(2))
            continue
        if lower.startswith("freecells:"):
            for token in stripped.split(":", 1)[1].split():
                if token in ("-", "--"):
                    cell_cards.append(None)
                else:
                    cell_cards.append(parse_card(token, f"line {lineno}"))
            continue
        if not stripped:
            continue  # blank lines separate nothing; an empty column is ':'
        body = stripped[1:] if stripped.startswith(":") else stripped
        cols.append([parse_card(t, f"line {lineno}") for t in body.split()])

    if len(cols) > columns:
        raise PositionError(f"this board has {len(cols)} columns; the game has {columns}")
    if len(cols) == 0:
        raise PositionError("no columns found in the board text")
    while len(cols) < columns:
        cols.append([])
    while cell_cards and len(cell_cards) > cells and cell_cards[-1] is None:
        cell_cards.pop()
    if len(cell_cards) > cells:
        if cells == 0:
            raise PositionError("this game has no free cells, but the board puts cards in them")
        raise PositionError(
            f"the board has {len(cell_cards)} free-cell cards; the game has {cells} cells")
    cell_cards += [None] * (cells - len(cell_cards))

    for i, col in enumerate(cols):
        for c in col:
            take(c, f"column {i + 1}")
    for maybe in cell_cards:
        if maybe is not None:
            take(maybe, "a free cell")
    for suit in Suit:
        for r in range(1, foundations[suit] + 1):
            card = Card(r, suit)
            if card in seen:
                raise PositionError(
                    f"{card.pretty()} is on its foundation ({suit.letter}-"
                    f"{rank_to_str(foundations[suit])}) and also in {seen[card]}")
            seen[card] = "a foundation"
    if len(seen) != 52:
        missing = [c for c in sorted(Card.from_index(i) for i in range(52)) if c not in seen]
        names = " ".join(c.pretty() for c in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        raise PositionError(f"{len(missing)} cards are missing: {names}{more}")
    return Position(tuple(tuple(c) for c in cols), tuple(cell_cards),
                    (foundations[0], foundations[1], foundations[2], foundations[3]))


def parse_moves(text: str | Sequence[str]) -> list[Move]:
    tokens = text.split() if isinstance(text, str) else list(text)
    return [Move.from_str(t) for t in tokens]
