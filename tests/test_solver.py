"""The solver: honest verdicts, move lists that replay to a win through the
rules engine, limits that stop it with the limit named, hints, and the
``solve`` / ``hint`` commands.

The pruning rules are checked against an independent oracle: a plain search of
every position the rules engine reaches (no pruning, no symmetry, no autoplay)
on small random endgames must give the same verdict.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import invoke as run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bakers import Board, Card, Move, Position, Suit
from bakers.cli import cli
from bakers.cli import main as cli_main
from bakers.cli.solver import COMMANDS
from bakers.games import Build, EmptyColumn, find_game
from bakers.solver import HintResult, SolveResult, Verdict, engine, hint, solve
from bakers.solver import api as solver_api

VERDICTS = Path(__file__).resolve().parent / "data" / "bakers_game_4cells_verdicts_1-1000.tsv"

for _command in COMMANDS:
    cli.add_command(_command)


def replays_to_win(board: Board, moves: tuple[Move, ...]) -> bool:
    check = board.copy(stack=False)
    for move in moves:
        check.push(move)
    return check.is_won()


def assert_solved(board: Board, result: SolveResult) -> None:
    """A winnable verdict with both move lists replaying to a win."""
    assert result.verdict is Verdict.WINNABLE, result
    assert result.limit is None
    assert replays_to_win(board, result.moves)
    assert replays_to_win(board, result.single_moves)
    assert all(m.count == 1 for m in result.single_moves)
    assert len(result.single_moves) >= len(result.moves)
    if board.game.run_moves.value == "singles":
        assert result.moves == result.single_moves


def reference_verdicts() -> dict[int, str]:
    rows = VERDICTS.read_text().split("\n")[1:]
    return {int(d): v for d, v in (row.split("\t") for row in rows if row.strip())}


# --- deals of every game -------------------------------------------------------------

@pytest.mark.parametrize(("game", "cells", "deal"), [
    ("bakers_game", 4, 1), ("bakers_game", 4, 617), ("bakers_game", 5, 10),
    ("bakers_game", 6, 11982), ("bakers_game", 8, 2),
    ("freecell", 4, 1), ("freecell", 4, 617), ("freecell", 3, 5), ("freecell", 2, 3),
    ("freecell", 8, 11982), ("freecell", 5, 7),
    ("bakers_dozen", None, 1), ("bakers_dozen", None, 2), ("bakers_dozen", None, 3),
    ("bakers_dozen", None, 7),
])
def test_solved_deals_replay_to_a_win(game: str, cells: int | None, deal: int) -> None:
    board = Board.deal(game, deal, cells=cells)
    result = solve(board)
    assert_solved(board, result)
    assert result.states > 0 and result.seconds > 0
    assert board.move_stack == []  # the board itself is left alone


def test_freecell_11982_is_impossible() -> None:
    result = solve(Board.deal("freecell", 11982))
    assert result.verdict is Verdict.IMPOSSIBLE
    assert result.moves == () and result.single_moves == () and result.limit is None
    assert result.states > 1000  # the whole space was searched


def test_an_impossible_bakers_game_deal() -> None:
    result = solve(Board.deal("bakers_game", 10))
    assert result.verdict is Verdict.IMPOSSIBLE


def test_an_impossible_bakers_dozen_deal() -> None:
    result = solve(Board.deal("bakers_dozen", 104))
    assert result.verdict is Verdict.IMPOSSIBLE


@pytest.mark.parametrize("deal", [4, 11, 27])
def test_bakers_dozen_deals_are_resolved(deal: int) -> None:
    board = Board.deal("bakers_dozen", deal)
    assert_solved(board, solve(board))


def test_zero_cells_solves_from_a_position_with_moves_made() -> None:
    board = Board.deal("freecell", 1, cells=0)
    result = solve(board)
    assert result.verdict is not Verdict.UNKNOWN
    played = Board.deal("bakers_game", 1)
    for move in solve(played).moves[:2]:
        played.push(move)
    result = solve(played)  # from the current position; the stack is ignored
    assert_solved(played, result)
    assert len(played.move_stack) == 2


# --- the 1000-deal agreement and the FreeCell range -----------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("engine_name", ["native", "python"])
@pytest.mark.parametrize("chunk", range(10))
def test_bakers_game_verdicts_agree_with_the_reference(chunk: int, engine_name: str) -> None:
    """Both engines, each verdict against the proven table (tests/data)."""
    reference = reference_verdicts()
    for deal in range(chunk * 100 + 1, chunk * 100 + 101):
        board = Board.deal("bakers_game", deal)
        result = solve(board, engine=engine_name, texts=False)
        assert result.verdict.value == reference[deal], (deal, result.limit)
        if result.verdict is Verdict.WINNABLE:
            assert replays_to_win(board, result.moves), deal


@pytest.mark.slow
@pytest.mark.parametrize("engine_name", ["native", "python"])
@pytest.mark.parametrize("chunk", range(10))
def test_freecell_deals_1_to_1000_are_winnable(chunk: int, engine_name: str) -> None:
    for deal in range(chunk * 100 + 1, chunk * 100 + 101):
        board = Board.deal("freecell", deal)
        result = solve(board, engine=engine_name, texts=False)
        assert result.verdict is Verdict.WINNABLE, (deal, result.limit)
        assert replays_to_win(board, result.single_moves), deal


# --- hand-made positions ---------------------------------------------------------------

def board_of(game: str, columns: list[str], cells: list[str | None] | None = None,
             foundations: tuple[int, int, int, int] = (0, 0, 0, 0),
             ncells: int | None = None) -> Board:
    g = find_game(game, ncells)
    cols = [tuple(Card.from_str(t) for t in c.split()) for c in columns]
    cols += [()] * (g.columns - len(cols))
    cell_cards = [Card.from_str(c) if c else None for c in (cells or [])]
    cell_cards += [None] * (g.cells - len(cell_cards))
    return Board(g, Position(tuple(cols), tuple(cell_cards), foundations))


LOST = ["AH 2H", "3H 4H", "5H 6H", "7H 8H", "9H TH", "KH JH QH",
        "AC 3C 2C", "4C 5C 6C 7C 8C 9C TC JC QC KC"]


def lost_board() -> Board:
    """Baker's Game with no free cell, every column blocked: no legal move."""
    return board_of("bakers_game", LOST, foundations=(0, 13, 0, 13), ncells=0)


