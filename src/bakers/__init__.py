"""bakers: play, solve and study Baker's Game, FreeCell and Baker's Dozen."""

from .board import Board, LegalMoves
from .cards import Card, Suit
from .errors import (
    BakersError,
    CardError,
    DealError,
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
    UnknownGameError,
)
from .games import GAMES, Game, find_game
from .notation import Move, Place, Position
from .record import GameRecord

__version__ = "0.1.0"

__all__ = [
    "GAMES", "BakersError", "Board", "Card", "CardError", "DealError", "Game",
    "GameRecord", "IllegalMoveError", "InvalidMoveError", "LegalMoves", "Move",
    "Place", "Position", "PositionError", "Suit", "UnknownGameError", "find_game",
]
