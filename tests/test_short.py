"""Short lines: the native core's search for the fewest player moves (moves
that do not go to a foundation, a run moved at once counting one).

Every optimality claim on small positions is checked against an independent
breadth-first search through the rules engine (every legal move, no pruning,
no symmetry), and every line replays through the rules engine.
"""

from __future__ import annotations

import os

import pytest

from bakers import Board
from bakers.notation import count_player_moves as player_moves
from bakers.solver import Verdict, native, solve

if not native.AVAILABLE:
    if os.environ.get("BAKERS_REQUIRE_NATIVE"):
        raise RuntimeError(f"the native core is not built: {native.IMPORT_ERROR}")
    pytest.skip("the short search needs the native core", allow_module_level=True)


def replays(board: Board, moves: tuple) -> bool:
    check = board.copy(stack=False)
    for move in moves:
        check.push(move)
    return check.is_won()


def fewest_player_moves(board: Board, limit: int) -> int | None:
    """The fewest player moves that win from ``board``, by breadth-first
    search over the rules engine's legal moves (foundation moves cost nothing;
    positions compared with the board's own key), or None above ``limit``."""
    frontier = {board.key(): board.copy(stack=False)}
    seen = set(frontier)
    for cost in range(limit + 1):
        # close the layer under foundation moves (they are free)
        stack = list(frontier.values())
        while stack:
            b = stack.pop()
            if b.is_won():
                return cost
            for m in b.legal_moves:
                if m.dst.is_foundation:
                    child = b.copy(stack=False)
                    child.push(m)
                    key = child.key()
                    if key not in seen:
                        seen.add(key)
                        frontier[key] = child
                        stack.append(child)
        nxt: dict = {}
        for b in frontier.values():
            for m in b.legal_moves:
                if m.dst.is_foundation:
                    continue
                child = b.copy(stack=False)
                child.push(m)
                key = child.key()
                if key not in seen:
                    seen.add(key)
                    nxt[key] = child
        frontier = nxt
    return None


def near_the_end(game: str, deal: int, left: int, cells: int | None = None) -> Board:
    """Deal ``deal`` played along a solver line until ``left`` player moves
    of that line remain."""
    board = Board.deal(game, deal, cells=cells)
    line = solve(board).moves
    total = player_moves(line)
    made = 0
    for move in line:
        if made >= total - left:
            break
        if not move.dst.is_foundation:
            made += 1
        board.push(move)
    return board


@pytest.mark.parametrize(("game", "deal", "left", "cells"), [
    ("freecell", 1, 3, None), ("freecell", 7, 4, None), ("freecell", 20, 3, 2),
    ("bakers_game", 3, 4, None), ("bakers_game", 11, 3, 3),
    ("bakers_dozen", 2, 3, None), ("bakers_dozen", 9, 4, None),
])
def test_proven_shortest_lines_are_shortest(game: str, deal: int, left: int,
                                            cells: int | None) -> None:
    board = near_the_end(game, deal, left, cells)
    result = solve(board, lines="short", timeout=5.0)
    assert result.verdict is Verdict.WINNABLE
    assert replays(board, result.moves) and replays(board, result.single_moves)
    assert result.player_moves == player_moves(result.moves)
    truth = fewest_player_moves(board, left)
    assert truth is not None and result.player_moves == truth
    assert result.optimal and result.lower_bound == truth


@pytest.mark.parametrize(("game", "deal"), [
    ("freecell", 1), ("freecell", 11), ("bakers_game", 1), ("bakers_game", 12),
    ("bakers_dozen", 3),
])
def test_short_lines_are_no_longer_than_fast_ones(game: str, deal: int) -> None:
    board = Board.deal(game, deal)
    fast = solve(board)
    short = solve(board, lines="short", timeout=0.5)
    assert short.verdict is Verdict.WINNABLE and replays(board, short.moves)
    assert short.player_moves is not None and fast.player_moves is not None
    assert short.player_moves <= fast.player_moves
    assert short.lower_bound is not None and short.lower_bound <= short.player_moves
    assert short.optimal == (short.lower_bound == short.player_moves)


def test_bakers_game_deal_lines_are_proven_where_small() -> None:
    result = solve(Board.deal("bakers_game", 3), lines="short", timeout=10)
    assert result.optimal and result.player_moves == result.lower_bound


def test_impossible_and_won_positions() -> None:
    assert solve(Board.deal("freecell", 11982), lines="short").verdict is Verdict.IMPOSSIBLE
    won = Board.from_text("Foundations: H-K C-K D-K S-K\n" + ":\n" * 8)
    result = solve(won, lines="short")
    assert result.verdict is Verdict.WINNABLE and result.player_moves == 0 and result.optimal


def test_the_python_engine_answers_with_its_fast_line() -> None:
    board = Board.deal("freecell", 3)
    result = solve(board, engine="python", lines="short")
    assert result.verdict is Verdict.WINNABLE and not result.optimal
    assert result.player_moves == player_moves(result.moves)


def test_bad_arguments() -> None:
    board = Board.deal("freecell", 3)
    with pytest.raises(ValueError):
        solve(board, lines="shortest")
    with pytest.raises(ValueError):
        solve(board, lines="short", short_seconds=float("nan"))
