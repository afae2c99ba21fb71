/* Best-first search: complete, ordered by depth x h + g; and the duel of
 * two of them taking turns. */

#include "core.h"

BK_FN int vec_push(Budget *b, Vec *v, uint64_t x)
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

/* An empty search: its store made, nothing open yet. */
static int bf_begin(BestFirst *bf, const Rules *r, const Weights *w, Budget *b)
{
    memset(bf, 0, sizeof *bf);
    bf->r = r;
    bf->w = *w;
    bf->scale = w->depth < 1 ? 1 : w->depth;
    bf->offset = -h_low(r, w);
    return store_init(&bf->store, b);
}

/* Open record ``idx``, of heuristic ``h``, ``g`` moves from the root: the
 * search's first open entry. */
static int bf_open(BestFirst *bf, Budget *b, uint32_t idx, int h, uint32_t g)
{
    size_t cur = (size_t)(h + bf->offset) * (size_t)bf->scale + g;
    bf->cur = cur;
    return bf_push(bf, b, cur, idx, g);
}

BK_FN int bf_init(BestFirst *bf, const Rules *r, const Weights *w, Budget *b, const uint8_t *root,
                   int hroot)
{
    if (bf_begin(bf, r, w, b) < 0)
        return -1;
    uint32_t idx = store_add(&bf->store, root, hash_key(root));
    if (idx == FULL)
        return -1;
    rec_at(&bf->store, idx)->parent = UINT32_MAX;
    return bf_open(bf, b, idx, hroot, 0);
}

/* A search begun at record ``at`` of ``tree``, whose records link back to
 * a root (parent UINT32_MAX) in at most PROBE_MAX_DEPTH moves: the records
 * from the root to ``at`` are copied in, linked as there, so that a winning
 * line runs from the root and the positions on the way are not met again;
 * only ``at`` is open. */
BK_FN int bf_init_at(BestFirst *bf, const Rules *r, const Weights *w, Budget *b, Store *tree,
                      uint32_t at)
{
    uint32_t chain[PROBE_MAX_DEPTH + 1];
    int n = 0;
    for (uint32_t i = at; i != UINT32_MAX; i = rec_at(tree, i)->parent) {
        if (n > PROBE_MAX_DEPTH)
            return -1;
        chain[n++] = i;
    }
    if (bf_begin(bf, r, w, b) < 0)
        return -1;
    uint32_t prev = UINT32_MAX;
    for (int k = n - 1; k >= 0; k--) {
        const Rec *src = rec_at(tree, chain[k]);
        uint32_t idx = store_add(&bf->store, src->key, src->hash);
        if (idx == FULL || idx == SEEN) /* a path of a tree never meets a position twice */
            return -1;
        Rec *dst = rec_at(&bf->store, idx);
        dst->parent = prev;
        dst->card = src->card;
        dst->count = src->count;
        dst->dest = src->dest;
        prev = idx;
    }
    return bf_open(bf, b, prev, key_h(r, w, rec_at(&bf->store, prev)->key), (uint32_t)(n - 1));
}

BK_FN void bf_free(BestFirst *bf, Budget *b)
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
BK_FN int bf_run(BestFirst *bf, Budget *b, long long stop_states, Child *kids)
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
        pos.known_live = rec_is_child(rec);
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

/* Run ``a`` and its rival ``g`` in turns until a verdict, a limit or
 * ``stop`` expansions in all; ``*which`` is the search that ended it. */
BK_FN int bf_duel(BestFirst *a, BestFirst *g, const Rival *rv, Budget *b, long long stop,
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
