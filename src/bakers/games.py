"""The games of the family as data: each is a small set of rule policies.

Adding a game means adding a ``Game`` value to ``GAMES``; the board, the
solver and the faces read only these fields.

>>> g = find_game("Baker's Game", cells=3)
>>> g.name, g.cells, g.build.value
('bakers_game', 3, 'same_suit')
"""

from __future__ import annotations

import dataclasses
import enum
import functools

from .cards import Card, Suit
from .errors import UnknownGameError


class Build(enum.Enum):
    """How a card may be placed on a column's exposed card (one rank lower)."""

    ALTERNATE_COLOUR = "alternate_colour"
    SAME_SUIT = "same_suit"
    ANY_SUIT = "any_suit"

    def allows(self, card: Card, onto: Card) -> bool:
        return onto in _parents(self)[card]

    def _allows(self, card: Card, onto: Card) -> bool:
        if onto.rank != card.rank + 1:
            return False
        if self is Build.SAME_SUIT:
            return card.suit == onto.suit
        if self is Build.ALTERNATE_COLOUR:
            return card.is_red != onto.is_red
        return True

    def describe(self) -> str:
        return {
            Build.ALTERNATE_COLOUR: "builds down in alternating colours",
            Build.SAME_SUIT: "builds in suit",
            Build.ANY_SUIT: "builds down regardless of suit",
        }[self]


@functools.cache
def _parents(build: Build) -> dict[Card, frozenset[Card]]:
    """Per card, the cards it may be placed on under ``build`` (a table, so
    that the rules engine's hot checks are one lookup)."""
    pack = [Card(rank, suit) for rank in range(1, 14) for suit in Suit]
    return {c: frozenset(p for p in pack if build._allows(c, p)) for c in pack}


class EmptyColumn(enum.Enum):
    """What an empty column accepts."""

    ANY = "any"
    NONE = "none"


class RunMoves(enum.Enum):
    """Whether a built run may move as shorthand for single moves."""

    SUPERMOVE = "supermove"  # up to (F+1)*2^E cards, destination not counted
    SINGLES = "singles"


@dataclasses.dataclass(frozen=True)
class Game:
    """One rule set. ``cells`` is the free-cell count in force for this value."""

    name: str
    title: str
    columns: int
    build: Build
    empty_column: EmptyColumn
    run_moves: RunMoves
    cells: int = 4
    max_cells: int = 8
    kings_to_bottom: bool = False
    levels: tuple[str, ...] = ("easy", "normal", "hard", "expert")

    def column_lengths(self) -> tuple[int, ...]:
        """Cards per column when 52 are dealt cyclically left to right."""
        return tuple(52 // self.columns + (1 if i < 52 % self.columns else 0)
                     for i in range(self.columns))

    def with_cells(self, cells: int) -> Game:
        if not 0 <= cells <= self.max_cells:
            if self.max_cells == 0:
                raise UnknownGameError(f"{self.title} has no free cells")
            raise UnknownGameError(
                f"{self.title} allows 0 to {self.max_cells} free cells, not {cells}")
        return dataclasses.replace(self, cells=cells)

    def builds(self, card: Card, onto: Card) -> bool:
        return onto in _parents(self.build)[card]

    def safe_to_foundation(self, card: Card, foundations: tuple[int, ...]) -> bool:
        """True when no card still in play could ever be built on ``card``.

        The cards that could go on ``card`` are the rank-1 cards the build
        policy admits; once all of them are home ``card`` is never needed in
        the tableau again, so sending it home loses no win.
        """
        need = card.rank - 1
        if need <= 0:
            return True
        if self.build is Build.SAME_SUIT:
            return True  # the only candidate is its own suit's rank-1, already home
        if self.build is Build.ALTERNATE_COLOUR:
            return all(foundations[s] >= need for s in range(4)
                       if (s in (1, 2)) != card.is_red)
        return all(f >= need for f in foundations)


FREECELL = Game(
    name="freecell", title="FreeCell", columns=8,
    build=Build.ALTERNATE_COLOUR, empty_column=EmptyColumn.ANY,
    run_moves=RunMoves.SUPERMOVE,
)
BAKERS_GAME = Game(
    name="bakers_game", title="Baker's Game", columns=8,
    build=Build.SAME_SUIT, empty_column=EmptyColumn.ANY,
    run_moves=RunMoves.SUPERMOVE,
)
BAKERS_DOZEN = Game(
    name="bakers_dozen", title="Baker's Dozen", columns=13,
    build=Build.ANY_SUIT, empty_column=EmptyColumn.NONE,
    run_moves=RunMoves.SINGLES, cells=0, max_cells=0, kings_to_bottom=True,
    levels=("easy", "normal", "expert"),
)

GAMES: dict[str, Game] = {g.name: g for g in (FREECELL, BAKERS_GAME, BAKERS_DOZEN)}


def normalize_name(name: str) -> str:
    key = name.strip().lower().replace("'", "").replace("’", "")
    key = "_".join(key.replace("-", " ").replace("_", " ").split())
    return _ALIASES.get(key, key)


_ALIASES = {"free_cell": "freecell", "baker_game": "bakers_game",
            "bakers_dozens": "bakers_dozen", "baker_dozen": "bakers_dozen"}


def find_game(name: str | Game, cells: int | None = None) -> Game:
    """Look up a game by name (``bakers-game``, ``Baker's Game`` …)."""
    if isinstance(name, Game):
        game = name
    else:
        key = normalize_name(name)
        if key not in GAMES:
            known = ", ".join(GAMES)
            raise UnknownGameError(f"unknown game {name!r}: choose one of {known}")
        game = GAMES[key]
    if cells is not None and cells != game.cells:
        game = game.with_cells(cells)
    return game
