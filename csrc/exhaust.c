/* The exhaustive search: depth first, every position it has seen kept in a
 * compact delta form of the root, for proofs of loss too large for the
 * portfolio's records. */

#include "core.h"

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

BK_FN void delta_init(Delta *d, const Rules *r, const uint8_t *root)
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
BK_FN int delta_pack(const Delta *d, const uint8_t *k, uint8_t *out)
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
BK_FN void delta_unpack(const Delta *d, const uint8_t *form, int n, uint8_t *k)
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
    slots_give(s->budget, s->slots, s->mask + 1);
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
            pos.known_live = depth > 1; /* a child generate kept: live (rule 7) */
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

int bk_exhaust(const Rules *r, const Weights *w, Budget *b, const uint8_t *root_in,
               CMove **line, size_t *nline, size_t *peak)
{
    uint8_t root[NCARDS];
    memcpy(root, root_in, NCARDS);
    int fnd[4];
    foundations(root, fnd);
    Step *moves = NULL;
    size_t nmoves = 0;
    int status;
    *line = NULL;
    *nline = 0;
    *peak = 0;
    if (close_key(r, root, fnd) == NCARDS)
        status = ST_WIN;
    else
        status = exhaust(r, w, b, root, &moves, &nmoves, peak);
    if (status == ST_WIN && b->limit != LIM_INTERRUPT) {
        *line = malloc((nmoves ? nmoves : 1) * sizeof(CMove));
        if (!*line) {
            budget_free(b, moves, nmoves * sizeof(Step));
            return -BK_ERR_NOMEM;
        }
        for (size_t i = 0; i < nmoves; i++)
            (*line)[i] = (CMove){moves[i].card, moves[i].count, dest_code(moves[i].dest)};
        *nline = nmoves;
    }
    budget_free(b, moves, nmoves * sizeof(Step));
    return status;
}
