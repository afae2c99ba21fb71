/* Move generation: every child of a position with its heuristic value. */

#include "core.h"

/* The cards lying above each foundation's next card in key ``k`` (none for a
 * card in a cell), ``fnd`` its foundations: the ``need`` term of the
 * heuristic without decoding the key. */
static int key_need(const uint8_t *k, const int *fnd)
{
    int n = 0;
    for (int s = 0; s < 4; s++) {
        if (fnd[s] >= 13 || k[fnd[s] * 4 + s] == CELL)
            continue;
        for (uint64_t m = lying_on(k, fnd[s] * 4 + s); m && n < NCARDS;
             m = lying_on(k, __builtin_ctzll(m)))
            n++;
    }
    return n;
}

/* The closure of a child with its heuristic kept up to date: every card sent
 * home takes its column cost (``contrib``, or the cell weight) with it, and a
 * column it leaves empty counts as empty. Returns the cards home. */
static int close_h(const Rules *r, const Weights *w, uint8_t *k, int *fnd, const uint8_t *contrib,
                   int *h, uint32_t *hash)
{
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int s = 0; s < 4; s++) {
            while (fnd[s] < 13) {
                int c = fnd[s] * 4 + s;
                uint8_t v = k[c];
                if (lying_on(k, c) || !is_safe(r, fnd, c))
                    break;
                if (v < NCARDS) {
                    *h -= contrib[c];
                } else if (v == BOTTOM) {
                    *h -= contrib[c] + w->empty;
                } else {
                    *h -= w->cell;
                }
                *h -= w->home;
                *hash ^= zobrist[c][v] ^ zobrist[c][HOME];
                k[c] = HOME;
                fnd[s]++;
                changed = 1;
            }
        }
    }
    return fnd[0] + fnd[1] + fnd[2] + fnd[3];
}

/* Card c from a cell onto the exposed card p it builds on, the heuristic
 * following (``h``, ``hash``): c leaves its cell, lies on a card it builds
 * on (blocked if a lower card of its suit lies beneath it), and adds one
 * card above each foundation's next card in p's column. */
static inline void from_cell(const Weights *w, uint8_t *k, int c, int p, int *h, uint32_t *hash)
{
    int blocked = 0, next = 0;
    for (int x = p, n = 0; x < NCARDS && n < NCARDS; x = k[x], n++) {
        blocked |= (x & 3) == (c & 3) && x < c;
        next += x < 4 || k[x - 4] == HOME;
    }
    *h += -w->cell + blocked * w->blocked + next * w->need;
    *hash ^= zobrist[c][CELL] ^ zobrist[c][p];
    k[c] = (uint8_t)p;
}

/* Pruning rule 9 (Baker's Game): every card in a cell whose natural parent
 * (its suit's next higher card) lies exposed in a column goes onto it. Cards
 * are taken from the highest down, so a card put on its parent is there for
 * its own child in the same pass, the heuristic following (from_cell).
 * Returns whether a card moved. */
static int close_cells(const Weights *w, uint8_t *k, int *h, uint32_t *hash)
{
    uint64_t bottoms, cells, home;
    masks(k, &bottoms, &cells, &home);
    cells &= (1ULL << 48) - 1; /* a king has no parent */
    int moved = 0;
    while (cells) {
        int c = 63 - __builtin_clzll(cells);
        cells &= ~(1ULL << c);
        int p = c + 4;
        if (k[p] > BOTTOM || lying_on(k, p))
            continue;
        from_cell(w, k, c, p, h, hash);
        moved = 1;
    }
    return moved;
}

/* Pruning rule 10 (FreeCell with few cells): when every cell is full, each
 * card c in a cell goes onto a parent X (the first of its two, by index)
 * that lies exposed in a column and is not ready to go home, where c's twin
 * (the other card of its colour and rank) is home or has a card on it;
 * until no card can (a card put on a parent may take another, and covers
 * it), the cards taken by index pass after pass, the heuristic following
 * (from_cell). Returns whether a card moved. */
