"""Cards, suits and ranks: parsing and formatting ("7H", "7♥", "10H").

A card is a small immutable value. ``Card.index`` numbers the pack 0..51 in the
Microsoft order (rank-major, suits clubs, diamonds, hearts, spades), which the
deal generator and the solver's compact states rely on.

>>> Card.from_str("7h")
Card.from_str('7H')
>>> str(Card.from_str("10♥")), Card.from_str("TD").unicode()
('TH', 'T♦')
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from .errors import CardError


class Suit(enum.IntEnum):
    """The four suits, in Microsoft FreeCell order."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @property
    def label(self) -> str:
        return ("clubs", "diamonds", "hearts", "spades")[self]

    @classmethod
    def from_str(cls, text: str) -> Suit:
        key = text.strip().upper()
        for suit in cls:
            if key in (suit.letter, suit.symbol, suit.label.upper()):
                return suit
        # white-suit symbols are common in copied text
        white = {"♧": cls.CLUBS, "♢": cls.DIAMONDS, "♡": cls.HEARTS, "♤": cls.SPADES}
        if key in white:
            return white[key]
        raise CardError(f"unknown suit {text!r}: use C, D, H or S")


RANK_LETTERS = "A23456789TJQK"
RANK_LABELS = (
    "ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king",
)


def rank_from_str(text: str) -> int:
    """Rank 1..13 from ``A 2-9 T 10 J Q K`` (``0`` means none, for foundations)."""
    key = text.strip().upper()
    if key == "10":
        return 10
    if len(key) == 1 and key in RANK_LETTERS:
        return RANK_LETTERS.index(key) + 1
    raise CardError(f"unknown rank {text!r}: use A, 2-9, T (or 10), J, Q or K")


def rank_to_str(rank: int) -> str:
    return RANK_LETTERS[rank - 1]


class Card(NamedTuple):
    """One card: ``rank`` 1 (ace) to 13 (king) and a ``suit``."""

    rank: int
    suit: Suit

    @classmethod
    def from_str(cls, text: str) -> Card:
        """Parse ``7H``, ``7h``, ``7♥``, ``10H`` or ``TH``."""
        t = text.strip()
        if len(t) < 2:
            raise CardError(f"{text!r} is not a card: write rank then suit, e.g. 7H")
        return cls(rank_from_str(t[:-1]), Suit.from_str(t[-1]))

    @classmethod
    def from_index(cls, index: int) -> Card:
        if not 0 <= index < 52:
            raise CardError(f"card number {index} is not in 0-51")
        return _PACK[index]

    @property
    def index(self) -> int:  # type: ignore[override]  # pack number, not tuple.index
        return (self.rank - 1) * 4 + self.suit

    @property
    def is_red(self) -> bool:
        return self.suit.is_red

    def unicode(self) -> str:
        return rank_to_str(self.rank) + self.suit.symbol

    def pretty(self) -> str:
        """``7♥`` with ``10`` spelt out, for messages a player reads."""
        return ("10" if self.rank == 10 else rank_to_str(self.rank)) + self.suit.symbol

    def label(self) -> str:
        """Accessible name: ``7 of hearts``."""
        return f"{RANK_LABELS[self.rank - 1]} of {self.suit.label}"

    def __str__(self) -> str:
        return rank_to_str(self.rank) + self.suit.letter

    def __repr__(self) -> str:
        return f"Card.from_str({str(self)!r})"


_PACK: tuple[Card, ...] = tuple(Card(i // 4 + 1, Suit(i % 4)) for i in range(52))


def full_pack() -> tuple[Card, ...]:
    """The 52 cards in index order."""
    return _PACK
