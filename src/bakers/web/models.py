"""Request bodies of the JSON API (documented in /openapi.json). The choices
are the enums of :mod:`bakers.options`, the same words the store and the page
use."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator

from ..options import Autoplay, ClickOrder, Level

# Strict types: a boolean is not a number, a string is not a boolean, a number
# is not a string (``{"deal": true}``, ``{"daily": "yes"}`` are refused).
Text = Annotated[str, Field(strict=True)]
DealNumber = Annotated[int, Field(strict=True, ge=1)]
DealText = Annotated[str, Field(strict=True, max_length=20)]

MOVE_RE = re.compile(r"[0-9a-z]{2}(?:/[0-9]{1,2})?")
PLACE_RE = re.compile(r"[0-9a-z]")


def strict_move(text: str) -> str:
    """A move exactly as the notation writes it: ``3a``, ``36``, ``36/2`` —
    no spaces, nothing before or after."""
    if MOVE_RE.fullmatch(text):
        return text
    if any(c.isspace() for c in text):
        raise ValueError("a move is written without spaces, like 3a, a5, 5h or 36/2")
    if MOVE_RE.match(text):
        raise ValueError(f"unexpected characters after the move {text[:2]!r}: "
                         "write it like 3a, a5, 5h or 36/2")
    raise ValueError("a move is a source then a destination, like 3a, a5, 5h or 36/2 "
                     "(columns 1-9, t j q k; free cells a-d, e f g i; foundation h)")


def strict_place(text: str) -> str:
    """One place letter: ``3``, ``a``, ``h``."""
    if PLACE_RE.fullmatch(text):
        return text
    raise ValueError("a place is one letter or digit: columns 1-9 (t j q k for 10-13), "
                     "free cells a-d (e f g i for 5-8), foundation h")


class NewGameBody(BaseModel):
    """``POST /api/games``: which deal to play, at which level."""

    game: Text = Field("bakers_game", max_length=40, examples=["bakers_game"])
    deal: DealNumber | DealText | None = Field(None, examples=[617])
    cells: StrictInt | None = Field(None, ge=0, le=8)
    level: Level | None = None
    daily: StrictBool = False
    date: Text | None = Field(None, max_length=10, pattern=r"^\d{4}-\d{2}-\d{2}$",
                              examples=["2026-12-01"],
                              description="with daily: a past day's daily deal (the archive)")
    winnable: StrictBool = Field(False, description="deal only deals the solver proved "
                                                    "winnable; with a deal number or position, "
                                                    "the setting is kept for the next deal")
    position: Text | None = Field(None, max_length=4000)
    replace: Text | None = Field(None, max_length=40)
    autoplay: Autoplay | None = None
    order: ClickOrder | None = None
    practice: StrictBool = Field(False, description="a lesson: left out of the statistics "
                                                    "and of the unfinished games list")
    lesson: Text | None = Field(None, max_length=40, examples=["bakers_dozen/2"],
                                description="a lesson by its key (game/number): its "
                                            "position, autoplay off, a practice game whose "
                                            "goal the game object reports")


class MoveBody(BaseModel):
    """``POST /api/games/{id}/moves``: ``{"move": "3a"}`` or ``{"from": "3", "count": 2}``."""

    model_config = ConfigDict(populate_by_name=True)

    move: Text | None = Field(None, max_length=16, examples=["3a"])
    from_: Annotated[str, Field(strict=True, max_length=2)] | Annotated[
        int, Field(strict=True, ge=1, le=13)] | None = Field(None, alias="from", examples=["3"])
    count: StrictInt | None = Field(None, ge=1, le=52)

    @field_validator("move")
    @classmethod
    def _move(cls, value: str | None) -> str | None:
        return None if value is None else strict_move(value)

    @field_validator("from_")
    @classmethod
    def _from(cls, value: str | int | None) -> str | int | None:
        return strict_place(value) if isinstance(value, str) else value


class IntentBody(BaseModel):
    """``POST /api/games/{id}/intent``: what the player did on the table —
    cards taken from ``from`` (``count`` of them from a column's top; none:
    as bare notation would) and dropped on ``to`` (none: their best place)."""

    model_config = ConfigDict(populate_by_name=True)

    from_: Text = Field(alias="from", max_length=2, examples=["3"])
    to: Text | None = Field(None, max_length=2, examples=["a"])
    count: StrictInt | None = Field(None, ge=1, le=52)

    @field_validator("from_", "to")
    @classmethod
    def _places(cls, value: str | None) -> str | None:
        return None if value is None else strict_place(value)


class SettingsBody(BaseModel):
    """``POST /api/games/{id}/settings``."""

    autoplay: Autoplay | None = None
    order: ClickOrder | None = None


class TransferClaimBody(BaseModel):
    """``POST /api/transfer/claim``: the code shown in the other browser."""

    code: Text = Field(max_length=40, examples=["K7QD-9XPA-3MWE"])


class ErrorBody(BaseModel):
    """Every error: one sentence a person reads."""

    error: str = Field(examples=["there is no game with this id"])


def error_doc(description: str) -> dict[str, object]:
    return {"model": ErrorBody, "description": description}


ERRORS: dict[int | str, dict[str, object]] = {
    400: error_doc("the request is not valid (says why)"),
    403: error_doc("a state-changing request from another site"),
    408: error_doc("the request body took too long to arrive"),
    413: error_doc("the body is over 16 KiB"),
    415: error_doc("a state-changing request without Content-Type: application/json"),
}
"""Errors any API route may answer."""

GAME_ERRORS: dict[int | str, dict[str, object]] = {
    404: error_doc("no game of yours with this id (another player's game is not found "
                   "either)"),
    409: error_doc("the game is over, or not in a state for this action, or was changed "
                   "by another request"),
}
MOVE_ERRORS: dict[int | str, dict[str, object]] = {
    **GAME_ERRORS, 422: error_doc("the move is refused by the rules; says why")}
RATE_ERRORS: dict[int | str, dict[str, object]] = {
    429: {"model": ErrorBody, "description": "too many requests of this kind: try again "
                                             "after Retry-After seconds",
          "headers": {"Retry-After": {"description": "seconds to wait",
                                      "schema": {"type": "integer"}}}}}
