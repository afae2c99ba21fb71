"""A game being played: score, timer, undo/redo, autoplay, best place,
auto-finish, blocked, saving and restoring."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import BLOCKED

from bakers import Board, Move
from bakers.board import Movement
from bakers.cards import Card
from bakers.notation import Place
from bakers.options import Level, Status
from bakers.session import (
    IDLE_LIMIT,
    Action,
    FakeClock,
    GameOverError,
    Session,
    SessionError,
    level_cells,
    level_for,
    win_bonus,
)
from bakers.web.views import BLOCKED_MESSAGE, game_view, message_of, summary_view

# 16 cards left (tens to kings), arranged so that the game cannot simply be
# played up: J♠ lies above 10♠ and Q♠ above J♣.
TENS_UP = """Foundations: H-9 C-9 D-9 S-9
JC TH QS
KS
QD JD
TD KD
KC TC
TS JS
JH QH QC KH
:
"""
# tops: 1 Q♠, 2 K♠, 3 J♦ (on Q♦), 4 K♦, 5 10♣, 6 J♠, 7 K♥, 8 empty.

ONE_LEFT = """Foundations: H-Q C-K D-K S-K
KH
"""

TWO_LEFT = """Foundations: H-J C-K D-K S-K
KH
QH
"""



def wait(s: Session, clock: FakeClock, seconds: float) -> None:
    """Let ``seconds`` pass with the player's page open: it says so every 5 s."""
    while seconds > 0:
        step = min(5.0, seconds)
        clock.advance(step)
        seconds -= step
        s.touch()


def auto(s: Session) -> list[str]:
    """The moves the game made itself after the last player move."""
    return s.groups[-1][1:] if s.groups else []


def session(text: str = TENS_UP, game: str = "bakers_game", cells: int | None = None,
            **kw: Any) -> tuple[Session, FakeClock]:
    clock = FakeClock()
    board = Board.from_text(text, game=game, cells=cells)
    return Session(board, clock=clock, **kw), clock


# --- score (seed 004) ------------------------------------------------------------------

# each step: a move in notation, "undo", "redo", or a number of seconds to wait
SCORE_TABLE: list[tuple[str, list[Any], int]] = [
    ("a card home scores 10", ["1a", "5h"], 10),
    ("no time passes before the first move", [100, "1a", "5h"], 10),
    ("29 s cost nothing", ["1a", 29, "5h"], 10),
    ("the 30th second costs 30, not below 0", ["1a", "5h", 30], 0),
    ("points after the penalty count again", ["1a", 30, "5h"], 10),
    ("each full 30 s period costs 30", ["5h", "12", "1h", 59], 0),
    ("two cards, one period", ["5h", "12", "1h", 30], 0),
    ("card after 65 s, then 24 s more", ["1a", 65, "5h", 24], 10),
    ("card after 65 s, then the period at 90 s", ["1a", 65, "5h", 25], 0),
    ("undo takes the points back", ["1a", "5h", "undo"], 0),
    ("undo of a move with no card home costs nothing", ["5h", "1a", "undo"], 10),
    ("redo scores again", ["1a", "5h", "undo", "redo"], 10),
    ("undo never goes below 0", ["5h", "12", "1h", 31, "undo"], 0),
    ("the clamp is kept: lost points stay lost", ["1a", 60, "5h", "undo", "redo"], 10),
    ("two cards home", ["5h", "12", "1h"], 20),
]


@pytest.mark.parametrize("steps,expected", [(s, e) for _, s, e in SCORE_TABLE],
                         ids=[name for name, _, _ in SCORE_TABLE])
def test_score_rules(steps: list[Any], expected: int) -> None:
    s, clock = session(autoplay="off")
    for step in steps:
        if isinstance(step, int):
            wait(s, clock, step)
        elif step == "undo":
            s.undo()
        elif step == "redo":
            s.redo()
        else:
            s.play(step)
    assert s.score() == expected


def test_undo_counts_as_a_move() -> None:
    s, _ = session(autoplay="off")
    s.play("1a")
    s.play("5h")
    s.undo()
    s.redo()
    assert s.moves_count == 4
    assert game_view("x", s)["score"]["moves"] == 4


@pytest.mark.parametrize("seconds,bonus", [(1, 600_000), (0.4, 600_000), (60, 10_000),
                                           (65.9, 9230), (600, 1000), (7000, 85)])
def test_win_bonus(seconds: float, bonus: int) -> None:
    assert win_bonus(seconds) == bonus


