"""What share of each level's deals can be won, from the project's own
figures: the atlas of deals 1–32,000 of every game and cell count, every
deal resolved by the solver (docs/atlas.md, "Winnable share by game and
cells"). The home page says it beside each level, so a player choosing Hard
Baker's Game knows most of its deals are lost before the first card moves."""

from __future__ import annotations

from typing import Any

from ..games import Game
from ..options import Level

ATLAS_RANGE = "deals 1–32,000"

WINNABLE_SHARE: dict[tuple[str, int], float] = {
    ("freecell", 4): 31_999 / 32_000,
    ("freecell", 3): 31_801 / 32_000,
    ("bakers_game", 4): 24_040 / 32_000,
    ("bakers_game", 3): 9_394 / 32_000,
    ("bakers_dozen", 0): 31_910 / 32_000,
}
"""Winnable deals over resolved deals, per (game, free cells), from the atlas."""


def share_text(share: float) -> str:
    """``0.29356`` → ``"29 % can be won"``; above 99 %: ``"over 99 % can be won"``."""
    percent = share * 100
    if percent >= 99:
        return "over 99 % can be won"
    return f"{percent:.0f} % can be won"


def level_view(game: Game, level: str) -> dict[str, Any]:
    """One level of one game as the home page offers it: its free cells, a
    short note, and the share of its deals that can be won."""
    lv = Level(level)
    cells = lv.cells(game.cells) if game.max_cells else 0
    if lv.winnable:
        share: float | None = 1.0
        note = f"winnable deals rated {'easy' if lv is Level.EASY else 'hardest'}"
    else:
        share = WINNABLE_SHARE.get((game.name, cells))
        note = "random deals" + (f" · {share_text(share)}" if share is not None else "")
    return {"name": lv.value, "label": lv.label, "cells": cells,
            "note": (f"{cells} cells · {note}" if game.max_cells else note),
            "winnable_share": share}


__all__ = ["ATLAS_RANGE", "WINNABLE_SHARE", "level_view", "share_text"]
