/*
 * bakers.solver._native: the compiled search core.
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
 * The exhaustive search (exhaust) keeps the positions it has seen in a
 * compact delta form of the root instead, about 12 bytes in FreeCell.
 *
 * The rules come in as data (build policy, whether emptied columns may be
 * filled, whether runs move, cells) and the search as parameters (weights of
 * the heuristic, first stage, beam widths, limits). The Python module
 * bakers.solver.native validates every position before it reaches this code
 * and replays every line through the rules engine before it is believed.
 * The pruning rules and the argument that none loses a win are in the
 * docstring of bakers.solver; this file implements the same ones.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
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

enum { BUILD_SAME = 0, BUILD_ALT = 1, BUILD_ANY = 2 };
enum { ST_RUNNING = 0, ST_WIN, ST_EXHAUSTED, ST_LIMIT, ST_STAGE, ST_ERROR };
enum { LIM_NONE = 0, LIM_STATES, LIM_TIME, LIM_MEMORY, LIM_INTERRUPT };

typedef struct {
    int blocked, cell, home, empty, unbuilt, depth;
    int need; /* per card lying above the next card each foundation needs */
} Weights;

typedef struct {
    int ncols, ncells, build, can_fill, supermoves, always_safe, horne;
    uint8_t builds[NCARDS][NCARDS]; /* builds[c][p]: c may lie on p */
    uint8_t parents[NCARDS][4];
    uint8_t nparents[NCARDS];
    uint8_t children[NCARDS][4];
    uint8_t nchildren[NCARDS];
} Rules;

typedef struct {
    uint8_t key[NCARDS];
    uint32_t parent;
    uint32_t hash; /* the key's Zobrist hash */
    uint8_t card, count, dest, pad;
} Rec;

/* ------------------------------------------------------------------------- */
/* budget: limits shared by every stage of one solve                          */

typedef struct {
    long long states, max_states;
    double deadline; /* < 0: none */
    size_t bytes, max_bytes;
    int limit;
    PyThreadState *ts;
} Budget;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Whether ``held`` bytes fit the budget (the memory limit named when not). */
static int budget_fits(Budget *b, size_t held)
{
    if (b->max_bytes && held > b->max_bytes) {
        b->limit = LIM_MEMORY;
        return 0;
    }
    return 1;
}

static void *budget_alloc(Budget *b, size_t n)
{
    if (!budget_fits(b, b->bytes + n))
        return NULL;
    void *p = malloc(n);
    if (!p) {
        b->limit = LIM_MEMORY;
        return NULL;
    }
    b->bytes += n;
    return p;
}

static void *budget_realloc(Budget *b, void *old, size_t oldn, size_t n)
{
    if (!budget_fits(b, b->bytes - oldn + n))
        return NULL;
    void *p = realloc(old, n);
    if (!p) {
        b->limit = LIM_MEMORY;
        return NULL;
    }
    b->bytes = b->bytes - oldn + n;
    return p;
}

static void budget_free(Budget *b, void *p, size_t n)
{
    if (p) {
        free(p);
        b->bytes -= n;
    }
}

/* Checked every 256 expansions: time, and now and then Python's signals. */
static int budget_check(Budget *b)
{
    if (b->limit)
        return b->limit;
    if (b->max_states >= 0 && b->states >= b->max_states)
        return b->limit = LIM_STATES;
    if (b->deadline >= 0 && now_s() > b->deadline)
        return b->limit = LIM_TIME;
    if (b->ts && !(b->states & 0xffff)) {
        PyEval_RestoreThread(b->ts);
        int sig = PyErr_CheckSignals();
        b->ts = PyEval_SaveThread();
        if (sig < 0)
            return b->limit = LIM_INTERRUPT;
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* store: records in blocks, and the hash table                                */

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
static uint32_t zobrist[NCARDS][HOME + 1];

static void zobrist_init(void)
{
    uint64_t x = 0x243F6A8885A308D3ULL;
    for (int c = 0; c < NCARDS; c++)
        for (int v = 0; v <= HOME; v++) {
            x += 0x9E3779B97F4A7C15ULL; /* splitmix64 */
            uint64_t z = x;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
            zobrist[c][v] = (uint32_t)((z ^ (z >> 31)) >> 32);
        }
}

static inline uint32_t hash_key(const uint8_t *k)
{
    uint32_t h = 0;
    for (int c = 0; c < NCARDS; c++)
        h ^= zobrist[c][k[c]];
    return h;
}

/* A few record blocks that finished searches gave back, kept for the next
 * ones (most solves are small, and a fresh block costs the kernel's page
 * faults and zeroing on every solve: FreeCell deals 1-2,000 stopped after
 * 100 positions took 227 us each, 109 us with them). Shared by all threads
 * behind a lock (searches run without the GIL); counted in a budget only
 * while a store holds them. */
#define SPARE_BLOCKS 4
static Rec *spare_blocks[SPARE_BLOCKS];
static int nspare;
static PyThread_type_lock spare_lock;

static Rec *block_take(Budget *b)
{
    size_t n = BLOCK_SIZE * sizeof(Rec);
    if (!budget_fits(b, b->bytes + n))
        return NULL;
    Rec *blk = NULL;
    PyThread_acquire_lock(spare_lock, WAIT_LOCK);
    if (nspare)
        blk = spare_blocks[--nspare];
    PyThread_release_lock(spare_lock);
    if (!blk) /* a record to a cache line */
        blk = aligned_alloc(64, n);
    if (!blk) {
        b->limit = LIM_MEMORY;
        return NULL;
    }
    b->bytes += n;
    return blk;
}

static void block_give(Budget *b, Rec *blk)
{
    PyThread_acquire_lock(spare_lock, WAIT_LOCK);
    int kept = nspare < SPARE_BLOCKS;
    if (kept)
        spare_blocks[nspare++] = blk;
    PyThread_release_lock(spare_lock);
    if (kept)
        b->bytes -= BLOCK_SIZE * sizeof(Rec);
    else
        budget_free(b, blk, BLOCK_SIZE * sizeof(Rec));
}

static inline Rec *rec_at(Store *s, uint32_t i)
{
    return &s->blocks[i >> BLOCK_BITS][i & (BLOCK_SIZE - 1)];
}

/* A zeroed table of ``n`` 64-bit slots, counted in the budget. */
static uint64_t *slots_alloc(Budget *b, uint64_t n)
{
    uint64_t *t = budget_alloc(b, n * sizeof(uint64_t));
    if (t)
        memset(t, 0, n * sizeof(uint64_t));
    return t;
}

/* An empty table of 2^bits slots for a store or a set (zeroed first). */
#define TABLE_INIT(s, b, bits)                                                                     \
    (memset((s), 0, sizeof *(s)), (s)->budget = (b), (s)->mask = (1u << (bits)) - 1,               \
     (s)->slots = slots_alloc((b), (s)->mask + 1), (s)->slots ? 0 : -1)

static int store_init(Store *s, Budget *b) { return TABLE_INIT(s, b, 14); }

static void store_free(Store *s)
{
    Budget *b = s->budget;
    for (uint32_t i = 0; i < s->nblocks; i++)
        block_give(b, s->blocks[i]);
    budget_free(b, s->blocks, s->cap_blocks * sizeof(Rec *));
    budget_free(b, s->slots, (s->mask + 1) * sizeof(uint64_t));
    memset(s, 0, sizeof *s);
}

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
    budget_free(b, *slots, (*mask + 1) * sizeof(uint64_t));
    *slots = ns;
    *mask = nmask;
    return 0;
}

/* A store's slot keeps the hash that places it. */
static uint64_t store_slot_hash(const void *owner, uint64_t v)
{
    (void)owner;
    return v >> 32;
}

static int store_grow_table(Store *s)
{
    return table_grow(s->budget, &s->slots, &s->mask, store_slot_hash, s);
}

/* The index of ``key``'s record, or SEEN when it has none. */
static uint32_t store_find(Store *s, const uint8_t *key, uint32_t h)
{
    uint64_t tag = (uint64_t)h << 32;
    uint64_t j = h & s->mask;
    for (;;) {
        uint64_t v = s->slots[j];
        if (!v)
            return SEEN;
        uint32_t idx = (uint32_t)(v & 0xffffffffu) - 1;
        if ((v & 0xffffffff00000000ULL) == tag && memcmp(rec_at(s, idx)->key, key, NCARDS) == 0)
            return idx;
        j = (j + 1) & s->mask;
    }
}

/* Insert ``key`` unless present. Returns its new index, UINT32_MAX when it
 * was already there, or UINT32_MAX - 1 when memory ran out. */
static uint32_t store_add(Store *s, const uint8_t *key, uint32_t h)
{
    uint64_t tag = (uint64_t)h << 32;
    uint64_t j = h & s->mask;
    for (;;) {
        uint64_t v = s->slots[j];
        if (!v)
            break;
        if ((v & 0xffffffff00000000ULL) == tag &&
            memcmp(rec_at(s, (uint32_t)(v & 0xffffffffu) - 1)->key, key, NCARDS) == 0)
            return SEEN;
        j = (j + 1) & s->mask;
    }
    if (s->n >= FULL - 1)
        return FULL;
    uint32_t idx = s->n;
    if ((idx >> BLOCK_BITS) >= s->nblocks) {
        if (s->nblocks == s->cap_blocks) {
            uint32_t nc = s->cap_blocks ? s->cap_blocks * 2 : 16;
            Rec **nb = budget_realloc(s->budget, s->blocks, s->cap_blocks * sizeof(Rec *),
                                      nc * sizeof(Rec *));
            if (!nb)
                return FULL;
            s->blocks = nb;
            s->cap_blocks = nc;
        }
        Rec *blk = block_take(s->budget);
        if (!blk)
            return FULL;
        s->blocks[s->nblocks++] = blk;
    }
    Rec *r = rec_at(s, idx);
    memcpy(r->key, key, NCARDS);
    r->hash = h;
    s->slots[j] = tag | (uint64_t)(idx + 1);
    s->n++;
    if ((uint64_t)s->n * 2 > s->mask + 1) {
        if (store_grow_table(s) < 0) {
            /* the record stays findable in the old table: no harm done */
            return idx;
        }
    }
    return idx;
}

/* ------------------------------------------------------------------------- */
/* positions                                                                   */

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

static void foundations(const uint8_t *k, int *fnd)
{
    fnd[0] = fnd[1] = fnd[2] = fnd[3] = 0;
    for (int c = 0; c < NCARDS; c++)
        if (k[c] == HOME)
            fnd[c & 3]++;
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

/* Send safe cards home until none is left (pruning rule 1). Returns the cards
 * home afterwards. */
static int close_key(const Rules *r, uint8_t *k, int *fnd)
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
    for (int i = 0; i < nb; i++) {
        int n = 0;
        int c = bottoms[i];
        uint8_t low[4] = {99, 99, 99, 99};
        int cost = 0;
        uint8_t *restrict cards = p->cards[i];
        /* the bottom card is never blocked nor unbuilt */
        cards[n++] = (uint8_t)c;
        low[c & 3] = (uint8_t)c;
        p->contrib[c] = 0;
        if (want_need && next[c & 3] == c) {
            p->needcol[c & 3] = (int8_t)i;
            p->needpos[c & 3] = 0;
        }
        int prev = c;
        int run = 1;
        int seg_blocked = 0; /* the built segment being walked holds a blocked card */
        c = above[c];
        while (c != NONE) {
            /* no card is met twice, in this column or another: a card's one
             * value in the key names the card beneath it, so the walks
             * upwards from the bottom cards never join nor cycle (and a
             * column holds at most NCARDS < MAXLEN cards) */
            int s = c & 3;
            if (want_need && next[s] == c) {
                p->needcol[s] = (int8_t)i;
                p->needpos[s] = (uint8_t)n;
            }
            cards[n++] = (uint8_t)c;
            int blocked = low[s] < c;
            low[s] = blocked ? low[s] : (uint8_t)c;
            int built = builds[c][prev];
            if (want_lb) {
                if (!(sup && built)) {
                    lb += seg_blocked;
                    seg_blocked = 0;
                }
                seg_blocked |= blocked;
            }
            run = built ? run + 1 : 1;
            int add = blocked * wb + (!built) * wu;
            cost += add;
            p->contrib[c] = (uint8_t)add;
            prev = c;
            c = above[c];
        }
        lb += seg_blocked;
        p->tot[i] = cost;
        p->len[i] = (uint8_t)n;
        p->run[i] = (uint8_t)(sup ? run : 1);
        memcpy(p->low[i], low, 4);
        p->topcol[cards[n - 1]] = (int8_t)i;
    }
    p->ncols = nb;
    p->lb = want_lb ? lb : 0;
    return 0;
}

/* The position laid out, without the short search's lower bound. */
static int decode(const Rules *restrict r, const Weights *restrict w, const uint8_t *restrict k,
                  Pos *restrict p)
{
    return w->need ? decode_as(r, w, k, p, 0, 1) : decode_as(r, w, k, p, 0, 0);
}

/* The position laid out with ``lb``, the short search's lower bound. */
static int decode_lb(const Rules *restrict r, const Weights *restrict w,
                     const uint8_t *restrict k, Pos *restrict p)
{
    return w->need ? decode_as(r, w, k, p, 1, 1) : decode_as(r, w, k, p, 1, 0);
}

/* The cards lying above each foundation's next card (decoded with a need
 * weight; none for a card in a cell). */
static int pos_need(const Pos *p)
{
    int n = 0;
    for (int s = 0; s < 4; s++)
        if (p->needcol[s] >= 0)
            n += p->len[p->needcol[s]] - p->needpos[s] - 1;
    return n;
}

static int pos_h(const Weights *w, const Pos *p)
{
    int h = -w->empty * p->nempty + w->cell * p->ncells - w->home * p->home;
    for (int i = 0; i < p->ncols; i++)
        h += p->tot[i];
    if (w->need)
        h += w->need * pos_need(p);
    return h;
}

static int key_h(const Rules *r, const Weights *w, const uint8_t *k)
{
    Pos p;
    if (decode(r, w, k, &p) < 0)
        return 0;
    return pos_h(w, &p);
}

/* What taking cards off column ``i`` changes in the heuristic, ``keep``
 * cards staying, ``removed`` the contrib of those taken (an emptied column
 * counts as empty). */
static inline int take_off(const Weights *w, const Pos *p, int i, int keep, int removed)
{
    return keep ? -removed : -w->empty - p->tot[i];
}

/* ------------------------------------------------------------------------- */
/* move generation                                                             */

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
} Gen;

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