def test_an_already_won_position() -> None:
    board = board_of("freecell", [], foundations=(13, 13, 13, 13))
    result = solve(board)
    assert result.verdict is Verdict.WINNABLE
    assert result.moves == () and result.single_moves == ()
    assert hint(board).move is None


def test_a_position_won_by_safe_moves_alone() -> None:
    board = board_of("freecell", ["KH"], ["QH"], foundations=(13, 13, 11, 13))
    result = solve(board)
    assert_solved(board, result)
    assert [str(m) for m in result.moves] == ["ah", "1h"]


def test_a_blocked_position_is_impossible() -> None:
    board = lost_board()
    assert board.is_blocked()
    result = solve(board)
    assert result.verdict is Verdict.IMPOSSIBLE
    assert result.states == 1


def test_one_free_cell_saves_the_blocked_position() -> None:
    board = board_of("bakers_game", LOST, foundations=(0, 13, 0, 13), ncells=1)
    assert_solved(board, solve(board))


def test_bakers_dozen_never_refills_a_column() -> None:
    # the K♥ covering the 3♥ could only move to an empty column
    columns = ["AH 2H", "3H KH", "QH JH TH 9H 8H 7H 6H 5H 4H"]
    board = board_of("bakers_dozen", columns, foundations=(13, 13, 0, 13))
    assert solve(board).verdict is Verdict.IMPOSSIBLE
    free = board_of("freecell", columns, foundations=(13, 13, 0, 13), ncells=0)
    assert_solved(free, solve(free))


# --- limits ----------------------------------------------------------------------------

def test_a_state_limit_gives_unknown_and_names_the_limit() -> None:
    result = solve(Board.deal("bakers_game", 10), max_states=50)
    assert result.verdict is Verdict.UNKNOWN
    assert result.limit == "state limit 50"
    assert result.states == 50
    assert result.moves == ()


def test_a_timeout_gives_unknown_and_names_the_limit() -> None:
    result = solve(Board.deal("bakers_game", 223), timeout=0.001)
    assert result.verdict is Verdict.UNKNOWN
    assert result.limit == "timeout 0.001 s"


def test_a_memory_limit_gives_unknown_and_names_the_limit() -> None:
    result = solve(Board.deal("bakers_game", 223), max_memory_mb=1)
    assert result.verdict is Verdict.UNKNOWN
    assert result.limit == "memory limit 1 MB"


