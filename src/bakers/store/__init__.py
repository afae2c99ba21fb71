"""Persistence: games being played, finished results and statistics.

SQLAlchemy Core over SQLite by default (a file in the user data directory) or
PostgreSQL by URL. The schema is created on first start. See :class:`Store`.
"""

from .db import (
    DEFAULT_FILENAME,
    GameNotFoundError,
    Stats,
    Store,
    StoreConflictError,
    default_db_url,
    normalize_db_url,
)

__all__ = [
    "DEFAULT_FILENAME", "GameNotFoundError", "Stats", "Store", "StoreConflictError",
    "default_db_url", "normalize_db_url",
]