/* Make the child: ``card`` moved (with ``count`` - 1 cards on it, the run
 * ``run``) so that it lies on ``below`` (a card of column ``j``, BOTTOM, CELL
 * or HOME). ``uncovered`` is the card the move exposes (NONE: none); ``h`` is
 * the child's heuristic before the closure, which the closure updates. */
static void emit(Gen *g, int card, int count, int dest, int below, int uncovered, int h,
                 const uint8_t *run, int j, int i, int keep)
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
        return;
    uint8_t contrib[NCARDS];
    memcpy(contrib, g->p->contrib, NCARDS);
    if (below < NCARDS) {
        for (int t = 0; t < count; t++)
            contrib[run[t]] = g->p->low[j][run[t] & 3] < run[t] ? (uint8_t)g->w->blocked : 0;
    } else if (below == BOTTOM) {
        for (int t = 0; t < count; t++)
            contrib[run[t]] = 0;
    }
    if (close_h(g->r, g->w, ch->key, fnd, contrib, &ch->h, &ch->hash) == NCARDS) {
        ch->win = 1;
        ch->h = 0;
    } else if (g->w->need) {
        ch->h += g->w->need * (key_need(ch->key, fnd) - need); /* the next cards changed */
    }
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

/* Every child of the position (up to symmetry, minus the pruned moves). */
static int generate(const Rules *r, const Weights *w, const uint8_t *pk, uint32_t phash,
                    const Pos *p, int hp, Child *out)
{
    Gen g = {r, w, pk, p, hp, phash, out, 0, w->need ? pos_need(p) : 0};
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
                emit(&g, x, k, par, par, u, h, a + keep, j, i, keep);
            }
        }
        /* the exposed card into a free cell (one cell stands for all) */
        if (nfree) {
            int u = L > 1 ? a[L - 2] : NONE;
            emit(&g, top, 1, D_CELL, CELL, u, hp + w->cell + dtop, a + L - 1, -1, i, L - 1);
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
                emit(&g, a[keep], k, D_EMPTY, BOTTOM, a[keep - 1], h, a + keep, -1, i, keep);
            }
        }
        /* the exposed card home: an unsafe move (safe ones are made already) */
        if (!r->always_safe && ready(p->fnd, top))
            emit(&g, top, 1, D_FOUNDATION, HOME, L > 1 ? a[L - 2] : NONE,
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
            emit(&g, c, 1, par, par, NONE, hp - w->cell + blocked_on(w, p, j, &one, 1), &one, j,
                 -1, 0);
        }
        if (fill)
            emit(&g, c, 1, D_EMPTY, BOTTOM, NONE, hp - w->cell + w->empty, &one, -1, -1, 0);
        if (!r->always_safe && ready(p->fnd, c))
            emit(&g, c, 1, D_FOUNDATION, HOME, NONE, hp - w->cell - w->home, &one, -1, -1, 0);
    }
    return g.n;
}

/* A new record's link to its parent and the move that made it. */
static inline void rec_link(Rec *cr, uint32_t parent, const Child *ch)
{
    cr->parent = parent;
    cr->card = ch->card;
    cr->count = ch->count;
    cr->dest = ch->dest;
}

/* Upper bound of children of one position. */
#define MAXCHILD 1024

/* ------------------------------------------------------------------------- */
/* searches                                                                    */

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

static int vec_push(Budget *b, Vec *v, uint64_t x)
{
    if (v->n == v->cap) {
        uint32_t nc = v->cap ? v->cap * 2 : 16;
        uint64_t *nd = budget_realloc(b, v->data, v->cap * sizeof(uint64_t), nc * sizeof(uint64_t));
        if (!nd)
            return -1;
        v->data = nd;
        v->cap = nc;
    }
    v->data[v->n++] = x;
    return 0;
}

static int h_low(const Rules *r, const Weights *w)
{
    return -w->home * NCARDS - w->empty * r->ncols;
}

/* Push record ``idx``, ``g`` moves from the root, into bucket ``bi``,
 * making room as it goes: a solve that ends early (most do) allocates,
 * clears and frees only the buckets near the ones it used, and all entries
 * live in one array, so that a search calls the allocator a few times, not
 * once for every bucket it fills. */
static int bf_push(BestFirst *bf, Budget *b, size_t bi, uint32_t idx, uint32_t g)
{
    if (bi >= bf->nbuckets) {
        size_t nn = bi + bi / 2 + 64;
        uint32_t *nbk = budget_realloc(b, bf->buckets, bf->nbuckets * sizeof(uint32_t),
                                       nn * sizeof(uint32_t));
        if (!nbk)
            return -1;
        memset(nbk + bf->nbuckets, 0, (nn - bf->nbuckets) * sizeof(uint32_t));
        bf->buckets = nbk;
        bf->nbuckets = nn;
    }
    if (bi >= bf->hi)
        bf->hi = bi + 1;
    if (bf->nents == bf->cap_ents) {
        if (bf->cap_ents >= UINT32_MAX / 2) {
            b->limit = LIM_MEMORY;
            return -1;
        }
        uint32_t nc = bf->cap_ents ? bf->cap_ents * 2 : 1024;
        Entry *ne = budget_realloc(b, bf->ents, (size_t)bf->cap_ents * sizeof(Entry),
                                   (size_t)nc * sizeof(Entry));
        if (!ne)
            return -1;
        bf->ents = ne;
        bf->cap_ents = nc;
    }
    Entry *e = &bf->ents[bf->nents++];
    e->idx = idx;
    e->g = g;
    e->next = bf->buckets[bi];
    bf->buckets[bi] = bf->nents;
    return 0;
}

static int bf_init(BestFirst *bf, const Rules *r, const Weights *w, Budget *b, const uint8_t *root,
                   int hroot)
{
    memset(bf, 0, sizeof *bf);
    bf->r = r;
    bf->w = *w;
    bf->scale = w->depth < 1 ? 1 : w->depth;
    bf->offset = -h_low(r, w);
    if (store_init(&bf->store, b) < 0)
        return -1;
    uint32_t idx = store_add(&bf->store, root, hash_key(root));
    if (idx == FULL)
        return -1;
    Rec *rec = rec_at(&bf->store, idx);
    rec->parent = UINT32_MAX;
    size_t cur = (size_t)(hroot + bf->offset) * (size_t)bf->scale;
    bf->cur = cur;
    return bf_push(bf, b, cur, idx, 0);
}

static void bf_free(BestFirst *bf, Budget *b)
{
    if (bf->buckets) {
        budget_free(b, bf->buckets, bf->nbuckets * sizeof(uint32_t));
        bf->buckets = NULL;
        bf->nbuckets = 0;
    }
    if (bf->ents) {
        budget_free(b, bf->ents, (size_t)bf->cap_ents * sizeof(Entry));
        bf->ents = NULL;
        bf->nents = bf->cap_ents = 0;
    }
    store_free(&bf->store);
}

/* Run until a win, exhaustion, a limit or ``stop_states`` expansions. */
static int bf_run(BestFirst *bf, Budget *b, long long stop_states, Child *kids)
{
    const Rules *r = bf->r;
    const Weights *w = &bf->w;
    Store *s = &bf->store;
    size_t cur = bf->cur;
    int scale = bf->scale, offset = bf->offset;
    Pos pos;
    for (;;) {
        while (cur < bf->hi && bf->buckets[cur] == 0)
            cur++;
        if (cur >= bf->hi) {
            bf->cur = cur;
            return ST_EXHAUSTED;
        }
        if (!(b->states & 255) || b->states >= stop_states) {
            if (budget_check(b)) {
                bf->cur = cur;
                return ST_LIMIT;
            }
            if (b->states >= stop_states) {
                bf->cur = cur;
                return ST_STAGE;
            }
        }
        const Entry *top = &bf->ents[bf->buckets[cur] - 1];
        uint32_t idx = top->idx;
        uint32_t g = top->g;
        bf->buckets[cur] = top->next;
        b->states++;
        Rec *rec = rec_at(s, idx);
        uint8_t key[NCARDS];
        memcpy(key, rec->key, NCARDS);
        uint32_t phash = rec->hash;
        int hp = (int)((cur - g) / (size_t)scale) - offset;
        if (decode(r, w, key, &pos) < 0) {
            bf->cur = cur;
            return ST_ERROR;
        }
        int n = generate(r, w, key, phash, &pos, hp, kids);
        for (int t = 0; t < n; t++)
            __builtin_prefetch(&s->slots[kids[t].hash & s->mask]);
        for (int t = 0; t < n; t++) {
            Child *ch = &kids[t];
            uint32_t ci = store_add(s, ch->key, ch->hash);
            if (ci == SEEN)
                continue;
            if (ci == FULL) {
                bf->cur = cur;
                b->limit = LIM_MEMORY;
                return ST_LIMIT;
            }
            rec_link(rec_at(s, ci), idx, ch);
            if (ch->win) {
                bf->win = ci;
                bf->cur = cur;
                return ST_WIN;
            }
            size_t bi = (size_t)(ch->h + offset) * (size_t)scale + g + 1;
            if (bf_push(bf, b, bi, ci, g + 1) < 0) {
                bf->cur = cur;
                return ST_LIMIT;
            }
            if (bi < cur)
                cur = bi;
        }
    }
}

/* A rival best-first search with other weights, interleaved with the main
 * one during the first stage: ``head`` positions first, then turns of
 * ``q_main`` and ``q_rival`` positions, until the rival has expanded
 * ``limit`` (both searches are complete, so either one running out of
 * positions proves the deal lost). */
typedef struct {
    Weights w;
    long long head, q_main, q_rival, limit;
} Rival;

/* Run ``a`` and its rival ``g`` in turns until a verdict, a limit or
 * ``stop`` expansions in all; ``*which`` is the search that ended it. */
static int bf_duel(BestFirst *a, BestFirst *g, const Rival *rv, Budget *b, long long stop,
                   Child *kids, BestFirst **which)
{
    BestFirst *turn = g;
    long long left = rv->limit; /* the rival's own expansions still allowed */
    long long q = rv->head < left ? rv->head : left;
    for (;;) {
        long long from = b->states, until = from + q;
        int st = bf_run(turn, b, until < stop ? until : stop, kids);
        if (turn == g)
            left -= b->states - from;
        *which = turn;
        if (st != ST_STAGE || b->states >= stop)
            return st;
        if (left <= 0) {
            *which = a;
            return bf_run(a, b, stop, kids);
        }
        turn = turn == a ? g : a;
        q = turn == a ? rv->q_main : rv->q_rival < left ? rv->q_rival : left;
    }
}

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

/* Put the ``k`` best of ``v[0..n)`` first, in any order (quickselect with
 * Hoare's partition). */
