/* The position and its key: foundations, the safe-autoplay closure, and the
 * position decoded for the move generator and the heuristic. */

#include "core.h"

BK_FN void foundations(const uint8_t *k, int *fnd)
{
    fnd[0] = fnd[1] = fnd[2] = fnd[3] = 0;
    for (int c = 0; c < NCARDS; c++)
        if (k[c] == HOME)
            fnd[c & 3]++;
}

/* Send safe cards home until none is left (pruning rule 1). Returns the cards
 * home afterwards. */
BK_FN int close_key(const Rules *r, uint8_t *k, int *fnd)
{
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int s = 0; s < 4; s++) {
            while (fnd[s] < 13) {
                int c = fnd[s] * 4 + s;
                uint8_t v = k[c];
                if (v == HOME || lying_on(k, c))
                    break;
                if (!is_safe(r, fnd, c))
                    break;
                k[c] = HOME;
                fnd[s]++;
                changed = 1;
            }
        }
    }
    return fnd[0] + fnd[1] + fnd[2] + fnd[3];
}

/* One column's walk from its bottom card up (decode_as): the cards, the
 * lowest card of each suit, the built run on top, the heuristic's terms. Two
 * columns are walked side by side: each card's place is a load that waits
 * for the one before it, so two independent walks take about the time of
 * one. */
typedef struct {
    int i, n, prev, run, cost, seg, lb;
    uint8_t *restrict cards;
    uint8_t *restrict low; /* kept in place: a copy at the end would read as
                              one word the bytes just stored */
} Walk;

#define WALK_INLINE static inline __attribute__((always_inline))

WALK_INLINE int walk_start(Pos *restrict p, Walk *x, int i, int c, const uint8_t *above,
                           const uint8_t *next, const int want_need)
{
    x->i = i;
    x->n = 1;
    x->cards = p->cards[i];
    x->low = p->low[i];
    memset(x->low, 99, 4);
    /* the bottom card is never blocked nor unbuilt */
    x->cards[0] = (uint8_t)c;
    x->low[c & 3] = (uint8_t)c;
    p->contrib[c] = 0;
    if (want_need && next[c & 3] == c) {
        p->needcol[c & 3] = (int8_t)i;
        p->needpos[c & 3] = 0;
    }
    x->prev = c;
    x->run = 1;
    x->cost = 0;
    x->seg = 0; /* the built segment being walked holds a blocked card */
    x->lb = 0;
    return above[c];
}

/* Card c of the walk; the card above it. No card is met twice, in this
 * column or another: a card's one value in the key names the card beneath
 * it, so the walks upwards from the bottom cards never join nor cycle (and a
 * column holds at most NCARDS < MAXLEN cards). */
WALK_INLINE int walk_step(Pos *restrict p, Walk *x, int c, const uint8_t *above,
                          const uint8_t *next, const uint8_t (*restrict builds)[NCARDS],
                          int wb, int wu, int sup, const int want_lb, const int want_need)
{
    int s = c & 3;
    if (want_need && next[s] == c) {
        p->needcol[s] = (int8_t)x->i;
        p->needpos[s] = (uint8_t)x->n;
    }
    x->cards[x->n++] = (uint8_t)c;
    int ls = x->low[s];
    int blocked = ls < c;
    x->low[s] = (uint8_t)(blocked ? ls : c);
    int built = builds[c][x->prev];
    if (want_lb) {
        if (!(sup && built)) {
            x->lb += x->seg;
            x->seg = 0;
        }
        x->seg |= blocked;
    }
    x->run = x->run * built + 1; /* arithmetic, not a branch on the cards */
    int add = blocked * wb + (1 - built) * wu;
    x->cost += add;
    p->contrib[c] = (uint8_t)add;
    x->prev = c;
    return above[c];
}

WALK_INLINE int walk_end(Pos *restrict p, const Walk *x, int sup)
{
    p->tot[x->i] = x->cost;
    p->len[x->i] = (uint8_t)x->n;
    p->run[x->i] = (uint8_t)(sup ? x->run : 1);
    p->topcol[x->cards[x->n - 1]] = (int8_t)x->i;
    return x->lb + x->seg;
}

