"""Helpers shared by the command-line faces: reading input, loading a board,
and one-line errors with exit status 2.

Kept apart from :mod:`bakers.cli`, which registers the commands, so that a
command module imports its helpers from here and nothing imports back.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from ..board import Board
from ..errors import BakersError, PositionError
from ..games import GAMES

GAME_NAMES = ", ".join(GAMES)


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr and exit with status 2."""
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def read_text(path: str) -> str:
    """A file's text, or standard input for ``-``; refuses huge inputs."""
    if path == "-":
        data = sys.stdin.read(1_000_001)
    else:
        with open(path, encoding="utf-8", errors="replace") as fh:
            data = fh.read(1_000_001)
    if len(data) > 1_000_000:
        raise BakersError(f"{path}: too large to be a position")
    return data


def load_board(path: str, game: str, cells: int | None) -> Board:
    """The position in ``path`` (``-``: stdin) read as a board of ``game``."""
    return Board.from_text(read_text(path), game=game, cells=cells)


def board_of_unknown_game(text: str, cells: int | None = None) -> Board:
    """Board text whose game nobody named: read with the rules of the first
    game whose layout fits (eight columns: FreeCell; thirteen: Baker's Dozen).
    Callers must not present the result as that game.

    :raises PositionError: when no game's layout fits (the first game's reason)
    """
    first: PositionError | None = None
    for name in GAMES:
        try:
            return Board.from_text(text, game=name, cells=cells)
        except PositionError as exc:
            first = first or exc
        except BakersError:
            continue
    assert first is not None
    raise first


def quiet_broken_pipe() -> NoReturn:
    """The reader of our output went away (``bakers solve … | head -1``):
    stop without a message, like other command-line tools."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(0)