static void select_best(Scored *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* the boundary k lies in [lo, hi] */
    while (hi - lo > 1 && k > lo && k < hi) {
        Scored pivot = v[lo + (hi - lo - 1) / 2];
        size_t i = lo, j = hi - 1;
        for (;;) {
            while (scored_less(&v[i], &pivot))
                i++;
            while (scored_less(&pivot, &v[j]))
                j--;
            if (i >= j)
                break;
            Scored t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        /* now v[lo..j] <= pivot <= v[j+1..hi) */
        if (k <= j + 1)
            hi = j + 1;
        else
            lo = j + 1;
    }
}

/* ------------------------------------------------------------------------- */
/* short lines: fewest player moves (a move that does not go to a foundation,
 * a run moved at once counting one; foundation moves are free)              */

/* What a move costs: COST_EVERY, one each (the plain beam's layers);
 * COST_PLAYER, nothing for a move to a foundation. */
enum { COST_EVERY = 0, COST_PLAYER = 1 };

static inline int move_cost(int mode, const Child *ch)
{
    return mode == COST_PLAYER && ch->dest == D_FOUNDATION ? 0 : 1;
}

/* Append to a growing array of scored positions. */
static int scored_push(Budget *b, Scored **arr, size_t *n, size_t *cap, Scored x)
{
    if (*n == *cap) {
        Scored *grown = budget_realloc(b, *arr, *cap * sizeof(Scored), 2 * *cap * sizeof(Scored));
        if (!grown)
            return -1;
        *arr = grown;
        *cap *= 2;
    }
    (*arr)[(*n)++] = x;
    return 0;
}

#define MAX_G 250 /* a record keeps its player moves in one byte */

/* Beam search: layer g holds positions reached at cost g (free moves stay in
 * their layer), and the ``width`` best of each by the heuristic go on.
 * Incomplete: a dead beam proves nothing. With COST_EVERY it finds wins in
 * spaces far too big to exhaust, as Baker's Dozen's are; with COST_PLAYER
 * it looks only for lines of fewer than *ub player moves (a position whose
 * moves so far plus its lower bound reach *ub is dropped). ST_WIN: a line of
 * *ub (now smaller) moves ends at *win. */
static int layered_beam(const Rules *r, const Weights *w, Budget *b, const uint8_t *root,
                        int width, int *ub, int mode, Store *s, uint32_t *win, Child *kids)
{
    if (store_init(s, b) < 0)
        return ST_LIMIT;
    uint32_t ri = store_add(s, root, hash_key(root));
    if (ri == FULL)
        return ST_LIMIT;
    rec_at(s, ri)->parent = UINT32_MAX;
    size_t cap = (size_t)width * 64 + 64, ncap = cap;
    Scored *layer = budget_alloc(b, cap * sizeof(Scored));
    Scored *next = budget_alloc(b, ncap * sizeof(Scored));
    int status = ST_EXHAUSTED;
    if (!layer || !next) {
        status = ST_LIMIT;
        goto done;
    }
    size_t nl = 1, nn = 0;
    layer[0].h = key_h(r, w, root);
    layer[0].tie = 0;
    layer[0].idx = ri;
    Pos pos;
    for (int g = 0; nl && g < *ub; g++) {
        nn = 0;
        for (size_t t = 0; t < nl; t++) { /* the layer grows with free moves */
            if (!(b->states & 255) && budget_check(b)) {
                status = ST_LIMIT;
                goto done;
            }
            uint32_t idx = layer[t].idx;
            uint8_t key[NCARDS];
            memcpy(key, rec_at(s, idx)->key, NCARDS);
            uint32_t phash = rec_at(s, idx)->hash;
            if ((mode == COST_PLAYER ? decode_lb : decode)(r, w, key, &pos) < 0) {
                status = ST_ERROR;
                goto done;
            }
            if (g + pos.lb >= *ub)
                continue;
            b->states++;
            int n = generate(r, w, key, phash, &pos, layer[t].h, kids);
            for (int q = 0; q < n; q++)
                __builtin_prefetch(&s->slots[kids[q].hash & s->mask]);
            for (int q = 0; q < n; q++) {
                Child *ch = &kids[q];
                int gc = g + move_cost(mode, ch);
                if (gc >= *ub)
                    continue;
                uint32_t ci = store_add(s, ch->key, ch->hash);
                if (ci == SEEN)
                    continue;
                if (ci == FULL) {
                    b->limit = LIM_MEMORY;
                    status = ST_LIMIT;
                    goto done;
                }
                rec_link(rec_at(s, ci), idx, ch);
                if (ch->win) {
                    *ub = gc;
                    *win = ci;
                    status = ST_WIN;
                    goto done;
                }
                Scored sc = {ch->h, ch->hash, ci};
                if (gc == g ? scored_push(b, &layer, &nl, &cap, sc)
                            : scored_push(b, &next, &nn, &ncap, sc)) {
                    status = ST_LIMIT;
                    goto done;
                }
            }
        }
        if (nn > (size_t)width) {
            select_best(next, nn, (size_t)width);
            nn = (size_t)width;
        }
        /* the next layer becomes the current one */
        Scored *tmp = layer;
        size_t tcap = cap;
        layer = next;
        cap = ncap;
        next = tmp;
        ncap = tcap;
        nl = nn;
    }
done:
    budget_free(b, layer, cap * sizeof(Scored));
    budget_free(b, next, ncap * sizeof(Scored));
    return status;
}

/* The plain beam of the portfolio: every move costs one, no bound. */
static int beam(const Rules *r, const Weights *w, Budget *b, const uint8_t *root, int width,
                Store *s, uint32_t *win, Child *kids)
{
    int unbounded = INT32_MAX;
    return layered_beam(r, w, b, root, width, &unbounded, COST_EVERY, s, win, kids);
}

/* A* on player moves with the admissible bound of decode (built segments
 * holding a blocked card: each needs a player move of its own), looking only
 * for lines shorter than *ub. ST_EXHAUSTED: no line shorter than the final
 * *ub exists (a line of *ub moves ends at *win if this search found it).
 * ST_LIMIT: *lower holds the bound reached: no line is shorter. */
static int short_astar(const Rules *r, const Weights *w, Budget *b, const uint8_t *root, int *ub,
                       int *lower, Store *s, uint32_t *win, int *found, Child *kids)
{
    *found = 0;
    if (store_init(s, b) < 0)
        return ST_LIMIT;
    uint32_t ri = store_add(s, root, hash_key(root));
    if (ri == FULL)
        return ST_LIMIT;
    Rec *rr = rec_at(s, ri);
    rr->parent = UINT32_MAX;
    rr->pad = 0;
    Pos pos;
    if (decode_lb(r, w, root, &pos) < 0)
        return ST_ERROR;
    int nb = *ub + 1;
    Vec *buckets = budget_alloc(b, (size_t)nb * sizeof(Vec));
    if (!buckets)
        return ST_LIMIT;
    memset(buckets, 0, (size_t)nb * sizeof(Vec));
    int status = ST_EXHAUSTED;
    int f = pos.lb;
    if (f < *ub && vec_push(b, &buckets[f], ri) < 0) {
        status = ST_LIMIT;
        goto done;
    }
    for (;;) {
        while (f < *ub && buckets[f].n == 0)
            f++;
        if (f >= *ub) {
            *lower = *ub;
            status = ST_EXHAUSTED;
            break;
        }
        *lower = f;
        if (!(b->states & 255) && budget_check(b)) {
            status = ST_LIMIT;
            break;
        }
        uint64_t entry = buckets[f].data[--buckets[f].n];
        uint32_t idx = (uint32_t)entry;
        int g = (int)(entry >> 32);
        Rec *rec = rec_at(s, idx);
        if (rec->pad != g)
            continue; /* reached again since with fewer moves */
        uint8_t key[NCARDS];
        memcpy(key, rec->key, NCARDS);
        uint32_t phash = rec->hash;
        if (decode_lb(r, w, key, &pos) < 0) {
            status = ST_ERROR;
            break;
        }
        b->states++;
        int n = generate(r, w, key, phash, &pos, 0, kids);
        for (int q = 0; q < n; q++) {
            Child *ch = &kids[q];
            int gc = g + move_cost(COST_PLAYER, ch);
            if (gc >= *ub)
                continue;
            int fc = gc;
            Pos cp;
            if (!ch->win) {
                if (decode_lb(r, w, ch->key, &cp) < 0) {
                    status = ST_ERROR;
                    goto done;
                }
                fc = gc + cp.lb;
                if (fc >= *ub)
                    continue;
            }
            uint32_t ci = store_find(s, ch->key, ch->hash);
            if (ci == SEEN) {
                ci = store_add(s, ch->key, ch->hash);
                if (ci == FULL) {
                    b->limit = LIM_MEMORY;
                    status = ST_LIMIT;
                    goto done;
                }
            } else if (rec_at(s, ci)->pad <= gc) {
                continue;
            }
            Rec *cr = rec_at(s, ci);
            rec_link(cr, idx, ch);
            cr->pad = (uint8_t)gc;
            if (ch->win) {
                *ub = gc; /* a shorter line: look only for shorter still */
                *win = ci;
                *found = 1;
                continue;
            }
            if (vec_push(b, &buckets[fc], (uint64_t)ci | (uint64_t)gc << 32) < 0) {
                status = ST_LIMIT;
                goto done;
            }
        }
    }
done:
    for (int i = 0; i < nb; i++)
        budget_free(b, buckets[i].data, buckets[i].cap * sizeof(uint64_t));
    budget_free(b, buckets, (size_t)nb * sizeof(Vec));
    return status;
}

/* ------------------------------------------------------------------------- */
/* Python glue                                                                 */

static int builds_card(int build, int c, int p)
{
    if ((p >> 2) != (c >> 2) + 1)
        return 0;
    if (build == BUILD_SAME)
        return (c & 3) == (p & 3);
    if (build == BUILD_ALT) {
        int rc = (c & 3) == 1 || (c & 3) == 2;
        int rp = (p & 3) == 1 || (p & 3) == 2;
        return rc != rp;
    }
    return 1;
}

static int rules_init(Rules *r, int ncols, int ncells, int build, int can_fill, int supermoves)
{
    if (ncols < 1 || ncols > MAXCOLS || ncells < 0 || ncells > MAXCELLS || build < 0 || build > 2) {
        PyErr_SetString(PyExc_ValueError, "rules out of range");
        return -1;
    }
    memset(r, 0, sizeof *r);
    r->ncols = ncols;
    r->ncells = ncells;
    r->build = build;
    r->can_fill = can_fill != 0;
    r->supermoves = supermoves != 0;
    r->always_safe = build == BUILD_SAME;
    r->horne = build == BUILD_ALT; /* pruning rule 6 (see exhaustive_rules) */
    for (int c = 0; c < NCARDS; c++)
        for (int p = 0; p < NCARDS; p++)
            if (builds_card(build, c, p)) {
                r->builds[c][p] = 1;
                r->parents[c][r->nparents[c]++] = (uint8_t)p;
                r->children[p][r->nchildren[p]++] = (uint8_t)c;
            }
    return 0;
}

/* The rules of the exhaustive search: in Baker's Dozen it also sends a card
 * home by rule 6's looser form (all four cards two ranks lower home), which
 * shrinks the spaces proofs of loss search about three times; the portfolio
 * keeps the usual rule there, as its stages were chosen with it. Lines of
 * the exhaustive search are played (play_line) and generated (children)
 * with the same rules. */
static void exhaustive_rules(Rules *r)
{
    if (r->build == BUILD_ANY)
        r->horne = 1;
}

static int parse_weights(PyObject *t, Weights *w)
{
    w->need = 0;
    if (!PyArg_ParseTuple(t, "iiiiii|i", &w->blocked, &w->cell, &w->home, &w->empty, &w->unbuilt,
                          &w->depth, &w->need))
        return -1;
    if (w->need < 0 || w->need > 64) {
        PyErr_SetString(PyExc_ValueError, "weights: need out of range");
        return -1;
    }
    if (w->depth < 1 || w->depth > 64) {
        PyErr_SetString(PyExc_ValueError, "weights: depth out of range");
        return -1;
    }
    return 0;
}

/* columns: sequence of bytes (bottom card first); cells: bytes of the cards in
 * cells; every other card is home. Checks that the foundations this implies
 * are contiguous from the ace. */
static int parse_position(const Rules *r, PyObject *columns, PyObject *cells, uint8_t *key,
                          int board_order, uint8_t colmap[MAXCOLS][MAXLEN], int *lens)
{
    memset(key, HOME, NCARDS);
    uint8_t seen[NCARDS] = {0};
    PyObject *seq = PySequence_Fast(columns, "columns must be a sequence");
    if (!seq)
        return -1;
    Py_ssize_t nc = PySequence_Fast_GET_SIZE(seq);
    if (nc != r->ncols) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "wrong number of columns");
        return -1;
    }
    for (Py_ssize_t i = 0; i < nc; i++) {
        PyObject *col = PySequence_Fast_GET_ITEM(seq, i);
        char *buf;
        Py_ssize_t n;
        if (PyBytes_AsStringAndSize(col, &buf, &n) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        if (n > MAXLEN - 1) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "column too long");
            return -1;
        }
        if (lens)
            lens[i] = (int)n;
        for (Py_ssize_t j = 0; j < n; j++) {
            int c = (uint8_t)buf[j];
            if (c >= NCARDS || seen[c]) {
                Py_DECREF(seq);
                PyErr_SetString(PyExc_ValueError, "bad or repeated card");
                return -1;
            }
            seen[c] = 1;
            key[c] = j ? (uint8_t)buf[j - 1] : BOTTOM;
            if (board_order)
                colmap[i][j] = (uint8_t)c;
        }
    }
    Py_DECREF(seq);
    char *cb;
    Py_ssize_t ncb;
    if (PyBytes_AsStringAndSize(cells, &cb, &ncb) < 0)
        return -1;
    if (ncb > r->ncells) {
        PyErr_SetString(PyExc_ValueError, "more cards in cells than cells");
        return -1;
    }
    for (Py_ssize_t j = 0; j < ncb; j++) {
        int c = (uint8_t)cb[j];
        if (c >= NCARDS || seen[c]) {
            PyErr_SetString(PyExc_ValueError, "bad or repeated card");
            return -1;
        }
        seen[c] = 1;
        key[c] = CELL;
    }
    for (int s = 0; s < 4; s++) {
        int home = 1;
        for (int rk = 0; rk < 13; rk++) {
            int c = rk * 4 + s;
            if (key[c] != HOME)
                home = 0;
            else if (!home) {
                PyErr_SetString(PyExc_ValueError, "foundations must be contiguous from the ace");
                return -1;
            }
        }
    }
    return 0;
}

/* The rules of a call: the columns (for their count) and the game's numbers. */
/* The last rules this thread made, and what they were made from (a survey
 * asks for the same rules thousands of times). */
