/* The portfolio: its stages as data, and the schedule that runs them — a
 * complete best-first search (with a rival in FreeCell) for a first stage;
 * if that does not conclude, beam searches and the best-first search resumed
 * in turn; then the best-first search with all that is left. */

#include "core.h"

/* --- the stages, as data ------------------------------------------------- */

/* The first stage, by "empty columns can be filled": the core is fast enough
 * to give it far more room than the Python engine's. Baker's Dozen's (the
 * one game that cannot fill them) is short: the probes after it (BD_BEAMS)
 * do better with the positions; chosen with them (below). */
static const long long FIRST_STAGE[2] = {2000, 200000};
/* A 0 in the later stages resumes the best-first search for MIDDLE_STAGE
 * more positions before the widest beams (some deals fall to one, some to
 * the other). */
static const long long MIDDLE_STAGE = 2000000;

/* The weights of the two games that build by suit or colour: chosen by
 * positions expanded on deals 1-1,000 (FreeCell) and 1-600 (Baker's Game) and
 * checked on others: FreeCell 5,001-7,000 and 20,001-22,000 expand 14 % and
 * 20 % fewer than with the Python engine's weights, Baker's Game 2,001-2,600
 * 4 % fewer. FreeCell's cards home count once since Horne's rule (pruning
 * rule 6) sends more of them home by itself: chosen with the rival below from
 * each search's own counts on deals 1-3,000 (among 22 weights for each),
 * checked on 3,001-6,000 and 12,001-24,000. Baker's Dozen keeps the Python
 * engine's. Fields: blocked, cell, home, empty, unbuilt, depth, need. */
static const Weights WEIGHTS_SAME = {1, 6, 1, 4, 1, 2, 0};
static const Weights WEIGHTS_ALT = {1, 3, 1, 2, 1, 1, 0};
static const Weights WEIGHTS_ANY = {2, 3, 2, 2, 1, 1, 1};

/* Baker's Game and FreeCell: beams of these widths, each with the main
 * weights. */
static const int BEAMS[] = {300, 1000, 3000, 10000, 0, 30000, 100000};
/* FreeCell with at most BK_FEW_CELLS cells: the best-first search resumed
 * after the two cheap beams, before the wide ones. With so few cells most
 * deals are lost, and only the best-first search proves a loss: the wide
 * beams had spent about half a million positions of a lost deal first.
 * Chosen on FreeCell deals 32,001-40,000 at 1,000,000 positions (the atlas's
 * first budget; bench/tuning.py --cells): unknown with 1 cell 32 -> 24, with
 * 2 cells 15 -> 9, with 3 cells 3 -> 3 (12,230,348 -> 11,866,550 positions);
 * resuming before every beam 26, 9 and 3. Validated on 40,001-48,000 and on
 * the atlas's first pass over 1-32,000 (docs/benchmarks.md). */
static const int BEAMS_FEW[] = {300, 1000, 0, 3000, 10000, 30000, 100000};

