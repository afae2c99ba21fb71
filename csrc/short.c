/* The short-line searches: A* on player moves with an admissible bound. */

#include "core.h"

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

/* After a search into ``work``: its line becomes the best one when it found
 * one (ending at ``at``), and ``work`` is emptied for the next search. */
static void keep_line(Store *best, Store *work, int found, uint32_t at, uint32_t *win, int *have)
{
    if (found) {
        store_free(best);
        *best = *work;
        memset(work, 0, sizeof *work);
        *win = at;
        *have = 1;
    } else {
        store_free(work);
    }
}

int bk_short(const Rules *rp, const Weights *wp, Budget *b, const uint8_t *root_in, int ub,
             const int *widths, int nw, double prove_share, bk_short_result *out)
{
    /* without pruning rule 9: its closure's moves are player moves that the
     * bound and the count of moves here would not see */
    Rules r = *rp;
    r.cellclose = 0;
    const Weights w = *wp;
    uint8_t root[NCARDS];
    memcpy(root, root_in, NCARDS);
    memset(out, 0, sizeof *out);
    if (ub < 0 || prove_share < 0 || prove_share > 1 || nw < 0 || nw > BK_MAXSTAGES)
        return -BK_ERR_STAGES;
    for (int i = 0; i < nw; i++)
        if (widths[i] < 1 || widths[i] > 10000000)
            return -BK_ERR_STAGES;
    if (ub > MAX_G + 1)
        ub = MAX_G + 1;
    double deadline = b->deadline;
    Child *kids = malloc(MAXCHILD * sizeof(Child));
    if (!kids)
        return -BK_ERR_NOMEM;
    int fnd[4];
    foundations(root, fnd);
    Store best, work;
    memset(&best, 0, sizeof best);
    memset(&work, 0, sizeof work);
    uint32_t win = 0;
    int have = 0, optimal = 0, lower = 0, error = 0;
    if (close_key(&r, root, fnd) == NCARDS) {
        ub = 0;
        optimal = 1;
        lower = 0;
    } else {
        Pos rp_;
        if (decode_lb(&r, &w, root, &rp_) < 0)
            error = 1;
        else
            lower = rp_.lb;
        int proved = 0;
        for (int i = 0; i <= nw && !error && !optimal; i++) {
            int small = i < nw && widths[i] <= 1000;
            if (!proved && (i == nw || !small)) {
                /* the proof, on its share of the time left */
                proved = 1;
                double saved = b->deadline;
                /* a wide gap between the best line and the bound is rarely
                 * closed: the beams get most of the time then */
                double share = ub - lower <= 12 ? prove_share : prove_share * 0.2;
                if (deadline > 0)
                    b->deadline = now_s() + (deadline - now_s()) * share;
                int found = 0, low = lower;
                uint32_t at = 0;
                int st = short_astar(&r, &w, b, root, &ub, &low, &work, &at, &found, kids);
                keep_line(&best, &work, found, at, &win, &have);
                if (low > lower)
                    lower = low;
                if (st == ST_EXHAUSTED) {
                    optimal = 1;
                    lower = ub;
                } else if (st == ST_ERROR) {
                    error = 1;
                }
                b->deadline = saved;
                if (b->limit == LIM_TIME && (deadline < 0 || now_s() < deadline))
                    b->limit = 0; /* only the proof's share ran out */
                if (b->limit == LIM_MEMORY)
                    b->limit = 0; /* the beams need far less */
                if (optimal || b->limit)
                    break;
            }
            if (i == nw)
                break;
            uint32_t at = 0;
            int st = layered_beam(&r, &w, b, root, widths[i], &ub, COST_PLAYER, &work, &at, kids);
            keep_line(&best, &work, st == ST_WIN, at, &win, &have);
            if (st == ST_ERROR)
                error = 1;
            if (st == ST_LIMIT || lower >= ub)
                break;
        }
        if (lower >= ub)
            optimal = 1, lower = ub;
    }
    int rc = 0;
    if (have && !error && b->limit != LIM_INTERRUPT) {
        out->line = path_from(&best, win, &out->nline);
        if (!out->line)
            rc = -BK_ERR_NOMEM;
    }
    store_free(&best);
    store_free(&work);
    free(kids);
    out->player_moves = ub;
    out->optimal = optimal;
    out->lower_bound = lower;
    out->limit = b->limit;
    out->error = error;
    return rc;
}
