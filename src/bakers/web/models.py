"""Request bodies of the JSON API (documented in /openapi.json). The choices
are the enums of :mod:`bakers.options`, the same words the store and the page
use."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..options import Autoplay, ClickOrder, Level


class NewGameBody(BaseModel):
    """``POST /api/games``: which deal to play, at which level."""

    game: str = Field("bakers_game", max_length=200, examples=["bakers_game"])
    deal: int | str | None = Field(None, examples=[617])
    cells: int | None = Field(None, ge=0, le=8)
    level: Level | None = None
    daily: bool = False
    winnable: bool = Field(False, description="deal only deals the solver proved winnable; "
                                              "with a deal number or position, the setting "
                                              "is kept for the next deal")
    position: str | None = Field(None, max_length=4000)
    replace: str | None = Field(None, max_length=40)
    autoplay: Autoplay | None = None
    order: ClickOrder | None = None
    practice: bool = Field(False, description="a lesson: left out of the statistics "
                                              "and of the unfinished games list")


class MoveBody(BaseModel):
    """``POST /api/games/{id}/moves``: ``{"move": "3a"}`` or ``{"from": "3", "count": 2}``."""

    model_config = ConfigDict(populate_by_name=True)

    move: str | None = Field(None, max_length=16, examples=["3a"])
    from_: str | int | None = Field(None, alias="from", examples=["3"])
    count: int | None = Field(None, ge=1, le=52)


class IntentBody(BaseModel):
    """``POST /api/games/{id}/intent``: what the player did on the table —
    cards taken from ``from`` (``count`` of them from a column's top; none:
    as bare notation would) and dropped on ``to`` (none: their best place)."""

    model_config = ConfigDict(populate_by_name=True)

    from_: str = Field(alias="from", max_length=2, examples=["3"])
    to: str | None = Field(None, max_length=2, examples=["a"])
    count: int | None = Field(None, ge=1, le=52)


class SettingsBody(BaseModel):
    """``POST /api/games/{id}/settings``."""

    autoplay: Autoplay | None = None
    order: ClickOrder | None = None
