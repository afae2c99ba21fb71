/*
 * bakers.solver._native: the CPython face of the C library in csrc/ (public
 * header csrc/include/bakers.h). It turns Python arguments into the
 * library's structs, releases the GIL while a search runs, checks Python's
 * signals through the budget's interrupt callback, and turns results and
 * error codes back into Python objects. Every rule and search is in the
 * library; bakers.solver.native validates positions before they come here
 * and replays every line through the rules engine before it is believed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "bakers.h"

/* --- errors and the interrupt ---------------------------------------------- */

/* Raise the Python exception for a library error code; NULL, for returning. */
static PyObject *raise_code(int code)
{
    if (code < 0)
        code = -code;
    if (code == BK_ERR_NOMEM)
        return PyErr_NoMemory();
    PyObject *type = code == BK_ERR_LINE || code == BK_ERR_RUN ? PyExc_RuntimeError
                     : code == BK_ERR_IO                        ? PyExc_OSError
                                                                : PyExc_ValueError;
    PyErr_SetString(type, bk_error_message(code));
    return NULL;
}

/* The budget's interrupt callback: Python's signals, with the GIL taken back
 * for the moment it takes (a search runs without it). */
static int check_signals(void *ctx)
{
    PyThreadState **ts = ctx;
    PyEval_RestoreThread(*ts);
    int sig = PyErr_CheckSignals();
    *ts = PyEval_SaveThread();
    return sig < 0;
}

/* A budget whose interrupt is Python's signals, through ``ts``. */
static void start_budget(bk_budget *b, PyThreadState **ts, long long max_states, double timeout,
                         long long max_mb)
{
    bk_budget_start(b, max_states, timeout, max_mb);
    b->interrupt = check_signals;
    b->interrupt_ctx = ts;
}

/* What an interrupted or failed search raises (NULL); or nothing (1). */
static int search_failed(int status, const bk_budget *b)
{
    if (b->limit == BK_LIM_INTERRUPT) {
        if (!PyErr_Occurred())
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        return 1;
    }
    if (status == BK_ERROR || status < 0) {
        if (status < 0)
            raise_code(status);
        else
            PyErr_SetString(PyExc_RuntimeError, "the native core met a malformed position");
        return 1;
    }
    return 0;
}

/* --- arguments ----------------------------------------------------------------- */

/* A position from Python: columns as a sequence of bytes, and cells. */
typedef struct {
    int ncols;
    const uint8_t *cols[BK_MAXCOLS];
    int lens[BK_MAXCOLS];
    PyObject *seq; /* keeps the columns alive */
} Columns;

static int get_columns(PyObject *columns, Columns *c)
{
    c->seq = PySequence_Fast(columns, "columns must be a sequence");
    if (!c->seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(c->seq);
    if (n < 1 || n > BK_MAXCOLS) {
        Py_CLEAR(c->seq);
        raise_code(BK_ERR_RULES);
        return -1;
    }
    c->ncols = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        char *buf;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(PySequence_Fast_GET_ITEM(c->seq, i), &buf, &len) < 0) {
            Py_CLEAR(c->seq);
            return -1;
        }
        c->cols[i] = (const uint8_t *)buf;
        c->lens[i] = len > BK_MAXLEN ? BK_MAXLEN : (int)len;
    }
    return 0;
}

/* The rules and a position's key (cells: the cards in cells) or, with
 * ``placed``, the position in the board's own order (one byte a cell). */
static int get_position(PyObject *columns, PyObject *cells, int ncells, int build, int can_fill,
                        int supermoves, bk_rules *r, uint8_t *key, bk_placed *placed)
{
    Columns c;
    char *cb;
    Py_ssize_t ncb;
    if (get_columns(columns, &c) < 0)
        return -1;
    int rc = PyBytes_AsStringAndSize(cells, &cb, &ncb);
    if (rc == 0) {
        rc = bk_rules_init(r, c.ncols, ncells, build, can_fill, supermoves);
        if (rc == 0)
            rc = placed ? bk_position_placed(r, c.ncols, c.cols, c.lens, (const uint8_t *)cb,
                                             (int)ncb, placed)
                        : bk_position_key(r, c.ncols, c.cols, c.lens, (const uint8_t *)cb,
                                          (int)ncb, key);
        if (rc < 0)
            raise_code(rc);
    }
    Py_DECREF(c.seq);
    return rc < 0 ? -1 : 0;
}

static int get_weights(PyObject *t, bk_weights *w)
{
    w->need = 0;
    if (!PyArg_ParseTuple(t, "iiiiii|i", &w->blocked, &w->cell, &w->home, &w->empty, &w->unbuilt,
                          &w->depth, &w->need))
        return -1;
    int rc = bk_weights_check(w);
    return rc < 0 ? (raise_code(rc), -1) : 0;
}

