"""Write tests/data/analyse_records.json: Baker's Game records that lose,
each with the first losing move found by Freecell Solver alone.

A record follows a winning line of its deal for a while, leaves it with a
move that loses, and goes on with seeded random moves that keep a move to
make (up to 100 moves in all). Then ``fc-solve -g bakers_game -l cn`` (a complete search) decides
every position of the record in order, and the first it cannot solve,
after one it solves, is the expected answer of ``bakers analyse``.

    python tests/data/make_analyse_records.py
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: conftest's helpers

from conftest import fc_solve_verdict

from bakers.board import Board
from bakers.record import GameRecord
from bakers.solver import Verdict, solve

OUT = Path(__file__).with_name("analyse_records.json")
DEALS = (617, 1, 7, 12, 3, 5, 6, 8, 9, 10, 11)
WANTED = 5


def _has_moves(board: Board, move: object) -> bool:
    trial = board.copy(stack=False)
    trial.push(move)  # type: ignore[arg-type]
    return bool(trial.legal_moves)


def make(deal: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    board = Board.deal("bakers_game", deal)
    line = solve(board, timeout=10).moves
    leave_at = len(line) // 3
    for move in line[:leave_at]:
        board.push(move)
    # leave the line with a move that loses (its position is impossible),
    # at the first step from ``leave_at`` on where one exists
    for step in line[leave_at:]:
        candidates = list(board.legal_moves)
        rng.shuffle(candidates)
        lost = None
        for m in candidates:
            trial = board.copy(stack=False)
            trial.push(m)
            if solve(trial, timeout=10).verdict is Verdict.IMPOSSIBLE:
                lost = m
                break
        if lost is not None:
            board.push(lost)
            break
        board.push(step)
    else:
        raise RuntimeError(f"deal {deal}: no losing move after {leave_at}")
    while len(board.move_stack) < 100 and not board.is_won():
        legal = list(board.legal_moves)
        if not legal:
            break
        # prefer moves that leave the game a move to make (longer records)
        alive = [m for m in legal if _has_moves(board, m)]
        board.push(rng.choice(alive or legal))
    record = GameRecord.of(board)
    # Freecell Solver decides every position in order
    replay = record.start()
    verdicts = [fc_solve_verdict(replay)]
    for text in record.moves:
        replay.push_str(text)
        verdicts.append(fc_solve_verdict(replay))
    first = verdicts.index("impossible")
    assert first > 0 and all(v == "winnable" for v in verdicts[:first])
    assert all(v == "impossible" for v in verdicts[first:])
    return {"record": record.to_text(), "first_losing_move": first,
            "move": record.moves[first - 1], "moves": len(record.moves)}


def main() -> None:
    cases = []
    for seed, deal in enumerate(DEALS, 1):
        if solve(Board.deal("bakers_game", deal), timeout=10).verdict is not Verdict.WINNABLE:
            continue
        try:
            cases.append({"deal": deal, **make(deal, seed)})
        except RuntimeError as exc:
            print(exc)
        if len(cases) == WANTED:
            break
    OUT.write_text(json.dumps(cases, indent=1) + "\n")
    for c in cases:
        print(c["moves"], c["first_losing_move"], c["move"])


if __name__ == "__main__":
    main()
