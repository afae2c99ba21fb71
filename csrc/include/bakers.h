/*
 * bakers: the search core of a solver for Baker's Game, FreeCell and Baker's
 * Dozen, as a C library with no dependency but the C library and POSIX
 * threads. The rules come in as data (bk_rules_init), positions as columns
 * of card indices (card = rank * 4 + suit, rank 0 for an ace, suits clubs,
 * diamonds, hearts, spades), searches as parameters (bk_portfolio); every
 * entry point returns a status or a negative BK_ERR_ code, and reads or
 * writes only what it is given. Interrupts arrive through the budget's
 * callback. A caller (the Python module bakers.solver._native) replays every
 * line through a rules engine before it believes it.
 */
#ifndef BAKERS_H
#define BAKERS_H

#include <stddef.h>
#include <stdint.h>

#define BK_NCARDS 52
#define BK_MAXCOLS 13
#define BK_MAXCELLS 8
#define BK_MAXLEN 64
#define BK_MAXCHILD 1024 /* children of one position, at most */
#define BK_MAXSTAGES 32  /* later stages of a portfolio */
#define BK_MAXBEAMW 8    /* beam weightings of a portfolio */
#define BK_MAXRACE 24    /* weightings raced beside the main search */
#define BK_EMPTY_CELL 255
#define BK_DEAL_LIMIT (1ULL << 33) /* deal numbers run from 1 to 2^33 - 1 */
#define BK_RECORD_BYTES 64         /* a stored position */
/* FreeCell with at most this many cells is "few cells": most deals are lost
 * there, so the portfolio resumes its best-first search early, and (with one
 * cell at least) pruning rule 10 holds in every search but the short one. */
#define BK_FEW_CELLS 3

/* Build policies. */
enum { BK_BUILD_SAME = 0, BK_BUILD_ALT = 1, BK_BUILD_ANY = 2 };
/* What a search ended with. */
enum { BK_RUNNING = 0, BK_WIN, BK_EXHAUSTED, BK_LIMIT, BK_STAGE, BK_ERROR };
/* The limit that stopped it (bk_budget.limit). */
enum { BK_LIM_NONE = 0, BK_LIM_STATES, BK_LIM_TIME, BK_LIM_MEMORY, BK_LIM_INTERRUPT, BK_LIM_DISK };
/* Errors, returned negated. */
enum {
    BK_OK = 0,
    BK_ERR_NOMEM,       /* out of memory */
    BK_ERR_RULES,       /* rules out of range */
    BK_ERR_NCOLS,       /* wrong number of columns */
    BK_ERR_LONG,        /* column too long */
    BK_ERR_CARD,        /* bad or repeated card */
    BK_ERR_CELLS,       /* more cards in cells than cells */
    BK_ERR_FOUNDATIONS, /* foundations must be contiguous from the ace */
    BK_ERR_CELL_BYTES,  /* one byte a cell */
    BK_ERR_WEIGHTS,     /* weights out of range */
    BK_ERR_STAGES,      /* beam stage out of range */
    BK_ERR_RIVAL,       /* a rival's turns must be positive */
    BK_ERR_BEAM_WEIGHTS, /* 1 to 8 beam weights */
    BK_ERR_NO_WEIGHTS,  /* a beam stage names no beam weights */
    BK_ERR_MALFORMED,   /* a position the core cannot decode */
    BK_ERR_LINE,        /* the line does not fit the position */
    BK_ERR_RUN,         /* a run too long for the spaces */
    BK_ERR_MOVE,        /* a move of the line is out of range */
    BK_ERR_DEAL,        /* deal number or columns out of range */
    BK_ERR_RACE,        /* a race needs 1 to 24 weightings and a positive turn */
    BK_ERR_RESUME,      /* the work directory holds another search (or none to resume) */
    BK_ERR_IO,          /* a file of the work directory could not be read or written */
    BK_ERR_RESTARTS,    /* restarts need a positive unit and each low weight at most its high */
    BK_ERR_COUNT
};

/* The heuristic's weights (h: the lower, the nearer a win). */
typedef struct {
    int blocked, cell, home, empty, unbuilt, depth;
    int need; /* per card lying above the next card each foundation needs */
} bk_weights;

