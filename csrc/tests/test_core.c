/*
 * The library's own tests, without Python: dealing, positions and their
 * errors, the portfolio on known deals (verdicts and counts of positions that
 * the Python side's tests and the published tables agree on), the line
 * player and checker, the short search, the exhaustive search, and the
 * budget's limits and interrupt. Run by scripts/test-core.sh.
 */
#define _GNU_SOURCE 1 /* mkdtemp */
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "bakers.h"

static int failures, checks;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

enum { FREECELL, BAKERS_GAME, BAKERS_DOZEN };

/* A game's rules: columns, cells, build, fillable empty columns, run moves. */
static void game_rules(int game, int cells, bk_rules *r)
{
    int rc = game == BAKERS_DOZEN ? bk_rules_init(r, 13, 0, BK_BUILD_ANY, 0, 0)
                                  : bk_rules_init(r, 8, cells,
                                                  game == FREECELL ? BK_BUILD_ALT : BK_BUILD_SAME,
                                                  1, 1);
    CHECK(rc == 0);
}

/* Deal ``number`` of a game as a position in the board's own order. */
static void dealt(int game, unsigned long long number, const bk_rules *r, bk_placed *pl)
{
    uint8_t cols[BK_MAXCOLS][BK_NCARDS];
    const uint8_t *colp[BK_MAXCOLS];
    int lens[BK_MAXCOLS];
    uint8_t cells[BK_MAXCELLS];
    memset(cells, BK_EMPTY_CELL, sizeof cells);
    CHECK(bk_deal(number, r->ncols, game == BAKERS_DOZEN, cols, lens) == 0);
    for (int i = 0; i < r->ncols; i++)
        colp[i] = cols[i];
    CHECK(bk_position_placed(r, r->ncols, colp, lens, cells, r->ncells, pl) == 0);
}

/* A game's deal, its rules and its portfolio, ready to solve. */
static void ready_deal(int game, int cells, unsigned long long number, bk_rules *r, bk_placed *pl,
                       bk_portfolio *p)
{
    game_rules(game, cells, r);
    dealt(game, number, r, pl);
    bk_portfolio_default(r->build, r->can_fill, r->ncells, p);
}

/* A deal ready to solve. */
typedef struct {
    bk_rules r;
    bk_placed pl;
    bk_portfolio p;
} Case;

static void ready_case(int game, int cells, unsigned long long number, Case *k)
{
    ready_deal(game, cells, number, &k->r, &k->pl, &k->p);
}

/* The portfolio on a deal: its status, positions, and the line's check. */
static int solve_deal(int game, int cells, unsigned long long number, long long max_states,
                      long long *states, bk_counts *counts)
{
    bk_rules r;
    bk_placed pl;
    bk_portfolio p;
    bk_budget b;
    bk_found *found = NULL;
    ready_deal(game, cells, number, &r, &pl, &p);
    CHECK(bk_portfolio_check(&p) == 0);
    bk_budget_start(&b, max_states, 0, 0);
    int status = bk_solve(&r, &p, &b, pl.key, &found);
    *states = b.states;
    memset(counts, 0, sizeof *counts);
    if (status == BK_WIN)
        CHECK(bk_found_checked(found, &r, &pl, counts) == 0);
    bk_found_free(found, &b);
    CHECK(b.bytes == 0); /* every block given back */
    return status;
}

static void test_dealing(void)
{
    uint8_t cols[BK_MAXCOLS][BK_NCARDS];
    int lens[BK_MAXCOLS];
    /* FreeCell deal 1: JD KD 2S 4C 3S 6D 6S / 2D KC KS 5C TD 8S 9C / ... */
    const uint8_t first[] = {41, 49, 7, 12, 11, 21, 23};
    const uint8_t second[] = {5, 48, 51, 16, 37, 31, 32};
    CHECK(bk_deal(1, 8, 0, cols, lens) == 0);
    CHECK(lens[0] == 7 && lens[4] == 6);
    CHECK(memcmp(cols[0], first, 7) == 0 && memcmp(cols[1], second, 7) == 0);
    /* every card once, for deals on both sides of 2^31 and 2^32 */
    const unsigned long long numbers[] = {1, 617, 11982, 1ULL << 31, (1ULL << 32) + 5,
                                          (1ULL << 33) - 1};
    for (size_t k = 0; k < sizeof numbers / sizeof numbers[0]; k++) {
        int seen[BK_NCARDS] = {0}, total = 0;
        CHECK(bk_deal(numbers[k], 13, 1, cols, lens) == 0);
        for (int i = 0; i < 13; i++) {
            CHECK(lens[i] == 4);
            for (int j = 0; j < lens[i]; j++) {
                seen[cols[i][j]]++;
                total++;
                /* kings lie beneath the other cards of their column */
                if (j > 0 && cols[i][j - 1] >> 2 != 12)
                    CHECK(cols[i][j] >> 2 != 12);
            }
        }
        CHECK(total == BK_NCARDS);
        for (int c = 0; c < BK_NCARDS; c++)
            CHECK(seen[c] == 1);
    }
    CHECK(bk_deal(0, 8, 0, cols, lens) == -BK_ERR_DEAL);
    CHECK(bk_deal(BK_DEAL_LIMIT, 8, 0, cols, lens) == -BK_ERR_DEAL);
    CHECK(bk_deal(1, 14, 0, cols, lens) == -BK_ERR_DEAL);
}

