/* The whole library as one unit: every function static, so that the compiler
 * inlines across the parts as it would in one file. The CPython module and
 * the profile-guided build compile this file. */
#define BK_UNITY 1
#include "budget.c"
#include "store.c"
#include "rules.c"
#include "position.c"
#include "moves.c"
#include "bestfirst.c"
#include "beam.c"
#include "short.c"
#include "exhaust.c"
#include "disk.c"
#include "relax.c"
#include "line.c"
#include "portfolio.c"
#include "deal.c"
#include "probe.c"