def test_win_adds_bonus_and_stops_the_timer() -> None:
    s, clock = session(TWO_LEFT, autoplay="off")
    s.play("2a")  # Q♥ to a cell: the rest plays up by itself
    assert s.status == "won"
    assert s.score() == 20 + 600_000
    assert auto(s) == ["ah", "1h"]
    clock.advance(100)
    assert s.seconds() == 0
    assert s.score() == 20 + 600_000
    assert "won" in (message_of(s, s.status) or "")


def test_win_after_65_seconds() -> None:
    # K♥ over Q♠ and K♠ over Q♥ hold each other up until one moves
    text = """Foundations: H-J C-K D-Q S-J
QS KH
QH KS
KD
"""
    s, clock = session(text, autoplay="off")
    s.play("34")  # the timer starts; still nothing can simply be played up
    assert s.status == "playing"
    wait(s, clock, 65)
    s.play("1a")  # now everything goes home by itself
    # two periods charged on 0, +50 for five cards, then 600000 // 65
    assert s.score() == 50 + 9230
    assert game_view("x", s)["status"] == "won"
    with pytest.raises(GameOverError):
        s.play("a1")
    with pytest.raises(GameOverError):
        s.undo()
    s.pause()  # pausing a finished game is harmless (the page pauses when hidden)
    s.resume()
    assert not s.paused


# --- timer ----------------------------------------------------------------------------

def test_timer_starts_with_the_first_move_and_pauses() -> None:
    s, clock = session()
    clock.advance(50)
    assert s.seconds() == 0
    s.play("1a")
    clock.advance(10)
    assert s.seconds() == 10
    s.pause()
    assert s.paused and game_view("x", s)["paused"]
    clock.advance(100)
    assert s.seconds() == 10
    s.resume()
    clock.advance(5)
    assert s.seconds() == 15
    s.pause()
    clock.advance(7)
    s.play("a1")  # a move resumes a paused game
    assert not s.paused
    clock.advance(2)
    assert s.seconds() == 17


def test_idle_gaps_count_at_most_the_idle_limit() -> None:
    s, clock = session()
    s.play("1a")
    clock.advance(10 * IDLE_LIMIT)
    assert s.seconds() == IDLE_LIMIT
    s.play("a1")
    clock.advance(3)
    assert s.seconds() == IDLE_LIMIT + 3


def test_a_table_left_alone_stops_its_clock_after_ten_seconds() -> None:
    """A game left for 5 minutes (page closed: no request) comes back with at
    most 10 s more on the clock, and its score intact."""
    s, clock = session(autoplay="off")
    s.play("5h")
    clock.advance(300)
    assert IDLE_LIMIT <= 10
    assert s.seconds() <= 10 and s.score() == 10
    s.play("1a")
    assert s.seconds() <= 10 and s.score() == 10
    # while the page is open it says so, and every second counts
    wait(s, clock, 40)
    assert s.seconds() == pytest.approx(40 + min(300, IDLE_LIMIT))


def test_score_while_paused_does_not_fall() -> None:
    s, clock = session(autoplay="off")
    s.play("5h")
    s.pause()
    clock.advance(300)
    assert s.score() == 10


# --- undo / redo / restart ---------------------------------------------------------------

def test_undo_redo_restore_exact_positions() -> None:
    s, _ = session()
    start = s.board.position
    s.play("1a")
    after_one = s.board.position
    s.play("61")
    s.undo()
    assert s.board.position == after_one
    s.undo()
    assert s.board.position == start
    assert not s.can_undo and s.can_redo
    s.redo()
    assert s.board.position == after_one
    s.redo()
    assert not s.can_redo
    with pytest.raises(SessionError):
        s.redo()


def test_new_move_clears_redo() -> None:
    s, _ = session()
    s.play("1a")
    s.undo()
    s.play("7a")
    assert not s.can_redo


def test_undo_with_nothing_to_undo() -> None:
    s, _ = session()
    with pytest.raises(SessionError, match="no move to undo"):
        s.undo()


def test_undo_takes_back_the_autoplayed_moves_too() -> None:
    s, _ = session(autoplay="safe")
    start = s.board.position
    # Q♠ onto K♠ uncovers 10♥; autoplay sends it home, then 10♣ and J♣
    s.play("12")
    assert auto(s) == ["1h", "5h", "1h"]
    assert s.board.cards_home() == 39
    assert s.score() == 30
    s.undo()
    assert s.board.position == start
    assert s.score() == 0
    s.redo()
    assert s.board.cards_home() == 39
    assert s.moves == ["12", "1h", "5h", "1h"]