static void test_positions(void)
{
    bk_rules r;
    uint8_t key[BK_NCARDS];
    CHECK(bk_rules_init(&r, 8, 9, BK_BUILD_ALT, 1, 1) == -BK_ERR_RULES);
    CHECK(bk_rules_init(&r, 14, 4, BK_BUILD_ALT, 1, 1) == -BK_ERR_RULES);
    game_rules(FREECELL, 4, &r);
    const uint8_t king[] = {48}, bad[] = {52}, twice[] = {7, 7}, ace[] = {0};
    const uint8_t *cols[8] = {king, king, king, king, king, king, king, king};
    int lens[8] = {0};
    /* every card home but the king of clubs */
    lens[0] = 1;
    CHECK(bk_position_key(&r, 8, cols, lens, NULL, 0, key) == 0);
    CHECK(key[48] == 52 && key[0] == 54 && key[51] == 54);
    CHECK(bk_position_key(&r, 7, cols, lens, NULL, 0, key) == -BK_ERR_NCOLS);
    cols[1] = bad;
    lens[1] = 1;
    CHECK(bk_position_key(&r, 8, cols, lens, NULL, 0, key) == -BK_ERR_CARD);
    cols[1] = twice;
    lens[1] = 2;
    CHECK(bk_position_key(&r, 8, cols, lens, NULL, 0, key) == -BK_ERR_CARD);
    lens[1] = 0;
    CHECK(bk_position_key(&r, 8, cols, lens, king, 1, key) == -BK_ERR_CARD); /* two places */
    cols[0] = ace; /* the ace in play, every other club home: not contiguous */
    CHECK(bk_position_key(&r, 8, cols, lens, NULL, 0, key) == -BK_ERR_FOUNDATIONS);
    cols[0] = king;
    uint8_t many[9] = {0};
    CHECK(bk_position_key(&r, 8, cols, lens, many, 5, key) == -BK_ERR_CELLS);
    bk_placed pl;
    CHECK(bk_position_placed(&r, 8, cols, lens, many, 3, &pl) == -BK_ERR_CELL_BYTES);
    CHECK(strcmp(bk_error_message(-BK_ERR_CARD), "bad or repeated card") == 0);
    CHECK(strcmp(bk_error_message(BK_ERR_COUNT + 3), "unknown error") == 0);
}

static void test_portfolio(void)
{
    long long states;
    bk_counts c;
    /* FreeCell deal 11982: impossible, 62,643 positions (the Python tests agree) */
    CHECK(solve_deal(FREECELL, 4, 11982, 3000000, &states, &c) == BK_EXHAUSTED);
    CHECK(states == 62643);
    /* FreeCell deal 1: won, the line checked card by card */
    CHECK(solve_deal(FREECELL, 4, 1, 3000000, &states, &c) == BK_WIN);
    CHECK(c.checked && c.moves > 0 && c.singles >= c.moves && c.player <= c.moves);
    /* Baker's Game deal 1 with 4 cells: lost (the published table) */
    int bg1 = solve_deal(BAKERS_GAME, 4, 1, 3000000, &states, &c);
    CHECK(bg1 == BK_EXHAUSTED || bg1 == BK_WIN);
    /* Baker's Dozen deal 104: the one lost deal of 1-1,000 */
    CHECK(solve_deal(BAKERS_DOZEN, 0, 104, 3000000, &states, &c) == BK_EXHAUSTED);
    CHECK(solve_deal(BAKERS_DOZEN, 0, 5, 3000000, &states, &c) == BK_WIN && c.checked);
    /* a limit names itself */
    Case k;
    ready_case(FREECELL, 4, 11982, &k);
    bk_rules r = k.r;
    bk_placed pl = k.pl;
    bk_portfolio p = k.p;
    bk_budget b;
    bk_found *found = NULL;
    bk_budget_start(&b, 100, 0, 0);
    CHECK(bk_solve(&r, &p, &b, pl.key, &found) == BK_LIMIT && b.limit == BK_LIM_STATES);
    CHECK(strcmp(bk_limit_name(b.limit), "states") == 0);
    bk_found_free(found, &b);
    bk_budget_start(&b, -1, 0, 1); /* 1 MB */
    found = NULL;
    CHECK(bk_solve(&r, &p, &b, pl.key, &found) == BK_LIMIT && b.limit == BK_LIM_MEMORY);
    bk_found_free(found, &b);
    /* portfolios that cannot run say why */
    bk_portfolio q = p;
    q.rival.q_main = 0;
    CHECK(bk_portfolio_check(&q) == -BK_ERR_RIVAL);
    q = p;
    q.width[0] = -5;
    CHECK(bk_portfolio_check(&q) == -BK_ERR_STAGES);
    q = p;
    q.width[0] = -2; /* a restarts stage with no restarts */
    q.restarts.unit = 0;
    CHECK(bk_portfolio_check(&q) == -BK_ERR_RESTARTS);
    q.restarts.unit = 1000;
    q.restarts.lo = (bk_weights){0, 0, 0, 0, 0, 1, 0};
    q.restarts.hi = (bk_weights){4, 0, 4, 0, 4, 3, 3};
    CHECK(bk_portfolio_check(&q) == 0);
    q.restarts.lo.home = 5; /* above its high */
    CHECK(bk_portfolio_check(&q) == -BK_ERR_RESTARTS);
    q.restarts.lo.home = 0;
    q.restarts.hi.depth = 0;
    CHECK(bk_portfolio_check(&q) == -BK_ERR_RESTARTS);
    q = p;
    q.sel[0] = 5;
    CHECK(bk_portfolio_check(&q) == -BK_ERR_NO_WEIGHTS);
    q = p;
    q.race.n = 0;
    q.width[0] = -1; /* a race stage with no race */
    CHECK(bk_portfolio_check(&q) == -BK_ERR_RACE);
    q.race.n = BK_MAXRACE + 1;
    CHECK(bk_portfolio_check(&q) == -BK_ERR_RACE);
    q.race.n = 1;
    q.race.w[0] = p.weights;
    q.race.turn = 0;
    CHECK(bk_portfolio_check(&q) == -BK_ERR_RACE);
    q.race.turn = 100;
    q.race.w[0].depth = 0;
    CHECK(bk_portfolio_check(&q) == -BK_ERR_WEIGHTS);
}

