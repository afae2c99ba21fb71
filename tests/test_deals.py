"""Numbered deals: Microsoft FreeCell numbering, Baker's Dozen dealing,
deal-number checking, random and daily deal helpers."""

from __future__ import annotations

import datetime as dt
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bakers import Board, DealError
from bakers.cards import Card, full_pack
from bakers.deals import (
    MAX_DEAL,
    daily_candidates,
    deal_columns,
    parse_deal_number,
    random_deal_number,
    shuffled_pack,
    today_utc,
)

DATA = Path(__file__).resolve().parent / "data"


def ms_fixture() -> dict[int, list[str]]:
    """Deal number -> the eight column lines of ``data/ms_deals.txt``."""
    deals: dict[int, list[str]] = {}
    current: list[str] | None = None
    for raw in (DATA / "ms_deals.txt").read_text().splitlines():
        line = raw.strip()
        if line.startswith("# deal"):
            current = deals.setdefault(int(line.split()[-1]), [])
        elif line and current is not None:
            current.append(line)
    return deals


MS_DEALS = ms_fixture()
MFB = shutil.which("make-microsoft-freecell-board")


def test_fixture_covers_the_range_edges() -> None:
    assert {1, 617, 11982, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**33 - 1} <= set(MS_DEALS)
    assert all(len(lines) == 8 for lines in MS_DEALS.values())


@pytest.mark.parametrize("number", sorted(MS_DEALS))
def test_freecell_deal_matches_fixture(number: int) -> None:
    expected = "\n".join(MS_DEALS[number]) + "\n"
    assert Board.deal("freecell", number).to_text() == expected


@pytest.mark.parametrize("number", sorted(MS_DEALS))
def test_bakers_game_deal_has_freecell_layout(number: int) -> None:
    expected = "\n".join(MS_DEALS[number]) + "\n"
    for cells in (4, 3, 0, 8):
        board = Board.deal("bakers_game", number, cells=cells)
        assert board.to_text() == expected
        assert board.cells == (None,) * cells
        assert board.foundations == (0, 0, 0, 0)
        assert board.deal_number == number


def test_deal_11982_by_hand() -> None:
    """The famous impossible deal, pinned literally."""
    board = Board.deal("freecell", 11982)
    assert board.to_text().splitlines()[0] == "AH 3D KD JC 6C JD KC"
    assert board.to_text().splitlines()[-1] == "JS KS 3C 7C 7S 5H"


def _mfb_numbers() -> list[int]:
    rng = random.Random(20240611)
    edges = [1, 2, 3, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 2**31 - 2, 2**31 - 1, 2**31,
             2**31 + 1, 2**32 - 2, 2**32 - 1, 2**32, 2**32 + 1, 2**32 + 0x7FFF,
             2**32 + 0x8000, 2**33 - 2, 2**33 - 1]
    spread = [rng.randint(1, 32000) for _ in range(60)]
    spread += [rng.randint(32001, 2**31 - 1) for _ in range(80)]
    spread += [rng.randint(2**31, 2**32 - 1) for _ in range(80)]
    spread += [rng.randint(2**32, MAX_DEAL) for _ in range(80)]
    # log-uniform over the whole range so every magnitude is tried
    spread += [int(2 ** rng.uniform(0, 33)) or 1 for _ in range(40)]
    return edges + spread


@pytest.mark.skipif(MFB is None, reason="make-microsoft-freecell-board is not installed")
def test_deals_match_make_microsoft_freecell_board() -> None:
    assert MFB is not None
    numbers = _mfb_numbers()
    assert len(numbers) >= 300
    mismatches = []
    for number in numbers:
        ref = subprocess.run([MFB, "-t", str(number)], capture_output=True, text=True,
                             check=True, timeout=10).stdout
        ref = ref.replace("10", "T")  # the tool writes 10; we write T
        ours = Board.deal("freecell", number).to_text()
        if ours.split() != ref.split() or ours.count("\n") != ref.count("\n"):
            mismatches.append(number)
    assert mismatches == []


# --- Baker's Dozen -----------------------------------------------------------------

def test_bakers_dozen_deal_1_by_hand() -> None:
    """Microsoft deal 1's pack dealt into 13 columns of 4, kings moved under."""
    expected = """\
JD QC TS 7D
KH 2D QH 6D
9H 3H 4H 8S
JC 2S AC 8D
KS 5D 4D QS
7H 9D 7S 6C
7C QD 3S 3D
5H JS TD 8C
KD AS 4S TC
KC AH TH 6S
9S 3C 8H 9C
5S 4C 2C 2H
AD 5C JH 6H
"""
    board = Board.deal("bakers_dozen", 1)
    assert board.to_text() == expected
    assert board.cells == ()


