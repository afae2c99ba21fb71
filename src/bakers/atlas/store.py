"""The atlas file: one SQLite database.

``attempts`` holds every solver call, keyed by game, cells, deal, engine and
budget (a retry under a larger budget is a new row; the same call made again
replaces its row). ``results`` holds the table itself, one row per game,
cells and deal requested: the verdict, and whether it was solved there or
follows by monotonicity from the count named in ``source_cells``. Only the
process that runs the atlas writes the file, whole finished chunks at a time
(those that finished together in one transaction), so a killed run loses
only the chunks not yet written and two runs never duplicate a row.

An atlas kept in a repository is a *packed* file (a name ending in ``.gz``,
such as ``data/atlas/atlas.csv.gz``): the same three tables as rows of one
gzip-compressed CSV, sorted, so that it diffs and compresses well. It opens
into a working SQLite copy in a temporary folder and is written back (whole,
then renamed into place) when a store that changed it closes, and every
``PACK_EVERY`` seconds while a run records into it, so that a killed run
loses at most that much: every command that takes an atlas file takes a
packed one.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import gzip
import io
import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..verdicts import Limits
from .errors import AtlasError
from .plan import IMPOSSIBLE, UNKNOWN, WINNABLE, infer
from .work import Attempt, budget_key, search_of, seed_of

SCHEMA_VERSION = "2"  # 2: attempts.disk_bytes; files of version 1 are read and updated
PACKED_MAGIC = "bakers atlas"
PACK_EVERY = 120.0  # seconds between write-backs of a packed atlas during a run
# the tables of a packed atlas, each with the columns (by index) that may be NULL
PACKED_TABLES: dict[str, frozenset[int]] = {
    "runs": frozenset({2}),
    "attempts": frozenset({5, 6, 7, 12}),
    "results": frozenset(),
}

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
    disk_bytes INTEGER NOT NULL DEFAULT 0,
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


# an attempt as the table rows need it: cells, verdict, states, seconds,
# engine, budget
_Tried = tuple[int, str, int, float, str, str]


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
    previous: str | None = None  # as written: the verdict the row had before, if any


class AtlasStore:
    """An open atlas file (created on first use)."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise AtlasError(f"{self.path}: is a directory, not an atlas file")
        if not create and not self.path.exists():
            raise AtlasError(f"{self.path}: no such atlas file")
        self.packed: Path | None = None
        self._work: str | None = None
        self.changed = False
        self._packed_at = time.monotonic()
        if self.path.name.endswith(".gz"):
            self.packed, self._work = self.path, tempfile.mkdtemp(prefix="bakers-atlas-")
            self.path = Path(self._work) / "atlas.sqlite"
        elif self.path.exists() and self.path.stat().st_size:
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
            if "attempts" in tables and "disk_bytes" not in {
                    r[1] for r in self.db.execute("PRAGMA table_info(attempts)")}:
                with self.db:  # version 1: no disk column
                    self.db.execute("ALTER TABLE attempts ADD COLUMN disk_bytes INTEGER "
                                    "NOT NULL DEFAULT 0")
                    self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema'",
                                    (SCHEMA_VERSION,))
            if create or tables or self.packed is not None:
                with self.db:
                    self.db.executescript(SCHEMA)
                    self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                                    (SCHEMA_VERSION,))
            version = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise AtlasError(f"{self.path}: not an atlas file ({exc})") from None
        if version is None or version[0] != SCHEMA_VERSION:
            raise AtlasError(f"{self.path}: an atlas of another format version")
        if self.packed is not None and self.packed.exists():
            self._unpack(self.packed)

    def close(self) -> None:
        try:
            if self.packed is not None and self.changed:
                self._pack(self.packed)
        finally:
            self.db.close()
            if self._work is not None:
                shutil.rmtree(self._work, ignore_errors=True)

    # --- the packed form ------------------------------------------------------

    def _unpack(self, packed: Path) -> None:
        """Fill the working copy from a packed atlas."""
        try:
            with gzip.open(packed, "rt", encoding="utf-8", newline="") as fh:
                rows = list(csv.reader(fh))
        except (OSError, EOFError, csv.Error, UnicodeDecodeError) as exc:
            raise AtlasError(f"{packed}: not a packed atlas ({exc})") from None
        if not rows or rows[0] not in ([PACKED_MAGIC, SCHEMA_VERSION], [PACKED_MAGIC, "1"]):
            raise AtlasError(f"{packed}: not a packed atlas of this format version")
        width = {kind: len(self.db.execute(f"SELECT * FROM {kind} LIMIT 0").description)
                 for kind in PACKED_TABLES}
        by_kind: dict[str, list[list[str | None]]] = {kind: [] for kind in PACKED_TABLES}
        for row in rows[1:]:
            kind, *values = row
            nullable = PACKED_TABLES.get(kind)
            if nullable is None:
                raise AtlasError(f"{packed}: a row of unknown kind {kind!r}")
            if kind == "attempts" and len(values) == width[kind] - 1:
                values.append("0")  # version 1: no disk column
            by_kind[kind].append([None if v == "" and i in nullable else v
                                  for i, v in enumerate(values)])
        with self.db:
            for kind, table in by_kind.items():
                if table:
                    marks = ", ".join("?" * len(table[0]))
                    self.db.executemany(f"INSERT OR REPLACE INTO {kind} VALUES ({marks})", table)

    def _pack(self, packed: Path) -> None:
        """Write the packed atlas: every table's rows, sorted, compressed
        (mtime 0: the same atlas gives the same bytes), renamed into place."""
        text = io.StringIO()
        out = csv.writer(text, lineterminator="\n")
        out.writerow([PACKED_MAGIC, SCHEMA_VERSION])
        for kind in PACKED_TABLES:
            for row in self.db.execute(f"SELECT * FROM {kind} ORDER BY 1, 2, 3, 4"):
                out.writerow([kind, *(_packed_value(v) for v in row)])
        packed.parent.mkdir(parents=True, exist_ok=True)
        tmp = packed.with_name(packed.name + ".tmp")
        with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                   compresslevel=9) as fh:
            fh.write(text.getvalue().encode("utf-8"))
        os.replace(tmp, packed)
        self._packed_at = time.monotonic()

    def __enter__(self) -> AtlasStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- runs ---------------------------------------------------------------

    def start_run(self, options: dict[str, Any]) -> int:
        self.changed = True
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
            "SELECT deal, cells, verdict, max_states, timeout, max_memory_mb, run, engine, budget "
            "FROM attempts WHERE game = ? AND deal BETWEEN ? AND ?", (game, first, last))
        for deal, cells, verdict, states, timeout, memory, run, engine, budget in rows:
            k = out.setdefault(deal, Known({}, {}, set()))
            if verdict == UNKNOWN:
                k.unknown.setdefault(cells, []).append(
                    (Limits(timeout=timeout, max_states=states, max_memory_mb=memory,
                            search=search_of(budget), seed=seed_of(budget)), run,
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
        return self.record_many(run, [(attempts, deals)])

    def record_many(self, run: int,
                    chunks: Iterable[tuple[Iterable[Attempt],
                                           Iterable[tuple[str, int, tuple[int, ...]]]]]
                    ) -> list[ResultRow]:
        """Store several finished chunks, each as :meth:`record` does, all in
        one transaction: the file has every one of them or none. Returns the
        rows written."""
        written: list[ResultRow] = []
        self.changed = True
        with self.db:
            for attempts, deals in chunks:
                written.extend(self._record(run, list(attempts), deals))
        if self.packed is not None and time.monotonic() - self._packed_at > PACK_EVERY:
            self._pack(self.packed)
        return written

    def _record(self, run: int, attempts: list[Attempt],
                deals: Iterable[tuple[str, int, tuple[int, ...]]]) -> list[ResultRow]:
        """One chunk, inside the caller's transaction. When the file holds
        neither attempts nor rows for any deal in the span of a game's deals
        (the usual case: a range solved for the first time), the rows follow
        from the chunk's own attempts and nothing is read back."""
        by_game: dict[str, list[tuple[int, tuple[int, ...]]]] = {}
        for game, deal, cells in deals:
            by_game.setdefault(game, []).append((deal, cells))
        fresh = {game for game, wanted in by_game.items()
                 if not self._holds(game, min(d for d, _ in wanted), max(d for d, _ in wanted))}
        keys: dict[int, str] = {}  # budget keys by id(limits): attempts share a few
        rows: list[tuple[Any, ...]] = []
        for a in attempts:
            budget = keys.get(id(a.limits))
            if budget is None:
                budget = keys[id(a.limits)] = budget_key(a.limits)
            rows.append((a.game, a.cells, a.deal, a.engine, budget, a.limits.max_states,
                         a.limits.timeout, a.limits.max_memory_mb, a.verdict, a.states,
                         a.seconds, a.cpu_seconds, a.moves, a.limit, run, a.disk_bytes))
        self.db.executemany("INSERT OR REPLACE INTO attempts VALUES "
                            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        written: list[ResultRow] = []
        for game, wanted in by_game.items():
            if game in fresh:
                # the game's attempts as the file now has them: a call made
                # twice, the last one (inserted last), in the order the file
                # reads them back (by budget)
                latest: dict[tuple[int, int, str, str], Attempt] = {}
                for a in attempts:
                    if a.game == game:
                        key = (a.deal, a.cells, a.engine, keys[id(a.limits)])
                        latest.pop(key, None)
                        latest[key] = a
                mine = list(latest.values())
                if len(set(keys.values())) > 1:
                    mine.sort(key=lambda a: (a.limits.max_states is None,
                                             a.limits.max_states or 0))
                own: dict[int, list[_Tried]] = {}
                for a in mine:
                    own.setdefault(a.deal, []).append(
                        (a.cells, a.verdict, a.states, a.seconds, a.engine, keys[id(a.limits)]))
                written.extend(self._write_results(game, wanted, own, {}))
            else:
                written.extend(self._update_results(game, wanted))
        return written

    def merge(self, other: AtlasStore) -> tuple[int, int]:
        """Take in another atlas's attempts (made on another machine, say):
        each with its run (added once: a run this file already has, as in a
        copy of it, is not added again), a call this file has not made added, one
        it made replaced only where the other resolved what it left unknown;
        then the table rows of every deal concerned are made again from all
        their attempts, so that verdicts follow by monotonicity across both
        (a contradiction between the files is an error, and nothing is
        written). Returns the attempts added and the rows written."""
        runs: dict[int, int] = {}
        taken: list[tuple[Any, ...]] = []
        with self.db:
            mine = {tuple(r[:5]): r[5] for r in self.db.execute(
                "SELECT game, cells, deal, engine, budget, verdict FROM attempts")}
            for row in other.db.execute(
                    "SELECT game, cells, deal, engine, budget, max_states, timeout, "
                    "max_memory_mb, verdict, states, seconds, cpu_seconds, moves, limit_text, "
                    "run, disk_bytes FROM attempts ORDER BY game, deal, cells"):
                had = mine.get(tuple(row[:5]))
                if had is not None and (had != UNKNOWN or row[8] == UNKNOWN):
                    continue
                taken.append(row)
            # the runs of the attempts taken in: one this file already has
            # (the same start, end and options: a copy of this file's run)
            # is not added again
            held = {(started, finished, options): run_id for run_id, started, finished, options
                    in self.db.execute("SELECT id, started, finished, options FROM runs")}
            used = {row[14] for row in taken}
            for run_id, started, finished, options in other.db.execute(
                    "SELECT id, started, finished, options FROM runs ORDER BY id"):
                if run_id not in used:
                    continue
                same = held.get((started, finished, options))
                if same is None:
                    cur = self.db.execute(
                        "INSERT INTO runs (started, finished, options) VALUES (?, ?, ?)",
                        (started, finished, options))
                    assert cur.lastrowid is not None
                    same = held[started, finished, options] = cur.lastrowid
                runs[run_id] = same
            taken = [(*row[:14], runs.get(row[14], row[14]), row[15]) for row in taken]
            self.db.executemany("INSERT OR REPLACE INTO attempts VALUES "
                                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", taken)
            wanted: dict[str, dict[int, set[int]]] = {}
            for game, cells, deal, *_ in taken:
                wanted.setdefault(game, {}).setdefault(deal, set()).add(cells)
            for table in (self.db, other.db):
                for game, deals in wanted.items():
                    for deal, cells in table.execute(
                            "SELECT deal, cells FROM results WHERE game = ?", (game,)):
                        if deal in deals:
                            deals[deal].add(cells)
            written = 0
            for game, deals in wanted.items():
                ordered = sorted(deals.items())
                for i in range(0, len(ordered), 1000):
                    part = [(deal, tuple(sorted(cells))) for deal, cells in ordered[i:i + 1000]]
                    written += len(self._update_results(game, part))
        if taken:
            self.changed = True
        return len(taken), written

    def _holds(self, game: str, first: int, last: int) -> bool:
        """Whether the file has an attempt or a row of ``game`` for a deal
        ``first``–``last``."""
        return any(self.db.execute(
            f"SELECT 1 FROM {table} WHERE game = ? AND deal BETWEEN ? AND ? LIMIT 1",
            (game, first, last)).fetchone() for table in ("attempts", "results"))

    def _update_results(self, game: str, deals: list[tuple[int, tuple[int, ...]]]
                        ) -> list[ResultRow]:
        """Rewrite the table rows of some deals of one game from all their
        attempts: the requested cells and any the table already has. Reads
        the attempts and rows of the whole span of deals at once."""
        first = min(deal for deal, _ in deals)
        last = max(deal for deal, _ in deals)
        attempts: dict[int, list[_Tried]] = {}
        for deal, *rest in self.db.execute(
                "SELECT deal, cells, verdict, states, seconds, engine, budget FROM attempts "
                "WHERE game = ? AND deal BETWEEN ? AND ? "
                "ORDER BY deal, max_states IS NULL, max_states, rowid", (game, first, last)):
            attempts.setdefault(deal, []).append(tuple(rest))
        have: dict[int, dict[int, str]] = {}
        for deal, k, verdict in self.db.execute(
                "SELECT deal, cells, verdict FROM results WHERE game = ? AND deal BETWEEN ? AND ?",
                (game, first, last)):
            have.setdefault(deal, {})[k] = verdict
        return self._write_results(game, deals, attempts, have)

    def _write_results(self, game: str, deals: list[tuple[int, tuple[int, ...]]],
                       attempts: dict[int, list[_Tried]], have: dict[int, dict[int, str]]
                       ) -> list[ResultRow]:
        """Write the table rows of ``deals`` (the requested cells and those in
        ``have``, the rows the table has, with their verdicts) from each
        deal's attempts, ordered by budget, the largest last."""
        rows: list[tuple[Any, ...]] = []
        out: list[ResultRow] = []
        for deal, cells in deals:
            solved: dict[int, _Tried] = {}
            unknown: dict[int, _Tried] = {}
            for attempt in attempts.get(deal, ()):
                (unknown if attempt[1] == UNKNOWN else solved)[attempt[0]] = attempt
            old = have.get(deal)
            wanted = sorted(set(cells).union(old)) if old else sorted(cells)
            try:
                decided = infer({k: a[1] for k, a in solved.items()}, wanted)
            except AtlasError as exc:
                raise AtlasError(f"{game} deal {deal}: {exc}") from None
            for k in wanted:
                if k in decided:
                    verdict, source = decided[k]
                    _, _, states, seconds, engine, budget = solved[source]
                    how = "solved" if source == k else "inferred"
                    if how == "inferred":
                        states, seconds = 0, 0.0
                elif k in unknown:  # the attempt with the largest budget (last in order)
                    _, verdict, states, seconds, engine, budget = unknown[k]
                    how, source = "solved", k
                else:
                    continue
                rows.append((game, k, deal, verdict, how, source, states, seconds, engine,
                             budget))
                out.append(ResultRow(game, k, deal, verdict, how, source, states, seconds,
                                     old.get(k) if old else None))
        self.db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            rows)
        return out


def _packed_value(value: object) -> object:
    """A value as a packed atlas keeps it: times to 0.1 ms, which is all a
    timer says (and compresses far better than a float's 17 digits)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if abs(value) < 1e6 else f"{value:.2f}"
    return value


@contextlib.contextmanager
def open_store(path: str | Path, *, create: bool = True) -> Iterator[AtlasStore]:
    store = AtlasStore(path, create=create)
    try:
        yield store
    finally:
        store.close()
