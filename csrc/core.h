/*
 * The library's private header: the types, constants and small inline
 * functions every part of the search shares, and the functions one part
 * calls in another. The public entry points are in include/bakers.h.
 *
 * A position is 52 bytes, one per card: the card lying beneath it in its
 * column (0..51), BOTTOM (it is a column's bottom card), CELL or HOME. That
 * one array is at once the position and its canonical key: it does not change
 * when columns or cells are permuted, and the foundations follow from it
 * (a suit's height is the number of its cards at HOME). A stored position is
 * a 64-byte record: the key, the parent's index, the move that led to it and
 * the moves made; an open-addressing table of 64-bit slots (32 hash bits and
 * the record's index) finds a key's record.
 *
 * The pruning rules and the argument that none loses a win are in the
 * docstring of the Python package bakers.solver; this library implements the
 * same ones.
 *
 * The library compiles as one unit (bakers_all.c defines BK_UNITY: every
 * function below is then static, and the compiler inlines as it would in one
 * file) or file by file (each .c on its own, for the library's own tests).
 */
#ifndef BAKERS_CORE_H
#define BAKERS_CORE_H

#ifdef BK_UNITY
#define BK_FN static
#define BK_EXTERN static
#else
#define BK_FN
#define BK_EXTERN extern
#endif

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* clock_gettime, aligned_alloc under -std=c11 */
#endif
#include "bakers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCARDS 52
#define BOTTOM 52
#define CELL 53
#define HOME 54
#define NONE 255
#define SEEN UINT32_MAX       /* store: the key is there already */
#define FULL (UINT32_MAX - 1) /* store: no memory left */
#define MAXCOLS 13
#define MAXCELLS 8
#define MAXLEN 64

/* move destinations beyond a target card */
#define D_FOUNDATION 52
#define D_CELL 53
#define D_EMPTY 54

enum { BUILD_SAME = BK_BUILD_SAME, BUILD_ALT = BK_BUILD_ALT, BUILD_ANY = BK_BUILD_ANY };
/* Rules.cellclose: no closure of the cells, pruning rule 9's, rule 10's. */
enum { CLOSE_NONE = 0, CLOSE_NATURAL = 1, CLOSE_FULL = 2 };
enum { ST_RUNNING = BK_RUNNING, ST_WIN = BK_WIN, ST_EXHAUSTED = BK_EXHAUSTED, ST_LIMIT = BK_LIMIT,
       ST_STAGE = BK_STAGE, ST_ERROR = BK_ERROR };
enum { LIM_NONE = BK_LIM_NONE, LIM_STATES = BK_LIM_STATES, LIM_TIME = BK_LIM_TIME,
       LIM_MEMORY = BK_LIM_MEMORY, LIM_INTERRUPT = BK_LIM_INTERRUPT, LIM_DISK = BK_LIM_DISK };

/* The public types under the names the search uses. */
typedef bk_weights Weights;
typedef bk_rules Rules;
typedef bk_budget Budget;
typedef bk_rival Rival;
typedef bk_placed Placed;
typedef bk_cmove CMove;
typedef bk_pmove PMove;
typedef bk_pmoves PMoves;



typedef struct {
    uint8_t key[NCARDS];
    uint32_t parent;
    uint32_t hash; /* the key's Zobrist hash */
    uint8_t card, count, dest, pad;
} Rec;


static inline double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define BLOCK_BITS 14
#define BLOCK_SIZE (1u << BLOCK_BITS)

typedef struct {
    Rec **blocks;
    uint32_t nblocks, cap_blocks, n;
    uint64_t *slots;
    uint64_t mask; /* capacity - 1 */
    Budget *budget;
} Store;

/* Zobrist hashing: a key's hash is the XOR of one random word per (card,
 * value), so a child's hash follows from its parent's in a few XORs. */
BK_EXTERN uint32_t zobrist[NCARDS][HOME + 1];

static inline uint32_t hash_key(const uint8_t *k)
{
    uint32_t h = 0;
    for (int c = 0; c < NCARDS; c++)
        h ^= zobrist[c][k[c]];
    return h;
}

static inline Rec *rec_at(Store *s, uint32_t i)
{
    return &s->blocks[i >> BLOCK_BITS][i & (BLOCK_SIZE - 1)];
}

/* An empty table of 2^bits slots for a store or a set (zeroed first). */
#define TABLE_INIT(s, b, bits)                                                                     \
    (memset((s), 0, sizeof *(s)), (s)->budget = (b), (s)->mask = (1u << (bits)) - 1,               \
     (s)->slots = slots_alloc((b), (s)->mask + 1), (s)->slots ? 0 : -1)


static inline int ready(const int *fnd, int c) { return fnd[c & 3] == (c >> 2); }

