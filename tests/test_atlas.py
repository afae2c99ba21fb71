"""The atlas: the planner's monotonicity, every table row against a direct
solve, resume and idempotence (a killed run too), retries of unknowns, the
report's figures, the CSV export, bad input, and a real Dask scheduler with
two worker processes started from the command line (one of them killed
mid-run) giving the same table as a run in this process."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from helpers import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from bakers.atlas import AtlasError, Request, open_store, parse_cells, parse_deals, run_atlas
from bakers.atlas import work as atlas_work
from bakers.atlas.plan import NEVER, bounds, fewest_cells, infer, next_cells, prior
from bakers.atlas.report import PUBLISHED, gather, html_page, markdown, z_score
from bakers.atlas.run import (
    FIRST_CHUNK,
    MAX_CHUNK,
    TASK_SECONDS,
    ChunkSizes,
    Finished,
    InlineExecutor,
    chunk_size,
)
from bakers.atlas.store import AtlasStore, ResultRow
from bakers.atlas.work import Attempt, Chunk, DealJob, budget_key, covers, plan_deal
from bakers.board import Board
from bakers.solver import default_engine, solve
from bakers.survey import Limits

ALL = ("freecell", "bakers_game", "bakers_dozen")
CELLS = tuple(range(9))
LIMITS = Limits(timeout=None, max_states=1_000_000, max_memory_mb=2048)
BIN = Path(sys.executable).parent


def request(first: int, last: int, games: tuple[str, ...] = ALL, cells: tuple[int, ...] = CELLS,
            limits: Limits = LIMITS, retry: Limits | None = None, **kw: object) -> Request:
    return Request(games, cells, first, last, limits, retry, **kw)  # type: ignore[arg-type]


def table(path: Path) -> list[tuple[object, ...]]:
    """The table rows that must not depend on where or how often it ran."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT game, cells, deal, verdict, how, source_cells, states "
                          "FROM results ORDER BY game, cells, deal").fetchall()




@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Deals 1-6 of every game and cell count, solved in this process."""
    path = tmp_path_factory.mktemp("atlas") / "small.sqlite"
    with open_store(path) as store:
        run_atlas(store, request(1, 6), InlineExecutor())
    return path


# --- the planner -------------------------------------------------------------------

def test_inference_follows_monotonicity() -> None:
    assert infer({4: "winnable"}, [3, 4, 5]) == {4: ("winnable", 4), 5: ("winnable", 4)}
    assert infer({2: "impossible"}, [1, 2, 3]) == {1: ("impossible", 2), 2: ("impossible", 2)}
    assert bounds({}) == (0, NEVER)
    assert fewest_cells({1: "impossible", 2: "winnable"}) == 2
    assert fewest_cells({8: "impossible"}) == NEVER
    assert fewest_cells({3: "winnable"}) is None
    with pytest.raises(AtlasError, match="contradict"):
        bounds({3: "winnable", 5: "impossible"})


@settings(max_examples=300, deadline=None)
@given(game=st.sampled_from(["freecell", "bakers_game", "other"]),
       threshold=st.integers(0, NEVER),
       cells=st.sets(st.integers(0, 8), min_size=1),
       unknown=st.sets(st.integers(0, 8)))
def test_planner_decides_every_cell_solving_each_at_most_once(
        game: str, threshold: int, cells: set[int], unknown: set[int]) -> None:
    """Against an oracle deal with a given threshold (and cell counts the
    solver cannot decide), the plan ends with every decidable requested
    count decided rightly, never solving a count twice; with the uniform
    prior (a game without published shares) it is a binary search."""
    wanted = sorted(cells)
    solved: dict[int, str] = {}
    tried: set[int] = set()
    calls: list[int] = []
    while (k := next_cells(game, wanted, solved, tried)) is not None:
        assert k in cells and k not in calls
        calls.append(k)
        if k in unknown:
            tried.add(k)
        else:
            solved[k] = "winnable" if k >= threshold else "impossible"
    decided = infer(solved, wanted)
    for k in wanted:
        if k in decided:
            assert decided[k][0] == ("winnable" if k >= threshold else "impossible")
        else:
            assert k in unknown
    if not unknown & cells:
        assert set(decided) == cells
        if game == "other":
            assert len(calls) <= 4  # ceil(log2(10 thresholds))


def expected_solves(game: str, planner: str) -> float:
    """Solves per deal over cells 0-8, averaged over ``game``'s prior."""
    total = 0.0
    for threshold, p in enumerate(prior(game)):
        solved: dict[int, str] = {}
        while (k := next_cells(planner, CELLS, solved, set())) is not None:
            solved[k] = "winnable" if k >= threshold else "impossible"
            total += p
    return total


