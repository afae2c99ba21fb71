"""The web table: ``create_app(db_url)`` builds the ASGI app from its parts.

* :mod:`.api` — the JSON API of docs/api.md (an ``APIRouter``);
* :mod:`.pages` — home, deal links and the table page;
* :mod:`.rules` — rules pages and lessons;
* :mod:`.views` — the game object every game answer carries;
* :mod:`.state` — the shared state and how a request works on a game;
* :mod:`.dealer` — choosing deals (numbered, random, daily, winnable);
* :mod:`.middleware`, :mod:`.security`, :mod:`.errors` — security headers,
  cross-site refusals, body limits, the player cookie, errors;
* :mod:`.limits` — rate limits on new games and hints;
* :mod:`.records` — exports and transfer codes.

The page itself (``static/js``) decides no rule.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from ..session import Clock
from ..store import Store
from . import api, pages, records, rules, study
from .errors import install_error_handlers
from .limits import Limits
from .middleware import BakersMiddleware
from .security import docs_csp
from .state import Table
from .templating import STATIC_DIR

CHECKPOINT_EVERY = 0.5  # seconds between SQLite WAL checkpoints (off the loop)


async def _checkpoints(store: Store) -> None:
    while True:
        await asyncio.sleep(CHECKPOINT_EVERY)
        await asyncio.to_thread(store.checkpoint)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    table: Table = app.state.table
    task = asyncio.create_task(_checkpoints(table.store)) if table.store.sqlite_path else None
    try:
        yield
    finally:
        if task is not None:
            task.cancel()
        table.stop()


def create_app(db_url: str | None = None, *, clock: Clock = time.time,
               hint_budget: float = 2.0, deal_budget: float = 2.0, deal_tries: int = 20,
               deal_deadline: float = 15.0, workers: int = 2,
               warm_solver: bool = False, db_threads: int | None = None,
               limits: Limits | None = None, durability: str = "normal") -> FastAPI:
    """The bakers web app over the database at ``db_url`` (default: SQLite in
    the user data directory). The schema is created here if missing.

    The solver's worker processes start on first need; with ``warm_solver``
    they start when the first game is created (``bakers serve`` does that).
    ``db_threads``: database calls at once in worker threads; 0 runs them on
    the event loop; default 8 for PostgreSQL and 0 for SQLite. ``limits``:
    the rate limits (default :class:`Limits`). ``durability``: ``normal`` or
    ``full`` (see :class:`bakers.store.Store`)."""
    store = Store(db_url, clock=clock, durability=durability)
    table = Table(store, clock, hint_budget=hint_budget, deal_budget=deal_budget,
                  deal_tries=deal_tries, deal_deadline=deal_deadline, workers=workers,
                  db_threads=db_threads, warm_solver=warm_solver, limits=limits)
    app = FastAPI(
        title="bakers", version="0.1.0", lifespan=_lifespan, docs_url=None, redoc_url=None,
        description="Play Baker's Game, FreeCell and Baker's Dozen. Every game response "
                    "is the game object of docs/api.md; every error is "
                    '`{"error": "..."}` with a 4xx status.')
    app.state.table = table
    app.state.store = store
    app.add_middleware(BakersMiddleware)
    install_error_handlers(app)
    if os.path.isdir(STATIC_DIR):
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.include_router(api.router)
    app.include_router(records.router)
    app.include_router(pages.router)
    app.include_router(rules.router)
    app.include_router(study.router)
    _add_docs(app)
    return app


CDN = "https://cdn.jsdelivr.net"


def _add_docs(app: FastAPI) -> None:
    """The API explorer at /docs (Swagger UI from a CDN), with a CSP that
    names its one inline script by hash."""
    page = bytes(get_swagger_ui_html(openapi_url="/openapi.json", title="bakers API",
                                     swagger_favicon_url="data:,").body).decode()
    csp = docs_csp(page, [CDN]).replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(page, headers={"Content-Security-Policy": csp})
