"""Persistence: games saved after every move, results, statistics, daily deals.

Runs on a real SQLite file, and on PostgreSQL too when ``BAKERS_TEST_PG_URL``
is set (scripts/test.sh starts a throwaway cluster and sets it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from bakers import Board
from bakers.session import FakeClock, Session
from bakers.store import GameNotFoundError, Store, StoreConflictError, normalize_db_url
from bakers.store.db import compute_stats, new_game_id

# "34" changes nothing much; then "1a" lets every card go home by itself
WIN_IN_TWO = """Foundations: H-J C-K D-Q S-J
QS KH
QH KS
KD
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'bakers.sqlite3'}"
    url: str = request.getfixturevalue("pg_db_url")
    return url


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def new_session(clock: FakeClock, deal: int = 617, **kw: object) -> Session:
    return Session(Board.deal("bakers_game", deal), clock=clock, **kw)  # type: ignore[arg-type]


def winning_session(clock: FakeClock, level: str = "normal") -> Session:
    return Session(Board.from_text(WIN_IN_TWO, "bakers_game"), clock=clock, level=level)


def test_normalize_db_url() -> None:
    assert normalize_db_url("postgresql://u:p@h:5/db") == "postgresql+psycopg://u:p@h:5/db"
    assert normalize_db_url("postgres://h/db") == "postgresql+psycopg://h/db"
    assert normalize_db_url("postgresql+psycopg://h/db") == "postgresql+psycopg://h/db"
    assert normalize_db_url("sqlite:///x.db") == "sqlite:///x.db"
    assert normalize_db_url("~/x.sqlite3").startswith("sqlite:////")


def test_schema_is_created_in_a_new_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "bakers.sqlite3"
    store = Store(f"sqlite:///{path}")
    assert path.exists()
    names = set(sa.inspect(store.engine).get_table_names())
    assert {"players", "games", "results", "daily_deals"} <= names
    store.close()


def test_default_url_is_in_the_user_data_dir(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    import platformdirs
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name: str(tmp_path / name))
    store = Store()
    assert store.url == f"sqlite:///{tmp_path / 'bakers' / 'bakers.sqlite3'}"
    store.close()


def test_save_and_continue_after_restart(db_url: str, clock: FakeClock) -> None:
    """A new Store on the same database (a restarted server) continues the
    game with its undo and redo history."""
    store = Store(db_url, clock=clock)
    s = new_session(clock)
    game_id = store.create_game(s, "player-one")
    loaded = store.load(game_id)
    for move in ("5a", "8b", "7c"):
        loaded.session.play(move)
        store.save(loaded)
    loaded.session.undo()
    store.save(loaded)
    clock.advance(20)
    position = loaded.session.board.position
    moves = loaded.session.moves
    store.close()

    again = Store(db_url, clock=clock)
    back = again.load(game_id)
    assert back.session.board.position == position
    assert back.session.moves == moves
    assert back.session.can_redo
    assert back.session.moves_count == 4
    back.session.undo()
    back.session.undo()
    assert back.session.board.position == Board.deal("bakers_game", 617).position
    again.save(back)
    again.close()


def test_unknown_game(db_url: str) -> None:
    store = Store(db_url)
    with pytest.raises(GameNotFoundError):
        store.load("nope")
    with pytest.raises(GameNotFoundError):
        store.load("x" * 500)
    store.close()


def test_conflicting_saves_are_refused(db_url: str, clock: FakeClock) -> None:
    one = Store(db_url, clock=clock)
    two = Store(db_url, clock=clock)
    game_id = one.create_game(new_session(clock), "p")
    a = one.load(game_id)
    b = two.load(game_id)
    a.session.play("5a")
    one.save(a)
    b.session.play("8a")
    with pytest.raises(StoreConflictError):
        two.save(b)
    # the refused change is forgotten; the saved one is what both now see
    assert two.load(game_id).session.moves == ["5a"]
    one.close()
    two.close()