/* decode() made for each use: with the lower bound of the short search or
 * not, with the need term or not (each walk costs less without them). */
static inline __attribute__((always_inline)) int
decode_as(const Rules *restrict r, const Weights *restrict w, const uint8_t *restrict k,
          Pos *restrict p, const int want_lb, const int want_need)
{
    /* above[] (entries 52..54 are scratch), then the bottom cards, the cells
     * and the foundations from bit masks of the key */
    uint8_t above[NCARDS + 3];
    uint8_t bottoms[NCARDS + 1], cells[NCARDS + 1];
    int fnd[4];
    int nb = 0, nc = 0;
    memset(above, NONE, sizeof above);
    memset(p->topcol, -1, sizeof p->topcol);
    for (int c = 0; c < NCARDS; c++)
        above[k[c]] = (uint8_t)c;
    uint64_t m_bottom, m_cell, m_home;
    masks(k, &m_bottom, &m_cell, &m_home);
    for (int s = 0; s < 4; s++) {
        /* a suit's cards home run from its ace: count them up to the first gap */
        uint64_t gaps = ~(m_home >> s) & SUIT_BITS;
        fnd[s] = gaps ? __builtin_ctzll(gaps) / 4 : 13;
    }
    while (m_bottom) {
        bottoms[nb++] = (uint8_t)__builtin_ctzll(m_bottom);
        m_bottom &= m_bottom - 1;
    }
    while (m_cell) {
        cells[nc++] = (uint8_t)__builtin_ctzll(m_cell);
        m_cell &= m_cell - 1;
    }
    if (nb > r->ncols || nc > r->ncells)
        return -1;
    memcpy(p->cells, cells, (size_t)nc);
    p->ncells = nc;
    memcpy(p->fnd, fnd, sizeof fnd);
    p->home = fnd[0] + fnd[1] + fnd[2] + fnd[3];
    p->nempty = r->ncols - nb;
    const int wb = w->blocked, wu = w->unbuilt;
    /* each suit's next card, found where the walk meets it */
    uint8_t next[4];
    for (int s = 0; s < 4; s++) {
        next[s] = fnd[s] < 13 ? (uint8_t)(fnd[s] * 4 + s) : NONE;
        p->needcol[s] = -1;
        p->needpos[s] = 0;
    }
    int lb = 0;
    const uint8_t(*restrict builds)[NCARDS] = r->builds;
    const int sup = r->supermoves;
#define STEP(x, c) walk_step(p, &(x), (c), above, next, builds, wb, wu, sup, want_lb, want_need)
    int i = 0;
    for (; i + 1 < nb; i += 2) {
        Walk a, b;
        int ca = walk_start(p, &a, i, bottoms[i], above, next, want_need);
        int cb = walk_start(p, &b, i + 1, bottoms[i + 1], above, next, want_need);
        while (ca != NONE && cb != NONE) {
            ca = STEP(a, ca);
            cb = STEP(b, cb);
        }
        while (ca != NONE)
            ca = STEP(a, ca);
        while (cb != NONE)
            cb = STEP(b, cb);
        lb += walk_end(p, &a, sup) + walk_end(p, &b, sup);
    }
    if (i < nb) {
        Walk a;
        int ca = walk_start(p, &a, i, bottoms[i], above, next, want_need);
        while (ca != NONE)
            ca = STEP(a, ca);
        lb += walk_end(p, &a, sup);
    }
#undef STEP
    p->ncols = nb;
    p->known_live = 0;
    p->lb = want_lb ? lb : 0;
    return 0;
}

/* The position laid out, without the short search's lower bound. */
BK_FN int decode(const Rules *restrict r, const Weights *restrict w, const uint8_t *restrict k,
                  Pos *restrict p)
{
    return w->need ? decode_as(r, w, k, p, 0, 1) : decode_as(r, w, k, p, 0, 0);
}