/* The rules of a game as tables (made by bk_rules_init). */
typedef struct {
    int ncols, ncells, build, can_fill, supermoves, always_safe, horne;
    int dead; /* children no card of which can ever go home are dropped (pruning rule 7) */
    /* a cell's card goes onto an exposed parent: 1 its natural parent
     * (pruning rule 9, Baker's Game), 2 one of two when every cell is full
     * (pruning rule 10, FreeCell with one to three cells); 0 never */
    int cellclose;
    uint8_t builds[BK_NCARDS][BK_NCARDS]; /* builds[c][p]: c may lie on p */
    uint8_t parents[BK_NCARDS][4];
    uint8_t nparents[BK_NCARDS];
    uint8_t children[BK_NCARDS][4];
    uint8_t nchildren[BK_NCARDS];
} bk_rules;

/* Limits shared by every stage of one solve (made by bk_budget_start). */
typedef struct {
    long long states, max_states;
    double deadline; /* < 0: none */
    size_t bytes, max_bytes;
    int limit;
    int (*interrupt)(void *ctx); /* asked now and then: nonzero stops the search */
    void *interrupt_ctx;
} bk_budget;

/* A rival best-first search with other weights, interleaved with the main
 * one during the first stage: ``head`` positions first, then turns of
 * ``q_main`` and ``q_rival`` positions, until the rival has expanded
 * ``limit`` (both searches are complete, so either one running out of
 * positions proves the deal lost). */
typedef struct {
    bk_weights w;
    long long head, q_main, q_rival, limit;
} bk_rival;

/* A race after the first stage: the main best-first search and ``n`` others,
 * each with its own weights ``w[i]`` and its own positions, take turns of
 * ``turn`` positions, round and round, until one of them wins or runs out of
 * positions (each is complete, so that proves the deal lost), or ``until``
 * positions (< 0: to the end of the budget) when its stage (width -1) comes;
 * then the later stages go on with the main search. A deal costs at most n + 1 times (plus a turn)
 * what the cheapest of these searches alone would: no bet on one weighting.
 * ``n`` == 0: no race. */
typedef struct {
    int n;
    long long turn, until;
    bk_weights w[BK_MAXRACE];
} bk_race;

/* Restarts (a stage of width -2): best-first searches begun afresh one after
 * another, search i with weights drawn from [lo, hi] field by field by a
 * generator seeded with ``seed`` (each solve draws the same ones) and
 * ``unit`` times the i-th term of Luby's sequence (1 1 2 1 1 2 4 1 1 2 ...)
 * positions, until one wins or runs out of positions (each is complete, so
 * that proves the deal lost); each search's positions are freed before the
 * next. Luby's schedule is within a logarithmic factor of the best fixed
 * cut-off for any spread of costs over the weightings (Luby, Sinclair and
 * Zuckerman, 1993): no bet on one weighting nor on one length of search.
 * With ``with_main``, the main best-first search is resumed after each
 * search for as many positions as that one had: a proof of loss the main
 * search would make costs at most twice as much. ``unit`` == 0: no
 * restarts. */
typedef struct {
    long long unit;
    unsigned long long seed;
    bk_weights lo, hi;
    int with_main;
} bk_restarts;

/* A portfolio: a best-first search for ``first_stage`` positions (with its
 * rival, if any), then the later stages in turn — width[i] > 0: a beam of
 * that width with beam weights sel[i] (or each in turn when sel[i] < 0);
 * width[i] == 0: the best-first search resumed for sel[i] positions (or
 * ``middle_stage`` when sel[i] < 0); width[i] == -1: the race for sel[i]
 * positions (or the race's ``until`` when sel[i] < 0); width[i] == -2: the
 * restarts for sel[i] positions (or to the end of the budget when sel[i] <
 * 0); width[i] == -3: the pool relaxation (where the rules have it: its
 * short ladder of games, 12, 8 and the full one) for sel[i] relaxed states
 * (or to the end), a lost relaxed game proving the deal lost; width[i] ==
 * -6: the same with bk_relax's fine ladder; width[i] == -4: the exhaustive search (bk_exhaust, under
 * the portfolio's own rules) for sel[i] positions (or to the end), which
 * proves a small lost space lost and wins where it meets a win (-7: the
 * same under the exhaustive search's own rules, bk_rules_exhaustive, where
 * the rules have pruning rule 7 — Baker's Dozen —, its line given as a line
 * of the portfolio's rules; -8: that search begun afresh again and again,
 * each time with weights drawn as the restarts draw them and for the
 * restarts' unit times Luby's sequence positions, for sel[i] positions or to
 * the end); width[i] == -5: the probes, one move deeper than the schedule's last probes (the
 * first: one move from the root; at most six), a best-first search of
 * sel[i] positions (at least 1) from each position at that depth in turn,
 * to the end of the budget or of those positions — then the best-first
 * search resumed with all that is left. */
