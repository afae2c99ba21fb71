"""Games as data: the three rule sets, name lookup, cell variants, safe autoplay."""

from __future__ import annotations

import dataclasses

import pytest

from bakers import GAMES, UnknownGameError, find_game
from bakers.cards import Card, full_pack
from bakers.errors import BakersError
from bakers.games import Build, EmptyColumn, RunMoves

C = Card.from_str


def test_registry_has_the_three_games() -> None:
    assert set(GAMES) == {"freecell", "bakers_game", "bakers_dozen"}


def test_rule_sets() -> None:
    fc, bg, bd = GAMES["freecell"], GAMES["bakers_game"], GAMES["bakers_dozen"]
    assert (fc.columns, fc.cells, fc.build, fc.empty_column, fc.run_moves) == (
        8, 4, Build.ALTERNATE_COLOUR, EmptyColumn.ANY, RunMoves.SUPERMOVE)
    assert (bg.columns, bg.cells, bg.build, bg.empty_column, bg.run_moves) == (
        8, 4, Build.SAME_SUIT, EmptyColumn.ANY, RunMoves.SUPERMOVE)
    assert (bd.columns, bd.cells, bd.build, bd.empty_column, bd.run_moves) == (
        13, 0, Build.ANY_SUIT, EmptyColumn.NONE, RunMoves.SINGLES)
    assert bd.kings_to_bottom and not fc.kings_to_bottom and not bg.kings_to_bottom
    assert fc.levels == ("easy", "normal", "hard", "expert")
    assert bd.levels == ("easy", "normal", "expert")


def test_deal_shapes() -> None:
    assert GAMES["freecell"].column_lengths() == (7, 7, 7, 7, 6, 6, 6, 6)
    assert GAMES["bakers_game"].column_lengths() == (7, 7, 7, 7, 6, 6, 6, 6)
    assert GAMES["bakers_dozen"].column_lengths() == (4,) * 13
    for game in GAMES.values():
        assert sum(game.column_lengths()) == 52


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("freecell", "freecell"),
        ("FreeCell", "freecell"),
        ("FREECELL", "freecell"),
        ("bakers_game", "bakers_game"),
        ("bakers-game", "bakers_game"),
        ("Baker's Game", "bakers_game"),
        ("Baker’s Game", "bakers_game"),
        ("  bakers  game ", "bakers_game"),
        ("bakers dozen", "bakers_dozen"),
        ("Baker's-Dozen", "bakers_dozen"),
    ],
)
def test_find_game_accepts_spellings(name: str, expected: str) -> None:
    assert find_game(name).name == expected


@pytest.mark.parametrize("name", ["", "klondike", "bakers", "free cell game"])
def test_unknown_game(name: str) -> None:
    with pytest.raises(UnknownGameError, match="unknown game"):
        find_game(name)


def test_unknown_game_error_is_a_value_error() -> None:
    assert issubclass(UnknownGameError, BakersError)
    assert issubclass(UnknownGameError, ValueError)


@pytest.mark.parametrize("game", ["freecell", "bakers_game"])
@pytest.mark.parametrize("cells", range(0, 9))
def test_cells_zero_to_eight(game: str, cells: int) -> None:
    g = find_game(game, cells=cells)
    assert g.cells == cells
    assert g.name == game
    assert find_game(game).cells == 4  # the registry value is untouched


@pytest.mark.parametrize("cells", [-1, 9, 100])
def test_cells_out_of_range(cells: int) -> None:
    with pytest.raises(UnknownGameError, match="0 to 8 free cells"):
        find_game("freecell", cells=cells)


def test_bakers_dozen_has_no_cells() -> None:
    assert find_game("bakers_dozen", cells=0).cells == 0
    with pytest.raises(UnknownGameError, match="no free cells"):
        find_game("bakers_dozen", cells=1)


def test_find_game_passes_game_values_through() -> None:
    g = find_game("bakers_game", cells=3)
    assert find_game(g) is g
    assert find_game(g, cells=2).cells == 2


# --- build policies: the seed worked examples ---------------------------------