static int close_full(const Rules *r, const Weights *w, uint8_t *k, int *h, uint32_t *hash)
{
    uint64_t bottoms, cells, home;
    masks(k, &bottoms, &cells, &home);
    if (__builtin_popcountll(cells) < r->ncells)
        return 0;
    cells &= (1ULL << 48) - 1; /* a king has no parent */
    int moved = 0, again = 1;
    while (again) {
        again = 0;
        for (uint64_t m = cells; m; m &= m - 1) {
            int c = __builtin_ctzll(m), z = c ^ 3; /* suits 0-3 black, 1-2 red */
            if (k[z] != HOME && !lying_on(k, z))
                continue;
            for (int q = 0; q < r->nparents[c]; q++) {
                int x = r->parents[c][q];
                if (k[x] > BOTTOM || lying_on(k, x) || k[x - 4] == HOME)
                    continue;
                from_cell(w, k, c, x, h, hash);
                cells &= ~(1ULL << c);
                moved = again = 1;
                break;
            }
        }
    }
    return moved;
}

static inline __attribute__((always_inline)) int emit_raw(Gen *g, int card, int count, int dest,
                                                          int below, int uncovered, int h,
                                                          const uint8_t *run, int j, int i,
                                                          int keep);

/* Make the child: ``card`` moved (with ``count`` - 1 cards on it, the run
 * ``run``) so that it lies on ``below`` (a card of column ``j``, BOTTOM, CELL
 * or HOME). ``uncovered`` is the card the move exposes (NONE: none); ``h`` is
 * the child's heuristic before the closures, which they keep up to date
 * (the safe foundation moves, then rule 9's where ``cellclose``). */
static inline __attribute__((always_inline)) void emit(Gen *g, const int cellclose, int card,
                                                       int count, int dest, int below,
                                                       int uncovered, int h, const uint8_t *run,
                                                       int j, int i, int keep)
{
    int autoplayed = emit_raw(g, card, count, dest, below, uncovered, h, run, j, i, keep);
    if (cellclose == CLOSE_NONE)
        return;
    Child *ch = &g->out[g->n - 1];
    if (ch->win)
        return;
    if (cellclose == CLOSE_FULL) {
        /* only a full child closes (a move fills one cell at most); a card
         * into a cell that the closure puts back gives the parent back: no
         * child */
        if (g->p->ncells + (below == CELL) >= g->r->ncells &&
            close_full(g->r, g->w, ch->key, &ch->h, &ch->hash) && below == CELL &&
            !memcmp(ch->key, g->pk, NCARDS))
            g->n--;
        return;
    }
    /* Where no card in the parent's cells has its parent exposed, only a
     * card the move exposes can be one's parent: the card it uncovered, or
     * the card it took from a cell (a run keeps its top card exposed, and a
     * card goes into a cell only where its parent is not exposed), unless
     * cards went home and uncovered more. */
    if (!g->open_cells && !autoplayed) {
        int hit = uncovered != NONE && uncovered >= 4 && ch->key[uncovered - 4] == CELL;
        hit |= g->pk[card] == CELL && card >= 4 && ch->key[card - 4] == CELL;
        if (!hit)
            return;
    }
    close_cells(g->w, ch->key, &ch->h, &ch->hash);
}

/* Rule 9's macro move: the whole built run on top of column ``i`` (``R``
 * cards, R >= 2) into free cells, one by one (a single one of them would
 * only come back by the closure). */
static void emit_run_to_cells(Gen *g, int i, int R)
{
    const Pos *p = g->p;
    const int L = p->len[i], keep = L - R;
    const uint8_t *a = p->cards[i];
    int removed = 0;
    for (int t = keep; t < L; t++)
        removed += p->contrib[a[t]];
    /* as a run move, with every card of the run into a cell (emit_raw) */
    int h = g->hp + take_off(g->w, p, i, keep, removed) + R * g->w->cell;
    emit_raw(g, a[keep], R, D_CELL, CELL, keep ? a[keep - 1] : NONE, h, a + keep, -1, i, keep);
    Child *ch = &g->out[g->n - 1];
    if (!ch->win)
        close_cells(g->w, ch->key, &ch->h, &ch->hash);
}

