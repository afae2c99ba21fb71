"""The ``bakers`` command line: a thin face over the library.

The root group lives here; the commands live in the modules beside it, one
module per face (``play``: the rules engine's commands; ``solver``,
``survey``, ``study``, ``web``, ``atlas``), each imported only when one of its
commands runs or help lists them all, so a command pays only for the
libraries it uses. The command modules import from ``common`` and the
library, never from here.

Every error from bad input is one line on stderr with exit status 2: library
errors (:class:`bakers.errors.BakersError`) are caught in one place,
:meth:`BakersGroup.invoke`, and click's usage errors in :func:`main`.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from ..errors import BakersError
from .common import fail, quiet_broken_pipe

__all__ = ["cli", "main"]

# The commands by the module that holds them.
COMMAND_MODULES = {
    "deal": "play", "show": "play", "check": "play", "replay": "play",
    "solve": "solver", "hint": "solver",
    "survey": "survey",
    "serve": "web",
    "atlas": "atlas",
    "census": "census",
    "analyse": "study", "rate": "study",
}


class BakersGroup(click.Group):
    """Turns library errors into one-line messages with exit status 2, and
    loads the other faces' commands on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMAND_MODULES})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in COMMAND_MODULES:
            module = importlib.import_module(f"{__package__}.{COMMAND_MODULES[cmd_name]}")
            for found in module.COMMANDS:
                if found.name not in self.commands:
                    self.add_command(found)
            command = super().get_command(ctx, cmd_name)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BakersError as exc:
            fail(str(exc))
        except BrokenPipeError:
            quiet_broken_pipe()
        except OSError as exc:
            fail(f"{getattr(exc, 'filename', None) or 'file'}: {exc.strerror or exc}")
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)


@click.group(cls=BakersGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bakers")
def cli() -> None:
    """Play, solve and study Baker's Game, FreeCell and Baker's Dozen."""


def add_commands() -> None:
    """Add every command of the other faces now (the group otherwise loads
    each on first use; see ``COMMAND_MODULES``)."""
    for module_name in sorted(set(COMMAND_MODULES.values())):
        module = importlib.import_module(f"{__package__}.{module_name}")
        for command in module.COMMANDS:
            if command.name not in cli.commands:
                cli.add_command(command)


def main(argv: list[str] | None = None) -> None:
    """Entry point: click's usage errors become one line and exit 2 too."""
    try:
        cli.main(args=argv, prog_name="bakers", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        sys.exit(0)
    except click.UsageError as exc:
        hint = f" (see 'bakers {exc.ctx.info_name} --help')" if exc.ctx and exc.ctx.parent else \
            " (see 'bakers --help')"
        fail(exc.format_message().replace("\n", " ") + hint)
    except click.ClickException as exc:
        fail(exc.format_message().replace("\n", " "))
    except BrokenPipeError:
        quiet_broken_pipe()
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)

