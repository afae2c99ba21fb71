"""Cards, suits and ranks: parsing, formatting, the Microsoft pack order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bakers import CardError
from bakers.cards import Card, Suit, full_pack, rank_from_str, rank_to_str


def test_pack_is_52_distinct_cards_in_microsoft_order() -> None:
    pack = full_pack()
    assert len(pack) == 52
    assert len(set(pack)) == 52
    # Microsoft order: rank-major, suits clubs, diamonds, hearts, spades
    assert [str(c) for c in pack[:5]] == ["AC", "AD", "AH", "AS", "2C"]
    assert str(pack[-1]) == "KS"
    for i, card in enumerate(pack):
        assert card.index == i
        assert Card.from_index(i) == card


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("7H", 7, Suit.HEARTS),
        ("7h", 7, Suit.HEARTS),
        ("7♥", 7, Suit.HEARTS),
        ("7♡", 7, Suit.HEARTS),
        ("TD", 10, Suit.DIAMONDS),
        ("10D", 10, Suit.DIAMONDS),
        ("10♦", 10, Suit.DIAMONDS),
        ("AS", 1, Suit.SPADES),
        ("a♠", 1, Suit.SPADES),
        ("KC", 13, Suit.CLUBS),
        ("Q♣", 12, Suit.CLUBS),
        ("jd", 11, Suit.DIAMONDS),
        (" 9S ", 9, Suit.SPADES),
    ],
)
def test_card_from_str(text: str, rank: int, suit: Suit) -> None:
    assert Card.from_str(text) == Card(rank, suit)


@pytest.mark.parametrize("text", ["", "7", "H", "1H", "11H", "0S", "7X", "ZZ", "7HH", "10", "♥7"])
def test_bad_card_text_raises_card_error(text: str) -> None:
    with pytest.raises(CardError):
        Card.from_str(text)


def test_card_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="not a card"):
        Card.from_str("7")


def test_card_formats() -> None:
    ten = Card.from_str("TH")
    assert str(ten) == "TH"
    assert ten.unicode() == "T♥"
    assert ten.pretty() == "10♥"
    assert ten.label() == "10 of hearts"
    assert Card.from_str("QS").label() == "queen of spades"
    assert Card.from_str("AC").pretty() == "A♣"
    assert repr(Card.from_str("7d")) == "Card.from_str('7D')"


def test_colours() -> None:
    assert Card.from_str("7H").is_red and Card.from_str("7D").is_red
    assert not Card.from_str("7S").is_red and not Card.from_str("7C").is_red


def test_suit_from_str() -> None:
    assert Suit.from_str("hearts") is Suit.HEARTS
    assert Suit.from_str("♠") is Suit.SPADES
    assert Suit.from_str("c") is Suit.CLUBS
    with pytest.raises(CardError, match="unknown suit"):
        Suit.from_str("x")


def test_ranks() -> None:
    assert [rank_from_str(t) for t in "A23456789TJQK"] == list(range(1, 14))
    assert rank_from_str("10") == 10
    assert "".join(rank_to_str(r) for r in range(1, 14)) == "A23456789TJQK"
    with pytest.raises(CardError, match="unknown rank"):
        rank_from_str("1")


@given(st.sampled_from(full_pack()))
def test_every_format_round_trips(card: Card) -> None:
    assert Card.from_str(str(card)) == card
    assert Card.from_str(card.unicode()) == card
    assert Card.from_str(card.pretty()) == card
    assert Card.from_str(str(card).lower()) == card
    assert eval(repr(card), {"Card": Card}) == card


@given(st.text(max_size=6))
def test_arbitrary_text_parses_or_raises_card_error(text: str) -> None:
    try:
        card = Card.from_str(text)
    except CardError:
        return
    assert card in full_pack()
