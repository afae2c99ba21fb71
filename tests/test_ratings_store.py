"""Deal ratings in the store's versioned schema: a database made before the
ratings table was part of the migrations gets it (or keeps the one it had)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from bakers.store import Store
from bakers.store.db import MIGRATIONS, SCHEMA_VERSION
from bakers.store.study import StudyStore

RATED = {"game": "bakers_game", "cells": 4, "deal": 617, "verdict": "winnable",
         "fewest_cells": 4, "fewest_proven": True, "player_moves": 50, "states": 241,
         "score": 7.2, "rating": "medium"}


def _back_to_version_2(url: str, *, drop_ratings: bool) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        if drop_ratings:
            conn.execute(sa.text("DROP TABLE deal_ratings"))
        conn.execute(sa.text("UPDATE schema_version SET version = 2"))
    engine.dispose()


def test_the_ratings_table_is_a_numbered_step() -> None:
    assert [v for v, what, _ in MIGRATIONS if "rating" in what] == [3]
    assert SCHEMA_VERSION >= 3
    store = Store("sqlite://")  # a new database gets every table at once
    assert "deal_ratings" in sa.inspect(store.engine).get_table_names()
    assert store.schema_version() == SCHEMA_VERSION
    store.close()


def test_an_upgraded_database_gets_the_ratings_table(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'v2.sqlite3'}"
    Store(url).close()
    _back_to_version_2(url, drop_ratings=True)
    engine = sa.create_engine(url)
    assert "deal_ratings" not in sa.inspect(engine).get_table_names()
    engine.dispose()
    store = Store(url)
    try:
        assert store.schema_version() == SCHEMA_VERSION
        ratings = StudyStore(store.engine)  # no table of its own to make any more
        ratings.save_rating(RATED)
        assert ratings.rating("bakers_game", 4, 617) == RATED
        assert ratings.rated_deals("bakers_game", 4, "medium") == [617]
        indexes = {i["name"] for i in sa.inspect(store.engine).get_indexes("deal_ratings")}
        assert "ix_deal_ratings_band" in indexes
    finally:
        store.close()


def test_a_database_whose_ratings_came_first_keeps_them(tmp_path: Path) -> None:
    """Before the step existed, the table was made by the first StudyStore
    opened on the database: the step keeps it and its rows."""
    url = f"sqlite:///{tmp_path / 'rated.sqlite3'}"
    store = Store(url)
    StudyStore(store.engine).save_rating(RATED)
    store.close()
    _back_to_version_2(url, drop_ratings=False)
    again = Store(url)
    try:
        assert again.schema_version() == SCHEMA_VERSION
        assert StudyStore(again.engine).rating("bakers_game", 4, 617) == RATED
        assert again.migrate() == []
    finally:
        again.close()
