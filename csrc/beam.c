/* Beam searches: layers of the best children, by moves or by player moves. */

#include "core.h"

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

/* Beam search: layer g holds positions reached at cost g (free moves stay in
 * their layer), and the ``width`` best of each by the heuristic go on.
 * Incomplete: a dead beam proves nothing. With COST_EVERY it finds wins in
 * spaces far too big to exhaust, as Baker's Dozen's are; with COST_PLAYER
 * it looks only for lines of fewer than *ub player moves (a position whose
 * moves so far plus its lower bound reach *ub is dropped). ST_WIN: a line of
 * *ub (now smaller) moves ends at *win. */
BK_FN int layered_beam(const Rules *r, const Weights *w, Budget *b, const uint8_t *root,
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
            pos.known_live = rec_is_child(rec_at(s, idx));
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
BK_FN int beam(const Rules *r, const Weights *w, Budget *b, const uint8_t *root, int width,
                Store *s, uint32_t *win, Child *kids)
{
    int unbounded = INT32_MAX;
    return layered_beam(r, w, b, root, width, &unbounded, COST_EVERY, s, win, kids);
}
