"""Rules pages: each game's rules with worked examples, strategy, the list
of its lessons and a printable reference; and the lessons themselves.

A lesson has its own address, ``/lessons/<game>/<n>``: the table with the
lesson's position, its instruction and goal beside the board
(:mod:`bakers.lessons`; the goal is checked by the server and reported in
the game object's ``lesson``). Opening the address again continues the
player's unfinished game of that lesson while its goal is not met yet and
can still be, and deals the lesson afresh otherwise. Opened from another site, the address
asks first, as deal links do."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..games import find_game
from ..lessons import Lesson, find_lesson, lessons_of
from ..store import Store
from ..store.db import UNFINISHED, games
from .middleware import address_of, player_of
from .models import NewGameBody
from .security import navigation_from_this_site
from .state import TableDep
from .templating import render
from .views import game_view, lesson_view

router = APIRouter(include_in_schema=False)


@router.get("/rules")
async def rules_index() -> Response:
    return RedirectResponse("/rules/bakers_game", status_code=307)


@router.get("/rules/{game}", response_class=HTMLResponse)
async def rules_page(game: str, request: Request) -> Response:
    """Rules, worked examples, strategy, lessons and a printable reference."""
    found = find_game(game)  # an unknown game: the HTML 404 page
    if found.name != game:
        return RedirectResponse(f"/rules/{found.name}", status_code=308)
    return render(request, "rules.html", {"game": found.name,
                                          "title": f"How to play {found.title}",
                                          "lessons": lessons_of(found.name)})


LESSON_GAMES_LOOKED_AT = 20  # a player's newest unfinished practice games searched


def unfinished_lesson_game(store: Store, player: str, lesson: Lesson) -> str | None:
    """The id of ``player``'s newest unfinished game of ``lesson`` whose
    goal can still be met and is not yet, or ``None``."""
    query = (sa.select(games.c.id)
             .where(games.c.player_id == player, games.c.game == lesson.game,
                    games.c.practice == sa.true(),
                    games.c.status.in_([s.value for s in UNFINISHED]))
             .order_by(games.c.updated_at.desc()).limit(LESSON_GAMES_LOOKED_AT))
    with store.engine.connect() as conn:
        ids = [str(r.id) for r in conn.execute(query)]
    for game_id in ids:
        session = store.load(game_id).session
        if session.lesson != lesson.key:
            continue
        view = lesson_view(session)
        if view is not None and not view["met"] and not view["retry"]:
            return game_id
    return None


@router.get("/lessons/{game}")
async def lessons_index(game: str) -> Response:
    found = find_game(game)
    if not lessons_of(found.name):
        return RedirectResponse(f"/rules/{found.name}", status_code=307)
    return RedirectResponse(f"/lessons/{found.name}/1", status_code=307)


@router.get("/lessons/{game}/{number}", response_class=HTMLResponse)
async def lesson_page(game: str, number: str, request: Request, table: TableDep) -> Response:
    """The table with lesson ``number`` of ``game`` (see the module)."""
    found = find_game(game)  # an unknown game: the HTML 404 page
    lesson = find_lesson(found.name, number[:20])  # an unknown lesson too
    if found.name != game or str(lesson.number) != number:
        return RedirectResponse(lesson.address, status_code=308)
    heading = f"Lesson {lesson.number} of {found.title}: {lesson.title}"
    if not navigation_from_this_site(request.scope):
        return render(request, "start.html", {"heading": f"Open {heading}?",
                                              "body": {"lesson": lesson.key}})
    player = player_of(request)
    store = table.store
    game_id = await table.db(lambda: unfinished_lesson_game(store, player, lesson))
    if game_id is None:
        table.limits.check("games", player, address_of(request))
        session = await table.dealer.new_session(
            NewGameBody.model_validate({"lesson": lesson.key}))
        game_id = await table.save_new(session, player)
    own = game_id

    def read() -> dict[str, Any]:
        return game_view(own, table.load_own(own, player).session)

    return render(request, "table.html", {"game_json": await table.locked(own, read),
                                          "title": heading})