/* The position laid out with ``lb``, the short search's lower bound. */
BK_FN int decode_lb(const Rules *restrict r, const Weights *restrict w,
                     const uint8_t *restrict k, Pos *restrict p)
{
    return w->need ? decode_as(r, w, k, p, 1, 1) : decode_as(r, w, k, p, 1, 0);
}

/* The cards lying above each foundation's next card (decoded with a need
 * weight; none for a card in a cell). */
BK_FN int pos_need(const Pos *p)
{
    int n = 0;
    for (int s = 0; s < 4; s++)
        if (p->needcol[s] >= 0)
            n += p->len[p->needcol[s]] - p->needpos[s] - 1;
    return n;
}

BK_FN int pos_h(const Weights *w, const Pos *p)
{
    int h = -w->empty * p->nempty + w->cell * p->ncells - w->home * p->home;
    for (int i = 0; i < p->ncols; i++)
        h += p->tot[i];
    if (w->need)
        h += w->need * pos_need(p);
    return h;
}

BK_FN int key_h(const Rules *r, const Weights *w, const uint8_t *k)
{
    Pos p;
    if (decode(r, w, k, &p) < 0)
        return 0;
    return pos_h(w, &p);
}

/* The key of a position from its columns (bottom card first) and the cards in
 * its cells, every other card home; with ``board_order`` also its columns in
 * the board's order (``colmap``, ``lens_out``). Checks that every card is a
 * card and appears once, and that the foundations are contiguous from the ace. */
static int parse_position(const Rules *r, int ncols, const uint8_t *const *cols, const int *lens,
                          const uint8_t *cells, int ncells, uint8_t *key, int board_order,
                          uint8_t colmap[MAXCOLS][MAXLEN], int *lens_out)
{
    memset(key, HOME, NCARDS);
    uint8_t seen[NCARDS] = {0};
    if (ncols != r->ncols)
        return -BK_ERR_NCOLS;
    for (int i = 0; i < ncols; i++) {
        int n = lens[i];
        if (n > MAXLEN - 1)
            return -BK_ERR_LONG;
        if (lens_out)
            lens_out[i] = n;
        for (int j = 0; j < n; j++) {
            int c = cols[i][j];
            if (c >= NCARDS || seen[c])
                return -BK_ERR_CARD;
            seen[c] = 1;
            key[c] = j ? cols[i][j - 1] : BOTTOM;
            if (board_order)
                colmap[i][j] = (uint8_t)c;
        }
    }
    if (ncells > r->ncells)
        return -BK_ERR_CELLS;
    for (int j = 0; j < ncells; j++) {
        int c = cells[j];
        if (c >= NCARDS || seen[c])
            return -BK_ERR_CARD;
        seen[c] = 1;
        key[c] = CELL;
    }
    for (int s = 0; s < 4; s++) {
        int home = 1;
        for (int rk = 0; rk < 13; rk++) {
            int c = rk * 4 + s;
            if (key[c] != HOME)
                home = 0;
            else if (!home)
                return -BK_ERR_FOUNDATIONS;
        }
    }
    return 0;
}

int bk_position_key(const Rules *r, int ncols, const uint8_t *const *cols, const int *lens,
                    const uint8_t *cells, int ncells, uint8_t key[NCARDS])
{
    return parse_position(r, ncols, cols, lens, cells, ncells, key, 0, NULL, NULL);
}

int bk_position_placed(const Rules *r, int ncols, const uint8_t *const *cols, const int *lens,
                       const uint8_t *cells, int ncells, Placed *p)
{
    if (ncells != r->ncells)
        return -BK_ERR_CELL_BYTES;
    memset(p->len, 0, sizeof p->len);
    uint8_t packed[MAXCELLS];
    int np = 0;
    for (int i = 0; i < r->ncells; i++) {
        p->cell[i] = cells[i] == NONE ? -1 : cells[i];
        if (p->cell[i] >= 0)
            packed[np++] = cells[i];
    }
    return parse_position(r, ncols, cols, lens, packed, np, p->key, 1, p->cols, p->len);
}