def test_restart_goes_back_to_the_deal_and_keeps_time() -> None:
    s, clock = session(autoplay="off")
    s.play("5h")
    wait(s, clock, 40)
    s.restart()
    assert s.board.position == Board.from_text(TENS_UP, "bakers_game").position
    assert s.moves == [] and not s.can_undo and not s.can_redo
    assert s.moves_count == 0 and s.score() == 0
    assert s.seconds() == 40
    clock.advance(10)
    s.play("5h")
    assert s.score() == 10  # the penalty of the first 30 s is not charged twice


# --- autoplay and auto-finish -------------------------------------------------------------

def test_autoplay_off_leaves_cards() -> None:
    s, _ = session(autoplay="off")
    s.play("12")
    assert auto(s) == []
    assert s.board.cards_home() == 36


def test_autoplay_setting_changes() -> None:
    s, _ = session(autoplay="off")
    s.set_settings(autoplay="safe")
    s.play("12")
    assert auto(s) == ["1h", "5h", "1h"]
    with pytest.raises(ValueError):
        s.set_settings(autoplay="always")
    with pytest.raises(ValueError):
        s.set_settings(order="random")


def test_freecell_autoplay_is_only_safe() -> None:
    # 2♥ may go home only when both black aces are home
    text = """Foundations: H-A C-0 D-0 S-0
2H AC
"""
    # fill in the rest of the pack so the position is valid
    board = Board.deal("freecell", 1)
    rest = [c for col in board.columns for c in col
            if str(c) not in ("AH", "2H", "AC")]
    cols = [" ".join(str(c) for c in rest[i::6]) for i in range(6)]
    s = Session(Board.from_text(text + "\n".join(cols) + "\n", "freecell"),
                clock=FakeClock())
    # A♣ to a cell goes home from there; 2♥ is now exposed, but not safe
    s.play("1a")
    assert auto(s) == ["ah"]
    assert s.board.foundations[2] == 1


def test_auto_finish_happens_with_autoplay_off() -> None:
    s, _ = session(TWO_LEFT, autoplay="off")
    s.play("2h")
    assert s.status == "won" and auto(s) == ["1h"]


# --- blocked -----------------------------------------------------------------------------

def test_blocked_position() -> None:
    s, _ = session(BLOCKED, cells=0)
    game = game_view("x", s)
    assert game["status"] == "blocked"
    assert game["legal_moves"] == []
    assert s.status == "blocked"


def test_blocked_after_a_move_says_so() -> None:
    # FreeCell, no free cell: J♥ onto Q♠ leaves the BLOCKED position
    text = BLOCKED.replace("TH KH", "TH KH JH").replace("QS JH", "QS")
    s, _ = session(text, game="freecell", cells=0)
    assert s.status == "playing"
    s.play("18")
    assert s.status == "blocked"
    assert message_of(s, s.status) == BLOCKED_MESSAGE
    assert game_view("x", s)["legal_moves"] == []
    s.undo()
    assert s.status == "playing"


# --- best place (the rules engine chooses: Board.find_move) ---------------------------------

def test_play_from_plays_the_best_place_in_the_games_order() -> None:
    s, _ = session()
    s.play_from("1")
    assert s.groups[-1] == ["12", "1h", "5h", "1h"]
    s, _ = session(order="empty_first")
    s.play_from("7")
    assert s.moves[0] == "78"
    s, _ = session(order="cell_first")
    s.play_from("7")
    assert s.moves[0] == "7a"


# --- levels -------------------------------------------------------------------------------

def test_levels() -> None:
    assert level_cells("bakers_game", "hard") == 3
    assert level_cells("freecell", "easy") == 4
    assert level_cells("bakers_dozen", "normal") == 0
    with pytest.raises(ValueError):
        level_cells("bakers_dozen", "hard")
    assert level_for("bakers_game", 4, True) is Level.EASY
    assert level_for("bakers_game", 4, False) == "normal"
    assert level_for("freecell", 3, False) == "hard"
    assert level_for("freecell", 2, False) == "custom"


# --- the game object and saving -------------------------------------------------------------

