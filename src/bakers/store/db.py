"""The database: players, games (their whole saved state), finished results,
daily deals; statistics computed from the results.

>>> store = Store("sqlite://")
>>> from bakers.board import Board
>>> from bakers.session import Session
>>> game_id = store.create_game(Session(Board.deal("bakers_game", 1)), "p1")
>>> store.load(game_id).session.deal
1

The schema is versioned (:data:`MIGRATIONS`): a database made by an earlier
release is brought up to date when a store opens it, one numbered step at a
time, each step in its own transaction (on PostgreSQL under an advisory lock,
so processes starting together apply each step once).

A :class:`Store` may be used from several threads at once (the web app runs
its calls in a thread pool), except over an in-memory SQLite database
(``memory``: one connection shared by everyone). Callers must not work on
the same game from two threads at once: the loaded :class:`Session` is a
shared, cached object (the web app holds a lock per game).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.pool import StaticPool

from ..errors import BakersError
from ..options import Level, Status
from ..session import Clock, Session

DEFAULT_FILENAME = "bakers.sqlite3"
CACHE_SIZE = 2000
DURABILITIES = ("normal", "full")
WAL_LIMIT = 4 * 1024 * 1024  # bytes of SQLite write-ahead log before it is reset
TRANSFER_TTL = 15 * 60  # seconds a transfer code stays valid
TRANSFER_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
FINISHED = (Status.WON, Status.ABANDONED)
UNFINISHED = (Status.PLAYING, Status.BLOCKED)

metadata = sa.MetaData()

players = sa.Table(
    "players", metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(100), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

games = sa.Table(
    "games", metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("player_id", sa.String(64), sa.ForeignKey("players.id"), nullable=False),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("level", sa.String(16), nullable=False),
    sa.Column("cells", sa.Integer, nullable=False),
    sa.Column("deal", sa.BigInteger, nullable=True),
    sa.Column("daily", sa.String(10), nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    # lessons: never in the statistics nor in "Continue"
    sa.Column("practice", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_games_player_status", "player_id", "status", "updated_at"),
)

results = sa.Table(
    "results", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False,
              unique=True),
    sa.Column("player_id", sa.String(64), sa.ForeignKey("players.id"), nullable=False),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("level", sa.String(16), nullable=False),
    sa.Column("cells", sa.Integer, nullable=False),
    sa.Column("deal", sa.BigInteger, nullable=True),
    sa.Column("won", sa.Boolean, nullable=False),
    sa.Column("seconds", sa.Float, nullable=False),
    sa.Column("moves", sa.Integer, nullable=False),
    sa.Column("score", sa.Integer, nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_results_player", "player_id", "game", "level"),
)

daily_deals = sa.Table(
    "daily_deals", metadata,
    sa.Column("date", sa.String(10), primary_key=True),
    sa.Column("game", sa.String(32), primary_key=True),
    sa.Column("deal", sa.BigInteger, nullable=False),
    sa.Column("proven", sa.Boolean, nullable=False),
)


proven_deals = sa.Table(
    "proven_deals", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("cells", sa.Integer, nullable=False),
    sa.Column("deal", sa.BigInteger, nullable=False),
    sa.Index("ix_proven_deals_game", "game", "cells"),
)

# one-time codes that move a player's identity to another browser (hashed)
transfer_codes = sa.Table(
    "transfer_codes", metadata,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("player_id", sa.String(64), sa.ForeignKey("players.id"), nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)

# how hard each deal is (bakers.solver.study.rate), computed on demand
deal_ratings = sa.Table(
    "deal_ratings", metadata,
    sa.Column("game", sa.String(32), primary_key=True),
    sa.Column("cells", sa.Integer, primary_key=True),
    sa.Column("deal", sa.BigInteger, primary_key=True),
    sa.Column("verdict", sa.String(16), nullable=False),
    sa.Column("fewest_cells", sa.Integer, nullable=True),
    sa.Column("fewest_proven", sa.Boolean, nullable=False),
    sa.Column("player_moves", sa.Integer, nullable=True),
    sa.Column("states", sa.BigInteger, nullable=False),
    sa.Column("score", sa.Float, nullable=True),
    sa.Column("rating", sa.String(16), nullable=False),
    sa.Index("ix_deal_ratings_band", "game", "cells", "rating"),
)

schema_version = sa.Table(
    "schema_version", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
)


def _v1_practice(conn: sa.Connection) -> None:
    """Release 0.1: the tables as its first version made them, with the
    ``practice`` column it added to games."""
    columns = {c["name"] for c in sa.inspect(conn).get_columns("games")}
    if "practice" not in columns:
        false = "0" if conn.dialect.name == "sqlite" else "false"
        conn.execute(sa.text(
            f"ALTER TABLE games ADD COLUMN practice BOOLEAN NOT NULL DEFAULT {false}"))


def _v2_transfer_codes(conn: sa.Connection) -> None:
    transfer_codes.create(conn, checkfirst=True)


def _v3_deal_ratings(conn: sa.Connection) -> None:
    """Deal ratings (before this step the table was made, when missing, by
    the first :class:`bakers.store.study.StudyStore` opened on the database:
    a database may have it already)."""
    deal_ratings.create(conn, checkfirst=True)


MIGRATIONS: list[tuple[int, str, Callable[[sa.Connection], None]]] = [
    (1, "release 0.1: games.practice", _v1_practice),
    (2, "transfer codes", _v2_transfer_codes),
    (3, "deal ratings", _v3_deal_ratings),
]
"""The schema's versions in order: ``(version, what changed, step)``. A new
table or column is a new entry here (and in the tables above, which a new
database gets whole)."""
SCHEMA_VERSION = MIGRATIONS[-1][0]
_MIGRATION_LOCK = 7_214_093  # PostgreSQL advisory lock key of schema changes

# the statements of every move, built once (building one costs more than running it)
_LOAD_HEAD = (sa.select(games.c.player_id, games.c.version, games.c.status)
              .where(games.c.id == sa.bindparam("game_id")))
_LOAD_STATE = sa.select(games.c.state).where(games.c.id == sa.bindparam("game_id"))
_SAVE = (games.update()
         .where(games.c.id == sa.bindparam("game_id"),
                games.c.version == sa.bindparam("old_version"))
         .values(status=sa.bindparam("new_status"), version=sa.bindparam("new_version"),
                 state=sa.bindparam("new_state"), updated_at=sa.bindparam("now"),
                 level=sa.bindparam("new_level")))


class GameNotFoundError(BakersError):
    """No saved game has this id (HTTP 404)."""


class StoreConflictError(BakersError):
    """The game was changed by another request in the meantime (HTTP 409)."""


def default_db_url() -> str:
    """SQLite in the user data directory (created if missing)."""
    import platformdirs
    folder = platformdirs.user_data_dir("bakers")
    os.makedirs(folder, exist_ok=True)
    return "sqlite:///" + os.path.join(folder, DEFAULT_FILENAME)


def normalize_db_url(url: str) -> str:
    """Accept ``postgresql://`` / ``postgres://`` (rewritten to the psycopg
    driver), ``sqlite:///path`` and a bare file path.

    >>> normalize_db_url("postgresql://u@h/db")
    'postgresql+psycopg://u@h/db'
    >>> normalize_db_url("/tmp/x.sqlite3")
    'sqlite:////tmp/x.sqlite3'
    """
    url = url.strip()
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    if "://" not in url and url:
        return "sqlite:///" + os.path.abspath(os.path.expanduser(url))
    return url


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.UTC)


def _iso(moment: _dt.datetime | None) -> str | None:
    """A stored time as ISO 8601 UTC (SQLite hands back naive UTC times)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.UTC)
    return moment.astimezone(_dt.UTC).isoformat(timespec="seconds")


