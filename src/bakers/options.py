"""The choices of play, in one place: levels, autoplay settings, the order a
click tries places in, and a game's status.

String enums: each value is the word the API, the store and the page use
(``Level.EASY == "easy"``), so one definition serves all of them.

>>> Level("hard").cells(4), ClickOrder.EMPTY_FIRST.prefer_empty_column
(3, True)
"""

from __future__ import annotations

import enum


class Level(enum.StrEnum):
    """How a game is dealt (SPEC §4): Easy deals only proven-winnable deals
    rated easy, with the game's own cells; Normal random deals; Hard random
    deals with 3 cells; Expert proven-winnable deals rated hardest (the
    rating: :mod:`bakers.solver.study`); ``custom`` (another cell count) and
    ``daily`` are what a game counts under when it was not dealt by a level."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"
    EXPERT = "expert"
    CUSTOM = "custom"
    DAILY = "daily"

    def cells(self, game_cells: int) -> int:
        """Free cells of this level for a game whose own count is ``game_cells``."""
        return 3 if self is Level.HARD else game_cells

    @property
    def winnable(self) -> bool:
        """Whether this level deals only deals the solver proved winnable."""
        return self in (Level.EASY, Level.EXPERT)

    @property
    def rating(self) -> str | None:
        """The rating band this level's deals are drawn from, if any."""
        return {Level.EASY: "easy", Level.EXPERT: "expert"}.get(self)

    @property
    def label(self) -> str:
        return self.value.capitalize()


class Autoplay(enum.StrEnum):
    """What the game plays by itself after a player's move."""

    OFF = "off"
    SAFE = "safe"


class ClickOrder(enum.StrEnum):
    """Where a clicked card goes after its foundation and the columns it
    builds on: a free cell first (seed 002) or an empty column first (seed 004)."""

    CELL_FIRST = "cell_first"
    EMPTY_FIRST = "empty_first"

    @property
    def prefer_empty_column(self) -> bool:
        return self is ClickOrder.EMPTY_FIRST


class Status(enum.StrEnum):
    """Where a game stands."""

    PLAYING = "playing"
    WON = "won"
    BLOCKED = "blocked"
    ABANDONED = "abandoned"


DEAL_LEVELS = (Level.EASY, Level.NORMAL, Level.HARD, Level.EXPERT)
"""The levels a player deals by."""

__all__ = ["DEAL_LEVELS", "Autoplay", "ClickOrder", "Level", "Status"]