def test_to_json() -> None:
    board = Board.deal("freecell", 3)
    result = solve(board)
    data = result.to_json()
    assert set(data) == {"verdict", "moves", "single_moves", "length", "single_length",
                         "states", "seconds", "limit", "engine", "player_moves", "optimal",
                         "lower_bound"}
    assert data["engine"] == result.engine
    assert data["player_moves"] == sum(1 for m in result.moves if not m.dst.is_foundation)
    assert data["optimal"] is False and data["lower_bound"] is None
    assert data["verdict"] == "winnable"
    assert data["length"] == len(result.moves)
    assert data["single_length"] == len(result.single_moves)
    # standard notation from the solved position: /n only where bare 36 differs
    assert data["moves"] == board.line_text(result.moves) == result.texts()
    # single moves are plain two-place notation, each one card by definition
    singles = data["single_moves"]
    assert isinstance(singles, list)
    assert all(len(text) == 2 for text in singles)
    assert [m.notation() for m in result.single_moves] == singles
    for key, line in (("moves", result.moves), ("single_moves", result.single_moves)):
        replay = board.copy()
        texts = data[key]
        assert isinstance(texts, list)
        for text in texts:
            move = Move.from_str(text)
            replay.push(Move(move.src, move.dst, 1) if key == "single_moves" else move)
        assert replay.is_won() and tuple(replay.move_stack) == line
    json.dumps(data)
    # a result built without its texts falls back to the explicit form
    bare = SolveResult(Verdict.WINNABLE, result.moves, result.single_moves)
    assert bare.to_json()["moves"] == [m.notation(with_count=True) for m in result.moves]
    unknown = solve(board, max_states=1).to_json()
    assert unknown["verdict"] == "unknown" and unknown["limit"] == "state limit 1"


# --- hints -----------------------------------------------------------------------------

def test_hint_on_a_winnable_position_keeps_it_winnable() -> None:
    board = Board.deal("bakers_game", 1)
    result = hint(board, budget=30)
    assert isinstance(result, HintResult)
    assert result.verdict is Verdict.WINNABLE
    assert result.move is not None
    assert result.move in board.legal_moves
    assert result.message.startswith(board.move_text(result.move) + ": ")
    board.push(result.move)
    assert solve(board).verdict is Verdict.WINNABLE


def test_hint_on_a_lost_position() -> None:
    result = hint(lost_board())
    assert result == HintResult(Verdict.IMPOSSIBLE, None, "no winning line from here")
    assert hint(Board.deal("bakers_game", 10), budget=30).message == \
        "no winning line from here"


def test_hint_that_runs_out_of_time_says_unknown() -> None:
    result = hint(Board.deal("bakers_game", 223), budget=0.001)
    assert result.verdict is Verdict.UNKNOWN and result.move is None
    assert "timeout" in result.message


def test_taking_hints_follows_the_line_already_found() -> None:
    # deal 664 needs about 7,000 positions: no verdict in a millisecond; once
    # a hint has found its line, each hint taken leads to its next move at once
    board = Board.deal("bakers_game", 664)
    assert hint(board.copy(), budget=0.001).verdict is Verdict.UNKNOWN
    first = hint(board, budget=30)
    assert first.verdict is Verdict.WINNABLE and first.move is not None
    taken = [first.move]
    board.push(first.move)
    while not board.is_won():
        assert solver_api._known_line(board) is not None
        result = hint(board, budget=0.001)
        assert result.verdict is Verdict.WINNABLE and result.move in board.legal_moves
        assert result.message.startswith(board.move_text(result.move) + ": ")
        taken.append(result.move)
        board.push(result.move)
    assert len(taken) < 200
    # a position reached another way is solved afresh
    other = Board.deal("bakers_game", 664)
    other.push(next(m for m in other.legal_moves if m != first.move))
    assert solver_api._known_line(other) is None


# --- the engine's own invariants ---------------------------------------------------------

@pytest.mark.parametrize(("game", "deal", "cells"), [
    ("bakers_game", 10, 4), ("freecell", 11982, 4), ("freecell", 3, 2),
    ("bakers_game", 7, 0), ("bakers_dozen", 5, None), ("freecell", 6, 8),
])
def test_hot_loop_agrees_with_the_plain_generator(game: str, deal: int,
                                                  cells: int | None) -> None:
    """Every child of the hot loop is a successor the plain generator names
    (so a line can always be rebuilt), scored exactly as from scratch."""
    board = Board.deal(game, deal, cells=cells)
    rules = solver_api._rules(board.game)
    root = solver_api._root_key(rules, board)
    seen: dict[bytes, bytes | None] = {root: None}
    expand = engine.make_expander(rules, seen)
    stack = [(root, rules.cost(root))]
    for _ in range(300):
        if not stack:
            break
        key, h = stack.pop(0)
        named = {child for child, _ in rules.successors(key)}
        for child, hc in expand(key, h):
            assert child in named
            assert hc == rules.cost(child)
            assert seen[child] == key
            stack.append((child, hc))


