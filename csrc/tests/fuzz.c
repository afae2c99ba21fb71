/*
 * A fuzz driver for the position parser and the line player and checker:
 * the input picks a game, columns of card bytes and cells (anything at all:
 * repeated, out of range, too long), then a line of card moves and a line of
 * single-card moves; the move generator and the pool relaxation (pruning
 * rule 8) run on the position too. Whatever the bytes, the library must answer with a code,
 * never crash or read out of bounds (run under ASan and UBSan).
 *
 * With clang's libFuzzer (-fsanitize=fuzzer) LLVMFuzzerTestOneInput is the
 * entry point; otherwise main() feeds it deterministic random inputs (a
 * xorshift generator from a seed) for the seconds it is given: half of them
 * random bytes, half real deals of the three games followed by random moves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bakers.h"

typedef struct {
    const uint8_t *p;
    size_t n;
} Input;

static int take(Input *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        bk_init();
        ready = 1;
    }
    Input in = {data, size};
    int game = take(&in) % 3;
    int ncols = game == 2 ? 13 : 8;
    int ncells = game == 2 ? 0 : take(&in) % 10; /* 9: out of range */
    bk_rules r;
    if (bk_rules_init(&r, ncols, ncells, game == 0 ? BK_BUILD_ALT : game, game != 2, game != 2) <
        0)
        return 0;
    uint8_t cols[BK_MAXCOLS][80];
    const uint8_t *colp[BK_MAXCOLS];
    int lens[BK_MAXCOLS];
    for (int i = 0; i < ncols; i++) {
        lens[i] = take(&in) % 70; /* past the longest column */
        for (int j = 0; j < lens[i]; j++)
            cols[i][j] = (uint8_t)take(&in);
        colp[i] = cols[i];
    }
    uint8_t cells[BK_MAXCELLS];
    for (int i = 0; i < ncells; i++)
        cells[i] = (uint8_t)take(&in);
    bk_placed pl;
    uint8_t key[BK_NCARDS];
    (void)bk_position_key(&r, ncols, colp, lens, cells, ncells, key);
    if (bk_position_placed(&r, ncols, colp, lens, cells, ncells, &pl) < 0)
        return 0;
    /* a line in card terms, from the bytes */
    bk_cmove line[64];
    int n = take(&in) % 64;
    for (int t = 0; t < n; t++)
        line[t] = (bk_cmove){take(&in) - 4, take(&in) % 60 - 2, take(&in) % 60 - 4};
    bk_pmoves moves = {0}, singles = {0};
    if (bk_play_line(&r, &pl, line, (size_t)n, &moves, &singles) == 0) {
        bk_placed copy = pl;
        (void)bk_check_line(&r, &copy, singles.v, singles.n);
    }
    bk_pmoves_free(&moves);
    bk_pmoves_free(&singles);
    /* a line of single-card moves, from the bytes */
    bk_pmove single[128];
    int m = take(&in) % 128;
    for (int t = 0; t < m; t++)
        single[t] = (bk_pmove){(uint8_t)take(&in), (uint8_t)take(&in), 1};
    bk_placed copy = pl;
    (void)bk_check_line(&r, &copy, single, (size_t)m);
    /* what the move generator makes of it */
    bk_weights w = {1, 1, 1, 1, 1, 1, take(&in) % 2};
    static bk_child kids[BK_MAXCHILD];
    (void)bk_children(&r, &w, pl.key, kids);
    int legal[512][2];
    (void)bk_legal_moves(&r, &pl, legal, 512);
    /* the pool relaxation (Baker's Dozen; a code for the other games) */
    bk_budget b;
    size_t peak;
    bk_budget_start(&b, 2000, 0, 64);
    (void)bk_relax(&r, &b, pl.key, &peak);
    return 0;
}

#ifndef BK_LIBFUZZER
static uint64_t state = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* A real deal as input bytes, then random moves. */
static size_t deal_input(uint8_t *buf, size_t cap)
{
    size_t k = 0;
    int game = (int)(next() % 3); /* FreeCell, Baker's Game or Baker's Dozen */
    int ncols = game == 2 ? 13 : 8;
    uint8_t cols[BK_MAXCOLS][BK_NCARDS];
    int lens[BK_MAXCOLS];
    bk_deal(1 + next() % 100000, ncols, game == 2, cols, lens);
    buf[k++] = (uint8_t)game;
    if (game != 2)
        buf[k++] = 4;
    for (int i = 0; i < ncols; i++) {
        buf[k++] = (uint8_t)lens[i];
        memcpy(buf + k, cols[i], (size_t)lens[i]);
        k += (size_t)lens[i];
    }
    for (int i = 0; game != 2 && i < 4; i++)
        buf[k++] = BK_EMPTY_CELL;
    while (k < cap)
        buf[k++] = (uint8_t)next();
    return k;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10.0;
    state ^= argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint8_t buf[2048];
    long runs = 0;
    for (;;) {
        size_t n;
        if (runs % 2) {
            n = deal_input(buf, 64 + next() % 1500);
        } else {
            n = next() % sizeof buf;
            for (size_t i = 0; i < n; i++)
                buf[i] = (uint8_t)next();
        }
        LLVMFuzzerTestOneInput(buf, n);
        runs++;
        if (!(runs & 255)) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 >= seconds)
                break;
        }
    }
    printf("fuzz: %ld inputs in %.0f s, no report\n", runs, seconds);
    return 0;
}
#endif