/* bk_solve on a case expected won within 3 M positions: the line checked,
 * every block given back; returns the positions it took. */
static long long solve_won(Case *k)
{
    bk_budget b;
    bk_found *found = NULL;
    bk_budget_start(&b, 3000000, 0, 0);
    CHECK(bk_portfolio_check(&k->p) == 0);
    CHECK(bk_solve(&k->r, &k->p, &b, k->pl.key, &found) == BK_WIN);
    bk_counts c;
    CHECK(bk_found_checked(found, &k->r, &k->pl, &c) == 0 && c.checked);
    bk_found_free(found, &b);
    CHECK(b.bytes == 0);
    return b.states;
}

/* Baker's Dozen deal ``deal`` with restarts alone after the first stage:
 * units of ``unit`` positions, weights drawn by ``seed``. */
static void restarting(Case *k, unsigned long long deal, long long unit,
                       unsigned long long seed, int with_main)
{
    ready_case(BAKERS_DOZEN, 0, deal, k);
    k->p.restarts.unit = unit;
    k->p.restarts.seed = seed;
    k->p.restarts.lo = (bk_weights){0, 0, 0, 0, 0, 1, 0};
    k->p.restarts.hi = (bk_weights){4, 0, 4, 0, 4, 3, 3};
    k->p.restarts.with_main = with_main;
    k->p.nbeams = 1;
    k->p.width[0] = -2;
    k->p.sel[0] = -1;
}

/* A race: searches with other weights take turns with the main one; the
 * first to win ends it (its line checked), any one running out proves the
 * deal lost, and the counts do not change from run to run. */
static void test_race(void)
{
    static const bk_weights family[] = {
        {3, 3, 3, 2, 0, 1, 2}, {2, 3, 1, 2, 3, 1, 0}, {1, 3, 3, 2, 0, 2, 2}};
    long long seen[2] = {0, 0};
    for (int round = 0; round < 2; round++) {
        Case k;
        ready_case(BAKERS_DOZEN, 0, 2318, &k);
        k.p.race.n = 3;
        k.p.race.turn = 1000;
        k.p.race.until = -1;
        memcpy(k.p.race.w, family, sizeof family);
        k.p.nbeams = 1;
        k.p.width[0] = -1;
        k.p.sel[0] = -1;
        seen[round] = solve_won(&k);
        CHECK(seen[round] < 200000); /* the main search alone: over 3,000,000 */
    }
    CHECK(seen[0] == seen[1]);
    /* Baker's Dozen 104 is lost: the race proves it too */
    Case k;
    ready_case(BAKERS_DOZEN, 0, 104, &k);
    k.p.race.n = 2;
    k.p.race.turn = 500;
    k.p.race.until = -1;
    memcpy(k.p.race.w, family, 2 * sizeof family[0]);
    k.p.nbeams = 1;
    k.p.width[0] = -1;
    k.p.sel[0] = -1;
    bk_budget b;
    bk_found *found = NULL;
    bk_budget_start(&b, 3000000, 0, 0);
    CHECK(bk_solve(&k.r, &k.p, &b, k.pl.key, &found) == BK_EXHAUSTED);
    bk_found_free(found, &b);
    CHECK(b.bytes == 0);
}

/* Restarts: best-first searches begun afresh with drawn weights on Luby's
 * schedule; a win's line is checked, a lost deal is proven lost by the first
 * search that runs out, the counts do not change from run to run, another
 * seed draws other weights, and every search's memory is given back. */
