"""The web table: ``create_app(db_url)`` builds the ASGI app (JSON API and pages)."""

from .app import create_app

__all__ = ["create_app"]
