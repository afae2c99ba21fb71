"""Game records: the deal (game, number or position, cells) and the moves,
as text that can be saved, shared and replayed — the project's "PGN".

Kept apart from :mod:`bakers.notation` (as python-chess keeps PGN apart
from its board): a record replays moves on a :class:`~bakers.board.Board`,
so it sits above the board, and the notation below it.
"""

from __future__ import annotations

import dataclasses

from .board import Board
from .deals import parse_deal_number
from .errors import PositionError
from .games import find_game


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """A game as text that can be saved, shared and replayed.

    ::

        Game: bakers_game
        Cells: 4
        Deal: 617
        Moves: 78 7a 7b 7c 7h 7d b7 c7 d7 4b 74 87/1

    ``74`` carries the run 4♦ 3♦ 2♦; ``87/1`` moves J♥ alone into the empty
    column 7, where bare ``87`` would take Q♥ J♥. A game from a position has
    ``Position:`` followed by its board text lines, each indented by two
    spaces, instead of ``Deal:``.
    """

    game: str
    cells: int
    moves: tuple[str, ...]
    deal: int | None = None
    position: str | None = None

    def to_text(self) -> str:
        lines = [f"Game: {self.game}", f"Cells: {self.cells}"]
        if self.deal is not None:
            lines.append(f"Deal: {self.deal}")
        if self.position is not None:
            lines.append("Position:")
            lines += ["  " + ln for ln in self.position.rstrip("\n").splitlines()]
        lines.append("Moves: " + " ".join(self.moves))
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> GameRecord:
        if len(text) > 200_000:
            raise PositionError("game record is too long")
        fields: dict[str, str] = {}
        position_lines: list[str] = []
        in_position = False
        for raw in text.splitlines():
            if in_position and raw.startswith("  "):
                position_lines.append(raw[2:])
                continue
            in_position = False
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            if ":" not in raw:
                raise PositionError(f"game record line {raw!r} is not 'Name: value'")
            name, value = raw.split(":", 1)
            key = name.strip().lower()
            if key == "position":
                in_position = True
                continue
            fields[key] = value.strip()
        if "game" not in fields:
            raise PositionError("game record has no 'Game:' line")
        try:
            cells = int(fields.get("cells", "-1"))
        except ValueError:
            raise PositionError("game record 'Cells:' is not a number") from None
        deal = None
        if "deal" in fields:
            deal = parse_deal_number(fields["deal"])
        position = "\n".join(position_lines) + "\n" if position_lines else None
        if deal is None and position is None:
            raise PositionError("game record needs a 'Deal:' or a 'Position:'")
        game = find_game(fields["game"])
        return cls(game.name, cells if cells >= 0 else game.cells,
                   tuple(fields.get("moves", "").split()), deal, position)

    def start(self) -> Board:
        """The board at the record's start."""
        if self.deal is not None:
            return Board.deal(self.game, self.deal, cells=self.cells)
        assert self.position is not None
        return Board.from_text(self.position, game=self.game, cells=self.cells)

    def replay(self) -> Board:
        """The board after every move, each checked by the rules."""
        board = self.start()
        for i, text in enumerate(self.moves, 1):
            try:
                board.push_str(text)
            except ValueError as exc:
                raise type(exc)(f"move {i} ({text}): {exc}") from None
        return board

    @classmethod
    def of(cls, board: Board) -> GameRecord:
        """Record of ``board``'s game from its start, each move in the
        shortest notation that replays it exactly (:meth:`Board.move_text`)."""
        start = board.root()
        moves = tuple(start.line_text(board.move_stack))
        if board.deal_number is not None:
            return cls(board.game.name, board.game.cells, moves, deal=board.deal_number)
        return cls(board.game.name, board.game.cells, moves, position=start.to_text())


__all__ = ["GameRecord"]