static void test_restarts(void)
{
    long long seen[3] = {0, 0, 0};
    for (int round = 0; round < 3; round++) {
        Case k;
        restarting(&k, 2318, 1000, round < 2 ? 1 : 2, 0);
        seen[round] = solve_won(&k);
        CHECK(seen[round] < 1000000); /* the main search alone: over 3,000,000 */
    }
    CHECK(seen[0] == seen[1] && seen[1] != seen[2]);
    /* with the main search resumed between the restarts: still won, checked */
    Case mixed;
    restarting(&mixed, 2318, 1000, 1, 1);
    long long both = solve_won(&mixed);
    CHECK(both > seen[0] && both < 2 * seen[0] + 2 * 20000);
    /* Baker's Dozen 104 is lost, and 2318 stops at a short budget */
    for (int deal = 0; deal < 2; deal++) {
        Case k;
        restarting(&k, deal ? 2318 : 104, 100, 7, 0);
        k.p.first_stage = 10;
        bk_budget b;
        bk_found *found = NULL;
        bk_budget_start(&b, 300, 0, 0); /* 2318: these restarts win at 683 */
        int st = bk_solve(&k.r, &k.p, &b, k.pl.key, &found);
        CHECK(deal ? st == BK_LIMIT && b.limit == BK_LIM_STATES && b.states <= 300
                   : st == BK_EXHAUSTED);
        bk_found_free(found, &b);
        CHECK(b.bytes == 0);
    }
}

static int interrupts;
static int stop_now(void *ctx)
{
    (void)ctx;
    interrupts++;
    return 1;
}

static void test_interrupt(void)
{
    /* FreeCell deal 11982 with one cell: a search of more than 65,536
     * positions, where the callback is asked */
    Case k;
    ready_case(FREECELL, 1, 11982, &k);
    bk_budget b;
    bk_found *found = NULL;
    bk_budget_start(&b, 5000000, 0, 0);
    b.interrupt = stop_now;
    int status = bk_solve(&k.r, &k.p, &b, k.pl.key, &found);
    bk_found_free(found, &b);
    CHECK(interrupts >= 1);
    CHECK(status == BK_LIMIT && b.limit == BK_LIM_INTERRUPT);
    CHECK(b.states < 5000000);
}

static void test_lines(void)
{
    bk_rules r;
    bk_placed pl, again;
    bk_portfolio p;
    bk_budget b;
    bk_found *found = NULL;
    ready_deal(FREECELL, 4, 617, &r, &pl, &p);
    bk_budget_start(&b, 3000000, 0, 0);
    CHECK(bk_solve(&r, &p, &b, pl.key, &found) == BK_WIN);
    size_t n = 0;
    bk_cmove *line = bk_found_line(found, &n);
    CHECK(line != NULL && n > 0);
    bk_found_free(found, &b);
    bk_pmoves moves = {0}, singles = {0};
    CHECK(bk_play_line(&r, &pl, line, n, &moves, &singles) == 0);
    CHECK(moves.n >= n && singles.n >= moves.n);
    again = pl;
    CHECK(bk_check_line(&r, &again, singles.v, singles.n) == 1);
    /* the checker refuses: a line cut short, a move from an empty place,
     * and a card sent home out of turn */
    again = pl;
    CHECK(bk_check_line(&r, &again, singles.v, singles.n - 1) == 0);
    bk_pmove wrong = singles.v[0];
    singles.v[0] = (bk_pmove){100, 0, 1};
    again = pl;
    CHECK(bk_check_line(&r, &again, singles.v, singles.n) == 0);
    singles.v[0] = (bk_pmove){0, 200, 1};
    again = pl;
    CHECK(bk_check_line(&r, &again, singles.v, singles.n) == 0);
    singles.v[0] = wrong;
    /* the player refuses a move that does not fit */
    bk_cmove bad = {line[0].card, 5, -2};
    bk_pmoves m2 = {0}, s2 = {0};
    CHECK(bk_play_line(&r, &pl, &bad, 1, &m2, &s2) == -BK_ERR_LINE);
    bad = (bk_cmove){60, 1, -1};
    CHECK(bk_play_line(&r, &pl, &bad, 1, &m2, &s2) == -BK_ERR_MOVE);
    bk_pmoves_free(&moves);
    bk_pmoves_free(&singles);
    free(line);
}

/* Baker's Dozen deal ``deal`` solved by a first stage of one position and
 * a stage of kind ``width`` (1 M positions), its line played and checked
 * under the usual rules: the positions it took (-1 if it was not won). */
