/* Pruning rule 8 of bakers.solver (Baker's Dozen): the pool relaxation,
 * searched from one position. Each column's cards as they lie in the
 * position keep their order; a card that leaves its column joins a *pool*
 * and is free to lie on any card of the next rank above it (a pool card or
 * the uncovered card of a column), one card on each. The relaxed game's
 * state is each column's depth and each suit's height (the pool follows from
 * them); its moves: a column's uncovered card, or the pool's next card of a
 * suit, goes home; a column's uncovered card joins the pool. A card moves
 * only with nothing on it (the pool's cards one rank lower fit on the other
 * cards of its rank), and after every move the pool must fit (for each rank
 * r, the pool's cards of rank r no more than the pool's and the uncovered
 * cards of rank r + 1; no king in the pool). Every real line is a line of the
 * relaxed game, so when the relaxed game's every line fails the position
 * has no win. A card whose lower rank is all home goes home at once (its
 * only move then): nothing can ever need to lie on it, so a relaxed line
 * with it still out is one with it home, that move left out. Its moves only
 * ever deepen no column and lower no suit, so a depth-first search with the
 * states seen (each one fully searched by the time it is met again) decides
 * it.
 *
 * Coarser games come first, each far smaller: the cards below a rank L are
 * *gone* as soon as they are uncovered (they need no card to lie on and no
 * order home), a card of rank L or more goes home once its suit's cards
 * below L are gone and its lower ones home, the pool holds cards of rank L
 * or more under the same counts. A line of the full relaxed game is a line
 * of the coarser one with each card below L gone when it leaves its column
 * (the counts for ranks L and up are the same; the coarser game asks
 * nothing of the others); and a card below L gone earlier only uncovers the
 * card beneath it sooner, which loosens every count and test, so a coarser
 * game lost at once-gone is lost at will, and the position is lost. */

#include "core.h"

/* The relaxed games played in turn, to the first one lost: the lowest rank
 * each follows, the cards below it gone at will (see above). The short
 * ladder is the portfolio's first relaxation ({-3, n}), which every deal
 * not won at once plays and nearly every one wins: chosen on the tuning
 * range 1,001-12,000. The fine one (bk_relax: the exhaustive search's, and
 * the portfolio's {-6, n}) adds the games from 7 and 5, which prove the
 * losses that take the full game hundreds of thousands of states or
 * millions in far fewer (Baker's Dozen 9515: 585,284 against 4,431,468;
 * the 89 lost deals of 1-32,000 that lose the relaxed game: 2,316,057
 * against 13,864,001). Chosen on the relaxed games alone of the tuning
 * range 1,001-19,000 (each game's states per deal); checked on deals
 * 60,001-100,000, never used to choose: their 121 deals lost in the relaxed
 * game take 19,109,918 relaxed states against 37,580,934 (the largest
 * 6,782,404 against 10,788,176), every deal's in all 8 % more
 * (docs/benchmarks.md). */
static const int RELAX_SHORT[] = {12, 8, 1};
static const int RELAX_LADDER[] = {12, 8, 7, 5, 1};

typedef struct {
    int ncols;
    uint8_t col[MAXCOLS][NCARDS];
    int len[MAXCOLS], d[MAXCOLS], f[4];
    int8_t colof[NCARDS], at[NCARDS]; /* each card's column and place there (-1: none) */
    int p[15], t[15]; /* ranks 1..13: cards in the pool, uncovered cards */
    int lo, gone[4]; /* the lowest rank followed; each suit's cards below it gone */
    uint64_t pool;
    uint64_t *slot; /* states seen, as 1 + their number (0: an empty slot) */
    size_t mask, n;
    Budget *b;
} Relax;

/* A state's number: the depths and heights in mixed radix, at most
 * 5^13 * 14^4 < 2^46 (a product of len + 1 over columns of 52 cards in all
 * is largest with four cards in each). */
static uint64_t relax_number(const Relax *x)
{
    uint64_t v = 0;
    for (int i = 0; i < x->ncols; i++)
        v = v * (uint64_t)(x->len[i] + 1) + (uint64_t)x->d[i];
    for (int s = 0; s < 4; s++)
        v = v * 14 + (uint64_t)x->f[s];
    return v + 1;
}

