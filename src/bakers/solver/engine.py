"""The search engine: compact states, the move generator, and two searches.

Everything here works on a *state key*, one ``bytes`` object that is at once
the position and its canonical form::

    <column> SEP <column> ... SEP HEAD f0 f1 f2 f3 <cells>

A card is its ``Card.index`` (0..51), every column runs from its bottom card to
its exposed card, ``f0..f3`` are the foundation heights (clubs, diamonds,
hearts, spades), ``SEP`` is ``0xFF`` and ``HEAD`` is ``0xFE``. The columns are
sorted and so are the cells, so positions that differ only in the order of
columns or of cells have the same key; and since ``HEAD`` sorts after every
column, ``SEP.join(sorted(columns + [head]))`` builds a key in one step.
``key.split(SEP)`` gives the parts back: a state costs one small object.

The engine knows nothing of ``Board``; ``api.py`` turns a position into a key
and a line of keys back into moves that the rules engine checks.
"""

from __future__ import annotations

import dataclasses
import heapq
import sys
import time
from collections.abc import Callable
from types import ModuleType

from ..games import Build, EmptyColumn, Game, RunMoves
from ..verdicts import limit_text

resource: ModuleType | None
try:
    import resource
except ImportError:  # not on Windows: the memory guard then counts positions only
    resource = None

SEP = b"\xff"
HEAD = b"\xfe"
NCARDS = 52

# A move in card terms, independent of the order of columns and cells:
# (card, count, destination) where destination is the exposed card it goes
# onto, or one of these codes.
TO_FOUNDATION = -1
TO_CELL = -2
TO_EMPTY = -3
CardMove = tuple[int, int, int]

_B1 = [bytes([c]) for c in range(256)]


