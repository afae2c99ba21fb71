/* The line player and checker: a line in card terms played on the board's
 * own columns and cells, and checked card by card from the rules alone. */

#include "core.h"

/* The line from the root to record ``end``, in a new array (NULL when there
 * is no memory for it). */
BK_FN CMove *path_from(Store *s, uint32_t end, size_t *n)
{
    size_t len = 0;
    for (uint32_t i = end; i != UINT32_MAX && rec_at(s, i)->parent != UINT32_MAX;
         i = rec_at(s, i)->parent)
        len++;
    CMove *out = malloc((len ? len : 1) * sizeof(CMove));
    if (!out)
        return NULL;
    size_t k = len;
    for (uint32_t i = end; k > 0; i = rec_at(s, i)->parent) {
        Rec *rec = rec_at(s, i);
        out[--k] = (CMove){rec->card, rec->count, dest_code(rec->dest)};
    }
    *n = len;
    return out;
}

static int pm_push(PMoves *m, int src, int dst, int count)
{
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 256;
        PMove *nv = realloc(m->v, nc * sizeof(PMove));
        if (!nv)
            return -1;
        m->v = nv;
        m->cap = nc;
    }
    m->v[m->n++] = (PMove){(uint8_t)src, (uint8_t)dst, (uint8_t)count};
    return 0;
}

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
    if (pm_push(&m->singles, src, dst, 1) < 0) {
        m->err = BK_ERR_NOMEM;
        return -1;
    }
    return 0;
bad:
    m->err = BK_ERR_LINE;
    return -1;
}

static int sim_home(Sim *m, int src)
{
    if (pm_push(&m->moves, src, P_FOUNDATION, 1) < 0) {
        m->err = BK_ERR_NOMEM;
        return -1;
    }
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

/* The column whose exposed card is ``card``, or -1. */
static int sim_top_col(const Sim *m, int card)
{
    for (int j = 0; j < m->ncols; j++)
        if (m->len[j] && m->cols[j][m->len[j] - 1] == card)
            return j;
    return -1;
}

static int sim_play(Sim *m, int card, int count, int dest);

/* Whether ``card`` lies in a column with a card on it. */
static int sim_covered(const Sim *m, int card)
{
    for (int j = 0; j < m->ncols; j++)
        for (int t = 0; t + 1 < m->len[j]; t++)
            if (m->cols[j][t] == card)
                return 1;
    return 0;
}

/* Pruning rule 10's closure (FreeCell with few cells), as close_full: when
 * every cell is full, each card in a cell onto the first of its parents
 * that is a column's exposed card and not ready to go home, where its twin
 * is home or covered, until none can. */
static int sim_close_full(Sim *m)
{
    for (int i = 0; i < m->ncells; i++)
        if (m->cells[i] < 0)
            return 0;
    for (int again = 1; again;) {
        again = 0;
        for (int c = 0; c < 48; c++) { /* the cards by index, as close_full */
            int in_cell = 0;
            for (int i = 0; i < m->ncells; i++)
                in_cell |= m->cells[i] == c;
            if (!in_cell)
                continue;
            int z = c ^ 3;
            if (m->fnd[z & 3] <= z >> 2 && !sim_covered(m, z))
                continue;
            for (int q = 0; q < m->r->nparents[c]; q++) {
                int x = m->r->parents[c][q];
                if (!ready(m->fnd, x) && sim_top_col(m, x) >= 0) {
                    if (sim_play(m, c, 1, x) < 0)
                        return -1;
                    again = 1;
                    break;
                }
            }
        }
    }
    return 0;
}

/* Pruning rule 9's closure, as the search makes it after the safe cards
 * went home: each card in a cell whose natural parent is a column's exposed
 * card goes onto it, the highest card first (rule 10's where the rules
 * have it). */
static int sim_cellclose(Sim *m)
{
    if (m->r->cellclose == CLOSE_FULL)
        return sim_close_full(m);
    if (m->r->cellclose != CLOSE_NATURAL)
        return 0;
    for (int c = 47; c >= 0; c--)
        for (int i = 0; i < m->ncells; i++)
            if (m->cells[i] == c && sim_top_col(m, c + 4) >= 0 && sim_play(m, c, 1, c + 4) < 0)
                return -1;
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
        m->err = BK_ERR_RUN;
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
        dst = sim_top_col(m, dest);
    }
    if (count > 1 && dest == -2 && src >= 0 && src < P_CELL && m->r->cellclose == CLOSE_NATURAL) {
        /* rule 9's run into cells: its cards one by one, each a move */
        for (int t = 0; t < count; t++)
            if (sim_play(m, m->cols[src][m->len[src] - 1], 1, -2) < 0)
                return -1;
        return 0;
    }
    if (src < 0 || dst < 0 || (count > 1 && (src >= P_CELL || dst >= P_CELL))) {
        m->err = BK_ERR_LINE;
        return -1;
    }
    if (pm_push(&m->moves, src, dst, count) < 0) {
        m->err = BK_ERR_NOMEM;
        return -1;
    }
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
            m->err = BK_ERR_MOVE;
            return -1;
        }
        if (sim_play(m, mv->card, mv->count, mv->dest) < 0 || sim_autoplay(m) < 0 ||
            sim_cellclose(m) < 0)
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
 * played from ``pl`` and checked by check_singles: its moves, single-card
 * moves and player moves, and whether it checked. A line that does not play
 * counts as one that does not check. Returns 0, or -BK_ERR_NOMEM. */
