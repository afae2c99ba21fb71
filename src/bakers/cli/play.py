"""The commands of the rules engine: deal, show, check, replay."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console
from rich.text import Text

from ..board import Board
from .common import GAME_NAMES, board_of_unknown_game, load_board, read_text


@click.command()
@click.argument("game")
@click.argument("number")
@click.option("--cells", type=int, default=None, help="free cells (0-8; default 4)")
@click.option("--unicode", "use_unicode", is_flag=True, help="suit symbols instead of letters")
def deal(game: str, number: str, cells: int | None, use_unicode: bool) -> None:
    """Print deal NUMBER of GAME as Freecell Solver board text."""
    board = Board.deal(game, number, cells=cells)
    click.echo(board.to_text(unicode=use_unicode), nl=False)


def draw(board: Board, ascii_only: bool = False, named: bool = True) -> Text:
    """A picture of the position for the terminal, titled with its game when
    ``named`` (a position whose game nobody said gets no game name)."""
    out = Text()
    g = board.game

    def card_text(card: Any) -> Text:
        if card is None:
            return Text("[  ]", style="dim")
        label = str(card) if ascii_only else card.unicode()
        style = "bold red" if card.is_red and not ascii_only else "bold"
        return Text(f"[{label}]", style=style)

    title = g.title if named else "Position"
    out.append(title + (f", deal {board.deal_number}" if board.deal_number else ""))
    out.append(f"  —  {board.cards_home()}/52 home\n" if not ascii_only
               else f"  -  {board.cards_home()}/52 home\n")
    if g.cells:
        out.append("cells       ")
        for c in board.cells:
            out.append_text(card_text(c))
            out.append(" ")
        out.append("\n")
    out.append("foundations ")
    from ..cards import Card, Suit
    for s in (Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES):
        r = board.foundations[s]
        if r:
            out.append_text(card_text(Card(r, s)))
        else:
            out.append(f"[ {s.letter if ascii_only else s.symbol}]", style="dim")
        out.append(" ")
    out.append("\n\n")
    from ..notation import COLUMN_LETTERS
    out.append("  ".join(f"{COLUMN_LETTERS[i]:^4}" for i in range(g.columns)).rstrip() + "\n")
    depth = max((len(c) for c in board.columns), default=0)
    for row in range(depth):
        for i, col in enumerate(board.columns):
            if row < len(col):
                out.append_text(card_text(col[row]))
            else:
                out.append("    ")
            if i < g.columns - 1:
                out.append("  ")
        out.append("\n")
    if board.is_won():
        out.append("won\n")
    elif board.is_blocked():
        out.append("blocked: no legal move\n")
    return out


@click.command()
@click.argument("path", default="-")
@click.option("--game", default=None, help=GAME_NAMES + " (default: as a game record says, "
              "else no game name)")
@click.option("--cells", type=int, default=None)
@click.option("--ascii", "ascii_only", is_flag=True, help="letters for suits, no colour")
def show(path: str, game: str | None, cells: int | None, ascii_only: bool) -> None:
    """Draw the position in PATH (or stdin) in the terminal: board text, or a
    game record (its last position)."""
    from ..record import GameRecord

    text = read_text(path)
    named = True
    if game is None and any(line.lower().startswith("game:") for line in text.splitlines()):
        board = GameRecord.from_text(text).replay()
    elif game is not None:
        board = Board.from_text(text, game=game, cells=cells)
    else:
        board = board_of_unknown_game(text, cells)
        named = False
    console = Console(no_color=ascii_only, highlight=False, soft_wrap=True)
    console.print(draw(board, ascii_only, named), end="")


@click.command()
@click.argument("path", default="-")
@click.option("--game", default="freecell", show_default=True, help=GAME_NAMES)
@click.option("--cells", type=int, default=None)
def check(path: str, game: str, cells: int | None) -> None:
    """Validate the position in PATH: exit 0, or one line and exit 2."""
    board = load_board(path, game, cells)
    n = len(board.legal_moves)
    state = "won" if board.is_won() else ("blocked" if n == 0 else f"{n} legal moves")
    click.echo(f"ok: a valid {board.game.title} position ({state})")


@click.command()
@click.argument("path", default="-")
def replay(path: str) -> None:
    """Replay a game record and print the final position."""
    from ..record import GameRecord
    board = GameRecord.from_text(read_text(path)).replay()
    click.echo(board.to_text(), nl=False)
    click.echo("won" if board.is_won() else f"{board.cards_home()}/52 home", err=True)


COMMANDS = [deal, show, check, replay]
