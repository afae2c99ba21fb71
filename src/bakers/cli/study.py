"""The study commands, ``bakers analyse`` and ``bakers rate`` (loaded by
``bakers.cli``, which turns library errors into one line and exit status 2)."""

from __future__ import annotations

import json
import math

import click

from ..errors import BakersError
from ..record import GameRecord
from ..solver.study import DEFAULT_BUDGET, analyse, rate_deal
from .common import GAME_NAMES, read_text


def _budget(timeout: float) -> float:
    if not (math.isfinite(timeout) and timeout > 0):
        raise BakersError(f"the timeout must be a finite number of seconds above 0, not {timeout}")
    return timeout


@click.command("analyse")
@click.argument("record", default="-")
@click.option("--json", "as_json", is_flag=True, help="one JSON object")
@click.option("--timeout", type=float, default=DEFAULT_BUDGET, show_default=True,
              help="seconds the solver may spend on each position")
def analyse_command(record: str, as_json: bool, timeout: float) -> None:
    """Find the move of a game RECORD (file, or - for stdin) after which it
    could no longer be won: the position before it proven winnable, the one
    after it proven impossible, and a move that kept the game alive."""
    budget = _budget(timeout)
    rec = GameRecord.from_text(read_text(record))
    found = analyse(rec.start(), rec.moves, budget)
    if as_json:
        click.echo(json.dumps(found.to_json()))
        return
    click.echo(f"deal: {found.deal_verdict.value}")
    losing = found.first_losing_move
    if losing is not None:
        click.echo(f"first losing move: {losing.index} {losing.move} ({losing.description})")
        if losing.alternative:
            click.echo(f"kept alive by: {losing.alternative} ({losing.alternative_description})")
    if found.unknown:
        click.echo("undecided within the budget: "
                   + ", ".join("the start" if i == 0 else f"after move {i}"
                               for i in found.unknown))
    click.echo(found.message)
    click.echo(f"{len(found.verdicts)} positions solved in {found.seconds:.2f} s", err=True)


@click.command("rate", help=f"""How hard deal DEAL of GAME ({GAME_NAMES}) is: the fewest
    free cells that still win it, the player moves of its line, the positions
    searched, and its band (easy, medium, hard, expert).""")
@click.argument("game")
@click.argument("deal")
@click.option("--json", "as_json", is_flag=True, help="one JSON object")
@click.option("--timeout", type=float, default=DEFAULT_BUDGET, show_default=True,
              help="seconds the solver may spend on each solve")
def rate_command(game: str, deal: str, as_json: bool, timeout: float) -> None:
    rating = rate_deal(game, deal, _budget(timeout))
    if as_json:
        click.echo(json.dumps(rating.to_json()))
        return
    click.echo(f"rating: {rating.rating}" + (f" (score {rating.score})"
                                             if rating.score is not None else ""))
    if rating.fewest_cells is not None:
        bound = "" if rating.fewest_proven else " at most (one fewer was not decided)"
        click.echo(f"fewest cells: {rating.fewest_cells}{bound}")
    if rating.player_moves is not None:
        click.echo(f"player moves: {rating.player_moves}")
    click.echo(f"positions searched: {rating.states:,}")


COMMANDS = [analyse_command, rate_command]