typedef struct {
    bk_weights weights;
    long long first_stage, middle_stage;
    int nbeams;
    int width[BK_MAXSTAGES];
    long long sel[BK_MAXSTAGES];
    int nbw;
    bk_weights beam_weights[BK_MAXBEAMW];
    int has_rival;
    bk_rival rival;
    bk_race race;
    bk_restarts restarts;
} bk_portfolio;

/* A position in the board's own order: its key, its columns, and one card a
 * cell (-1 for an empty one). */
typedef struct {
    uint8_t key[BK_NCARDS];
    uint8_t cols[BK_MAXCOLS][BK_MAXLEN];
    int len[BK_MAXCOLS];
    int cell[BK_MAXCELLS];
} bk_placed;

/* A move of a line in card terms: the card, how many cards move with it
 * (its run), and where: a card, or -1 (foundation), -2 (cell), -3 (empty
 * column). */
typedef struct {
    int card, count, dest;
} bk_cmove;

/* A move on the board's own places: columns 0..12, cells 100 + i, the
 * foundation 200. */
typedef struct {
    uint8_t src, dst, count;
} bk_pmove;

typedef struct {
    bk_pmove *v;
    size_t n, cap;
} bk_pmoves;

/* The sizes of a checked line. */
typedef struct {
    size_t moves, singles, player;
    int checked;
} bk_counts;

/* A child of a position, as the search generates it. */
typedef struct {
    uint8_t key[BK_NCARDS];
    int card, count, dest, h;
} bk_child;

/* What a portfolio search found; holds its positions until bk_found_free. */
typedef struct bk_found bk_found;

/* What the short search found. ``line``: malloc'd, NULL when nothing shorter
 * than the bound was found. */
typedef struct {
    bk_cmove *line;
    size_t nline;
    int player_moves, optimal, lower_bound, limit, error;
} bk_short_result;

/* --- setup, limits, errors (store.c, budget.c) --------------------------- */

/* Once per process, before any search: the hashing tables. */
void bk_init(void);
/* A fresh budget: max_states < 0, timeout <= 0, max_mb <= 0 for no limit. */
void bk_budget_start(bk_budget *b, long long max_states, double timeout, long long max_mb);
/* "states", "timeout", "memory", or NULL for another limit. */
const char *bk_limit_name(int limit);
/* The words for an error code (positive or negated). */
const char *bk_error_message(int code);

/* --- rules and positions (rules.c, position.c) --------------------------- */

/* The rules of a game (remembered per thread for the same arguments). */
int bk_rules_init(bk_rules *r, int ncols, int ncells, int build, int can_fill, int supermoves);
/* The exhaustive search's rules (Baker's Dozen: pruning rule 6's looser form). */
void bk_rules_exhaustive(bk_rules *r);
/* 0 when the weights are in range, else -BK_ERR_WEIGHTS. */
int bk_weights_check(const bk_weights *w);
/* The key of the position with columns cols[i] (lens[i] cards, bottom first)
 * and the cards ``cells`` in cells; every other card is home. */
int bk_position_key(const bk_rules *r, int ncols, const uint8_t *const *cols, const int *lens,
                    const uint8_t *cells, int ncells, uint8_t key[BK_NCARDS]);
/* The same position in the board's own order, cells given one byte a cell
 * (BK_EMPTY_CELL for an empty one). */
int bk_position_placed(const bk_rules *r, int ncols, const uint8_t *const *cols,
                       const int *lens, const uint8_t *cells, int ncells, bk_placed *p);

/* --- searches (portfolio.c, short.c, exhaust.c) -------------------------- */

/* The portfolio of a game with ``ncells`` cells, as the data in portfolio.c. */
void bk_portfolio_default(int build, int can_fill, int ncells, bk_portfolio *p);
/* 0 when a portfolio is usable, else -BK_ERR_STAGES or -BK_ERR_WEIGHTS. */
int bk_portfolio_check(const bk_portfolio *p);
/* Run the portfolio from ``root``: BK_WIN, BK_EXHAUSTED, BK_LIMIT or
 * BK_ERROR; *found (freed by bk_found_free) holds the win. */
int bk_solve(const bk_rules *r, const bk_portfolio *p, bk_budget *b, const uint8_t *root,
             bk_found **found);
/* The largest memory the search held, in bytes. */
size_t bk_found_peak(const bk_found *f);
/* The winning line (malloc'd; *n moves, 0 when the root was won), or NULL. */
bk_cmove *bk_found_line(const bk_found *f, size_t *n);
/* The winning line played from ``pl`` and checked card by card. */
int bk_found_checked(const bk_found *f, const bk_rules *r, bk_placed *pl, bk_counts *out);
void bk_found_free(bk_found *f, bk_budget *b);
/* Look for a line of fewer than ``ub`` player moves: beams of the given
 * widths, and the A* proof given ``prove_share`` of the time left. */