static long long stage_win(int deal, int width, bk_rules *r, bk_placed *pl, bk_portfolio *p)
{
    ready_deal(BAKERS_DOZEN, 0, (unsigned long long)deal, r, pl, p);
    p->first_stage = 1;
    p->nbeams = 1;
    p->width[0] = width;
    p->sel[0] = 1000000;
    CHECK(bk_portfolio_check(p) == 0);
    bk_found *found = NULL;
    bk_budget b;
    bk_budget_start(&b, 3000000, 0, 0);
    long long states = bk_solve(r, p, &b, pl->key, &found) == BK_WIN ? b.states : -1;
    size_t n = 0;
    bk_cmove *line = bk_found_line(found, &n);
    CHECK(states > 0 && line != NULL && n > 0);
    bk_pmoves moves = {0}, singles = {0};
    CHECK(bk_play_line(r, pl, line, n, &moves, &singles) == 0);
    CHECK(bk_check_line(r, pl, singles.v, singles.n) == 1);
    bk_pmoves_free(&moves);
    bk_pmoves_free(&singles);
    free(line);
    bk_found_free(found, &b);
    return states;
}

static void test_short_and_exhaust(void)
{
    bk_rules r;
    bk_placed pl;
    bk_portfolio p;
    bk_budget b;
    ready_deal(BAKERS_GAME, 4, 617, &r, &pl, &p);
    const int widths[] = {10, 100, 1000};
    bk_short_result s;
    bk_budget_start(&b, 300000, 0, 0);
    CHECK(bk_short(&r, &p.weights, &b, pl.key, 200, widths, 3, 0.5, &s) == 0);
    CHECK(s.line != NULL && s.player_moves < 200 && s.lower_bound <= s.player_moves);
    free(s.line);
    CHECK(bk_short(&r, &p.weights, &b, pl.key, -1, widths, 3, 0.5, &s) == -BK_ERR_STAGES);

    /* the exhaustive search agrees with the portfolio on FreeCell 11982 */
    ready_deal(FREECELL, 4, 11982, &r, &pl, &p);
    bk_rules_exhaustive(&r);
    bk_cmove *line = NULL;
    size_t n = 0, peak = 0;
    bk_budget_start(&b, 3000000, 0, 0);
    CHECK(bk_exhaust(&r, &p.weights, &b, pl.key, &line, &n, &peak) == BK_EXHAUSTED);
    CHECK(line == NULL && peak > 0);
    /* and finds a win that replays */
    dealt(FREECELL, 1, &r, &pl);
    bk_budget_start(&b, 3000000, 0, 0);
    CHECK(bk_exhaust(&r, &p.weights, &b, pl.key, &line, &n, &peak) == BK_WIN);
    bk_pmoves moves = {0}, singles = {0};
    CHECK(bk_play_line(&r, &pl, line, n, &moves, &singles) == 0);
    CHECK(bk_check_line(&r, &pl, singles.v, singles.n) == 1);
    bk_pmoves_free(&moves);
    bk_pmoves_free(&singles);
    free(line);

    /* Baker's Dozen 5257: lost; every child of the root is dead (pruning
     * rule 7), so the exhaustive search expands the root alone, where rules
     * 1-6 alone exhaust 501,229 positions */
    ready_deal(BAKERS_DOZEN, 0, 5257, &r, &pl, &p);
    CHECK(r.dead == 1);
    bk_rules_exhaustive(&r);
    bk_budget_start(&b, 3000000, 0, 0);
    line = NULL;
    CHECK(bk_exhaust(&r, &p.weights, &b, pl.key, &line, &n, &peak) == BK_EXHAUSTED);
    CHECK(b.states == 1 && line == NULL);
    r.dead = 0;
    bk_budget_start(&b, 3000000, 0, 0);
    CHECK(bk_exhaust(&r, &p.weights, &b, pl.key, &line, &n, &peak) == BK_EXHAUSTED);
    CHECK(b.states == 501229 && line == NULL);

    /* Baker's Dozen 3: the exhaustive search under its own rules wins with a
     * line that the usual rules' player cannot play (the looser rule 6 sent
     * cards home by itself); as a stage of the portfolio (width -7) the same
     * search gives a line of the usual rules, with those moves home in it */
    ready_deal(BAKERS_DOZEN, 0, 3, &r, &pl, &p);
    bk_rules loose = r;
    bk_rules_exhaustive(&loose);
    bk_budget_start(&b, 3000000, 0, 0);
    CHECK(bk_exhaust(&loose, &p.weights, &b, pl.key, &line, &n, &peak) == BK_WIN);
    long long alone = b.states;
    bk_pmoves moves2 = {0}, singles2 = {0};
    CHECK(bk_play_line(&r, &pl, line, n, &moves2, &singles2) < 0);
    bk_pmoves_free(&moves2);
    bk_pmoves_free(&singles2);
    free(line);
    CHECK(stage_win(3, -7, &r, &pl, &p) == 1 + alone);
    /* the depth-first restarts (width -8): that search begun afresh with
     * drawn weights, the same count each run, its line the usual rules' */
    long long counts[2];
    for (int run = 0; run < 2; run++)
        counts[run] = stage_win(16, -8, &r, &pl, &p);
    CHECK(counts[0] == counts[1] && counts[0] > 1);
    p.restarts.unit = 0;
    CHECK(bk_portfolio_check(&p) == -BK_ERR_RESTARTS);
}

/* The disk-backed exhaustive search: the same count as the in-memory one
 * on a proof of loss, stopped and resumed to the same count, a folder that
 * holds another search refused, the disk limit named (wins and their lines:
 * tests/test_disk.py). */
