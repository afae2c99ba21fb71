"""The workload ``setup.py`` trains the compiled search core on.

``python pgo_train.py CORE SRC``: load the core built at path ``CORE`` (an
instrumented build, ``-fprofile-generate``) as ``bakers.solver._native``,
import bakers from ``SRC`` (it needs nothing beyond the standard library),
and run what a user's work runs most: surveys of deals of each game, hints,
short lines and proofs of loss. The compiler then lays the core out for the
branches this work takes (profile-guided optimisation). The deals are the
games' first Microsoft deals; every search still gives the same answer on
every position, trained or not: only the machine code's layout changes.
"""

from __future__ import annotations

import importlib.util
import sys
import time


def load_core(path: str) -> None:
    spec = importlib.util.spec_from_file_location("bakers.solver._native", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bakers.solver._native"] = module
    spec.loader.exec_module(module)


def train() -> None:
    from bakers.board import Board
    from bakers.games import find_game
    from bakers.solver import native
    from bakers.solver.api import decide_deals, hint, solve

    if not native.AVAILABLE:
        raise RuntimeError(f"the core did not load: {native.IMPORT_ERROR}")
    # surveys, where nearly all of the core's time goes
    for name, cells, first, count in (("freecell", 4, 1, 2000), ("bakers_game", 4, 1, 400),
                                      ("bakers_game", 3, 1, 100), ("freecell", 2, 1, 100),
                                      ("bakers_dozen", None, 1, 60)):
        game = find_game(name, cells)
        decide_deals(game, first, count, max_states=300_000)
    # hints from positions a few moves into a game
    for name in ("freecell", "bakers_game", "bakers_dozen"):
        for deal in range(1, 4):
            board = Board.deal(name, deal)
            for move in board.generate_legal_moves()[:2]:
                after = board.copy()
                after.push(move)
                hint(after, budget=0.5)
    # short lines, and proofs of loss by the exhaustive search
    for deal in range(1, 4):
        solve(Board.deal("freecell", deal), texts=False, lines="short", short_seconds=0.2)
    for deal in (2, 5, 6, 10):  # Baker's Game with 2 cells: small spaces, mostly lost
        native.exhaust(Board.deal("bakers_game", deal, cells=2), timeout=2.0,
                       max_states=500_000, max_memory_mb=1024)


def main(argv: list[str]) -> int:
    core, src = argv
    sys.path.insert(0, src)
    load_core(core)
    start = time.perf_counter()
    train()
    print(f"trained the core in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