/* Sending ready card ``c`` home loses nothing (pruning rule 1): no card that
 * could be built on it is still in play, or a looser rule holds (pruning rule
 * 6 of bakers.solver): where building alternates colours, Horne's (the other
 * colour's cards two ranks lower and the same colour's other card three ranks
 * lower are home); where any suit builds, in the exhaustive search only
 * (exhaustive_rules), all four cards two ranks lower are home (the same
 * test: every child's suit has that card home, which covers the second
 * condition). */
static inline int is_safe(const Rules *r, const int *fnd, int c)
{
    if (r->always_safe)
        return 1;
    int usual = 1, horne = r->horne;
    int rank = c >> 2; /* 0 for an ace; its children have rank - 1 */
    for (int i = 0; i < r->nchildren[c]; i++) {
        int d = r->children[c][i];
        usual &= fnd[d & 3] > (d >> 2);
        horne &= fnd[d & 3] >= rank - 1;
    }
    /* suits 0 and 3 are black, 1 and 2 red: 3 - s is the same colour's other suit */
    return usual || (horne && fnd[3 - (c & 3)] >= rank - 2);
}

/* The cards lying on ``v`` in key ``k``, as a bit mask (at most one in a
 * position: a card lies on one place). */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline uint64_t lying_on(const uint8_t *k, int v)
{
    const __m128i x = _mm_set1_epi8((char)v);
    /* four loads inside the 52 bytes: 0-15, 16-31, 32-47 and 36-51 */
    uint64_t m0 = (uint32_t)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)k), x));
    uint64_t m1 = (uint32_t)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(k + 16)), x));
    uint64_t m2 = (uint32_t)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(k + 32)), x));
    uint64_t m3 = (uint32_t)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(k + 36)), x));
    return m0 | m1 << 16 | m2 << 32 | (m3 >> 12) << 48;
}
#else
static inline uint64_t lying_on(const uint8_t *k, int v)
{
    uint64_t m = 0;
    for (int c = 0; c < NCARDS; c++)
        m |= (uint64_t)(k[c] == v) << c;
    return m;
}
#endif

/* A position laid out for move generation: columns in canonical order
 * (empty ones first, then by bottom card). */
typedef struct {
    int ncols; /* occupied */
    int nempty;
    uint8_t len[MAXCOLS];
    uint8_t run[MAXCOLS]; /* cards of the built run on top (1 without run moves) */
    uint8_t cards[MAXCOLS][MAXLEN];
    int tot[MAXCOLS];              /* the column's heuristic: its cards' contrib */
    uint8_t low[MAXCOLS][4];       /* lowest card of each suit in the column */
    uint8_t contrib[NCARDS];       /* what each column card adds to its column's cost */
    int lb;                        /* a lower bound on the player moves still needed */
    int8_t needcol[4];             /* the column of each suit's next card (-1: none) */
    uint8_t needpos[4];            /* and its place in that column */
    int ncells;
    uint8_t cells[MAXCELLS];
    int fnd[4];
    int home;
    int8_t topcol[NCARDS]; /* exposed card -> its column, or -1 */
    int known_live;        /* rule 7: set by a search that knows the position live */
} Pos;

/* Bits of the cards that are column bottoms, in cells, and home. */
#define SUIT_BITS 0x1111111111111ULL /* cards 0, 4, 8, ..., 48: one suit */
#if defined(__SSE2__)
static inline void masks(const uint8_t *k, uint64_t *bottom, uint64_t *cell, uint64_t *home)
{
    uint8_t buf[64];
    memcpy(buf, k, NCARDS);
    memset(buf + NCARDS, 0, 64 - NCARDS);
    uint64_t mb = 0, mc = 0, mh = 0;
    const __m128i vb = _mm_set1_epi8((char)BOTTOM), vc = _mm_set1_epi8((char)CELL),
                  vh = _mm_set1_epi8((char)HOME);
    for (int i = 0; i < 4; i++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(buf + 16 * i));
        mb |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vb)) << (16 * i);
        mc |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vc)) << (16 * i);
        mh |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vh)) << (16 * i);
    }
    *bottom = mb;
    *cell = mc;
    *home = mh;
}
#else
static inline void masks(const uint8_t *k, uint64_t *bottom, uint64_t *cell, uint64_t *home)
{
    uint64_t mb = 0, mc = 0, mh = 0;
    for (int c = 0; c < NCARDS; c++) {
        mb |= (uint64_t)(k[c] == BOTTOM) << c;
        mc |= (uint64_t)(k[c] == CELL) << c;
        mh |= (uint64_t)(k[c] == HOME) << c;
    }
    *bottom = mb;
    *cell = mc;
    *home = mh;
}
#endif

/* What taking cards off column ``i`` changes in the heuristic, ``keep``
 * cards staying, ``removed`` the contrib of those taken (an emptied column
 * counts as empty). */
