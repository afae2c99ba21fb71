"""``bakers serve``: the web table on a local port (loaded by ``bakers.cli``)."""

from __future__ import annotations

import gc
import json
import os
import socket
import threading
import webbrowser
from typing import Any

import click
from sqlalchemy.exc import SQLAlchemyError

from ..errors import BakersError
from ..store import normalize_db_url

SETTINGS_ENV = "BAKERS_SERVE_SETTINGS"  # how the worker processes get the settings
KEEP_ALIVE = 5  # seconds an idle kept-alive connection stays open
# The collector's thresholds while serving: a move allocates a few thousand
# objects, so the default (a young pass every 700) sweeps several times per
# request and a full pass over the cached games lands on someone's move.
GC_THRESHOLDS = (20_000, 20, 20)


def settle_collector() -> None:
    """Before serving: the modules and tables loaded so far live as long as
    the server, so keep them out of the collector's full passes (shorter
    pauses under load), and sweep young objects less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted sockets
    # only when it sees that proto; without it every answer waits ~40 ms for
    # the client's delayed ACK (Nagle).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise BakersError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def url_for(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def open_in_browser(address: str) -> None:
    """Open ``address`` in the user's browser; when there is none (a server
    without a desktop), say where to go instead."""
    try:
        opened = webbrowser.open(address)
    except webbrowser.Error:
        opened = False
    if not opened:
        click.echo(f"no browser could be opened here: open {address} in your browser",
                   err=True)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="address to listen on (0.0.0.0: every interface)")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="port (0: any free port)")
@click.option("--db", "db", default=None, metavar="URL",
              help="database: sqlite:///path, a file path, or postgresql://… "
                   "(default: SQLite in the user data directory)")
@click.option("--open", "open_browser", is_flag=True, help="open the table in the browser")
@click.option("--db-threads", type=click.IntRange(0, 64), default=None, metavar="N",
              help="database calls run at once in threads (0: on the event loop; "
                   "default 8 for PostgreSQL, 0 for SQLite)")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="server processes behind the one port (above 1 needs PostgreSQL)")
@click.option("--durability", type=click.Choice(["normal", "full"]), default="normal",
              show_default=True,
              help="full: every answered move is on disk first, surviving a power loss "
                   "(SQLite synchronous=FULL, PostgreSQL's default commit)")
@click.option("--behind-proxy", is_flag=True,
              help="behind a reverse proxy (TLS): trust its X-Forwarded-For/-Proto headers "
                   "(from --forwarded-allow-ips), so cookies get Secure over HTTPS")
@click.option("--forwarded-allow-ips", default="127.0.0.1,::1", show_default=True,
              metavar="IPS", help="with --behind-proxy: the proxy's addresses (comma-separated)")
@click.option("--games-per-minute", type=click.FloatRange(min=0, min_open=True), default=30,
              show_default=True, metavar="N",
              help="new games one player may start a minute (an address: 4 times as many)")
@click.option("--hints-per-minute", type=click.FloatRange(min=0, min_open=True), default=30,
              show_default=True, metavar="N",
              help="hints one player may ask a minute (an address: 4 times as many)")
def serve_cmd(host: str, port: int, db: str | None, open_browser: bool,
              db_threads: int | None, workers: int, durability: str, behind_proxy: bool,
              forwarded_allow_ips: str, games_per_minute: float,
              hints_per_minute: float) -> None:
    """Serve the game table in the browser (Ctrl+C stops it)."""
    import math

    import uvicorn

    from ..web.protocol import HeaderTimeoutProtocol

    for name, value in (("--games-per-minute", games_per_minute),
                        ("--hints-per-minute", hints_per_minute)):
        if not math.isfinite(value):
            raise BakersError(f"{name} must be a finite number")
    url = normalize_db_url(db) if db else None
    if workers > 1 and not (url or "").startswith("postgresql"):
        raise BakersError("SQLite takes one server process: --workers above 1 needs "
                          "PostgreSQL (--db postgresql://…)")
    settings: dict[str, Any] = {
        "db_url": url, "db_threads": db_threads, "durability": durability,
        "games_per_minute": games_per_minute, "hints_per_minute": hints_per_minute}
    app = _open(settings)  # the schema is made or brought up to date here, once
    db_shown = app.state.store.url.split("@")[-1]
    if workers > 1:
        app.state.table.stop()
        os.environ[SETTINGS_ENV] = json.dumps(settings)
    sock = bind_socket(host, port)
    real_port = sock.getsockname()[1]
    address = url_for(host, real_port)
    click.echo(f"bakers is running at {address}", err=False)
    click.echo(f"database: {db_shown}"
               + (f" · {workers} worker processes" if workers > 1 else ""), err=True)
    if open_browser:
        threading.Timer(0.5, open_in_browser, args=(address,)).start()
    options: dict[str, Any] = {
        "log_level": "warning", "access_log": False, "lifespan": "on",
        "http": HeaderTimeoutProtocol, "timeout_keep_alive": KEEP_ALIVE,
        "proxy_headers": behind_proxy, "forwarded_allow_ips": forwarded_allow_ips,
        "server_header": False}
    try:
        if workers > 1:
            from uvicorn.supervisors import Multiprocess
            config = uvicorn.Config("bakers.cli.web:app_from_env", factory=True,
                                    workers=workers, **options)
            Multiprocess(config, sockets=[sock]).run()
        else:
            server = uvicorn.Server(uvicorn.Config(app, **options))
            settle_collector()
            server.run(sockets=[sock])
    finally:
        sock.close()


def _open(settings: dict[str, Any]) -> Any:
    """The app for ``settings``; a database that cannot be opened is one line."""
    from ..web import create_app
    from ..web.limits import Limits

    try:
        return create_app(
            settings["db_url"], warm_solver=True, db_threads=settings["db_threads"],
            durability=settings["durability"],
            limits=Limits(settings["games_per_minute"], settings["hints_per_minute"]))
    except ModuleNotFoundError as exc:
        if exc.name and "psycopg" in exc.name:
            raise BakersError("PostgreSQL needs the psycopg driver: "
                              "pip install 'bakers[postgres]'") from None
        raise
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise BakersError(f"cannot open the database: {reason}") from None


def app_from_env() -> Any:
    """The app of one worker process of ``bakers serve --workers N`` (uvicorn
    imports it by name in each process it starts)."""
    app = _open(json.loads(os.environ[SETTINGS_ENV]))
    settle_collector()
    return app


COMMANDS = [serve_cmd]
