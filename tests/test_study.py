"""The study functions and commands: which move lost a game (checked against
Freecell Solver's own verdicts), the line to show, and a deal's rating."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from conftest import fc_solve_verdict
from helpers import bakers

from bakers.board import Board
from bakers.notation import Move, count_player_moves
from bakers.record import GameRecord
from bakers.solver import Verdict, solve
from bakers.solver.study import (
    SHOW_SHORT_SECONDS,
    analyse,
    band_of,
    difficulty_score,
    positions_of,
    rate,
    rate_deal,
    solution_line,
)

DATA = Path(__file__).resolve().parent / "data"
RECORDS = json.loads((DATA / "analyse_records.json").read_text())
FC_SOLVE = shutil.which("fc-solve")




# --- the line to show ---------------------------------------------------------------------------

def test_solution_line_replays_to_a_win_and_counts_player_moves() -> None:
    board = Board.deal("freecell", 11982 - 1)
    line = solution_line(board, budget=10)
    assert line.verdict is Verdict.WINNABLE
    replay = board.copy(stack=False)
    for text in line.texts:
        replay.push_str(text)
    assert replay.is_won()
    assert line.player_moves == sum(1 for m in line.moves if not m.dst.is_foundation)
    assert 0 < line.player_moves < len(line.moves)


def test_count_player_moves_counts_a_run_once_and_no_foundation_move() -> None:
    moves = [Move.from_str(t) for t in ("36/3", "5h", "a1", "2b", "bh")]
    assert count_player_moves(moves) == 3


def test_show_solution_plays_the_short_line_within_its_budget() -> None:
    """"Show solution" asks for the short line: never longer than the fast
    line, replayed to a win, its optimality claim backed by its bound, and
    back within the fast budget plus the short search's half second."""
    from bakers.web.study import SOLUTION_SHORT_SECONDS, solution_job
    assert SOLUTION_SHORT_SECONDS == SHOW_SHORT_SECONDS == 0.5
    shorter = 0
    for game, deal in (("freecell", 1), ("bakers_game", 617), ("bakers_dozen", 2)):
        board = Board.deal(game, deal)
        fast = solution_line(board, budget=10)
        short = solution_line(board, budget=10, short_seconds=SHOW_SHORT_SECONDS)
        assert (fast.lines, short.lines) == ("fast", "short")
        assert fast.verdict is short.verdict is Verdict.WINNABLE
        assert fast.player_moves is not None and short.player_moves is not None
        assert short.player_moves <= fast.player_moves
        shorter += short.player_moves < fast.player_moves
        assert short.player_moves == count_player_moves(short.moves)
        assert short.lower_bound is None or short.lower_bound <= short.player_moves
        assert not short.optimal or short.lower_bound == short.player_moves
        replay = board.copy(stack=False)
        for text in short.texts:
            replay.push_str(text)
        assert replay.is_won()
        t0 = time.perf_counter()
        shown = solution_job(game, board.game.cells, board.to_text(), 3.0)
        assert time.perf_counter() - t0 < 3.0 + SHOW_SHORT_SECONDS + 1.0
        assert shown["lines"] == "short" and shown["verdict"] == "winnable"
        assert shown["player_moves"] <= fast.player_moves
        assert shown["player_moves"] == sum(
            1 for step in shown["steps"] if step["movement"]["to"] != "h")
    assert shorter >= 2  # half a second shortens the fast line of most deals


def test_analysis_and_rating_keep_the_fast_line() -> None:
    """The analysis's alternative move and the rating's player moves come
    from the fast line (the rating's cut points were measured on it)."""
    board = Board.deal("freecell", 1)
    rating = rate(board, budget=10)
    assert rating.player_moves == solution_line(board, budget=10).player_moves
    short = solution_line(board, budget=10, short_seconds=SHOW_SHORT_SECONDS)
    assert short.player_moves is not None and rating.player_moves is not None
    assert short.player_moves < rating.player_moves


