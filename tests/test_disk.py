"""The exhaustive search that spills to disk (``bakers.solver.proof``, the
core's csrc/disk.c): the same verdicts and counts of positions as the
in-memory exhaustive search, wins replayed, checkpoints that survive a
SIGKILL, and the limits of memory and disk kept."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from helpers import bakers

from bakers import Board
from bakers.games import find_game
from bakers.solver import Verdict, native, solve
from bakers.solver.proof import DiskPlan

pytestmark = pytest.mark.skipif(not native.AVAILABLE, reason="the native core is not built")

ONE_CELL = find_game("freecell").with_cells(1)
DATA = Path(__file__).parent / "data"

# impossible positions small enough for both searches: (board, positions)
PROOFS = [
    ("freecell", 11982, None),
    ("bakers_dozen", 104, None),
    ("bakers_game", 10, None),
    ("freecell", 2143, 1),
]


def board_of(game: str, deal: int, cells: int | None) -> Board:
    g = find_game(game)
    return Board.deal(g if cells is None else g.with_cells(cells), deal)


@pytest.mark.parametrize(("game", "deal", "cells"), PROOFS)
def test_the_disk_search_proves_what_the_memory_search_proves(
        tmp_path: Path, game: str, deal: int, cells: int | None) -> None:
    board = board_of(game, deal, cells)
    memory = native.exhaust(board, timeout=None, max_states=None, max_memory_mb=None)
    assert memory.verdict == "impossible"
    seen: list[tuple[int, int, int, int]] = []
    # 1 MB: runs of a few thousand positions, so every level merges several
    done = native.exhaust_disk(board, str(tmp_path), timeout=None, max_states=None,
                               max_memory_mb=1, max_disk_bytes=None,
                               progress=lambda *a: seen.append(a))
    assert (done.outcome.verdict, done.outcome.states) == ("impossible", memory.states)
    assert done.outcome.peak_bytes <= 2**20 and done.disk_peak > 0
    assert seen and seen[-1][0] == memory.states
    layers = [layer for _, layer, _, _ in seen]
    assert layers == sorted(layers)  # cards home never go down


def near_the_end(game: str, deal: int, left: int) -> Board:
    """A deal with all but the last ``left`` moves of a winning line played."""
    board = Board.deal(game, deal)
    line = solve(board).moves
    for move in line[:-left]:
        board.push(move)
    return Board.from_text(board.to_text(), game=board.game)


def test_a_win_found_on_disk_is_replayed(tmp_path: Path) -> None:
    board = near_the_end("freecell", 1, 12)
    done = native.exhaust_disk(board, str(tmp_path), timeout=None, max_states=None,
                               max_memory_mb=1, max_disk_bytes=None)
    assert done.outcome.verdict == "winnable" and done.outcome.line
    _, singles = native.play_line_places(board, done.outcome.line, exhaustive=True)
    assert native.check_line(board, singles)
    # through solve(): the rules engine replays it
    result = solve(board, search="exhaustive", max_memory_mb=1,
                   disk=DiskPlan(1.0, str(tmp_path / "again"), progress=None))
    assert result.verdict is Verdict.WINNABLE
    check = board.copy()
    for move in result.moves:
        check.push(move)
    assert check.is_won()


def test_stopped_and_resumed_it_counts_as_one_run(tmp_path: Path) -> None:
    board = board_of("freecell", 2143, 1)
    whole = native.exhaust(board, timeout=None, max_states=None, max_memory_mb=None).states
    folder = str(tmp_path)
    for stop in (20_000, 70_000, None):
        done = native.exhaust_disk(board, folder, timeout=None, max_states=stop,
                                   max_memory_mb=1, max_disk_bytes=None, resume=stop != 20_000)
        if stop is not None:
            assert done.outcome.verdict == "unknown" and done.outcome.limit == "states"
            assert (tmp_path / "state").exists()
    assert (done.outcome.verdict, done.outcome.states) == ("impossible", whole)
    # a folder that holds a search is not started over, nor resumed for another deal
    with pytest.raises(ValueError, match="another search"):
        native.exhaust_disk(board_of("freecell", 2142, 1), folder, timeout=None,
                            max_states=None, max_memory_mb=1, max_disk_bytes=None, resume=True)
    with pytest.raises(ValueError, match="another search"):
        native.exhaust_disk(board, folder, timeout=None, max_states=None, max_memory_mb=1,
                            max_disk_bytes=None, resume=False)


def test_a_checkpoint_of_the_earlier_format_is_converted_and_resumed(tmp_path: Path) -> None:
    """tests/data/disk_checkpoint_v3.tar.gz: FreeCell 2143 with one cell stopped
    at 8,192 positions by the format before pending chunks (the layer's set in
    a file of its own, pending positions as fixed records, one of them longer
    than its checkpoint says). Resumed, it is converted and ends with the
    count of a search never stopped under the rules it was begun with: those
    formats had no closure of the cells in FreeCell, so it goes on without
    pruning rule 10 (134,139 positions, where a search begun today exhausts
    fewer)."""
    board = board_of("freecell", 2143, 1)
    whole = 134_139
    today = native.exhaust(board, timeout=None, max_states=None, max_memory_mb=None).states
    assert today < whole
    with tarfile.open(DATA / "disk_checkpoint_v3.tar.gz") as tar:
        tar.extractall(tmp_path, filter="data")
    assert (tmp_path / "state").read_text().startswith("bakers-disk-search 3")
    names = {p.name for p in tmp_path.iterdir()}
    assert {"pend-13.bin", "pend-14.bin", "V12-00007.bin"} <= names
    done = native.exhaust_disk(board, str(tmp_path), timeout=None, max_states=90_000,
                               max_memory_mb=1, max_disk_bytes=None, resume=True)
    assert done.outcome.limit == "states"
    assert (tmp_path / "state").read_text().startswith("bakers-disk-search 5")
    names = {p.name for p in tmp_path.iterdir()}
    assert not any(n.startswith(("pend-", "V")) for n in names)
    done = native.exhaust_disk(board, str(tmp_path), timeout=None, max_states=None,
                               max_memory_mb=1, max_disk_bytes=None, resume=True)
    assert (done.outcome.verdict, done.outcome.states) == ("impossible", whole)


def test_the_disk_limit_names_itself_and_keeps_the_checkpoint(tmp_path: Path) -> None:
    board = board_of("freecell", 2143, 1)
    done = native.exhaust_disk(board, str(tmp_path), timeout=None, max_states=None,
                               max_memory_mb=1, max_disk_bytes=200_000)
    assert done.outcome.verdict == "unknown" and done.outcome.limit == "disk"
    assert done.disk_peak > 200_000 - 2**16  # stopped as it was about to pass it
    result = solve(board, search="exhaustive", max_memory_mb=16,
                   disk=DiskPlan(1.0, str(tmp_path), resume=True))
    assert result.verdict is Verdict.IMPOSSIBLE


def test_a_killed_proof_resumes_to_the_same_count(tmp_path: Path) -> None:
    """SIGKILL at a random moment of a proof on disk (FreeCell deal 1706 with
    one cell: 1,673,336 positions), then --resume: the verdict and count of
    an uninterrupted run."""
    folder = tmp_path / "proof"
    args = ["solve", "freecell", "--deal", "1706", "--cells", "1", "--exhaustive",
            "--max-memory", "16", "--max-disk", "2", "--max-states", "100000000",
            "--work-dir", str(folder), "--json"]
    proc = subprocess.Popen([sys.executable, "-m", "bakers", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state = folder / "state"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if state.exists() and " 3 " in state.read_text().split("\nat ")[-1][:12]:
            break
        time.sleep(0.02)
    time.sleep(0.3)  # somewhere inside a level
    assert proc.poll() is None, "the proof ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    resumed = bakers(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert '"verdict": "impossible"' in resumed.stdout
    assert '"states": 1673336' in resumed.stdout
    assert not any(folder.iterdir())  # a decided proof leaves nothing behind


@pytest.mark.parametrize(("args", "said"), [
    (["--max-disk", "1"], "--max-disk goes with --exhaustive"),
    (["--exhaustive", "--resume"], "--work-dir and --resume go with --max-disk"),
    (["--exhaustive", "--max-disk", "1", "--resume"], "--resume needs the --work-dir"),
    (["--exhaustive", "--max-disk", "0"], "not in the range x>0"),
])
def test_disk_options_refused_in_one_line(args: list[str], said: str) -> None:
    out = bakers("solve", "freecell", "--deal", "1", *args)
    assert out.returncode == 2
    assert said in out.stderr and "Traceback" not in out.stderr


def test_the_atlas_proof_pass_spills_to_disk_and_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bakers atlas run --proof-disk``: a proof that outgrows --proof-memory
    goes on on disk in a folder of its own in the user cache; stopped by the
    proof pass's state limit, the next run with a larger one resumes it; the
    row it proves carries the count of an uninterrupted proof, and the folder
    goes once the proof is done."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    out = tmp_path / "atlas.sqlite"
    base = ["atlas", "run", "--out", str(out), "--games", "freecell", "--cells", "1",
            "--deals", "1706-1706", "--max-states", "1000", "--retry-max-states", "0",
            "--proof-memory", "16", "--proof-disk", "1", "--workers", "1", "--no-progress"]
    first = bakers(*base, "--proof-max-states", "1000000")
    assert first.returncode == 0, first.stderr
    folder = cache / "bakers" / "proofs" / "atlas-freecell-1-1706"
    assert (folder / "state").exists()  # the proof so far, kept
    second = bakers(*base, "--proof-max-states", "100000000")
    assert second.returncode == 0, second.stderr
    rows = bakers("atlas", "export", str(out)).stdout.splitlines()
    assert "freecell,1,1706,impossible,solved,1673336," in "\n".join(rows)
    assert not folder.exists()
    # the file keeps what the proof held on disk, and the report lists it
    with sqlite3.connect(out) as db:
        held = db.execute("SELECT MAX(disk_bytes) FROM attempts WHERE deal = 1706 AND "
                          "verdict = 'impossible'").fetchone()[0]
    assert 1_000_000 < held < 1_673_336 * 48
    report = bakers("atlas", "report", str(out)).stdout
    largest = report.split("Largest proofs")[1]
    assert f"| FreeCell | 1706 | 1 | impossible | 1,673,336 | {held / 2**20:,.0f} MB |" in largest
