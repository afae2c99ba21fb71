"""The board: the seed worked examples, refusals that explain themselves, run
moves and their expansion, autoplay, and properties over random legal play
checked against an independent statement of the rules, plus the perft file."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import PROPERTY, start_boards, walk

from bakers import Board, Card, IllegalMoveError, InvalidMoveError, Move, Place, find_game
from bakers import board as board_module
from bakers.cards import Suit, full_pack, rank_to_str
from bakers.games import Build, EmptyColumn, RunMoves
from bakers.notation import Position

C = Card.from_str
M = Move.from_str
PERFT = Path(__file__).with_name("perft.txt")


def make(columns: Sequence[str], cells: Sequence[str] = (), game: str = "freecell",
         ncells: int | None = None) -> Board:
    """A board with ``columns`` (bottom to top; "" is empty) and ``cells``
    ("-" is empty). Every other card goes to its foundation when all lower
    cards of its suit are free to go too; the rest fill the column "*"
    (kings at the bottom, lowest rank exposed)."""
    g = find_game(game, ncells)
    placed = {C(t) for col in columns if col != "*" for t in col.split()}
    placed |= {C(t) for t in cells if t != "-"}
    home = {}
    for suit in Suit:
        r = 0
        while r < 13 and Card(r + 1, suit) not in placed:
            r += 1
        home[suit] = r
    rest = sorted((c for c in full_pack() if c not in placed and c.rank > home[c.suit]),
                  key=lambda c: (-c.rank, c.suit))
    assert ("*" in columns) == bool(rest), "the '*' column must hold the leftover cards"
    lines = ["Foundations: " + " ".join(
        f"{s.letter}-{rank_to_str(home[s]) if home[s] else 0}" for s in Suit)]
    if cells:
        lines.append("Freecells: " + " ".join(cells))
    for col in columns:
        lines.append(": " + (" ".join(map(str, rest)) if col == "*" else col))
    lines += [":"] * (g.columns - len(columns))
    return Board.from_text("\n".join(lines) + "\n", game=g)


def refusal(board: Board, text: str) -> str:
    with pytest.raises(IllegalMoveError) as info:
        board.copy().push_str(text)
    return str(info.value)


def accepts(board: Board, text: str) -> Move:
    return board.copy().push_str(text)


def build_targets(board: Board, column: int) -> set[int]:
    """Occupied columns that a legal move from ``column`` builds on."""
    return {m.dst.index for m in board.legal_moves if m.src == Place.column(column)
            and m.dst.is_column and board.columns[m.dst.index]}


def test_errors_are_value_errors() -> None:
    assert issubclass(IllegalMoveError, ValueError)
    assert issubclass(InvalidMoveError, ValueError)
    assert not issubclass(IllegalMoveError, InvalidMoveError)


# --- the seed worked examples: building ----------------------------------------------

SEVEN_AND_EIGHTS = ["7H", "8H", "8C", "8D", "8S", "*"]


def test_bakers_game_7h_onto_8h_not_8c() -> None:
    board = make(SEVEN_AND_EIGHTS, game="bakers_game")
    assert accepts(board, "12") == Move(Place.column(0), Place.column(1), 1)
    assert refusal(board, "13") == "7♥ cannot go on 8♣: Baker's Game builds in suit"
    assert refusal(board, "14") == "7♥ cannot go on 8♦: Baker's Game builds in suit"
    assert refusal(board, "15") == "7♥ cannot go on 8♠: Baker's Game builds in suit"
    targets = build_targets(board, 0)
    assert targets == {1}


def test_freecell_7h_onto_8s_not_8d() -> None:
    board = make(SEVEN_AND_EIGHTS, game="freecell")
    accepts(board, "15")
    accepts(board, "13")
    assert refusal(board, "14") == (
        "7♥ cannot go on 8♦: FreeCell builds down in alternating colours")
    assert "8♥" in refusal(board, "12")
    targets = build_targets(board, 0)
    assert targets == {2, 4}


def test_bakers_dozen_7h_onto_any_eight() -> None:
    board = make(SEVEN_AND_EIGHTS, game="bakers_dozen")
    for dst in "2345":
        accepts(board, "1" + dst)
    targets = build_targets(board, 0)
    assert targets == {1, 2, 3, 4}


def test_bakers_dozen_never_refills_an_empty_column_even_with_a_king() -> None:
    board = make(["KH", "", "6S", "5D", "7C", "*"], game="bakers_dozen")
    assert refusal(board, "12") == "empty columns cannot be refilled in Baker's Dozen"
    board.push_str("43")  # 5♦ onto 6♠ empties column 4
    assert board.columns[3] == ()
    assert refusal(board, "14") == "empty columns cannot be refilled in Baker's Dozen"
    assert refusal(board, "34") == "empty columns cannot be refilled in Baker's Dozen"
    for move in board.legal_moves:
        assert not move.dst.is_column or board.columns[move.dst.index]
    assert refusal(board, "35/2") == "Baker's Dozen moves single exposed cards only"
    assert refusal(board, "35") == "5♦ cannot go on 7♣: columns build down one rank at a time"
    assert refusal(board, "3a") == "Baker's Dozen has no free cells here"


def test_bakers_dozen_kings_cannot_join_occupied_columns() -> None:
    board = make(["KH", "QS", "AC", "*"], game="bakers_dozen")
    assert refusal(board, "12") == "K♥ cannot go on Q♠: columns build down one rank at a time"
    assert refusal(board, "13") == "K♥ cannot go on A♣: nothing is built on an ace"
    assert accepts(board, "21") == Move(Place.column(1), Place.column(0), 1)  # Q♠ on K♥
    assert M("21") in board.legal_moves


# --- run moves: capacity and expansion (seed 003) --------------------------------------

def capacity_4() -> Board:
    """A run of 5 (T♦ down to 6♦) in column 1, one free cell, column 3 empty."""
    return make(["KC TD 9S 8H 7C 6D", "TH", "", "JS", "KD", "KH", "KS", "*"],
                cells=["QC", "QD", "QH", "-"])


def test_capacity_one_cell_one_empty_intermediate_column_is_four() -> None:
    board = capacity_4()
    assert (board.free_cells(), board.empty_columns()) == (1, 1)
    assert board.run_capacity(to_empty_column=False) == 4
    assert accepts(board, "12") == Move(Place.column(0), Place.column(1), 4)
    assert refusal(board, "14") == (
        "this run has 5 cards; with 1 free cell and 1 empty column you can move 4")
    legal = list(board.legal_moves)
    assert Move(Place.column(0), Place.column(1), 4) in legal
    assert all(m.count is not None and m.count <= 4 for m in legal)
    into_empty = sorted(m.count or 0 for m in legal
                        if m.src == Place.column(0) and m.dst == Place.column(2))
    assert into_empty == [1, 2]  # the empty destination is not counted


def test_capacity_when_the_only_empty_column_is_the_destination_is_two() -> None:
    board = make(["KC 9S 8H 7C", "", "KD", "KH", "KS", "QC", "QD", "*"],
                 cells=["QH", "QS", "JC", "-"])
    assert board.run_capacity(to_empty_column=True) == 2
    assert accepts(board, "12/2") == Move(Place.column(0), Place.column(1), 2)
    assert accepts(board, "12") == Move(Place.column(0), Place.column(1), 2)  # longest that fits
    assert accepts(board, "12/1") == Move(Place.column(0), Place.column(1), 1)
    assert refusal(board, "12/3") == (
        "this run has 3 cards; with 1 free cell and 0 empty columns you can move 2 "
        "into an empty column")
    counts = sorted(m.count or 0 for m in board.legal_moves
                    if m.src == Place.column(0) and m.dst == Place.column(1))
    assert counts == [1, 2]


def test_move_text_is_standard_notation() -> None:
    """``36`` for one card or a run; ``/n`` only into an empty column when
    fewer cards go than the longest movable run, which bare ``36`` moves."""
    board = capacity_4()  # run of 5 in column 1; 9♠ 8♥ 7♣ 6♦ build on 10♥; column 3 empty
    assert board.move_text(M("12/4")) == "12"    # a run onto an occupied column
    assert board.move_text(M("12")) == "12"
    assert board.move_text(M("13/2")) == "13"    # the longest run that fits (2)
    assert board.move_text(M("13/1")) == "13/1"  # bare 13 would take two cards
    assert board.move_text(M("23/1")) == "23"    # a lone card: nothing else could go
    assert board.move_text(M("1d")) == "1d"
    assert board.move_text(M("a3")) == "a3"    # Q♣ from its cell into the empty column
    for move in board.legal_moves:
        text = board.move_text(move)
        assert board.resolve(M(text)) == move
        assert ("/" in text) == (text == "13/1"), text
    with pytest.raises(IllegalMoveError, match="you can move 4"):
        board.move_text(M("14"))
    capacity_2 = make(["KC 9S 8H 7C", "", "KD", "KH", "KS", "QC", "QD", "*"],
                      cells=["QH", "QS", "JC", "-"])
    assert capacity_2.move_text(M("12/2")) == "12"
    assert capacity_2.move_text(M("12/1")) == "12/1"


def test_move_text_without_run_moves_is_always_bare() -> None:
    board = Board.deal("bakers_dozen", 5)
    assert all("/" not in board.move_text(m) for m in board.legal_moves)


def test_line_text_replays_a_line_on_a_copy() -> None:
    board = capacity_4()
    before = board.position
    line = [M("13/1"), M("31"), M("13/2"), M("3d")]
    texts = board.line_text(line)
    assert texts == ["13/1", "31", "13", "3d"]
    assert board.position == before and board.move_stack == []
    replay = board.copy()
    for text in texts:
        replay.push_str(text)
    check = board.copy()
    for move in line:
        check.push(move)
    assert replay.position == check.position and replay.move_stack == check.move_stack


def test_capacity_formula() -> None:
    """(F+1)·2^E for every F and E, the empty destination not counted."""
    for free in range(0, 5):
        for empty in range(0, 4):
            cells = ["9C", "9D", "9H", "9S"][: 4 - free] + ["-"] * free
            cols = ["KC", "KD", "KH", "KS", "JC", "JD", "JH", "*"]
            cols[:empty] = [""] * empty
            cols = [c for c in cols if c] + [""] * empty
            board = make(cols, cells=cells)
            assert (board.free_cells(), board.empty_columns()) == (free, empty)
            assert board.run_capacity(False) == (free + 1) * 2 ** empty
            if empty:
                assert board.run_capacity(True) == (free + 1) * 2 ** (empty - 1)


def test_seed_003_three_card_transfer_through_two_cells() -> None:
    board = make(["KC 8S 7H 6C", "9D", "KD", "KH", "KS", "QH", "QS", "*"],
                 cells=["-", "-", "QC", "QD"])
    run = M("12")
    singles = board.expand(run)
    # 6♣ to the first cell, 7♥ to the second, 8♠ onto 9♦, then 7♥ and 6♣ back
    assert [m.notation() for m in singles] == ["1a", "1b", "12", "b2", "a2"]
    assert all(m.count == 1 for m in singles)
    replay = board.copy()
    for single in singles:
        replay.push(single)
    pushed = board.copy()
    assert pushed.push(run).count == 3
    assert replay.position == pushed.position
    assert replay.columns[1] == (C("9D"), C("8S"), C("7H"), C("6C"))
    assert replay.cells == (None, None, C("QC"), C("QD"))


def test_capacity_four_expansion_uses_only_spare_places() -> None:
    board = capacity_4()
    check_expansion(board, board.resolve(M("12")))
    assert len(board.expand(M("12"))) == 9


def test_single_moves_expand_to_themselves() -> None:
    board = Board.deal("freecell", 1)
    assert board.expand(M("1a")) == [Move(Place.column(0), Place.cell(0), 1)]


def test_a_broken_sequence_is_not_a_run() -> None:
    board = make(["KC 9S 8H 7S", "", "KD", "KH", "KS", "QC", "QD", "*"],
                 cells=["-", "-", "-", "-"], game="bakers_game")
    assert board.run_length(0) == 1
    assert refusal(board, "12/2") == (
        "the top 2 cards of column 1 are not a run: Baker's Game builds in suit")
    freecell = make(["KC 9S 8H 7S", "", "KD", "KH", "KS", "QC", "QD", "*"],
                    cells=["-", "-", "-", "-"])
    assert freecell.run_length(0) == 3
    assert refusal(freecell, "12/4") == (
        "the top 4 cards of column 1 are not a run: FreeCell builds down in alternating colours")
    assert refusal(freecell, "12/5") == "column 1 has only 4 cards"
    assert accepts(freecell, "12/3").count == 3


# --- refusals ---------------------------------------------------------------------------

def test_refusal_messages() -> None:
    board = make(["7H", "", "5D", "AS", "8C 7D", "6H KS", "AD QS", "*"],
                 cells=["JD", "-", "-", "-"])
    cases = {
        "b1": "free cell b is empty",
        "21": "column 2 is empty",
        "ab": "a card in a free cell goes to a column or its foundation, not to another cell",
        "1h": "7♥ cannot go to its foundation yet: it needs 6♥ first",
        "6h": "K♠ cannot go to its foundation yet: it needs A♠ first",
        "3h": "5♦ cannot go to its foundation yet: it needs A♦ first",
        "54/1": "7♦ cannot go on A♠: nothing is built on an ace",
        "13": "7♥ cannot go on 5♦: columns build down one rank at a time",
        "5h/2": "cards go to a foundation one at a time",
        "5b/2": "a free cell holds exactly one card",
        "5a": "free cell a is taken",
        "11": "a card cannot move onto its own place",
        "19": "there is no column 9: FreeCell has 8 columns",
        "1e": "there is no free cell e: this game has 4 free cells (a-d)",
        "a2/2": "a free cell holds a single card",
        "5k": "there is no column 13: FreeCell has 8 columns",
    }
    for text, message in cases.items():
        assert refusal(board, text) == message, text
    assert "only 2 cards" in refusal(board, "52/3")
    three = make(["7H", "*"], cells=["-", "-", "-"], ncells=3)
    assert refusal(three, "1d") == "there is no free cell d: this game has 3 free cells (a-c)"
    one = make(["7H", "*"], cells=["-"], ncells=1)
    assert refusal(one, "1b") == "there is no free cell b: this game has 1 free cell (a-a)"


def test_foundations_never_give_cards_back() -> None:
    board = make(["7H", "*"], cells=["-", "-", "-", "-"])
    assert board.foundations[Suit.HEARTS] == 6
    board.push_str("1h")
    assert board.foundations[Suit.HEARTS] == 7
    with pytest.raises(InvalidMoveError, match="never come back"):
        board.push_str("h1")
    with pytest.raises(IllegalMoveError, match="never come back"):
        board.push(Move(Place.foundation(), Place.column(0), 1))


def test_nonsense_counts_are_refused_not_crashes() -> None:
    board = Board.deal("freecell", 1)
    for count in (0, -1, 53):
        with pytest.raises(ValueError):
            board.copy().push(Move(Place.column(0), Place.column(1), count))


def test_bad_notation_raises_invalid_move_error() -> None:
    board = Board.deal("freecell", 1)
    for text in ("", "3", "3x", "zz", "h1", "3a/0", "3a/99", "123", "a" * 40):
        with pytest.raises(InvalidMoveError):
            board.push_str(text)
    assert board.move_stack == []


def test_move_out_of_a_cell() -> None:
    board = make(["8S", "", "*"], cells=["7H", "-", "-", "-"])
    assert accepts(board, "a1") == Move(Place.cell(0), Place.column(0), 1)
    assert accepts(board, "a2") == Move(Place.cell(0), Place.column(1), 1)
    assert accepts(board, "ah") == Move(Place.cell(0), Place.foundation(), 1)
    bd = make(["8S", "*"], game="bakers_game", cells=["7H", "-", "-", "-"])
    assert refusal(bd, "a1") == "7♥ cannot go on 8♠: Baker's Game builds in suit"


# --- push, pop, copy, stack ---------------------------------------------------------------

def test_push_pop_copy_and_stack() -> None:
    board = Board.deal("bakers_game", 1)
    start = board.position
    first = board.push_str("8a")
    assert first == Move(Place.column(7), Place.cell(0), 1)
    assert board.move_stack == [first]
    snapshot = board.copy()
    board.push_str("8b")
    assert len(snapshot.move_stack) == 1 and snapshot.position != board.position
    assert board.root().position == start
    assert board.root().move_stack == []
    assert board.copy(stack=False).move_stack == []
    assert board.pop() == Move(Place.column(7), Place.cell(1), 1)
    assert board == snapshot and hash(board) == hash(snapshot)
    board.pop()
    assert board.position == start
    with pytest.raises(IndexError):
        board.pop()


def test_push_returns_the_resolved_move_and_legal_moves_support_in() -> None:
    board = Board.deal("freecell", 1)
    assert M("1a") in board.legal_moves
    assert Move(Place.column(0), Place.cell(0), 1) in board.legal_moves
    assert M("12") not in board.legal_moves
    assert M("1e") not in board.legal_moves
    assert "1a" not in board.legal_moves  # type: ignore[comparison-overlap]
    assert len(board.legal_moves) == len(list(board.legal_moves)) == 32
    assert bool(board.legal_moves)
    assert repr(board.legal_moves).startswith("<LegalMoves: 1a 1b")


def test_board_rejects_a_position_of_another_shape() -> None:
    position = Board.deal("freecell", 1).position
    with pytest.raises(ValueError):
        Board("bakers_dozen", position)
    with pytest.raises(ValueError):
        Board(find_game("freecell", 3), position)


def test_describe_move() -> None:
    board = make(["KC 8S 7H 6C", "9D", "KD", "KH", "KS", "QH", "QS", "*"],
                 cells=["-", "-", "QC", "QD"])
    assert board.describe_move(M("1a")) == "6♣ from column 1 to free cell a"
    assert board.describe_move(M("12")) == "3 cards from 8♠ from column 1 to column 2"
    assert board.describe_move(M("c4")) == "Q♣ from free cell c to column 4"


# --- won, blocked, autoplay -------------------------------------------------------------

BLOCKED = ["AH QS KH", "2H TS JH", "3H 8S 9H", "4H 6S 7H", "5H AS KS", "6H 2S JS",
           "8H 3S 4S 9S", "TH QH 5S 7S"]


@pytest.mark.parametrize("game", ["freecell", "bakers_game", "bakers_dozen"])
def test_blocked(game: str) -> None:
    board = make(BLOCKED, game=game, ncells=0)
    assert board.foundations == (13, 13, 0, 0)
    assert board.is_blocked() and not board.is_won()
    assert list(board.legal_moves) == []
    assert not board.legal_moves


@pytest.mark.parametrize("game", ["freecell", "bakers_game"])
def test_one_cell_unblocks(game: str) -> None:
    board = make(BLOCKED, game=game, ncells=1, cells=["-"])
    assert not board.is_blocked()
    assert {m.dst for m in board.legal_moves} == {Place.cell(0)}


@pytest.mark.parametrize("game", ["freecell", "bakers_game", "bakers_dozen"])
def test_win(game: str) -> None:
    board = make(["KS"], game=game)
    assert not board.is_won() and board.cards_home() == 51
    board.push_str("1h")
    assert board.is_won() and board.cards_home() == 52
    assert not board.is_blocked()
    assert list(board.legal_moves) == []
    again = Board.from_text(board.to_text(), game=game)
    assert again.is_won()


def test_freecell_autoplay_waits_for_both_black_twos() -> None:
    board = make(["3H", "2C", "2S", "AD", "KC", "*"])
    assert board.foundations == (1, 0, 2, 1)
    home = {m for m in board.legal_moves if m.dst.is_foundation}
    assert {str(m) for m in home} == {"1h", "2h", "3h", "4h"}
    assert [str(m) for m in board.safe_autoplay_moves()] == ["4h"]  # only the ace
    before = len(board.move_stack)
    played = board.autoplay()
    assert board.move_stack[before:] == played
    assert all(m.dst.is_foundation for m in played)
    assert board.safe_autoplay_moves() == []
    order = [str(m) for m in played]
    assert order.index("1h") > max(order.index("2h"), order.index("3h"))


def test_bakers_game_autoplay_plays_every_foundation_move() -> None:
    board = make(["3H", "2C", "2S", "AD", "KC", "*"], game="bakers_game")
    home = [m for m in board.legal_moves if m.dst.is_foundation]
    assert board.safe_autoplay_moves() == home


def test_bakers_dozen_autoplay_waits_for_every_lower_rank() -> None:
    board = make(["5D", "4S", "*"], game="bakers_dozen")
    assert board.foundations == (13, 4, 13, 3)
    assert M("1h") in board.legal_moves
    assert [str(m) for m in board.safe_autoplay_moves()] == ["2h"]
    board.push_str("2h")
    assert "1h" in [str(m) for m in board.safe_autoplay_moves()]


def test_autoplay_from_cells() -> None:
    board = make(["KC", "*"], cells=["-", "AH", "-", "-"])
    assert [str(m) for m in board.safe_autoplay_moves()] == ["bh"]


# --- an independent statement of the rules, for the properties and perft ---------------

def reference_moves(board: Board) -> set[tuple[Place, Place, int]]:
    """Every legal (source, destination, count), written straight from SPEC §1."""
    game, pos = board.game, board.position

    def builds(card: Card, onto: Card) -> bool:
        if onto.rank != card.rank + 1:
            return False
        if game.build is Build.SAME_SUIT:
            return card.suit == onto.suit
        if game.build is Build.ALTERNATE_COLOUR:
            return (card.suit in (Suit.HEARTS, Suit.DIAMONDS)) != (
                onto.suit in (Suit.HEARTS, Suit.DIAMONDS))
        return True

    free = sum(1 for c in pos.cells if c is None)
    empty = sum(1 for col in pos.columns if not col)
    out: set[tuple[Place, Place, int]] = set()
    sources: list[tuple[Place, tuple[Card, ...]]] = [
        (Place.column(i), col) for i, col in enumerate(pos.columns) if col]
    sources += [(Place.cell(i), (c,)) for i, c in enumerate(pos.cells) if c is not None]
    for src, stack in sources:
        longest = len(stack) if src.is_column and game.run_moves is RunMoves.SUPERMOVE else 1
        for k in range(1, longest + 1):
            moved = stack[len(stack) - k:]
            if not all(builds(moved[j + 1], moved[j]) for j in range(k - 1)):
                break
            base = moved[0]
            if k == 1:
                if pos.foundations[base.suit] == base.rank - 1:
                    out.add((src, Place.foundation(), 1))
                if src.is_column:
                    out |= {(src, Place.cell(i), 1) for i, c in enumerate(pos.cells)
                            if c is None}
            for i, col in enumerate(pos.columns):
                dst = Place.column(i)
                if dst == src:
                    continue
                if col:
                    if builds(base, col[-1]) and k <= (free + 1) * 2 ** empty:
                        out.add((src, dst, k))
                elif (game.empty_column is EmptyColumn.ANY
                      and k <= (free + 1) * 2 ** (empty - 1)):
                    out.add((src, dst, k))
    return out


def brute_force_moves(board: Board) -> set[tuple[Place, Place, int]]:
    """Every (source, destination, count) that ``Board.push`` accepts."""
    sources = [Place.column(i) for i in range(board.game.columns)]
    sources += [Place.cell(i) for i in range(board.game.cells)]
    targets = [*sources, Place.foundation()]
    out: set[tuple[Place, Place, int]] = set()
    for src in sources:
        most = len(board.columns[src.index]) if src.is_column else 1
        for dst in targets:
            for count in range(1, most + 2):
                child = board.copy(stack=False)
                try:
                    pushed = child.push(Move(src, dst, count))
                except IllegalMoveError:
                    continue
                assert pushed == Move(src, dst, count)
                out.add((src, dst, count))
    return out


def triples(moves: Sequence[Move]) -> set[tuple[Place, Place, int]]:
    out = set()
    for m in moves:
        assert m.count is not None
        out.add((m.src, m.dst, m.count))
    return out


def canonical(board: Board) -> tuple[frozenset[tuple[Card, ...]], frozenset[Card]]:
    return (frozenset(col for col in board.columns if col),
            frozenset(c for c in board.cells if c is not None))


def check_expansion(board: Board, move: Move) -> None:
    singles = board.expand(move)
    spare = {move.src, move.dst}
    spare |= {Place.cell(i) for i, c in enumerate(board.cells) if c is None}
    spare |= {Place.column(i) for i, col in enumerate(board.columns) if not col}
    replay = board.copy(stack=False)
    for single in singles:
        assert single.count == 1
        assert single.src in spare and single.dst in spare
        replay.push(single)
    after = board.copy(stack=False)
    after.push(move)
    assert replay.position == after.position
    assert move.count is not None
    if move.count <= board.free_cells() + 1:
        assert len(singles) == 2 * move.count - 1


# --- hypothesis: random positions and random legal play ----------------------------------

@PROPERTY
@given(start_boards(), st.data())
def test_generated_moves_are_exactly_the_rules(start: Board, data: Any) -> None:
    for board in walk(start, data):
        moves = board.generate_legal_moves()
        assert len(moves) == len(set(moves)), "a move is listed twice"
        assert triples(moves) == reference_moves(board)
    assert brute_force_moves(board) == reference_moves(board)


@PROPERTY
@given(start_boards(), st.data())
def test_52_cards_are_conserved(start: Board, data: Any) -> None:
    for board in walk(start, data):
        cards = board.position.cards()
        assert len(cards) == 52
        assert sorted(cards) == sorted(full_pack())
        assert 0 <= board.cards_home() <= 52


@PROPERTY
@given(start_boards(), st.data())
def test_every_generated_move_is_accepted_and_pop_restores(start: Board, data: Any) -> None:
    positions = []
    for board in walk(start, data):
        positions.append(board.position)
        before, key, depth = board.position, board.key(), len(board.move_stack)
        for move in board.generate_legal_moves():
            assert move in board.legal_moves
            assert board.push(move) == move
            assert board.move_stack[-1] == move
            assert board.pop() == move
            assert board.position == before and board.key() == key
            assert len(board.move_stack) == depth
    while board.move_stack:
        board.pop()
        positions.pop()
        assert board.position == positions[-1]
    assert board.position == start.root().position


@PROPERTY
@given(start_boards(), st.data())
def test_run_moves_expand_to_legal_single_moves(start: Board, data: Any) -> None:
    for board in walk(start, data):
        for move in board.generate_legal_moves():
            if move.count and move.count > 1:
                check_expansion(board, move)


@PROPERTY
@given(start_boards(), st.data(), st.randoms(use_true_random=False))
def test_key_ignores_column_and_cell_order_only(start: Board, data: Any, rng: Any) -> None:
    seen: list[Board] = []
    for board in walk(start, data, most=20):
        pos = board.position
        cols, cells = list(pos.columns), list(pos.cells)
        rng.shuffle(cols)
        rng.shuffle(cells)
        shuffled = Board(board.game, Position(tuple(cols), tuple(cells), pos.foundations))
        assert shuffled.key() == board.key()
        hash(board.key())
        seen.append(board.copy(stack=False))
    for a, b in itertools.combinations(seen, 2):
        assert (a.key() == b.key()) == (canonical(a) == canonical(b))


@PROPERTY
@given(start_boards(), st.data())
def test_safe_autoplay_moves_are_legal_foundation_moves(start: Board, data: Any) -> None:
    for board in walk(start, data, most=20):
        safe = board.safe_autoplay_moves()
        legal = board.generate_legal_moves()
        assert all(m.dst.is_foundation and m in legal for m in safe)
        if board.game.build is Build.SAME_SUIT:
            assert set(safe) == {m for m in legal if m.dst.is_foundation}
    played = board.autoplay()
    assert board.safe_autoplay_moves() == []
    assert all(m.dst.is_foundation for m in played)


# --- perft ------------------------------------------------------------------------------------

def perft_rows() -> list[tuple[str, int, int, int, int, int]]:
    rows = []
    for line in PERFT.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            game, deal, cells, depth, exactly, within = line.split()
            rows.append((game, int(deal), int(cells), int(depth), int(exactly), int(within)))
    return rows


def test_perft_file_is_well_formed() -> None:
    rows = perft_rows()
    assert {r[0] for r in rows} == {"freecell", "bakers_game", "bakers_dozen"}
    assert len(rows) >= 30
    assert max(r[3] for r in rows) >= 3


def layers(start: Board, depth: int, successors: Any) -> list[set[Any]]:
    """Distinct keys reached by exactly 1..depth moves."""
    layer = {start.key(): start}
    out = []
    for _ in range(depth):
        nxt: dict[Any, Board] = {}
        for board in layer.values():
            for child in successors(board):
                nxt.setdefault(child.key(), child)
        layer = nxt
        out.append(set(nxt))
    return out


def by_legal_moves(board: Board) -> Iterator[Board]:
    for move in board.legal_moves:
        child = board.copy(stack=False)
        child.push(move)
        yield child


def by_brute_force(board: Board) -> Iterator[Board]:
    for src, dst, count in brute_force_moves(board):
        child = board.copy(stack=False)
        child.push(Move(src, dst, count))
        yield child


def perft_cases() -> dict[tuple[str, int, int], dict[int, tuple[int, int]]]:
    cases: dict[tuple[str, int, int], dict[int, tuple[int, int]]] = {}
    for game, deal, cells, depth, exactly, within in perft_rows():
        cases.setdefault((game, deal, cells), {})[depth] = (exactly, within)
    return cases


@pytest.mark.parametrize(
    ("case", "expected"), sorted(perft_cases().items()),
    ids=lambda v: "-".join(map(str, v)) if isinstance(v, tuple) else f"depth{max(v)}")
def test_perft(case: tuple[str, int, int], expected: dict[int, tuple[int, int]]) -> None:
    game, deal, cells = case
    start = Board.deal(game, deal, cells=cells)
    got = layers(start, max(expected), by_legal_moves)
    seen = {start.key()}
    for depth, keys in enumerate(got, 1):
        seen |= keys
        assert (len(keys), len(seen)) == expected[depth], f"depth {depth}"
    # the brute force agrees position by position on the shallow layers
    assert layers(start, 2, by_brute_force) == got[:2]


# --- find_move: where a clicked card goes ------------------------------------------------------

# 16 cards left; tops: 1 Q♠, 2 K♠, 3 J♦ (on Q♦), 4 K♦, 5 10♣, 6 J♠, 7 K♥, 8 empty
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


@pytest.mark.parametrize("src,count,empty_first,expected", [
    ("5", 1, False, "5h"),          # foundation first
    ("1", 1, False, "12"),          # then a column where it builds
    ("7", 1, False, "7a"),          # then a free cell
    ("7", 1, True, "78"),           # seed 004: an empty column first
    ("2", 1, True, "2a"),           # never a lone card to an empty column
    ("3", 2, False, "34/2"),        # a run goes onto a column
    ("3", 1, False, "3a"),
])
def test_find_move_best_place(src: str, count: int, empty_first: bool, expected: str) -> None:
    board = Board.from_text(TENS_UP, "bakers_game")
    move = board.find_move(src, count, prefer_empty_column=empty_first)
    assert board.move_text(move) == expected.replace("/2", "")
    assert move.notation(with_count=True).replace("/1", "") == expected


def test_find_move_order_is_data() -> None:
    assert board_module.BEST_PLACE_ORDER[0] is board_module.Target.FOUNDATION
    assert board_module.EMPTY_FIRST_ORDER.index(board_module.Target.EMPTY_COLUMN) < \
        board_module.EMPTY_FIRST_ORDER.index(board_module.Target.CELL)
    assert set(board_module.BEST_PLACE_ORDER) == set(board_module.Target)


def test_find_move_refusals() -> None:
    board = Board.from_text(TENS_UP, "bakers_game")
    with pytest.raises(IllegalMoveError, match="not a run"):
        board.find_move("1", 2)
    with pytest.raises(IllegalMoveError, match="empty"):
        board.find_move("8")
    with pytest.raises(IllegalMoveError, match="free cell a is empty"):
        board.find_move("a")
    with pytest.raises(IllegalMoveError, match="no column"):
        board.find_move("9")
    with pytest.raises(InvalidMoveError):
        board.find_move("1", 0)
    with pytest.raises(IllegalMoveError, match="foundation"):
        board.find_move("h")
    blocked = make(BLOCKED, game="freecell", ncells=0)
    with pytest.raises(IllegalMoveError, match="nowhere to go"):
        blocked.find_move("1")
    dozen = Board.deal("bakers_dozen", 5)
    with pytest.raises(IllegalMoveError, match="single"):
        dozen.find_move("1", 2)


def test_finishing_moves_and_autoplay_finish() -> None:
    assert Board.from_text(TENS_UP, "bakers_game").finishing_moves() is None
    two_left = Board.from_text("Foundations: H-J C-K D-K S-K\nKH\nQH\n", "bakers_game")
    moves = two_left.finishing_moves()
    assert moves is not None and [str(m) for m in moves] == ["2h", "1h"]
    assert two_left.autoplay(safe=False, finish=True) == moves and two_left.is_won()


def test_movements_say_which_cards_each_move_carries() -> None:
    board = Board.from_text(TENS_UP, "bakers_game")
    before = board.position
    moved = board.movements([M("34"), M("1a"), M("5h")])
    assert [(m.cards, str(m.src), str(m.dst)) for m in moved] == [
        ((C("QD"), C("JD")), "3", "4"), ((C("QS"),), "1", "a"), ((C("TC"),), "5", "h")]
    assert board.position == before