/* emit() before rule 9's closure; returns whether the safe-autoplay
 * closure sent cards home beyond the move itself. */
static inline __attribute__((always_inline)) int emit_raw(Gen *g, int card, int count, int dest,
                                                          int below, int uncovered, int h,
                                                          const uint8_t *run, int j, int i,
                                                          int keep)
{
    Child *ch = &g->out[g->n++];
    const Pos *p = g->p;
    int need = g->need; /* the need term in ``h`` */
    if (g->w->need && below != HOME) {
        /* the cards above each foundation's next card: fewer in the source
         * column below what is taken, more in the destination column */
        int d = 0;
        for (int s = 0; s < 4; s++) {
            int nc = p->needcol[s];
            if (nc < 0)
                continue;
            if (nc == i && p->needpos[s] < keep)
                d -= count;
            if (nc == j)
                d += count;
        }
        h += g->w->need * d;
        need += d;
    }
    memcpy(ch->key, g->pk, NCARDS);
    ch->key[card] = (uint8_t)below;
    ch->hash = g->hash ^ zobrist[card][g->pk[card]] ^ zobrist[card][below];
    for (int t = 1; below == CELL && t < count; t++) { /* rule 9: a run into cells */
        ch->hash ^= zobrist[run[t]][run[t - 1]] ^ zobrist[run[t]][CELL];
        ch->key[run[t]] = CELL;
    }
    ch->card = (uint8_t)card;
    ch->count = (uint8_t)count;
    ch->dest = (uint8_t)dest;
    ch->win = 0;
    ch->h = h;
    int fnd[4];
    memcpy(fnd, g->p->fnd, sizeof fnd);
    if (below == HOME)
        fnd[card & 3]++;
    else if (uncovered == NONE || !ready(fnd, uncovered) || !is_safe(g->r, fnd, uncovered))
        return 0;
    int before = fnd[0] + fnd[1] + fnd[2] + fnd[3];
    uint8_t contrib[NCARDS];
    memcpy(contrib, g->p->contrib, NCARDS);
    if (below < NCARDS) {
        for (int t = 0; t < count; t++)
            contrib[run[t]] = g->p->low[j][run[t] & 3] < run[t] ? (uint8_t)g->w->blocked : 0;
    } else if (below == BOTTOM) {
        for (int t = 0; t < count; t++)
            contrib[run[t]] = 0;
    }
    int after = close_h(g->r, g->w, ch->key, fnd, contrib, &ch->h, &ch->hash);
    if (after == NCARDS) {
        ch->win = 1;
        ch->h = 0;
    } else if (g->w->need) {
        ch->h += g->w->need * (key_need(ch->key, fnd) - need); /* the next cards changed */
    }
    return after > before;
}

/* The blocked weight the cards a[from..from+n) add when laid on column j. */
static inline int blocked_on(const Weights *w, const Pos *p, int j, const uint8_t *a, int n)
{
    int add = 0;
    for (int t = 0; t < n; t++)
        if (p->low[j][a[t] & 3] < a[t])
            add += w->blocked;
    return add;
}

/* Rule 7's fixed point over ``n`` columns given bottom card first, ``top``
 * the index of each one's exposed card (changed), ``home`` the cards home.
 * A card goes home in the fixed point exactly when it and the lower cards
 * of its suit can be exposed, so the position lives when every column can
 * be uncovered to its bottom card. The card a column is uncovered to (the
 * lowest exposed) leaves when its suit's cards up to it are exposed or
 * home, or when a card one rank higher is exposed: any exposed card is not
 * beneath it, since the cards beneath it are all still covered. */