/* Baker's Dozen names each stage's weights: {width, k} is a beam with beam
 * weights k alone, {-1, n} the race (BD_RACE) for n positions, {-2, -1} the
 * restarts (BD_RESTARTS) to the end of the budget, {-3, n} the pool
 * relaxation (pruning rule 8) for its first n states. After the first stage:
 * the relaxation, which proves most lost deals in a few hundred states; the
 * cheap beams; the race, which bets on no one of its seven weightings; then
 * best-first searches begun afresh with weights drawn at random on Luby's
 * schedule of lengths, which bets neither on a weighting nor on a length:
 * the costliest deals are cheap for *some* weighting, a different one each
 * time, and outside any few chosen ones. Chosen on the tuning range
 * 1,001-12,000 (bench/tuning.py, docs/benchmarks.md): unknown deals at 3 M
 * positions 14 before (105,583,610 positions); restarts alone after the
 * cheap beams 8 to 12 by seed, by unit 250 to 2,000 positions; with the race
 * for 1 M before them and the relaxation for 100,000 states 9 and 7 for seeds
 * 1 and 2 (101,086,439 and 99,437,866 positions). Seed 1 was fixed before
 * any run. The validation ranges 20,001-22,000 and 40,001-42,000 were run
 * once, on the choice.
 * Then the probes ({-5, n}: n positions of best-first search from each
 * position one, two, ... moves from the root), right after the relaxation:
 * a costly deal's main search has often taken a wrong turn in its first
 * few moves and spends its budget beneath it (Baker's Dozen 5564: the
 * queen of diamonds onto the one king it can uncover frees two aces at
 * once, and from there the portfolio finds no win in 20 M positions; with
 * the queen of hearts there first the deal is won in 836). Chosen on the tuning range at 3 M
 * positions, unknown and positions (today 9 and 101,275,825): probes of
 * 1,000 after the relaxation 2 (1360 and the lost 9515) and 63,704,801; of
 * 500 and 2,000 there 2 and 64,081,477 / 67,139,265; after the cheap beams
 * (500, 1,000, 2,000, 4,000) 2 and 82.7 to 90.8 M; after the race 4; of
 * 1,000 after the relaxation with the first stage 2,000, 5,000 and 10,000
 * instead of 20,000: 2 and 54,217,992 (taken), 55,489,325, 58,488,315.
 * Validation, once: 2 unknown either way (41043 and 41121 before, 41053 and
 * 41121 after), 39,776,969 -> 23,390,100 positions, worst 3.39 -> 2.81 s.
 * Each probes stage goes one move deeper, so the depths can be spread over
 * the schedule; on 1,001-19,000 (12,001-19,000 added to the tuning range)
 * probes to depth 4 at once leave 7 unknown (101,551,457 positions), depth 3
 * then the cheap beams then depth 4 then the race 6 (96,432,802); on
 * validation that one is 2 and 24,013,281 against 2 and 23,390,100: not
 * taken (docs/benchmarks.md).
 * Then, after the probes to depth 3, the relaxation again with its fine
 * ladder ({-6, n}: the games from 7 and 5 too) for up to 1 M states, which
 * proves the lost deals the first one leaves open, and the best-first
 * search resumed for 200,000 positions before the probes of depth 4, which
 * would take the whole budget of a costly deal (each of a thousand or so
 * positions four moves in gets 1,000), where the main search wins many
 * (13264 in 987,341 positions, unknown before). Tuned on 1,001-19,000 and
 * 100,001-120,000 (added: 1,001-19,000 had one unknown deal left to learn
 * from), rule: fewest unknown, then positions: 23 unknown and 238,945,224
 * positions before; 15 and 214,920,281 (taken); the search resumed
 * before the fine relaxation 15 and 215,328,402; the race for 1 M before
 * the fine relaxation 15 and 216,025,231, at once after the first
 * relaxation 15 and 360,977,894; the race before the cheap beams 15 and
 * 215,653,870; the search resumed, the race, then the fine relaxation 16
 * and 220,058,612. Validation, once, on
 * 20,001-22,000, 40,001-42,000, 60,001-62,000, 80,001-82,000 and
 * 140,001-160,000: 24 unknown and 193,940,925 positions before, 17 and
 * 182,261,547 after.
 * The depth-first stages (-7, -8) measured there: the best, the exhaustive
 * search under its own rules for 200,000 positions after the search
 * resumed, leaves 13 unknown on tuning (213,498,649 positions) but 29
 * against 27 on the 48,000 deals of validation: not taken
 * (docs/benchmarks.md). */
static const long long BD_BEAMS[][2] = {
    {-3, 100000}, {-5, 1000}, {-5, 1000}, {-5, 1000}, {-6, 1000000}, {0, 200000}, {-5, 1000},
    {300, 0},     {300, 1},   {1000, 0},  {1000, 1},  {-1, 1000000}, {-2, -1},
};
/* The Baker's Dozen beams' weights: the two of the Python engine, and a third
 * with unbuilt cards counting twice (the one of 17 tried on deal 540 that
 * wins it with a 50,000 beam). */
static const Weights BD_BEAM_WEIGHTS[] = {
    {1, 0, 2, 0, 1, 1, 1}, {2, 0, 1, 0, 1, 1, 1}, {1, 0, 2, 0, 2, 1, 1}};
/* The Baker's Dozen race: six weightings beside the main one, turns of 1,000
 * positions. Fields as above: blocked, cell, home, empty, unbuilt, depth,
 * need (cells and empty columns play no part in Baker's Dozen). */
static const Weights BD_RACE[] = {{3, 3, 3, 2, 0, 1, 2}, {2, 3, 1, 2, 3, 1, 0},
                                  {1, 3, 3, 2, 0, 2, 2}, {1, 3, 4, 2, 0, 2, 0},
                                  {2, 0, 1, 0, 1, 1, 1}, {4, 3, 2, 2, 2, 1, 2}};
static const long long BD_RACE_TURN = 1000;
/* The Baker's Dozen restarts: units of 250 positions; weights drawn with
 * blocked, home and unbuilt in 0-4, depth in 1-3 and need in 0-3 (cells
 * and empty columns play no part). */