# --- the pruning rules against an unpruned oracle -----------------------------------------

def plain_search(board: Board, limit: int) -> bool | None:
    """Is the position winnable, by visiting every position the rules engine
    reaches (exact positions: no symmetry, no autoplay, no pruning)? ``None``
    past ``limit`` positions."""
    start = board.position
    seen = {start}
    stack = [start]
    while stack:
        pos = stack.pop()
        here = Board(board.game, pos)
        if here.is_won():
            return True
        for move in here.generate_legal_moves():
            nxt = here._apply(move)
            if nxt not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(nxt)
                stack.append(nxt)
    return False


@st.composite
def endgames(draw: st.DrawFn) -> Board:
    """A random position with few cards in play, of any game and cell count."""
    name = draw(st.sampled_from(["bakers_game", "freecell", "bakers_dozen"]))
    game = find_game(name)
    if game.max_cells:
        game = game.with_cells(draw(st.integers(0, 2)))
    # few free spaces leave room for more cards (and for lost positions)
    most = 9 if game.build is Build.ANY_SUIT else 16 - 4 * game.cells
    in_play = draw(st.lists(st.integers(0, 7), min_size=4, max_size=4).filter(
        lambda xs: 3 <= sum(xs) <= most))
    foundations = tuple(13 - n for n in in_play)
    cards = [Card(r, Suit(s)) for s in range(4) for r in range(foundations[s] + 1, 14)]
    cards = draw(st.permutations(cards))
    cols: list[list[Card]] = [[] for _ in range(game.columns)]
    cells: list[Card | None] = [None] * game.cells
    used = draw(st.integers(3, game.columns if game.empty_column is EmptyColumn.ANY else 4))
    for n, card in enumerate(cards):
        free = [game.columns + i for i, c in enumerate(cells) if c is None]
        # one card in each column in use first, so that few columns stay empty
        spot = n if n < used else draw(st.sampled_from(list(range(used)) + free))
        if spot < game.columns:
            cols[spot].append(card)
        else:
            cells[spot - game.columns] = card
    pos = Position(tuple(tuple(c) for c in cols), tuple(cells),
                   (foundations[0], foundations[1], foundations[2], foundations[3]))
    return Board(game, pos)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(endgames())
def test_verdicts_agree_with_a_plain_search(board: Board) -> None:
    expected = plain_search(board, limit=10_000)
    if expected is None:
        return
    result = solve(board)
    assert result.verdict is (Verdict.WINNABLE if expected else Verdict.IMPOSSIBLE), \
        board.to_text()
    if expected:
        assert_solved(board, result)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["bakers_game", "freecell"]), st.integers(1, 32000),
       st.integers(0, 30), st.randoms(use_true_random=False))
def test_positions_reached_by_random_play_replay(game: str, deal: int, plies: int,
                                                 rnd: random.Random) -> None:
    board = Board.deal(game, deal)
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rnd.choice(moves))
    result = solve(board, max_states=200_000)
    if result.verdict is Verdict.WINNABLE:
        assert_solved(board, result)


# --- the commands ------------------------------------------------------------------------



def test_solve_command_on_a_deal() -> None:
    result = run("solve", "bakers_game", "--deal", "617")
    assert result.exit_code == 0, result.output
    summary, moves = result.stdout.splitlines()
    assert summary.startswith("winnable: ")
    board = Board.deal("bakers_game", 617)
    for text in moves.split():
        # standard notation: bare 36 for runs too, /n only where it would differ
        assert text == board.move_text(board.parse_move(text))
        board.push_str(text)
    assert board.is_won()


@pytest.mark.parametrize("single", [False, True])
def test_solve_command_lines_replay_in_standard_notation(single: bool) -> None:
    """Printed lines replay through ``push_str``; a length is written only
    where bare ``36`` would move another number of cards (FreeCell deal 31's
    line has such moves today: a run and single cards into empty columns).
    The single-card line is plain two-place notation, every entry one card."""
    args = ["solve", "freecell", "--deal", "31"] + (["--single"] if single else [])
    result = run(*args)
    assert result.exit_code == 0, result.output
    board = Board.deal("freecell", 31)
    for text in result.stdout.splitlines()[1].split():
        if single:  # plain two-place notation, one card a move, for any program
            assert len(text) == 2, text
            plain = Move.from_str(text)
            board.push(Move(plain.src, plain.dst, 1))
            continue
        move = board.parse_move(text)
        if "/" in text:
            assert board.resolve(Move.from_str(text.split("/")[0])) != move, text
        else:
            assert text == str(move)
        board.push_str(text)
    assert board.is_won()


