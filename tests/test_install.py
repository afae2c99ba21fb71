"""bakers installs and runs without a C compiler: the native core is
optional, and without it every command runs on the Python engine and says so
once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_installs_and_runs_without_a_compiler(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.egg-info"))
    site = tmp_path / "site"
    env = {**os.environ, "CC": "false", "LDSHARED": "false"}
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps",
         "--no-cache-dir", "--target", str(site), str(source)],
        env=env, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    assert not list((site / "bakers" / "solver").glob("_native*.so")), "a core was built"

    run_env = {**os.environ, "PYTHONPATH": str(site)}
    run_env.pop("BAKERS_ENGINE", None)
    solved = subprocess.run(
        [sys.executable, "-m", "bakers", "solve", "freecell", "--deal", "3", "--json"],
        env=run_env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["engine"] == "python"
    assert json.loads(solved.stdout)["verdict"] == "winnable"
    notes = [line for line in solved.stderr.splitlines() if "Python engine" in line]
    assert len(notes) == 1, solved.stderr
    refused = subprocess.run(
        [sys.executable, "-m", "bakers", "solve", "freecell", "--deal", "3", "--engine", "native"],
        env=run_env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
