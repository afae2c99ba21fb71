/* Limits and budget: the positions, time and memory one solve may use,
 * shared by every stage of it; an interrupt arrives through a callback. */

#include "core.h"

/* Whether ``held`` bytes fit the budget (the memory limit named when not). */
BK_FN int budget_fits(Budget *b, size_t held)
{
    if (b->max_bytes && held > b->max_bytes) {
        b->limit = LIM_MEMORY;
        return 0;
    }
    return 1;
}

BK_FN void *budget_alloc(Budget *b, size_t n)
{
    if (!budget_fits(b, b->bytes + n))
        return NULL;
    void *p = malloc(n);
    if (!p) {
        b->limit = LIM_MEMORY;
        return NULL;
    }
    b->bytes += n;
    return p;
}

BK_FN void *budget_realloc(Budget *b, void *old, size_t oldn, size_t n)
{
    if (!budget_fits(b, b->bytes - oldn + n))
        return NULL;
    void *p = realloc(old, n);
    if (!p) {
        b->limit = LIM_MEMORY;
        return NULL;
    }
    b->bytes = b->bytes - oldn + n;
    return p;
}

BK_FN void budget_free(Budget *b, void *p, size_t n)
{
    if (p) {
        free(p);
        b->bytes -= n;
    }
}

/* Checked every 256 expansions: time, and now and then the caller's interrupt. */
BK_FN int budget_check(Budget *b)
{
    if (b->limit)
        return b->limit;
    if (b->max_states >= 0 && b->states >= b->max_states)
        return b->limit = LIM_STATES;
    if (b->deadline >= 0 && now_s() > b->deadline)
        return b->limit = LIM_TIME;
    if (b->interrupt && !(b->states & 0xffff) && b->interrupt(b->interrupt_ctx))
        return b->limit = LIM_INTERRUPT;
    return 0;
}

/* A fresh budget: -1 (or 0 MB) for no limit. */
void bk_budget_start(Budget *b, long long max_states, double timeout, long long max_mb)
{
    memset(b, 0, sizeof *b);
    b->max_states = max_states;
    b->deadline = timeout > 0 ? now_s() + timeout : -1.0;
    b->max_bytes = max_mb > 0 ? (size_t)max_mb * 1024u * 1024u : 0;
}

const char *bk_limit_name(int lim)
{
    switch (lim) {
    case LIM_STATES:
        return "states";
    case LIM_TIME:
        return "timeout";
    case LIM_MEMORY:
        return "memory";
    case LIM_DISK:
        return "disk";
    default:
        return NULL;
    }
}

static const char *const error_messages[BK_ERR_COUNT] = {
    [BK_OK] = "no error",
    [BK_ERR_NOMEM] = "out of memory",
    [BK_ERR_RULES] = "rules out of range",
    [BK_ERR_NCOLS] = "wrong number of columns",
    [BK_ERR_LONG] = "column too long",
    [BK_ERR_CARD] = "bad or repeated card",
    [BK_ERR_CELLS] = "more cards in cells than cells",
    [BK_ERR_FOUNDATIONS] = "foundations must be contiguous from the ace",
    [BK_ERR_CELL_BYTES] = "one byte a cell",
    [BK_ERR_WEIGHTS] = "weights out of range",
    [BK_ERR_STAGES] = "beam stage out of range",
    [BK_ERR_RIVAL] = "a rival's turns must be positive",
    [BK_ERR_RACE] = "a race needs 1 to 24 weightings and a positive turn",
    [BK_ERR_RESTARTS] = "restarts need a positive unit and each low weight at most its high",
    [BK_ERR_RESUME] = "the work directory holds another search (or none to resume)",
    [BK_ERR_IO] = "a file of the work directory could not be read or written",
    [BK_ERR_BEAM_WEIGHTS] = "1 to 8 beam weights",
    [BK_ERR_NO_WEIGHTS] = "a beam stage names no beam weights",
    [BK_ERR_MALFORMED] = "malformed position",
    [BK_ERR_LINE] = "the line does not fit the position",
    [BK_ERR_RUN] = "a run too long for the spaces",
    [BK_ERR_MOVE] = "a move of the line is out of range",
    [BK_ERR_DEAL] = "deal number or columns out of range",
};

const char *bk_error_message(int code)
{
    if (code < 0)
        code = -code;
    return code < BK_ERR_COUNT ? error_messages[code] : "unknown error";
}
