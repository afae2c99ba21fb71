/* The rules as data: the build table of a game and its policies. */

#include "core.h"

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
        return -BK_ERR_RULES;
    }
    memset(r, 0, sizeof *r);
    r->ncols = ncols;
    r->ncells = ncells;
    r->build = build;
    r->can_fill = can_fill != 0;
    r->supermoves = supermoves != 0;
    r->always_safe = build == BUILD_SAME;
    r->horne = build == BUILD_ALT; /* pruning rule 6 (see exhaustive_rules) */
    r->dead = build == BUILD_ANY && !ncells && !can_fill && !supermoves; /* pruning rule 7 */
    /* pruning rule 9: every card safe (so none is left ready), single moves
     * and run moves of every length, emptied columns refilled; pruning rule
     * 10: FreeCell under the same moves, with one to three cells (few
     * cells, where most deals are lost and proofs are the work) */
    r->cellclose = !(can_fill && supermoves) ? CLOSE_NONE
                   : build == BUILD_SAME && ncells > 0 ? CLOSE_NATURAL
                   : build == BUILD_ALT && ncells > 0 && ncells <= BK_FEW_CELLS ? CLOSE_FULL
                                                                     : CLOSE_NONE;
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

/* The last rules this thread made, and what they were made from (a survey
 * asks for the same rules thousands of times). */
static _Thread_local Rules last_rules;
static _Thread_local int last_args[5] = {-1, -1, -1, -1, -1};

int bk_rules_init(Rules *r, int ncols, int ncells, int build, int can_fill, int supermoves)
{
    int a[5] = {ncols, ncells, build, can_fill != 0, supermoves != 0};
    if (memcmp(a, last_args, sizeof a) == 0) {
        memcpy(r, &last_rules, sizeof *r);
        return 0;
    }
    int rc = rules_init(r, ncols, ncells, build, can_fill, supermoves);
    if (rc < 0)
        return rc;
    memcpy(&last_rules, r, sizeof *r);
    memcpy(last_args, a, sizeof a);
    return 0;
}

void bk_rules_exhaustive(Rules *r) { exhaustive_rules(r); }

int bk_weights_check(const Weights *w)
{
    if (w->need < 0 || w->need > 64 || w->depth < 1 || w->depth > 64)
        return -BK_ERR_WEIGHTS;
    return 0;
}