static inline int take_off(const Weights *w, const Pos *p, int i, int keep, int removed)
{
    return keep ? -removed : -w->empty - p->tot[i];
}

typedef struct {
    uint8_t key[NCARDS];
    uint32_t hash;
    int h;
    int win;
    uint8_t card, count, dest;
} Child;

typedef struct {
    const Rules *r;
    const Weights *w;
    const uint8_t *pk;
    const Pos *p;
    int hp;
    uint32_t hash;
    Child *out;
    int n;
    int need; /* the parent's cards above each foundation's next card */
    int open_cells; /* rule 9: a card in a cell of the parent has its parent exposed */
} Gen;

/* A new record's link to its parent and the move that made it. */
static inline void rec_link(Rec *cr, uint32_t parent, const Child *ch)
{
    cr->parent = parent;
    cr->card = ch->card;
    cr->count = ch->count;
    cr->dest = ch->dest;
}

/* Whether a record is a child that generate kept, not a search's root (its
 * parent UINT32_MAX): under pruning rule 7 such a position is live, so its
 * expansion need not test it again (Pos.known_live). */
static inline int rec_is_child(const Rec *r)
{
    return r->parent != UINT32_MAX;
}

/* Upper bound of children of one position. */
#define MAXCHILD 1024

typedef struct {
    uint64_t *data; /* record index | moves made << 32 */
    uint32_t n, cap;
} Vec;

/* An entry of the best-first search's open list: a record and the moves
 * made to it, linked to the entry beneath it in its bucket (1-based; 0 ends
 * the bucket). */
typedef struct {
    uint32_t idx, g, next;
} Entry;

typedef struct {
    const Rules *r;
    Weights w;
    Store store;
    uint32_t *buckets; /* each bucket's top entry (1-based; 0: empty) */
    size_t nbuckets;
    Entry *ents; /* every entry pushed, in one array (a bucket is a stack) */
    uint32_t nents, cap_ents;
    size_t cur;
    int offset, scale;
    uint32_t win; /* index of the winning record */
    int started;
    size_t hi; /* one past the highest bucket ever used: none beyond holds anything */
} BestFirst;


typedef struct {
    int h;
    uint32_t tie; /* the key's hash: ties fall in a spread, not by parent */
    uint32_t idx;
} Scored;

static inline int scored_less(const Scored *a, const Scored *b)
{
    if (a->h != b->h)
        return a->h < b->h;
    if (a->tie != b->tie)
        return a->tie < b->tie;
    return a->idx < b->idx;
}

/* What a move costs: COST_EVERY, one each (the plain beam's layers);
 * COST_PLAYER, nothing for a move to a foundation. */
enum { COST_EVERY = 0, COST_PLAYER = 1 };

static inline int move_cost(int mode, const Child *ch)
{
    return mode == COST_PLAYER && ch->dest == D_FOUNDATION ? 0 : 1;
}

/* The probes (portfolio stages, -5, each one move deeper than the last)
 * start from positions at most this many moves from the root. */
#define PROBE_MAX_DEPTH 6

#define MAX_G 250 /* a record keeps its player moves in one byte */


/* Where a move of a line goes, as bk_cmove says it: a card, or -1
 * (foundation), -2 (cell), -3 (empty column). */
static inline int dest_code(int dest)
{
    return dest < NCARDS ? dest : dest == D_FOUNDATION ? -1 : dest == D_CELL ? -2 : -3;
}


/* A move of the exhaustive search's winning line. */
typedef struct {
    uint8_t card, count, dest;
} Step;



typedef struct {
    const Rules *r;
    int ncols, ncells;
    uint8_t cols[MAXCOLS][MAXLEN];
    int len[MAXCOLS];
    int cells[MAXCELLS];
    int fnd[4];
    PMoves moves, singles;
    int err; /* why the last call failed: a BK_ERR_ code */
} Sim;

#define P_CELL 100
#define P_FOUNDATION 200

/* --- the functions one part calls in another ---------------------------- */

/* beam.c */
BK_FN int layered_beam(const Rules *r, const Weights *w, Budget *b, const uint8_t *root,
                        int width, int *ub, int mode, Store *s, uint32_t *win, Child *kids);
BK_FN int beam(const Rules *r, const Weights *w, Budget *b, const uint8_t *root, int width,
                Store *s, uint32_t *win, Child *kids);

/* relax.c: pruning rule 8 with the short ladder (bk_relax plays the fine one) */
BK_FN int relax_short(const Rules *r, Budget *b, const uint8_t *k, size_t *peak);

/* bestfirst.c */
BK_FN int vec_push(Budget *b, Vec *v, uint64_t x);
BK_FN int bf_init(BestFirst *bf, const Rules *r, const Weights *w, Budget *b, const uint8_t *root,
                   int hroot);
