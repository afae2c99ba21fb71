"""Notation: move text, Freecell Solver board text and game records, each
read and written in pairs that round-trip."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import PROPERTY, start_boards, walk

from bakers import (
    BakersError,
    Board,
    GameRecord,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Place,
    PositionError,
)
from bakers.cards import Card, full_pack
from bakers.notation import (
    CELL_LETTERS,
    COLUMN_LETTERS,
    format_moves,
    format_position,
    parse_moves,
    parse_position,
)

C = Card.from_str
M = Move.from_str


# --- places and moves -------------------------------------------------------------

def test_standard_places() -> None:
    assert [Place.from_str(str(i)) for i in range(1, 9)] == [Place.column(i) for i in range(8)]
    assert [Place.from_str(x) for x in "abcd"] == [Place.cell(i) for i in range(4)]
    assert Place.from_str("h") == Place.foundation()
    assert Place.from_str("H") == Place.foundation()
    assert "".join(str(Place.column(i)) for i in range(8)) == "12345678"
    assert "".join(str(Place.cell(i)) for i in range(4)) == "abcd"
    assert str(Place.foundation()) == "h"


def test_extended_places_are_unambiguous() -> None:
    """13 columns (t j q k for 10-13) and 8 cells (e f g i after a-d) never
    collide with each other or with the foundation ``h``."""
    assert COLUMN_LETTERS == "123456789tjqk"
    assert CELL_LETTERS == "abcdefgi"
    letters = COLUMN_LETTERS + CELL_LETTERS + "h"
    assert len(set(letters)) == len(letters) == 22
    assert Place.from_str("10") == Place.from_str("t") == Place.column(9)
    assert Place.from_str("k") == Place.column(12)
    assert Place.from_str("i") == Place.cell(7)
    assert Place.column(12).describe() == "column 13"
    assert Place.cell(1).describe() == "free cell b"
    assert Place.foundation().describe() == "the foundations"


@pytest.mark.parametrize("text", ["0", "l", "x", "z", "11", "", "ab", "-"])
def test_bad_places(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="is not a place"):
        Place.from_str(text)


@pytest.mark.parametrize(
    ("text", "src", "dst", "count"),
    [
        ("3a", Place.column(2), Place.cell(0), 1),
        ("a5", Place.cell(0), Place.column(4), 1),
        ("5h", Place.column(4), Place.foundation(), 1),
        ("36", Place.column(2), Place.column(5), None),
        ("36/2", Place.column(2), Place.column(5), 2),
        ("36/1", Place.column(2), Place.column(5), 1),
        ("3A", Place.column(2), Place.cell(0), 1),
        (" 3 6 ", Place.column(2), Place.column(5), None),
        ("3-6", Place.column(2), Place.column(5), None),
        ("3 to 6", Place.column(2), Place.column(5), None),
        ("3>6", Place.column(2), Place.column(5), None),
        ("qk", Place.column(11), Place.column(12), None),
        ("103", Place.column(9), Place.column(2), None),
        ("110", Place.column(0), Place.column(9), None),
        ("1i", Place.column(0), Place.cell(7), 1),
        ("th", Place.column(9), Place.foundation(), 1),
    ],
)
def test_move_from_str(text: str, src: Place, dst: Place, count: int | None) -> None:
    assert M(text) == Move(src, dst, count)


@pytest.mark.parametrize(
    "text", ["", "3", "3a6", "1234", "h3", "hh", "3a/0", "3a/53", "3a/-1", "36/x", "0a",
             "3x", "3 a b", "9" * 17, "3a\n5h", "三a"])
def test_bad_move_text(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        M(text)


def test_move_from_non_text() -> None:
    with pytest.raises(InvalidMoveError):
        M(None)  # type: ignore[arg-type]


def test_invalid_move_error_explains() -> None:
    with pytest.raises(InvalidMoveError, match="like 3a, a5, 5h or 36"):
        M("3")
    with pytest.raises(InvalidMoveError, match="never come back"):
        M("h3")
    with pytest.raises(ValueError):
        M("3a/99")


def test_move_text_out() -> None:
    run = Move(Place.column(2), Place.column(5), 3)
    assert str(run) == "36"
    assert run.notation(with_count=True) == "36/3"
    assert run.is_run
    single = Move(Place.column(2), Place.column(5), 1)
    assert not single.is_run
    assert single.notation(with_count=True) == "36/1"  # exact: "36" alone could be a run
    assert Move(Place.column(2), Place.cell(0), 1).notation(with_count=True) == "3a"
    assert Move(Place.cell(0), Place.foundation(), 1).notation(with_count=True) == "ah"
    assert repr(run) == "Move.from_str('36/3')"
    assert eval(repr(run), {"Move": Move}) == run
    assert eval(repr(M("3a")), {"Move": Move}) == M("3a")


def test_every_place_pair_round_trips() -> None:
    places = [Place.column(i) for i in range(13)] + [Place.cell(i) for i in range(8)]
    for src, dst in itertools.product(places, [*places, Place.foundation()]):
        runs = src.is_column and dst.is_column
        for count in (None, 1, 2, 13) if runs else (None, 1):
            move = Move(src, dst, count)
            implied = None if src.is_column and dst.is_column else 1
            assert M(move.notation()) == Move(src, dst, implied)
            back = M(move.notation(with_count=True))
            assert (back.src, back.dst) == (src, dst)
            if src.is_column and dst.is_column:
                assert back.count == count  # the exact text keeps the count
            else:
                assert back.count == 1


def test_format_and_parse_move_lists() -> None:
    moves = parse_moves("3a 5h 36/2 a1")
    assert moves == [M("3a"), M("5h"), M("36/2"), M("a1")]
    assert parse_moves(["3a", "5h"]) == moves[:2]
    assert format_moves(moves) == "3a 5h 36 a1"
    assert format_moves(moves, with_count=True) == "3a 5h 36/2 a1"
    assert parse_moves("") == []


# --- board text -----------------------------------------------------------------------

SAMPLE = """\
Foundations: H-5 C-A S-0 D-K
Freecells: 8H - QC
: 2C 3C 4C 5C 6C 7C 8C 9C TC JC
: KC
:
: AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS
: 6H 7H 9H TH JH QH KH
"""


def test_parse_fc_solve_board_text() -> None:
    pos = parse_position(SAMPLE, columns=8, cells=4)
    assert pos.foundations == (1, 13, 5, 0)  # clubs, diamonds, hearts, spades
    assert pos.cells == (C("8H"), None, C("QC"), None)
    assert pos.columns[0][0] == C("2C") and pos.columns[0][-1] == C("JC")
    assert pos.columns[2] == ()
    assert pos.columns[3][9] == C("TS")  # "10" accepted
    assert pos.columns[5:] == ((), (), ())
    assert sorted(pos.cards()) == sorted(full_pack())


def test_format_fc_solve_board_text() -> None:
    pos = parse_position(SAMPLE, columns=8, cells=4)
    text = format_position(pos)
    assert text.splitlines()[:3] == [
        "Foundations: H-5 C-A D-K S-0",
        "Freecells: 8H - QC -",
        ": 2C 3C 4C 5C 6C 7C 8C 9C TC JC",
    ]
    assert text.splitlines()[-1] == ":"
    assert parse_position(text, 8, 4) == pos
    pretty = format_position(pos, unicode=True)
    assert "Freecells: 8♥ - Q♣ -" in pretty
    assert parse_position(pretty, 8, 4) == pos


def test_a_deal_prints_like_make_microsoft_freecell_board() -> None:
    text = Board.deal("freecell", 1).to_text()
    assert not text.startswith(("Foundations", "Freecells", ":"))
    assert text.splitlines()[0] == "JD KD 2S 4C 3S 6D 6S"
    assert len(text.splitlines()) == 8


def test_lenient_input() -> None:
    text = "\n".join([
        "foundations: h-0 c-0 d-0 s-0",
        "# a comment line",
        "jd kd 2s 4c 3s 6d 6s   # trailing comment",
        "",
        ":2D KC KS 5C 10D 8S 9C",
        "9♥ 9♠ 9♦ T♠ 4♠ 8♦ 2♥",
        "JC 5S QD QH TH QS 6H",
        "5D AD JS 4H 8H 6C",
        "7H QC AS AC 2C 3D",
        "7C KH AH 4D JH 8C",
        "5H 3H 3C 7S 7D TC",
    ])
    assert parse_position(text, 8, 4) == Board.deal("freecell", 1).position


BOARD_TEXT_ERRORS = [
    ("AH\n", 8, 4, "51 cards are missing: A♣ A♦ A♠ 2♣"),
    (SAMPLE.replace("KC", "KH"), 8, 4, "K♥ appears twice (column 2 and column 5)"),
    (SAMPLE.replace("KC", "AC"), 8, 4, "A♣ is on its foundation (C-A) and also in column 2"),
    (SAMPLE.replace(": KC", ": KC 5H"), 8, 4,
     "5♥ is on its foundation (H-5) and also in column 2"),
    (SAMPLE.replace("8H - QC", "8H KC QC"), 8, 4, "K♣ appears twice"),
    (SAMPLE.replace("KC\n", "KC XC\n"), 8, 4, "line 4: unknown rank 'X'"),
    (SAMPLE.replace("KC\n", "KC 7\n"), 8, 4, "line 4: '7' is not a card"),
    (SAMPLE.replace("H-5", "H-55"), 8, 4, "foundation 'H-55' is not like H-5 or S-0"),
    (SAMPLE.replace("H-5", "X-5"), 8, 4, "foundation 'X-5' is not like H-5 or S-0"),
    (SAMPLE + "Foundations: H-0\n", 8, 4, "a second Foundations line"),
    (SAMPLE + ": 1H\n" * 4, 8, 4, "unknown rank"),
    (SAMPLE.replace(":\n", ":\n:\n:\n:\n:\n"), 8, 4,
     "this board has 9 columns; the game has 8"),
    (SAMPLE, 8, 2, "the board has 3 free-cell cards; the game has 2 cells"),
    (SAMPLE, 13, 0, "this game has no free cells, but the board puts cards in them"),
    ("Foundations: H-K C-K D-K S-K\n", 8, 4, "no columns found"),
    ("", 8, 4, "no columns found"),
    ("AH " * 10_000, 8, 4, "too long"),
]


@pytest.mark.parametrize(("text", "columns", "cells", "message"),
                         [pytest.param(*case, id=case[3]) for case in BOARD_TEXT_ERRORS])
def test_board_text_errors(text: str, columns: int, cells: int, message: str) -> None:
    with pytest.raises(PositionError) as info:
        parse_position(text, columns, cells)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_cards_message_is_bounded() -> None:
    with pytest.raises(PositionError, match=r"^51 cards are missing: .* and 41 more$"):
        parse_position("AH\n", 8, 4)


def test_trailing_empty_cells_may_exceed_the_cell_count() -> None:
    text = SAMPLE.replace("Freecells: 8H - QC", "Freecells: 8H QC - - - -")
    assert parse_position(text, 8, 2).cells == (C("8H"), C("QC"))


def test_board_from_text_errors_are_position_errors() -> None:
    assert issubclass(PositionError, BakersError)
    with pytest.raises(PositionError):
        Board.from_text("AH\n", game="bakers_dozen")
    with pytest.raises(ValueError):
        Board.from_text(SAMPLE, game="freecell", cells=2)


# --- game records ----------------------------------------------------------------------

def test_record_from_a_deal() -> None:
    board = Board.deal("bakers_game", 617, cells=3)
    board.push_str("3a")
    board.push_str("5b")
    record = GameRecord.of(board)
    assert record.to_text() == "Game: bakers_game\nCells: 3\nDeal: 617\nMoves: 3a 5b\n"
    again = GameRecord.from_text(record.to_text())
    assert again == record
    assert again.replay().position == board.position
    assert again.start().position == Board.deal("bakers_game", 617, cells=3).position


def test_record_from_a_position_round_trips() -> None:
    board = Board.from_text(SAMPLE, game="freecell")
    board.push_str("2b")   # K♣ to a cell
    board.push_str("13")   # J♣ into the empty column
    record = GameRecord.of(board)
    text = record.to_text()
    assert "Deal:" not in text
    assert "Position:\n  Foundations: H-5 C-A D-K S-0\n" in text
    assert text.endswith("Moves: 2b 13\n")  # J♣ is a run of one: bare 13 is exact
    again = GameRecord.from_text(text)
    assert again == record
    assert again.replay().position == board.position
    assert again.start().position == Board.from_text(SAMPLE).position


def test_record_keeps_a_single_card_moved_off_a_run_into_an_empty_column() -> None:
    """Bare ``12`` into an empty column moves the longest run; the record must
    say ``12/1`` when one card went, or the replay would differ."""
    board = Board.from_text(SAMPLE.replace("KC\n", "KC QH\n").replace(" QH KH", " KH"))
    assert board.run_length(1) == 2
    board.push(Move(Place.column(1), Place.column(2), 1))
    text = GameRecord.of(board).to_text()
    assert text.endswith("Moves: 23/1\n")
    assert GameRecord.from_text(text).replay().position == board.position
    bare = Board.from_text(SAMPLE.replace("KC\n", "KC QH\n").replace(" QH KH", " KH"))
    assert bare.push_str("23").count == 2


RECORD_EXAMPLE = """\
Game: bakers_game
Cells: 4
Deal: 617
Moves: 78 7a 7b 7c 7h 7d b7 c7 d7 4b 74 87/1
"""


def test_record_example_of_the_manual_and_docstring() -> None:
    """The documented record replays, and recording its game writes it back:
    ``74`` is a run of three, ``87/1`` one card off a run into an empty column."""
    manual = Path(__file__).resolve().parents[1] / "docs" / "games.md"
    assert RECORD_EXAMPLE in manual.read_text(encoding="utf-8")
    assert "\n".join("        " + ln for ln in RECORD_EXAMPLE.splitlines()) in (
        GameRecord.__doc__ or "")
    board = GameRecord.from_text(RECORD_EXAMPLE).replay()
    assert board.move_stack[10] == Move(Place.column(6), Place.column(3), 3)
    assert board.move_stack[11] == Move(Place.column(7), Place.column(6), 1)
    assert GameRecord.of(board).to_text() == RECORD_EXAMPLE


def test_record_parsing_is_lenient_and_defaults() -> None:
    record = GameRecord.from_text(
        "# a shared game\n\ngame: Baker's Dozen\nDeal: #5\nMoves:\n")
    assert (record.game, record.cells, record.deal, record.moves) == ("bakers_dozen", 0, 5, ())
    assert record.replay().position == Board.deal("bakers_dozen", 5).position
    freecell = GameRecord.from_text("Game: freecell\nDeal: 1\n")
    assert freecell.cells == 4 and freecell.moves == ()


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("Deal: 1\nMoves: 1a\n", PositionError, "no 'Game:' line"),
        ("Game: freecell\nMoves: 1a\n", PositionError, "needs a 'Deal:' or a 'Position:'"),
        ("Game: freecell\nCells: four\nDeal: 1\n", PositionError, "'Cells:' is not a number"),
        ("Game: freecell\nDeal: 1\nthis line has no colon\n", PositionError,
         "is not 'Name: value'"),
        ("Game: klondike\nDeal: 1\n", BakersError, "unknown game"),
        ("Game: freecell\nDeal: 0\n", BakersError, "out of range"),
        ("Game: freecell\nDeal: 1\nMoves: 1a 1a\n", IllegalMoveError,
         "move 2 (1a): free cell a is taken"),
        ("Game: freecell\nDeal: 1\nMoves: 1a zz\n", InvalidMoveError, "move 2 (zz):"),
        ("Game: bakers_dozen\nDeal: 1\nMoves: 1a\n", IllegalMoveError, "move 1 (1a):"),
    ],
    ids=lambda v: ("text" if "\n" in v else v) if isinstance(v, str) else None,
)
def test_record_errors(text: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        GameRecord.from_text(text).replay()


def test_record_with_impossible_cells_fails_cleanly() -> None:
    with pytest.raises(BakersError, match="0 to 8 free cells"):
        GameRecord.from_text("Game: freecell\nCells: 9\nDeal: 1\n").replay()


# --- hypothesis: every text form round-trips ---------------------------------------------

@PROPERTY
@given(start_boards(), st.data())
def test_move_notation_resolves_to_the_same_move(start: Board, data: Any) -> None:
    for board in walk(start, data):
        for move in board.generate_legal_moves():
            exact = move.notation(with_count=True)
            assert board.resolve(M(exact)) == move, exact
            assert board.resolve(eval(repr(move), {"Move": Move})) == move
            assert board.parse_move(exact) == move
            # bare standard notation: exact except a run into an empty column,
            # where it means the longest run that fits
            bare = board.resolve(M(str(move)))
            into_empty = move.dst.is_column and not board.columns[move.dst.index]
            longest = None
            if into_empty and move.src.is_column:
                longest = min(board.run_length(move.src.index),
                              board.run_capacity(to_empty_column=True))
                assert (bare.src, bare.dst) == (move.src, move.dst)
                assert bare.count == longest
            else:
                assert bare == move
            # the shortest text: standard, with /n exactly when bare differs
            text = board.move_text(move)
            assert board.resolve(M(text)) == move, text
            needs_count = longest is not None and move.count != longest
            assert text == (exact if needs_count else str(move)), text


@PROPERTY
@given(start_boards(), st.data())
def test_board_text_round_trips(start: Board, data: Any) -> None:
    for board in walk(start, data, most=10):
        for unicode in (False, True):
            text = board.to_text(unicode=unicode)
            again = Board.from_text(text, game=board.game)
            assert again.position == board.position
            assert again.key() == board.key()
            assert again.to_text(unicode=unicode) == text


@PROPERTY
@given(start_boards(), st.data())
def test_game_record_round_trips_and_replays(start: Board, data: Any) -> None:
    board = start
    for board in walk(start, data):  # noqa: B007 - the last board is wanted
        pass
    record = GameRecord.of(board)
    text = record.to_text()
    again = GameRecord.from_text(text)
    assert again == record
    assert again.to_text() == text
    replayed = again.replay()
    assert replayed.position == board.position
    assert replayed.move_stack == board.move_stack
    assert GameRecord.of(replayed) == record
    # every move in standard notation, its length written only where needed
    check = board.root()
    for text, move in zip(record.moves, board.move_stack, strict=True):
        bare = check.resolve(M(str(move)))
        assert text == (str(move) if bare == move else move.notation(with_count=True))
        assert check.push_str(text) == move
    assert record.moves == tuple(board.root().line_text(board.move_stack))