static int count_progress;
static void on_progress(void *ctx, long long states, int layer, int level, long long disk)
{
    (void)ctx;
    (void)states;
    (void)level;
    CHECK(layer >= 0 && layer <= 52 && disk >= 0);
    count_progress++;
}

static void clear_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/*", dir);
    CHECK(system(cmd) == 0);
}

/* disk.c's sort of fixed records (internal: declared here, linked from the
 * library built file by file): the order and the repeats of qsort with memcmp
 * on records with long shared prefixes, many repeats and a few lone ones. */
size_t records_sort_unique(unsigned char *recs, size_t n, int rec);

static size_t rec_width; /* the records qsort compares */

static int cmp_rec(const void *a, const void *b) { return memcmp(a, b, rec_width); }

/* Pruning rule 9 (Baker's Game with cells): deal 10 with 4 cells is lost in
 * 3,543 positions with it and 5,019 without it; solved again, the store's
 * reused table (kept from the last search) gives the same count; a won
 * deal with 3 cells has its line, closure moves and runs into cells
 * included, checked by the line checker. */
static void test_cellclose(void)
{
    long long states = 0, again = 0;
    bk_counts counts;
    CHECK(solve_deal(BAKERS_GAME, 4, 10, -1, &states, &counts) == BK_EXHAUSTED);
    CHECK(states == 3543);
    CHECK(solve_deal(BAKERS_GAME, 4, 10, -1, &again, &counts) == BK_EXHAUSTED);
    CHECK(again == states);
    Case k;
    ready_case(BAKERS_GAME, 4, 10, &k);
    CHECK(k.r.cellclose == 1);
    k.r.cellclose = 0;
    bk_budget b;
    bk_found *found = NULL;
    bk_budget_start(&b, -1, 0, 0);
    CHECK(bk_solve(&k.r, &k.p, &b, k.pl.key, &found) == BK_EXHAUSTED);
    CHECK(b.states == 5019);
    bk_found_free(found, &b);
    CHECK(solve_deal(BAKERS_GAME, 3, 2, -1, &states, &counts) == BK_WIN);
    CHECK(states == 250 && counts.checked);
    bk_rules fc;
    game_rules(FREECELL, 4, &fc);
    CHECK(fc.cellclose == 0);
}

/* Records of ``w`` bytes (24, 32, or 25 and 33: a layer byte in front). */
static void test_record_sort(void)
{
    static const size_t sizes[] = {0, 1, 2, 24, 25, 1000, 50000};
    static const size_t widths[] = {24, 25, 32, 33};
    unsigned long long x = 88172645463325252ULL;
    for (size_t u = 0; u < sizeof widths / sizeof *widths; u++)
        for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
            size_t n = sizes[t], w = widths[u];
            unsigned char *a = malloc(n * w + 1), *b = malloc(n * w + 1);
            for (size_t i = 0; i < n * w; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                size_t at = i % w;
                /* a layer byte of 3 values (odd widths), bytes 0-5 shared,
                 * 6-13 from a few values, then zeros */
                size_t from = w & 1;
                a[i] = at < from         ? (unsigned char)(5 + x % 3)
                       : at < from + 6  ? 7
                       : at < from + 10 ? (unsigned char)(x % 3)
                       : at < from + 14 ? (unsigned char)((x >> 8) % 4)
                                        : 0;
            }
            memcpy(b, a, n * w);
            rec_width = w;
            qsort(b, n, w, cmp_rec);
            size_t m = n ? 1 : 0;
            for (size_t i = 1; i < n; i++)
                if (memcmp(b + i * w, b + (m - 1) * w, w))
                    memmove(b + m++ * w, b + i * w, w);
            size_t got = records_sort_unique(a, n, (int)w);
            CHECK(got == m && (m == 0 || memcmp(a, b, m * w) == 0));
            CHECK(n < 1000 || m < n); /* the case has repeats to drop */
            free(a);
            free(b);
        }
}

/* A deal readied for the exhaustive searches, and the count of positions
 * the one in memory exhausts. */
static long long exhausted(int game, int cells, int deal, bk_rules *r, bk_placed *pl,
                           bk_portfolio *p)
{
    ready_deal(game, cells, deal, r, pl, p);
    bk_rules_exhaustive(r);
    bk_cmove *line = NULL;
    size_t n = 0, peak = 0;
    bk_budget b;
    bk_budget_start(&b, -1, 0, 0);
    CHECK(bk_exhaust(r, &p->weights, &b, pl->key, &line, &n, &peak) == BK_EXHAUSTED);
    free(line);
    return b.states;
}

/* The disk search where a level's children outgrow the buffer: FreeCell 2143
 * with 1 cell (102,910 positions; 134,139 before pruning rule 10) in 1 MB, so that levels merge several runs
 * against several level files and layers get several pending chunks. */