def test_results_and_stats(db_url: str, clock: FakeClock) -> None:
    store = Store(db_url, clock=clock)
    player = "stats-player"
    # win, win, loss (abandoned), win — at the normal level
    for outcome in ("won", "won", "lost", "won"):
        if outcome == "won":
            s = winning_session(clock)
            game_id = store.create_game(s, player)
            loaded = store.load(game_id)
            loaded.session.play("34")
            for _ in range(6):  # 30 s with the page open: it says so every 5 s
                clock.advance(5)
                loaded.session.touch()
            loaded.session.play("1a")
            store.save(loaded)
        else:
            game_id = store.create_game(new_session(clock), player)
            loaded = store.load(game_id)
            loaded.session.play("5a")
            store.save(loaded)
            assert store.abandon(game_id, player) is not None
    [stats] = store.stats(player, "bakers_game", "normal")
    assert (stats.played, stats.won, stats.lost) == (4, 3, 1)
    assert stats.win_rate == 0.75
    assert (stats.current_streak, stats.best_streak) == (1, 2)
    assert stats.best_time == 30.0
    assert stats.fewest_moves == 2
    # K♦ went home by autoplay at 0 s (+10), lost to the 30 s penalty; then 4 cards
    assert stats.best_score == 40 + 600_000 // 30
    d = stats.to_dict()
    assert set(d) >= {"game", "level", "played", "won", "lost", "win_rate", "current_streak",
                      "best_streak", "best_time", "fewest_moves", "best_score"}
    # other players and levels are separate
    assert store.stats("someone-else") == []
    [empty] = store.stats(player, "bakers_game", "hard")
    assert empty.played == 0 and empty.best_time is None
    store.close()


def test_abandoning_twice_counts_once(db_url: str, clock: FakeClock) -> None:
    store = Store(db_url, clock=clock)
    game_id = store.create_game(new_session(clock), "p")
    loaded = store.load(game_id)
    loaded.session.play("5a")
    store.save(loaded)
    assert store.abandon(game_id) is not None
    assert store.abandon(game_id) is None
    [stats] = store.stats("p")
    assert stats.played == 1 and stats.lost == 1
    with pytest.raises(GameNotFoundError):
        store.abandon(game_id, player_id="intruder")
    store.close()


def test_list_unfinished_games(db_url: str, clock: FakeClock) -> None:
    store = Store(db_url, clock=clock)
    first = store.create_game(new_session(clock, 1), "lister")
    second = store.create_game(new_session(clock, 2), "lister")
    done = store.create_game(new_session(clock, 3), "lister")
    store.abandon(done)
    listed = [g.id for g in store.list_games("lister")]
    assert set(listed) == {first, second}
    assert store.list_games("lister")[0].session.deal in (1, 2)
    assert len(store.list_games("lister", unfinished=False)) == 3
    store.close()


def test_unplayed_and_practice_games_are_not_counted(db_url: str, clock: FakeClock) -> None:
    """Abandoning a deal without a move is no loss; practice games stay out
    of the statistics and of "Continue" (but not of the list of all games)."""
    store = Store(db_url, clock=clock)
    untouched = store.create_game(new_session(clock, 1), "p")
    assert store.abandon(untouched, "p") is not None
    assert store.load(untouched).status == "abandoned"
    practice = store.create_game(new_session(clock, 2, practice=True), "p")
    loaded = store.load(practice)
    loaded.session.play("5a")
    store.save(loaded)
    assert store.list_games("p") == []
    listed = store.list_games("p", unfinished=False)
    assert {g.id: g.session.practice for g in listed} == {untouched: False, practice: True}
    store.abandon(practice)
    won = store.create_game(winning_session(clock), "p")
    won_practice = store.create_game(
        Session(Board.from_text(WIN_IN_TWO, "bakers_game"), clock=clock, practice=True), "p")
    for game_id in (won, won_practice):
        loaded = store.load(game_id)
        loaded.session.play("34")
        loaded.session.play("1a")
        store.save(loaded)
        assert store.load(game_id).status == "won"
    [stats] = store.stats("p")
    assert (stats.played, stats.won, stats.lost) == (1, 1, 0)
    store.close()