static _Thread_local Rules last_rules;
static _Thread_local int last_args[5] = {-1, -1, -1, -1, -1};

static int rules_for(Rules *r, PyObject *columns, int ncells, int build, int can_fill,
                     int supermoves)
{
    Py_ssize_t ncols = PySequence_Size(columns);
    if (ncols < 0)
        return -1;
    int a[5] = {(int)ncols, ncells, build, can_fill != 0, supermoves != 0};
    if (memcmp(a, last_args, sizeof a) == 0) {
        memcpy(r, &last_rules, sizeof *r);
        return 0;
    }
    if (rules_init(r, (int)ncols, ncells, build, can_fill, supermoves) < 0)
        return -1;
    memcpy(&last_rules, r, sizeof *r);
    memcpy(last_args, a, sizeof a);
    return 0;
}

/* What every search call starts from: the rules, the heuristic weights and
 * the root position's key. */
static int search_args(Rules *r, Weights *w, uint8_t *root, PyObject *columns, PyObject *cells,
                       int ncells, int build, int can_fill, int supermoves, PyObject *weights_t)
{
    if (rules_for(r, columns, ncells, build, can_fill, supermoves) < 0 ||
        parse_weights(weights_t, w) < 0)
        return -1;
    return parse_position(r, columns, cells, root, 0, NULL, NULL);
}

/* A position in the board's own order: its columns, and one byte a cell
 * (NONE for an empty one). */
typedef struct {
    uint8_t key[NCARDS];
    uint8_t cols[MAXCOLS][MAXLEN];
    int len[MAXCOLS];
    int cell[MAXCELLS];
} Placed;

static int parse_placed(const Rules *r, PyObject *columns, const char *cb, Py_ssize_t ncb,
                        Placed *p)
{
    if (ncb != r->ncells) {
        PyErr_SetString(PyExc_ValueError, "one byte a cell");
        return -1;
    }
    memset(p->len, 0, sizeof p->len);
    uint8_t packed[MAXCELLS];
    int np = 0;
    for (int i = 0; i < r->ncells; i++) {
        p->cell[i] = (uint8_t)cb[i] == NONE ? -1 : (uint8_t)cb[i];
        if (p->cell[i] >= 0)
            packed[np++] = (uint8_t)cb[i];
    }
    PyObject *cells = PyBytes_FromStringAndSize((const char *)packed, np);
    if (!cells)
        return -1;
    int rc = parse_position(r, columns, cells, p->key, 1, p->cols, p->len);
    Py_DECREF(cells);
    return rc;
}

/* The portfolio's later stages: each entry a width (a beam with every beam
 * weight in turn; 0: the best-first search resumed for the middle stage) or
 * a pair (width, k): a beam with beam weights k alone, or for width 0 the
 * best-first search resumed for k positions. ``sel`` gets k, or -1. */
static int parse_stages(PyObject *stages, int *width, long long *sel, int max)
{
    PyObject *seq = PySequence_Fast(stages, "beams must be a sequence");
    if (!seq)
        return -1;
    int n = (int)PySequence_Fast_GET_SIZE(seq);
    if (n > max) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "at most %d beam stages", max);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        long w;
        sel[i] = -1;
        if (PyTuple_Check(x)) {
            if (!PyArg_ParseTuple(x, "lL", &w, &sel[i]))
                w = -1;
            else if (sel[i] < 0)
                w = -1;
        } else {
            w = PyLong_AsLong(x);
        }
        width[i] = (int)w;
        if (w < 0 || w > 10000000) {
            Py_DECREF(seq);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "beam stage out of range");
            return -1;
        }
    }
    Py_DECREF(seq);
    return n;
}

/* Beam widths from a sequence (the short search's): at most ``max`` (32 or
 * fewer), each 1 to 10,000,000. */
static int parse_widths(PyObject *widths, int *out, int max)
{
    long long sel[32];
    int n = parse_stages(widths, out, sel, max < 32 ? max : 32);
    for (int i = 0; i < n; i++)
        if (sel[i] >= 0 || out[i] < 1) {
            PyErr_SetString(PyExc_ValueError, "beam width out of range");
            return -1;
        }
    return n;
}

/* A fresh budget: -1 (or 0 MB) for no limit. */
static void budget_start(Budget *b, long long max_states, double timeout, long long max_mb)
{
    memset(b, 0, sizeof *b);
    b->max_states = max_states;
    b->deadline = timeout > 0 ? now_s() + timeout : -1.0;
    b->max_bytes = max_mb > 0 ? (size_t)max_mb * 1024u * 1024u : 0;
}

static const char *limit_name(int lim)
{
    switch (lim) {
    case LIM_STATES:
        return "states";
    case LIM_TIME:
        return "timeout";
    case LIM_MEMORY:
        return "memory";
    default:
        return NULL;
    }
}

/* Where a move of a line goes, as Python sees it: a card, or -1
 * (foundation), -2 (cell), -3 (empty column). */
static inline int dest_code(int dest)
{
    return dest < NCARDS ? dest : dest == D_FOUNDATION ? -1 : dest == D_CELL ? -2 : -3;
}

/* One move of a line as Python sees it: (card, count, dest code). */
static PyObject *move_tuple(int card, int count, int code)
{
    return Py_BuildValue("(iii)", card, count, code);
}

/* A move of a line in card terms, the destination as dest_code gives it. */
typedef struct {
    int card, count, dest;
} CMove;

/* The line from the root to record ``end``, in a new array (NULL with a
 * MemoryError set when there is no memory for it). */
static CMove *path_from(Store *s, uint32_t end, size_t *n)
{
    size_t len = 0;
    for (uint32_t i = end; i != UINT32_MAX && rec_at(s, i)->parent != UINT32_MAX;
         i = rec_at(s, i)->parent)
        len++;
    CMove *out = malloc((len ? len : 1) * sizeof(CMove));
    if (!out) {
        PyErr_NoMemory();
        return NULL;
    }
    size_t k = len;
    for (uint32_t i = end; k > 0; i = rec_at(s, i)->parent) {
        Rec *rec = rec_at(s, i);
        out[--k] = (CMove){rec->card, rec->count, dest_code(rec->dest)};
    }
    *n = len;
    return out;
}

static PyObject *line_from(Store *s, uint32_t end)
{
    size_t n;
    CMove *path = path_from(s, end, &n);
    if (!path)
        return NULL;
    PyObject *lst = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; lst && i < n; i++) {
        PyObject *t = move_tuple(path[i].card, path[i].count, path[i].dest);
        if (!t) {
            Py_CLEAR(lst);
            break;
        }
        PyList_SET_ITEM(lst, (Py_ssize_t)i, t);
    }
    free(path);
    return lst;
}

/* What solve() and exhaust() give back: (status, limit, states, line,
 * peak_bytes), or the exception for an interrupt or a malformed position.
 * Takes ``line`` (a new reference, or NULL). */
static PyObject *search_result(int status, int interrupted, const Budget *b, PyObject *line,
                               size_t peak)
{
    if (interrupted) {
        Py_XDECREF(line);
        if (!PyErr_Occurred())
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        return NULL;
    }
    if (status == ST_ERROR) {
        Py_XDECREF(line);
        PyErr_SetString(PyExc_RuntimeError, "the native core met a malformed position");
        return NULL;
    }
    if (status == ST_WIN && !line)
        return NULL;
    const char *verdict = status == ST_WIN ? "winnable" : status == ST_EXHAUSTED ? "impossible"
                                                                                  : "unknown";
    const char *lim = status == ST_LIMIT ? limit_name(b->limit) : NULL;
    if (status == ST_LIMIT && !lim)
        lim = "memory";
    PyObject *res = Py_BuildValue("(szLOn)", verdict, lim, b->states, line ? line : Py_None,
                                  (Py_ssize_t)peak);
    Py_XDECREF(line);
    return res;
}

/* ------------------------------------------------------------------------- */
/* the exhaustive search: depth first, every position kept in a compact form   */

/* For a proof of loss the order of the search does not matter, only how many
 * positions fit in memory; the depth-first search keeps none but the ones on
 * its path and their unexplored siblings, and the set of positions seen holds
 * each one in a delta form of the root position, about 12 bytes in FreeCell
 * instead of the 64-byte record: the foundations' heights (4 bits each), then
 * for each card in play one bit, set when the card no longer lies where it
 * lay in the root, followed for such a card by where it lies now: on which of
 * the cards it builds on (a card moved onto another builds on it: one of one
 * in Baker's Game, two in FreeCell, four in Baker's Dozen), at the bottom of a
 * column, or in a cell. The form follows from the 52-byte key alone and gives
 * it back (with the root), so two positions share one form only when they are
 * one position. */

#define ARENA_CHUNK (64u << 20)
#define PACK_MAX 48

typedef struct {
    uint8_t root[64];                /* the root's key, zero-padded */
    uint8_t code[NCARDS][HOME + 1]; /* a moved card's place as a code (NONE: no code) */
    uint8_t place[NCARDS][8];       /* and back: the place of each code */
    uint8_t bits[NCARDS];           /* the code's width */
} Delta;

typedef struct {
    uint64_t w[PACK_MAX / 8 + 1];
    int nbits;
} Bits;

static inline void bits_put(Bits *b, uint64_t v, int n)
{
    int i = b->nbits >> 6, o = b->nbits & 63;
    b->w[i] |= v << o;
    if (o && o + n > 64)
        b->w[i + 1] |= v >> (64 - o);
    b->nbits += n;
}

static int nbits_for(int maxval)
{
    int n = 0;
    while ((1 << n) <= maxval)
        n++;
    return n;
}

static void delta_init(Delta *d, const Rules *r, const uint8_t *root)
{
    memset(d, 0, sizeof *d);
    memset(d->code, NONE, sizeof d->code);
    memcpy(d->root, root, NCARDS);
    for (int c = 0; c < NCARDS; c++) {
        /* codes for the places a moved card can be in under these rules:
         * on a card it builds on, at the bottom of a column that was
         * emptied and filled again, in a cell */
        int n = 0;
        for (int i = 0; i < r->nparents[c]; i++) {
            d->code[c][r->parents[c][i]] = (uint8_t)n;
            d->place[c][n++] = r->parents[c][i];
        }
        if (r->can_fill) {
            d->code[c][BOTTOM] = (uint8_t)n;
            d->place[c][n++] = BOTTOM;
        }
        if (r->ncells) {
            d->code[c][CELL] = (uint8_t)n;
            d->place[c][n++] = CELL;
        }
        d->bits[c] = (uint8_t)nbits_for(n - 1);
    }
}

/* Bits of the cards that lie as in ``root`` and of the cards home. */
static inline void delta_masks(const uint8_t *k, const uint8_t *root64, uint64_t *same,
                               uint64_t *home)
{
#if defined(__SSE2__)
    uint8_t buf[64];
    memcpy(buf, k, NCARDS);
    memset(buf + NCARDS, 0, 64 - NCARDS);
    uint64_t ms = 0, mh = 0;
    const __m128i vh = _mm_set1_epi8((char)HOME);
    for (int i = 0; i < 4; i++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(buf + 16 * i));
        __m128i y = _mm_loadu_si128((const __m128i *)(root64 + 16 * i));
        ms |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) << (16 * i);
        mh |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vh)) << (16 * i);
    }
    *same = ms;
    *home = mh;
#else
    uint64_t ms = 0, mh = 0;
    for (int c = 0; c < NCARDS; c++) {
        ms |= (uint64_t)(k[c] == root64[c]) << c;
        mh |= (uint64_t)(k[c] == HOME) << c;
    }
    *same = ms;
    *home = mh;
#endif
}

/* The compact form of ``k`` in ``out`` (zero-padded to whole words): the
 * foundations, a bit per card that moved from its place in the root and is
 * not home, and each such card's place. Returns its length in bytes, or -1
 * for a key the form cannot hold (a moved card in a place the rules do not
 * let it reach). */
static int delta_pack(const Delta *d, const uint8_t *k, uint8_t *out)
{
    Bits b;
    memset(&b, 0, sizeof b);
    uint64_t same, home;
    delta_masks(k, d->root, &same, &home);
    uint64_t moved = ~same & ~home & ((1ULL << NCARDS) - 1);
    uint64_t f = 0;
    for (int s = 0; s < 4; s++) {
        uint64_t gaps = ~(home >> s) & SUIT_BITS;
        f |= (uint64_t)(gaps ? __builtin_ctzll(gaps) / 4 : 13) << (4 * s);
    }
    b.w[0] = f | moved << 16; /* 16 + 52 bits */
    b.w[1] = moved >> 48;
    b.nbits = 16 + NCARDS;
    while (moved) {
        int c = __builtin_ctzll(moved);
        moved &= moved - 1;
        uint8_t code = d->code[c][k[c]];
        if (code == NONE)
            return -1;
        bits_put(&b, code, d->bits[c]);
    }
    int nbytes = (b.nbits + 7) / 8;
    if (nbytes > PACK_MAX)
        return -1;
    memcpy(out, b.w, (size_t)((nbytes + 7) & ~7));
    return nbytes;
}

