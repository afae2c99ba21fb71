"""The atlas file: one SQLite database.

``attempts`` holds every solver call, keyed by game, cells, deal, engine and
budget (a retry under a larger budget is a new row; the same call made again
replaces its row). ``results`` holds the table itself, one row per game,
cells and deal requested: the verdict, and whether it was solved there or
follows by monotonicity from the count named in ``source_cells``. Only the
process that runs the atlas writes the file, one transaction per finished
chunk, so a killed run loses only the chunks in flight and two runs never
duplicate a row.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..survey import Limits
from .errors import AtlasError
from .plan import IMPOSSIBLE, UNKNOWN, WINNABLE, infer
from .work import Attempt, budget_key

SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started REAL NOT NULL,
    finished REAL,
    options TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS attempts (
    game TEXT NOT NULL, cells INTEGER NOT NULL, deal INTEGER NOT NULL,
    engine TEXT NOT NULL, budget TEXT NOT NULL,
    max_states INTEGER, timeout REAL, max_memory_mb INTEGER,
    verdict TEXT NOT NULL CHECK (verdict IN ('winnable', 'impossible', 'unknown')),
    states INTEGER NOT NULL, seconds REAL NOT NULL, cpu_seconds REAL NOT NULL,
    moves INTEGER, limit_text TEXT NOT NULL, run INTEGER NOT NULL,
    PRIMARY KEY (game, cells, deal, engine, budget)
);
CREATE TABLE IF NOT EXISTS results (
    game TEXT NOT NULL, cells INTEGER NOT NULL, deal INTEGER NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ('winnable', 'impossible', 'unknown')),
    how TEXT NOT NULL CHECK (how IN ('solved', 'inferred')),
    source_cells INTEGER NOT NULL,
    states INTEGER NOT NULL, seconds REAL NOT NULL,
    engine TEXT NOT NULL, budget TEXT NOT NULL,
    PRIMARY KEY (game, cells, deal)
);
-- a deal's attempts and rows are read by game and deal, whatever the cells:
-- without these, each lookup scans the game's rows, and a large run slows
-- down as its file grows
CREATE INDEX IF NOT EXISTS attempts_by_deal ON attempts (game, deal);
CREATE INDEX IF NOT EXISTS results_by_deal ON results (game, deal);
"""


@dataclasses.dataclass(frozen=True)
class Known:
    """What the file knows of one game's deal: resolved verdicts by cell
    count, the unknown attempts by cell count (budget, run, engine name), and the cell
    counts the table has a row for."""

    solved: dict[int, str]
    unknown: dict[int, list[tuple[Limits, int, str]]]
    rows: set[int]


@dataclasses.dataclass(frozen=True)
class ResultRow:
    game: str
    cells: int
    deal: int
    verdict: str
    how: str
    source_cells: int
    states: int
    seconds: float