def new_game_id() -> str:
    """An opaque, unguessable id: 12 URL-safe characters, never a leading
    ``-`` (a spreadsheet reads such a CSV cell as a formula, so the export
    would have to quote it, and a shell as an option)."""
    while True:
        game_id = secrets.token_urlsafe(9)
        if not game_id.startswith("-"):
            return game_id


@dataclasses.dataclass
class LoadedGame:
    """A game read from the store, to be changed and saved back."""

    id: str
    player_id: str
    session: Session
    version: int
    status: str


@dataclasses.dataclass(frozen=True)
class Stats:
    """Statistics of one player at one game and level."""

    game: str
    level: str
    played: int = 0
    won: int = 0
    lost: int = 0
    current_streak: int = 0
    best_streak: int = 0
    best_time: float | None = None
    fewest_moves: int | None = None
    best_score: int | None = None

    @property
    def win_rate(self) -> float:
        return round(self.won / self.played, 4) if self.played else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["win_rate"] = self.win_rate
        return d


def compute_stats(game: str, level: str, rows: Iterable[tuple[bool, float, int, int]]) -> Stats:
    """Stats from results ``(won, seconds, moves, score)`` in the order played.

    Streaks count wins in a row; best time, fewest moves and best score are
    over won games.

    >>> compute_stats("freecell", "normal", [(True, 90, 80, 7000), (False, 5, 3, 0),
    ...     (True, 60, 90, 9000), (True, 70, 70, 8000)]).best_streak
    2
    """
    played = won = current = best = 0
    best_time: float | None = None
    fewest: int | None = None
    best_score: int | None = None
    for is_won, seconds, moves, score in rows:
        played += 1
        if is_won:
            won += 1
            current += 1
            best = max(best, current)
            best_time = seconds if best_time is None else min(best_time, seconds)
            fewest = moves if fewest is None else min(fewest, moves)
            best_score = score if best_score is None else max(best_score, score)
        else:
            current = 0
    return Stats(game, level, played, won, played - won, current, best,
                 None if best_time is None else round(best_time, 1), fewest, best_score)