static const bk_restarts BD_RESTARTS = {250, 1, {0, 0, 0, 0, 0, 1, 0}, {4, 0, 4, 0, 4, 3, 3}, 0};
/* Baker's Game and FreeCell keep restarts as data but no stage of their
 * default schedule: with few cells a proof of loss needs the main search's
 * whole budget, and on the tuning ranges at 3 M positions no deal is left to
 * them. The solver's restarts search (``search="restarts"``: ``bakers solve
 * --restarts``, the atlas's ``--retry-search restarts``) runs them after the
 * first stage in place of the beams, taking turns with the main search: units of 1,000 positions,
 * weights drawn with blocked, home and unbuilt in 0-4, cell and empty in
 * 0-6, depth in 1-3, need in 0-3. */
static const bk_restarts RESTARTS_WITH_MAIN = {1000, 1, {0, 0, 0, 0, 0, 1, 0},
                                               {4, 6, 4, 6, 4, 3, 3}, 1};

/* FreeCell's rival (unbuilt cards counting twice, and the cards above each
 * foundation's next card once) solves half the deals in fewer than 90
 * positions but has a long tail: 400 positions first, then 64 for every 512
 * of the main search, up to 1,000. Chosen by simulation from each search's
 * own counts on deals 1-3,000 and checked by timing on 1-2,000 and
 * 20,001-22,000; with Horne's rule the pair expands 2,493,447 positions on
 * deals 1-12,000 and 2,284,789 on 12,001-24,000 (not used to choose). */
static const Rival RIVAL_ALT = {{1, 5, 2, 4, 2, 1, 1}, 400, 512, 64, 1000};

/* The weights' fields in order: blocked, cell, home, empty, unbuilt, depth,
 * need. */
enum { NFIELDS = 7 };
static void weight_fields(const Weights *w, int *out)
{
    const int v[NFIELDS] = {w->blocked, w->cell, w->home, w->empty, w->unbuilt, w->depth, w->need};
    memcpy(out, v, sizeof v);
}

void bk_portfolio_default(int build, int can_fill, int ncells, bk_portfolio *p)
{
    memset(p, 0, sizeof *p);
    p->first_stage = FIRST_STAGE[can_fill != 0];
    p->middle_stage = MIDDLE_STAGE;
    if (build == BUILD_ANY) {
        p->weights = WEIGHTS_ANY;
        p->nbeams = (int)(sizeof BD_BEAMS / sizeof BD_BEAMS[0]);
        for (int i = 0; i < p->nbeams; i++) {
            p->width[i] = (int)BD_BEAMS[i][0];
            p->sel[i] = BD_BEAMS[i][1];
        }
        p->nbw = (int)(sizeof BD_BEAM_WEIGHTS / sizeof BD_BEAM_WEIGHTS[0]);
        memcpy(p->beam_weights, BD_BEAM_WEIGHTS, sizeof BD_BEAM_WEIGHTS);
        p->race.n = (int)(sizeof BD_RACE / sizeof BD_RACE[0]);
        p->race.turn = BD_RACE_TURN;
        p->race.until = -1;
        memcpy(p->race.w, BD_RACE, sizeof BD_RACE);
        p->restarts = BD_RESTARTS;
        return;
    }
    p->weights = build == BUILD_SAME ? WEIGHTS_SAME : WEIGHTS_ALT;
    const int *beams = build == BUILD_ALT && ncells <= BK_FEW_CELLS ? BEAMS_FEW : BEAMS;
    p->nbeams = (int)(sizeof BEAMS / sizeof BEAMS[0]);
    for (int i = 0; i < p->nbeams; i++) {
        p->width[i] = beams[i];
        p->sel[i] = -1;
    }
    p->nbw = 1;
    p->beam_weights[0] = p->weights;
    p->restarts = RESTARTS_WITH_MAIN;
    if (build == BUILD_ALT) {
        p->has_rival = 1;
        p->rival = RIVAL_ALT;
    }
}