class AtlasStore:
    """An open atlas file (created on first use)."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise AtlasError(f"{self.path}: is a directory, not an atlas file")
        if not create and not self.path.exists():
            raise AtlasError(f"{self.path}: no such atlas file")
        if self.path.exists() and self.path.stat().st_size:
            with self.path.open("rb") as fh:
                if fh.read(16) != b"SQLite format 3\x00":
                    raise AtlasError(f"{self.path}: not an atlas file (not SQLite)")
        try:
            self.db = sqlite3.connect(self.path, timeout=30.0)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            tables = {r[0] for r in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and not {"meta", "attempts", "results"} <= tables:
                raise AtlasError(f"{self.path}: an SQLite file, but not an atlas")
            if create or tables:
                with self.db:
                    self.db.executescript(SCHEMA)
                    self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                                    (SCHEMA_VERSION,))
            version = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise AtlasError(f"{self.path}: not an atlas file ({exc})") from None
        if version is None or version[0] != SCHEMA_VERSION:
            raise AtlasError(f"{self.path}: an atlas of another format version")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> AtlasStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- runs ---------------------------------------------------------------

    def start_run(self, options: dict[str, Any]) -> int:
        with self.db:
            cur = self.db.execute("INSERT INTO runs (started, options) VALUES (?, ?)",
                                  (time.time(), json.dumps(options, sort_keys=True)))
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish_run(self, run: int) -> None:
        with self.db:
            self.db.execute("UPDATE runs SET finished = ? WHERE id = ?", (time.time(), run))

    # --- reading ------------------------------------------------------------

    def known(self, game: str, first: int, last: int) -> dict[int, Known]:
        """What the file knows of ``game``'s deals ``first``–``last``."""
        out: dict[int, Known] = {}
        rows = self.db.execute(
            "SELECT deal, cells, verdict, max_states, timeout, max_memory_mb, run, engine "
            "FROM attempts WHERE game = ? AND deal BETWEEN ? AND ?", (game, first, last))
        for deal, cells, verdict, states, timeout, memory, run, engine in rows:
            k = out.setdefault(deal, Known({}, {}, set()))
            if verdict == UNKNOWN:
                k.unknown.setdefault(cells, []).append(
                    (Limits(timeout=timeout, max_states=states, max_memory_mb=memory), run,
                     engine.split()[0]))
            else:
                k.solved[cells] = verdict
        for deal, cells in self.db.execute(
                "SELECT deal, cells FROM results WHERE game = ? AND deal BETWEEN ? AND ?",
                (game, first, last)):
            out.setdefault(deal, Known({}, {}, set())).rows.add(cells)
        return out

    def count_done(self, game: str, cells: int, first: int, last: int) -> dict[str, int]:
        """Rows of one table cell by verdict."""
        counts = {WINNABLE: 0, IMPOSSIBLE: 0, UNKNOWN: 0}
        for verdict, n in self.db.execute(
                "SELECT verdict, COUNT(*) FROM results WHERE game = ? AND cells = ? "
                "AND deal BETWEEN ? AND ? GROUP BY verdict", (game, cells, first, last)):
            counts[verdict] = n
        return counts

    def results(self) -> Iterator[ResultRow]:
        """Every row of the table, by game, cells and deal."""
        for row in self.db.execute(
                "SELECT game, cells, deal, verdict, how, source_cells, states, seconds "
                "FROM results ORDER BY game, cells, deal"):
            yield ResultRow(*row)

    # --- writing ------------------------------------------------------------

    def record(self, run: int, attempts: Iterable[Attempt],
               deals: Iterable[tuple[str, int, tuple[int, ...]]]) -> list[ResultRow]:
        """Store a finished chunk: its attempts, then the table rows of each
        of its ``(game, deal, requested cells)``, in one transaction. Returns
        the rows written."""
        written: list[ResultRow] = []
        by_game: dict[str, list[tuple[int, tuple[int, ...]]]] = {}
        for game, deal, cells in deals:
            by_game.setdefault(game, []).append((deal, cells))
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO attempts VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(a.game, a.cells, a.deal, a.engine, budget_key(a.limits),
                  a.limits.max_states, a.limits.timeout, a.limits.max_memory_mb,
                  a.verdict, a.states, a.seconds, a.cpu_seconds, a.moves, a.limit, run)
                 for a in attempts])
            for game, wanted in by_game.items():
                written.extend(self._update_results(game, wanted))
        return written

    def _update_results(self, game: str, deals: list[tuple[int, tuple[int, ...]]]
                        ) -> list[ResultRow]:
        """Rewrite the table rows of some deals of one game from all their
        attempts: the requested cells and any the table already has. Reads
        the attempts and rows of the whole span of deals at once."""
        first = min(deal for deal, _ in deals)
        last = max(deal for deal, _ in deals)
        attempts: dict[int, list[tuple[int, str, int, float, str, str]]] = {}
        for deal, *rest in self.db.execute(
                "SELECT deal, cells, verdict, states, seconds, engine, budget FROM attempts "
                "WHERE game = ? AND deal BETWEEN ? AND ? "
                "ORDER BY deal, max_states IS NULL, max_states, rowid", (game, first, last)):
            attempts.setdefault(deal, []).append(tuple(rest))
        have: dict[int, set[int]] = {}
        for deal, k in self.db.execute(
                "SELECT deal, cells FROM results WHERE game = ? AND deal BETWEEN ? AND ?",
                (game, first, last)):
            have.setdefault(deal, set()).add(k)
        rows: list[tuple[Any, ...]] = []
        out: list[ResultRow] = []
        for deal, cells in deals:
            solved: dict[int, tuple[str, int, float, str, str]] = {}
            unknown: dict[int, tuple[str, int, float, str, str]] = {}
            for k, verdict, states, seconds, engine, budget in attempts.get(deal, []):
                (unknown if verdict == UNKNOWN else solved)[k] = (verdict, states, seconds,
                                                                  engine, budget)
            wanted = sorted(set(cells) | have.get(deal, set()))
            try:
                decided = infer({k: v[0] for k, v in solved.items()}, wanted)
            except AtlasError as exc:
                raise AtlasError(f"{game} deal {deal}: {exc}") from None
            for k in wanted:
                if k in decided:
                    verdict, source = decided[k]
                    _, states, seconds, engine, budget = solved[source]
                    how = "solved" if source == k else "inferred"
                    if how == "inferred":
                        states, seconds = 0, 0.0
                elif k in unknown:  # the attempt with the largest budget (last in order)
                    verdict, states, seconds, engine, budget = unknown[k]
                    how, source = "solved", k
                else:
                    continue
                rows.append((game, k, deal, verdict, how, source, states, seconds, engine,
                             budget))
                out.append(ResultRow(game, k, deal, verdict, how, source, states, seconds))
        self.db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            rows)
        return out


@contextlib.contextmanager
def open_store(path: str | Path, *, create: bool = True) -> Iterator[AtlasStore]:
    store = AtlasStore(path, create=create)
    try:
        yield store
    finally:
        store.close()