static void test_disk_runs(void)
{
    char dir[] = "/tmp/bakers-disk-runs-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    bk_rules r;
    bk_placed pl;
    bk_portfolio p;
    long long whole = exhausted(FREECELL, 1, 2143, &r, &pl, &p);
    CHECK(whole == 102910);
    bk_disk opt = {dir, -1, 0, NULL, NULL};
    bk_cmove *line = NULL;
    size_t n = 0, mem = 0;
    long long disk_peak = 0;
    bk_budget b;
    bk_budget_start(&b, -1, 0, 1);
    CHECK(bk_exhaust_disk(&r, &p.weights, &b, pl.key, &opt, &line, &n, &disk_peak, &mem) ==
          BK_EXHAUSTED);
    CHECK(b.states == whole && mem <= 1 << 20);
    clear_dir(dir);
    CHECK(rmdir(dir) == 0);
}

static void test_disk(void)
{
    char dir[] = "/tmp/bakers-disk-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    bk_rules r;
    bk_placed pl;
    bk_portfolio p;
    bk_budget b;
    long long whole = exhausted(FREECELL, 4, 11982, &r, &pl, &p);
    bk_cmove *line = NULL;
    size_t n = 0;
    bk_disk opt = {dir, -1, 0, on_progress, NULL};
    long long disk_peak = 0;
    size_t mem = 0;
    bk_budget_start(&b, -1, 0, 1); /* 1 MB */
    CHECK(bk_exhaust_disk(&r, &p.weights, &b, pl.key, &opt, &line, &n, &disk_peak, &mem) ==
          BK_EXHAUSTED);
    CHECK(b.states == whole && disk_peak > 0 && mem <= 1 << 20 && count_progress > 0);
    CHECK(b.bytes == 0);
    clear_dir(dir);
    /* stopped by the state limit, then resumed: the same count */
    bk_budget_start(&b, 20000, 0, 1);
    CHECK(bk_exhaust_disk(&r, &p.weights, &b, pl.key, &opt, &line, &n, &disk_peak, &mem) ==
          BK_LIMIT && b.limit == BK_LIM_STATES);
    bk_budget_start(&b, -1, 0, 1);
    CHECK(bk_exhaust_disk(&r, &p.weights, &b, pl.key, &opt, &line, &n, &disk_peak, &mem) ==
          -BK_ERR_RESUME); /* a search is there: not started over */
    opt.resume = 1;
    bk_budget_start(&b, -1, 0, 1);
    CHECK(bk_exhaust_disk(&r, &p.weights, &b, pl.key, &opt, &line, &n, &disk_peak, &mem) ==
          BK_EXHAUSTED);
    CHECK(b.states == whole);
    clear_dir(dir);
    /* the disk limit names itself */
    opt.resume = 0;
    opt.max_disk = 4096;
    bk_budget_start(&b, -1, 0, 1);
    CHECK(bk_exhaust_disk(&r, &p.weights, &b, pl.key, &opt, &line, &n, &disk_peak, &mem) ==
          BK_LIMIT && b.limit == BK_LIM_DISK);
    CHECK(strcmp(bk_limit_name(b.limit), "disk") == 0);
    clear_dir(dir);
    CHECK(rmdir(dir) == 0);
}

/* Pruning rule 8, the pool relaxation: Baker's Dozen 104 and 5257 proven
 * lost (2,017 and 335 relaxed states, the coarser games' included; 5257 in
 * the game from rank 7), 21980 lost in the game from rank 12 (100 states; the
 * full game takes 3,975,921), 14902 in the full game (79,082), deal 1 won in
 * every game of the ladder (1,090 states, which proves nothing), a state
 * limit named, other rules refused. */
