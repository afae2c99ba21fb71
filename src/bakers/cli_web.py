"""``bakers serve``: the web table on a local port (loaded by ``bakers.cli``)."""

from __future__ import annotations

import gc
import socket
import threading
import webbrowser

import click
from sqlalchemy.exc import SQLAlchemyError

from .errors import BakersError
from .store import normalize_db_url


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
def serve_cmd(host: str, port: int, db: str | None, open_browser: bool,
              db_threads: int | None) -> None:
    """Serve the game table in the browser (Ctrl+C stops it)."""
    import uvicorn

    from .web import create_app

    url = normalize_db_url(db) if db else None
    try:
        app = create_app(url, warm_solver=True, db_threads=db_threads)
    except ModuleNotFoundError as exc:
        if exc.name and "psycopg" in exc.name:
            raise BakersError("PostgreSQL needs the psycopg driver: "
                              "pip install 'bakers[postgres]'") from None
        raise
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise BakersError(f"cannot open the database: {reason}") from None
    sock = bind_socket(host, port)
    real_port = sock.getsockname()[1]
    address = url_for(host, real_port)
    click.echo(f"bakers is running at {address}", err=False)
    click.echo(f"database: {app.state.store.url.split('@')[-1]}", err=True)
    if open_browser:
        threading.Timer(0.5, open_in_browser, args=(address,)).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    # the modules and tables loaded so far live as long as the server: keep
    # them out of the collector's full passes (shorter pauses under load)
    gc.collect()
    gc.freeze()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


COMMANDS = [serve_cmd]
