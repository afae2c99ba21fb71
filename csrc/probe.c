/* Entry points for tests only: what the move generator makes of a position,
 * and every legal single-card move by the search's own tables, which the
 * tests hold against the rules engine. */

#include "core.h"

int bk_children(const Rules *r, const Weights *w, const uint8_t *key, bk_child out[BK_MAXCHILD])
{
    Pos pos;
    if (decode(r, w, key, &pos) < 0)
        return -BK_ERR_MALFORMED;
    Child *kids = malloc(MAXCHILD * sizeof(Child));
    if (!kids)
        return -BK_ERR_NOMEM;
    int n = generate(r, w, key, hash_key(key), &pos, pos_h(w, &pos), kids);
    for (int i = 0; i < n; i++) {
        memcpy(out[i].key, kids[i].key, NCARDS);
        out[i].card = kids[i].card;
        out[i].count = kids[i].count;
        out[i].dest = kids[i].dest;
        out[i].h = kids[i].h;
    }
    free(kids);
    return n;
}

int bk_legal_moves(const Rules *r, const Placed *pl, int out[][2], int max)
{
    const int ncols = r->ncols, ncells = r->ncells;
    const int *lens = pl->len;
    int fnd[4], n = 0;
    foundations(pl->key, fnd);
#define ADD(s, d)                                                                                  \
    do {                                                                                           \
        if (n == max)                                                                              \
            return -BK_ERR_NOMEM;                                                                  \
        out[n][0] = (s);                                                                           \
        out[n++][1] = (d);                                                                         \
    } while (0)
    for (int i = 0; i < ncols; i++) {
        if (!lens[i])
            continue;
        int c = pl->cols[i][lens[i] - 1];
        if (ready(fnd, c))
            ADD(i, 200);
        for (int k = 0; k < ncells; k++)
            if (pl->cell[k] < 0)
                ADD(i, 100 + k);
        for (int j = 0; j < ncols; j++) {
            if (j == i)
                continue;
            if (lens[j] ? r->builds[c][pl->cols[j][lens[j] - 1]] : r->can_fill)
                ADD(i, j);
        }
    }
    for (int k = 0; k < ncells; k++) {
        int c = pl->cell[k];
        if (c < 0)
            continue;
        if (ready(fnd, c))
            ADD(100 + k, 200);
        for (int j = 0; j < ncols; j++)
            if (lens[j] ? r->builds[c][pl->cols[j][lens[j] - 1]] : r->can_fill)
                ADD(100 + k, j);
    }
#undef ADD
    return n;
}
