"""Hypothesis strategies shared by the property tests: random positions of
every game and cell count, start boards (deals or positions), and random legal
play from them. ``tests/conftest.py`` puts this folder on ``sys.path``, so test
modules import it as ``from strategies import ...``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from bakers import Board, find_game
from bakers.cards import Card, full_pack
from bakers.deals import MAX_DEAL
from bakers.games import Game
from bakers.notation import Position

GAME_CELLS = st.one_of(
    st.tuples(st.just("bakers_dozen"), st.just(0)),
    st.tuples(st.sampled_from(["freecell", "bakers_game"]),
              st.sampled_from([0, 1, 2, 3, 4, 5, 8])),
)

PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def random_positions(draw: Any, game: Game) -> Position:
    """Any legal-looking position: foundations, cells, and columns that often
    hold built runs and empty columns."""
    found = [draw(st.integers(0, 13)) for _ in range(4)]
    rest = draw(st.permutations([c for c in full_pack() if c.rank > found[c.suit]]))
    ncell = draw(st.integers(0, min(game.cells, len(rest))))
    slots = draw(st.permutations(range(game.cells)))[:ncell]
    cells: list[Card | None] = [None] * game.cells
    for slot, card in zip(slots, rest[:ncell], strict=True):
        cells[slot] = card
    open_cols = draw(st.permutations(range(game.columns)))[
        : draw(st.integers(1, game.columns))]
    cols: list[list[Card]] = [[] for _ in range(game.columns)]
    for card in sorted(rest[ncell:], key=lambda c: -c.rank) if draw(st.booleans()) \
            else rest[ncell:]:
        onto = [i for i in open_cols if cols[i] and game.builds(card, cols[i][-1])]
        if onto and draw(st.integers(0, 3)) > 0:
            cols[draw(st.sampled_from(onto))].append(card)
        else:
            cols[draw(st.sampled_from(open_cols))].append(card)
    return Position(tuple(tuple(c) for c in cols), tuple(cells),
                    (found[0], found[1], found[2], found[3]))


@st.composite
def start_boards(draw: Any) -> Board:
    """A numbered deal or a random position, of any game and cell count."""
    name, cells = draw(GAME_CELLS)
    game = find_game(name, cells)
    if draw(st.booleans()):
        return Board.deal(game, draw(st.integers(1, MAX_DEAL)))
    return Board(game, draw(random_positions(game)))


def walk(board: Board, data: Any, most: int = 30) -> Iterator[Board]:
    """Yield ``board`` after 0, 1, 2 … random legal moves (it is the same object)."""
    steps = data.draw(st.integers(0, most), label="steps")
    yield board
    for _ in range(steps):
        moves = board.generate_legal_moves()
        if not moves:
            return
        # favour moves that are not to a free cell, so columns empty and runs form
        useful = [m for m in moves if not m.dst.is_cell] or moves
        pool = useful if data.draw(st.integers(0, 3)) else moves
        board.push(pool[data.draw(st.integers(0, len(pool) - 1))])
        yield board


def play_to_the_end(board: Board, data: Any, most: int = 30) -> Board:
    """``board`` after the whole of a :func:`walk`."""
    for _ in walk(board, data, most):
        pass
    return board


# no legal move: every column holds a king or jack on top, no free cell
BLOCKED = """Foundations: H-9 C-9 D-9 S-9
TH KH
TC KC
TD KD
TS KS
QH JC
QC JD
QD JS
QS JH
"""