/* The key of a compact form: the inverse of delta_pack. */
static void delta_unpack(const Delta *d, const uint8_t *form, int n, uint8_t *k)
{
    uint64_t w[PACK_MAX / 8 + 2] = {0};
    memcpy(w, form, (size_t)n);
    uint64_t f = w[0] & 0xffff;
    uint64_t moved = ((w[0] >> 16) | (w[1] << 48)) & ((1ULL << NCARDS) - 1);
    int at = 16 + NCARDS;
    for (int c = 0; c < NCARDS; c++) {
        if ((c >> 2) < (int)((f >> (4 * (c & 3))) & 15)) {
            k[c] = HOME;
        } else if (moved >> c & 1) {
            int nb = d->bits[c], i = at >> 6, o = at & 63;
            uint64_t v = w[i] >> o;
            if (o && o + nb > 64)
                v |= w[i + 1] << (64 - o);
            k[c] = d->place[c][v & ((1u << nb) - 1)];
            at += nb;
        } else {
            k[c] = d->root[c];
        }
    }
}

static inline uint64_t pack_hash(const uint8_t *p, int n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n;
    for (int i = 0; i < n; i += 8) {
        uint64_t x = 0; /* a stored form is not padded: read its bytes only */
        memcpy(&x, p + i, (size_t)(n - i < 8 ? n - i : 8));
        h = (h ^ x) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 29;
    }
    h *= 0x94D049BB133111EBULL;
    return h ^ (h >> 32);
}

/* The set of positions seen: compact forms in an arena of chunks (a form
 * never moves), found through an open-addressing table of 64-bit slots that
 * hold 24 bits of the hash and the form's place in the arena. */
typedef struct {
    uint8_t **chunks;
    size_t nchunks, capchunks, used; /* bytes used in the last chunk */
    uint64_t *slots;
    uint64_t mask, n;
    Budget *budget;
} PackSet;

#define TAG_SHIFT 40
#define OFF_MASK ((1ULL << TAG_SHIFT) - 1)

static int packset_init(PackSet *s, Budget *b) { return TABLE_INIT(s, b, 12); }

static void packset_free(PackSet *s)
{
    for (size_t i = 0; i < s->nchunks; i++)
        budget_free(s->budget, s->chunks[i], ARENA_CHUNK);
    budget_free(s->budget, s->chunks, s->capchunks * sizeof(uint8_t *));
    budget_free(s->budget, s->slots, (s->mask + 1) * sizeof(uint64_t));
    memset(s, 0, sizeof *s);
}

static inline const uint8_t *packset_at(const PackSet *s, uint64_t off)
{
    return s->chunks[off / ARENA_CHUNK] + off % ARENA_CHUNK;
}

/* A set's slot: the hash of the form it points at. */
static uint64_t packset_slot_hash(const void *owner, uint64_t v)
{
    const uint8_t *rec = packset_at(owner, (v & OFF_MASK) - 1);
    return pack_hash(rec + 1, rec[0]);
}

static int packset_grow(PackSet *s)
{
    return table_grow(s->budget, &s->slots, &s->mask, packset_slot_hash, s);
}

/* Add the form ``p`` (``n`` bytes, hash ``h``; its place in the arena in
 * ``where``): 1 if it is new, 0 if it was there, -1
 * when memory ran out. */
static int packset_add(PackSet *s, const uint8_t *p, int n, uint64_t h, uint64_t *where)
{
    uint64_t tag = (h >> TAG_SHIFT) << TAG_SHIFT;
    uint64_t j = h & s->mask;
    for (;;) {
        uint64_t v = s->slots[j];
        if (!v)
            break;
        if ((v & ~OFF_MASK) == tag) {
            const uint8_t *rec = packset_at(s, (v & OFF_MASK) - 1);
            if (rec[0] == n && memcmp(rec + 1, p, (size_t)n) == 0)
                return 0;
        }
        j = (j + 1) & s->mask;
    }
    if (!s->nchunks || s->used + (size_t)n + 1 > ARENA_CHUNK) {
        if (s->nchunks == s->capchunks) {
            size_t nc = s->capchunks ? s->capchunks * 2 : 16;
            uint8_t **grown = budget_realloc(s->budget, s->chunks,
                                             s->capchunks * sizeof(uint8_t *),
                                             nc * sizeof(uint8_t *));
            if (!grown)
                return -1;
            s->chunks = grown;
            s->capchunks = nc;
        }
        uint8_t *chunk = budget_alloc(s->budget, ARENA_CHUNK);
        if (!chunk)
            return -1;
        s->chunks[s->nchunks++] = chunk;
        s->used = 0;
    }
    uint64_t off = (uint64_t)(s->nchunks - 1) * ARENA_CHUNK + s->used;
    if (off + 1 > OFF_MASK)
        return -1;
    uint8_t *rec = s->chunks[s->nchunks - 1] + s->used;
    rec[0] = (uint8_t)n;
    memcpy(rec + 1, p, (size_t)n);
    s->used += (size_t)n + 1;
    s->slots[j] = tag | (off + 1);
    s->n++;
    *where = off;
    /* grow at 3/4 full; where memory does not allow it, fill on to 9/10 */
    if (s->n * 4 > (s->mask + 1) * 3 && packset_grow(s) < 0) {
        if (s->n * 10 > (s->mask + 1) * 9) {
            s->n--; /* keep the table below full: undo, and report the memory */
            s->slots[j] = 0;
            return -1;
        }
        s->budget->limit = 0; /* not a limit yet: the table takes more */
    }
    return 1;
}

/* A move of the exhaustive search's winning line. */
typedef struct {
    uint8_t card, count, dest;
} Step;

static int grow_array(Budget *b, void **arr, size_t *cap, size_t need, size_t item)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 256;
    while (nc < need)
        nc *= 2;
    void *grown = budget_realloc(b, *arr, *cap * item, nc * item);
    if (!grown)
        return -1;
    *arr = grown;
    *cap = nc;
    return 0;
}

/* A position on the search's path: its place in the set of positions seen,
 * the move that made it, and its new children (a run of ``pend``, best first)
 * with how many of them the search has gone into. */
typedef struct {
    uint64_t at;
    size_t first, n, next;
    int expanded;
    uint8_t card, count, dest;
} Frame;

/* A child that was new when its parent was expanded: it is in the set of
 * positions seen already, and is expanded when the search goes into it. */
typedef struct {
    uint64_t at;
    uint8_t card, count, dest;
} Pending;

/* Depth first from ``root`` (closed): every position reachable under the
 * pruning rules, each expanded once, the children of each tried best first by
 * the heuristic. A position's children are all packed and looked up in the
 * set of positions seen when it is expanded (their table slots fetched from
 * memory together), and the new ones enter the set at once; the search keeps
 * only its path and, for each position on it, the places of its new children
 * not yet gone into, so the memory is the set of positions seen and little
 * else. ST_WIN leaves the winning line in ``line`` (its steps' moves),
 * ST_EXHAUSTED proves the position lost, ST_LIMIT/ST_ERROR stop. */
static int exhaust(const Rules *r, const Weights *w, Budget *b, const uint8_t *root,
                   Step **line, size_t *nline, size_t *peak)
{
    Delta d;
    delta_init(&d, r, root);
    PackSet seen;
    memset(&seen, 0, sizeof seen); /* freed as empty if the buffers fail */
    Frame *path = NULL;
    Pending *pend = NULL;
    size_t depth = 0, cap = 0, npend = 0, cappend = 0;
    /* a position's children, and their compact forms, sizes and hashes */
    Child *kids = budget_alloc(b, MAXCHILD * sizeof(Child));
    uint8_t *forms = budget_alloc(b, (size_t)MAXCHILD * (PACK_MAX + 8));
    int order[MAXCHILD], sizes[MAXCHILD];
    uint64_t hashes[MAXCHILD];
    Pos pos;
    int status = ST_EXHAUSTED;
    uint64_t at = 0;
    *line = NULL;
    *nline = 0;
    if (!kids || !forms || packset_init(&seen, b) < 0) {
        status = ST_LIMIT;
        goto done;
    }
    int n = delta_pack(&d, root, forms);
    if (n < 0 || packset_add(&seen, forms, n, pack_hash(forms, n), &at) < 0 ||
        grow_array(b, (void **)&path, &cap, 1, sizeof(Frame)) < 0) {
        status = n < 0 ? ST_ERROR : ST_LIMIT;
        goto done;
    }
    memset(&path[0], 0, sizeof path[0]);
    path[0].at = at;
    path[0].card = NONE;
    depth = 1;
    while (depth) {
        Frame *top = &path[depth - 1];
        if (!top->expanded) {
            if (!(b->states & 255) && budget_check(b)) {
                status = ST_LIMIT;
                goto done;
            }
            b->states++;
            uint8_t key[NCARDS];
            const uint8_t *rec = packset_at(&seen, top->at);
            delta_unpack(&d, rec + 1, rec[0], key);
            if (decode(r, w, key, &pos) < 0) {
                status = ST_ERROR;
                goto done;
            }
            int nk = generate(r, w, key, 0, &pos, pos_h(w, &pos), kids);
            for (int t = 0; t < nk; t++) {
                if (kids[t].win) {
                    /* the line: the move into each step of the path, then this */
                    Step *out = budget_alloc(b, depth * sizeof(Step));
                    if (!out) {
                        status = ST_LIMIT;
                        goto done;
                    }
                    for (size_t i = 1; i < depth; i++) {
                        out[i - 1].card = path[i].card;
                        out[i - 1].count = path[i].count;
                        out[i - 1].dest = path[i].dest;
                    }
                    out[depth - 1].card = kids[t].card;
                    out[depth - 1].count = kids[t].count;
                    out[depth - 1].dest = kids[t].dest;
                    *line = out;
                    *nline = depth;
                    status = ST_WIN;
                    goto done;
                }
                /* insertion by heuristic, stable: the same order every time */
                int u = t;
                while (u > 0 && kids[order[u - 1]].h > kids[t].h) {
                    order[u] = order[u - 1];
                    u--;
                }
                order[u] = t;
            }
            /* every child packed and its slot fetched, then all looked up */
            for (int t = 0; t < nk; t++) {
                uint8_t *f = forms + (size_t)t * (PACK_MAX + 8);
                sizes[t] = delta_pack(&d, kids[order[t]].key, f);
                if (sizes[t] < 0) {
                    status = ST_ERROR;
                    goto done;
                }
                hashes[t] = pack_hash(f, sizes[t]);
                __builtin_prefetch(&seen.slots[hashes[t] & seen.mask]);
            }
            if (grow_array(b, (void **)&pend, &cappend, npend + (size_t)nk, sizeof(Pending)) < 0) {
                status = ST_LIMIT;
                goto done;
            }
            top = &path[depth - 1];
            top->first = npend;
            for (int t = 0; t < nk; t++) {
                int added = packset_add(&seen, forms + (size_t)t * (PACK_MAX + 8), sizes[t],
                                        hashes[t], &at);
                if (added < 0) {
                    b->limit = LIM_MEMORY;
                    status = ST_LIMIT;
                    goto done;
                }
                if (!added)
                    continue;
                const Child *ch = &kids[order[t]];
                Pending *pd = &pend[npend++];
                pd->at = at;
                pd->card = ch->card;
                pd->count = ch->count;
                pd->dest = ch->dest;
            }
            top->n = npend - top->first;
            top->next = 0;
            top->expanded = 1;
        }
        if (top->next < top->n) {
            const Pending pd = pend[top->first + top->next++];
            if (grow_array(b, (void **)&path, &cap, depth + 1, sizeof(Frame)) < 0) {
                status = ST_LIMIT;
                goto done;
            }
            Frame *st = &path[depth++];
            memset(st, 0, sizeof *st);
            st->at = pd.at;
            st->card = pd.card;
            st->count = pd.count;
            st->dest = pd.dest;
        } else {
            npend = top->first;
            depth--;
        }
    }
done:
    *peak = b->bytes;
    if (status == ST_LIMIT && !b->limit)
        b->limit = LIM_MEMORY;
    budget_free(b, path, cap * sizeof(Frame));
    budget_free(b, pend, cappend * sizeof(Pending));
    budget_free(b, kids, MAXCHILD * sizeof(Child));
    budget_free(b, forms, (size_t)MAXCHILD * (PACK_MAX + 8));
    packset_free(&seen);
    return status;
}

/* exhaust(columns, cells, ncells, build, can_fill, supermoves, weights,
 *         max_states, timeout, max_memory_mb)
 * -> (status, limit, states, line, peak_bytes), as solve() gives them: the
 * depth-first search of every reachable position, for proofs of loss that
 * need more positions than the portfolio's records hold. */
static PyObject *py_exhaust(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *columns, *cells, *weights_t;
    int ncells, build, can_fill, supermoves;
    long long max_states, max_mb;
    double timeout;
    if (!PyArg_ParseTuple(args, "OOiiiiOLdL", &columns, &cells, &ncells, &build, &can_fill,
                          &supermoves, &weights_t, &max_states, &timeout, &max_mb))
        return NULL;
    Rules r;
    Weights w;
    uint8_t root[NCARDS];
    if (search_args(&r, &w, root, columns, cells, ncells, build, can_fill, supermoves,
                    weights_t) < 0)
        return NULL;
    Budget b;
    budget_start(&b, max_states, timeout, max_mb);
    exhaustive_rules(&r);
    int fnd[4];
    foundations(root, fnd);
    Step *moves = NULL;
    size_t nmoves = 0, peak = 0;
    int status;
    b.ts = PyEval_SaveThread();
    if (close_key(&r, root, fnd) == NCARDS)
        status = ST_WIN;
    else
        status = exhaust(&r, &w, &b, root, &moves, &nmoves, &peak);
    int interrupted = b.limit == LIM_INTERRUPT;
    PyEval_RestoreThread(b.ts);
    b.ts = NULL;
    PyObject *line = NULL;
    if (status == ST_WIN && !interrupted) {
        line = PyList_New((Py_ssize_t)nmoves);
        for (size_t i = 0; line && i < nmoves; i++) {
            PyObject *t = move_tuple(moves[i].card, moves[i].count, dest_code(moves[i].dest));
            if (!t) {
                Py_CLEAR(line);
                break;
            }
            PyList_SET_ITEM(line, (Py_ssize_t)i, t);
        }
    }
    budget_free(&b, moves, nmoves * sizeof(Step));
    return search_result(status, interrupted, &b, line, peak);
}

