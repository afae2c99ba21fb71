"""Surveys: CSV rows match single solves, resume skips finished deals, a kill
loses only the deals in flight, the summary's arithmetic, and bad input."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import run_cli

from bakers.board import Board
from bakers.games import find_game
from bakers.solver import Verdict, solve
from bakers.survey import (
    CSV_FIELDS,
    DealResult,
    Limits,
    SurveyError,
    SurveyFile,
    summarize,
    survey,
    wilson_interval,
)

BG = find_game("bakers_game")
FC = find_game("freecell")


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def result(deal: int, verdict: str = "winnable", seconds: float = 0.01, states: int = 100,
           moves: int | None = 90) -> DealResult:
    won = verdict == "winnable"
    return DealResult("bakers_game", 4, deal, verdict, moves if won else None,
                      moves + 10 if won and moves else None, states, seconds,
                      "state limit" if verdict == "unknown" else "")




# --- summary arithmetic ---------------------------------------------------------

@pytest.mark.parametrize(("k", "n", "lo", "hi"), [
    # Hand-computed with z = 1.96: e.g. 8/10 gives centre (0.8 + 0.19207) / 1.38415
    # = 0.71673 and half-width 1.96 * sqrt(0.016 + 0.0096036) / 1.38415 = 0.22658.
    (8, 10, 0.4902, 0.9433),
    (81, 263, 0.2553, 0.3662),   # Newcombe (1998), Statistics in Medicine 17:857, example
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (1, 1, 0.2065, 1.0),
    (988, 1000, 0.9791, 0.9931),
])
def test_wilson_interval_matches_hand_computed_values(k: int, n: int, lo: float,
                                                      hi: float) -> None:
    got_lo, got_hi = wilson_interval(k, n)
    assert got_lo == pytest.approx(lo, abs=5e-5)
    assert got_hi == pytest.approx(hi, abs=5e-5)
    assert 0.0 <= got_lo <= k / n <= got_hi <= 1.0


def test_wilson_interval_refuses_nonsense() -> None:
    for k, n in ((0, 0), (3, 2), (-1, 5)):
        with pytest.raises(ValueError):
            wilson_interval(k, n)


def test_summarize_counts_medians_and_interval_over_resolved_deals() -> None:
    results = [result(1, seconds=0.02), result(2, "impossible", seconds=0.5, states=9000),
               result(3, seconds=0.01, moves=80), result(4, "unknown", seconds=3.0),
               result(5, seconds=0.04, moves=100), result(99, seconds=50.0)]  # 99: out of range
    s = summarize(BG, 1, 10, results, solved_now=2)
    assert s.deals == 5 and s.missing == 5
    assert s.counts == {"winnable": 3, "impossible": 1, "unknown": 1}
    assert s.resolved == 4
    assert s.winnable_share == pytest.approx(0.75)
    assert s.winnable_ci95 == wilson_interval(3, 4)
    assert s.median_seconds == pytest.approx(0.04)
    assert (s.worst_seconds, s.worst_deal) == (3.0, 4)
    assert s.total_seconds == pytest.approx(3.57)
    assert s.total_states == 100 * 4 + 9000
    assert s.median_moves == 90 and s.median_single_moves == 100
    assert (s.solved_now, s.from_file) == (2, 3)
    data = s.to_json()
    assert data["winnable_percent"] == 75.0
    assert data["winnable_ci95_percent"] == pytest.approx(
        [100 * x for x in wilson_interval(3, 4)], abs=1e-3)
    assert json.loads(json.dumps(data)) == data


def test_summarize_with_nothing_resolved() -> None:
    s = summarize(BG, 1, 3, [result(1, "unknown")])
    assert s.winnable_share is None and s.winnable_ci95 is None
    assert s.median_moves is None
    assert summarize(BG, 1, 3, []).median_seconds is None


def test_deal_result_row_round_trip() -> None:
    for r in (result(7), result(8, "impossible"), result(9, "unknown")):
        back = DealResult.from_row(r.to_row())
        assert back == DealResult(**{**r.__dict__, "seconds": round(r.seconds, 4)})
    with pytest.raises(ValueError):
        DealResult.from_row({**result(1).to_row(), "verdict": "maybe"})


# --- the CSV file ----------------------------------------------------------------

def write_csv(path: Path, rows: list[DealResult]) -> None:
    with SurveyFile(path, BG) as store:
        for r in rows:
            store.append(r)


def test_survey_file_round_trip_and_last_row_wins(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    write_csv(path, [result(1, "unknown"), result(2), result(1, "impossible")])
    assert path.read_text().splitlines()[0] == ",".join(CSV_FIELDS)
    done = SurveyFile(path, BG).load()
    assert sorted(done) == [1, 2] and done[1].verdict == "impossible"


def test_survey_file_drops_a_line_cut_short_by_a_kill(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    write_csv(path, [result(1), result(2)])
    whole = path.read_bytes()
    path.write_bytes(whole + b"bakers_game,4,3,winn")
    done = SurveyFile(path, BG).load()
    assert sorted(done) == [1, 2]
    assert path.read_bytes() == whole  # the next row will start on a line of its own


@pytest.mark.parametrize(("game", "content", "message"), [
    ("freecell", None, "survey of Baker's Game with 4 cells, not FreeCell with 4"),
    ("bakers_game:3", None, "not Baker's Game with 3"),
    ("bakers_game", "name,score\nx,1\n", "not a bakers survey CSV"),
    ("bakers_game", ",".join(CSV_FIELDS) + "\nbakers_game,4,x,winnable,,,1,0.1,\n", "line 2"),
])
def test_survey_file_refuses_other_surveys(tmp_path: Path, game: str, content: str | None,
                                           message: str) -> None:
    path = tmp_path / "s.csv"
    if content is None:
        write_csv(path, [result(1)])
    else:
        path.write_text(content)
    name, _, cells = game.partition(":")
    g = find_game(name, int(cells) if cells else None)
    before = path.read_bytes()
    with pytest.raises(SurveyError, match=message):
        SurveyFile(path, g).load()
    assert path.read_bytes() == before


# --- surveys with the solver ------------------------------------------------------

def test_csv_rows_match_solving_each_deal_alone(tmp_path: Path) -> None:
    path = tmp_path / "bg.csv"
    summary = survey(BG, 1, 6, path, workers=2)
    rows = read_rows(path)
    assert [r["deal"] for r in rows] != [] and sorted(int(r["deal"]) for r in rows) == list(
        range(1, 7))
    for row in rows:
        assert (row["game"], row["cells"]) == ("bakers_game", "4")
        alone = solve(Board.deal("bakers_game", int(row["deal"])))
        assert row["verdict"] == alone.verdict.value
        assert int(row["states"]) == alone.states
        if alone.verdict is Verdict.WINNABLE:
            assert int(row["moves"]) == len(alone.moves)
            assert int(row["single_moves"]) == len(alone.single_moves)
        else:
            assert row["moves"] == row["single_moves"] == ""
        assert float(row["seconds"]) >= 0  # a deal's own time in the core, to 0.1 ms
    assert sum(float(r["seconds"]) for r in rows) > 0
    assert summary.deals == 6 and summary.solved_now == 6 and summary.from_file == 0
    assert sum(summary.counts.values()) == 6


def test_rerun_skips_finished_deals_and_redoes_a_cut_row(tmp_path: Path) -> None:
    path = tmp_path / "fc.csv"
    survey(FC, 1, 4, path, workers=2)
    lines = path.read_bytes().splitlines(keepends=True)
    kept = lines[:3]                   # header + two deals
    kept_deals = {int(line.split(b",")[2]) for line in kept[1:]}
    path.write_bytes(b"".join(kept) + lines[3][:12])   # as if killed mid-row
    solved: list[int] = []
    summary = survey(FC, 1, 6, path, workers=2, on_result=lambda r: solved.append(r.deal))
    assert sorted(solved) == sorted(set(range(1, 7)) - kept_deals)
    assert path.read_bytes().startswith(b"".join(kept))   # old rows untouched
    deals = [int(r["deal"]) for r in read_rows(path)]
    assert sorted(deals) == list(range(1, 7))             # each deal exactly once
    assert (summary.solved_now, summary.from_file) == (4, 2)
    again: list[int] = []
    survey(FC, 1, 6, path, workers=2, on_result=lambda r: again.append(r.deal))
    assert again == []


def test_retry_unknown_solves_those_deals_again(tmp_path: Path) -> None:
    path = tmp_path / "bg.csv"
    # deals 7 and 8 need thousands of states: a limit of 1 stops them (the
    # solver checks its limits every few hundred states)
    first = survey(BG, 7, 8, path, workers=1, limits=Limits(max_states=1))
    unknown = first.counts["unknown"]
    assert unknown >= 1
    assert all(r["limit"] for r in read_rows(path) if r["verdict"] == "unknown")
    assert survey(BG, 7, 8, path, workers=1).solved_now == 0     # skipped, still unknown
    retried = survey(BG, 7, 8, path, workers=1, retry_unknown=True)
    assert retried.solved_now == unknown and retried.counts["unknown"] == 0
    assert len(read_rows(path)) == 2 + unknown  # rows are appended, the last one counts


def test_cli_survey_table_json_and_resume(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bg4.csv"
    code, stdout, _ = run_cli(["survey", "bakers_game", "1", "3", "--cells", "4",
                               "--workers", "2", "--out", str(out), "--no-progress"], capsys)
    assert code == 0
    assert "Baker's Game, 4 cells, deals 1–3" in stdout and "95% CI" in stdout
    code, stdout, _ = run_cli(["survey", "bakers-game", "1", "4", "--out", str(out),
                               "--workers", "1", "--json", "--no-progress"], capsys)
    data = json.loads(stdout)
    assert code == 0 and data["deals"] == 4 and data["solved_now"] == 1
    assert data["from_file"] == 3 and data["cells"] == 4
    assert sum(data["counts"].values()) == 4
    if data["resolved"]:
        assert 0 <= data["winnable_ci95_percent"][0] <= data["winnable_percent"] <= 100


def test_a_killed_survey_loses_only_deals_in_flight(tmp_path: Path) -> None:
    out = tmp_path / "bg.csv"
    cmd = [sys.executable, "-m", "bakers", "survey", "bakers_game", "1", "40",
           "--workers", "2", "--out", str(out), "--no-progress"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 4:  # header + 3 deals
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL  # killed mid-survey, not finished
    assert proc.stderr is not None
    proc.stderr.close()
    before = {r.deal for r in SurveyFile(out, BG).load().values()}
    assert len(before) >= 3
    solved: list[int] = []
    survey(BG, 1, 40, out, workers=2, on_result=lambda r: solved.append(r.deal))
    assert set(solved) == set(range(1, 41)) - before
    assert sorted(int(r["deal"]) for r in read_rows(out)) == list(range(1, 41))


# --- bad input ---------------------------------------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["nosuch", "1", "5"], "unknown game"),
    (["bakers_game", "5", "1"], "empty"),
    (["bakers_game", "0", "5"], "out of range"),
    (["bakers_game", "x", "5"], "not a whole number"),
    (["bakers_game", "1", "5", "--cells", "9"], "0 to 8 free cells"),
    (["bakers_dozen", "1", "5", "--cells", "2"], "no free cells"),
    (["bakers_game", "1", "5", "--workers", "0"], "--workers"),
    (["bakers_game", "1", "5", "--timeout", "0"], "--timeout"),
    (["bakers_game", "1", "5", "--max-states", "0"], "--max-states"),
    (["bakers_game", "1", "5", "--max-memory", "1"], "--max-memory"),
    (["bakers_game", "1", "5", "--workers", "abc"], "not a valid integer"),
    (["bakers_game", "1"], "Missing argument"),
])
def test_bad_arguments_exit_2_with_one_line(args: list[str], message: str,
                                            capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    code, _, stderr = run_cli(["survey", *args, "--out", str(tmp_path / "x.csv")], capsys)
    assert code == 2
    assert stderr.count("\n") == 1 and message in stderr and stderr.startswith("error: ")
    assert not (tmp_path / "x.csv").exists()


def test_an_out_file_of_another_survey_exits_2_untouched(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    path = tmp_path / "bg.csv"
    write_csv(path, [result(1)])
    before = path.read_bytes()
    for args in (["freecell", "1", "2"], ["bakers_game", "1", "2", "--cells", "3"]):
        code, _, stderr = run_cli(["survey", *args, "--out", str(path)], capsys)
        assert code == 2 and "choose another --out" in stderr
    (tmp_path / "notes.csv").write_text("hello\n")
    code, _, stderr = run_cli(["survey", "bakers_game", "1", "2", "--out",
                               str(tmp_path / "notes.csv")], capsys)
    assert code == 2 and "not a bakers survey CSV" in stderr
    assert path.read_bytes() == before