int bk_portfolio_check(const bk_portfolio *p)
{
    if (bk_weights_check(&p->weights) < 0 || (p->has_rival && bk_weights_check(&p->rival.w) < 0))
        return -BK_ERR_WEIGHTS;
    if (p->has_rival && (p->rival.head < 0 || p->rival.q_main < 1 || p->rival.q_rival < 1 ||
                         p->rival.limit < 1))
        return -BK_ERR_RIVAL;
    if (p->nbeams < 0 || p->nbeams > BK_MAXSTAGES)
        return -BK_ERR_STAGES;
    for (int i = 0; i < p->nbeams; i++)
        if (p->width[i] < -8 || p->width[i] > 10000000)
            return -BK_ERR_STAGES;
    if (p->nbw > BK_MAXBEAMW || (p->nbeams && p->nbw < 1))
        return -BK_ERR_BEAM_WEIGHTS;
    for (int i = 0; i < p->nbw; i++)
        if (bk_weights_check(&p->beam_weights[i]) < 0)
            return -BK_ERR_WEIGHTS;
    for (int i = 0; i < p->nbeams; i++)
        if (p->width[i] > 0 && p->sel[i] >= p->nbw)
            return -BK_ERR_NO_WEIGHTS;
    if (p->race.n < 0 || p->race.n > BK_MAXRACE || (p->race.n && p->race.turn < 1))
        return -BK_ERR_RACE;
    for (int i = 0; i < p->nbeams; i++)
        if (p->width[i] == -1 && !p->race.n)
            return -BK_ERR_RACE;
    for (int i = 0; i < p->nbeams; i++)
        if (p->width[i] == -5 && p->sel[i] < 1)
            return -BK_ERR_STAGES;
    const bk_restarts *rs = &p->restarts;
    for (int i = 0; i < p->nbeams; i++)
        if ((p->width[i] == -2 || p->width[i] == -8) && rs->unit < 1)
            return -BK_ERR_RESTARTS;
    if (rs->unit < 0)
        return -BK_ERR_RESTARTS;
    if (rs->unit > 0) {
        if (bk_weights_check(&rs->lo) < 0 || bk_weights_check(&rs->hi) < 0)
            return -BK_ERR_RESTARTS;
        int lo[NFIELDS], hi[NFIELDS];
        weight_fields(&rs->lo, lo);
        weight_fields(&rs->hi, hi);
        for (int k = 0; k < NFIELDS; k++)
            if (lo[k] > hi[k] || lo[k] < 0)
                return -BK_ERR_RESTARTS;
    }
    for (int i = 0; i < p->race.n; i++)
        if (bk_weights_check(&p->race.w[i]) < 0)
            return -BK_ERR_WEIGHTS;
    return 0;
}

/* --- the schedule ---------------------------------------------------------- */

struct bk_found {
    BestFirst bf, rbf;
    BestFirst rs; /* the restarts' search of the moment */
    BestFirst race[BK_MAXRACE];
    int nrace; /* the race's searches begun */
    Store beam_store;
    Store tree;      /* the probes' positions near the root */
    Vec probe_level; /* the deepest complete level of them */
    int probe_depth; /* its depth (0: the root alone) */
    Child *kids;
    Store *win_store; /* NULL: the root was won, or the line is ``xline`` */
    uint32_t win;
    CMove *xline; /* the exhaustive stage's winning line, if it won */
    size_t nxline;
    size_t peak;
};

/* The race (see bk_race): the main search ``f->bf`` and the race's own
 * searches, each begun at its first turn, in turns until a verdict, a limit
 * or ``end`` positions in all (ST_STAGE: its searches freed, the main one
 * goes on);
 * ``*which`` is the search that ended it. */
static int run_race(const Rules *r, const bk_race *rc, Budget *b, const uint8_t *root,
                    bk_found *f, Child *kids, BestFirst **which, size_t *peak, long long end)
{
    for (;;) {
        for (int k = -1; k < rc->n; k++) {
            BestFirst *s = k < 0 ? &f->bf : &f->race[k];
            if (k >= f->nrace) {
                if (bf_init(s, r, &rc->w[k], b, root, key_h(r, &rc->w[k], root)) < 0) {
                    f->nrace = k + 1;
                    if (!b->limit)
                        b->limit = LIM_MEMORY;
                    return ST_LIMIT;
                }
                f->nrace = k + 1;
            }
            long long until = b->states + rc->turn;
            int st = bf_run(s, b, until < end ? until : end, kids);
            if (b->bytes > *peak)
                *peak = b->bytes;
            if (st != ST_STAGE) {
                *which = s;
                return st;
            }
            if (b->states >= end) {
                for (int i = 0; i < f->nrace; i++)
                    bf_free(&f->race[i], b);
                f->nrace = 0;
                *which = &f->bf;
                return ST_STAGE;
            }
        }
    }
}

/* The i-th term (from 1) of Luby's sequence: 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... */
static long long luby(long long i)
{
    for (;;) {
        int k = 1;
        while ((1LL << k) - 1 < i)
            k++;
        if ((1LL << k) - 1 == i)
            return 1LL << (k - 1);
        i -= (1LL << (k - 1)) - 1;
    }
}