def test_game_object_fields() -> None:
    s = Session(Board.deal("bakers_game", 617), clock=FakeClock())
    g = game_view("abc", s)
    for key in ("id", "game", "title", "level", "cells", "columns_count", "deal", "daily",
                "status", "paused", "position", "columns", "freecells", "foundations",
                "legal_moves", "moves", "action", "can_undo", "can_redo", "score",
                "settings", "practice", "played", "message", "rules", "next_deal", "replay"):
        assert key in g
    assert g["columns"][0] == ["7D", "TD", "TH", "KD", "4C", "4S", "JD"]
    assert g["foundations"] == {"H": 0, "C": 0, "D": 0, "S": 0}
    assert g["freecells"] == [None] * 4
    assert "1a" in g["legal_moves"]
    assert g["position"].startswith("7D TD TH KD 4C 4S JD\n")
    json.dumps(g)


def test_legal_moves_replay_exactly() -> None:
    """Every legal move string plays the move it names; the history writes it
    in the shortest notation that plays the same move."""
    s, _ = session()
    start = Board.from_text(TENS_UP, "bakers_game")
    for text in [m.notation(with_count=True) for m in s.legal_moves()]:
        exact = start.resolve(Move.from_str(text))
        assert text == exact.notation(with_count=True)  # legal_moves stay explicit
        trial = Session(start.copy(), clock=FakeClock(), autoplay="off")
        trial.play(text)
        moved = trial.moves[0]
        assert moved == start.move_text(exact)
        assert trial.board.move_stack == [exact]
        assert start.resolve(Move.from_str(moved)) == exact


def test_history_is_standard_notation() -> None:
    """``moves`` and ``last_auto`` say ``36`` for one card or a run; ``/n`` only
    when fewer cards go into an empty column than bare ``36`` would move."""
    s, _ = session(autoplay="off")
    assert {"38/1", "38/2", "12/1"} <= {m.notation(with_count=True) for m in s.legal_moves()}
    for text in ("38/1", "83", "38/2", "12/1"):
        s.play(text)
    # J♦ alone (bare 38 would take Q♦ J♦); back onto Q♦; the whole run; one card
    assert s.moves == ["38/1", "83", "38", "12"]
    assert s.record().moves == tuple(s.moves)
    assert s.record().replay().position == s.board.position
    api = game_view("x", s)
    assert api["moves"] == s.moves


def test_saved_games_with_explicit_counts_still_load() -> None:
    """Saves written when the history said ``12/1`` replay, and their moves are
    written again in standard notation (redo included)."""
    s, _ = session(autoplay="off")
    s.play("12")
    s.play("38")
    s.undo()
    data = json.loads(json.dumps(s.to_dict()))
    assert data["groups"] == [["12"]] and data["redo"] == [["38"]]
    data["groups"] = [["12/1"]]
    data["redo"] = [["38/2"]]
    t = Session.from_dict(data, clock=FakeClock())
    assert t.board.position == s.board.position
    assert t.moves == ["12"]
    t.redo()
    assert t.moves == ["12", "38"]
    s.redo()
    assert t.board.position == s.board.position
    assert t.record().replay().position == t.board.position


def test_to_dict_round_trip_keeps_history() -> None:
    s, clock = session()
    s.play("1a")
    s.play("61")
    s.play("7b")
    s.undo()
    clock.advance(12)
    s.pause()
    data = json.loads(json.dumps(s.to_dict()))
    t = Session.from_dict(data, clock=clock)
    assert t.board.position == s.board.position
    assert t.moves == s.moves and t.redo_stack == s.redo_stack
    assert t.moves_count == s.moves_count and t.score() == s.score()
    assert t.seconds() == s.seconds() and t.paused
    t.undo()
    t.undo()
    assert t.board.position == Board.from_text(TENS_UP, "bakers_game").position
    assert t.record().replay().position == t.board.position


def test_deal_round_trip_and_record() -> None:
    s = Session(Board.deal("freecell", 11982, cells=3), level="hard", clock=FakeClock())
    s.play("1a")
    t = Session.from_dict(s.to_dict())
    assert t.deal == 11982 and t.board.game.cells == 3 and t.level == "hard"
    text = t.record().to_text()
    assert "Deal: 11982" in text and "Cells: 3" in text


def test_abandon() -> None:
    s, _ = session()
    s.play("1a")
    s.abandon()
    assert s.status == "abandoned"
    with pytest.raises(GameOverError):
        s.play("a1")
    assert game_view("x", s)["legal_moves"] == []
    assert s.counts_in_stats


