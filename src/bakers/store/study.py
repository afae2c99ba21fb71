"""What studying adds to the database: deals' difficulty ratings, and the
results of a player over time with the help each game had.

Help (hints, the indicator, the solution) is part of a game's saved state
(:class:`bakers.session.Help`), so a result finds its help through its game;
the ratings have a table of their own (``deal_ratings``), part of the
store's versioned schema (:data:`bakers.store.db.MIGRATIONS`).
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .db import _iso, deal_ratings, games, results

RATING_FIELDS = ("game", "cells", "deal", "verdict", "fewest_cells", "fewest_proven",
                 "player_moves", "states", "score", "rating")


class StudyStore:
    """Ratings and results over time, in the store's database."""

    def __init__(self, engine: Engine) -> None:
        """``engine``: a :class:`bakers.store.Store`'s, whose schema is up to date."""
        self.engine = engine

    # --- ratings ---------------------------------------------------------------------------

    def rating(self, game: str, cells: int, deal: int) -> dict[str, Any] | None:
        """The stored rating of a deal, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(deal_ratings).where(
                deal_ratings.c.game == game, deal_ratings.c.cells == cells,
                deal_ratings.c.deal == deal)).first()
        return None if row is None else dict(row._mapping)

    def save_rating(self, rated: dict[str, Any]) -> None:
        """Store a rating (a row of :data:`RATING_FIELDS`); a deal rated twice
        keeps the first."""
        values = {k: rated[k] for k in RATING_FIELDS}
        with self.engine.begin() as conn:
            if conn.execute(sa.select(deal_ratings.c.deal).where(
                    deal_ratings.c.game == values["game"],
                    deal_ratings.c.cells == values["cells"],
                    deal_ratings.c.deal == values["deal"])).first() is not None:
                return
            try:
                with conn.begin_nested():
                    conn.execute(deal_ratings.insert().values(**values))
            except sa.exc.IntegrityError:
                pass  # another request stored it first

    def rated_deals(self, game: str, cells: int, rating: str, limit: int = 1000) -> list[int]:
        """Deals stored with this rating."""
        with self.engine.connect() as conn:
            return [int(r.deal) for r in conn.execute(
                sa.select(deal_ratings.c.deal).where(
                    deal_ratings.c.game == game, deal_ratings.c.cells == cells,
                    deal_ratings.c.rating == rating).limit(limit))]

    # --- results over time ----------------------------------------------------------------------

    def history(self, player_id: str, limit: int = 2000) -> list[dict[str, Any]]:
        """This player's results in the order they finished, each with the
        help its game had."""
        query = (sa.select(results.c.game, results.c.level, results.c.cells, results.c.deal,
                           results.c.won, results.c.seconds, results.c.moves,
                           results.c.score, results.c.finished_at, games.c.state)
                 .join(games, games.c.id == results.c.game_id)
                 .where(results.c.player_id == player_id)
                 .order_by(results.c.id.desc()).limit(limit))
        out: list[dict[str, Any]] = []
        with self.engine.connect() as conn:
            for r in conn.execute(query):
                try:
                    help_ = json.loads(r.state).get("help", {})
                except (ValueError, AttributeError):
                    help_ = {}
                hints = int(help_.get("hints", 0))
                indicator = bool(help_.get("indicator_used", False))
                solution = bool(help_.get("solution", False))
                out.append({"game": r.game, "level": r.level, "cells": r.cells,
                            "deal": r.deal, "won": bool(r.won),
                            "seconds": float(r.seconds), "moves": int(r.moves),
                            "score": int(r.score), "finished_at": _iso(r.finished_at),
                            "hints": hints, "indicator": indicator, "solution": solution,
                            "helped": bool(hints) or indicator or solution})
        out.reverse()
        return out

    @staticmethod
    def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Per game and level: played, won, wins without help, wins with
        help, hints used, games with the indicator on, solutions shown.

        >>> row = {"game": "freecell", "level": "easy", "won": True, "helped": False,
        ...        "hints": 0, "indicator": False, "solution": False}
        >>> StudyStore.summary([row])[0]["won_unaided"]
        1
        """
        groups: dict[tuple[str, str], dict[str, Any]] = {}
        for r in rows:
            g = groups.setdefault((r["game"], r["level"]), {
                "game": r["game"], "level": r["level"], "played": 0, "won": 0,
                "won_unaided": 0, "won_helped": 0, "hints": 0, "indicator_games": 0,
                "solutions": 0})
            g["played"] += 1
            if r["won"]:
                g["won"] += 1
                g["won_helped" if r["helped"] else "won_unaided"] += 1
            g["hints"] += r["hints"]
            g["indicator_games"] += int(r["indicator"])
            g["solutions"] += int(r["solution"])
        return [groups[k] for k in sorted(groups)]


__all__ = ["RATING_FIELDS", "StudyStore", "deal_ratings"]