int bk_short(const bk_rules *r, const bk_weights *w, bk_budget *b, const uint8_t *root, int ub,
             const int *widths, int nwidths, double prove_share, bk_short_result *out);
/* Every reachable position, depth first (rules made exhaustive by the
 * caller): BK_WIN with *line (malloc'd), BK_EXHAUSTED, BK_LIMIT, BK_ERROR. */
int bk_exhaust(const bk_rules *r, const bk_weights *w, bk_budget *b, const uint8_t *root,
               bk_cmove **line, size_t *nline, size_t *peak);

/* Pruning rule 8 (Baker's Dozen: rules with r->dead): the pool relaxation
 * searched from ``k`` (the games from ranks 12, 8, 7 and 5, then the full
 * one, to the first lost), each of its states one position of the budget:
 * BK_EXHAUSTED when it proves the position lost, BK_WIN when the relaxed
 * game is won (which proves nothing), BK_LIMIT, BK_ERROR (a card in a
 * cell), or -BK_ERR_RULES for other rules. *peak: the memory it held. */
int bk_relax(const bk_rules *r, bk_budget *b, const uint8_t *k, size_t *peak);

/* The disk-backed exhaustive search's options: its work directory (made by
 * the caller), the disk it may use in bytes (< 0: no limit), whether to go
 * on from the checkpoint there, and a progress callback (may be NULL),
 * called after each level and now and then within one. */
typedef struct {
    const char *dir;
    long long max_disk;
    int resume;
    void (*progress)(void *ctx, long long states, int layer, int level, long long disk);
    void *progress_ctx;
} bk_disk;

/* Every reachable position, breadth first by layers of cards home with the
 * positions on disk (disk.c; rules made exhaustive by the caller): the same
 * positions as bk_exhaust, so a proof of loss counts as many; memory is the
 * budget's (half of it for sorting). BK_WIN with *line (malloc'd),
 * BK_EXHAUSTED, BK_LIMIT (BK_LIM_DISK when the disk ran out; the work
 * directory then holds the last checkpoint), BK_ERROR, or -BK_ERR_RESUME,
 * -BK_ERR_IO. *disk_peak: the most bytes the directory held; *mem_peak: the
 * memory the search held (its buffers, allocated once). A level is merged
 * against all the levels of its layer at once, each an open file: the
 * process's soft limit on open files is raised to its hard limit. */
int bk_exhaust_disk(const bk_rules *r, const bk_weights *w, bk_budget *b, const uint8_t *root,
                    const bk_disk *opt, bk_cmove **line, size_t *nline, long long *disk_peak,
                    size_t *mem_peak);

/* --- lines (line.c) ------------------------------------------------------ */

/* ``line`` played from ``pl`` with the safe foundation moves after each move:
 * its moves and single-card moves (freed by bk_pmoves_free). */
int bk_play_line(const bk_rules *r, const bk_placed *pl, const bk_cmove *line, size_t n,
                 bk_pmoves *moves, bk_pmoves *singles);
void bk_pmoves_free(bk_pmoves *m);
/* 1 when the single-card moves are each legal from ``pl`` (played on it)
 * and end with every card home, else 0: the rules read afresh. */
int bk_check_line(const bk_rules *r, bk_placed *pl, const bk_pmove *line, size_t n);
/* Append a move; 0, or -BK_ERR_NOMEM. */
int bk_pmoves_push(bk_pmoves *m, int src, int dst, int count);

/* --- dealing (deal.c) ---------------------------------------------------- */

/* Microsoft deal ``number`` dealt cyclically into ``ncols`` columns, bottom
 * card first (kings moved beneath the others with ``kings``). */
int bk_deal(unsigned long long number, int ncols, int kings,
            uint8_t cols[BK_MAXCOLS][BK_NCARDS], int lens[BK_MAXCOLS]);

/* --- for tests only (probe.c) -------------------------------------------- */

/* The children the search generates from ``key`` (closure applied), h under ``w``. */
int bk_children(const bk_rules *r, const bk_weights *w, const uint8_t *key,
                bk_child out[BK_MAXCHILD]);
/* Every legal single-card move from ``pl`` as (src, dst) board places. */
int bk_legal_moves(const bk_rules *r, const bk_placed *pl, int out[][2], int max);

#endif