def test_bakers_game_builds_in_suit() -> None:
    g = find_game("bakers_game")
    assert g.builds(C("7H"), C("8H"))
    assert not g.builds(C("7H"), C("8C"))
    assert not g.builds(C("7H"), C("8D"))
    assert not g.builds(C("7H"), C("8S"))


def test_freecell_builds_in_alternate_colours() -> None:
    g = find_game("freecell")
    assert g.builds(C("7H"), C("8S"))
    assert g.builds(C("7H"), C("8C"))
    assert not g.builds(C("7H"), C("8D"))
    assert not g.builds(C("7H"), C("8H"))


def test_bakers_dozen_builds_regardless_of_suit() -> None:
    g = find_game("bakers_dozen")
    for eight in ("8S", "8H", "8C", "8D"):
        assert g.builds(C("7H"), C(eight))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_builds_only_one_rank_down(game: str) -> None:
    g = find_game(game)
    for card in full_pack():
        for onto in full_pack():
            if g.builds(card, onto):
                assert onto.rank == card.rank + 1
    assert not g.builds(C("KS"), C("AH"))  # no wrap
    assert not g.builds(C("6H"), C("8S"))
    assert not g.builds(C("8S"), C("7H"))


@pytest.mark.parametrize(("game", "parents"), [("freecell", 2), ("bakers_game", 1),
                                               ("bakers_dozen", 4)])
def test_number_of_parents(game: str, parents: int) -> None:
    g = find_game(game)
    for card in full_pack():
        n = sum(g.builds(card, onto) for onto in full_pack())
        assert n == (0 if card.rank == 13 else parents)


def test_build_descriptions_name_the_rule() -> None:
    assert Build.SAME_SUIT.describe() == "builds in suit"
    assert "alternating colours" in Build.ALTERNATE_COLOUR.describe()
    assert "regardless of suit" in Build.ANY_SUIT.describe()


# --- safe autoplay ---------------------------------------------------------------

def found(h: int = 0, c: int = 0, d: int = 0, s: int = 0) -> tuple[int, int, int, int]:
    """Foundation ranks in Suit order (clubs, diamonds, hearts, spades)."""
    return (c, d, h, s)


def test_aces_and_twos_are_always_safe() -> None:
    for game in GAMES.values():
        assert game.safe_to_foundation(C("AH"), found())
    assert find_game("freecell").safe_to_foundation(C("2H"), found(h=1, c=1, s=1))


def test_bakers_game_every_foundation_move_is_safe() -> None:
    g = find_game("bakers_game")
    assert g.safe_to_foundation(C("9H"), found(h=8))


def test_freecell_safe_when_both_opposite_colour_lower_cards_are_home() -> None:
    g = find_game("freecell")
    # 7♥ could still take 6♣ or 6♠ while they are out
    assert not g.safe_to_foundation(C("7H"), found(h=6, c=5, s=6, d=0))
    assert not g.safe_to_foundation(C("7H"), found(h=6, c=6, s=5, d=13))
    assert g.safe_to_foundation(C("7H"), found(h=6, c=6, s=6, d=0))
    assert g.safe_to_foundation(C("7S"), found(s=6, h=6, d=6, c=0))
    assert not g.safe_to_foundation(C("7S"), found(s=6, h=6, d=5, c=13))


def test_bakers_dozen_safe_only_when_every_lower_rank_is_home() -> None:
    g = find_game("bakers_dozen")
    assert not g.safe_to_foundation(C("5D"), found(d=4, h=4, c=4, s=3))
    assert g.safe_to_foundation(C("5D"), found(d=4, h=4, c=4, s=4))


def test_a_fourth_game_is_just_data() -> None:
    """A same-suit game with no cells and closed columns needs no new engine code."""
    from bakers import Board

    variant = dataclasses.replace(
        GAMES["bakers_game"], name="test_variant", title="Test Variant",
        empty_column=EmptyColumn.NONE, cells=0)
    board = Board.deal(variant, 1)
    assert board.game.title == "Test Variant"
    for move in board.legal_moves:
        assert not move.dst.is_cell
        board.push(move)
        board.pop()
