/* The store of positions: 64-byte records in blocks, an open-addressing
 * table of their hashes, and Zobrist hashing. */

#include "core.h"

#include <pthread.h>

_Static_assert(sizeof(Rec) == BK_RECORD_BYTES, "a record is one cache line");

/* Zobrist hashing: a key's hash is the XOR of one random word per (card,
 * value), so a child's hash follows from its parent's in a few XORs. */
BK_FN uint32_t zobrist[NCARDS][HOME + 1];

void bk_init(void)
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

/* A few record blocks that finished searches gave back, kept for the next
 * ones (most solves are small, and a fresh block costs the kernel's page
 * faults and zeroing on every solve: FreeCell deals 1-2,000 stopped after
 * 100 positions took 227 us each, 109 us with them). Shared by all threads
 * behind a lock (searches run without the GIL); counted in a budget only
 * while a store holds them. */
#define SPARE_BLOCKS 4
static Rec *spare_blocks[SPARE_BLOCKS];
static int nspare;

/* The lock shim: one process-wide mutex around the spare blocks. */
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;

static Rec *block_take(Budget *b)
{
    size_t n = BLOCK_SIZE * sizeof(Rec);
    if (!budget_fits(b, b->bytes + n))
        return NULL;
    Rec *blk = NULL;
    pthread_mutex_lock(&spare_lock);
    if (nspare)
        blk = spare_blocks[--nspare];
    pthread_mutex_unlock(&spare_lock);
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
    pthread_mutex_lock(&spare_lock);
    int kept = nspare < SPARE_BLOCKS;
    if (kept)
        spare_blocks[nspare++] = blk;
    pthread_mutex_unlock(&spare_lock);
    if (kept)
        b->bytes -= BLOCK_SIZE * sizeof(Rec);
    else
        budget_free(b, blk, BLOCK_SIZE * sizeof(Rec));
}

/* Tables of slots that finished searches gave back, up to 2^17 slots each,
 * kept for the next ones like the record blocks: a fresh table costs the
 * kernel's page faults on every solve (Baker's Game deals 6,435-8,434
 * stopped after 50 positions took 72 us each, most of it faulting in the
 * first table). Counted in a budget only while a table holds them. */
#define SPARE_TABLES 4
#define SPARE_TABLE_MAX (1u << 17)
static uint64_t *spare_tables[SPARE_TABLES];
static uint64_t spare_table_n[SPARE_TABLES];
static int nspare_tables;

/* A zeroed table of ``n`` 64-bit slots, counted in the budget. */
BK_FN uint64_t *slots_alloc(Budget *b, uint64_t n)
{
    size_t bytes = n * sizeof(uint64_t);
    uint64_t *t = NULL;
    if (n <= SPARE_TABLE_MAX && budget_fits(b, b->bytes + bytes)) {
        pthread_mutex_lock(&spare_lock);
        for (int i = 0; i < nspare_tables; i++)
            if (spare_table_n[i] == n) {
                t = spare_tables[i];
                spare_tables[i] = spare_tables[--nspare_tables];
                spare_table_n[i] = spare_table_n[nspare_tables];
                break;
            }
        pthread_mutex_unlock(&spare_lock);
        if (t)
            b->bytes += bytes;
    }
    if (!t)
        t = budget_alloc(b, bytes);
    if (t)
        memset(t, 0, bytes);
    return t;
}

/* Give back a table of ``n`` slots (kept for the next search when small). */
BK_FN void slots_give(Budget *b, uint64_t *t, uint64_t n)
{
    if (!t)
        return;
    int kept = 0;
    if (n <= SPARE_TABLE_MAX) {
        pthread_mutex_lock(&spare_lock);
        if (nspare_tables < SPARE_TABLES) {
            spare_tables[nspare_tables] = t;
            spare_table_n[nspare_tables++] = n;
            kept = 1;
        }
        pthread_mutex_unlock(&spare_lock);
    }
    if (kept)
        b->bytes -= n * sizeof(uint64_t);
    else
        budget_free(b, t, n * sizeof(uint64_t));
}

BK_FN int store_init(Store *s, Budget *b) { return TABLE_INIT(s, b, 14); }

BK_FN void store_free(Store *s)
{
    Budget *b = s->budget;
    for (uint32_t i = 0; i < s->nblocks; i++)
        block_give(b, s->blocks[i]);
    budget_free(b, s->blocks, s->cap_blocks * sizeof(Rec *));
    slots_give(b, s->slots, s->mask + 1);
    memset(s, 0, sizeof *s);
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
BK_FN uint32_t store_find(Store *s, const uint8_t *key, uint32_t h)
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
BK_FN uint32_t store_add(Store *s, const uint8_t *key, uint32_t h)
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