/* The stages: each a width (-1: the race, -2: the restarts, -3: the pool
 * relaxation, -4: the exhaustive search, -5: the probes, -6: the pool
 * relaxation's fine ladder, -7: the exhaustive search under its own rules,
 * -8: the depth-first restarts),
 * or a pair (width,
 * k); ``sel`` gets
 * k or -1. A stage out of range gets a width the core refuses. */
static int get_stages(PyObject *stages, int *width, long long *sel)
{
    PyObject *seq = PySequence_Fast(stages, "beams must be a sequence");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n && i < BK_MAXSTAGES; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, i);
        long w = -1;
        sel[i] = -1;
        if (PyTuple_Check(x) ? !PyArg_ParseTuple(x, "lL", &w, &sel[i])
                             : ((w = PyLong_AsLong(x)) == -1 && PyErr_Occurred())) {
            Py_DECREF(seq);
            return -1;
        }
        width[i] = w < -8 || w > 10000000 || (PyTuple_Check(x) && sel[i] < 0) ? -100 : (int)w;
    }
    Py_DECREF(seq);
    return n > BK_MAXSTAGES ? (raise_code(BK_ERR_STAGES), -1) : (int)n;
}

/* None, or (turn, until, weightings) -> the portfolio's race */
static int get_race(PyObject *race, bk_race *rc)
{
    PyObject *ws;
    if (race == Py_None)
        return 0;
    if (!PyArg_ParseTuple(race, "LLO", &rc->turn, &rc->until, &ws))
        return -1;
    PyObject *seq = PySequence_Fast(ws, "a race's weightings must be a sequence");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    rc->n = n > BK_MAXRACE ? BK_MAXRACE + 1 : (int)n;
    for (Py_ssize_t i = 0; i < n && i < BK_MAXRACE; i++)
        if (get_weights(PySequence_Fast_GET_ITEM(seq, i), &rc->w[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    return 0;
}

/* None, or (unit, seed, low weights, high weights[, with_main]) -> the
 * portfolio's restarts */
static int get_restarts(PyObject *restarts, bk_restarts *rs)
{
    PyObject *lo, *hi;
    if (restarts == Py_None)
        return 0;
    if (!PyArg_ParseTuple(restarts, "LKOO|p", &rs->unit, &rs->seed, &lo, &hi, &rs->with_main))
        return -1;
    return get_weights(lo, &rs->lo) < 0 || get_weights(hi, &rs->hi) < 0 ? -1 : 0;
}

/* weights, first_stage, middle_stage, beams, beam_weights, rival, race,
 * restarts -> a portfolio */
static int get_portfolio(PyObject *weights, long long first, long long middle, PyObject *beams,
                         PyObject *beam_weights, PyObject *rival, PyObject *race,
                         PyObject *restarts, bk_portfolio *p)
{
    memset(p, 0, sizeof *p);
    p->first_stage = first;
    p->middle_stage = middle;
    if (get_weights(weights, &p->weights) < 0 ||
        (p->nbeams = get_stages(beams, p->width, p->sel)) < 0)
        return -1;
    PyObject *seq = PySequence_Fast(beam_weights, "beam weights must be a sequence");
    if (!seq)
        return -1;
    p->nbw = (int)PySequence_Fast_GET_SIZE(seq);
    for (int i = 0; i < p->nbw && i < BK_MAXBEAMW; i++)
        if (get_weights(PySequence_Fast_GET_ITEM(seq, i), &p->beam_weights[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    if (rival != Py_None) {
        PyObject *rw;
        p->has_rival = 1;
        if (!PyArg_ParseTuple(rival, "OLLLL", &rw, &p->rival.head, &p->rival.q_main,
                              &p->rival.q_rival, &p->rival.limit) ||
            get_weights(rw, &p->rival.w) < 0)
            return -1;
    }
    if (get_race(race, &p->race) < 0 || get_restarts(restarts, &p->restarts) < 0)
        return -1;
    int rc = bk_portfolio_check(p);
    return rc < 0 ? (raise_code(rc), -1) : 0;
}

/* A list of ``n`` items, item i made by ``make(items, i)`` (NULL on failure). */
static PyObject *list_of(const void *items, Py_ssize_t n,
                         PyObject *(*make)(const void *items, Py_ssize_t i))
{
    PyObject *lst = PyList_New(n);
    for (Py_ssize_t i = 0; lst && i < n; i++) {
        PyObject *x = make(items, i);
        if (!x)
            Py_CLEAR(lst);
        else
            PyList_SET_ITEM(lst, i, x);
    }
    return lst;
}

/* A move of a line as Python sees it: (card, count, dest). */
static PyObject *cmove_item(const void *items, Py_ssize_t i)
{
    const bk_cmove *m = (const bk_cmove *)items + i;
    return Py_BuildValue("(iii)", m->card, m->count, m->dest);
}

/* A move on the board's places: (src, dst, count). */
static PyObject *pmove_item(const void *items, Py_ssize_t i)
{
    const bk_pmove *m = (const bk_pmove *)items + i;
    return Py_BuildValue("(iii)", m->src, m->dst, m->count);
}

static PyObject *line_list(const bk_cmove *line, size_t n)
{
    return list_of(line, (Py_ssize_t)n, cmove_item);
}

/* (status, limit, states, line, peak_bytes); takes ``line`` (or NULL). */
static PyObject *search_result(int status, const bk_budget *b, PyObject *line, size_t peak)
{
    const char *verdict = status == BK_WIN ? "winnable" : status == BK_EXHAUSTED ? "impossible"
                                                                                 : "unknown";
    const char *lim = status == BK_LIMIT ? bk_limit_name(b->limit) : NULL;
    if (status == BK_LIMIT && !lim)
        lim = "memory";
    PyObject *res = Py_BuildValue("(szLOn)", verdict, lim, b->states, line ? line : Py_None,
                                  (Py_ssize_t)peak);
    Py_XDECREF(line);
    return res;
}

/* --- searches ---------------------------------------------------------------- */

/* The portfolio on a position; with ``placed``, the line checked in place of
 * the line: (moves, single-card moves, player moves, checked). */
static PyObject *run_solve(const bk_rules *r, const bk_portfolio *p, const uint8_t *root,
                           bk_placed *placed, long long max_states, double timeout,
                           long long max_mb)
{
    bk_budget b;
    PyThreadState *ts = NULL;
    start_budget(&b, &ts, max_states, timeout, max_mb);
    bk_found *found = NULL;
    ts = PyEval_SaveThread();
    int status = bk_solve(r, p, &b, root, &found);
    PyEval_RestoreThread(ts);
    PyObject *line = NULL;
    if (!search_failed(status, &b) && status == BK_WIN) {
        if (placed) {
            bk_counts c;
            int rc = bk_found_checked(found, r, placed, &c);
            line = rc < 0 ? raise_code(rc)
                          : Py_BuildValue("(nnnO)", (Py_ssize_t)c.moves, (Py_ssize_t)c.singles,
                                          (Py_ssize_t)c.player, c.checked ? Py_True : Py_False);
        } else {
            size_t n;
            bk_cmove *path = bk_found_line(found, &n);
            line = path ? line_list(path, n) : PyErr_NoMemory();
            free(path);
        }
    }
    size_t peak = bk_found_peak(found);
    bk_found_free(found, &b);
    if (PyErr_Occurred()) {
        Py_XDECREF(line);
        return NULL;
    }
    return search_result(status, &b, line, peak);
}

/* The arguments solve() and solve_checked() share after the position. */
#define SOLVE_FORMAT "OOiiiiOLLOOOOOLdL"
#define SOLVE_ARGS                                                                                 \
    PyObject *columns, *cells, *weights, *beams, *beam_weights, *rival, *race, *restarts;          \
    int ncells, build, can_fill, supermoves;                                                       \
    long long first, middle, max_states, max_mb;                                                   \
    double timeout
#define SOLVE_PTRS                                                                                 \
    &columns, &cells, &ncells, &build, &can_fill, &supermoves, &weights, &first, &middle, &beams,  \
        &beam_weights, &rival, &race, &restarts, &max_states, &timeout, &max_mb

static PyObject *solve_common(PyObject *args, int checked)
{
    SOLVE_ARGS;
    if (!PyArg_ParseTuple(args, SOLVE_FORMAT, SOLVE_PTRS))
        return NULL;
    if (checked && !PyBytes_Check(cells))
        return PyErr_Format(PyExc_TypeError, "cells must be bytes, one a cell");
    bk_rules r;
    bk_portfolio p;
    bk_placed pl;
    if (get_portfolio(weights, first, middle, beams, beam_weights, rival, race, restarts, &p) < 0 ||
        get_position(columns, cells, ncells, build, can_fill, supermoves, &r, pl.key,
                     checked ? &pl : NULL) < 0)
        return NULL;
    return run_solve(&r, &p, pl.key, checked ? &pl : NULL, max_states, timeout, max_mb);
}

/* solve(columns, cells, ncells, build, can_fill, supermoves, weights, first_stage,
 *       middle_stage, beams, beam_weights, rival, race, restarts, max_states, timeout,
 *       max_memory_mb)
 * -> (status, limit, states, line, peak_bytes); see bakers.solver.native. */
static PyObject *py_solve(PyObject *self, PyObject *args)
{
    (void)self;
    return solve_common(args, 0);
}

/* solve_checked(): solve() on a position with one byte a cell in the board's
 * own order; in place of the line, its sizes as played and checked. */
static PyObject *py_solve_checked(PyObject *self, PyObject *args)
{
    (void)self;
    return solve_common(args, 1);
}

/* solve_deals(first, count, ncols, kings, rest): solve_checked() on each of
 * deals first .. first + count - 1, dealt by the library with empty cells;
 * ``rest``: solve_checked()'s arguments after the position. A list of
 * (answer, wall seconds). */
static PyObject *py_solve_deals(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long first_deal;
    long long count;
    int ncols, kings;
    PyObject *rest;
    if (!PyArg_ParseTuple(args, "KLipO!", &first_deal, &count, &ncols, &kings, &PyTuple_Type,
                          &rest))
        return NULL;
    if (count < 0 || count > (1 << 20) || first_deal + (unsigned long long)count > BK_DEAL_LIMIT)
        return raise_code(BK_ERR_DEAL);
    PyObject *weights, *beams, *beam_weights, *rival, *race, *restarts;
    int ncells, build, can_fill, supermoves;
    long long first, middle, max_states, max_mb;
    double timeout;
    if (!PyArg_ParseTuple(rest, SOLVE_FORMAT + 2, &ncells, &build, &can_fill, &supermoves,
                          &weights, &first, &middle, &beams, &beam_weights, &rival, &race,
                          &restarts, &max_states, &timeout, &max_mb))
        return NULL;
    bk_rules r;
    bk_portfolio p;
    int rc = bk_rules_init(&r, ncols, ncells, build, can_fill, supermoves);
    if (rc < 0)
        return raise_code(rc);
    if (get_portfolio(weights, first, middle, beams, beam_weights, rival, race, restarts, &p) < 0)
        return NULL;
    uint8_t empty[BK_MAXCELLS];
    memset(empty, BK_EMPTY_CELL, sizeof empty);
    PyObject *out = PyList_New((Py_ssize_t)count);
    for (long long i = 0; out && i < count; i++) {
        uint8_t cols[BK_MAXCOLS][BK_NCARDS];
        const uint8_t *colp[BK_MAXCOLS];
        int lens[BK_MAXCOLS];
        bk_placed pl;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        rc = bk_deal(first_deal + (unsigned long long)i, ncols, kings, cols, lens);
        for (int j = 0; j < ncols; j++)
            colp[j] = cols[j];
        if (rc == 0)
            rc = bk_position_placed(&r, ncols, colp, lens, empty, ncells, &pl);
        PyObject *answer = rc < 0 ? raise_code(rc)
                                  : run_solve(&r, &p, pl.key, &pl, max_states, timeout, max_mb);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        PyObject *item = answer ? Py_BuildValue("(Nd)", answer, secs) : NULL;
        if (!item)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, (Py_ssize_t)i, item);
    }
    return out;
}

/* The position, rules and weights of an exhaustive search (its own rules). */
static int exhaustive_args(PyObject *columns, PyObject *cells, int ncells, int build,
                           int can_fill, int supermoves, PyObject *weights, bk_rules *r,
                           uint8_t *root, bk_weights *w)
{
    if (get_position(columns, cells, ncells, build, can_fill, supermoves, r, root, NULL) < 0 ||
        get_weights(weights, w) < 0)
        return -1;
    bk_rules_exhaustive(r);
    return 0;
}

/* An exhaustive search's answer, as solve()'s; takes ``line``. */
static PyObject *exhaust_result(int status, const bk_budget *b, bk_cmove *line, size_t n,
                                size_t peak)
{
    PyObject *lst = NULL;
    if (!search_failed(status, b) && status == BK_WIN)
        lst = line_list(line, n);
    free(line);
    if (PyErr_Occurred()) {
        Py_XDECREF(lst);
        return NULL;
    }
    return search_result(status, b, lst, peak);
}

/* exhaust(columns, cells, ncells, build, can_fill, supermoves, weights,
 *         max_states, timeout, max_mb) -> as solve(): the depth-first search
 * of every reachable position, under the exhaustive search's rules. */
static PyObject *py_exhaust(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *columns, *cells, *weights;
    int ncells, build, can_fill, supermoves;
    long long max_states, max_mb;
    double timeout;
    if (!PyArg_ParseTuple(args, "OOiiiiOLdL", &columns, &cells, &ncells, &build, &can_fill,
                          &supermoves, &weights, &max_states, &timeout, &max_mb))
        return NULL;
    bk_rules r;
    bk_weights w;
    uint8_t root[BK_NCARDS];
    if (exhaustive_args(columns, cells, ncells, build, can_fill, supermoves, weights, &r, root,
                        &w) < 0)
        return NULL;
    bk_budget b;
    PyThreadState *ts = NULL;
    start_budget(&b, &ts, max_states, timeout, max_mb);
    bk_cmove *line = NULL;
    size_t n = 0, peak = 0;
    ts = PyEval_SaveThread();
    int status = bk_exhaust(&r, &w, &b, root, &line, &n, &peak);
    PyEval_RestoreThread(ts);
    return exhaust_result(status, &b, line, n, peak);
}

/* relax(columns, cells, ncells, build, can_fill, supermoves, max_states,
 *       timeout, max_mb) -> as solve(), without a line: pruning rule 8's pool
 * relaxation searched from the position ("impossible" when it proves the
 * position lost, "winnable" when the relaxed game is won). */
static PyObject *py_relax(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *columns, *cells;
    int ncells, build, can_fill, supermoves;
    long long max_states, max_mb;
    double timeout;
    if (!PyArg_ParseTuple(args, "OOiiiiLdL", &columns, &cells, &ncells, &build, &can_fill,
                          &supermoves, &max_states, &timeout, &max_mb))
        return NULL;
    bk_rules r;
    uint8_t root[BK_NCARDS];
    if (get_position(columns, cells, ncells, build, can_fill, supermoves, &r, root, NULL) < 0)
        return NULL;
    bk_budget b;
    PyThreadState *ts = NULL;
    start_budget(&b, &ts, max_states, timeout, max_mb);
    size_t peak = 0;
    ts = PyEval_SaveThread();
    int status = bk_relax(&r, &b, root, &peak);
    PyEval_RestoreThread(ts);
    if (search_failed(status, &b))
        return NULL;
    return search_result(status, &b, NULL, peak);
}

/* The disk search's callbacks: Python's signals and its progress callable,
 * with the GIL taken back for the moment they take. */
typedef struct {
    PyThreadState *ts; /* first: the budget's interrupt reads it as check_signals does */
    PyObject *progress;
    int failed;
} DiskCtx;

static int disk_interrupt(void *ctx)
{
    DiskCtx *c = ctx;
    return check_signals(&c->ts) || c->failed;
}

static void disk_progress(void *ctx, long long states, int layer, int level, long long disk)
{
    DiskCtx *c = ctx;
    if (c->progress == Py_None || c->failed)
        return;
    PyEval_RestoreThread(c->ts);
    PyObject *r = PyObject_CallFunction(c->progress, "LiiL", states, layer, level, disk);
    if (!r)
        c->failed = 1; /* the exception stays set: the search stops at its next check */
    Py_XDECREF(r);
    c->ts = PyEval_SaveThread();
}

/* exhaust_disk(columns, cells, ncells, build, can_fill, supermoves, weights,
 *              max_states, timeout, max_mb, dir, max_disk, resume, progress)
 * -> (verdict, limit, states, line, peak_bytes, disk_peak): every reachable
 * position breadth first by layers, with the positions on disk in ``dir``. */
static PyObject *py_exhaust_disk(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *columns, *cells, *weights, *progress;
    int ncells, build, can_fill, supermoves, resume;
    long long max_states, max_mb, max_disk;
    double timeout;
    const char *dir;
    if (!PyArg_ParseTuple(args, "OOiiiiOLdLsLpO", &columns, &cells, &ncells, &build, &can_fill,
                          &supermoves, &weights, &max_states, &timeout, &max_mb, &dir, &max_disk,
                          &resume, &progress))
        return NULL;
    if (progress != Py_None && !PyCallable_Check(progress))
        return PyErr_Format(PyExc_TypeError, "progress must be callable or None");
    bk_rules r;
    bk_weights w;
    uint8_t root[BK_NCARDS];
    if (exhaustive_args(columns, cells, ncells, build, can_fill, supermoves, weights, &r, root,
                        &w) < 0)
        return NULL;
    DiskCtx ctx = {NULL, progress, 0};
    bk_budget b;
    bk_budget_start(&b, max_states, timeout, max_mb);
    b.interrupt = disk_interrupt;
    b.interrupt_ctx = &ctx;
    bk_disk opt = {dir, max_disk, resume, disk_progress, &ctx};
    bk_cmove *line = NULL;
    size_t n = 0;
    long long disk_peak = 0;
    size_t mem_peak = 0;
    ctx.ts = PyEval_SaveThread();
    int status = bk_exhaust_disk(&r, &w, &b, root, &opt, &line, &n, &disk_peak, &mem_peak);
    PyEval_RestoreThread(ctx.ts);
    if (ctx.failed) {
        free(line);
        return NULL; /* the progress callable's exception */
    }
    PyObject *res = exhaust_result(status, &b, line, n, mem_peak);
    return res ? Py_BuildValue("(NL)", res, disk_peak) : NULL;
}

/* short(columns, cells, ncells, build, can_fill, supermoves, weights, ub, widths,
 *       prove_share, max_states, timeout, max_mb)
 * -> (line or None, player_moves, optimal, lower_bound, states, limit):
 * a line of fewer than ``ub`` player moves, if there is one it finds. */
static PyObject *py_short(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *columns, *cells, *weights, *widths_t;
    int ncells, build, can_fill, supermoves, ub;
    double prove_share, timeout;
    long long max_states, max_mb;
    if (!PyArg_ParseTuple(args, "OOiiiiOiOdLdL", &columns, &cells, &ncells, &build, &can_fill,
                          &supermoves, &weights, &ub, &widths_t, &prove_share, &max_states,
                          &timeout, &max_mb))
        return NULL;
    bk_rules r;
    bk_weights w;
    uint8_t root[BK_NCARDS];
    int widths[BK_MAXSTAGES];
    long long sel[BK_MAXSTAGES];
    int nw;
    if (get_position(columns, cells, ncells, build, can_fill, supermoves, &r, root, NULL) < 0 ||
        get_weights(weights, &w) < 0 || (nw = get_stages(widths_t, widths, sel)) < 0)
        return NULL;
    bk_budget b;
    PyThreadState *ts = NULL;
    start_budget(&b, &ts, max_states, timeout, max_mb);
    bk_short_result res;
    ts = PyEval_SaveThread();
    int rc = bk_short(&r, &w, &b, root, ub, widths, nw, prove_share, &res);
    PyEval_RestoreThread(ts);
    if (rc < 0 || search_failed(res.error ? BK_ERROR : BK_WIN, &b)) {
        free(res.line);
        return rc < 0 && !PyErr_Occurred() ? raise_code(rc) : NULL;
    }
    PyObject *line = res.line ? line_list(res.line, res.nline) : (Py_INCREF(Py_None), Py_None);
    free(res.line);
    if (!line)
        return NULL;
    return Py_BuildValue("(NiiiLz)", line, res.player_moves, res.optimal, res.lower_bound,
                         b.states, bk_limit_name(res.limit));
}

/* deal(number, columns, kings_to_bottom) -> [bytes]: Microsoft deal
 * ``number`` as columns of card indices, bottom card first. */
static PyObject *py_deal(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long number;
    int ncols, kings;
    if (!PyArg_ParseTuple(args, "Kip", &number, &ncols, &kings))
        return NULL;
    uint8_t cols[BK_MAXCOLS][BK_NCARDS];
    int lens[BK_MAXCOLS];
    int rc = bk_deal(number, ncols, kings, cols, lens);
    if (rc < 0)
        return raise_code(rc);
    PyObject *out = PyList_New(ncols);
    for (int i = 0; out && i < ncols; i++) {
        PyObject *b = PyBytes_FromStringAndSize((const char *)cols[i], lens[i]);
        if (!b)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, b);
    }
    return out;
}

/* portfolio(build, can_fill) -> (weights, first_stage, middle_stage, beams,
 * beam_weights, rival, race, restarts): the library's portfolio of a game, as
 * data. */
static PyObject *weights_tuple(const bk_weights *w)
{
    return Py_BuildValue("(iiiiiii)", w->blocked, w->cell, w->home, w->empty, w->unbuilt,
                         w->depth, w->need);
}

static PyObject *py_portfolio(PyObject *self, PyObject *args)
{
    (void)self;
    int build, can_fill, ncells;
    if (!PyArg_ParseTuple(args, "ipi", &build, &can_fill, &ncells))
        return NULL;
    if (build < 0 || build > 2 || ncells < 0 || ncells > BK_MAXCELLS)
        return raise_code(BK_ERR_RULES);
    bk_portfolio p;
    bk_portfolio_default(build, can_fill, ncells, &p);
    PyObject *beams = PyTuple_New(p.nbeams), *bw = PyTuple_New(p.nbw);
    for (int i = 0; beams && i < p.nbeams; i++)
        PyTuple_SET_ITEM(beams, i, p.sel[i] >= 0 ? Py_BuildValue("(iL)", p.width[i], p.sel[i])
                                                 : PyLong_FromLong(p.width[i]));
    for (int i = 0; bw && i < p.nbw; i++)
        PyTuple_SET_ITEM(bw, i, weights_tuple(&p.beam_weights[i]));
    PyObject *rival = p.has_rival ? Py_BuildValue("(NLLLL)", weights_tuple(&p.rival.w),
                                                  p.rival.head, p.rival.q_main, p.rival.q_rival,
                                                  p.rival.limit)
                                  : (Py_INCREF(Py_None), Py_None);
    PyObject *rw = PyTuple_New(p.race.n);
    for (int i = 0; rw && i < p.race.n; i++)
        PyTuple_SET_ITEM(rw, i, weights_tuple(&p.race.w[i]));
    PyObject *race = !rw ? NULL : p.race.n ? Py_BuildValue("(LLN)", p.race.turn, p.race.until, rw)
                                           : (Py_DECREF(rw), Py_INCREF(Py_None), Py_None);
    PyObject *restarts = p.restarts.unit
                             ? Py_BuildValue("(LKNNO)", p.restarts.unit, p.restarts.seed,
                                             weights_tuple(&p.restarts.lo),
                                             weights_tuple(&p.restarts.hi),
                                             p.restarts.with_main ? Py_True : Py_False)
                             : (Py_INCREF(Py_None), Py_None);
    if (!beams || !bw || !rival || !race || !restarts || PyErr_Occurred()) {
        Py_XDECREF(beams);
        Py_XDECREF(bw);
        Py_XDECREF(rival);
        Py_XDECREF(race);
        Py_XDECREF(restarts);
        return NULL;
    }
    return Py_BuildValue("(NLLNNNNN)", weights_tuple(&p.weights), p.first_stage, p.middle_stage,
                         beams, bw, rival, race, restarts);
}

/* --- lines ------------------------------------------------------------------- */

/* The arguments of play_line, check_line and legal_moves: the position in the
 * board's own order and the rules, then ``line``, ``exhaustive`` (a line of
 * the exhaustive search) and ``short`` (a line of the short search, which
 * makes no closure of pruning rule 9). */
static int placed_args(PyObject *args, bk_rules *r, bk_placed *pl, PyObject **line)
{
    PyObject *columns, *cells;
    int ncells, build, can_fill, supermoves, exhaustive = 0, short_line = 0;
    if (!PyArg_ParseTuple(args, line ? "OSiiiiO|pp" : "OSiiii", &columns, &cells, &ncells, &build,
                          &can_fill, &supermoves, line ? line : &columns, &exhaustive,
                          &short_line) ||
        get_position(columns, cells, ncells, build, can_fill, supermoves, r, pl->key, pl) < 0)
        return -1;
    if (exhaustive)
        bk_rules_exhaustive(r);
    if (short_line)
        r->cellclose = 0;
    return 0;
}

/* play_line(columns, cells_by_place, ncells, build, can_fill, supermoves, line
 *           [, exhaustive[, short]]) -> (moves, singles): the line [(card, count, dest)]
 * played on the board's places (columns 0..12, cells 100 + i, foundation
 * 200) with the safe foundation moves after each move. */
static PyObject *py_play_line(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *line;
    bk_rules r;
    bk_placed pl;
    if (placed_args(args, &r, &pl, &line) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(line, "the line must be a sequence");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    bk_cmove *moves = malloc((size_t)(n ? n : 1) * sizeof(bk_cmove));
    int ok = moves != NULL;
    for (Py_ssize_t t = 0; ok && t < n; t++)
        ok = PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, t), "iii", &moves[t].card,
                              &moves[t].count, &moves[t].dest);
    Py_DECREF(seq);
    PyObject *res = NULL;
    bk_pmoves a = {0}, b = {0};
    int rc = ok ? bk_play_line(&r, &pl, moves, (size_t)n, &a, &b) : 0;
    if (!moves)
        PyErr_NoMemory();
    else if (rc < 0)
        raise_code(rc);
    else if (ok)
        res = Py_BuildValue("(NN)", list_of(a.v, (Py_ssize_t)a.n, pmove_item),
                            list_of(b.v, (Py_ssize_t)b.n, pmove_item));
    bk_pmoves_free(&a);
    bk_pmoves_free(&b);
    free(moves);
    return res;
}

/* check_line(columns, cells_by_place, ncells, build, can_fill, supermoves,
 *            singles) -> bool: the library's own check of a line of
 * single-card moves (src, dst, ...), as play_line writes them. */
static PyObject *py_check_line(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *singles;
    bk_rules r;
    bk_placed pl;
    if (placed_args(args, &r, &pl, &singles) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(singles, "the line must be a sequence");
    if (!seq)
        return NULL;
    bk_pmoves mv = {0};
    int ok = 1, rc = 0;
    for (Py_ssize_t t = 0; t < PySequence_Fast_GET_SIZE(seq) && ok && rc == 0; t++) {
        PyObject *m = PySequence_Fast_GET_ITEM(seq, t);
        if (!PyTuple_Check(m) || PyTuple_GET_SIZE(m) < 2) {
            ok = 0;
            break;
        }
        long src = PyLong_AsLong(PyTuple_GET_ITEM(m, 0));
        long dst = PyLong_AsLong(PyTuple_GET_ITEM(m, 1));
        if (PyErr_Occurred())
            break;
        ok = src >= 0 && src <= 200 && dst >= 0 && dst <= 200; /* a place */
        if (ok)
            rc = bk_pmoves_push(&mv, (int)src, (int)dst, 1);
    }
    Py_DECREF(seq);
    PyObject *res = PyErr_Occurred() ? NULL
                    : rc < 0         ? raise_code(rc)
                                     : PyBool_FromLong(ok && bk_check_line(&r, &pl, mv.v, mv.n));
    bk_pmoves_free(&mv);
    return res;
}

/* --- for tests only ------------------------------------------------------------ */

static PyObject *child_item(const void *items, Py_ssize_t i)
{
    const bk_child *k = (const bk_child *)items + i;
    return Py_BuildValue("(y#iiii)", (const char *)k->key, (Py_ssize_t)BK_NCARDS, k->card,
                         k->count, k->dest, k->h);
}

/* children(columns, cells, ncells, build, can_fill, supermoves[, weights
 *          [, exhaustive]]) -> [(key, card, count, dest, h)]: the children the
 * search generates (closure applied), h under ``weights`` (default all 1). */
static PyObject *py_children(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *columns, *cells, *weights = Py_None;
    int ncells, build, can_fill, supermoves, exhaustive = 0;
    if (!PyArg_ParseTuple(args, "OOiiii|Op", &columns, &cells, &ncells, &build, &can_fill,
                          &supermoves, &weights, &exhaustive))
        return NULL;
    bk_rules r;
    bk_weights w = {1, 1, 1, 1, 1, 1, 0};
    uint8_t key[BK_NCARDS];
    if (get_position(columns, cells, ncells, build, can_fill, supermoves, &r, key, NULL) < 0 ||
        (weights != Py_None && get_weights(weights, &w) < 0))
        return NULL;
    if (exhaustive)
        bk_rules_exhaustive(&r);
    bk_child *kids = malloc(BK_MAXCHILD * sizeof(bk_child));
    if (!kids)
        return PyErr_NoMemory();
    int n = bk_children(&r, &w, key, kids);
    PyObject *out = n < 0 ? raise_code(n) : list_of(kids, n, child_item);
    free(kids);
    return out;
}

static PyObject *place_pair(const void *items, Py_ssize_t i)
{
    const int *m = (const int *)items + 2 * i;
    return Py_BuildValue("(ii)", m[0], m[1]);
}

/* legal_moves(columns, cells_by_place, ncells, build, can_fill, supermoves)
 * -> [(src, dst)]: every legal single-card move by the library's tables. */
static PyObject *py_legal_moves(PyObject *self, PyObject *args)
{
    (void)self;
    bk_rules r;
    bk_placed pl;
    int moves[512][2];
    if (placed_args(args, &r, &pl, NULL) < 0)
        return NULL;
    int n = bk_legal_moves(&r, &pl, moves, 512);
    return n < 0 ? raise_code(n) : list_of(moves, n, place_pair);
}

static PyMethodDef methods[] = {
    {"deal", py_deal, METH_VARARGS, "A Microsoft deal's columns as card-index bytes."},
    {"portfolio", py_portfolio, METH_VARARGS, "The library's portfolio of a game."},
    {"exhaust_disk", py_exhaust_disk, METH_VARARGS,
     "Every reachable position, breadth first, with the positions on disk."},
    {"solve_deals", py_solve_deals, METH_VARARGS, "solve_checked() on a range of deals."},
    {"solve", py_solve, METH_VARARGS, "Search a position; see bakers.solver.native."},
    {"short", py_short, METH_VARARGS, "Look for a line of fewer player moves."},
    {"exhaust", py_exhaust, METH_VARARGS, "Search every reachable position, depth first."},
    {"relax", py_relax, METH_VARARGS, "Pruning rule 8's pool relaxation from a position."},
    {"solve_checked", py_solve_checked, METH_VARARGS,
     "Solve, then play and check the line: counts only."},
    {"play_line", py_play_line, METH_VARARGS, "A line in card terms as board moves."},
    {"check_line", py_check_line, METH_VARARGS, "Check a line of single-card moves."},
    {"children", py_children, METH_VARARGS, "For tests: the children the search generates."},
    {"legal_moves", py_legal_moves, METH_VARARGS, "For tests: every legal single-card move."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "The compiled search core of bakers.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void)
{
    bk_init();
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddIntConstant(m, "RECORD_BYTES", BK_RECORD_BYTES) < 0 ||
              PyModule_AddIntConstant(m, "FEW_CELLS", BK_FEW_CELLS) < 0 ||
              PyModule_AddIntConstant(m, "VERSION", 1) < 0))
        Py_CLEAR(m);
    return m;
}
