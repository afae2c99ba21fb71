"""Shared fixtures. ``live_server``: a real ``bakers serve`` on a free port."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Test modules share helpers as plain modules of this folder (``from strategies
# import ...``): with --import-mode=importlib pytest does not put it on the path.
TESTS_DIR = str(Path(__file__).resolve().parent)
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)


@dataclasses.dataclass
class LiveServer:
    """A running server: ``url`` ends with ``/``; ``db_url`` is its database."""

    url: str
    db_url: str
    process: subprocess.Popen[str]
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start_server(db_url: str, log_path: Path, timeout: float = 30.0,
                 args: tuple[str, ...] = ()) -> LiveServer:
    """Start ``python -m bakers serve --port 0 --db DB_URL [ARGS]``; wait until it answers."""
    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 (kept open for the child)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bakers", "serve", "--port", "0", "--db", db_url, *args],
        stdout=subprocess.PIPE, stderr=log, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    url = None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"running at (http://\S+/)", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        proc.kill()
        raise RuntimeError(f"bakers serve did not start; see {log_path}")
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "api/stats", timeout=2) as answer:
                if answer.status == 200:
                    return LiveServer(url, db_url, proc, log_path)
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"bakers serve did not answer at {url}; see {log_path}")


@pytest.fixture
def pg_db_url() -> Iterator[str]:
    """A fresh PostgreSQL database (dropped afterwards) on the cluster named by
    ``BAKERS_TEST_PG_URL``; skips when there is none (scripts/test.sh starts one)."""
    import uuid

    import sqlalchemy as sa

    from bakers.store import normalize_db_url

    base_url = os.environ.get("BAKERS_TEST_PG_URL")
    if not base_url:
        pytest.skip("PostgreSQL tests need BAKERS_TEST_PG_URL (scripts/test.sh sets it)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("PostgreSQL tests need psycopg (pip install 'psycopg[binary]')")
    admin = sa.create_engine(normalize_db_url(base_url), isolation_level="AUTOCOMMIT")
    name = "bakers_test_" + uuid.uuid4().hex[:10]
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    except sa.exc.OperationalError as exc:
        admin.dispose()
        pytest.skip(f"PostgreSQL is not reachable: {exc.orig}")
    url = sa.engine.make_url(normalize_db_url(base_url)).set(database=name)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


LIVE_LIMITS = ("--games-per-minute", "10000", "--hints-per-minute", "10000")
"""The shared server's rate limits: every test of a session plays from one
address (the limits themselves are tested on servers of their own)."""


@pytest.fixture
def server_starter() -> Callable[..., LiveServer]:
    """``start_server`` itself, for tests that need a server of their own."""
    return start_server


@pytest.fixture(scope="session")
def live_server() -> Iterator[LiveServer]:
    """One real server for the whole session (SQLite in a temporary folder)."""
    folder = Path(tempfile.mkdtemp(prefix="bakers-live-"))
    server = start_server(f"sqlite:///{folder / 'live.sqlite3'}", folder / "server.log",
                          args=LIVE_LIMITS)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


# --- Chromium and Freecell Solver ------------------------------------------------------------

CHROMIUM = shutil.which("chromium")
"""The system's Chromium (Playwright's own browser download does not work here)."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium driven by Playwright, one per test module."""
    if CHROMIUM is None:
        pytest.skip("no `chromium` on PATH (apt-get install chromium) for the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="the playwright package is missing")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def table(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    """A desktop page (1280×800) of the live server, motion reduced: the page
    object of ``browser.py``; fails the test on console errors."""
    from browser import open_table

    with open_table(browser, live_server) as page:
        yield page


def fc_solve_verdict(board: Any) -> str:
    """Freecell Solver's verdict on a Baker's Game board (``-l cn``, a complete
    search): "winnable" or "impossible"."""
    out = subprocess.run(
        ["fc-solve", "-g", "bakers_game", "-l", "cn", "--freecells-num",
         str(board.game.cells), "-"],
        input=board.to_text(), capture_output=True, text=True, timeout=120).stdout
    if "This game is solveable." in out:
        return "winnable"
    if "I could not solve this game." in out:
        return "impossible"
    raise RuntimeError(f"fc-solve gave no verdict: {out[-300:]}")


# --- a real Dask cluster (the atlas and the census) -------------------------------

DASK_BIN = Path(sys.executable).parent


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """``dask scheduler`` and two ``dask worker`` processes, from the command line."""
    sched_file = tmp_path / "scheduler.json"
    procs: list[subprocess.Popen[bytes]] = []
    log = (tmp_path / "dask.log").open("wb")
    try:
        procs.append(subprocess.Popen(
            [str(DASK_BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--scheduler-file", str(sched_file)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        end = time.monotonic() + 60
        while not sched_file.exists() or not sched_file.read_text().strip():
            assert time.monotonic() < end, "the scheduler did not start"
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        for name in ("w1", "w2"):
            procs.append(subprocess.Popen(
                [str(DASK_BIN / "dask"), "worker", address, "--name", name, "--nthreads", "1",
                 "--no-nanny", "--no-dashboard"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        from distributed import Client
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, procs
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()