/* ------------------------------------------------------------------------- */
/* a winning line in card terms, played on the board's own columns and cells  */

/* Moves on the board's own places: columns 0..12, cells 100 + i, the
 * foundation 200. */
typedef struct {
    uint8_t src, dst, count;
} PMove;

typedef struct {
    PMove *v;
    size_t n, cap;
} PMoves;

static int pm_push(PMoves *m, int src, int dst, int count)
{
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 256;
        PMove *nv = realloc(m->v, nc * sizeof(PMove));
        if (!nv) {
            PyErr_NoMemory();
            return -1;
        }
        m->v = nv;
        m->cap = nc;
    }
    m->v[m->n++] = (PMove){(uint8_t)src, (uint8_t)dst, (uint8_t)count};
    return 0;
}

static PyObject *pm_list(const PMoves *m)
{
    PyObject *lst = PyList_New((Py_ssize_t)m->n);
    for (size_t i = 0; lst && i < m->n; i++) {
        PyObject *t = Py_BuildValue("(iii)", m->v[i].src, m->v[i].dst, m->v[i].count);
        if (!t) {
            Py_CLEAR(lst);
            break;
        }
        PyList_SET_ITEM(lst, (Py_ssize_t)i, t);
    }
    return lst;
}

typedef struct {
    const Rules *r;
    int ncols, ncells;
    uint8_t cols[MAXCOLS][MAXLEN];
    int len[MAXCOLS];
    int cells[MAXCELLS];
    int fnd[4];
    PMoves moves, singles;
} Sim;

#define P_CELL 100
#define P_FOUNDATION 200

/* Move one card (the line is replayed by the rules engine afterwards; here
 * only what keeps this copy consistent is checked). */
static int sim_single(Sim *m, int src, int dst)
{
    int card;
    if (src >= P_CELL) {
        card = m->cells[src - P_CELL];
        m->cells[src - P_CELL] = -1;
    } else {
        if (m->len[src] == 0)
            goto bad;
        card = m->cols[src][--m->len[src]];
    }
    if (card < 0)
        goto bad;
    if (dst == P_FOUNDATION)
        m->fnd[card & 3]++;
    else if (dst >= P_CELL) {
        if (m->cells[dst - P_CELL] >= 0)
            goto bad;
        m->cells[dst - P_CELL] = card;
    } else {
        if (m->len[dst] >= MAXLEN)
            goto bad;
        m->cols[dst][m->len[dst]++] = (uint8_t)card;
    }
    return pm_push(&m->singles, src, dst, 1);
bad:
    PyErr_SetString(PyExc_RuntimeError, "the line does not fit the position");
    return -1;
}

static int sim_home(Sim *m, int src)
{
    if (pm_push(&m->moves, src, P_FOUNDATION, 1) < 0)
        return -1;
    return sim_single(m, src, P_FOUNDATION);
}

/* Safe cards home, column by column and then cell by cell, until none is
 * left (the closure the search applies after every move). */
static int sim_autoplay(Sim *m)
{
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int j = 0; j < m->ncols; j++)
            while (m->len[j]) {
                int c = m->cols[j][m->len[j] - 1];
                if (!ready(m->fnd, c) || !is_safe(m->r, m->fnd, c))
                    break;
                if (sim_home(m, j) < 0)
                    return -1;
                changed = 1;
            }
        for (int i = 0; i < m->ncells; i++) {
            int c = m->cells[i];
            if (c >= 0 && ready(m->fnd, c) && is_safe(m->r, m->fnd, c)) {
                if (sim_home(m, P_CELL + i) < 0)
                    return -1;
                changed = 1;
            }
        }
    }
    return 0;
}

/* A run of n cards as single moves: through the free cells, and by parking
 * part of it in an empty column (the standard recursion). */
static int sim_run(Sim *m, int n, int src, int dst, const int *freec, int nfree, const int *empties,
                   int nempty)
{
    if (n <= nfree + 1) {
        for (int t = 0; t < n - 1; t++)
            if (sim_single(m, src, P_CELL + freec[t]) < 0)
                return -1;
        if (sim_single(m, src, dst) < 0)
            return -1;
        for (int t = n - 2; t >= 0; t--)
            if (sim_single(m, P_CELL + freec[t], dst) < 0)
                return -1;
        return 0;
    }
    if (nempty < 1) {
        PyErr_SetString(PyExc_RuntimeError, "a run too long for the spaces");
        return -1;
    }
    int spare = empties[0];
    long part = (long)(nfree + 1) << (nempty - 1);
    if (part > n - 1)
        part = n - 1;
    if (sim_run(m, (int)part, src, spare, freec, nfree, empties + 1, nempty - 1) < 0 ||
        sim_run(m, n - (int)part, src, dst, freec, nfree, empties + 1, nempty - 1) < 0 ||
        sim_run(m, (int)part, spare, dst, freec, nfree, empties + 1, nempty - 1) < 0)
        return -1;
    return 0;
}

static int sim_play(Sim *m, int card, int count, int dest)
{
    int src = -1;
    for (int i = 0; i < m->ncells && src < 0; i++)
        if (m->cells[i] == card)
            src = P_CELL + i;
    for (int j = 0; j < m->ncols && src < 0; j++)
        if (m->len[j] >= count && m->cols[j][m->len[j] - count] == card)
            src = j;
    int dst = -1;
    if (dest == -1)
        dst = P_FOUNDATION;
    else if (dest == -2) {
        for (int i = 0; i < m->ncells && dst < 0; i++)
            if (m->cells[i] < 0)
                dst = P_CELL + i;
    } else if (dest == -3) {
        for (int j = 0; j < m->ncols && dst < 0; j++)
            if (!m->len[j] && j != src)
                dst = j;
    } else {
        for (int j = 0; j < m->ncols && dst < 0; j++)
            if (m->len[j] && m->cols[j][m->len[j] - 1] == dest)
                dst = j;
    }
    if (src < 0 || dst < 0 || (count > 1 && (src >= P_CELL || dst >= P_CELL))) {
        PyErr_SetString(PyExc_RuntimeError, "the line does not fit the position");
        return -1;
    }
    if (pm_push(&m->moves, src, dst, count) < 0)
        return -1;
    if (count == 1)
        return sim_single(m, src, dst);
    int freec[MAXCELLS], empties[MAXCOLS], nfree = 0, nempty = 0;
    for (int i = 0; i < m->ncells; i++)
        if (m->cells[i] < 0)
            freec[nfree++] = i;
    for (int j = 0; j < m->ncols; j++)
        if (!m->len[j] && j != dst)
            empties[nempty++] = j;
    return sim_run(m, count, src, dst, freec, nfree, empties, nempty);
}

/* Play ``line`` from the position ``pl`` (which is left as it is) into
 * ``m``: its moves and single-card moves, with the safe foundation moves
 * after each move. The caller frees ``m->moves.v`` and ``m->singles.v``. */
static int sim_line(Sim *m, const Rules *r, const Placed *pl, const CMove *line, size_t n)
{
    memset(m, 0, sizeof *m);
    m->r = r;
    m->ncols = r->ncols;
    m->ncells = r->ncells;
    memcpy(m->cols, pl->cols, sizeof m->cols);
    memcpy(m->len, pl->len, sizeof m->len);
    memcpy(m->cells, pl->cell, sizeof m->cells);
    foundations(pl->key, m->fnd);
    if (sim_autoplay(m) < 0)
        return -1;
    for (size_t t = 0; t < n; t++) {
        const CMove *mv = &line[t];
        if (mv->card < 0 || mv->card >= NCARDS || mv->count < 1 || mv->count > NCARDS ||
            mv->dest < -3 || mv->dest >= NCARDS) {
            PyErr_SetString(PyExc_ValueError, "a move of the line is out of range");
            return -1;
        }
        if (sim_play(m, mv->card, mv->count, mv->dest) < 0 || sim_autoplay(m) < 0)
            return -1;
    }
    return 0;
}

static void sim_free(Sim *m)
{
    free(m->moves.v);
    free(m->singles.v);
    m->moves.v = m->singles.v = NULL;
}

/* An independent check of a line of single-card moves, as sim_line writes
 * them: every move is legal under the rules, straight from their statement
 * (shares no code with the search or sim_line but the build table), and the
 * last leaves all 52 cards home. Plays on ``pl``. */
static int check_singles(const Rules *r, Placed *pl, const PMove *line, size_t n)
{
    const int ncols = r->ncols, ncells = r->ncells;
    uint8_t(*cols)[MAXLEN] = pl->cols;
    int *len = pl->len;
    int *cell = pl->cell;
    int fnd[4];
    foundations(pl->key, fnd);
    for (size_t t = 0; t < n; t++) {
        int src = line[t].src, dst = line[t].dst;
        int card, ok;
        /* take the card */
        if (src >= P_CELL && src < P_CELL + ncells) {
            card = cell[src - P_CELL];
            if (card < 0 || (dst >= P_CELL && dst < P_FOUNDATION))
                return 0; /* an empty cell, or cell to cell */
        } else if (src >= 0 && src < ncols) {
            if (!len[src])
                return 0;
            card = cols[src][len[src] - 1];
        } else {
            return 0;
        }
        /* where it goes */
        if (dst == P_FOUNDATION) {
            ok = fnd[card & 3] == card / 4;
        } else if (dst >= P_CELL && dst < P_CELL + ncells) {
            ok = cell[dst - P_CELL] < 0;
        } else if (dst >= 0 && dst < ncols && dst != src) {
            ok = len[dst] ? r->builds[card][cols[dst][len[dst] - 1]] : r->can_fill;
            ok = ok && len[dst] < MAXLEN;
        } else {
            ok = 0;
        }
        if (!ok)
            return 0;
        if (src >= P_CELL)
            cell[src - P_CELL] = -1;
        else
            len[src]--;
        if (dst == P_FOUNDATION)
            fnd[card & 3]++;
        else if (dst >= P_CELL)
            cell[dst - P_CELL] = card;
        else
            cols[dst][len[dst]++] = (uint8_t)card;
    }
    return fnd[0] == 13 && fnd[1] == 13 && fnd[2] == 13 && fnd[3] == 13;
}

/* The winning line from ``s``'s record ``end`` (NULL: the root was won)
 * played from ``pl`` and checked by check_singles: (moves, single-card
 * moves, player moves, whether it checked). A line that does not play counts
 * as one that does not check. */
static PyObject *checked_line(const Rules *r, Placed *pl, Store *s, uint32_t end)
{
    size_t n = 0;
    CMove *path = s ? path_from(s, end, &n) : malloc(sizeof(CMove));
    if (!path)
        return PyErr_NoMemory();
    Sim m;
    int ok = sim_line(&m, r, pl, path, n) == 0;
    if (!ok && PyErr_ExceptionMatches(PyExc_MemoryError)) {
        sim_free(&m);
        free(path);
        return NULL;
    }
    PyErr_Clear();
    ok = ok && check_singles(r, pl, m.singles.v, m.singles.n);
    size_t player = 0;
    for (size_t i = 0; i < m.moves.n; i++)
        player += m.moves.v[i].dst != P_FOUNDATION;
    PyObject *res = Py_BuildValue("(nnnO)", (Py_ssize_t)m.moves.n, (Py_ssize_t)m.singles.n,
                                  (Py_ssize_t)player, ok ? Py_True : Py_False);
    sim_free(&m);
    free(path);
    return res;
}