def test_only_played_games_count() -> None:
    """A deal nobody moved on is not played: put away, it is no loss. A
    restart does not make a played deal unplayed."""
    s, _ = session()
    assert not s.played and not s.counts_in_stats and game_view("x", s)["played"] is False
    s.pause()
    s.resume()
    s.set_settings(autoplay="off")
    s.restart()
    assert not s.played
    s.abandon()
    assert s.status == "abandoned" and not s.counts_in_stats
    assert "does not count" in (message_of(s, s.status) or "")
    s, _ = session()
    s.play("1a")
    s.undo()
    s.restart()
    assert s.played and s.counts_in_stats and game_view("x", s)["played"] is True
    again = Session.from_dict(s.to_dict(), clock=FakeClock())
    assert again.played


def test_practice_games_never_count() -> None:
    s = Session(Board.deal("bakers_game", 617), clock=FakeClock(), practice=True)
    s.play("1a")
    assert s.played and not s.counts_in_stats
    assert game_view("x", s)["practice"] is True and summary_view("x", s)["practice"] is True
    again = Session.from_dict(s.to_dict(), clock=FakeClock())
    assert again.practice and not again.counts_in_stats


def test_saves_without_the_played_flag() -> None:
    s, _ = session()
    data = s.to_dict()
    del data["played"], data["practice"]
    assert not Session.from_dict(data, clock=FakeClock()).played
    s.play("1a")
    data = s.to_dict()
    del data["played"]
    assert Session.from_dict(data, clock=FakeClock()).played


# --- invariants -------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(deal=st.integers(1, 32000), game=st.sampled_from(["bakers_game", "freecell",
                                                          "bakers_dozen"]),
       steps=st.lists(st.tuples(st.sampled_from(["move", "move", "move", "undo", "redo",
                                                 "save", "wait"]),
                                st.integers(0, 1000)), max_size=40))
def test_random_play_keeps_invariants(deal: int, game: str,
                                      steps: list[tuple[str, int]]) -> None:
    clock = FakeClock()
    s = Session(Board.deal(game, deal), clock=clock)
    for action, pick in steps:
        if action == "move" and s.legal_moves():
            legal = s.legal_moves()
            s.play(legal[pick % len(legal)])
        elif action == "undo" and s.can_undo:
            s.undo()
        elif action == "redo" and s.can_redo:
            s.redo()
        elif action == "save":
            s = Session.from_dict(json.loads(json.dumps(s.to_dict())), clock=clock)
        elif action == "wait":
            clock.advance(pick / 10)
        assert len(s.board.position.cards()) == 52
        assert s.score() >= 0
        assert s.record().replay().position == s.board.position
    while s.can_undo:
        s.undo()
    # back to the deal as the game opened it (safe cards sent home)
    assert s.board.position == Session(Board.deal(game, deal)).board.position


# --- what an action did -----------------------------------------------------------------------

def test_actions_list_their_card_movements_in_order() -> None:
    """Each action says which cards went where, the game's own moves
    included; undo lists them backwards; redo as played."""
    s, _ = session(autoplay="safe")
    action = s.play("12")
    cards = lambda codes: tuple(Card.from_str(c) for c in codes.split())  # noqa: E731
    col, home = Place.column, Place.foundation()
    played = (Movement(cards("QS"), col(0), col(1)), Movement(cards("TH"), col(0), home),
              Movement(cards("TC"), col(4), home), Movement(cards("JC"), col(0), home))
    assert action == Action("move", played)
    assert s.last_action is action
    assert s.undo() == Action("undo", tuple(m.reversed() for m in reversed(played)))
    assert s.redo() == Action("redo", played)
    s.set_settings(autoplay="off")
    assert s.last_action.movements == ()


def test_enums_are_the_words_of_the_api() -> None:
    s, _ = session(level="hard", autoplay="off", order="empty_first")
    assert s.level is Level.HARD and s.status is Status.PLAYING
    data = s.to_dict()
    assert data["level"] == "hard" and data["settings"] == {"autoplay": "off",
                                                           "order": "empty_first"}
    assert json.loads(json.dumps(game_view("x", s)))["status"] == "playing"
    with pytest.raises(ValueError, match="not 'legendary'"):
        Session(Board.deal("bakers_game", 1), level="legendary")


def test_winnable_only_is_remembered() -> None:
    s = Session(Board.deal("bakers_game", 5, cells=3), level="hard", winnable=True,
                clock=FakeClock())
    again = Session.from_dict(json.loads(json.dumps(s.to_dict())), clock=FakeClock())
    assert again.winnable and again.level is Level.HARD
    assert Session(Board.deal("bakers_game", 5), level="easy").winnable
    assert not Session(Board.deal("bakers_game", 5), level="normal").winnable
