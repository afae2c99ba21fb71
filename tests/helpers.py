"""Helpers shared by the test modules: the command line run three ways.

- ``invoke``: click's runner on the root command (output captured by click);
- ``run_cli``: ``bakers.cli.main`` in this process, as the console script
  runs it (exit status, stdout, stderr through pytest's ``capsys``);
- ``bakers``: ``python -m bakers`` as a real process.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner, Result

from bakers.cli import cli, main


def invoke(*args: str, stdin: str | None = None) -> Result:
    """``bakers ARGS`` through click's test runner."""
    return CliRunner().invoke(cli, list(args), input=stdin)


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``bakers ARGS`` in-process: exit status, stdout, stderr."""
    code: int | str | None = 0
    try:
        main(args)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return (code if isinstance(code, int) else (0 if code is None else 1)), out, err


def bakers(*args: str, stdin: str | None = None,
           timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m bakers ARGS`` as a real process."""
    return subprocess.run([sys.executable, "-m", "bakers", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout, check=False)


# FreeCell: one free cell, one empty column (8); column 1 holds a run of six
# (Q♠ down to 7♥) that column 6's K♦ takes only four at a time
LONG_RUN = """Foundations: H-2 C-3 D-2 S-2
Freecells: KH KC KS -
QS JH TS 9H 8S 7H
3H 4H 5H 6H 8H TH QH
4C 5C 6C 7C 8C
3D 4D 5D 6D 7D 8D 9D TD JD QD
3S 4S 5S 6S 7S 9S
JS KD
9C TC JC QC

"""