static int dead_columns(const uint8_t *const *col, int *top, int n, uint64_t home)
{
    uint64_t exposed = 0;
    int open = 0; /* columns not yet uncovered to their bottom card */
    for (int i = 0; i < n; i++) {
        exposed |= 1ULL << col[i][top[i]];
        open += top[i] > 0;
    }
    int progress = 1;
    while (progress && open) {
        progress = 0;
        for (int i = 0; i < n; i++) {
            int t = top[i];
            while (t > 0) {
                int c = col[i][t];
                uint64_t suit_to_c = (SUIT_BITS << (c & 3)) & ((2ULL << c) - 1);
                uint64_t next_rank = c < 48 ? 0xFULL << ((c >> 2) + 1) * 4 : 0;
                if ((suit_to_c & ~(exposed | home)) && !(next_rank & exposed))
                    break;
                exposed |= 1ULL << col[i][--t];
            }
            if (t != top[i]) {
                progress = 1;
                top[i] = t;
                if (!t && !--open)
                    return 0;
            }
        }
    }
    return open > 0;
}

/* Pruning rule 7 of bakers.solver (Baker's Dozen): whether some card of key
 * ``k`` can never go home, even in a relaxation where every card that could
 * ever be exposed stays available to build on for as long as needed. The
 * least fixed point of: a card can be *exposed* once every card above it in
 * its column can *leave*; it can *go home* once exposed, with its suit's next
 * lower card home (or gone home); it can *leave* by going home, or onto a
 * card one rank higher that can be exposed and does not lie beneath it in its
 * column. Each event of a real line meets these conditions when it first
 * happens, so a position with a card outside the fixed point's home set has
 * no winning line. Only for columns with no cells or run moves (Baker's
 * Dozen): a card leaves its place one at a time, onto a card or home. */
BK_FN int bk_dead(const uint8_t *k)
{
    uint8_t on[NCARDS];
    memset(on, NONE, sizeof on);
    uint64_t bottoms, cells, home;
    masks(k, &bottoms, &cells, &home);
    for (int c = 0; c < NCARDS; c++)
        if (k[c] < NCARDS)
            on[k[c]] = (uint8_t)c;
    uint8_t cols[MAXCOLS][NCARDS];
    const uint8_t *colp[MAXCOLS];
    int top[MAXCOLS], n = 0;
    for (uint64_t m = bottoms; m && n < MAXCOLS; m &= m - 1, n++) {
        int len = 0;
        for (int c = __builtin_ctzll(m); c != NONE && len < NCARDS; c = on[c])
            cols[n][len++] = (uint8_t)c;
        top[n] = len - 1;
        colp[n] = cols[n];
    }
    return dead_columns(colp, top, n, home);
}

/* bk_dead of a position already laid out. */
static int pos_dead(const Pos *p)
{
    const uint8_t *colp[MAXCOLS];
    int top[MAXCOLS];
    uint64_t home = 0;
    for (int s = 0; s < 4; s++)
        home |= (SUIT_BITS << s) & ((1ULL << (4 * p->fnd[s])) - 1);
    for (int i = 0; i < p->ncols; i++) {
        colp[i] = p->cards[i];
        top[i] = p->len[i] - 1;
    }
    return dead_columns(colp, top, p->ncols, home);
}

/* bk_dead of child ``ch`` of the position laid out in ``p``, from ``p``'s
 * columns rather than the child's key: in Baker's Dozen the child's columns
 * are the parent's with the moved card (an exposed card: no cells, one card
 * at a time) taken off its column and laid on its destination's, less the
 * cards the closure then sent home, which it takes only from the tops of
 * columns (a card goes home uncovered). So the columns' cards that are not
 * home, read from the top down until the first one that is not home, are the
 * child's columns, and the fixed point of the same columns is bk_dead's. */