def _pack_from_fixture(number: int) -> list[Card]:
    """The dealing order, read back from the fixture's 8 cyclic columns."""
    rows = [[Card.from_str(t) for t in line.split()] for line in MS_DEALS[number]]
    return [rows[i % 8][i // 8] for i in range(52)]


def _kings_under(raw: list[Card], column: tuple[Card, ...]) -> None:
    """``column`` is ``raw`` with its kings moved beneath, others' order kept."""
    assert len(column) == len(raw) == 4
    assert sorted(column) == sorted(raw)
    kings = sum(1 for c in raw if c.rank == 13)
    assert all(c.rank == 13 for c in column[:kings])
    assert [c for c in column if c.rank != 13] == [c for c in raw if c.rank != 13]


@pytest.mark.parametrize("number", sorted(MS_DEALS))
def test_bakers_dozen_from_fixture_pack(number: int) -> None:
    pack = _pack_from_fixture(number)
    assert pack == shuffled_pack(number)
    board = Board.deal("bakers_dozen", number)
    assert len(board.columns) == 13
    for i, column in enumerate(board.columns):
        _kings_under(pack[i::13], column)


@given(st.integers(1, MAX_DEAL))
def test_bakers_dozen_against_raw_shuffle(number: int) -> None:
    pack = shuffled_pack(number)
    board = Board.deal("bakers_dozen", number)
    for i, column in enumerate(board.columns):
        _kings_under(pack[i::13], column)
    assert sorted(c for col in board.columns for c in col) == sorted(full_pack())


def test_bakers_dozen_deal_with_several_kings_in_one_column() -> None:
    """Find a deal where a column holds two kings above a non-king and check
    both go beneath, in dealt order, with the rest kept in order."""
    for number in range(1, 5000):
        pack = shuffled_pack(number)
        for i in range(13):
            raw = pack[i::13]
            if sum(c.rank == 13 for c in raw) >= 2 and raw[0].rank != 13:
                column = Board.deal("bakers_dozen", number).columns[i]
                assert list(column) == ([c for c in raw if c.rank == 13]
                                        + [c for c in raw if c.rank != 13])
                assert column[0].rank == column[1].rank == 13
                return
    pytest.fail("no deal with two kings in a column found")


@given(st.integers(1, MAX_DEAL), st.sampled_from([8, 13]))
def test_deal_columns_is_cyclic(number: int, columns: int) -> None:
    pack = shuffled_pack(number)
    cols = deal_columns(number, columns)
    assert [list(c) for c in cols] == [pack[i::columns] for i in range(columns)]


@given(st.integers(1, MAX_DEAL))
def test_shuffle_is_a_permutation(number: int) -> None:
    pack = shuffled_pack(number)
    assert len(pack) == 52
    assert set(pack) == set(full_pack())


# --- deal numbers -----------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "number"),
    [("1", 1), (" 42 ", 42), ("#617", 617), ("1,000", 1000), ("8_589_934_591", MAX_DEAL),
     ("8589934591", MAX_DEAL), ("0001", 1), (11982, 11982), (MAX_DEAL, MAX_DEAL)],
)
def test_parse_deal_number(text: str | int, number: int) -> None:
    assert parse_deal_number(text) == number


@pytest.mark.parametrize(
    ("value", "message"),
    [(0, "out of range"), (-1, "out of range"), (MAX_DEAL + 1, "out of range"),
     (2**64, "out of range"), ("0", "out of range"), ("8589934592", "out of range"),
     ("9" * 5000, "out of range"), ("", "not a whole number"), ("abc", "not a whole number"),
     ("-5", "not a whole number"), ("1.5", "not a whole number"),
     ("1e3", "not a whole number"), ("0x10", "not a whole number"),
     ("²", "not a whole number"), ("１２", "not a whole number"),
     (True, "whole number")],
    ids=lambda v: v[:16] if isinstance(v, str) else None,
)
def test_bad_deal_numbers(value: str | int, message: str) -> None:
    with pytest.raises(DealError, match=message):
        parse_deal_number(value)


def test_deal_error_reaches_board_deal_and_shuffle() -> None:
    with pytest.raises(DealError, match="out of range"):
        Board.deal("freecell", 0)
    with pytest.raises(DealError, match="out of range"):
        Board.deal("bakers_dozen", MAX_DEAL + 1)
    with pytest.raises(DealError):
        shuffled_pack(-3)
    assert issubclass(DealError, ValueError)


@given(st.text(max_size=30))
def test_any_text_is_a_deal_number_or_a_deal_error(text: str) -> None:
    try:
        number = parse_deal_number(text)
    except DealError as exc:
        assert len(str(exc)) < 200  # one readable line, even for huge input
        return
    assert 1 <= number <= MAX_DEAL


# --- random and daily -----------------------------------------------------------------

def test_random_deal_numbers_are_in_range_and_vary() -> None:
    numbers = {random_deal_number() for _ in range(50)}
    assert all(1 <= n <= MAX_DEAL for n in numbers)
    assert len(numbers) > 40


def test_daily_candidates_are_stable_per_date_and_game() -> None:
    day = dt.date(2024, 3, 1)
    first = daily_candidates(day, "freecell")
    assert first == daily_candidates(day, "freecell")
    assert len(first) == 50 and len(set(first)) > 45
    assert all(1 <= n <= MAX_DEAL for n in first)
    assert daily_candidates(day + dt.timedelta(days=1), "freecell") != first
    assert daily_candidates(day, "bakers_game") != first
    assert len(daily_candidates(day, "freecell", count=3)) == 3
    assert daily_candidates(day, "freecell", count=3) == first[:3]


def test_today_utc() -> None:
    before = dt.datetime.now(dt.UTC).date()
    today = today_utc()
    after = dt.datetime.now(dt.UTC).date()
    assert before <= today <= after
