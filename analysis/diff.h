/* Two sessions compared function by function, as perf diff and pprof
 * -diff_base do, with a test of whether each change is more than chance. */
#ifndef PROFIL_ANALYSIS_DIFF_H
#define PROFIL_ANALYSIS_DIFF_H

#include "session/session.h"

#include <stdio.h>

struct diff_row {
    char *name;                   /* owned: as AFTER shows it (BEFORE's when only there) */
    char *module;                 /* owned */
    uint64_t before, after;       /* Self samples */
    double before_pct, after_pct; /* of each session's total */
    double change;                /* after_pct - before_pct, in points */
    double before_s, after_s;     /* samples times each session's interval */
    double p;                     /* two-sided, two-proportion z-test */
    double p_adjusted;            /* Holm's, over the rows compared */
    int stars;                    /* 3: p_adjusted < 0.001, 2: < 0.01, 1: < 0.05 */
    size_t after_func;            /* its index in AFTER's funcs, SIZE_MAX when not there */
    size_t before_func;           /* its index in BEFORE's funcs, SIZE_MAX when not there */
};

struct diff {
    struct diff_row *rows; /* by the size of the change, largest first */
    size_t n;
    uint64_t before_total, after_total;
    uint32_t before_interval_us, after_interval_us;
    double before_deff, after_deff; /* each session's design effect (session_deff) */
};

/* Match A's and B's functions by module and name (the program's own
 * module by its place, whatever its file is called now; a function without
 * a symbol, "prog+0x1240", by its offset) and compare their shares. */
struct diff *diff_sessions(struct session *a, struct session *b);
void diff_print(const struct diff *d, const char *before, const char *after, FILE *out);
char *diff_json(const struct diff *d, const char *before, const char *after);
void diff_free(struct diff *d);

#endif
