"""The solver: honest verdicts, replayable solutions and hints, for every game
of the family and any number of free cells.

>>> from bakers import Board
>>> result = solve(Board.deal("bakers_game", 11982))
>>> result.verdict.value, len(result.moves) > 0, result.limit
('winnable', True, None)
>>> solve(Board.deal("freecell", 11982)).verdict.value
'impossible'
>>> solve(Board.deal("freecell", 11982), max_states=100).limit
'state limit 100'

Verdicts
--------
* **winnable** comes with two move lists, both replayed through the rules
  engine (``Board.push`` on a fresh board, ending in ``is_won()``) before the
  answer is given: ``moves`` (run moves allowed, safe foundation moves
  included) and ``single_moves`` (every card movement explicit).
* **impossible** only when the complete search ran out of positions: every
  position reachable from the given one, under the pruning rules below, was
  expanded.
* **unknown** when a limit stopped the search; ``limit`` names it:
  ``timeout 5 s``, ``state limit 3,000,000`` (positions expanded, over all
  stages) or ``memory limit 4,096 MB`` (estimated from the positions held, and
  the process's peak resident memory growing past the limit).

Engines
-------
Two engines run searches of the same kinds under the same pruning rules
(save rules 7 and 9 in the Python engine's portfolio), each with its own copy of
the rules, both held to the rules engine by
differential tests (``tests/test_native.py``): ``native`` (the C library in
``csrc/`` behind ``_native.c``, the default wherever it was built; see
``native.py``) and
``python`` (``engine.py``, the reference). The native core keeps a position
as 52 bytes, one per card — the card beneath it, or column bottom, cell or
home — which is its canonical key as it stands; the Python engine's key is
described next. Their portfolios differ on purpose, each tuned for its own
engine (``engine.portfolio``; ``native.Portfolio``: more beam widths, in
Baker's Dozen the relaxation of rule 8, probes — short best-first searches
from each position a few moves from the root, nearest first —, a race of
weightings and restarts with drawn weights on Luby's schedule, a rival
search in FreeCell). Only the native
engine has the short-line search (``solve(..., lines="short")``) and the
exhaustive search. Either way ``api.py`` turns the engine's line into board
moves and replays them through the rules engine (or, for surveys, the core's
own line checker) before it says *winnable*.

The search
----------
A position is one ``bytes`` key: sorted columns of card indices, then the
foundations and the sorted cells (``engine.py``). The move generator is the
engine's own (the rules engine is far too slow per position) and works on the
key: a table of exposed cards finds every card's targets through a table of
the cards it may be placed on, and per-column facts are cached per distinct
column: the exposed card, and every way to take cards off the top (the card,
or a longer built run) with what is left, the card it uncovers, the change of
heuristic value and the target cards outside the column.

A *portfolio* runs: (1) a complete best-first search ordered by
``depth × h + g`` — ``h`` counts cards lying above a lower card of their own
suit, cards not lying on a card they build on, cards in cells, minus cards
home and empty columns; ``g`` is the number of moves made, which keeps lines
short — for 200,000 positions (2,000 in Baker's Dozen); (2) if that did not
conclude, beam searches of width 300, 1,000, 3,000 and 10,000 (incomplete:
they only ever produce wins, and find them in spaces far too large to
exhaust, as Baker's Dozen's are; in FreeCell with at most 3 cells, where
most deals are lost and only the best-first search proves it, that search
is resumed after the two cheapest beams, before the wider ones); (3) the
best-first search again, resumed, with everything that is left. Only
(1)/(3) emptying its frontier gives *impossible*.

``search="exhaustive"`` (native engine; ``bakers solve --exhaustive``, the
atlas's proof pass) runs a depth-first search instead, children best first by
the same heuristic, that expands every reachable position once. It keeps no
record per position, only the path and its unexplored siblings, and holds the
positions seen in a compact form: the foundations, one bit per card in play
that moved from where it lay in the root, and for such a card where it lies
now (which of the cards it builds on, a column's bottom or a cell) — about 12
bytes in FreeCell, 27–30 bytes a position with the hash table, against the
portfolio's 90–220. The form follows from the 52-byte key and gives it back,
so it is exact: no two positions share one.

Pruning rules, and why none loses a win
---------------------------------------
The argument pattern: for a winnable position let *n* be the length of its
shortest winning line (single-card moves, foundation moves counted). Each rule
below keeps, for every winnable position the search expands, a child whose
*n* is smaller; so by induction on *n* the search reaches the win, and a
search that ends without it proves the position lost.

1. **Safe foundation moves are made at once** (``Game.safe_to_foundation``):
   a card goes home as soon as every card that could be built on it is home —
   always in Baker's Game (only its own suit's next lower card builds on it);
   in FreeCell when both next-lower cards of the other colour are home (or
   by Horne's looser rule: rule 6); in
   Baker's Dozen when all four next-lower cards are home (or, in the
   exhaustive search, by rule 6's looser form). *Why:* take a
   winning line L and such a card c. No card can ever be placed on c again.
   Delete every move of c from L and play c home first: each remaining move
   is still legal, because c only sat exposed in a column or in a cell, and
   its absence only frees space (a cell, an empty column, more room for runs);
   foundation moves of c's suit still come in order. The new line is no
   longer than L, so the position after c goes home has a shorter line. The
   order in which safe cards go home does not matter (foundations only grow,
   so what is safe and available stays so), hence the closure is one
   well-defined position.

2. **Column order and cell order do not matter**: the key sorts both, so two
   positions that differ only by a permutation are one — they have the same
   lines, renamed. Hence one free cell and one empty column stand for all as
   destinations.

3. **A move that gives the same position back is not made**: moving a whole
   column (a lone card, or a run that is all of its column) into an empty
   column.

4. **Run moves are shorthand only**: every legal single-card move is
   generated; a run move of up to (F+1)·2^E cards (free cells F, empty columns
   E not counting the destination) is an extra edge that a sequence of single
   moves realises, so it adds no position and removes none. They make lines
   shorter, never verdicts different.

5. **Where emptied columns stay empty (Baker's Dozen), the last card of a
   column never moves onto another card.** *Why:* if a shortest winning line
   did so (X, alone in its column, onto Y), delete that move and leave X where
   it was: every move up to X's next one stays legal (X is as exposed as
   before, so cards may still be built on it; Y is uncovered, which only adds
   options; an empty column that can never be refilled is worth nothing), and
   X's next move (onto another card, or home) is made from its old column,
   after which the positions are the same. That line is one move shorter: a
   contradiction. So no shortest line contains such a move.

6. **In FreeCell, Horne's looser rule also sends a card home at once**: a
   ready card c of rank r goes home when the two other-colour cards of rank
   r − 2 and the same-colour card of the other suit of rank r − 3 are home
   (so every two goes home as soon as it is ready). *Why:* only the two
   other-colour cards of rank r − 1 (call them X) can be built on c; on an
   X only same-colour cards of rank r − 2, of which c's own suit's is home
   already, leaving one card y; on y only other-colour cards of rank r − 3,
   all home. Each X can go home whenever it is exposed (its suit's r − 2 is
   home), and so can y (its suit's r − 3 is home). Take a winning line L and
   play c home first; then follow L, keeping a set H of cards that are home
   here but in play in L — c at first, and never a card that a card outside
   H lies on in L. A move of L that puts an X on a card of H, or y on an X of
   H, sends that card home instead and adds it to H (no other card can be put
   on a card of H); a move of a card of H is left out, and a run move loses
   the cards of H at its top (above a card of H lie only cards of H); every
   other move is made as in L, and is legal, since its cards lie where they
   lie in L, and the cards of H take no cell, column or room for runs. The
   line ends won and is shorter than L by at least c's own foundation move,
   and it has no more player moves.

   **In Baker's Dozen the same argument gives a looser rule still**: a ready
   card c of rank r goes home when all four cards of rank r − 2 are home (so
   every two goes home as soon as it is ready). *Why:* on c only the cards of
   rank r − 1 can be built, of any suit (call them X); on an X only cards of
   rank r − 2, all home, so there is no y. Each X can go home whenever it is
   exposed (its suit's r − 2 is home), and the set H works as above (Baker's
   Dozen moves one card at a time and never fills an emptied column, so no
   run move or cell comes into it). The exhaustive search uses it: it
   shrinks the spaces that proofs of loss search about three times (deal
   5257: 1,305,093 positions to exhaust without it, 501,229 with it). The
   portfolio keeps the usual rule in Baker's Dozen, because its stages were
   chosen with it: with the looser rule deals 1–1,000 cost 26.9 million
   positions instead of 21.0 million, and two stay unknown at 3 million.

   The Python engine and the core's portfolio use the same rules; the
   table's own autoplay keeps the usual one (rule 1).

7. **In Baker's Dozen dead children are dropped** (both searches): a position
   in which some card can never go home, even in a relaxation of the game,
   is not searched. The relaxation is the least fixed point of three facts:
   a card *can be exposed* once every card above it in its column *can
   leave*; it *can go home* once it can be exposed and its suit's next lower
   card can go home (or is home); it *can leave* if it can go home, or if
   some card one rank higher can be exposed and does not lie beneath it in
   its own column. *Why:* follow any winning line and take the first time
   each card leaves its place, is uncovered, goes home: every card that was
   above it left before, a card goes home after its suit's lower card, and a
   card that moves onto a card of the next rank finds that card exposed then
   — not beneath it, since it still covers what lies beneath it. So every
   event of a real line is in the fixed point (by induction on time), and a
   position with a card outside the fixed point's *home* has no winning
   line. Dropping positions with no winning line keeps every winnable one,
   so the induction above still reaches a win. It holds where cards never
   fill an emptied column and move one at a time (no cells, no run moves),
   so the three facts cover every move: Baker's Dozen. Rule 7 decides many
   losses at the root (of the 52 Baker's Dozen deals of 1–32,000 proven lost
   without it, 29 have a card outside the fixed point at the start) and
   cuts the rest (deal 5257: 501,229 positions to exhaust with rules 1–6, 1
   with rule 7: every child of the root is dead); the core's portfolio
   needs a quarter of the positions (``docs/benchmarks.md``). The Python
   engine's portfolio does without it: with its own weights and beams it
   costs more there (deals 48 and 27: 135,139 and 91,932 positions without
   it, 172,497 and 154,841 with it, and five times the time); that engine
   drops dead children only as the reference for the core's searches
   (``Rules(..., exhaustive=True)``). ``engine.Rules.dead``
   and the core's ``bk_dead`` compute it column by column (a position lives
   exactly when every column can be uncovered to its bottom card); the tests
   hold the engine's to the fixed point as defined, and the differential
   tests the core's to the engine's. The core tests a child from its
   parent's laid-out columns (the moved card off one column and onto
   another, the cards the closure sent home off the tops): the columns the
   child's key gives. A position the searches expand that generate kept as
   a child is live, so it is not tested again (every search's root is
   tested: a record without a parent, or the exhaustive search's first
   position). The same positions in about three quarters of the time
   (``docs/benchmarks.md``).

8. **In Baker's Dozen the exhaustive search first plays the pool relaxation**
   from its root (the core's portfolio too, after its first stage, for up to
   100,000 states), and a position that loses there is lost. In the relaxed
   game each column keeps its cards in their order; a card that leaves its
   column joins a *pool* and may lie on any card one rank higher that is in
   the pool or uncovered in a column, one card on each — the pool is
   rearranged for free. A state is each column's depth and each suit's
   height; its moves: a column's uncovered card goes home or joins the pool,
   the pool's next card of a suit goes home. A card moves only if nothing
   need lie on it (the pool's cards one rank lower fit on the other cards of
   its rank), and after a move the pool must fit: for each rank *r*, the
   pool holds no more cards of rank *r* than the pool and the columns' tops
   hold of rank *r* + 1, and no king. *Why:* in any real position every
   card that left its column lies on a card one rank higher (cards move
   one at a time onto the next rank, or home; no column is refilled), that
   card is a moved card or the uncovered one of its column's cards that
   never moved, and each card holds one card: so the pool fits. A real move
   of a card that has moved before changes no relaxed state; any other
   sends a column's uncovered card home or out, or a moved card home, with
   nothing on it — a relaxed move. So a real winning line is a relaxed one,
   and when the relaxed game is lost, so is the position. Every relaxed move
   shortens a column or raises a suit, so a depth-first search that keeps
   the states it has met (each one searched to the end by the time it is
   met again) decides it; its states count as positions of the budget. A
   card whose lower rank is all home goes home at once there (its only
   move): no card can ever need to lie on it, so any relaxed line with it
   still out is a relaxed line with it home, that move left out (this cuts
   the relaxed states two to three times).
   Coarser relaxed games are played first, and a loss in any one proves the
   position lost: in the game *from rank L* the cards below L are *gone*
   the moment they are uncovered — they need no card to lie on and no turn
   home — a card of rank L or more goes home once its suit's cards below L
   are gone and its lower ones home, and the pool holds only cards of rank
   L or more, fitting by the same counts. *Why:* a line of the full relaxed
   game is a line of the game from L with each card below L gone when it
   first leaves its column (the counts for ranks L and up are the same
   ones; the game from L asks nothing of the lower ranks); and a card below
   L gone sooner only uncovers the card beneath it sooner, which loosens
   every count and test, so if the game from L is lost with such cards gone
   at once, it is lost with them gone at will, and so is the full relaxed
   game. The core plays the game from 12 (queens and kings), then from 8,
   7 and 5, then the full game (``RELAX_LADDER``), each with its own states
   seen, all counted: from 12 most lost deals whose four queens need kings
   that are not there are lost in about a hundred states (deal 21980: 100,
   against 3,975,921 for the full game); from 7 or 5 many that the full game
   takes hundreds of thousands of states or millions for (deal 9515:
   585,284 against 4,431,468). The portfolio's first relaxation, which
   nearly every deal it reaches wins, plays the short ladder (12, 8, then
   the full game), and only a later stage the fine one.
   It counts the cards that wait on each rank at once, where rule 7 lets
   any number share one card; the exhaustive search keeps rule 7 beneath
   it for the positions the relaxation leaves open. Of Baker's
   Dozen's 22 deals of 1–32,000 left unknown by the exhaustive search with
   rules 1–7, 15 are lost in the relaxed game (77,757 to 18,392,997 states,
   0.02 to 15.5 s, with the full game alone); each of the 31,904 deals of
   1–32,000 won by a replayed line wins the relaxed game, and each of the 89
   proven lost loses it (a second proof of each): with the fine ladder in
   2,316,057 relaxed states for the 89, with the short one in 13,864,001,
   against 138,900,296 with the full game alone (deal 27105: 54,534 against
   18,392,997). Only at
   the root: a search of millions of states at every position would cost
   more than it saves. ``engine.Rules.relaxed`` is the
   reference for the core's ``bk_relax`` (the same verdicts and counts).

9. **In Baker's Game with cells, a card in a cell whose natural parent (its
   suit's next higher card) is a column's exposed card goes onto it**, after
   the safe cards went home, the highest card first (the core's
   ``close_cells``; ``engine.Rules(..., cellclose=True)`` is the reference),
   and a built run on top of a column goes into the cells *whole*, as one
   move, where the free cells hold it — never one card of it alone (the
   closure would put it back), nor a card whose parent is exposed
   elsewhere (the closure would make that the move onto the parent).
   *Why:* a card in a cell and the same card on its exposed parent are one
   move apart both ways (onto the parent frees the cell; back into that
   cell), so the two positions win or lose together; the search keeps one
   of each such group, the *closed* position S, and must reach from it, by
   its own moves, the closed form of every position that any member T of
   S's group reaches in one move. The members are S with the top part of
   some columns' built runs in cells, each part leaving at least its run's
   lowest card behind: in Baker's Game a card builds only on its natural
   parent, so the card X beneath a part, the parent of the part's lowest
   card, is exposed in T, and only that card can lie on X. A move of T is
   (a) a part's card onto its parent: T's own group; (b) a part's card
   home: it is its run's top card in S (the cards above it are lower cards
   of its suit, not home), S's own move; (c) a part's card Y into an empty
   column: the closure brings the cards above Y onto it and the ones below
   back to their column — S's run move of Y and what lies on it, which S's
   free cells allow (at least as many as the part); (d) X, or a built run
   ending in X, onto a parent or into an empty column: S's run move of the
   same cards with the part on them, within S's capacity ((F + 1)·2^E
   grows by at least the part's size when F does); X into a cell: T's own
   group if X lies on its parent, else X is its run's lowest card and this
   is S's move of the whole run into cells; X home cannot be (a card of its
   suit below it is in a cell); (e) any other move: S's own move (S has
   more free cells and the same exposed cards but for X, which only the
   part's card can take), and it leaves the parts where they are, so its
   closed form is that of S's child. By induction on the length of a line,
   every position reachable in the game has its closed form reachable in
   the search, and a won position is its own closed form: the rule loses
   no win. Lines carry the closure's moves (``line.c`` plays cells onto
   parents after the safe foundation moves, and the run into cells card by
   card), so they are replayed as every line is. Not in FreeCell, where a
   card has two parents and, with the part in cells, another card of the
   part's colour can be built on X (T's move, not S's); not in the
   short-line search, whose bound does not count the closure's moves; and
   not in the Python engine's portfolio and lines (only as the reference).
   It halves the positions Baker's Game searches (4 cells, deals
   1,001–9,000: 16,734,404 → 9,202,892, the same verdicts;
   ``docs/benchmarks.md``).

10. **In FreeCell with one to three cells, when every cell is full, a card
    Y in a cell goes onto a parent X** — one of the two cards of the other
    colour one rank higher — that is a column's exposed card and not ready
    to go home (its suit's home cards do not reach the card below it), where
    Y's *twin* Z (the other card of Y's colour and rank) is home or has a
    card on it: the first such X by card index, the cards in the cells taken
    by index, pass after pass, until none moves (a card put on its parent can
    take another), after the safe cards went home (the core's
    ``close_full``; ``engine.Rules(..., cellclose=True)`` is the reference,
    ``line.c`` plays the moves in a line). A move of a card into a cell
    whose closure gives the parent back is no child. *Why:* write C(P) for
    P so closed (P itself when a cell is free). Claim: for every position P
    that the search under rules 1–6 reaches, the search with rule 10
    reaches P or C(P); a won position has its cells empty, so the win is
    found. By induction on the moves to P: the root is reached. Let P reach
    P' by a move m (and the safe cards home). If P is reached, m is its move
    and the search makes C(P'). Otherwise S = C(P) ≠ P is reached: P is
    full and S has k ≥ 1 of its cell cards *placed* in columns, each on a
    parent that is a card exposed in P (a *base*) or another placed card,
    and k free cells. Facts: a placed card's base is not ready, and no card
    was placed on a ready one; a column card exposed in P is covered in S
    only if it is a base, and then by a card whose twin is home or covered.
    m puts no card into a cell (P is full); S makes m's cards move, as
    follows. (a) A cell card that is not placed, onto a card, into an empty
    column or home: S makes the same move (its destination, a parent of a
    card in a cell, is not a base: the card on a base has its twin out of
    the cells). (b) A placed card Y: S moves Y with the placed cards on it
    — a built run of at most k cards — onto the same card (unless Y lies
    there: another base's card is Y's twin, whose twin Y is in a cell) or
    into an empty column, which S's room allows ((F + 1)·2^E for
    F free cells and E empty columns besides the destination: here at
    least (k + 1)·2^E), or Y home (then nothing was placed on it, Y being
    ready). (c) A run of n cards from a column onto a card D, into an empty
    column, or its one card home: if its top card is a base, S moves it
    with the placed cards on it (within its room: P's was 2^E, S's is
    (k + 1)·2^E); a base never goes home (not ready). If D is a base, the
    card on it in S is the twin of the run's bottom card, which has a card
    on it, so n ≥ 2, and P's room 2^E ≥ 2 means an empty column: S first
    moves that card with the placed cards on it into the empty column, then
    the run (its room, (k + 1)·2^(E−1), still holds the run and the placed
    cards on its top). The safe cards go home in S as in P but for cards
    placed under others, which go home when uncovered below. Then S moves
    back into a free cell every card that is in a cell in P' but not in
    S's position now (placed cards only, lying on top of others), the top
    one of each column first: a legal move each, and no cell is full
    before the last. If P' has
    a free cell (m took a card out of one, or sent one home), the result is
    P' itself; if P' is full, the last move fills the cells and the search
    closes the position: C(P'). So P' or C(P') is reached, and the induction
    goes on. Only FreeCell with one to three cells, where most deals are
    lost and the proofs are the work; not in the short-line search, whose
    bound does not count the closure's moves; nor in the Python engine's
    portfolio and lines (only as the reference). It shrinks FreeCell's
    spaces with one cell about one and a half times and with two about
    twice (the exhaustive search with one cell, deal 90: 925,229 positions →
    547,042; 10113: 5,984,201 → 3,867,984; with two, deal 579: 224,858 →
    100,356; the same verdicts; ``docs/benchmarks.md``). Checked beyond the
    proof: positions of random play and positions near the end of won lines
    (some after random moves), with one, two and three cells, 1,550 in all,
    each searched by the Python engine without the rule and by both of the
    core's searches with it: the same verdict every time; and deals 1–400
    with two cells and 1–300 with three against the atlas.

Each argument for rules 1–8 deletes moves from a line and never adds one
(rule 6 turns moves into foundation moves), so those rules also keep a line
of fewest *player moves* (moves that do not go to a foundation): the
short-line search prunes by them (rules 9 and 10 add moves, so not by them).

Forcing "reversible" moves (a card from a cell back onto a column, say)
through a closure step is unsound in general — it cuts off positions that
need the reverse move first; rule 9 is such a closure made sound in Baker's
Game by moving built runs into cells whole and keeping run moves of every
length, and rule 10 in FreeCell with few cells by closing only when every
cell is full, where no other card can want the parent and the parent cannot
go home.

Costs and lengths of the Python engine (one core, CPU time)
---------------------------------------------------
* Baker's Game, 4 cells, deals 1-1000: all 1000 verdicts agree with the proven
  table (766 winnable, 234 impossible); 16 s in all (``fc-solve -l cn -g
  bakers_game``: 5.7 s), median 6.5 ms, worst 0.31 s (deal 223). An
  impossible deal exhausts 1,000-51,000 positions at about 170,000 a second.
* FreeCell deals 1-1000: all winnable, 10 s in all, median 7.5 ms, worst 0.2 s.
  Deal 11982 is proven impossible after 61,643 positions (1.5 s; 71,775 before
  pruning rule 6).
* Baker's Dozen deals 1-200: all resolved (199 winnable, deal 104 impossible),
  median 15 ms, worst 24 s (deal 152, found by the widest beam).
* Lines, in standard notation with foundation moves counted, on deals 1-100:
  Baker's Game 90 moves on average (128 single-card moves) against fc-solve
  ``-l cn``'s 185; FreeCell 98 (171 single) against fc-solve's 137 (default)
  and 116 (``-l lg``).
"""

from .api import (
    ENGINES,
    LINES,
    SEARCHES,
    Decision,
    HintResult,
    SolveResult,
    Verdict,
    check_engine,
    check_limits,
    decide_deal,
    decide_deals,
    default_engine,
    hint,
    solve,
)

__all__ = ["ENGINES", "LINES", "SEARCHES", "Decision", "HintResult", "SolveResult", "Verdict",
           "check_engine", "check_limits", "decide_deal", "decide_deals", "default_engine", "hint",
           "solve"]