def test_the_prior_saves_solves_over_plain_binary_search() -> None:
    assert expected_solves("freecell", "freecell") == pytest.approx(2.2, abs=0.01)
    assert expected_solves("freecell", "other") > 3.5
    assert expected_solves("bakers_game", "bakers_game") < 2.4
    assert expected_solves("bakers_game", "other") > 3.2


def test_prior_makes_the_usual_freecell_deal_take_two_solves() -> None:
    """A FreeCell deal that needs 2 cells: won with 2, lost with 1, done."""
    solved: dict[int, str] = {}
    order = []
    while (k := next_cells("freecell", CELLS, solved, set())) is not None:
        order.append(k)
        solved[k] = "winnable" if k >= 2 else "impossible"
    assert order == [2, 1]


def test_plan_deal_uses_known_verdicts_and_skips_tried_cells(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def fake(game: str, cells: int, deal: int, limits: Limits,
             engine: str | None = None) -> Attempt:
        calls.append(cells)
        verdict = "winnable" if cells >= 5 else "impossible"
        return Attempt(game, cells, deal, verdict, 1, 0.0, 0.0, None, "", "test", limits)

    monkeypatch.setattr(atlas_work, "solve_one", fake)
    job = DealJob("bakers_game", 7, CELLS, solved=((4, "impossible"),), tried=(6,))
    attempts = plan_deal(job, LIMITS)
    assert 4 not in calls and 6 not in calls
    assert calls == [5]  # 4 lost is known; 5 won settles everything else
    assert [a.cells for a in attempts] == [5]


def test_budgets() -> None:
    assert budget_key(LIMITS) == "states=1000000 timeout=none memory=2048"
    assert covers(Limits(None, None, None), LIMITS)
    assert not covers(LIMITS, Limits(None, 2_000_000, 2048))
    assert not covers(Limits(5.0, 1_000_000, 2048), LIMITS)  # a timeout stopped it sooner


def test_the_retry_pass_may_restart() -> None:
    """--retry-search restarts: the retry pass runs the portfolio with its
    restarts (a budget of its own: it does not cover the portfolio's, nor
    the portfolio's it), and only on the native engine."""
    from bakers.atlas.run import RunOptions

    request = RunOptions(games="freecell", cells_text="1", deals_text="1-2",
                         retry_search="restarts", engine="native").request()
    assert request.retry_limits is not None and request.retry_limits.search == "restarts"
    assert budget_key(request.retry_limits).endswith("search=restarts")
    assert [t.limits.search for t in request.tiers()][:2] == ["portfolio", "restarts"]
    portfolio = dataclasses.replace(request.retry_limits, search="portfolio")
    assert not covers(portfolio, request.retry_limits)
    assert not covers(request.retry_limits, portfolio)
    for bad in (dict(retry_search="beams"), dict(retry_search="restarts", engine="python")):
        with pytest.raises(AtlasError, match="--retry-search"):
            RunOptions(**bad).request()  # type: ignore[arg-type]


def test_the_retry_pass_may_draw_another_seed(tmp_path: Path) -> None:
    """--retry-seed: the retry pass's restarts draw from another seed, named
    in the attempt's budget (so that it neither covers nor is covered by the
    library's seed), and read back from the file as it was written."""
    from bakers.atlas.run import RunOptions

    if default_engine() != "native":
        pytest.skip("the native solver core is not built here")

    request = RunOptions(games="bakers_dozen", deals_text="1-2", retry_seed=9,
                         engine="native").request()
    assert request.retry_limits is not None and request.retry_limits.seed == 9
    assert budget_key(request.retry_limits).endswith("seed=9")
    default = dataclasses.replace(request.retry_limits, seed=None)
    assert not covers(default, request.retry_limits)
    assert not covers(request.retry_limits, default)
    assert covers(request.retry_limits, request.retry_limits)
    for bad in (dict(games="freecell", retry_seed=2),
                dict(games="bakers_dozen", retry_seed=2, engine="python"),
                dict(games="bakers_dozen", retry_seed=-1)):
        with pytest.raises(AtlasError, match="--retry-seed"):
            RunOptions(**bad).request()  # type: ignore[arg-type]
    small_budgets = RunOptions(games="bakers_dozen", deals_text="1-1", max_states=50,
                               retry_max_states=100, proof_max_states=0, retry_seed=9,
                               engine="native", fallback_engine="none").request()
    with open_store(tmp_path / "seeded.sqlite") as store:
        run_atlas(store, small_budgets, InlineExecutor())
        known = store.known("bakers_dozen", 1, 1)[1]
    tried = [limits for limits, _run, _engine in known.unknown[0]]
    assert sorted((t.max_states, t.seed) for t in tried) == [(50, None), (100, 9)]


def test_option_parsing() -> None:
    assert parse_cells("0-2,4") == [0, 1, 2, 4]
    assert parse_cells("3") == [3]
    assert parse_deals("1-32,000") == (1, 32000)
    for bad in ("9", "4-2", "x", ""):
        with pytest.raises(AtlasError):
            parse_cells(bad)


# --- real solves -------------------------------------------------------------------

def test_every_row_agrees_with_a_direct_solve(small: Path) -> None:
    """Solved or inferred, each verdict is the solver's own at that count."""
    rows = table(small)
    assert len(rows) == 6 * (9 + 9 + 1)
    for game, cells, deal, verdict, how, source, _ in rows:
        assert how in ("solved", "inferred")
        assert (how == "solved") == (source == cells)
        direct = solve(Board.deal(str(game), int(str(deal)), cells=int(str(cells))),
                       max_states=1_000_000, texts=False)
        assert verdict == direct.verdict.value, (game, cells, deal)


def test_monotonicity_saves_most_solves(small: Path) -> None:
    with sqlite3.connect(small) as db:
        attempts = db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
        inferred = db.execute("SELECT COUNT(*) FROM results WHERE how = 'inferred'"
                              ).fetchone()[0]
        per_deal = db.execute("SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM attempts "
                              "WHERE game != 'bakers_dozen' GROUP BY game, deal)").fetchone()[0]
    assert attempts < 6 * 19 / 2
    assert inferred > 6 * 19 / 2
    assert per_deal <= 5


def test_a_second_run_solves_nothing_and_adds_no_row(small: Path, tmp_path: Path) -> None:
    copy = tmp_path / "again.sqlite"
    with sqlite3.connect(small) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    before = table(copy)
    with open_store(copy) as store:
        summary = run_atlas(store, request(1, 6), InlineExecutor())
    assert summary.solves == 0 and summary.chunks == 0
    assert table(copy) == before


def test_a_wider_request_reuses_what_is_known(tmp_path: Path) -> None:
    """Cells 4 first, then 0-8: the second run infers what follows from the
    first run's attempts and solves only the rest; the table is the same as
    solving 0-8 at once."""
    staged, direct = tmp_path / "staged.sqlite", tmp_path / "direct.sqlite"
    with open_store(staged) as store:
        run_atlas(store, request(1, 5, games=("bakers_game",), cells=(4,)), InlineExecutor())
        first = store.db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
        assert first == 5
        run_atlas(store, request(1, 5, games=("bakers_game",)), InlineExecutor())
        cells4 = store.db.execute("SELECT COUNT(*) FROM attempts WHERE cells = 4").fetchone()[0]
    assert cells4 == 5  # not solved again
    with open_store(direct) as store:
        run_atlas(store, request(1, 5, games=("bakers_game",)), InlineExecutor())
    verdicts = [(g, c, d, v) for g, c, d, v, *_ in table(staged)]
    assert verdicts == [(g, c, d, v) for g, c, d, v, *_ in table(direct)]


def test_unknowns_are_retried_with_the_larger_budget(tmp_path: Path) -> None:
    path = tmp_path / "retry.sqlite"
    tiny = Limits(timeout=None, max_states=50, max_memory_mb=2048)
    with open_store(path) as store:
        summary = run_atlas(store, request(1, 4, games=("freecell",), cells=(4,), limits=tiny),
                            InlineExecutor())
        assert summary.unknown_left > 0  # 50 positions decide few deals
        again = run_atlas(store, request(1, 4, games=("freecell",), cells=(4,), limits=tiny),
                          InlineExecutor())
        assert again.solves == 0  # same budget: the unknowns stand
        forced = run_atlas(store, request(1, 4, games=("freecell",), cells=(4,), limits=tiny,
                                          retry_unknown=True), InlineExecutor())
        assert forced.solves == summary.unknown_left  # --retry-unknown: tried again
        done = run_atlas(store, request(1, 4, games=("freecell",), cells=(4,), limits=tiny,
                                        retry=LIMITS), InlineExecutor())
        assert done.per_tier[0] == 0 and done.per_tier[1] == summary.unknown_left
        assert done.unknown_left == 0
        budgets = {r[0] for r in store.db.execute("SELECT DISTINCT budget FROM attempts")}
    assert budgets == {budget_key(tiny), budget_key(LIMITS)}
    assert all(v == "winnable" for _, _, _, v, *_ in table(path))


def test_what_one_engine_leaves_unknown_goes_to_the_other(tmp_path: Path) -> None:
    if default_engine() != "native":
        pytest.skip("the native solver core is not built here")
    path = tmp_path / "fallback.sqlite"
    tiny = Limits(timeout=None, max_states=50, max_memory_mb=2048)
    ask = request(1, 3, games=("freecell",), cells=(4,), limits=tiny, engine="native",
                  fallback_engine="python")
    with open_store(path) as store:
        summary = run_atlas(store, ask, InlineExecutor())
        first_pass = store.db.execute(
            "SELECT COUNT(*) FROM attempts WHERE engine LIKE 'native %' AND verdict = 'unknown'"
        ).fetchone()[0]
        assert first_pass > 0 and summary.per_tier == [summary.per_tier[0], first_pass]
        engines = {r[0].split()[0] for r in store.db.execute("SELECT engine FROM attempts")}
        assert engines == {"native", "python"}
        assert run_atlas(store, ask, InlineExecutor()).solves == 0


def test_no_python_fallback_after_the_native_engine_unless_asked() -> None:
    from bakers.atlas.run import RunOptions

    if default_engine() != "native":
        pytest.skip("the native solver core is not built here")
    assert RunOptions(engine="native").request().fallback_engine is None
    assert RunOptions(engine="python").request().fallback_engine == "native"
    asked = RunOptions(engine="native", fallback_engine="python").request()
    assert asked.fallback_engine == "python"


def test_the_proof_pass_decides_what_the_portfolio_left_unknown(tmp_path: Path) -> None:
    if default_engine() != "native":
        pytest.skip("the native solver core is not built here")
    path = tmp_path / "proof.sqlite"
    tiny = Limits(timeout=None, max_states=50, max_memory_mb=2048)
    proof = Limits(timeout=None, max_states=5_000_000, max_memory_mb=2048, search="exhaustive")
    ask = request(25, 28, games=("freecell",), cells=(1,), limits=tiny, proof_limits=proof)
    with open_store(path) as store:
        summary = run_atlas(store, ask, InlineExecutor())
        left = store.db.execute("SELECT COUNT(*) FROM attempts WHERE verdict = 'unknown'"
                                ).fetchone()[0]
        assert summary.per_tier == [4, left] and left >= 2  # 50 positions decide few
        assert summary.unknown_left == 0
        budgets = {r[0] for r in store.db.execute("SELECT DISTINCT budget FROM attempts")}
        assert budgets == {budget_key(tiny), budget_key(proof)}
        assert budget_key(proof).endswith("search=exhaustive")
        assert run_atlas(store, ask, InlineExecutor()).solves == 0  # resumes: nothing left
    for _, cells, deal, verdict, *_ in table(path):
        assert verdict == solve(Board.deal("freecell", deal, cells=cells)).verdict.value


# --- the client's own costs: chunk sizes, batched writes ---------------------------

def threshold(game: str, deal: int) -> int:
    """The fewest cells that win ``deal`` in the fake solver below."""
    return (deal * 7 + len(game)) % (NEVER + 1)


@pytest.fixture
def fake_solver(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """A solver that knows every deal's threshold at once (and leaves the
    cell count 6 unknown), taking 0.3 ms a solve by its own account; returns
    the list of its calls."""
    calls: list[tuple[str, int, int]] = []

    def fake(game: str, cells: int, deal: int, limits: Limits,
             engine: str | None = None) -> Attempt:
        calls.append((game, cells, deal))
        verdict = ("unknown" if cells == 6 else
                   "winnable" if cells >= threshold(game, deal) else "impossible")
        return Attempt(game, cells, deal, verdict, 100, 0.0003, 0.0003, None, "",
                       f"{default_engine()} fake", limits)

    monkeypatch.setattr(atlas_work, "solve_one", fake)
    return calls


def test_chunk_sizes_follow_the_solver_pace() -> None:
    """Small ranges keep small tasks; a large one has tasks of about
    ``TASK_SECONDS`` of solver time, between 1 and ``MAX_CHUNK`` deals."""
    assert chunk_size(request(1, 6), 2) == 1
    assert chunk_size(request(1, 1000), 2) == 63
    assert chunk_size(request(1, 1_000_000), 2) == MAX_CHUNK
    assert chunk_size(request(1, 1_000_000, chunk=7), 2) == 7
    sizes = ChunkSizes(MAX_CHUNK)
    assert sizes("freecell") == FIRST_CHUNK
    jobs = tuple(DealJob("freecell", d, (4,)) for d in range(1, 21))

    def attempts(seconds: float) -> list[Attempt]:
        return [Attempt("freecell", 4, job.deal, "winnable", 1, seconds, seconds, None, "",
                        "fake 1", LIMITS) for job in jobs]

    sizes.observe(Chunk(jobs, LIMITS), attempts(0.0003))  # fast deals: the largest tasks
    assert sizes("freecell") == MAX_CHUNK
    assert sizes("bakers_dozen") == FIRST_CHUNK  # a game's pace is its own
    sizes.observe(Chunk(jobs, LIMITS), attempts(0.5))  # slow ones: a few deals a task
    assert sizes("freecell") == int(TASK_SECONDS * 40 / (20 * 0.0003 + 20 * 0.5))
    sizes.observe(Chunk(jobs, LIMITS), attempts(60.0))
    assert sizes("freecell") == 1
    assert ChunkSizes(1, fixed=True)("freecell") == 1
    assert ChunkSizes(5)("freecell") == 5


def test_a_large_range_goes_in_large_chunks(tmp_path: Path,
                                            fake_solver: list[tuple[str, int, int]]) -> None:
    with open_store(tmp_path / "large.sqlite") as store:
        summary = run_atlas(store, request(1, 20_000, games=("freecell",), cells=(4,)),
                            InlineExecutor())
        assert summary.solves == 20_000 == len(fake_solver)
        assert summary.chunks <= 12  # 20 deals, then 2,000 at a time
        assert store.count_done("freecell", 4, 1, 20_000)["winnable"] == sum(
            threshold("freecell", d) <= 4 for d in range(1, 20_001))


class BatchOf3:
    """Chunks solved in this process, handed back three at a time, as a busy
    client receives them from a cluster."""

    workers = 2

    def __init__(self) -> None:
        self.handed: list[list[Chunk]] = []

    def batches(self, chunks: Iterator[Chunk]) -> Iterator[list[Finished]]:
        batch: list[Finished] = []
        for chunk in chunks:
            batch.append((chunk, atlas_work.solve_chunk(chunk)))
            if len(batch) == 3:
                self.handed.append([c for c, _ in batch])
                yield batch
                batch = []
        if batch:
            self.handed.append([c for c, _ in batch])
            yield batch


def test_batched_writes_resume_with_every_written_chunk_exactly_once(
        tmp_path: Path, fake_solver: list[tuple[str, int, int]]) -> None:
    """Three chunks per transaction: a run killed while writing its second
    batch leaves the first batch whole and nothing of the second; the same
    command then solves only what is missing, and the table is a clean
    run's."""
    ask = request(1, 60, games=("freecell", "bakers_game"), cells=(2, 3, 4, 5, 6), chunk=4)

    class Killed(Exception):
        pass

    class KilledStore(AtlasStore):
        """Dies after the first chunk of its second batch is in the file."""

        def __init__(self, path: Path) -> None:
            super().__init__(path)
            self.chunks = 0

        def _record(self, run: int, attempts: list[Attempt],
                    deals: Iterable[tuple[str, int, tuple[int, ...]]]) -> list[ResultRow]:
            if self.chunks == 4:
                raise Killed
            self.chunks += 1
            return super()._record(run, attempts, deals)

    path = tmp_path / "killed.sqlite"
    executor = BatchOf3()
    with KilledStore(path) as store, pytest.raises(Killed):
        run_atlas(store, ask, executor)
    made = len(fake_solver)
    with sqlite3.connect(path) as db:
        before = db.execute("SELECT game, cells, deal, budget FROM attempts").fetchall()
        rows = db.execute("SELECT game, deal FROM results").fetchall()
    assert len(executor.handed) == 2
    first_batch = {(job.game, job.deal) for chunk in executor.handed[0] for job in chunk.jobs}
    assert len(first_batch) == 12
    assert {(g, d) for g, _, d, _ in before} == {(g, d) for g, d in rows} == first_batch
    del fake_solver[:]
    with open_store(path) as store:
        run_atlas(store, ask, BatchOf3())
    with sqlite3.connect(path) as db:
        after = db.execute("SELECT game, cells, deal, budget, run FROM attempts").fetchall()
    assert {key for key in after if key[4] == 1} == {(*key, 1) for key in before}
    assert not {(g, k, d) for g, k, d, _ in before} & set(fake_solver)  # none made again
    assert len(before) + len(fake_solver) == len(after) < made + len(fake_solver)
    clean = tmp_path / "clean.sqlite"
    with open_store(clean) as store:
        run_atlas(store, ask, InlineExecutor())
    assert table(path) == table(clean)


def test_rows_from_a_chunks_own_attempts_are_the_rows_read_back(tmp_path: Path) -> None:
    """Deals the file knew nothing of get their rows from the chunk's own
    attempts, without reading them back: the same rows, to the field, as
    rewriting them from the file."""
    rng = random.Random(7)
    small, large = LIMITS, Limits(timeout=None, max_states=30_000_000, max_memory_mb=2048)
    with open_store(tmp_path / "rows.sqlite") as store:
        run = store.start_run({})
        for n in range(40):
            deals = range(100 * n + 1, 100 * n + 1 + rng.randint(1, 30))
            attempts: list[Attempt] = []
            wanted: list[tuple[str, int, tuple[int, ...]]] = []
            for deal in deals:
                cells = tuple(sorted(rng.sample(range(9), rng.randint(1, 9))))
                wanted.append(("bakers_game", deal, cells))
                fewest = rng.randint(0, NEVER)
                for k in rng.sample(range(9), rng.randint(0, 4)):
                    for limits in rng.sample([small, large], rng.randint(1, 2)):
                        for _ in range(rng.choice([1, 1, 1, 2])):  # the same call twice
                            verdict = rng.choice(["unknown", "winnable" if k >= fewest
                                                  else "impossible"])
                            attempts.append(Attempt("bakers_game", k, deal, verdict,
                                                    rng.randint(1, 10**6), rng.random(),
                                                    rng.random(), None, "", "fake 1", limits))
            fresh = store.record(run, attempts, wanted)
            with store.db:
                again = store._update_results("bakers_game", [(d, c) for _, d, c in wanted])
            assert all(row.previous is None for row in fresh)
            assert fresh == [dataclasses.replace(row, previous=None) for row in again]
            assert all(row.previous == row.verdict for row in again)


def test_rows_tell_their_previous_verdict(tmp_path: Path) -> None:
    """Counting the rows each write reports (less the verdicts they replace)
    gives the file's counts: the progress bars need not count the file."""
    tiny = Limits(timeout=None, max_states=50, max_memory_mb=2048)
    with open_store(tmp_path / "counts.sqlite") as store:
        counts = {k: store.count_done("freecell", k, 1, 4) for k in range(9)}

        def on_rows(rows: list[ResultRow]) -> None:
            for row in rows:
                counts[row.cells][row.verdict] += 1
                if row.previous is not None:
                    counts[row.cells][row.previous] -= 1

        for ask in (request(1, 4, games=("freecell",), cells=(4,), limits=tiny),
                    request(1, 4, games=("freecell",), cells=(3, 4, 5), limits=tiny,
                            retry=LIMITS),
                    request(1, 4, games=("freecell",), cells=(2, 3))):
            run_atlas(store, ask, InlineExecutor(), on_rows=on_rows)
            assert counts == {k: store.count_done("freecell", k, 1, 4) for k in range(9)}
        assert sum(counts[4].values()) == 4 and counts[4]["unknown"] == 0


# --- report and export ---------------------------------------------------------------

def test_z_scores() -> None:
    assert z_score(0.75, 32_000, 0.75, 0.0, population=32_000) is None  # exact agreement
    assert z_score(0.76, 32_000, 0.75, 0.0, population=32_000) == float("inf")
    z = z_score(0.8, 100, 0.75, 0.0)
    assert z is not None and abs(z - 0.05 / (0.16 / 100) ** 0.5) < 1e-9
    z = z_score(0.75, 10_000, 0.75053, 0.028 / 1.959963984540054)
    assert z is not None and -0.2 < z < 0


def test_report_has_every_part(small: Path) -> None:
    with open_store(small, create=False) as store:
        figures = gather(store, hardest=5)
    assert len(figures.cells) == 19
    fc4 = figures.cell("freecell", 4)
    assert fc4 is not None and fc4.deals == 6 and fc4.winnable == 6 and fc4.ci95 is not None
    assert sum(figures.fewest["freecell"].values()) == 6
    assert None not in figures.fewest["freecell"]  # cells 0-8 pin every deal down
    assert len(figures.hardest) == 5
    labels = {c.figure.label for c in figures.comparisons}
    assert labels == {p.label for p in PUBLISHED}  # deals 1-6 overlap every figure
    text = markdown(figures)
    for heading in ("Winnable share by game and cells", "Fewest cells that win each deal",
                    "Hardest deals", "Published figures beside the atlas"):
        assert f"## {heading}" in text
    page = html_page(figures)
    assert page.count("<svg") == 3  # plots inline; nothing loaded from elsewhere
    for outside in ("<script", "<link", "<img", "src=", 'href="http', "url(http"):
        assert outside not in page


def test_cli_report_and_export(small: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    html_out, md_out, csv_out = tmp_path / "a.html", tmp_path / "a.md", tmp_path / "a.csv"
    code, _, err = run_cli(["atlas", "report", str(small), "--html", str(html_out),
                            "--markdown", str(md_out)], capsys)
    assert code == 0, err
    assert html_out.read_text().startswith("<!doctype html>")
    assert "| FreeCell | 4 |" in md_out.read_text()
    code, _, err = run_cli(["atlas", "export", str(small), "--out", str(csv_out)], capsys)
    assert code == 0, err
    with csv_out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["game", "cells", "deal", "verdict", "how", "states", "seconds"]
    assert len(rows) == 6 * 19
    assert {r["how"] for r in rows} == {"solved", "inferred"}
    assert all(r["states"] == "0" for r in rows if r["how"] == "inferred")


@pytest.mark.parametrize("args", [
    ["atlas", "run", "--games", "spider"],
    ["atlas", "run", "--cells", "0-9"],
    ["atlas", "run", "--deals", "10-1"],
    ["atlas", "run", "--deals", "0-5"],
    ["atlas", "run", "--workers", "0"],
    ["atlas", "run", "--chunk", "0"],
    ["atlas", "run", "--scheduler", "tcp://127.0.0.1:1", "--deals", "1-2", "--cells", "4",
     "--games", "freecell", "--out", "{tmp}/x.sqlite"],
    ["atlas", "report", "{tmp}/missing.sqlite"],
    ["atlas", "export", "{tmp}/not-an-atlas.txt"],
    ["atlas", "report", "{tmp}/other.sqlite"],
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "not-an-atlas.txt").write_text("game,cells\n")
    with sqlite3.connect(tmp_path / "other.sqlite") as db:
        db.execute("CREATE TABLE t (x)")
    code, _, err = run_cli([a.replace("{tmp}", str(tmp_path)) for a in args], capsys)
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1, err


# --- processes: the CLI on a local cluster, a kill, and a Dask cluster -----------------

def bakers(*args: str, **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen([str(BIN / "bakers"), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)  # type: ignore[call-overload]


def wait_rows(path: Path, n: int, proc: subprocess.Popen[str], timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            return
        try:
            with sqlite3.connect(path, timeout=5) as db:
                if db.execute("SELECT COUNT(*) FROM results").fetchone()[0] >= n:
                    return
        except sqlite3.OperationalError:
            pass
        time.sleep(0.2)
    raise AssertionError("no rows appeared")


def test_killed_run_resumes_without_recomputing(tmp_path: Path) -> None:
    """``kill -9`` mid-run, then the same command: the table equals a clean
    run's, and no attempt stored before the kill was made again."""
    path = tmp_path / "killed.sqlite"
    args = ["atlas", "run", "--games", "bakers_game", "--cells", "2-5", "--deals", "1-60",
            "--out", str(path), "--workers", "1", "--chunk", "2", "--no-progress"]
    proc = bakers(*args, start_new_session=True)
    try:
        wait_rows(path, 8, proc)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with sqlite3.connect(path) as db:
        before = dict(((g, c, d, b), s) for g, c, d, b, s in db.execute(
            "SELECT game, cells, deal, budget, run FROM attempts"))
    assert before and all(run == 1 for run in before.values())
    finished = bakers(*args)
    _, err = finished.communicate(timeout=300)
    assert finished.returncode == 0, err
    with sqlite3.connect(path) as db:
        after = dict(((g, c, d, b), s) for g, c, d, b, s in db.execute(
            "SELECT game, cells, deal, budget, run FROM attempts"))
    assert all(after[key] == 1 for key in before)  # kept, not solved again
    clean = tmp_path / "clean.sqlite"
    with open_store(clean) as store:
        run_atlas(store, request(1, 60, games=("bakers_game",), cells=(2, 3, 4, 5)),
                  InlineExecutor())
    assert table(path) == table(clean)


@pytest.mark.slow
def test_dask_cluster_gives_the_local_table_even_when_a_worker_dies(
        dask_cluster: tuple[str, list[subprocess.Popen[bytes]]], small: Path,
        tmp_path: Path) -> None:
    address, procs = dask_cluster
    path = tmp_path / "dask.sqlite"
    run = bakers("atlas", "run", "--games", "all", "--cells", "0-8", "--deals", "1-6",
                 "--out", str(path), "--scheduler", address, "--chunk", "1", "--no-progress")
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert table(path) == table(small)
    with sqlite3.connect(path) as db:
        engines = {r[0] for r in db.execute("SELECT DISTINCT engine FROM attempts")}
    assert len(engines) == 1

    # one worker killed (SIGKILL) while it holds a chunk: its chunk is rerun
    # on the other worker and the table is still the local one
    killed = tmp_path / "killed.sqlite"
    # (600 deals in 200 tasks: the run is still going when the worker dies)
    run = bakers("atlas", "run", "--games", "bakers_game", "--cells", "2-5", "--deals", "1-600",
                 "--out", str(killed), "--scheduler", address, "--chunk", "3", "--no-progress")
    wait_rows(killed, 4, run)
    assert run.poll() is None, "the run ended before a worker could be killed"
    os.killpg(procs[1].pid, signal.SIGKILL)
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    local = tmp_path / "local.sqlite"
    with open_store(local) as store:
        run_atlas(store, request(1, 600, games=("bakers_game",), cells=(2, 3, 4, 5)),
                  InlineExecutor())
    assert table(killed) == table(local)


def test_cli_run_on_a_local_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cli.sqlite"
    args = ["atlas", "run", "--games", "freecell,bakers-game", "--cells", "3,4",
            "--deals", "1-8", "--out", str(path), "--workers", "2", "--no-progress", "--json"]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["unknown"] == 0 and summary["solves"] > 0
    assert {(t["game"], t["cells"]) for t in summary["tables"]} == {
        ("freecell", 3), ("freecell", 4), ("bakers_game", 3), ("bakers_game", 4)}
    local = tmp_path / "inline.sqlite"
    with open_store(local) as store:
        run_atlas(store, request(1, 8, games=("freecell", "bakers_game"), cells=(3, 4)),
                  InlineExecutor())
    assert table(path) == table(local)