BK_FN void bf_free(BestFirst *bf, Budget *b);
BK_FN int bf_init_at(BestFirst *bf, const Rules *r, const Weights *w, Budget *b, Store *tree,
                      uint32_t at);
BK_FN int bf_run(BestFirst *bf, Budget *b, long long stop_states, Child *kids);
BK_FN int bf_duel(BestFirst *a, BestFirst *g, const Rival *rv, Budget *b, long long stop,
                   Child *kids, BestFirst **which);

/* budget.c */
BK_FN int budget_fits(Budget *b, size_t held);
BK_FN void *budget_alloc(Budget *b, size_t n);
BK_FN void *budget_realloc(Budget *b, void *old, size_t oldn, size_t n);
BK_FN void budget_free(Budget *b, void *p, size_t n);
BK_FN int budget_check(Budget *b);

/* exhaust.c: the compact delta form of a position (see there), shared with
 * the disk-backed search (disk.c) */
#define PACK_MAX 48
typedef struct {
    uint8_t root[64];                /* the root's key, zero-padded */
    uint8_t code[NCARDS][HOME + 1]; /* a moved card's place as a code (NONE: no code) */
    uint8_t place[NCARDS][8];       /* and back: the place of each code */
    uint8_t bits[NCARDS];           /* the code's width */
} Delta;
BK_FN void delta_init(Delta *d, const Rules *r, const uint8_t *root);
BK_FN int delta_pack(const Delta *d, const uint8_t *k, uint8_t *out);
BK_FN void delta_unpack(const Delta *d, const uint8_t *form, int n, uint8_t *k);
/* disk.c: records of ``rec`` bytes (24 or 32; 25 or 33 with a layer byte in front)
 * sorted as memcmp orders them, repeats dropped; the count kept */
BK_FN size_t records_sort_unique(uint8_t *recs, size_t n, int rec);

/* line.c */
BK_FN CMove *path_from(Store *s, uint32_t end, size_t *n);
BK_FN int checked_counts(const Rules *r, Placed *pl, Store *s, uint32_t end, bk_counts *out);
BK_FN int checked_path(const Rules *r, Placed *pl, const CMove *path, size_t n,
                       bk_counts *out);
BK_FN CMove *usual_line(const Rules *r, const Rules *loose, const uint8_t *root,
                       const CMove *line, size_t n, size_t *nout);

/* moves.c */
BK_FN int bk_dead(const uint8_t *k);
BK_FN int generate(const Rules *r, const Weights *w, const uint8_t *pk, uint32_t phash,
                    const Pos *p, int hp, Child *out);

/* position.c */
BK_FN void foundations(const uint8_t *k, int *fnd);
BK_FN int close_key(const Rules *r, uint8_t *k, int *fnd);
BK_FN int decode(const Rules *restrict r, const Weights *restrict w, const uint8_t *restrict k,
                  Pos *restrict p);
BK_FN int decode_lb(const Rules *restrict r, const Weights *restrict w,
                     const uint8_t *restrict k, Pos *restrict p);
BK_FN int pos_need(const Pos *p);
BK_FN int pos_h(const Weights *w, const Pos *p);
BK_FN int key_h(const Rules *r, const Weights *w, const uint8_t *k);

/* store.c */
BK_FN uint64_t *slots_alloc(Budget *b, uint64_t n);
BK_FN void slots_give(Budget *b, uint64_t *t, uint64_t n);
BK_FN int store_init(Store *s, Budget *b);
BK_FN void store_free(Store *s);
BK_FN uint32_t store_find(Store *s, const uint8_t *key, uint32_t h);
BK_FN uint32_t store_add(Store *s, const uint8_t *key, uint32_t h);

/* --- inline helpers that call the functions above ---------------------- */

/* Double a table of slots (``*slots``, ``*mask``), each slot placed again by
 * the hash ``hash_of`` gives for it. */
static inline __attribute__((always_inline)) int
table_grow(Budget *b, uint64_t **slots, uint64_t *mask,
                      uint64_t (*hash_of)(const void *, uint64_t), const void *owner)
{
    uint64_t ncap = (*mask + 1) * 2, nmask = ncap - 1;
    uint64_t *ns = slots_alloc(b, ncap);
    if (!ns)
        return -1;
    for (uint64_t i = 0; i <= *mask; i++) {
        uint64_t v = (*slots)[i];
        if (!v)
            continue;
        uint64_t j = hash_of(owner, v) & nmask;
        while (ns[j])
            j = (j + 1) & nmask;
        ns[j] = v;
    }
    slots_give(b, *slots, *mask + 1);
    *slots = ns;
    *mask = nmask;
    return 0;
}

#endif