# pruning rule 7's masks: a card's suit up to it, and the cards of the next rank
_SUIT_UP_TO = [sum(1 << d for d in range(c & 3, c + 1, 4)) for c in range(NCARDS)]
_NEXT_RANK = [0xF << (c // 4 + 1) * 4 if c < 48 else 0 for c in range(NCARDS)]
# FreeCell with at most this many cells: "few cells" (the core's BK_FEW_CELLS,
# bakers.h), where pruning rule 10 holds with one cell at least
FEW_CELLS = 3
# Pruning rule 8's relaxed games, in turn: the lowest rank each one follows
# (the cards below it gone at will); the core's RELAX_LADDER (relax.c).
RELAX_LADDER = (12, 8, 7, 5, 1)


def _rank(c: int) -> int:
    return (c >> 2) + 1


def _is_red(c: int) -> bool:
    return (c & 3) in (1, 2)


def _builds(build: Build, card: int, onto: int) -> bool:
    if _rank(onto) != _rank(card) + 1:
        return False
    if build is Build.SAME_SUIT:
        return card & 3 == onto & 3
    if build is Build.ALTERNATE_COLOUR:
        return _is_red(card) != _is_red(onto)
    return True


@dataclasses.dataclass(frozen=True)
class Weights:
    """The heuristic: lower looks closer to a win. Per column (cached):
    ``blocked`` × cards lying above a lower card of their own suit (each must
    move before that card goes home) + ``unbuilt`` × cards not lying on a card
    they build on; ``empty`` is taken off per empty column. Per position:
    ``cell`` × cards in cells − ``home`` × cards home. Best-first orders by
    ``depth`` × h + moves made (``depth`` 1 is A*-like; larger is greedier)."""

    blocked: int
    cell: int
    home: int
    empty: int
    unbuilt: int
    depth: int = 1
    need: int = 0  # native core only: × cards above each foundation's next card


# Tuned on deals 1-300 and checked on 301-700 of each game.
WEIGHTS: dict[Build, Weights] = {
    Build.SAME_SUIT: Weights(blocked=1, cell=3, home=2, empty=2, unbuilt=1, depth=2),
    Build.ALTERNATE_COLOUR: Weights(blocked=2, cell=3, home=2, empty=2, unbuilt=1, depth=1),
    Build.ANY_SUIT: Weights(blocked=2, cell=3, home=2, empty=2, unbuilt=1, depth=1, need=1),
}
# The beam searches of Baker's Dozen take turns with these two (chosen on the
# hardest of deals 1-200 among six candidates).
BEAM_WEIGHTS: tuple[Weights, ...] = (
    Weights(blocked=1, cell=0, home=2, empty=0, unbuilt=1, need=1),
    Weights(blocked=2, cell=0, home=1, empty=0, unbuilt=1, need=1),
)

Tables = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]


def tables(build: Build) -> Tables:
    """Per card: the cards it may be placed on, and the cards placed on it."""
    parents = tuple(tuple(p for p in range(NCARDS) if _builds(build, c, p))
                    for c in range(NCARDS))
    children = tuple(tuple(d for d in range(NCARDS) if _builds(build, d, c))
                     for c in range(NCARDS))
    return parents, children


class _Cache(dict[bytes, int]):
    """A dict that computes a column's value on first use."""

    def __init__(self, fn: Callable[[bytes], int]) -> None:
        super().__init__()
        self._fn = fn

    def __missing__(self, col: bytes) -> int:
        value = self._fn(col)
        self[col] = value
        return value


# One way to take cards off the top of a column: (count, what is left, the
# cards taken, the card uncovered (-1: none), heuristic change of the column).
Take = tuple[int, bytes, bytes, int, int]
# A take and a card its bottom card may be placed on: (count, what is left,
# the cards taken, the target card, the card uncovered, heuristic change).
Onto = tuple[int, bytes, bytes, int, int, int]
# Per column: the exposed card, the column without it, that card as bytes, the
# card it uncovers, the heuristic change; every (take, target) by count; and
# the takes (count 1, then each longer built run).
ColumnInfo = tuple[int, bytes, bytes, int, int, tuple[Onto, ...], tuple[Take, ...]]


class _InfoCache(dict[bytes, ColumnInfo]):
    """A dict that computes a column's :data:`ColumnInfo` on first use."""

    def __init__(self, fn: Callable[[bytes], ColumnInfo]) -> None:
        super().__init__()
        self._fn = fn

    def __missing__(self, col: bytes) -> ColumnInfo:
        value = self._fn(col)
        self[col] = value
        return value


class _CellsCache(dict[bytes, bytes]):
    """``cells + card`` -> the sorted cells with that card put in (or, with
    ``remove``, taken out)."""

    def __init__(self, remove: bool = False) -> None:
        super().__init__()
        self._remove = remove

    def __missing__(self, raw: bytes) -> bytes:
        value = raw[:-1].replace(raw[-1:], b"") if self._remove else bytes(sorted(raw))
        self[raw] = value
        return value


class Rules:
    """A game's policies compiled into tables, plus per-column caches."""

    def __init__(self, game: Game, tabs: Tables, weights: Weights | None = None, *,
                 exhaustive: bool = False, cellclose: bool = False) -> None:
        self.game = game
        self.ncols = game.columns
        self.ncells = game.cells
        self.supermoves = game.run_moves is RunMoves.SUPERMOVE
        self.can_fill = game.empty_column is EmptyColumn.ANY
        self.parents, self.children = tabs
        self.always_safe = game.build is Build.SAME_SUIT
        # pruning rule 6: Horne's rule in FreeCell, and its looser form in
        # Baker's Dozen for the closure of the core's exhaustive search
        # (``exhaustive``; the core's exhaustive_rules, held to this one by
        # the differential tests)
        self.exhaustive = exhaustive
        self.horne = game.build is Build.ALTERNATE_COLOUR or (
            exhaustive and game.build is Build.ANY_SUIT)
        # pruning rule 7 (the core's bk_dead) where it holds (Baker's Dozen);
        # this engine's own portfolio does without it (its beams fare worse
        # with it), so it drops dead children only for ``exhaustive``: the
        # reference for the core's searches, which both use it
        self.dead_holds = (game.build is Build.ANY_SUIT and not self.ncells
                           and not self.can_fill and not self.supermoves)
        self.dead_rule = exhaustive and self.dead_holds
        # pruning rule 9 (the core's cellclose) where it holds (Baker's Game
        # with cells): only as the reference for the core's searches, which
        # all use it; this engine's portfolio and its lines do without it
        self.cellclose_holds = (self.always_safe and self.ncells > 0 and self.can_fill
                                and self.supermoves)
        self.cellclose = cellclose and self.cellclose_holds
        # pruning rule 10 (the core's cellclose for FreeCell with one to three
        # cells): only as the reference for the core's searches, as rule 9
        self.cellclose_full_holds = (game.build is Build.ALTERNATE_COLOUR
                                     and 1 <= self.ncells <= FEW_CELLS
                                     and self.can_fill and self.supermoves)
        self.cellclose_full = cellclose and self.cellclose_full_holds
        self.weights = weights or WEIGHTS[game.build]
        self.goal = self.make_key(bytes([13, 13, 13, 13]), b"", [b""] * game.columns)
        self.run = _Cache(self._run_length)
        self.heur = _Cache(self._column_cost)
        self.info = _InfoCache(self._column_info)

    def reweighted(self, weights: Weights) -> Rules:
        return Rules(self.game, (self.parents, self.children), weights,
                     exhaustive=self.exhaustive,
                     cellclose=self.cellclose or self.cellclose_full)

    # --- per-column values ---------------------------------------------------

    def _run_length(self, col: bytes) -> int:
        """Cards on top of ``col`` that form a built run (1 without run moves)."""
        if not col:
            return 0
        if not self.supermoves:
            return 1
        children = self.children
        n = 1
        while n < len(col) and col[-n] in children[col[-n - 1]]:
            n += 1
        return n

    def _column_info(self, col: bytes) -> ColumnInfo:
        """Everything the move generator needs from a non-empty column, so
        that a position's expansion slices no column and scores only the
        columns that a move creates."""
        heur = self.heur
        hcol = heur[col]
        takes: list[Take] = []
        onto: list[Onto] = []
        for k in range(1, self._run_length(col) + 1):
            src = col[:-k]
            take = (k, src, col[-k:], src[-1] if src else -1, heur[src] - hcol)
            takes.append(take)
            # a lone card moves onto another only where its emptied column
            # can be refilled (pruning rule 5); a target in this very column
            # is never exposed elsewhere
            if src or k > 1 or self.can_fill:
                onto.extend((k, src, take[2], p, take[3], take[4])
                            for p in self.parents[col[-k]] if p not in col)
        _, ns, c1, t, d1 = takes[0]
        return col[-1], ns, c1, t, d1, tuple(onto), tuple(takes)

    def _column_cost(self, col: bytes) -> int:
        w = self.weights
        if not col:
            return -w.empty
        low = [99, 99, 99, 99]
        blocked = 0
        for c in col:
            s = c & 3
            if low[s] < c:
                blocked += 1
            else:
                low[s] = c
        children = self.children
        unbuilt = 0
        for i in range(1, len(col)):
            if col[i] not in children[col[i - 1]]:
                unbuilt += 1
        return w.blocked * blocked + w.unbuilt * unbuilt

    def h_range(self) -> tuple[int, int]:
        """Bounds of the heuristic value of any position."""
        w = self.weights
        low = -w.home * NCARDS - w.empty * self.ncols
        high = (w.blocked + w.unbuilt) * NCARDS + w.cell * self.ncells
        return low, high

    # --- positions -------------------------------------------------------------

    def is_safe(self, card: int, fnd: bytes | bytearray | list[int]) -> bool:
        """Sending ``card`` home loses nothing: no card that could be built on
        it is still in play (``Game.safe_to_foundation``), or a looser rule
        holds (pruning rule 6 of :mod:`bakers.solver`): in FreeCell Horne's,
        the other colour's cards two ranks lower and the same colour's other
        card three ranks lower are home; in Baker's Dozen for the exhaustive
        search (``exhaustive``), all four cards two
        ranks lower are home (the same test: every child's suit has its card
        two ranks below ``card`` home, which covers the other condition)."""
        if self.always_safe:
            return True
        children = self.children[card]
        if all(fnd[d & 3] > d >> 2 for d in children):
            return True
        if not self.horne:
            return False
        rank = card >> 2  # 0 for an ace; its children have rank - 1
        return (all(fnd[d & 3] >= rank - 1 for d in children)
                and fnd[3 - (card & 3)] >= rank - 2)  # suits 0, 3 black, 1, 2 red

    def dead(self, key: bytes) -> bool:
        """Pruning rule 7 of :mod:`bakers.solver`: some card of ``key`` can
        never go home, even if every card that could ever be exposed stayed
        available to build on. In the rule's fixed point a card goes home
        exactly when it and its suit's lower cards can be exposed, so the
        position lives when every column can be uncovered to its bottom: the
        card a column is uncovered to leaves when its suit's cards up to it
        are exposed or home, or a card one rank higher is exposed (none of
        those lies beneath it: the cards beneath it are still covered). The
        tests hold this to the fixed point as defined."""
        fnd, _, cols = self.parts(key)
        home = 0
        for s in range(4):
            home |= _SUIT_UP_TO[s + 4 * fnd[s] - 4] if fnd[s] else 0
        exposed = 0
        for col in cols:
            if col:
                exposed |= 1 << col[-1]
        tops = [len(col) - 1 for col in cols]
        progress = True
        while progress:
            progress = False
            for i, col in enumerate(cols):
                t = tops[i]
                while t > 0:
                    c = col[t]
                    if _SUIT_UP_TO[c] & ~(exposed | home) and not _NEXT_RANK[c] & exposed:
                        break
                    t -= 1
                    exposed |= 1 << col[t]
                    progress = True
                tops[i] = t
        return any(t > 0 for t in tops)

    def relaxed(self, key: bytes, max_states: int) -> tuple[str, int]:
        """Pruning rule 8 of :mod:`bakers.solver` (Baker's Dozen): the pool
        relaxation searched depth first from ``key``, its columns in the order
        of their bottom cards, as the core's bk_relax: first with the cards
        below rank 12, then below ranks 8, 7 and 5, gone at will (coarser
        relaxations of it, each much smaller), then with every card followed,
        to the first that is lost: ("impossible", n) when one proves ``key`` lost, ("open",
        n) when the last is won, ("unknown", n) past ``max_states`` relaxed
        states in all."""
        fnd0, cells, cols = self.parts(key)
        if cells or not self.dead_holds:
            raise ValueError("the pool relaxation is for Baker's Dozen's rules")
        cols = sorted((c for c in cols if c), key=lambda c: c[0])
        counted = 0
        for lo in RELAX_LADDER:
            won, states = self.relaxed_from(fnd0, cols, lo, max_states - counted)
            counted += states
            if won is not True:
                return ("impossible" if won is False else "unknown"), counted
        return "open", counted

    @staticmethod
    def relaxed_from(fnd0: bytes, cols: list[bytes], lo: int, max_states: int
                      ) -> tuple[bool | None, int]:
        """One relaxed game of :meth:`relaxed`, the cards of ranks below ``lo``
        gone at will: whether it is won (None past ``max_states`` states) and
        its states."""
        depth = [len(c) for c in cols]
        fnd = list(fnd0)
        gone = [min(f, lo - 1) for f in fnd]  # each suit's cards below lo gone
        pool = [0] * 15  # by rank 1..13: cards in the pool
        top = [0] * 15  # uncovered cards
        for c in cols:
            top[(c[-1] >> 2) + 1] += 1
        in_pool = set()
        seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()

        def fits() -> bool:
            return not pool[13] and all(pool[r] <= pool[r + 1] + top[r + 1] for r in range(1, 13))

        def free(q: int) -> bool:
            return q == 1 or pool[q - 1] <= pool[q] + top[q] - 1

        def pool_home(s: int, q: int, c: int) -> bool | None:
            """The pool's card ``c`` home, searched on from there, taken back."""
            in_pool.discard(c)
            pool[q] -= 1
            fnd[s] += 1
            won = visit() if fits() else False
            fnd[s] -= 1
            pool[q] += 1
            in_pool.add(c)
            return won

        def uncover(i: int, how: str) -> bool | None:
            """Column ``i``'s uncovered card home, to the pool or gone (a card
            below ``lo``), searched on, taken back."""
            c = cols[i][depth[i] - 1]
            q, s = (c >> 2) + 1, c & 3
            f0 = fnd[s]
            top[q] -= 1
            depth[i] -= 1
            under = (cols[i][depth[i] - 1] >> 2) + 1 if depth[i] else 0
            top[under] += 1
            if how == "home":
                fnd[s] += 1
            elif how == "gone":
                gone[s] += 1
                if gone[s] == lo - 1:
                    fnd[s] = lo - 1
            else:
                pool[q] += 1
                in_pool.add(c)
            won = visit() if fits() else False
            if how == "gone":
                gone[s] -= 1
            elif how == "pool":
                pool[q] -= 1
                in_pool.discard(c)
            fnd[s] = f0
            top[under] -= 1
            depth[i] += 1
            top[q] += 1
            return won

        def visit() -> bool | None:
            state = (tuple(depth), tuple(fnd))
            if state in seen:
                return False
            seen.add(state)
            if len(seen) > max_states:
                return None
            if fnd == [13, 13, 13, 13]:
                return True
            for i, col in enumerate(cols):  # a card below lo: gone at once
                if depth[i] and (col[depth[i] - 1] >> 2) + 1 < lo:
                    return uncover(i, "gone")
            low = min(fnd)
            for s in range(4):  # a card whose lower rank is all home: home at once
                q = fnd[s] + 1
                c = (q - 1) * 4 + s
                if q > 13 or low < q - 1:
                    continue
                for i, col in enumerate(cols):
                    if depth[i] and col[depth[i] - 1] == c:
                        return uncover(i, "home")
                if c in in_pool:
                    return pool_home(s, q, c)
            for s in range(4):
                q = fnd[s] + 1
                c = (q - 1) * 4 + s
                if q > 13 or c not in in_pool or not free(q):
                    continue
                won = pool_home(s, q, c)
                if won is not False:
                    return won
            for how in ("home", "pool"):
                for i, col in enumerate(cols):
                    if not depth[i]:
                        continue
                    c = col[depth[i] - 1]
                    if (how == "home" and fnd[c & 3] != c >> 2) or not free((c >> 2) + 1):
                        continue
                    won = uncover(i, how)
                    if won is not False:
                        return won
            return False

        won = visit()
        return won, len(seen)

    def close(self, fnd: bytearray, cells: bytes, cols: list[bytes]
              ) -> tuple[bytes, list[bytes]]:
        """Send safe cards home until none is left, then (pruning rule 9,
        with ``cellclose``) put each card in a cell whose natural parent is a
        column's exposed card onto it, the highest card first: ``fnd`` and
        ``cols`` are changed in place; the new cells are returned with the
        columns."""
        cells, cols = self._close_home(fnd, cells, cols)
        if self.cellclose and cells:
            cells = self._close_cells(cells, cols)
        elif self.cellclose_full and cells:
            cells = self._close_full(fnd, cells, cols)
        return cells, cols

    def _close_full(self, fnd: bytearray, cells: bytes, cols: list[bytes]) -> bytes:
        """Rule 10's closure alone (FreeCell, few cells): when every cell is
        full, each card in a cell onto the first of its parents that is a
        column's exposed card and not ready to go home, where its twin (the
        other card of its colour and rank) is home or covered; the cards by
        index, pass after pass, until none moves. ``cols`` changed in place,
        the cells left returned."""
        if len(cells) < self.ncells:
            return cells
        again = True
        while again:
            again = False
            for c in sorted(cells):
                twin = c ^ 3  # suits 0 and 3 are black, 1 and 2 red
                if c >= 48 or (fnd[twin & 3] <= twin >> 2
                               and not any(twin in col[:-1] for col in cols)):
                    continue
                for x in self.parents[c]:
                    j = next((j for j, col in enumerate(cols) if col and col[-1] == x), None)
                    if j is None or fnd[x & 3] == x >> 2:
                        continue
                    cols[j] += _B1[c]
                    cells = cells.replace(_B1[c], b"")
                    again = True
                    break
        return cells

    @staticmethod
    def _close_cells(cells: bytes, cols: list[bytes]) -> bytes:
        """Rule 9's closure alone: ``cols`` changed in place, the cells
        left returned."""
        tops = {col[-1]: i for i, col in enumerate(cols) if col}
        for c in sorted(cells, reverse=True):
            j = tops.get(c + 4) if c < 48 else None
            if j is not None:
                cols[j] += _B1[c]
                del tops[c + 4]
                tops[c] = j
                cells = cells.replace(_B1[c], b"")
        return cells

    def _close_home(self, fnd: bytearray, cells: bytes, cols: list[bytes]
                    ) -> tuple[bytes, list[bytes]]:
        for col in cols:
            if col and fnd[col[-1] & 3] == col[-1] >> 2:
                break
        else:
            if not any(fnd[c & 3] == c >> 2 for c in cells):
                return cells, cols  # nothing is ready to go home: the usual case
        changed = True
        while changed:
            changed = False
            for i, col in enumerate(cols):
                while col:
                    c = col[-1]
                    if fnd[c & 3] == c >> 2 and self.is_safe(c, fnd):
                        fnd[c & 3] += 1
                        col = col[:-1]
                        changed = True
                    else:
                        break
                cols[i] = col
            for c in cells:
                if fnd[c & 3] == c >> 2 and self.is_safe(c, fnd):
                    fnd[c & 3] += 1
                    cells = cells.replace(_B1[c], b"")
                    changed = True
        return cells, cols

    @staticmethod
    def make_key(fnd: bytes | bytearray, cells: bytes, cols: list[bytes]) -> bytes:
        lst = list(cols)
        lst.append(HEAD + bytes(fnd) + bytes(sorted(cells)))
        lst.sort()
        return SEP.join(lst)

    def close_key(self, fnd: bytes, cells: bytes, cols: list[bytes]) -> bytes:
        fa = bytearray(fnd)
        cells, cols = self.close(fa, cells, cols)
        return self.make_key(fa, cells, cols)

    @staticmethod
    def parts(key: bytes) -> tuple[bytes, bytes, list[bytes]]:
        """Foundations, cells and columns of a key."""
        parts = key.split(SEP)
        head = parts.pop()
        return head[1:5], head[5:], parts

    def cost(self, key: bytes) -> int:
        """The heuristic value of a position."""
        parts = key.split(SEP)
        head = parts.pop()
        heur = self.heur
        w = self.weights
        return (sum(heur[c] for c in parts) + w.cell * (len(head) - 5)
                - w.home * (head[1] + head[2] + head[3] + head[4]))

    # --- successors with their moves (for rebuilding a line; not the hot loop) --

    def successors(self, key: bytes) -> list[tuple[bytes, CardMove]]:
        """Every legal move from ``key`` (up to symmetry) with its child."""
        fnd, cells, cols = self.parts(key)
        nfree = self.ncells - len(cells)
        ne = cols.count(b"")
        tops = {col[-1]: i for i, col in enumerate(cols) if col}
        cap_occ = (nfree + 1) << ne if self.supermoves else 1
        cap_emp = (nfree + 1) << (ne - 1) if self.supermoves and ne else 1
        fill = ne > 0 and self.can_fill
        out: list[tuple[bytes, CardMove]] = []

        def child(f: bytes, cl: bytes, lst: list[bytes], move: CardMove, u: int = -1) -> None:
            # under rule 9 (where no move goes home: every card is safe, so
            # none is left ready), as the core makes a child: safe cards go
            # home when the move uncovers a ready card ``u``; the cells'
            # closure always
            if self.cellclose and not (u >= 0 and f[u & 3] == u >> 2):
                cl = self._close_cells(cl, lst)
                out.append((self.make_key(f, cl, lst), move))
            elif self.cellclose_full:
                # rule 10, as the core makes a child: safe cards go home when
                # the move sends one home or uncovers a ready safe card;
                # then the cells' closure
                fa = bytearray(f)
                if move[2] == TO_FOUNDATION or (u >= 0 and fa[u & 3] == u >> 2
                                                and self.is_safe(u, fa)):
                    cl, lst = self._close_home(fa, cl, lst)
                if cl:
                    cl = self._close_full(fa, cl, lst)
                out.append((self.make_key(fa, cl, lst), move))
            else:
                out.append((self.close_key(f, cl, lst), move))

        for i, col in enumerate(cols):
            if not col:
                continue
            c = col[-1]
            run = self.run[col]
            for k in range(1, min(run, cap_occ) + 1):
                x = col[-k]
                for p in self.parents[x]:
                    j = tops.get(p)
                    if j is not None:
                        lst = list(cols)
                        lst[i] = col[:-k]
                        lst[j] = cols[j] + col[-k:]
                        child(fnd, cells, lst, (x, k, p), col[-k - 1] if len(col) > k else -1)
            if self.cellclose and run >= 2:
                # rule 9: a built run goes into cells whole (a card of it
                # alone would come back by the closure)
                if nfree >= run:
                    lst = list(cols)
                    lst[i] = col[:-run]
                    child(fnd, cells + col[-run:], lst, (col[-run], run, TO_CELL),
                          col[-run - 1] if len(col) > run else -1)
            elif nfree and not (self.cellclose and c < 48 and c + 4 in tops):
                lst = list(cols)
                lst[i] = col[:-1]
                child(fnd, cells + _B1[c], lst, (c, 1, TO_CELL), col[-2] if len(col) > 1 else -1)
            if fill:
                for k in range(1, min(run, cap_emp, len(col) - 1) + 1):
                    lst = list(cols)
                    lst[i] = col[:-k]
                    lst[0] = col[-k:]
                    child(fnd, cells, lst, (col[-k], k, TO_EMPTY), col[-k - 1])
            if fnd[c & 3] == c >> 2 and not self.cellclose:  # rule 9: all safe, made already
                f2 = bytearray(fnd)
                f2[c & 3] += 1
                lst = list(cols)
                lst[i] = col[:-1]
                child(bytes(f2), cells, lst, (c, 1, TO_FOUNDATION))
        for c in cells:
            rest = cells.replace(_B1[c], b"")
            for p in self.parents[c]:
                j = tops.get(p)
                if j is not None:
                    lst = list(cols)
                    lst[j] = cols[j] + _B1[c]
                    child(fnd, rest, lst, (c, 1, p))
            if fill:
                lst = list(cols)
                lst[0] = _B1[c]
                child(fnd, rest, lst, (c, 1, TO_EMPTY))
            if fnd[c & 3] == c >> 2 and not self.cellclose:
                f2 = bytearray(fnd)
                f2[c & 3] += 1
                child(bytes(f2), rest, list(cols), (c, 1, TO_FOUNDATION))
        return out


Expander = Callable[[bytes, int], list[tuple[bytes, int]]]


def make_expander(rules: Rules, seen: dict[bytes, bytes | None]) -> Expander:
    """The hot loop: ``expand(key, h)`` returns the children of ``key`` that
    are not in ``seen`` yet, with their heuristic values, and records ``key``
    as their parent. It generates what :meth:`Rules.successors` does, minus
    the moves the pruning rules drop (see :mod:`bakers.solver`); a child is
    keyed first and scored only when new, incrementally from its parent's
    value and the cached values of the columns that changed.
    """
    ncols = rules.ncols
    ncells = rules.ncells
    supermoves = rules.supermoves
    can_fill = rules.can_fill
    always_safe = rules.always_safe
    some_unsafe = not always_safe
    is_safe = rules.is_safe
    parents = rules.parents
    info = rules.info
    heur = rules.heur
    close_key = rules.close_key
    cost = rules.cost
    w_cell = rules.weights.cell
    nowhere = [-1] * NCARDS
    with_cell = _CellsCache()
    without_cell = _CellsCache(remove=True)
    B1 = _B1
    join = SEP.join

    def expand(key: bytes, hp: int) -> list[tuple[bytes, int]]:
        out: list[tuple[bytes, int]] = []
        add = out.append
        parts = key.split(SEP)
        head = parts[ncols]
        fhead = head[:5]
        fnd = head[1:5]
        cells = head[5:]
        nfree = ncells - len(cells)
        ne = parts.count(b"")  # empty columns sort first
        tops = nowhere[:]  # exposed card -> its column
        for i in range(ne, ncols):
            tops[parts[i][-1]] = i
        if supermoves:
            cap_occ = (nfree + 1) << ne
            cap_emp = (nfree + 1) << (ne - 1) if ne else 0
        else:
            cap_occ = cap_emp = 1
        fill = ne and can_fill
        h_empty = heur[b""]

        for i in range(ne, ncols):
            col = parts[i]
            c, ns, c1, t, d1, onto, takes = info[col]
            # the exposed card, or a built run as shorthand for single moves,
            # onto an exposed card it builds on (a lone card only where an
            # emptied column can be refilled: the info leaves its targets out)
            for k, src, moved, p, u, dsrc in onto:
                if k > cap_occ:
                    break
                j = tops[p]
                if j < 0:
                    continue
                dcol = parts[j]
                nd = dcol + moved
                lst = parts[:]
                lst[i] = src
                lst[j] = nd
                # does the move uncover a card that then goes home safely?
                if fnd[u & 3] == u >> 2 and (always_safe or is_safe(u, fnd)):
                    del lst[ncols]
                    ck = close_key(fnd, cells, lst)
                    if ck in seen:
                        continue
                    seen[ck] = key
                    add((ck, cost(ck)))
                else:
                    lst.sort()
                    ck = join(lst)
                    if ck in seen:
                        continue
                    seen[ck] = key
                    add((ck, hp + dsrc - heur[dcol] + heur[nd]))
            # the exposed card into a free cell (one cell stands for all)
            if nfree:
                lst = parts[:]
                lst[i] = ns
                if fnd[t & 3] == t >> 2 and (always_safe or is_safe(t, fnd)):
                    del lst[ncols]
                    ck = close_key(fnd, cells + c1, lst)
                    if ck not in seen:
                        seen[ck] = key
                        add((ck, cost(ck)))
                else:
                    lst[ncols] = fhead + with_cell[cells + c1]
                    lst.sort()
                    ck = join(lst)
                    if ck not in seen:
                        seen[ck] = key
                        add((ck, hp + w_cell + d1))
            # cards into an empty column (one stands for all; never a whole
            # column, which gives the same position back)
            if fill:
                me = len(col) - 1
                if cap_emp < me:
                    me = cap_emp
                for k, src, moved, u, dsrc in takes:
                    if k > me:
                        break
                    lst = parts[:]
                    lst[i] = src
                    lst[0] = moved
                    if fnd[u & 3] == u >> 2 and (always_safe or is_safe(u, fnd)):
                        del lst[ncols]
                        ck = close_key(fnd, cells, lst)
                        if ck in seen:
                            continue
                        seen[ck] = key
                        add((ck, cost(ck)))
                    else:
                        lst.sort()
                        ck = join(lst)
                        if ck in seen:
                            continue
                        seen[ck] = key
                        add((ck, hp + dsrc + heur[moved] - h_empty))
            # the exposed card home: an unsafe move (safe ones are made already;
            # where every card is safe, as in Baker's Game, none is left)
            if some_unsafe and fnd[c & 3] == c >> 2:
                f2 = bytearray(fnd)
                f2[c & 3] += 1
                lst = parts[:ncols]
                lst[i] = ns
                ck = close_key(bytes(f2), cells, lst)
                if ck not in seen:
                    seen[ck] = key
                    add((ck, cost(ck)))

        for c in cells:
            c1 = B1[c]
            # a card in a cell onto an exposed card it builds on
            for p in parents[c]:
                j = tops[p]
                if j < 0:
                    continue
                dcol = parts[j]
                nd = dcol + c1
                lst = parts[:]
                lst[j] = nd
                lst[ncols] = fhead + without_cell[cells + c1]
                lst.sort()
                ck = join(lst)
                if ck in seen:
                    continue
                seen[ck] = key
                add((ck, hp - w_cell - heur[dcol] + heur[nd]))
            # into an empty column
            if fill:
                lst = parts[:]
                lst[0] = c1
                lst[ncols] = fhead + without_cell[cells + c1]
                lst.sort()
                ck = join(lst)
                if ck not in seen:
                    seen[ck] = key
                    add((ck, hp - w_cell + heur[c1] - h_empty))
            # home (unsafe)
            if some_unsafe and fnd[c & 3] == c >> 2:
                f2 = bytearray(fnd)
                f2[c & 3] += 1
                ck = close_key(bytes(f2), cells.replace(c1, b""), parts[:ncols])
                if ck not in seen:
                    seen[ck] = key
                    add((ck, cost(ck)))
        return out

    if rules.cellclose or rules.cellclose_full:
        successors = rules.successors

        def expand_closed(key: bytes, hp: int) -> list[tuple[bytes, int]]:
            """The reference for pruning rules 9 and 10: every successor,
            closed."""
            out: list[tuple[bytes, int]] = []
            for ck, _move in successors(key):
                if ck not in seen:
                    seen[ck] = key
                    out.append((ck, cost(ck)))
            return out

        return expand_closed
    if not rules.dead_rule:
        return expand
    dead = rules.dead
    goal = rules.goal

    def expand_alive(key: bytes, hp: int) -> list[tuple[bytes, int]]:
        """``expand`` without the children dead by pruning rule 7."""
        return [(ck, h) for ck, h in expand(key, hp) if ck == goal or not dead(ck)]

    return expand_alive


@dataclasses.dataclass
class Outcome:
    """What a search stage found."""

    line: list[bytes] | None = None   # root .. goal, when a win was found
    exhausted: bool = False           # every reachable position was expanded
    limit: str | None = None          # the limit that stopped it


def _rss_mb() -> float:
    """Peak resident memory of this process in MB (Linux reports KB, macOS
    bytes; 0 where the platform cannot tell)."""
    if resource is None:
        return 0.0
    peak = float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


class Budget:
    """The limits shared by every stage of one solve, and the states counted."""

    def __init__(self, *, timeout: float | None, max_states: int | None,
                 max_memory_mb: int | None) -> None:
        self.timeout = timeout
        self.deadline = time.perf_counter() + timeout if timeout is not None else None
        self.max_states = max_states
        self.max_memory_mb = max_memory_mb
        self.states = 0
        self.peak_start = _rss_mb()
        self.stored = 0  # positions held by stages that are still alive

    def stop_at(self, stage_states: int | None = None) -> int:
        """The state count at which a stage must stop."""
        stop = self.max_states if self.max_states is not None else 1 << 62
        if stage_states is not None:
            stop = min(stop, self.states + stage_states)
        return stop

    def check(self, stored: int, key_len: int) -> str | None:
        """The limit reached now, if any (called every 256 expansions)."""
        if self.max_states is not None and self.states >= self.max_states:
            return limit_text("states", self.timeout, self.max_states, self.max_memory_mb)
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return limit_text("timeout", self.timeout, self.max_states, self.max_memory_mb)
        if self.max_memory_mb is not None and not self.states & 4095:
            # measured: about 150 bytes a position beyond its key (dict slot,
            # frontier entry, share of the column caches)
            est = (self.stored + stored) * (key_len + 150) / (1024 * 1024)
            peak = _rss_mb()
            if est > self.max_memory_mb or (peak > self.max_memory_mb
                                            and peak > self.peak_start):
                return limit_text("memory", self.timeout, self.max_states, self.max_memory_mb)
        return None


def line_to(seen: dict[bytes, bytes | None], key: bytes) -> list[bytes]:
    line = [key]
    parent = seen[key]
    while parent is not None:
        line.append(parent)
        parent = seen[parent]
    line.reverse()
    return line


class BestFirst:
    """Complete best-first search from a closed root; ``run`` may be called
    again to continue where a stage budget stopped it.

    The frontier is a bucket queue on ``depth × h + g`` (lowest first, newest
    first within a bucket). ``seen`` maps each key to its parent's key, which
    is all it takes to rebuild the line. With the frontier empty, every
    reachable position (under the pruning rules) was expanded.
    """

    def __init__(self, rules: Rules, root: bytes) -> None:
        self.rules = rules
        self.seen: dict[bytes, bytes | None] = {root: None}
        self.expand = make_expander(rules, self.seen)
        self.scale = rules.weights.depth
        low, high = rules.h_range()
        self.offset = -low
        self.buckets: list[list[tuple[bytes, int]]] = [
            [] for _ in range((high - low + 1) * self.scale + 1024)]
        self.cur = (rules.cost(root) + self.offset) * self.scale
        self.buckets[self.cur].append((root, 0))
        self.root = root

    def run(self, budget: Budget, stage_states: int | None = None) -> Outcome:
        rules = self.rules
        goal = rules.goal
        if self.root == goal:
            return Outcome(line=[goal])
        seen = self.seen
        expand = self.expand
        buckets = self.buckets
        nbuckets = len(buckets)
        scale = self.scale
        offset = self.offset
        cur = self.cur
        stop = budget.stop_at(stage_states)
        states = budget.states
        try:
            while True:
                bucket = buckets[cur]
                while not bucket:
                    cur += 1
                    if cur >= nbuckets:
                        return Outcome(exhausted=True)
                    bucket = buckets[cur]
                if states >= stop or not states & 255:
                    budget.states = states
                    limit = budget.check(len(seen), len(bucket[-1][0]))
                    if limit is not None:
                        return Outcome(limit=limit)
                    if states >= stop:
                        return Outcome(limit="stage")
                key, g = bucket.pop()
                states += 1
                gc = g + 1
                base = offset * scale + gc
                for ck, h in expand(key, (cur - g) // scale - offset):
                    if ck == goal:
                        return Outcome(line=line_to(seen, ck))
                    b = h * scale + base
                    if b >= nbuckets:
                        buckets.extend([] for _ in range(b + 1024 - nbuckets))
                        nbuckets = len(buckets)
                    buckets[b].append((ck, gc))
                    if b < cur:
                        cur = b
        finally:
            self.cur = cur
            budget.states = states


def beam(rules: Rules, root: bytes, width: int, budget: Budget) -> Outcome:
    """Beam search: each round expands the ``width`` best new positions of the
    last round. Incomplete (a dead beam proves nothing) but it finds wins in
    spaces far too big to exhaust, as Baker's Dozen's are."""
    seen: dict[bytes, bytes | None] = {root: None}
    expand = make_expander(rules, seen)
    goal = rules.goal
    layer = [(rules.cost(root), root)]
    stop = budget.stop_at()
    while layer:
        nxt: list[tuple[int, bytes]] = []
        for hp, key in layer:
            if budget.states >= stop or not budget.states & 255:
                limit = budget.check(len(seen), len(key))
                if limit is not None:
                    return Outcome(limit=limit)
            budget.states += 1
            for ck, h in expand(key, hp):
                if ck == goal:
                    return Outcome(line=line_to(seen, ck))
                nxt.append((h, ck))
        layer = heapq.nsmallest(width, nxt) if len(nxt) > width else nxt
    return Outcome()


# --- the portfolio ---------------------------------------------------------------
# The reference engine's own schedule of searches. The native engine's
# portfolio is another one, kept as data in the C library (csrc/portfolio.c:
# other beam widths, weightings for Baker's Dozen and a rival search in
# FreeCell): each is tuned for its own engine's speed, and the tests hold
# their verdicts together, not their schedules.

FIRST_STAGE = {True: 200_000, False: 20_000}  # by "empty columns can be filled"
BEAMS = (300, 1000, 3000, 10_000)


def portfolio(rules: Rules, root: bytes, budget: Budget) -> Outcome:
    """Run the portfolio until a verdict or a limit: a complete best-first
    search first; if its first budget runs out, beam searches (incomplete,
    but quick to find wins in huge spaces); then the best-first search again
    with all that is left."""
    main = BestFirst(rules, root)
    outcome = main.run(budget, FIRST_STAGE[rules.can_fill])
    if outcome.limit != "stage":
        return outcome
    beam_weights = (BEAM_WEIGHTS if rules.game.build is Build.ANY_SUIT
                    else (rules.weights,))
    budget.stored = len(main.seen)
    for width in BEAMS:
        for weights in beam_weights:
            outcome = beam(rules.reweighted(weights), root, width, budget)
            if outcome.line is not None or outcome.limit is not None:
                return outcome
    budget.stored = 0
    return main.run(budget)