def test_solve_command_json_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "board.txt"
    path.write_text(Board.deal("freecell", 11982).to_text())
    result = run("solve", "freecell", str(path), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "impossible" and data["game"] == "freecell"
    assert data["moves"] == [] and data["states"] > 0 and "deal" not in data


def test_solve_command_single_moves_from_stdin() -> None:
    text = Board.deal("freecell", 5, cells=3).to_text()
    result = run("solve", "freecell", "-", "--cells", "3", "--single", stdin=text)
    assert result.exit_code == 0, result.output
    board = Board.from_text(text, "freecell", cells=3)
    for token in result.stdout.splitlines()[1].split():
        # every entry is plain two-place notation that moves one card (read
        # on its own, "56" would move the longest run the cells allow)
        assert len(token) == 2
        assert board.push_str(token + "/1").count == 1
    assert board.is_won()


def test_solve_command_reports_unknown_with_its_limit() -> None:
    result = run("solve", "bakers_dozen", "--deal", "7", "--max-states", "5", "--timeout", "10")
    assert result.exit_code == 0
    assert result.stdout.startswith("unknown: stopped by the state limit 5")


@pytest.mark.parametrize("args", [
    ("solve", "freecell", "--deal", "0"),
    ("solve", "bakers_dozen", "--deal", "7", "--cells", "2"),
    ("solve", "nosuchgame", "--deal", "7"),
    ("solve", "freecell", "/no/such/file.txt"),
    ("solve", "freecell", "board.txt", "--deal", "5"),
    ("solve", "freecell", "--deal", "5", "--timeout", "-1"),
    ("solve", "freecell", "--deal", "5", "--max-states", "0"),
    ("hint", "/no/such/file.txt"),
    ("hint", "-", "--budget", "0"),
])
def test_bad_input_exits_2_with_one_line(args: tuple[str, ...],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(list(args))
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: ")


def test_hint_command(tmp_path: Path) -> None:
    path = tmp_path / "position.txt"
    board = Board.deal("bakers_game", 1)
    path.write_text(board.to_text())
    result = run("hint", str(path), "--game", "bakers_game", "--budget", "30")
    assert result.exit_code == 0, result.output
    move = Move.from_str(result.stdout.split(":")[0])
    assert board.resolve(move) in board.legal_moves
    assert result.stdout.split(":")[0] == board.move_text(move)
    data = json.loads(run("hint", str(path), "--game", "bakers_game", "--budget", "30",
                          "--json").stdout)
    assert data["verdict"] == "winnable"
    assert data["move"] == board.move_text(Move.from_str(data["move"]))
    assert data["message"].startswith(data["move"] + ": ")
    lost = lost_board()
    result = run("hint", "-", "--game", "bakers_game", "--cells", "0", "--json",
                 stdin=lost.to_text())
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"verdict": "impossible", "move": None,
                                         "message": "no winning line from here",
                                         "engine": solver_api.default_engine()}
    assert run("hint", "-", "--game", "bakers_game", "--cells", "0",
               stdin=lost.to_text()).stdout == "no winning line from here\n"


def test_playing_on_after_a_loss_is_told_at_once() -> None:
    """A position reached from a lost one is lost: once a hint has proven a
    position lost (Baker's Dozen 12035, 937,582 positions),
    every position one move on, and the moves home after it, is answered at
    once, where solving it again would not finish in a millisecond; and so
    on from there. A position reached another way is solved afresh."""
    board = Board.deal("bakers_dozen", 12035)
    child = board.copy()
    child.push(next(iter(child.legal_moves)))
    assert hint(child.copy(), budget=0.001).verdict is Verdict.UNKNOWN
    assert hint(board, budget=30).verdict is Verdict.IMPOSSIBLE
    for _ in range(3):
        assert solver_api._is_known_lost(child)
        result = hint(child, budget=0.001)
        assert result == HintResult(Verdict.IMPOSSIBLE, None, "no winning line from here")
        child.push(list(child.legal_moves)[-1])
    other = Board.deal("bakers_dozen", 12036)
    assert not solver_api._is_known_lost(other)