def test_solution_line_of_an_impossible_deal() -> None:
    line = solution_line(Board.deal("freecell", 11982), budget=20)
    assert line.verdict is Verdict.IMPOSSIBLE
    assert line.moves == () and line.player_moves is None


# --- which move lost it ---------------------------------------------------------------------------

@pytest.mark.parametrize("case", RECORDS, ids=[f"deal{c['deal']}" for c in RECORDS])
def test_analyse_names_the_move_freecell_solver_found(case: dict[str, object]) -> None:
    record = GameRecord.from_text(str(case["record"]))
    found = analyse(record.start(), record.moves, budget=10)
    assert found.deal_verdict is Verdict.WINNABLE
    losing = found.first_losing_move
    assert losing is not None
    assert losing.index == case["first_losing_move"]
    assert losing.move == case["move"] == record.moves[losing.index - 1]
    assert found.unknown == ()
    # the proof: winnable before the move, impossible after it
    assert found.verdicts[losing.index - 1] is Verdict.WINNABLE
    assert found.verdicts[losing.index] is Verdict.IMPOSSIBLE
    # the alternative is legal there, differs, and keeps the game winnable
    before = Board.from_text(losing.before, game="bakers_game")
    assert losing.alternative is not None and losing.alternative != losing.move
    before.push_str(losing.alternative)
    assert solve(before, timeout=10).verdict is Verdict.WINNABLE


@pytest.mark.skipif(FC_SOLVE is None, reason="fc-solve is not installed")
@pytest.mark.parametrize("case", RECORDS, ids=[f"deal{c['deal']}" for c in RECORDS])
def test_freecell_solver_agrees_on_both_sides_of_the_losing_move(
        case: dict[str, object]) -> None:
    record = GameRecord.from_text(str(case["record"]))
    boards, _ = positions_of(record.start(), record.moves)
    index = int(str(case["first_losing_move"]))
    assert fc_solve_verdict(boards[index - 1]) == "winnable"
    assert fc_solve_verdict(boards[index]) == "impossible"


def test_analyse_cli_json_on_a_100_move_record_under_two_seconds() -> None:
    case = next(c for c in RECORDS if c["moves"] == 100)
    start = time.perf_counter()
    done = bakers("analyse", "-", "--json", "--timeout", "5", stdin=str(case["record"]))
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) >= {"deal_verdict", "first_losing_move", "unknown"}
    assert out["deal_verdict"] == "winnable"
    assert out["first_losing_move"]["index"] == case["first_losing_move"]
    assert out["first_losing_move"]["move"] == case["move"]
    assert out["first_losing_move"]["alternative"]
    assert out["unknown"] == []
    assert elapsed < 2.0, f"bakers analyse took {elapsed:.2f} s"


def test_analyse_cli_text_and_bad_input(tmp_path: Path) -> None:
    case = RECORDS[1]
    path = tmp_path / "game.txt"
    path.write_text(str(case["record"]))
    done = bakers("analyse", str(path))
    assert done.returncode == 0
    assert f"first losing move: {case['first_losing_move']} {case['move']}" in done.stdout
    for stdin, words in (("Game: bakers_game\nDeal: 617\nMoves: 3a zz\n", "move 2 (zz)"),
                         ("Game: nope\nDeal: 1\n", "unknown game"),
                         ("Game: bakers_game\nDeal: 617\nMoves: 3h\n", "move 1 (3h)")):
        bad = bakers("analyse", "-", stdin=stdin)
        assert bad.returncode == 2 and words in bad.stderr and "Traceback" not in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
    bad = bakers("analyse", str(path), "--timeout", "0")
    assert bad.returncode == 2 and "timeout" in bad.stderr


def test_analyse_of_an_impossible_deal_names_no_move() -> None:
    start = Board.deal("freecell", 11982)
    moves = [start.move_text(next(iter(start.legal_moves)))]
    found = analyse(start, moves, budget=20)
    assert found.deal_verdict is Verdict.IMPOSSIBLE
    assert found.first_losing_move is None
    assert "never" in found.message


