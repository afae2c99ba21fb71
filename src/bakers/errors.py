"""Errors a person can read. All subclass ``ValueError`` through ``BakersError``."""

from __future__ import annotations


class BakersError(ValueError):
    """Base of every error bakers raises for bad input."""


class CardError(BakersError):
    """Text that does not name a card."""


class UnknownGameError(BakersError):
    """A game name or variant that bakers does not know."""


class DealError(BakersError):
    """A deal number outside the supported range or not a number."""


class PositionError(BakersError):
    """A board text or position that is malformed or impossible."""


class InvalidMoveError(BakersError):
    """Move notation that does not parse."""


class IllegalMoveError(BakersError):
    """A well-formed move that the position refuses; the message says why."""


class SolverError(BakersError):
    """A request the solver cannot take: an unknown engine, search or line
    kind, a limit that is not finite and positive, or a combination the chosen
    engine does not offer."""
