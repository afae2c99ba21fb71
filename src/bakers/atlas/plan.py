"""Which cell counts to solve for one deal, and what follows from the rest.

Free cells only ever help: a win with k cells is a win with k + 1 (leave the
extra cell unused), and so a loss with k cells is a loss with k − 1. A deal
therefore has a *threshold*: the fewest cells that win it (9, here ``NEVER``,
when not even eight do), and its verdict at k cells is *winnable* exactly when
k ≥ threshold. The planner solves as few cell counts as it can to pin the
threshold down among the requested counts: it keeps the interval of
thresholds that the verdicts so far allow, and each time solves the count
whose verdict splits the prior probability of that interval most evenly — a
binary search weighted by how deals of the game are known to fall. The prior
only orders the work; the verdicts are the solver's, and a different prior
would give the same table with a different number of solves.

>>> infer({3: "impossible", 5: "winnable"}, range(0, 9))
{0: ('impossible', 3), 1: ('impossible', 3), 2: ('impossible', 3), 3: ('impossible', 3), \
5: ('winnable', 5), 6: ('winnable', 5), 7: ('winnable', 5), 8: ('winnable', 5)}
>>> next_cells("freecell", range(0, 9), {}, set())
2
>>> next_cells("freecell", range(0, 9), {2: "winnable"}, set())
1
>>> next_cells("freecell", range(0, 9), {2: "winnable", 1: "impossible"}, set()) is None
True
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from ..games import GAMES
from ..verdicts import VERDICTS
from .errors import AtlasError

WINNABLE, IMPOSSIBLE, UNKNOWN = VERDICTS  # the words the atlas stores
MAX_CELLS = 8
NEVER = MAX_CELLS + 1  # the threshold of a deal that no cell count up to 8 wins

# Published shares of deals winnable with k cells (random deals; see the
# atlas report's comparison): they set the planner's prior only.
PRIOR_WIN_SHARE: dict[str, tuple[float, ...]] = {
    "bakers_game": (0.00001, 0.0018, 0.0425, 0.289, 0.750, 0.979, 0.9998, 1.0, 1.0),
    "freecell": (0.002137, 0.19348, 0.79544, 0.993583, 0.99998881, 1.0, 1.0, 1.0, 1.0),
}
FLOOR = 1e-9  # every threshold keeps some prior mass


@functools.cache
def prior(game: str) -> tuple[float, ...]:
    """Prior probability of each threshold 0 … ``NEVER`` for ``game``
    (uniform for a game without published shares)."""
    shares = PRIOR_WIN_SHARE.get(game)
    if shares is None:
        return tuple(1.0 / (NEVER + 1) for _ in range(NEVER + 1))
    pmf = [shares[0]] + [shares[k] - shares[k - 1] for k in range(1, len(shares))]
    pmf.append(1.0 - shares[-1])
    pmf = [max(p, FLOOR) for p in pmf]
    total = sum(pmf)
    return tuple(p / total for p in pmf)


def bounds(solved: Mapping[int, str]) -> tuple[int, int]:
    """The thresholds ``lo``–``hi`` (inclusive) that the solved verdicts allow.

    :raises AtlasError: when the verdicts contradict monotonicity (a loss with
        more cells than a win), which only a solver bug can cause.
    """
    lo, hi = 0, NEVER
    for k, v in solved.items():
        if v == WINNABLE:
            if k < hi:
                hi = k
        elif v == IMPOSSIBLE and k >= lo:
            lo = k + 1
    if lo > hi:
        raise AtlasError(f"the solver's verdicts contradict each other: impossible with "
                         f"{lo - 1} cells but winnable with {hi}")
    return lo, hi


def infer(solved: Mapping[int, str], cells: Iterable[int]) -> dict[int, tuple[str, int]]:
    """The verdict at each of ``cells`` that the solved verdicts decide, with
    the cell count it follows from (itself when it was solved)."""
    lo, hi = bounds(solved)
    out: dict[int, tuple[str, int]] = {}
    for k in cells:
        verdict = solved.get(k)
        if verdict in (WINNABLE, IMPOSSIBLE):
            out[k] = (verdict, k)
        elif hi < NEVER and k >= hi:  # a win with hi cells
            out[k] = (WINNABLE, hi)
        elif k < lo:  # a loss with lo - 1 cells
            out[k] = (IMPOSSIBLE, lo - 1)
    return out


def fewest_cells(solved: Mapping[int, str]) -> int | None:
    """The threshold when the verdicts pin it down (``NEVER`` for a deal that
    is impossible with 8 cells), else ``None``."""
    lo, hi = bounds(solved)
    return lo if lo == hi else None


def next_cells(game: str, cells: Iterable[int], solved: Mapping[int, str],
               tried: set[int]) -> int | None:
    """The requested cell count to solve next, or ``None`` when every one of
    ``cells`` is decided or was tried in vain (``tried``: left unknown at the
    current budget)."""
    lo, hi = bounds(solved)
    decided = infer(solved, cells)
    candidates = [k for k in cells if k not in decided and k not in tried]
    if not candidates:
        return None
    pmf = prior(game)
    mass = sum(pmf[lo:hi + 1])

    def balance(k: int) -> tuple[float, int]:
        p_win = sum(pmf[lo:min(k, hi) + 1]) / mass  # P(threshold <= k | lo..hi)
        return abs(p_win - 0.5), k

    return min(candidates, key=balance)


def parse_cells(text: str) -> list[int]:
    """``--cells``: a range ``0-8``, a list ``3,4``, or both ``0-2,4``.

    >>> parse_cells("0-2,4")
    [0, 1, 2, 4]
    """
    out: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        lo_text, dash, hi_text = part.partition("-")
        try:
            lo = int(lo_text)
            hi = int(hi_text) if dash else lo
        except ValueError:
            raise AtlasError(f"--cells: {part!r} is not a cell count or a range "
                             f"like 0-8") from None
        if not 0 <= lo <= hi <= MAX_CELLS:
            raise AtlasError(f"--cells: {part!r} must lie within 0-{MAX_CELLS}, low to high")
        out.update(range(lo, hi + 1))
    if not out:
        raise AtlasError("--cells: give a range like 0-8 or a list like 3,4")
    return sorted(out)


def parse_games(text: str) -> list[str]:
    """``--games``: ``all`` or a comma-separated list of names."""
    from ..games import find_game

    if text.strip().lower() == "all":
        return list(GAMES)
    names: list[str] = []
    for part in text.split(","):
        if not part.strip():
            continue
        name = find_game(part.strip()).name
        if name not in names:
            names.append(name)
    if not names:
        raise AtlasError("--games: give 'all' or names like freecell,bakers_game")
    return names


def parse_deals(text: str) -> tuple[int, int]:
    """``--deals``: a range ``1-32000`` (or one deal).

    >>> parse_deals("1-32000")
    (1, 32000)
    """
    from ..deals import parse_deal_number

    lo_text, dash, hi_text = text.strip().partition("-")
    lo = parse_deal_number(lo_text.strip())
    hi = parse_deal_number(hi_text.strip()) if dash else lo
    if lo > hi:
        raise AtlasError(f"--deals: the range {lo}-{hi} is empty")
    return lo, hi


def game_cells(game: str, cells: Iterable[int]) -> list[int]:
    """The requested cell counts that ``game`` has (Baker's Dozen has none:
    it is solved once, with 0)."""
    g = GAMES[game]
    if g.max_cells == 0:
        return [0]
    return [k for k in cells if k <= g.max_cells]
