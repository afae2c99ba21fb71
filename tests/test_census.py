"""``bakers census``: ranges, not rows; resumable; the later tiers settle
what the first pass left unknown; the same figures with one worker or two."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import bakers

from bakers.census import Plan, read, run
from bakers.games import find_game
from bakers.solver import native
from bakers.verdicts import Limits

pytestmark = pytest.mark.skipif(not native.AVAILABLE, reason="the census needs the native core")

FC = find_game("freecell")


def report(path: Path) -> dict[str, object]:
    out = bakers("census", "report", str(path), "--json")
    assert out.returncode == 0, out.stderr
    data: dict[str, object] = json.loads(out.stdout)
    return data


def test_a_census_keeps_ranges_and_exceptional_deals(tmp_path: Path) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    for path, workers in ((one, "1"), (two, "2")):
        done = bakers("census", "run", "freecell", "--deals", "11900-12100", "--out", str(path),
                      "--workers", workers)
        assert done.returncode == 0, done.stderr
        assert "impossible: 11982" in done.stdout
    a, b = report(one), report(two)
    for key in ("game", "cells", "ranges", "counts", "impossible", "unknown", "positions"):
        assert a[key] == b[key], key
    assert a["ranges"] == [[11900, 12100]]
    assert a["counts"] == {"winnable": 200, "impossible": 1, "unknown": 0}
    assert a["impossible"] == [11982] and a["unknown"] == []
    assert a["impossible_positions"] == {"11982": 62643}
    # a billion deals must fit in megabytes: a line per task, not per deal
    assert len(one.read_text().splitlines()) == 2


def test_a_cut_census_resumes_to_the_same_figures(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    plan = Plan(FC, 1, 3000, task_deals=500, retry=None)
    whole = run(path, plan).report()
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:20])  # two tasks kept, a third cut
    assert len(read(path).ranges) == 2
    again = run(path, plan).report()
    assert {k: again[k] for k in ("ranges", "counts", "positions", "impossible")} == \
        {k: whole[k] for k in ("ranges", "counts", "positions", "impossible")}
    assert len(read(path).ranges) == 6


def test_the_retry_tier_settles_what_the_first_pass_left(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    plan = Plan(FC.with_cells(2), 1, 40, limits=Limits(max_states=200),
                retry=Limits(max_states=3_000_000))
    census = run(path, plan)
    first_unknown = sum(r.counts["unknown"] for r in census.ranges)
    assert first_unknown > 0 and census.tiers
    counts, _, unknown = census.verdicts()
    assert sum(counts.values()) == 40 and len(unknown) < first_unknown
    assert all(tier == "retry" for _, _, tier in census.tiers.values())


def test_census_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n")
    out = bakers("census", "report", str(bad))
    assert out.returncode == 2 and "not a census file" in out.stderr
    good = tmp_path / "c.jsonl"
    assert bakers("census", "run", "freecell", "--deals", "1-10", "--out", str(good),
                  "--workers", "1").returncode == 0
    other = bakers("census", "run", "freecell", "--cells", "3", "--deals", "1-10", "--out",
                   str(good), "--workers", "1")
    assert other.returncode == 2 and "a census of freecell with 4 cells" in other.stderr
    for err in (other.stderr, out.stderr):
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_census_on_a_dask_cluster_gives_the_local_figures(
        dask_cluster: tuple[str, list[subprocess.Popen[bytes]]], tmp_path: Path) -> None:
    address, _ = dask_cluster
    local, remote = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    assert bakers("census", "run", "freecell", "--deals", "11000-13000", "--out", str(local),
                  "--workers", "1").returncode == 0
    done = bakers("census", "run", "freecell", "--deals", "11000-13000", "--out", str(remote),
                  "--scheduler", address, timeout=300)
    assert done.returncode == 0, done.stderr
    a, b = report(local), report(remote)
    assert {k: a[k] for k in ("ranges", "counts", "positions", "impossible")} == \
        {k: b[k] for k in ("ranges", "counts", "positions", "impossible")}
    no = bakers("census", "run", "freecell", "--deals", "1-10", "--out",
                str(tmp_path / "x.jsonl"), "--scheduler", "tcp://127.0.0.1:1")
    assert no.returncode == 2 and "cannot reach the Dask scheduler" in no.stderr


def _task_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines(keepends=True)[1:]
            if line.endswith("\n")]


def _wait_for_tasks(path: Path, n: int, proc: subprocess.Popen[bytes], seconds: float) -> None:
    end = time.monotonic() + seconds
    while not (path.exists() and len(_task_lines(path)) >= n):
        assert proc.poll() is None, "the census ended before the kill"
        assert time.monotonic() < end, f"fewer than {n} tasks written"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_killed_worker_and_a_killed_client_change_nothing(
        dask_cluster: tuple[str, list[subprocess.Popen[bytes]]], tmp_path: Path) -> None:
    """One of the two ``dask worker`` processes killed mid-run, then the
    client killed: resumed, the census equals a local run's, and the ranges
    finished before the kill are neither redone nor rewritten."""
    address, procs = dask_cluster
    deals = ["--deals", "1-120000", "--task-deals", "1000", "--retry-max-states", "0"]
    local, remote = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    assert bakers("census", "run", "freecell", *deals, "--out", str(local),
                  "--workers", "1", timeout=300).returncode == 0
    cmd = [sys.executable, "-m", "bakers", "census", "run", "freecell", *deals,
           "--out", str(remote), "--scheduler", address]
    client = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_tasks(remote, 10, client, 120)
        os.killpg(procs[2].pid, signal.SIGKILL)  # worker w2, holding tasks
        procs[2].wait()
        _wait_for_tasks(remote, 40, client, 120)
        client.send_signal(signal.SIGKILL)
        client.wait()
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    before = _task_lines(remote)
    assert 40 <= len(before) < 120
    done = bakers("census", "run", "freecell", *deals, "--out", str(remote),
                  "--scheduler", address, timeout=300)
    assert done.returncode == 0, done.stderr
    after = _task_lines(remote)
    assert after[:len(before)] == before and len(after) == 120  # nothing redone
    spans = sorted(tuple(json.loads(line)[k] for k in ("first", "last")) for line in after)
    assert spans == [(a, a + 999) for a in range(1, 120001, 1000)]
    a, b = report(local), report(remote)
    assert {k: a[k] for k in ("ranges", "counts", "positions", "impossible")} == \
        {k: b[k] for k in ("ranges", "counts", "positions", "impossible")}
    assert a["impossible"] == [11982]


DATA = Path(__file__).resolve().parent.parent / "data" / "census"
FC_IMPOSSIBLE_4_1M = [11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948]


@pytest.mark.parametrize(("name", "cells", "span", "impossible", "unknown"), [
    ("freecell-4cells-1-1000000.jsonl", 4, (1, 1_000_000), 8, []),
    ("freecell-4cells-2147483649-2157483648.jsonl", 4, (2_147_483_649, 2_157_483_648), 121, []),
    ("freecell-3cells-1-1000000.jsonl", 3, (1, 1_000_000), 6_399, []),
])
def test_the_committed_census_files_hold_what_the_docs_say(
        name: str, cells: int, span: tuple[int, int], impossible: int,
        unknown: list[int]) -> None:
    """Every range done once, the counts adding up, and a few of the
    impossible deals (the cheapest proofs) decided again by today's core."""
    census = read(DATA / name)
    assert (census.game, census.cells) == ("freecell", cells)
    spans = sorted((r.first, r.last) for r in census.ranges)
    assert spans[0][0] == span[0] and spans[-1][1] == span[1]
    assert all(b + 1 == c for (_, b), (c, _) in itertools.pairwise(spans))  # no gap or overlap
    got = census.report()
    assert got["counts"] == {"winnable": span[1] - span[0] + 1 - impossible - len(unknown),
                             "impossible": impossible, "unknown": len(unknown)}
    assert got["unknown"] == unknown
    if name == "freecell-4cells-1-1000000.jsonl":
        assert got["impossible"] == FC_IMPOSSIBLE_4_1M
    if name == "freecell-3cells-1-1000000.jsonl":  # the deal every solver before left open
        assert got["tiers"]["138026"] == {"verdict": "impossible", "positions": 413_106_520,
                                          "tier": "proof"}
    cheapest = sorted(got["impossible_positions"].items(), key=lambda kv: kv[1])[:3]
    game = FC.with_cells(cells)
    for deal, positions in cheapest:
        found = native.search_deals(game, int(deal), 1, native.Portfolio.for_game(game),
                                    timeout=None, max_states=1_000_000, max_memory_mb=1024)
        assert found[0][0].verdict == "impossible", (deal, positions)


def test_a_census_proof_on_disk_is_resumed_by_the_next_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The proof tier with --proof-disk keeps its checkpoint in the user
    cache: stopped by its budget, the next run with a larger one goes on from
    it and the deal gets the count of an uninterrupted proof."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = tmp_path / "c.jsonl"
    base = ["census", "run", "freecell", "--cells", "1", "--deals", "1706-1706", "--out",
            str(out), "--max-states", "1000", "--retry-max-states", "0", "--max-memory", "16",
            "--proof-disk", "1"]
    first = bakers(*base, "--proof-max-states", "1000000")
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "cache" / "bakers" / "proofs" / "census-freecell-1-1706"
    assert (folder / "state").exists() and report(out)["unknown"] == [1706]
    second = bakers(*base, "--proof-max-states", "100000000")
    assert second.returncode == 0, second.stderr
    got = report(out)
    assert got["impossible"] == [1706] and got["impossible_positions"] == {"1706": 1_673_336}
    assert not folder.exists()
    third = bakers(*base, "--proof-max-states", "100000000")  # nothing left to do
    assert third.returncode == 0 and len(out.read_text().splitlines()) == 4