static int child_dead(const Pos *p, const Child *ch)
{
    int x = ch->card;
    int src = p->topcol[x];
    int dst = ch->dest < NCARDS ? p->topcol[ch->dest] : -1;
    if (src < 0 || (ch->dest < NCARDS && dst < 0))
        return bk_dead(ch->key);
    uint64_t bottoms, cells, home;
    masks(ch->key, &bottoms, &cells, &home);
    uint8_t grown[MAXLEN + 1];
    const uint8_t *colp[MAXCOLS];
    int top[MAXCOLS], n = 0;
    for (int i = 0; i < p->ncols; i++) {
        const uint8_t *c = p->cards[i];
        int t = p->len[i] - 1;
        if (i == src) {
            t--;
        } else if (i == dst) {
            memcpy(grown, c, p->len[i]);
            grown[++t] = (uint8_t)x;
            c = grown;
        }
        while (t >= 0 && (home >> c[t] & 1))
            t--;
        if (t >= 0) {
            colp[n] = c;
            top[n++] = t;
        }
    }
    return dead_columns(colp, top, n, home);
}

/* A child of a live position (rule 7) that is live too, by a test that
 * needs no fixed point: the moved card X lies on Y and either its suit's
 * lower cards are home, or another card d of the next rank is exposed in
 * the child. Then in the child's fixed point X leaves at once (home, or onto
 * d), uncovering Y; from there every card is as free as in the parent (the
 * column X left only lost its top card), so every column uncovers as in
 * the parent's. The cards the closure sends home are not needed there:
 * every card that could be built on one is home, or (rule 6's looser form)
 * has its suit's lower cards home and so goes home as soon as it is
 * exposed. Otherwise (a move home, say) the full test decides. */
static int alive_as_parent(const Rules *r, const Pos *p, const Child *ch)
{
    int x = ch->card;
    if (ch->dest >= NCARDS)
        return 0;
    if (p->fnd[x & 3] == (x >> 2))
        return 1;
    for (int q = 0; q < r->nparents[x]; q++) {
        int d = r->parents[x][q];
        if (d != ch->dest && ch->key[d] < HOME && ch->key[d] != CELL && !lying_on(ch->key, d))
            return 1;
    }
    return 0;
}

