"""One place per rule in the solver's glue: the request, the verdict words,
the count of player moves and the expansion of runs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bakers import Board
from bakers.atlas.plan import IMPOSSIBLE, UNKNOWN, WINNABLE
from bakers.errors import BakersError, SolverError
from bakers.notation import Move, count_player_moves
from bakers.solver import Verdict, solve
from bakers.solver.api import SolveRequest
from bakers.survey import VERDICTS
from bakers.verdicts import Limits, limit_text


@pytest.mark.parametrize(("asked", "words"), [
    ({"engine": "nope"}, "unknown engine 'nope'"),
    ({"timeout": math.inf}, "finite number of seconds"),
    ({"timeout": 0.0}, "finite number of seconds"),
    ({"max_states": 0}, "the state limit must be at least 1"),
    ({"max_memory_mb": 0}, "the memory limit must be at least 1 MB"),
    ({"check": "eyes"}, "unknown line check 'eyes'"),
    ({"engine": "python", "check": "core"}, "the core's line check needs the native engine"),
    ({"lines": "long"}, "unknown lines 'long'"),
    ({"search": "random"}, "unknown search 'random'"),
    ({"engine": "python", "search": "exhaustive"}, "the exhaustive search needs the native"),
    ({"short_seconds": math.nan}, "the short search's time must be finite"),
])
def test_a_request_the_solver_cannot_take_says_why(asked: dict[str, object], words: str) -> None:
    with pytest.raises(SolverError, match=words) as caught:
        SolveRequest(**asked)  # type: ignore[arg-type]
    assert isinstance(caught.value, BakersError) and isinstance(caught.value, ValueError)
    with pytest.raises(SolverError, match=words):
        solve(Board.deal("freecell", 1), **asked)  # type: ignore[arg-type]


def test_a_request_resolves_the_default_engine() -> None:
    assert SolveRequest().engine_name in ("native", "python")
    assert SolveRequest(engine="python").engine_name == "python"


def test_one_vocabulary_of_verdicts_and_limits() -> None:
    assert VERDICTS == ("winnable", "impossible", "unknown") == (WINNABLE, IMPOSSIBLE, UNKNOWN)
    assert [Verdict(v) for v in VERDICTS] == list(Verdict)
    assert type(WINNABLE) is str  # stored as plain words in files and databases
    assert limit_text("memory", None, None, 4096) == "memory limit 4,096 MB"
    assert limit_text("internal check failed: x", 1.0, 1, 1) == "internal check failed: x"
    result = solve(Board.deal("freecell", 11982), max_states=100, engine="python")
    assert result.limit == limit_text("states", None, 100, None)
    with pytest.raises(SolverError, match="--max-memory"):
        Limits.asked(timeout=None, max_states=10, max_memory_mb=8, engine="native",
                     check=None, short_seconds=None)


def test_player_moves_are_counted_once_for_every_line() -> None:
    result = solve(Board.deal("bakers_game", 617), engine="python")
    assert result.player_moves == count_player_moves(result.moves)
    assert count_player_moves(result.single_moves) >= count_player_moves(result.moves)
    assert count_player_moves([Move.from_str("3h"), Move.from_str("a5")]) == 1


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=100_000))
def test_solver_lines_expand_runs_as_the_rules_engine_does(deal: int) -> None:
    """A run move of the Python engine's line becomes the same single moves
    as ``Board.expand`` gives for it (one expansion for both)."""
    board = Board.deal("freecell", deal)
    result = solve(board, engine="python", max_states=20_000)
    if result.verdict is not Verdict.WINNABLE:
        return
    expanded: list[Move] = []
    replay = board.copy(stack=False)
    for move in result.moves:
        expanded.extend(replay.expand(move))
        replay.push(move)
    assert tuple(expanded) == result.single_moves