/* splitmix64: the restarts' generator of weights */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Search i's weights: each field drawn from [lo, hi], in field order. */
static Weights draw_weights(const bk_restarts *rs, uint64_t *state)
{
    int lo[NFIELDS], hi[NFIELDS], v[NFIELDS];
    weight_fields(&rs->lo, lo);
    weight_fields(&rs->hi, hi);
    for (int k = 0; k < NFIELDS; k++)
        v[k] = lo[k] + (int)(next_random(state) % (uint64_t)(hi[k] - lo[k] + 1));
    return (Weights){v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

/* The restarts (see bk_restarts; with the main search between them if
 * ``with_main``) until a verdict, a limit or ``end`` positions in all
 * (ST_STAGE: the later stages go on with the main search).
 * A win leaves its search in ``f->rs`` and ``*which`` pointing at it. */
static int run_restarts(const Rules *r, const bk_restarts *rs, Budget *b, const uint8_t *root,
                        bk_found *f, Child *kids, BestFirst **which, size_t *peak, long long end)
{
    uint64_t state = rs->seed;
    for (long long i = 1; b->states < end; i++) {
        Weights w = draw_weights(rs, &state);
        if (bf_init(&f->rs, r, &w, b, root, key_h(r, &w, root)) < 0) {
            if (!b->limit)
                b->limit = LIM_MEMORY;
            return ST_LIMIT;
        }
        long long len = rs->unit * luby(i);
        int st = bf_run(&f->rs, b, end - b->states < len ? end : b->states + len, kids);
        if (b->bytes > *peak)
            *peak = b->bytes;
        if (st != ST_STAGE) {
            *which = &f->rs;
            return st;
        }
        bf_free(&f->rs, b);
        if (rs->with_main && b->states < end) {
            st = bf_run(&f->bf, b, end - b->states < len ? end : b->states + len, kids);
            if (b->bytes > *peak)
                *peak = b->bytes;
            if (st != ST_STAGE) {
                *which = &f->bf;
                return st;
            }
        }
    }
    *which = &f->bf;
    return ST_STAGE;
}

/* One stage that runs to a verdict or a cap of its own, for at most
 * ``more`` positions (negative: to the end of the budget). -3: the pool
 * relaxation (pruning rule 8), its short ladder of games (-6: its fine
 * one): a lost relaxed game proves the deal lost, a won one goes on. -4: the
 * exhaustive search under the portfolio's rules, so that its line is played
 * as every line is: a small lost space is proven lost where the best-first
 * search's own order would meet the budget first; a win ends the search.
 * -7 and -8 (a turn of the depth-first restarts): the exhaustive search
 * under its own rules (rule 6's looser form), children ordered by ``w``,
 * whose order meets some wins that every best-first search here misses; its
 * line is made a line of the portfolio's rules (usual_line) before it is
 * played. ST_STAGE where the schedule goes on (the stage out of its states
 * or memory, or the relaxed game won), ST_WIN with the line in
 * ``f->xline``, ST_EXHAUSTED (the deal is lost), or the budget's own
 * limit. */
static int capped_stage(const Rules *r, int kind, const Weights *w, Budget *b,
                        const uint8_t *root, long long more, bk_found *f, size_t *peak)
{
    const int loose = kind == -7 || kind == -8; /* under the exhaustive search's rules */
    Rules rx = *r;
    if (loose)
        bk_rules_exhaustive(&rx);
    long long saved = b->max_states;
    long long cap = more >= 0 ? b->states + more : saved;
    if (cap >= 0 && (saved < 0 || cap < saved))
        b->max_states = cap;
    size_t speak = 0, nx = 0;
    CMove *xl = NULL;
    int st = kind == -3   ? relax_short(r, b, root, &speak)
             : kind == -6 ? bk_relax(r, b, root, &speak)
                          : bk_exhaust(&rx, w, b, root, &xl, &nx, &speak);
    b->max_states = saved;
    if (speak > *peak)
        *peak = speak;
    if (st == ST_WIN && xl) {
        if (loose) {
            size_t nu = 0;
            CMove *ul = usual_line(r, &rx, root, xl, nx, &nu);
            free(xl);
            if (!ul)
                return ST_ERROR;
            xl = ul;
            nx = nu;
        }
        free(f->xline);
        f->xline = xl;
        f->nxline = nx;
        return ST_WIN;
    }
    free(xl);
    if (st == ST_WIN)
        return ST_STAGE;
    if (st == ST_LIMIT && (b->limit == LIM_MEMORY ||
                           (b->limit == LIM_STATES && (saved < 0 || b->states < saved)))) {
        b->limit = 0;
        return ST_STAGE;
    }
    return st < 0 ? ST_ERROR : st;
}

/* The depth-first restarts' unit, in units of the best-first restarts': on
 * the 15 Baker's Dozen deals of the tuning range that today's schedule
 * leaves unknown, the depth-first restarts alone for 3 M positions win 3 of
 * them with a unit of 250 positions, 6 with 1,000 and 4 with 4,000. */
#define DFS_UNIT_SCALE 4

/* The depth-first restarts (width -8): the exhaustive search under its own
 * rules begun afresh from the root, each time with weights drawn as the
 * restarts draw them and for ``rs->unit`` times DFS_UNIT_SCALE times Luby's
 * sequence positions, until a win, a proof of loss (a search that exhausts
 * its space), a limit or ``end`` positions in all. */
static int run_dfs_restarts(const Rules *r, const bk_restarts *rs, Budget *b,
                            const uint8_t *root, bk_found *f, size_t *peak, long long end)
{
    uint64_t state = rs->seed;
    for (long long i = 1; b->states < end; i++) {
        Weights w = draw_weights(rs, &state);
        long long len = rs->unit * DFS_UNIT_SCALE * luby(i);
        if (len > end - b->states)
            len = end - b->states;
        int st = capped_stage(r, -8, &w, b, root, len, f, peak);
        if (st != ST_STAGE)
            return st;
    }
    return ST_STAGE;
}

/* The probes' tree and last level given back (the tree's records stay
 * when a win lies in it: they are its line). */
static void probes_free(bk_found *f, Budget *b)
{
    budget_free(b, f->probe_level.data, f->probe_level.cap * sizeof(uint64_t));
    f->probe_level = (Vec){0};
    if (f->win_store != &f->tree)
        store_free(&f->tree);
}

/* The probes (see bk_portfolio, width -5), one move deeper than the last
 * probes stage of the schedule (the first: one move from the root, at most
 * PROBE_MAX_DEPTH): the positions at that depth, met breadth first from the
 * last stage's (each expansion counted as a position; the tree is kept in
 * ``f->tree`` from stage to stage), each searched afresh best-first with
 * the main weights for ``per`` positions, until a win, a limit or ``end``
 * positions in all (ST_STAGE: the later stages go on with the main
 * search). A probe that exhausts its position's space proves only that
 * position lost: the next one goes on. A win leaves its search in
 * ``f->rs`` (``*which``), or its record in ``f->tree`` when a move of the
 * tree itself wins. */
static int run_probes(const Rules *r, const Weights *w, Budget *b, const uint8_t *root,
                      bk_found *f, Child *kids, BestFirst **which, size_t *peak, long long per,
                      long long end)
{
    Store *t = &f->tree;
    Vec next = {0};
    int st = ST_STAGE;
    if (!t->slots) { /* the first probes stage: the tree is the root alone */
        uint32_t ri;
        if (store_init(t, b) < 0 || (ri = store_add(t, root, hash_key(root))) == FULL ||
            vec_push(b, &f->probe_level, ri) < 0) {
            st = ST_LIMIT;
            goto out;
        }
        rec_at(t, ri)->parent = UINT32_MAX;
    }
    if (f->probe_depth >= PROBE_MAX_DEPTH)
        goto out;
    for (uint32_t j = 0; j < f->probe_level.n; j++) {
        if (b->states >= end)
            goto out;
        if (!(b->states & 255) && budget_check(b)) {
            st = ST_LIMIT;
            goto out;
        }
        uint32_t pi = (uint32_t)f->probe_level.data[j];
        uint8_t key[NCARDS];
        memcpy(key, rec_at(t, pi)->key, NCARDS);
        uint32_t ph = rec_at(t, pi)->hash;
        Pos pos;
        if (decode(r, w, key, &pos) < 0) {
            st = ST_ERROR;
            goto out;
        }
        pos.known_live = rec_is_child(rec_at(t, pi));
        b->states++;
        int n = generate(r, w, key, ph, &pos, pos_h(w, &pos), kids);
        for (int c = 0; c < n; c++) {
            uint32_t ci = store_add(t, kids[c].key, kids[c].hash);
            if (ci == SEEN)
                continue;
            if (ci == FULL) {
                st = ST_LIMIT;
                goto out;
            }
            rec_link(rec_at(t, ci), pi, &kids[c]);
            if (kids[c].win) {
                f->win = ci;
                f->win_store = t;
                *which = NULL;
                st = ST_WIN;
                goto out;
            }
            if (vec_push(b, &next, ci) < 0) {
                st = ST_LIMIT;
                goto out;
            }
        }
    }
    /* the level is complete: the next probes stage starts from it */
    budget_free(b, f->probe_level.data, f->probe_level.cap * sizeof(uint64_t));
    f->probe_level = next;
    f->probe_depth++;
    next = (Vec){0};
    for (uint32_t j = 0; j < f->probe_level.n; j++) {
        if (b->states >= end)
            goto out;
        if (bf_init_at(&f->rs, r, w, b, t, (uint32_t)f->probe_level.data[j]) < 0) {
            bf_free(&f->rs, b);
            st = ST_LIMIT;
            goto out;
        }
        long long until = end - b->states < per ? end : b->states + per;
        st = bf_run(&f->rs, b, until, kids);
        if (b->bytes > *peak)
            *peak = b->bytes;
        if (st == ST_WIN || st == ST_LIMIT || st == ST_ERROR) {
            *which = &f->rs;
            goto out;
        }
        bf_free(&f->rs, b);
        st = ST_STAGE; /* exhausted: that position is lost, not the deal */
    }
out:
    if (st == ST_LIMIT && !b->limit)
        b->limit = LIM_MEMORY;
    if (st == ST_STAGE)
        *which = &f->bf;
    if (b->bytes > *peak)
        *peak = b->bytes;
    budget_free(b, next.data, next.cap * sizeof(uint64_t));
    if (st != ST_STAGE && !(st == ST_WIN && *which == NULL))
        probes_free(f, b);
    return st;
}

int bk_solve(const Rules *rp, const bk_portfolio *p, Budget *b, const uint8_t *root_in,
             bk_found **found)
{
    const Rules r = *rp;
    const Weights w = p->weights;
    const int has_rival = p->has_rival, nbeams = p->nbeams, nbw = p->nbw;
    const Rival rv = p->rival;
    const long long max_states = b->max_states;
    uint8_t root[NCARDS];
    memcpy(root, root_in, NCARDS);
    bk_found *f = calloc(1, sizeof *f);
    if (!f)
        return -BK_ERR_NOMEM;
    *found = f;
    f->kids = malloc(MAXCHILD * sizeof(Child));
    if (!f->kids)
        return -BK_ERR_NOMEM;
    Child *kids = f->kids;
    int fnd[4];
    foundations(root, fnd);
    int status = ST_EXHAUSTED;
    BestFirst *which = &f->bf; /* the best-first search a win comes from (NULL: a beam) */
    size_t peak = 0;

    int home = close_key(&r, root, fnd);
    if (home == NCARDS) {
        status = ST_WIN;
        which = NULL;
    } else if (bf_init(&f->bf, &r, &w, b, root, key_h(&r, &w, root)) < 0 ||
               (has_rival &&
                bf_init(&f->rbf, &r, &rv.w, b, root, key_h(&r, &rv.w, root)) < 0)) {
        status = ST_LIMIT;
        if (!b->limit)
            b->limit = LIM_MEMORY;
    } else {
        long long stop = p->first_stage >= 0 ? p->first_stage : (1LL << 62);
        if (max_states >= 0 && stop > max_states)
            stop = max_states;
        status = has_rival ? bf_duel(&f->bf, &f->rbf, &rv, b, stop, kids, &which)
                           : bf_run(&f->bf, b, stop, kids);
        if (status == ST_STAGE && has_rival) {
            if (b->bytes > peak)
                peak = b->bytes;
            bf_free(&f->rbf, b); /* the later stages go on with the main search */
            which = &f->bf;
        }
        if (status == ST_STAGE) {
            for (int i = 0; i < nbeams && status == ST_STAGE; i++) {
                if (p->width[i] == -1) {
                    /* the race, for sel[i] positions (or its own ``until``) */
                    long long more = p->sel[i] >= 0 ? p->sel[i] : p->race.until;
                    long long until = more >= 0 ? b->states + more : (1LL << 62);
                    status = run_race(&r, &p->race, b, root, f, kids, &which, &peak, until);
                    continue;
                }
                if (p->width[i] == -3 || p->width[i] == -4 || p->width[i] == -6 ||
                    p->width[i] == -7) {
                    /* see capped_stage; all but -4 where the rules have
                     * pruning rule 7 (Baker's Dozen) */
                    if (p->width[i] != -4 && !r.dead)
                        continue;
                    status = capped_stage(&r, p->width[i], &w, b, root, p->sel[i], f, &peak);
                    if (status == ST_WIN)
                        which = NULL;
                    continue;
                }
                if (p->width[i] == -5) {
                    /* the probes, sel[i] positions each */
                    long long until = max_states >= 0 ? max_states : (1LL << 62);
                    status = run_probes(&r, &w, b, root, f, kids, &which, &peak, p->sel[i],
                                        until);
                    continue;
                }
                if (p->width[i] == -2 || p->width[i] == -8) {
                    /* the restarts, best first (-2) or depth first (-8,
                     * Baker's Dozen), for sel[i] positions or to the end */
                    if (p->width[i] == -8 && !r.dead)
                        continue;
                    long long until = p->sel[i] >= 0 ? b->states + p->sel[i] : (1LL << 62);
                    if (max_states >= 0 && until > max_states)
                        until = max_states;
                    if (p->width[i] == -2) {
                        status = run_restarts(&r, &p->restarts, b, root, f, kids, &which, &peak,
                                              until);
                    } else if ((status = run_dfs_restarts(&r, &p->restarts, b, root, f, &peak,
                                                          until)) == ST_WIN) {
                        which = NULL;
                    }
                    continue;
                }
                if (p->width[i] == 0) {
                    /* the complete search resumed for a while between beams */
                    long long more = p->sel[i] >= 0 ? p->sel[i] : p->middle_stage;
                    long long until = b->states + (more > 0 ? more : 0);
                    if (max_states >= 0 && until > max_states)
                        until = max_states;
                    status = bf_run(&f->bf, b, until, kids);
                    if (status == ST_STAGE && max_states >= 0 && b->states >= max_states) {
                        status = ST_LIMIT;
                        b->limit = LIM_STATES;
                    }
                    continue;
                }
                int k0 = p->sel[i] >= 0 ? (int)p->sel[i] : 0, k1 = p->sel[i] >= 0 ? k0 + 1 : nbw;
                for (int k = k0; k < k1; k++) {
                    int st = beam(&r, &p->beam_weights[k], b, root, p->width[i], &f->beam_store,
                                  &f->win, kids);
                    if (b->bytes > peak)
                        peak = b->bytes;
                    if (st == ST_WIN) {
                        status = ST_WIN;
                        f->win_store = &f->beam_store;
                        which = NULL;
                        break;
                    }
                    store_free(&f->beam_store);
                    if (st == ST_LIMIT || st == ST_ERROR) {
                        status = st;
                        break;
                    }
                }
            }
            if (status == ST_STAGE) {
                long long rest = max_states >= 0 ? max_states : (1LL << 62);
                status = bf_run(&f->bf, b, rest, kids);
                if (status == ST_STAGE)
                    status = ST_LIMIT, b->limit = LIM_STATES;
            }
        } else if (status == ST_LIMIT && !b->limit) {
            b->limit = LIM_MEMORY;
        }
        if (status == ST_WIN && which) {
            f->win = which->win;
            f->win_store = &which->store;
        }
    }
    if (b->bytes > peak)
        peak = b->bytes;
    f->peak = peak;
    return status;
}

size_t bk_found_peak(const bk_found *f) { return f ? f->peak : 0; }

CMove *bk_found_line(const bk_found *f, size_t *n)
{
    if (f->xline) {
        CMove *line = malloc((f->nxline ? f->nxline : 1) * sizeof(CMove));
        if (line) {
            memcpy(line, f->xline, f->nxline * sizeof(CMove));
            *n = f->nxline;
        }
        return line;
    }
    if (!f->win_store) {
        *n = 0;
        return malloc(sizeof(CMove));
    }
    return path_from(f->win_store, f->win, n);
}

int bk_found_checked(const bk_found *f, const Rules *r, Placed *pl, bk_counts *out)
{
    if (f->xline)
        return checked_path(r, pl, f->xline, f->nxline, out);
    return checked_counts(r, pl, f->win_store, f->win, out);
}

void bk_found_free(bk_found *f, Budget *b)
{
    if (!f)
        return;
    store_free(&f->beam_store);
    f->win_store = NULL;
    probes_free(f, b);
    bf_free(&f->rs, b);
    for (int i = 0; i < f->nrace; i++)
        bf_free(&f->race[i], b);
    bf_free(&f->rbf, b);
    bf_free(&f->bf, b);
    free(f->xline);
    free(f->kids);
    free(f);
}
