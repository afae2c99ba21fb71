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