/* solve() and solve_checked() */
static PyObject *solve_common(PyObject *args, int checked)
{
    PyObject *columns, *cells, *weights_t, *beams_t, *beam_w_t, *rival_t;
    int ncells, build, can_fill, supermoves;
    long long first_stage, middle_stage, max_states;
    double timeout;
    long long max_mb;
    if (!PyArg_ParseTuple(args, "OOiiiiOLLOOOLdL", &columns, &cells, &ncells, &build, &can_fill,
                          &supermoves, &weights_t, &first_stage, &middle_stage, &beams_t,
                          &beam_w_t, &rival_t, &max_states, &timeout, &max_mb))
        return NULL;
    Rival rv;
    int has_rival = rival_t != Py_None;
    if (has_rival) {
        PyObject *rw_t;
        if (!PyArg_ParseTuple(rival_t, "OLLLL", &rw_t, &rv.head, &rv.q_main, &rv.q_rival,
                              &rv.limit) ||
            parse_weights(rw_t, &rv.w) < 0)
            return NULL;
        if (rv.head < 0 || rv.q_main < 1 || rv.q_rival < 1 || rv.limit < 1) {
            PyErr_SetString(PyExc_ValueError, "a rival's turns must be positive");
            return NULL;
        }
    }
    Rules r;
    Weights w;
    uint8_t root[NCARDS];
    Placed pl;
    if (checked) {
        if (!PyBytes_Check(cells)) {
            PyErr_SetString(PyExc_TypeError, "cells must be bytes, one a cell");
            return NULL;
        }
        if (rules_for(&r, columns, ncells, build, can_fill, supermoves) < 0 ||
            parse_weights(weights_t, &w) < 0 ||
            parse_placed(&r, columns, PyBytes_AS_STRING(cells), PyBytes_GET_SIZE(cells), &pl) < 0)
            return NULL;
        memcpy(root, pl.key, NCARDS);
    } else if (search_args(&r, &w, root, columns, cells, ncells, build, can_fill, supermoves,
                           weights_t) < 0) {
        return NULL;
    }
    int nbw = 0;
    int widths[32];
    long long sel[32];
    Weights bws[8];
    int nbeams = parse_stages(beams_t, widths, sel, 32);
    if (nbeams < 0)
        return NULL;
    PyObject *wseq = PySequence_Fast(beam_w_t, "beam weights must be a sequence");
    if (!wseq)
        return NULL;
    nbw = (int)PySequence_Fast_GET_SIZE(wseq);
    if (nbw > 8 || (nbeams && nbw < 1)) {
        Py_DECREF(wseq);
        PyErr_SetString(PyExc_ValueError, "1 to 8 beam weights");
        return NULL;
    }
    for (int i = 0; i < nbw; i++)
        if (parse_weights(PySequence_Fast_GET_ITEM(wseq, i), &bws[i]) < 0) {
            Py_DECREF(wseq);
            return NULL;
        }
    Py_DECREF(wseq);
    for (int i = 0; i < nbeams; i++)
        if (widths[i] && sel[i] >= nbw) {
            PyErr_SetString(PyExc_ValueError, "a beam stage names no beam weights");
            return NULL;
        }

    Budget b;
    budget_start(&b, max_states, timeout, max_mb);

    Child *kids = malloc(MAXCHILD * sizeof(Child));
    if (!kids)
        return PyErr_NoMemory();
    int fnd[4];
    foundations(root, fnd);
    int status = ST_EXHAUSTED;
    PyObject *line = NULL;
    Store beam_store;
    memset(&beam_store, 0, sizeof beam_store);
    uint32_t win = 0;
    Store *win_store = NULL;
    BestFirst bf, rbf;
    memset(&bf, 0, sizeof bf);
    memset(&rbf, 0, sizeof rbf);
    BestFirst *which = &bf; /* the best-first search a win comes from (NULL: a beam) */
    size_t peak = 0;

    b.ts = PyEval_SaveThread();
    int home = close_key(&r, root, fnd);
    if (home == NCARDS) {
        status = ST_WIN;
    } else if (bf_init(&bf, &r, &w, &b, root, key_h(&r, &w, root)) < 0 ||
               (has_rival && bf_init(&rbf, &r, &rv.w, &b, root, key_h(&r, &rv.w, root)) < 0)) {
        status = ST_LIMIT;
        if (!b.limit)
            b.limit = LIM_MEMORY;
    } else {
        long long stop = first_stage >= 0 ? first_stage : (1LL << 62);
        if (max_states >= 0 && stop > max_states)
            stop = max_states;
        status = has_rival ? bf_duel(&bf, &rbf, &rv, &b, stop, kids, &which)
                           : bf_run(&bf, &b, stop, kids);
        if (status == ST_STAGE && has_rival) {
            if (b.bytes > peak)
                peak = b.bytes;
            bf_free(&rbf, &b); /* the later stages go on with the main search */
            which = &bf;
        }
        if (status == ST_STAGE) {
            for (int i = 0; i < nbeams && status == ST_STAGE; i++) {
                if (widths[i] == 0) {
                    /* the complete search resumed for a while between beams */
                    long long more = sel[i] >= 0 ? sel[i] : middle_stage;
                    long long until = b.states + (more > 0 ? more : 0);
                    if (max_states >= 0 && until > max_states)
                        until = max_states;
                    status = bf_run(&bf, &b, until, kids);
                    if (status == ST_STAGE && max_states >= 0 && b.states >= max_states) {
                        status = ST_LIMIT;
                        b.limit = LIM_STATES;
                    }
                    continue;
                }
                int k0 = sel[i] >= 0 ? (int)sel[i] : 0, k1 = sel[i] >= 0 ? k0 + 1 : nbw;
                for (int k = k0; k < k1; k++) {
                    int st = beam(&r, &bws[k], &b, root, widths[i], &beam_store, &win, kids);
                    if (b.bytes > peak)
                        peak = b.bytes;
                    if (st == ST_WIN) {
                        status = ST_WIN;
                        win_store = &beam_store;
                        which = NULL;
                        break;
                    }
                    store_free(&beam_store);
                    if (st == ST_LIMIT || st == ST_ERROR) {
                        status = st;
                        break;
                    }
                }
            }
            if (status == ST_STAGE) {
                long long rest = max_states >= 0 ? max_states : (1LL << 62);
                status = bf_run(&bf, &b, rest, kids);
                if (status == ST_STAGE)
                    status = ST_LIMIT, b.limit = LIM_STATES;
            }
        } else if (status == ST_LIMIT && !b.limit) {
            b.limit = LIM_MEMORY;
        }
        if (status == ST_WIN && which) {
            win = which->win;
            win_store = &which->store;
        }
    }
    if (b.bytes > peak)
        peak = b.bytes;
    int interrupted = b.limit == LIM_INTERRUPT;
    PyEval_RestoreThread(b.ts);
    b.ts = NULL;

    if (status == ST_WIN && checked)
        line = checked_line(&r, &pl, win_store, win);
    else if (status == ST_WIN)
        line = win_store ? line_from(win_store, win) : PyList_New(0);
    store_free(&beam_store);
    bf_free(&rbf, &b);
    bf_free(&bf, &b);
    free(kids);
    return search_result(status, interrupted, &b, line, peak);
}

/* solve(columns, cells, ncells, build, can_fill, supermoves, weights,
 *       first_stage, middle_stage, beams, beam_weights, rival, max_states,
 *       timeout, max_memory_mb)
 * -> (status, limit, states, line, peak_bytes)
 * rival: None or (weights, head, main_turn, turn, limit) (see Rival);
 * status: "winnable", "impossible" or "unknown"; limit: "states", "timeout",
 * "memory" or None; line: [(card, count, dest)], dest a card or -1
 * (foundation), -2 (cell), -3 (empty column). */
static PyObject *py_solve(PyObject *self, PyObject *args)
{
    (void)self;
    return solve_common(args, 0);
}

/* solve_checked(): solve() on a position given with one byte a cell in the
 * board's own order (as play_line takes it), and in place of the line,
 * (moves, single-card moves, player moves, checked): the line played by
 * play_line's code and checked by check_line's, with no list in between. */
static PyObject *py_solve_checked(PyObject *self, PyObject *args)
{
    (void)self;
    return solve_common(args, 1);
}

/* children(columns, cells, ncells, build, can_fill, supermoves[, weights
 *          [, exhaustive]])
 * -> list of (key, card, count, dest, h): the children the search generates
 * (closure applied; with ``exhaustive``, the exhaustive search's), h their
 * heuristic under ``weights`` (None or left out: all 1, no need term). */
static PyObject *py_children(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *columns, *cells, *weights_t = NULL;
    int ncells, build, can_fill, supermoves, exhaustive = 0;
    if (!PyArg_ParseTuple(args, "OOiiii|Op", &columns, &cells, &ncells, &build, &can_fill,
                          &supermoves, &weights_t, &exhaustive))
        return NULL;
    Rules r;
    if (rules_for(&r, columns, ncells, build, can_fill, supermoves) < 0)
        return NULL;
    if (exhaustive)
        exhaustive_rules(&r);
    Weights w = {1, 1, 1, 1, 1, 1, 0};
    if (weights_t && weights_t != Py_None && parse_weights(weights_t, &w) < 0)
        return NULL;
    uint8_t key[NCARDS];
    if (parse_position(&r, columns, cells, key, 0, NULL, NULL) < 0)
        return NULL;
    Pos pos;
    if (decode(&r, &w, key, &pos) < 0) {
        PyErr_SetString(PyExc_ValueError, "malformed position");
        return NULL;
    }
    Child *kids = malloc(MAXCHILD * sizeof(Child));
    if (!kids)
        return PyErr_NoMemory();
    int n = generate(&r, &w, key, hash_key(key), &pos, pos_h(&w, &pos), kids);
    PyObject *out = PyList_New(n);
    if (!out) {
        free(kids);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *t = Py_BuildValue("(y#iiii)", (const char *)kids[i].key, (Py_ssize_t)NCARDS,
                                    (int)kids[i].card, (int)kids[i].count, (int)kids[i].dest,
                                    kids[i].h);
        if (!t) {
            Py_DECREF(out);
            free(kids);
            return NULL;
        }
        PyList_SET_ITEM(out, i, t);
    }
    free(kids);
    return out;
}

/* legal_moves(columns, cells_by_place, ncells, build, can_fill, supermoves)
 * -> every legal single-card move in board coordinates, as (src, dst):
 * columns 0..12, cells 100..107, foundation 200. cells_by_place holds one
 * byte a cell, 255 for an empty one. Uses the search's own tables and
 * predicates (builds, ready). */
static PyObject *py_legal_moves(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *columns;
    const char *cb;
    Py_ssize_t ncb;
    int ncells, build, can_fill, supermoves;
    if (!PyArg_ParseTuple(args, "Oy#iiii", &columns, &cb, &ncb, &ncells, &build, &can_fill,
                          &supermoves))
        return NULL;
    Rules r;
    Placed pl;
    if (rules_for(&r, columns, ncells, build, can_fill, supermoves) < 0 ||
        parse_placed(&r, columns, cb, ncb, &pl) < 0)
        return NULL;
    const int ncols = r.ncols;
    int *lens = pl.len;
    uint8_t(*colmap)[MAXLEN] = pl.cols;
    int fnd[4];
    foundations(pl.key, fnd);
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
#define ADD(s, d)                                                                                  \
    do {                                                                                           \
        PyObject *t_ = Py_BuildValue("(ii)", (s), (d));                                            \
        if (!t_ || PyList_Append(out, t_) < 0) {                                                   \
            Py_XDECREF(t_);                                                                        \
            Py_DECREF(out);                                                                        \
            return NULL;                                                                           \
        }                                                                                          \
        Py_DECREF(t_);                                                                             \
    } while (0)
    for (int i = 0; i < ncols; i++) {
        if (!lens[i])
            continue;
        int c = colmap[i][lens[i] - 1];
        if (ready(fnd, c))
            ADD(i, 200);
        for (int k = 0; k < ncells; k++)
            if ((uint8_t)cb[k] == NONE)
                ADD(i, 100 + k);
        for (int j = 0; j < ncols; j++) {
            if (j == i)
                continue;
            if (lens[j] ? r.builds[c][colmap[j][lens[j] - 1]] : r.can_fill)
                ADD(i, j);
        }
    }
    for (int k = 0; k < ncells; k++) {
        int c = (uint8_t)cb[k];
        if (c == NONE)
            continue;
        if (ready(fnd, c))
            ADD(100 + k, 200);
        for (int j = 0; j < ncols; j++)
            if (lens[j] ? r.builds[c][colmap[j][lens[j] - 1]] : r.can_fill)
                ADD(100 + k, j);
    }
#undef ADD
    return out;
}


/* The position in the board's own order, and the rules, from the arguments
 * play_line and check_line share. */
static int placed_args(PyObject *args, Rules *r, Placed *pl, PyObject **line)
{
    PyObject *columns;
    const char *cb;
    Py_ssize_t ncb;
    int ncells, build, can_fill, supermoves, exhaustive = 0;
    if (!PyArg_ParseTuple(args, "Oy#iiiiO|p", &columns, &cb, &ncb, &ncells, &build, &can_fill,
                          &supermoves, line, &exhaustive))
        return -1;
    if (rules_for(r, columns, ncells, build, can_fill, supermoves) < 0 ||
        parse_placed(r, columns, cb, ncb, pl) < 0)
        return -1;
    if (exhaustive)
        exhaustive_rules(r);
    return 0;
}

/* play_line(columns, cells_by_place, ncells, build, can_fill, supermoves,
 *           line[, exhaustive]) -> (moves, singles)
 * The core's line [(card, count, dest)] played from the position in the
 * board's own order, with the safe foundation moves after each move (those
 * of the exhaustive search's rules with ``exhaustive``): moves
 * as (src, dst, count) and single-card moves as (src, dst, 1); places are
 * columns 0..12, cells 100 + i, foundation 200. */
static PyObject *py_play_line(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *line;
    Rules r;
    Placed pl;
    if (placed_args(args, &r, &pl, &line) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(line, "the line must be a sequence");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    CMove *moves = malloc((size_t)(n ? n : 1) * sizeof(CMove));
    if (!moves) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t t = 0; t < n; t++) {
        CMove *mv = &moves[t];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, t), "iii", &mv->card, &mv->count,
                              &mv->dest)) {
            free(moves);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    Sim m;
    PyObject *res = NULL;
    if (sim_line(&m, &r, &pl, moves, (size_t)n) == 0) {
        PyObject *a = pm_list(&m.moves), *b = a ? pm_list(&m.singles) : NULL;
        if (a && b)
            res = PyTuple_Pack(2, a, b);
        Py_XDECREF(a);
        Py_XDECREF(b);
    }
    sim_free(&m);
    free(moves);
    return res;
}