static inline size_t relax_home_slot(uint64_t v, size_t mask)
{
    return (size_t)((v * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
}

static int relax_grow(Relax *x)
{
    size_t cap = (x->mask + 1) * 2;
    uint64_t *s = budget_alloc(x->b, cap * sizeof(uint64_t));
    if (!s)
        return -1;
    memset(s, 0, cap * sizeof(uint64_t));
    for (size_t i = 0; i <= x->mask; i++) {
        if (!x->slot[i])
            continue;
        size_t j = relax_home_slot(x->slot[i], cap - 1);
        while (s[j])
            j = (j + 1) & (cap - 1);
        s[j] = x->slot[i];
    }
    budget_free(x->b, x->slot, (x->mask + 1) * sizeof(uint64_t));
    x->slot = s;
    x->mask = cap - 1;
    return 0;
}

/* 1 when the state is new (and now held), 0 when seen, -1 without memory. */
static int relax_add(Relax *x)
{
    uint64_t v = relax_number(x);
    size_t i = relax_home_slot(v, x->mask);
    while (x->slot[i]) {
        if (x->slot[i] == v)
            return 0;
        i = (i + 1) & x->mask;
    }
    x->slot[i] = v;
    if (++x->n * 10 > x->mask * 7 && relax_grow(x) < 0)
        return -1;
    return 1;
}

/* The pool fits its bases. */
static int relax_fits(const Relax *x)
{
    if (x->p[13])
        return 0;
    for (int r = 1; r < 13; r++)
        if (x->p[r] > x->p[r + 1] + x->t[r + 1])
            return 0;
    return 1;
}

/* Nothing need lie on a card of rank q as it moves. */
static int relax_free(const Relax *x, int q)
{
    return q == 1 || x->p[q - 1] <= x->p[q] + x->t[q] - 1;
}

static int relax_visit(Relax *x);

/* The pool's card c (of suit s, rank q) home, the game searched on from
 * there, the move taken back: what relax_visit says (0 when the pool would
 * not fit). */
static int relax_pool_home(Relax *x, int s, int q, int c)
{
    x->pool &= ~(1ULL << c);
    x->p[q]--;
    x->f[s]++;
    int v = relax_fits(x) ? relax_visit(x) : 0;
    x->f[s]--;
    x->p[q]++;
    x->pool |= 1ULL << c;
    return v;
}

/* Column i's uncovered card home (``how`` 1), to the pool (0) or gone (2: a
 * card below the lowest rank followed), searched on, taken back. */
static int relax_uncover(Relax *x, int i, int how)
{
    int c = x->col[i][x->d[i] - 1], q = (c >> 2) + 1, s = c & 3, f0 = x->f[s];
    x->t[q]--;
    int under = --x->d[i] ? (x->col[i][x->d[i] - 1] >> 2) + 1 : 0;
    x->t[under]++;
    if (how == 1) {
        x->f[s]++;
    } else if (how == 2) {
        if (++x->gone[s] == x->lo - 1)
            x->f[s] = x->lo - 1;
    } else {
        x->p[q]++;
        x->pool |= 1ULL << c;
    }
    int v = relax_fits(x) ? relax_visit(x) : 0;
    if (how == 2) {
        x->gone[s]--;
    } else if (how == 0) {
        x->p[q]--;
        x->pool &= ~(1ULL << c);
    }
    x->f[s] = f0;
    x->t[under]--;
    x->d[i]++;
    x->t[q]++;
    return v;
}

/* 1: the relaxed game is won from here; 0: lost; -1: a limit. At most 104
 * moves deep: each one sends a card home or out of its column. */
static int relax_visit(Relax *x)
{
    int added = relax_add(x);
    if (added <= 0)
        return added;
    Budget *b = x->b;
    b->states++;
    if (!(b->states & 255) && budget_check(b))
        return -1;
    if (x->f[0] == 13 && x->f[1] == 13 && x->f[2] == 13 && x->f[3] == 13)
        return 1;
    for (int i = 0; i < x->ncols; i++)
        if (x->d[i] && (x->col[i][x->d[i] - 1] >> 2) + 1 < x->lo)
            return relax_uncover(x, i, 2);
    /* a card whose lower rank is all home goes home at once, its one move:
     * no card can ever need to lie on it */
    int low = x->f[0];
    for (int s = 1; s < 4; s++)
        low = x->f[s] < low ? x->f[s] : low;
    for (int s = 0; s < 4; s++) {
        int q = x->f[s] + 1, c = (q - 1) * 4 + s;
        if (q > 13 || low < q - 1)
            continue;
        int i = x->colof[c];
        if (i >= 0 && x->at[c] == x->d[i] - 1)
            return relax_uncover(x, i, 1);
        if (x->pool >> c & 1)
            return relax_pool_home(x, s, q, c);
    }
    /* the pool's next card of a suit home */
    for (int s = 0; s < 4; s++) {
        int q = x->f[s] + 1, c = (q - 1) * 4 + s;
        if (q > 13 || !(x->pool >> c & 1) || !relax_free(x, q))
            continue;
        int v = relax_pool_home(x, s, q, c);
        if (v)
            return v;
    }
    /* an uncovered card home, then an uncovered card to the pool */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < x->ncols; i++) {
            if (!x->d[i])
                continue;
            int c = x->col[i][x->d[i] - 1], q = (c >> 2) + 1;
            if ((pass == 0 && x->f[c & 3] != q - 1) || !relax_free(x, q))
                continue;
            int v = relax_uncover(x, i, pass == 0);
            if (v)
                return v;
        }
    return 0;
}

static int relax_ladder(const Rules *r, Budget *b, const uint8_t *k, const int *ladder, int nl,
                        size_t *peak)
{
    *peak = 0;
    if (!r->dead)
        return -BK_ERR_RULES;
    Relax *x = calloc(1, sizeof *x);
    if (!x)
        return -BK_ERR_NOMEM;
    x->b = b;
    uint64_t bottoms, cells, home;
    masks(k, &bottoms, &cells, &home);
    uint8_t on[NCARDS];
    memset(on, NONE, sizeof on);
    memset(x->colof, -1, sizeof x->colof);
    memset(x->at, -1, sizeof x->at);
    for (int c = 0; c < NCARDS; c++)
        if (k[c] < NCARDS)
            on[k[c]] = (uint8_t)c;
    for (uint64_t m = bottoms; m && x->ncols < MAXCOLS; m &= m - 1, x->ncols++) {
        int i = x->ncols, len = 0;
        for (int c = __builtin_ctzll(m); c != NONE && len < NCARDS; c = on[c]) {
            x->colof[c] = (int8_t)i;
            x->at[c] = (int8_t)len;
            x->col[i][len++] = (uint8_t)c;
        }
        x->len[i] = x->d[i] = len;
        x->t[(x->col[i][len - 1] >> 2) + 1]++;
    }
    foundations(k, x->f);
    int status;
    if (cells) {
        status = ST_ERROR; /* no cells in the games rule 8 is for */
    } else {
        status = ST_WIN;
        for (int l = 0; l < nl && status == ST_WIN; l++) {
            x->lo = ladder[l];
            for (int s = 0; s < 4; s++) /* the cards home below lo are gone */
                x->gone[s] = x->f[s] < x->lo - 1 ? x->f[s] : x->lo - 1;
            budget_free(b, x->slot, x->slot ? (x->mask + 1) * sizeof(uint64_t) : 0);
            x->n = 0;
            x->mask = 1023;
            x->slot = budget_alloc(b, (x->mask + 1) * sizeof(uint64_t));
            if (!x->slot) {
                status = ST_LIMIT;
                break;
            }
            memset(x->slot, 0, (x->mask + 1) * sizeof(uint64_t));
            int v = relax_visit(x);
            status = v > 0 ? ST_WIN : v == 0 ? ST_EXHAUSTED : ST_LIMIT;
            if (b->bytes > *peak)
                *peak = b->bytes;
        }
    }
    if (status == ST_LIMIT && !b->limit)
        b->limit = LIM_MEMORY;
    budget_free(b, x->slot, x->slot ? (x->mask + 1) * sizeof(uint64_t) : 0);
    free(x);
    return status;
}

int bk_relax(const Rules *r, Budget *b, const uint8_t *k, size_t *peak)
{
    return relax_ladder(r, b, k, RELAX_LADDER, (int)(sizeof RELAX_LADDER / sizeof RELAX_LADDER[0]),
                        peak);
}

BK_FN int relax_short(const Rules *r, Budget *b, const uint8_t *k, size_t *peak)
{
    return relax_ladder(r, b, k, RELAX_SHORT, (int)(sizeof RELAX_SHORT / sizeof RELAX_SHORT[0]),
                        peak);
}