def test_an_older_database_gets_the_practice_column(tmp_path: Path, clock: FakeClock) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    store = Store(url, clock=clock)
    game_id = store.create_game(new_session(clock), "p")
    store.close()
    engine = sa.create_engine(url)
    with engine.begin() as conn:  # as the first version of the schema had it
        conn.execute(sa.text("ALTER TABLE games DROP COLUMN practice"))
        conn.execute(sa.text("DROP TABLE schema_version"))
        conn.execute(sa.text("DROP TABLE transfer_codes"))
    engine.dispose()
    again = Store(url, clock=clock)
    assert [g.id for g in again.list_games("p")] == [game_id]
    again.create_game(new_session(clock, 2, practice=True), "p")
    assert len(again.list_games("p")) == 1
    again.close()


def test_daily_deal_cache(db_url: str) -> None:
    store = Store(db_url)
    assert store.daily_deal("2026-11-29", "bakers_game") is None
    store.set_daily_deal("2026-11-29", "bakers_game", 123, False)
    assert store.daily_deal("2026-11-29", "bakers_game") == (123, False)
    store.set_daily_deal("2026-11-29", "bakers_game", 456, True)
    assert store.daily_deal("2026-11-29", "bakers_game") == (456, True)
    assert store.daily_deal("2026-11-29", "freecell") is None
    store.close()


def test_compute_stats_streaks() -> None:
    rows = [(True, 100.0, 90, 6000), (True, 80.0, 95, 7500), (True, 120.0, 85, 5000),
            (False, 10.0, 4, 0), (True, 200.0, 100, 3000)]
    s = compute_stats("freecell", "easy", rows)
    assert (s.played, s.won, s.lost, s.current_streak, s.best_streak) == (5, 4, 1, 1, 3)
    assert (s.best_time, s.fewest_moves, s.best_score) == (80.0, 85, 7500)
    assert compute_stats("freecell", "easy", []).win_rate == 0.0


def test_proven_deal_stock(db_url: str) -> None:
    store = Store(db_url)
    assert store.take_proven_deal("freecell", 4) is None
    store.add_proven_deal("freecell", 4, 11)
    store.add_proven_deal("freecell", 4, 12)
    store.add_proven_deal("freecell", 3, 13)
    assert store.count_proven_deals("freecell", 4) == 2
    assert store.take_proven_deal("freecell", 4) == 11
    assert store.take_proven_deal("freecell", 4) == 12
    assert store.take_proven_deal("freecell", 4) is None
    assert store.take_proven_deal("freecell", 3) == 13
    store.close()


def test_find_untouched_game_of_the_same_deal(db_url: str, clock: FakeClock) -> None:
    """A deal link opened again reuses the player's untouched game of that
    deal, cells and level; a game with a move, another player's, another
    level's or a practice game is not reused."""
    store = Store(db_url, clock=clock)
    first = store.create_game(new_session(clock, 7), "p")
    assert store.find_untouched("p", "bakers_game", 7, 4, "normal") == first
    assert store.find_untouched("q", "bakers_game", 7, 4, "normal") is None
    assert store.find_untouched("p", "bakers_game", 7, 4, "easy") is None
    assert store.find_untouched("p", "bakers_game", 8, 4, "normal") is None
    assert store.find_untouched("p", "bakers_game", None, 4, "normal") is None
    loaded = store.load(first)
    loaded.session.play("1a")
    store.save(loaded)
    assert store.find_untouched("p", "bakers_game", 7, 4, "normal") is None
    store.create_game(new_session(clock, 7, practice=True), "p")
    assert store.find_untouched("p", "bakers_game", 7, 4, "normal") is None
    store.close()


def test_game_ids_never_start_with_a_dash() -> None:
    """An id with a leading "-" came back from the CSV export quoted (a
    spreadsheet would run the cell as a formula): one id in 64 did."""
    ids = {new_game_id() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(len(i) == 12 and not i.startswith("-") for i in ids)