BK_FN int checked_counts(const Rules *r, Placed *pl, Store *s, uint32_t end, bk_counts *out)
{
    size_t n = 0;
    CMove *path = s ? path_from(s, end, &n) : malloc(sizeof(CMove));
    if (!path)
        return -BK_ERR_NOMEM;
    int rc = checked_path(r, pl, path, n, out);
    free(path);
    return rc;
}

/* A line of single-card moves onto cards or home (Baker's Dozen's) that
 * ``loose`` played from ``root`` with a looser safe-foundation rule (the
 * exhaustive search's rule 6), as a line of the rules ``r``: after each move
 * and ``r``'s own closure, each card that ``loose``'s closure also sent home
 * becomes a move home of its own. A foundation closure is one position
 * whatever the order its cards go home in (pruning rule 1), so ``r``'s player
 * meets the positions that ``loose``'s met. NULL where a move is of another
 * kind, or out of memory. */
BK_FN CMove *usual_line(const Rules *r, const Rules *loose, const uint8_t *root,
                        const CMove *line, size_t n, size_t *nout)
{
    uint8_t k[NCARDS];
    int fnd[4];
    memcpy(k, root, NCARDS);
    foundations(k, fnd);
    /* each card goes home at most once */
    CMove *out = malloc((n + NCARDS) * sizeof(CMove));
    if (!out)
        return NULL;
    size_t m = 0;
    for (size_t i = 0;; i++) {
        close_key(r, k, fnd);
        for (int again = 1; again;) {
            again = 0;
            for (int s = 0; s < 4; s++) {
                if (fnd[s] >= 13)
                    continue;
                int c = fnd[s] * 4 + s;
                if (k[c] == HOME || k[c] == CELL || lying_on(k, c) || !is_safe(loose, fnd, c))
                    continue;
                out[m++] = (CMove){c, 1, -1};
                k[c] = HOME;
                fnd[s]++;
                close_key(r, k, fnd);
                again = 1;
            }
        }
        if (i == n)
            break;
        int c = line[i].card, d = line[i].dest;
        if (c < 0 || c >= NCARDS || line[i].count != 1 || d < -1 || d >= NCARDS ||
            k[c] == HOME || lying_on(k, c) || (d >= 0 && (k[d] == HOME || lying_on(k, d)))) {
            free(out);
            return NULL;
        }
        if (d == -1) {
            if (c != fnd[c & 3] * 4 + (c & 3)) {
                free(out);
                return NULL;
            }
            k[c] = HOME;
            fnd[c & 3]++;
        } else {
            k[c] = (uint8_t)d;
        }
        out[m++] = line[i];
    }
    *nout = m;
    return out;
}

/* checked_counts of a line given as moves. */
BK_FN int checked_path(const Rules *r, Placed *pl, const CMove *path, size_t n, bk_counts *out)
{
    Sim m;
    int ok = sim_line(&m, r, pl, path, n) == 0;
    if (!ok && m.err == BK_ERR_NOMEM) {
        sim_free(&m);
        return -BK_ERR_NOMEM;
    }
    ok = ok && check_singles(r, pl, m.singles.v, m.singles.n);
    size_t player = 0;
    for (size_t i = 0; i < m.moves.n; i++)
        player += m.moves.v[i].dst != P_FOUNDATION;
    out->moves = m.moves.n;
    out->singles = m.singles.n;
    out->player = player;
    out->checked = ok;
    sim_free(&m);
    return 0;
}

int bk_play_line(const Rules *r, const Placed *pl, const CMove *line, size_t n, PMoves *moves,
                 PMoves *singles)
{
    Sim m;
    if (sim_line(&m, r, pl, line, n) < 0) {
        int err = m.err ? m.err : BK_ERR_LINE;
        sim_free(&m);
        return -err;
    }
    *moves = m.moves;
    *singles = m.singles;
    return 0;
}

void bk_pmoves_free(PMoves *m)
{
    free(m->v);
    memset(m, 0, sizeof *m);
}

int bk_pmoves_push(PMoves *m, int src, int dst, int count)
{
    return pm_push(m, src, dst, count) < 0 ? -BK_ERR_NOMEM : 0;
}

int bk_check_line(const Rules *r, Placed *pl, const PMove *line, size_t n)
{
    return check_singles(r, pl, line, n);
}