class Store:
    """Saved games and statistics in one SQL database."""

    def __init__(self, url: str | None = None, clock: Clock = time.time,
                 durability: str = "normal") -> None:
        """``durability``: ``normal`` — a crash of this process loses nothing,
        a power loss may lose the last moment's moves (SQLite
        ``synchronous=NORMAL`` in WAL mode; PostgreSQL ``synchronous_commit
        =off``); ``full`` — every answered move is on disk first (SQLite
        ``synchronous=FULL``; PostgreSQL's default commit)."""
        if durability not in DURABILITIES:
            raise BakersError("durability is normal or full")
        self.url = normalize_db_url(url) if url else default_db_url()
        self.clock = clock
        self.durability = durability
        self.memory = self.url in ("sqlite://", "sqlite:///:memory:")
        self.engine = self._make_engine(self.url, durability)
        self.migrate()
        self._cache: OrderedDict[str, tuple[int, Session]] = OrderedDict()
        self._cache_lock = threading.Lock()

    def migrate(self) -> list[int]:
        """Create the schema, or bring it up to :data:`SCHEMA_VERSION`; the
        versions applied. A database without a version table was made by
        release 0.1 (version 1 once its ``practice`` column is there)."""
        applied: list[int] = []
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})"))
            names = set(sa.inspect(conn).get_table_names())
            if "games" not in names:
                metadata.create_all(conn)
                conn.execute(schema_version.insert().values(id=1, version=SCHEMA_VERSION))
                return applied
            schema_version.create(conn, checkfirst=True)
            found = conn.execute(sa.select(schema_version.c.version)).scalar()
            current = 0 if found is None else int(found)
            if found is None:
                conn.execute(schema_version.insert().values(id=1, version=0))
        for version, _what, step in MIGRATIONS:
            if version <= current:
                continue
            with self.engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(sa.text(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})"))
                now = int(conn.execute(sa.select(schema_version.c.version)).scalar_one())
                if now >= version:
                    continue  # another process applied it meanwhile
                step(conn)
                conn.execute(schema_version.update().values(version=version))
            applied.append(version)
        return applied

    def schema_version(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(sa.select(schema_version.c.version)).scalar_one())

    @staticmethod
    def _make_engine(url: str, durability: str = "normal") -> Engine:
        if url.startswith("sqlite"):
            memory = url in ("sqlite://", "sqlite:///:memory:")  # as ``Store.memory``
            if not memory:
                path = url.split(":///", 1)[-1]
                folder = os.path.dirname(os.path.abspath(path))
                if folder:
                    os.makedirs(folder, exist_ok=True)
            engine = sa.create_engine(
                url, connect_args={"check_same_thread": False},
                poolclass=StaticPool if memory else None)

            @sa.event.listens_for(engine, "connect")
            def _pragmas(dbapi_conn: Any, _record: Any) -> None:
                cur = dbapi_conn.cursor()
                if not memory:
                    cur.execute("PRAGMA journal_mode=WAL")
                    cur.execute("PRAGMA synchronous="
                                + ("FULL" if durability == "full" else "NORMAL"))
                    # checkpoints (the only fsyncs in WAL+NORMAL) run from
                    # checkpoint() off the event loop, not inside a commit
                    cur.execute("PRAGMA wal_autocheckpoint=0")
                    # after a checkpoint resets the log, its file shrinks to this
                    cur.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.execute("PRAGMA busy_timeout=5000")
                cur.close()

            return engine
        engine = sa.create_engine(url, pool_pre_ping=True)
        if durability == "normal" and engine.dialect.name == "postgresql":
            @sa.event.listens_for(engine, "connect")
            def _async_commit(dbapi_conn: Any, _record: Any) -> None:
                cur = dbapi_conn.cursor()
                cur.execute("SET synchronous_commit TO off")
                cur.close()
                dbapi_conn.commit()
        return engine

    def close(self) -> None:
        self.checkpoint()
        self.engine.dispose()

    @property
    def sqlite_path(self) -> str | None:
        if not self.url.startswith("sqlite:///") or self.url == "sqlite:///:memory:":
            return None
        return self.url.split(":///", 1)[1]

    def checkpoint(self) -> None:
        """Copy SQLite's write-ahead log into the database file (safe to call
        from another thread: it uses its own connection). No-op for other
        databases.

        A PASSIVE checkpoint never blocks writers, but under steady writes it
        never catches up with the log's end either, and only a fully copied
        log can start over from its beginning: the file would grow for as
        long as the load lasts. So once the log is over ``WAL_LIMIT`` a
        TRUNCATE checkpoint runs instead: it waits (up to the busy timeout)
        for the writer in progress, holds new writers back while it copies
        what is left, and empties the file."""
        import sqlite3
        path = self.sqlite_path
        if path is None:
            return
        try:
            big = os.path.getsize(path + "-wal") > WAL_LIMIT
        except OSError:
            big = False
        try:
            conn = sqlite3.connect(path, timeout=5)
            try:
                conn.execute(f"PRAGMA wal_checkpoint({'TRUNCATE' if big else 'PASSIVE'})")
            finally:
                conn.close()
        except sqlite3.Error:
            pass  # the next checkpoint will do it

    # --- players ----------------------------------------------------------------

    @staticmethod
    def _ensure_player(conn: sa.Connection, player_id: str) -> None:
        found = conn.execute(sa.select(players.c.id).where(players.c.id == player_id)).first()
        if found is None:
            conn.execute(players.insert().values(id=player_id, created_at=_now()))

    # --- games --------------------------------------------------------------------

    def create_game(self, session: Session, player_id: str) -> str:
        """Save a new game for ``player_id``; return its id."""
        game_id = new_game_id()
        now = _now()
        status = session.status
        with self.engine.begin() as conn:
            self._ensure_player(conn, player_id)
            conn.execute(games.insert().values(
                id=game_id, player_id=player_id, game=session.game, level=session.level.value,
                cells=session.board.game.cells, deal=session.deal, daily=session.daily,
                status=status.value, practice=session.practice, version=1,
                state=json.dumps(session.to_dict()), created_at=now, updated_at=now))
            if status in FINISHED and session.counts_in_stats:
                self._record_result(conn, game_id, player_id, session, status)
        self._remember(game_id, 1, session)
        return game_id

    def _remember(self, game_id: str, version: int, session: Session) -> None:
        with self._cache_lock:
            self._cache[game_id] = (version, session)
            self._cache.move_to_end(game_id)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)

    def _cached(self, game_id: str, version: int) -> Session | None:
        with self._cache_lock:
            cached = self._cache.get(game_id)
            if cached is None or cached[0] != version:
                return None
            self._cache.move_to_end(game_id)
            return cached[1]

    def forget(self, game_id: str) -> None:
        """Drop the in-memory copy of a game (the next load reads the database)."""
        with self._cache_lock:
            self._cache.pop(game_id, None)

    def load(self, game_id: str) -> LoadedGame:
        """The saved game ``game_id`` with its whole history."""
        if not isinstance(game_id, str) or not 1 <= len(game_id) <= 32:
            raise GameNotFoundError("there is no game with this id")
        with self.engine.connect() as conn:
            row = conn.execute(_LOAD_HEAD, {"game_id": game_id}).first()
            if row is None:
                raise GameNotFoundError("there is no game with this id")
            cached = self._cached(game_id, row.version)
            if cached is not None:
                session = cached
            else:
                state = conn.execute(_LOAD_STATE, {"game_id": game_id}).scalar_one()
                try:
                    session = Session.from_dict(json.loads(state), clock=self.clock)
                except (ValueError, KeyError, TypeError) as exc:
                    raise BakersError(f"this saved game cannot be read: {exc}") from None
                self._remember(game_id, row.version, session)
        return LoadedGame(game_id, row.player_id, session, row.version, row.status)

    def save(self, loaded: LoadedGame) -> None:
        """Write the changed game back; record its result when it just ended."""
        session = loaded.session
        status = session.status
        new_version = loaded.version + 1
        try:
            with self.engine.begin() as conn:
                done = conn.execute(_SAVE, {
                    "game_id": loaded.id, "old_version": loaded.version,
                    "new_status": status.value, "new_version": new_version,
                    "new_state": json.dumps(session.to_dict()), "now": _now(),
                    "new_level": session.level.value})
                if done.rowcount != 1:
                    raise StoreConflictError(
                        "this game was changed elsewhere in the meantime: reload it")
                if (status in FINISHED and loaded.status not in FINISHED
                        and session.counts_in_stats):
                    self._record_result(conn, loaded.id, loaded.player_id, session, status)
        except BaseException:
            self.forget(loaded.id)
            raise
        loaded.version = new_version
        loaded.status = status.value
        self._remember(loaded.id, new_version, session)

    @staticmethod
    def _record_result(conn: sa.Connection, game_id: str, player_id: str,
                       session: Session, status: str) -> None:
        conn.execute(results.insert().values(
            game_id=game_id, player_id=player_id, game=session.game, level=session.level.value,
            cells=session.board.game.cells, deal=session.deal, won=status == "won",
            seconds=round(session.seconds(), 3), moves=session.moves_count,
            score=session.score(), finished_at=_now()))

    def abandon(self, game_id: str, player_id: str | None = None) -> LoadedGame | None:
        """Give up an unfinished game (a loss, once a move was made on it and
        unless it is a practice game); ``None`` if it was already over.

        With ``player_id`` only that player's own game is abandoned.
        """
        loaded = self.load(game_id)
        if player_id is not None and loaded.player_id != player_id:
            raise GameNotFoundError("there is no game of yours with this id to replace")
        if loaded.session.finished:
            return None
        loaded.session.abandon()
        self.save(loaded)
        return loaded

    def list_games(self, player_id: str, unfinished: bool = True,
                   limit: int = 50) -> list[LoadedGame]:
        """This player's games, newest first: the unfinished ones for
        "Continue" (practice games left out), or all of them."""
        return [self.load(game_id)
                for game_id in self.list_game_ids(player_id, unfinished, limit)]

    def find_untouched(self, player_id: str, game: str, deal: int | None, cells: int,
                       level: Level | str) -> str | None:
        """The id of an unfinished game of ``player_id`` with this deal, cells
        and level on which no move was ever made (a deal link opened twice
        reuses it), or ``None``."""
        if deal is None:
            return None
        query = (sa.select(games.c.id)
                 .where(games.c.player_id == player_id, games.c.game == game,
                        games.c.deal == deal, games.c.cells == cells,
                        games.c.level == str(level), games.c.status == Status.PLAYING,
                        games.c.practice == sa.false())
                 .order_by(games.c.updated_at.desc()).limit(5))
        with self.engine.connect() as conn:
            ids = [str(r.id) for r in conn.execute(query)]
        for game_id in ids:
            session = self.load(game_id).session
            if not session.played and not session.moves_count and not session.abandoned:
                return game_id
        return None

    def daily_games(self, player_id: str, game: str, since: str) -> dict[str, dict[str, Any]]:
        """This player's daily deals of ``game`` from the date ``since`` on:
        per date (ISO), the game that says most (a win, else the latest), with
        its id, status, moves and seconds."""
        query = (sa.select(games.c.id, games.c.daily, games.c.status)
                 .where(games.c.player_id == player_id, games.c.game == game,
                        games.c.daily.is_not(None), games.c.daily >= since,
                        games.c.practice == sa.false())
                 .order_by(games.c.updated_at))
        with self.engine.connect() as conn:
            rows = list(conn.execute(query))
        out: dict[str, dict[str, Any]] = {}
        for r in rows:
            date = str(r.daily)
            if out.get(date, {}).get("status") == Status.WON.value:
                continue  # a win stays the day's result
            session = self.load(r.id).session
            out[date] = {"id": r.id, "status": r.status, "moves": session.moves_count,
                         "seconds": round(session.seconds(), 1), "played": session.played}
        return out

    def list_game_ids(self, player_id: str, unfinished: bool = True,
                      limit: int = 50) -> list[str]:
        """The ids of :meth:`list_games`, newest first."""
        query = sa.select(games.c.id).where(games.c.player_id == player_id)
        if unfinished:
            query = query.where(games.c.status.in_(UNFINISHED),
                                games.c.practice == sa.false())
        query = query.order_by(games.c.updated_at.desc()).limit(limit)
        with self.engine.connect() as conn:
            return [r.id for r in conn.execute(query)]

    # --- statistics ---------------------------------------------------------------

    def stats(self, player_id: str, game: str | None = None,
              level: str | None = None) -> list[Stats]:
        """Statistics per game and level for this player."""
        query = (sa.select(results.c.game, results.c.level, results.c.won, results.c.seconds,
                           results.c.moves, results.c.score)
                 .where(results.c.player_id == player_id))
        if game is not None:
            query = query.where(results.c.game == game)
        if level is not None:
            query = query.where(results.c.level == level)
        query = query.order_by(results.c.id)
        grouped: dict[tuple[str, str], list[tuple[bool, float, int, int]]] = {}
        with self.engine.connect() as conn:
            for r in conn.execute(query):
                grouped.setdefault((r.game, r.level), []).append(
                    (bool(r.won), float(r.seconds), int(r.moves), int(r.score)))
        if game is not None and level is not None and not grouped:
            return [Stats(game, level)]
        return [compute_stats(g, lv, rows) for (g, lv), rows in sorted(grouped.items())]

    def games_of(self, player_id: str, limit: int = 100_000) -> list[dict[str, Any]]:
        """Every game of this player, oldest first, with its record: what an
        export holds (:meth:`load` gives each game's record)."""
        query = (sa.select(games.c.id, games.c.game, games.c.level, games.c.cells,
                           games.c.deal, games.c.daily, games.c.status, games.c.practice,
                           games.c.created_at, games.c.updated_at)
                 .where(games.c.player_id == player_id)
                 .order_by(games.c.created_at, games.c.id).limit(limit))
        with self.engine.connect() as conn:
            rows = list(conn.execute(query))
        out = []
        for r in rows:
            session = self.load(r.id).session
            out.append({"id": r.id, "game": r.game, "level": r.level, "cells": int(r.cells),
                        "deal": None if r.deal is None else int(r.deal), "daily": r.daily,
                        "status": r.status, "practice": bool(r.practice),
                        "moves": session.moves_count, "score": session.score(),
                        "seconds": round(session.seconds(), 1),
                        "started_at": _iso(r.created_at), "updated_at": _iso(r.updated_at),
                        "record": session.record().to_text()})
        return out

    def results_of(self, player_id: str) -> list[dict[str, Any]]:
        """Every finished game of this player that counts, in the order played."""
        query = (sa.select(results.c.game_id, results.c.game, results.c.level,
                           results.c.cells, results.c.deal, results.c.won, results.c.seconds,
                           results.c.moves, results.c.score, results.c.finished_at)
                 .where(results.c.player_id == player_id).order_by(results.c.id))
        with self.engine.connect() as conn:
            return [{"game_id": r.game_id, "game": r.game, "level": r.level,
                     "cells": int(r.cells), "deal": None if r.deal is None else int(r.deal),
                     "won": bool(r.won), "seconds": float(r.seconds), "moves": int(r.moves),
                     "score": int(r.score), "finished_at": _iso(r.finished_at)}
                    for r in conn.execute(query)]

    # --- moving a player's identity to another browser -------------------------------

    @staticmethod
    def _code_hash(code: str) -> str:
        canonical = "".join(c for c in code.upper() if c.isalnum())
        return hashlib.sha256(canonical.encode()).hexdigest()

    def create_transfer_code(self, player_id: str, ttl: float = TRANSFER_TTL) -> str:
        """A one-time code (``XXXX-XXXX-XXXX``, 60 bits) that gives another
        browser this player's identity; only its hash is stored. Any earlier
        code of this player stops working."""
        raw = "".join(secrets.choice(TRANSFER_ALPHABET) for _ in range(12))
        code = f"{raw[:4]}-{raw[4:8]}-{raw[8:]}"
        with self.engine.begin() as conn:
            self._ensure_player(conn, player_id)
            conn.execute(transfer_codes.delete().where(
                (transfer_codes.c.player_id == player_id)
                | (transfer_codes.c.expires_at < time.time())))
            conn.execute(transfer_codes.insert().values(
                code_hash=self._code_hash(code), player_id=player_id,
                expires_at=time.time() + ttl))
        return code

    def claim_transfer_code(self, code: str, new_owner: str) -> str | None:
        """The player whose identity ``code`` carries (the code is used up),
        or ``None`` for an unknown, used or expired code. The games and
        results of ``new_owner`` (the claiming browser's identity so far)
        move to that player."""
        digest = self._code_hash(code)
        with self.engine.begin() as conn:
            row = conn.execute(sa.select(transfer_codes.c.player_id, transfer_codes.c.expires_at)
                               .where(transfer_codes.c.code_hash == digest)).first()
            if row is None:
                return None
            gone = conn.execute(transfer_codes.delete().where(
                transfer_codes.c.code_hash == digest))
            if gone.rowcount != 1 or row.expires_at < time.time():
                return None
            player_id = str(row.player_id)
            if new_owner != player_id:
                conn.execute(games.update().where(games.c.player_id == new_owner)
                             .values(player_id=player_id))
                conn.execute(results.update().where(results.c.player_id == new_owner)
                             .values(player_id=player_id))
                conn.execute(transfer_codes.delete().where(
                    transfer_codes.c.player_id == new_owner))
        return player_id

    # --- daily deals -----------------------------------------------------------------

    def daily_deal(self, date: str, game: str) -> tuple[int, bool] | None:
        """The cached daily deal ``(deal, proven)`` of ``date`` for ``game``."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(daily_deals.c.deal, daily_deals.c.proven).where(
                daily_deals.c.date == date, daily_deals.c.game == game)).first()
        return None if row is None else (int(row.deal), bool(row.proven))

    def set_daily_deal(self, date: str, game: str, deal: int, proven: bool) -> None:
        with self.engine.begin() as conn:
            found = conn.execute(sa.select(daily_deals.c.deal).where(
                daily_deals.c.date == date, daily_deals.c.game == game)).first()
            if found is None:
                try:
                    with conn.begin_nested():
                        conn.execute(daily_deals.insert().values(
                            date=date, game=game, deal=deal, proven=proven))
                except sa.exc.IntegrityError:
                    pass  # another server wrote the same date first: the same deal
            else:
                conn.execute(daily_deals.update().where(
                    daily_deals.c.date == date, daily_deals.c.game == game)
                    .values(deal=deal, proven=proven))

    # --- a stock of deals proven winnable (for Easy and "winnable only") ------------------

    def add_proven_deal(self, game: str, cells: int, deal: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(proven_deals.insert().values(game=game, cells=cells, deal=deal))

    def count_proven_deals(self, game: str, cells: int) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(
                sa.select(sa.func.count()).select_from(proven_deals)
                .where(proven_deals.c.game == game, proven_deals.c.cells == cells))
                .scalar_one())

    def take_proven_deal(self, game: str, cells: int) -> int | None:
        """Take one deal from the stock (each is dealt once), or ``None``."""
        for _ in range(3):
            with self.engine.begin() as conn:
                row = conn.execute(
                    sa.select(proven_deals.c.id, proven_deals.c.deal)
                    .where(proven_deals.c.game == game, proven_deals.c.cells == cells)
                    .order_by(proven_deals.c.id).limit(1)).first()
                if row is None:
                    return None
                gone = conn.execute(proven_deals.delete().where(proven_deals.c.id == row.id))
                if gone.rowcount == 1:
                    return int(row.deal)
        return None