/* check_line(columns, cells_by_place, ncells, build, can_fill, supermoves,
 *            singles) -> bool
 * check_singles on a line of single-card moves (src, dst, ...), as
 * play_line writes them. */
static PyObject *py_check_line(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *singles;
    Rules r;
    Placed pl;
    if (placed_args(args, &r, &pl, &singles) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(singles, "the line must be a sequence");
    if (!seq)
        return NULL;
    PMoves mv = {NULL, 0, 0};
    int ok = 1;
    for (Py_ssize_t t = 0; t < PySequence_Fast_GET_SIZE(seq) && ok; t++) {
        PyObject *m = PySequence_Fast_GET_ITEM(seq, t);
        if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) < 2) {
            ok = 0;
            break;
        }
        long src = PyLong_AsLong(PyTuple_GET_ITEM(m, 0));
        long dst = PyLong_AsLong(PyTuple_GET_ITEM(m, 1));
        if (PyErr_Occurred()) {
            free(mv.v);
            Py_DECREF(seq);
            return NULL;
        }
        if (src < 0 || src > P_FOUNDATION || dst < 0 || dst > P_FOUNDATION) {
            ok = 0; /* no such place */
            break;
        }
        if (pm_push(&mv, (int)src, (int)dst, 1) < 0) {
            free(mv.v);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    ok = ok && check_singles(&r, &pl, mv.v, mv.n);
    free(mv.v);
    return PyBool_FromLong(ok);
}


/* short(columns, cells, ncells, build, can_fill, supermoves, weights, ub,
 *       widths, prove_share, max_states, timeout, max_mb)
 * -> (line or None, player_moves, optimal, lower_bound, states, limit)
 * Looks for a line of fewer than ``ub`` player moves (the fast search's
 * line has ``ub``): beams of the given widths, with the A* proof between the
 * small and the large ones given ``prove_share`` of the time left; the line
 * is None when nothing shorter was found. ``optimal``: no line shorter than
 * player_moves exists (proven by the A* search running out of positions). */
static PyObject *py_short(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *columns, *cells, *weights_t, *widths_t;
    int ncells, build, can_fill, supermoves, ub;
    double prove_share, timeout;
    long long max_states, max_mb;
    if (!PyArg_ParseTuple(args, "OOiiiiOiOdLdL", &columns, &cells, &ncells, &build, &can_fill,
                          &supermoves, &weights_t, &ub, &widths_t, &prove_share, &max_states,
                          &timeout, &max_mb))
        return NULL;
    Rules r;
    Weights w;
    uint8_t root[NCARDS];
    if (search_args(&r, &w, root, columns, cells, ncells, build, can_fill, supermoves,
                    weights_t) < 0)
        return NULL;
    int widths[32];
    int nw = parse_widths(widths_t, widths, 32);
    if (nw < 0)
        return NULL;
    if (ub < 0 || prove_share < 0 || prove_share > 1) {
        PyErr_SetString(PyExc_ValueError, "bad bound or share");
        return NULL;
    }
    if (ub > MAX_G + 1)
        ub = MAX_G + 1;

    Budget b;
    budget_start(&b, max_states, timeout, max_mb);
    double deadline = b.deadline;
    Child *kids = malloc(MAXCHILD * sizeof(Child));
    if (!kids)
        return PyErr_NoMemory();
    int fnd[4];
    foundations(root, fnd);
    Store best, work;
    memset(&best, 0, sizeof best);
    memset(&work, 0, sizeof work);
    uint32_t win = 0;
    int have = 0, optimal = 0, lower = 0, error = 0;
    b.ts = PyEval_SaveThread();
    if (close_key(&r, root, fnd) == NCARDS) {
        ub = 0;
        optimal = 1;
        lower = 0;
    } else {
        Pos rp;
        if (decode_lb(&r, &w, root, &rp) < 0)
            error = 1;
        else
            lower = rp.lb;
        int proved = 0;
        for (int i = 0; i <= nw && !error && !optimal; i++) {
            int small = i < nw && widths[i] <= 1000;
            if (!proved && (i == nw || !small)) {
                /* the proof, on its share of the time left */
                proved = 1;
                double saved = b.deadline;
                /* a wide gap between the best line and the bound is rarely
                 * closed: the beams get most of the time then */
                double share = ub - lower <= 12 ? prove_share : prove_share * 0.2;
                if (deadline > 0)
                    b.deadline = now_s() + (deadline - now_s()) * share;
                int found = 0, low = lower;
                uint32_t at = 0;
                int st = short_astar(&r, &w, &b, root, &ub, &low, &work, &at, &found, kids);
                if (found) {
                    store_free(&best);
                    best = work;
                    memset(&work, 0, sizeof work);
                    win = at;
                    have = 1;
                } else {
                    store_free(&work);
                }
                if (low > lower)
                    lower = low;
                if (st == ST_EXHAUSTED) {
                    optimal = 1;
                    lower = ub;
                } else if (st == ST_ERROR) {
                    error = 1;
                }
                b.deadline = saved;
                if (b.limit == LIM_TIME && (deadline < 0 || now_s() < deadline))
                    b.limit = 0; /* only the proof's share ran out */
                if (b.limit == LIM_MEMORY)
                    b.limit = 0; /* the beams need far less */
                if (optimal || b.limit)
                    break;
            }
            if (i == nw)
                break;
            uint32_t at = 0;
            int st = layered_beam(&r, &w, &b, root, widths[i], &ub, COST_PLAYER, &work, &at, kids);
            if (st == ST_WIN) {
                store_free(&best);
                best = work;
                memset(&work, 0, sizeof work);
                win = at;
                have = 1;
            } else {
                store_free(&work);
            }
            if (st == ST_ERROR)
                error = 1;
            if (st == ST_LIMIT || lower >= ub)
                break;
        }
        if (lower >= ub)
            optimal = 1, lower = ub;
    }
    int lim = b.limit;
    PyEval_RestoreThread(b.ts);
    b.ts = NULL;
    PyObject *line = NULL;
    if (have)
        line = line_from(&best, win);
    store_free(&best);
    store_free(&work);
    free(kids);
    if (lim == LIM_INTERRUPT) {
        Py_XDECREF(line);
        if (!PyErr_Occurred())
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        return NULL;
    }
    if (error) {
        Py_XDECREF(line);
        PyErr_SetString(PyExc_RuntimeError, "the native core met a malformed position");
        return NULL;
    }
    if (have && !line)
        return NULL;
    PyObject *res = Py_BuildValue("(OiiiLz)", line ? line : Py_None, ub, optimal, lower, b.states,
                                  limit_name(lim));
    Py_XDECREF(line);
    return res;
}

/* deal(number, columns, kings_to_bottom) -> [bytes]: Microsoft deal
 * ``number`` (1 to 2^33 - 1, checked by the caller) dealt cyclically into
 * ``columns`` columns, bottom card first, as card indices; with
 * ``kings_to_bottom`` each column's kings moved beneath its other cards in
 * their order. The same numbers as bakers.deals (tested against it), for
 * surveys of many deals. */
#define DEAL_LIMIT (1ULL << 33) /* deal numbers run from 1 to 2^33 - 1 */

/* Deal ``number`` (checked: 1 to DEAL_LIMIT - 1) into ``ncols`` columns: a
 * list of bytes, one card index a byte, bottom card first. */
static PyObject *deal_columns(unsigned long long number, int ncols, int kings)
{
    uint8_t cards[NCARDS], order[NCARDS];
    for (int c = 0; c < NCARDS; c++)
        cards[c] = (uint8_t)c;
    uint32_t seed;
    int wide = number >= (1ULL << 32);
    uint32_t high = !wide && number >= 0x80000000ULL ? 0x8000 : 0;
    seed = (uint32_t)(wide ? number - (1ULL << 32) : number);
    for (int left = NCARDS; left > 0; left--) {
        seed = seed * 214013u + 2531011u;
        uint32_t rnd = wide ? ((seed >> 16) & 0xFFFF) + 1 : ((seed >> 16) & 0x7FFF) | high;
        int j = (int)(rnd % (uint32_t)left);
        order[NCARDS - left] = cards[j];
        cards[j] = cards[left - 1];
    }
    PyObject *out = PyList_New(ncols);
    for (int i = 0; out && i < ncols; i++) {
        uint8_t col[NCARDS];
        int n = 0;
        for (int pass = kings ? 0 : 1; pass < 2; pass++) /* kings first, then the others */
            for (int t = i; t < NCARDS; t += ncols) {
                int king = order[t] >> 2 == 12;
                if (!kings || king == (pass == 0))
                    col[n++] = order[t];
            }
        PyObject *b = PyBytes_FromStringAndSize((const char *)col, n);
        if (!b) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, b);
    }
    return out;
}

static PyObject *py_deal(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long number;
    int ncols, kings;
    if (!PyArg_ParseTuple(args, "Kip", &number, &ncols, &kings))
        return NULL;
    if (number < 1 || number >= DEAL_LIMIT || ncols < 1 || ncols > MAXCOLS) {
        PyErr_SetString(PyExc_ValueError, "deal number or columns out of range");
        return NULL;
    }
    return deal_columns(number, ncols, kings);
}

/* solve_deals(first, count, ncols, kings, rest): solve_checked() on each of
 * deals first .. first + count - 1, dealt by deal(), with empty cells and
 * ``rest`` the arguments of solve_checked() after the position (the cells
 * first). A list of (solve_checked()'s answer, wall seconds), one per deal:
 * a survey's deals with no Python between them. */
static PyObject *py_solve_deals(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long first;
    long long count;
    int ncols, kings;
    PyObject *rest;
    if (!PyArg_ParseTuple(args, "KLipO!", &first, &count, &ncols, &kings, &PyTuple_Type, &rest))
        return NULL;
    if (first < 1 || count < 0 || count > (1 << 20) || first + (unsigned long long)count > DEAL_LIMIT ||
        ncols < 1 || ncols > MAXCOLS || PyTuple_GET_SIZE(rest) < 1) {
        PyErr_SetString(PyExc_ValueError, "deal numbers, count or columns out of range");
        return NULL;
    }
    long ncells = PyLong_AsLong(PyTuple_GET_ITEM(rest, 0));
    if (ncells == -1 && PyErr_Occurred())
        return NULL;
    if (ncells < 0 || ncells > MAXCELLS) {
        PyErr_SetString(PyExc_ValueError, "cells out of range");
        return NULL;
    }
    char empty[MAXCELLS];
    memset(empty, NONE, sizeof empty);
    PyObject *cells = PyBytes_FromStringAndSize(empty, (Py_ssize_t)ncells);
    PyObject *out = cells ? PyList_New((Py_ssize_t)count) : NULL;
    Py_ssize_t nrest = PyTuple_GET_SIZE(rest);
    for (long long i = 0; out && i < count; i++) {
        PyObject *call = PyTuple_New(2 + nrest);
        PyObject *cols = call ? deal_columns(first + (unsigned long long)i, ncols, kings) : NULL;
        PyObject *answer = NULL;
        double start = now_s();
        if (cols) {
            PyTuple_SET_ITEM(call, 0, cols);
            Py_INCREF(cells);
            PyTuple_SET_ITEM(call, 1, cells);
            for (Py_ssize_t k = 0; k < nrest; k++) {
                PyObject *x = PyTuple_GET_ITEM(rest, k);
                Py_INCREF(x);
                PyTuple_SET_ITEM(call, 2 + k, x);
            }
            answer = solve_common(call, 1);
        }
        Py_XDECREF(call);
        PyObject *item = answer ? Py_BuildValue("(Nd)", answer, now_s() - start) : NULL;
        if (!item) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, item);
    }
    Py_XDECREF(cells);
    return out;
}

static PyMethodDef methods[] = {
    {"deal", py_deal, METH_VARARGS, "A Microsoft deal's columns as card-index bytes."},
    {"solve_deals", py_solve_deals, METH_VARARGS, "solve_checked() on a range of deals."},
    {"solve", py_solve, METH_VARARGS, "Search a position; see bakers.solver.native."},
    {"short", py_short, METH_VARARGS, "Look for a line of fewer player moves."},
    {"exhaust", py_exhaust, METH_VARARGS, "Search every reachable position, depth first."},
    {"children", py_children, METH_VARARGS, "The children the search generates."},
    {"legal_moves", py_legal_moves, METH_VARARGS, "Every legal single-card move."},
    {"solve_checked", py_solve_checked, METH_VARARGS,
     "Solve, then play and check the line: counts only."},
    {"play_line", py_play_line, METH_VARARGS, "A line in card terms as board moves."},
    {"check_line", py_check_line, METH_VARARGS, "Check a line of single-card moves."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "The compiled search core of bakers.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void)
{
    zobrist_init();
    if (!spare_lock && !(spare_lock = PyThread_allocate_lock()))
        return PyErr_NoMemory();
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    if (PyModule_AddIntConstant(m, "RECORD_BYTES", (long)sizeof(Rec)) < 0 ||
        PyModule_AddIntConstant(m, "VERSION", 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