/* generate() made for rules with pruning rule 9 (``cc``) or without. */
static inline __attribute__((always_inline)) int
generate_as(const Rules *r, const Weights *w, const uint8_t *pk, uint32_t phash, const Pos *p,
            int hp, Child *out, const int cc)
{
    Gen g = {r, w, pk, p, hp, phash, out, 0, w->need ? pos_need(p) : 0, 0};
    if (cc == CLOSE_NATURAL)
        for (int ci = 0; ci < p->ncells; ci++)
            g.open_cells |= p->cells[ci] < 48 && p->topcol[p->cells[ci] + 4] >= 0;
    int nfree = r->ncells - p->ncells;
    int ne = p->nempty;
    int cap_occ = 1, cap_emp = 1;
    if (r->supermoves) {
        cap_occ = (nfree + 1) << ne;
        cap_emp = ne ? (nfree + 1) << (ne - 1) : 0;
    }
    int fill = ne && r->can_fill;
    for (int i = 0; i < p->ncols; i++) {
        int L = p->len[i];
        const uint8_t *a = p->cards[i];
        int top = a[L - 1];
        int run = p->run[i];
        int dtop = take_off(w, p, i, L - 1, p->contrib[top]); /* the exposed card off */
        /* the exposed card, or a built run, onto an exposed card it builds on
         * (a lone card only where an emptied column can be refilled: rule 5) */
        int kmax = run < cap_occ ? run : cap_occ;
        int removed = 0;
        for (int k = 1; k <= kmax; k++) {
            int x = a[L - k];
            int keep = L - k;
            removed += p->contrib[x];
            if (keep == 0 && k == 1 && !r->can_fill)
                continue;
            int u = keep ? a[keep - 1] : NONE;
            int dsrc = take_off(w, p, i, keep, removed);
            for (int q = 0; q < r->nparents[x]; q++) {
                int par = r->parents[x][q];
                int j = p->topcol[par];
                if (j < 0 || j == i)
                    continue;
                int h = hp + dsrc + blocked_on(w, p, j, a + keep, k);
                emit(&g, cc, x, k, par, par, u, h, a + keep, j, i, keep);
            }
        }
        /* the exposed card into a free cell (one cell stands for all); under
         * rule 9 not where its natural parent is exposed, beneath it (the
         * closure would put it back) or elsewhere (the closure would make it
         * the move onto that card), and a built run goes into cells whole */
        if (cc == CLOSE_NATURAL && run >= 2) {
            if (nfree >= run)
                emit_run_to_cells(&g, i, run);
        } else if (nfree && !(cc == CLOSE_NATURAL && top < 48 && p->topcol[top + 4] >= 0)) {
            int u = L > 1 ? a[L - 2] : NONE;
            emit(&g, cc, top, 1, D_CELL, CELL, u, hp + w->cell + dtop, a + L - 1, -1, i, L - 1);
        }
        /* cards into an empty column (one stands for all; never a whole
         * column, which gives the same position back: rule 3) */
        if (fill) {
            int me = L - 1;
            if (r->supermoves && cap_emp < me)
                me = cap_emp;
            if (run < me)
                me = run;
            int taken = 0;
            for (int k = 1; k <= me; k++) {
                int keep = L - k;
                taken += p->contrib[a[keep]];
                int h = hp + take_off(w, p, i, keep, taken) + w->empty;
                emit(&g, cc, a[keep], k, D_EMPTY, BOTTOM, a[keep - 1], h, a + keep, -1, i, keep);
            }
        }
        /* the exposed card home: an unsafe move (safe ones are made already) */
        if (!r->always_safe && ready(p->fnd, top))
            emit(&g, cc, top, 1, D_FOUNDATION, HOME, L > 1 ? a[L - 2] : NONE,
                 hp + dtop - w->home, a + L - 1, -1, i, L - 1);
    }
    for (int ci = 0; ci < p->ncells; ci++) {
        int c = p->cells[ci];
        uint8_t one = (uint8_t)c;
        for (int q = 0; q < r->nparents[c]; q++) {
            int par = r->parents[c][q];
            int j = p->topcol[par];
            if (j < 0)
                continue;
            emit(&g, cc, c, 1, par, par, NONE, hp - w->cell + blocked_on(w, p, j, &one, 1), &one, j,
                 -1, 0);
        }
        if (fill)
            emit(&g, cc, c, 1, D_EMPTY, BOTTOM, NONE, hp - w->cell + w->empty, &one, -1, -1, 0);
        if (!r->always_safe && ready(p->fnd, c))
            emit(&g, cc, c, 1, D_FOUNDATION, HOME, NONE, hp - w->cell - w->home, &one, -1, -1, 0);
    }
    if (r->dead) { /* rule 7: dead children are dropped, the others keep their order */
        int alive = p->known_live || !pos_dead(p), n = 0;
        for (int i = 0; i < g.n; i++)
            if (out[i].win || (alive && alive_as_parent(r, p, &out[i])) || !child_dead(p, &out[i]))
                out[n++] = out[i];
        g.n = n;
    }
    return g.n;
}

/* Every child of the position (up to symmetry, minus the pruned moves). */
BK_FN int generate(const Rules *r, const Weights *w, const uint8_t *pk, uint32_t phash,
                    const Pos *p, int hp, Child *out)
{
    switch (r->cellclose) {
    case CLOSE_NATURAL:
        return generate_as(r, w, pk, phash, p, hp, out, CLOSE_NATURAL);
    case CLOSE_FULL:
        return generate_as(r, w, pk, phash, p, hp, out, CLOSE_FULL);
    default:
        return generate_as(r, w, pk, phash, p, hp, out, CLOSE_NONE);
    }
}
