"""Numbered deals: the Microsoft FreeCell shuffle (1 to 8,589,934,591, as
FreeCell Pro and ``make-microsoft-freecell-board`` number them), Baker's Dozen
dealing, random and daily deal numbers.

Baker's Game deal N has FreeCell deal N's layout. Baker's Dozen deal N takes
the same shuffled order, deals it cyclically into 13 columns of 4, then within
each column moves every king beneath the non-kings, keeping the others' order.

>>> [str(c) for c in deal_columns(1, 8)[0]]
['JD', 'KD', '2S', '4C', '3S', '6D', '6S']
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import secrets

from .cards import Card
from .errors import DealError

MIN_DEAL = 1
MAX_DEAL = 8_589_934_591  # 2**33 - 1, the FreeCell Pro range


def parse_deal_number(value: str | int) -> int:
    """Check a deal number given as text or int."""
    if isinstance(value, bool):
        raise DealError("a deal number must be a whole number")
    if isinstance(value, str):
        text = value.strip().replace(",", "").replace("_", "").lstrip("#")
        if not (text.isascii() and text.isdigit()):
            raise DealError(f"deal number {value!r} is not a whole number")
        if len(text.lstrip("0")) > len(str(MAX_DEAL)):
            raise DealError(f"deal number {text[:12]}… is out of range: use 1 to {MAX_DEAL:,}")
        number = int(text)
    else:
        number = int(value)
    if not MIN_DEAL <= number <= MAX_DEAL:
        raise DealError(
            f"deal number {number} is out of range: use 1 to {MAX_DEAL:,}")
    return number


def _random_stream(deal: int) -> list[int]:
    """The 52 random numbers the Microsoft shuffle draws for ``deal``."""
    out: list[int] = []
    if deal < 0x1_0000_0000:
        seed = deal
        high = 0x8000 if deal >= 0x8000_0000 else 0
        for _ in range(52):
            seed = (seed * 214013 + 2531011) & 0xFFFF_FFFF
            out.append(((seed >> 16) & 0x7FFF) | high)
    else:
        seed = deal - 0x1_0000_0000
        for _ in range(52):
            seed = (seed * 214013 + 2531011) & 0xFFFF_FFFF
            out.append(((seed >> 16) & 0xFFFF) + 1)
    return out


def shuffled_indices(deal: int) -> list[int]:
    """The pack in dealing order for Microsoft deal ``deal``, as card
    indices (:attr:`Card.index`)."""
    deal = parse_deal_number(deal)
    cards = list(range(52))
    left = 52
    order: list[int] = []
    for r in _random_stream(deal):
        j = r % left
        order.append(cards[j])
        left -= 1
        cards[j] = cards[left]
    return order


def shuffled_pack(deal: int) -> list[Card]:
    """The pack in dealing order for Microsoft deal ``deal``."""
    return list(map(Card.from_index, shuffled_indices(deal)))


_KINGS = frozenset(i for i in range(52) if Card.from_index(i).rank == 13)


def deal_column_indices(deal: int, columns: int, kings_to_bottom: bool = False
                        ) -> list[list[int]]:
    """:func:`deal_columns` as card indices (:attr:`Card.index`)."""
    pack = shuffled_indices(deal)
    cols = [pack[i::columns] for i in range(columns)]
    if kings_to_bottom:
        cols = [[c for c in col if c in _KINGS] + [c for c in col if c not in _KINGS]
                for col in cols]
    return cols


def deal_columns(deal: int, columns: int, kings_to_bottom: bool = False
                 ) -> list[list[Card]]:
    """Columns (bottom card first) for deal ``deal`` dealt cyclically."""
    return [list(map(Card.from_index, col))
            for col in deal_column_indices(deal, columns, kings_to_bottom)]


def random_deal_number() -> int:
    """A fresh deal number from the operating system's random source."""
    return MIN_DEAL + secrets.randbelow(MAX_DEAL - MIN_DEAL + 1)


def daily_candidates(date: _dt.date, game: str, count: int = 50) -> list[int]:
    """Deal numbers to try, in order, for the daily deal of ``date``.

    The same for every player: derived from the ISO date and the game name.
    The first one the solver proves winnable is the daily deal.
    """
    out: list[int] = []
    for i in range(count):
        digest = hashlib.sha256(f"bakers:{game}:{date.isoformat()}:{i}".encode()).digest()
        out.append(1 + int.from_bytes(digest[:8], "big") % 1_000_000)
    return out


def today_utc() -> _dt.date:
    return _dt.datetime.now(_dt.UTC).date()