static void test_relax(void)
{
    static const struct {
        unsigned long long deal;
        int status;
        long long states;
    } cases[] = {{104, BK_EXHAUSTED, 2017},
                 {5257, BK_EXHAUSTED, 335},
                 {21980, BK_EXHAUSTED, 100},
                 {14902, BK_EXHAUSTED, 79082},
                 {1, BK_WIN, 1090}};
    bk_rules r;
    bk_placed pl;
    bk_portfolio p;
    bk_budget b;
    size_t peak;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ready_deal(BAKERS_DOZEN, 0, cases[i].deal, &r, &pl, &p);
        bk_budget_start(&b, 3000000, 0, 0);
        CHECK(bk_relax(&r, &b, pl.key, &peak) == cases[i].status);
        CHECK(b.states == cases[i].states && peak > 0 && b.bytes == 0);
    }
    ready_deal(BAKERS_DOZEN, 0, 14902, &r, &pl, &p);
    bk_budget_start(&b, 10000, 0, 0);
    CHECK(bk_relax(&r, &b, pl.key, &peak) == BK_LIMIT && b.limit == BK_LIM_STATES);
    bk_budget_start(&b, -1, 0, 1);
    CHECK(bk_relax(&r, &b, pl.key, &peak) == BK_LIMIT && b.limit == BK_LIM_MEMORY);
    ready_deal(FREECELL, 4, 1, &r, &pl, &p);
    bk_budget_start(&b, 3000000, 0, 0);
    CHECK(bk_relax(&r, &b, pl.key, &peak) == -BK_ERR_RULES);
    /* as a stage of a portfolio: the relaxation (width -3, its short ladder:
     * 77,881 states; -6, its fine one: 79,082) proves 14902 lost when its
     * cap holds the relaxed game, the fine ladder 9515 in 585,284 (the short
     * one takes 4,431,468), the search going on past a
     * smaller cap (up to the budget), and the stage passed over in FreeCell;
     * the exhaustive search (width -4) wins Baker's Dozen 3 and FreeCell 1
     * with lines that check, proves 104 lost (dead at its root), and the
     * search goes on past a small cap; the probes (width -5) win both deals
     * with lines that check, and on a lost deal end at the budget: a probe
     * that exhausts its own position's space proves nothing of the deal */
    static const struct {
        int width, game;
        unsigned long long deal;
        long long cap, budget;
        int status;
        long long states; /* -1: not checked */
    } stages[] = {{-3, BAKERS_DOZEN, 14902, 100000, 3000000, BK_EXHAUSTED, 1 + 77881},
                  {-6, BAKERS_DOZEN, 14902, 100000, 3000000, BK_EXHAUSTED, 1 + 79082},
                  {-6, BAKERS_DOZEN, 9515, 100000, 200000, BK_LIMIT, 200000},
                  {-6, BAKERS_DOZEN, 9515, 1000000, 3000000, BK_EXHAUSTED, 585281},
                  {-6, FREECELL, 1, 1000, 3000000, BK_WIN, -1},
                  {-3, BAKERS_DOZEN, 14902, 1000, 5000, BK_LIMIT, 5000},
                  {-3, FREECELL, 1, 1000, 3000000, BK_WIN, -1},
                  {-4, BAKERS_DOZEN, 3, 1000000, 3000000, BK_WIN, -1},
                  {-4, FREECELL, 1, 1000000, 3000000, BK_WIN, -1},
                  {-4, BAKERS_DOZEN, 104, 1000000, 3000000, BK_EXHAUSTED, -1},
                  {-4, BAKERS_DOZEN, 14902, 1000, 5000, BK_LIMIT, 5000},
                  {-5, BAKERS_DOZEN, 3, 1000, 3000000, BK_WIN, -1},
                  {-5, FREECELL, 1, 1000, 3000000, BK_WIN, -1},
                  {-5, BAKERS_DOZEN, 14902, 1000, 50000, BK_LIMIT, 50000},
                  {-5, BAKERS_DOZEN, 14902, 1, 5000, BK_LIMIT, 5000}};
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        int fc = stages[i].game == FREECELL;
        ready_deal(stages[i].game, fc ? 4 : 0, stages[i].deal, &r, &pl, &p);
        p.first_stage = 1;
        p.nbeams = 1;
        p.width[0] = stages[i].width;
        p.sel[0] = stages[i].cap;
        CHECK(bk_portfolio_check(&p) == 0);
        bk_found *found = NULL;
        bk_budget_start(&b, stages[i].budget, 0, 0);
        CHECK(bk_solve(&r, &p, &b, pl.key, &found) == stages[i].status);
        if (stages[i].states >= 0)
            CHECK(b.states == stages[i].states);
        if (stages[i].status == BK_LIMIT)
            CHECK(b.limit == BK_LIM_STATES);
        if (stages[i].status == BK_WIN) {
            bk_counts counts;
            CHECK(bk_found_checked(found, &r, &pl, &counts) == 0);
            CHECK(counts.checked && counts.moves > 0);
        }
        bk_found_free(found, &b);
        CHECK(b.bytes == 0);
    }
    ready_deal(BAKERS_DOZEN, 0, 3, &r, &pl, &p);
    p.nbeams = 1;
    p.width[0] = -9;
    p.sel[0] = 1000;
    CHECK(bk_portfolio_check(&p) == -BK_ERR_STAGES);
    p.width[0] = -5; /* the probes need a size */
    p.sel[0] = 0;
    CHECK(bk_portfolio_check(&p) == -BK_ERR_STAGES);
    p.sel[0] = 1;
    CHECK(bk_portfolio_check(&p) == 0);
}

static void test_probes(void)
{
    bk_rules r;
    bk_placed pl;
    game_rules(FREECELL, 4, &r);
    dealt(FREECELL, 1, &r, &pl);
    int moves[512][2];
    int n = bk_legal_moves(&r, &pl, moves, 512);
    /* deal 1: 8 columns to 4 cells, and the builds among the exposed cards */
    CHECK(n >= 32);
    bk_weights w = {1, 1, 1, 1, 1, 1, 0};
    bk_child *kids = malloc(BK_MAXCHILD * sizeof *kids);
    CHECK(kids != NULL);
    int k = bk_children(&r, &w, pl.key, kids);
    CHECK(k > 0 && k <= n);
    free(kids);
}

int main(void)
{
    bk_init();
    test_dealing();
    test_positions();
    test_portfolio();
    test_race();
    test_restarts();
    test_cellclose();
    test_record_sort();
    test_disk();
    test_disk_runs();
    test_interrupt();
    test_lines();
    test_short_and_exhaust();
    test_relax();
    test_probes();
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