def test_analyse_of_a_game_still_winnable_names_no_move() -> None:
    start = Board.deal("bakers_game", 617)
    line = solve(start, timeout=10).moves
    found = analyse(start, list(line[:10]), budget=10)
    assert found.first_losing_move is None and found.final_verdict is Verdict.WINNABLE


def test_analyse_claims_nothing_across_an_unknown_position() -> None:
    """With a decider that cannot decide the positions around the turn, no
    move is named and the undecided positions are listed."""
    case = RECORDS[0]
    record = GameRecord.from_text(str(case["record"]))
    boards, _ = positions_of(record.start(), record.moves)
    truth = {b.key(): (Verdict.WINNABLE if i < int(str(case["first_losing_move"]))
                       else Verdict.IMPOSSIBLE) for i, b in enumerate(boards)}
    turn = int(str(case["first_losing_move"]))
    hidden = {boards[turn - 1].key(), boards[turn].key()}

    def decide(board: Board) -> Verdict:
        return Verdict.UNKNOWN if board.key() in hidden else truth[board.key()]

    found = analyse(record.start(), record.moves, decide=decide)
    assert found.first_losing_move is None
    assert set(found.unknown) == {turn - 1, turn}
    # with only one side hidden the other side's proof still brackets it: no claim
    # unless both neighbours are proven
    hidden = {boards[turn].key()}
    found = analyse(record.start(), record.moves, decide=decide)
    assert found.first_losing_move is None and turn in found.unknown


# --- how hard is this deal --------------------------------------------------------------------

def test_rating_facts_are_measured() -> None:
    rating = rate_deal("freecell", 617, budget=10)
    assert rating.verdict is Verdict.WINNABLE
    fewest = rating.fewest_cells
    assert fewest is not None and rating.fewest_proven
    board = Board.deal("freecell", 617, cells=fewest)
    assert solve(board, timeout=10).verdict is Verdict.WINNABLE
    if fewest:
        fewer = Board.deal("freecell", 617, cells=fewest - 1)
        assert solve(fewer, timeout=20).verdict is Verdict.IMPOSSIBLE
    line = solution_line(Board.deal("freecell", 617), budget=10)
    assert rating.player_moves == line.player_moves
    assert rating.states > 0
    assert rating.score == difficulty_score(fewest, line.player_moves or 0, rating.states)
    assert rating.rating == band_of("freecell", rating.score)


def test_rating_of_an_impossible_deal_and_of_bakers_dozen() -> None:
    assert rate_deal("freecell", 11982, budget=20).rating == "impossible"
    dozen = rate(Board.deal("bakers_dozen", 2), budget=10)
    assert dozen.fewest_cells is None and dozen.player_moves and dozen.rating in (
        "easy", "medium", "hard", "expert")


@pytest.mark.skipif(FC_SOLVE is None, reason="fc-solve is not installed")
def test_rate_cli_fewest_cells_agree_with_freecell_solver() -> None:
    done = bakers("rate", "bakers_game", "617", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) >= {"fewest_cells", "player_moves", "states", "rating"}
    fewest = out["fewest_cells"]
    assert fc_solve_verdict(Board.deal("bakers_game", 617, cells=fewest)) == "winnable"
    if fewest:
        assert fc_solve_verdict(Board.deal("bakers_game", 617, cells=fewest - 1)) == "impossible"


def test_rate_cli_text_and_bad_input() -> None:
    done = bakers("rate", "freecell", "2")
    assert done.returncode == 0 and "rating:" in done.stdout and "player moves:" in done.stdout
    for args, words in ((("rate", "nope", "1"), "unknown game"),
                        (("rate", "freecell", "x"), "deal"),
                        (("rate", "freecell", "1", "--timeout", "nan"), "timeout")):
        bad = bakers(*args)
        assert bad.returncode == 2 and words in bad.stderr.lower(), bad.stderr
        assert "Traceback" not in bad.stderr
