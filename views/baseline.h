/*
 * --baseline in the views: each function's change against the baseline
 * session, as --diff computes it (analysis/diff.c), made again when the
 * counts have moved, at most once a second while they go on moving.  The
 * Functions view's Change column and the Flame view's colours read it.
 */
#ifndef PROFIL_VIEWS_BASELINE_H
#define PROFIL_VIEWS_BASELINE_H

#include "views/view.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One function's change. */
struct baseline_change {
    bool known; /* it has samples of its own: a row of the diff */
    int stars;  /* 0 to 3, as --diff's */
    double change, before_pct, p_adjusted;
};

/* Every function's, by index into session.funcs. */
struct baseline_changes {
    struct baseline_change *chg; /* owned */
    size_t n;
    double at;      /* when it was made (CLOCK_MONOTONIC, s) */
    uint64_t total; /* the session's total it was made for */
    bool swapped;   /* made for the baseline's functions, against the session */
};

/* Make B again from CTX's session against CTX's baseline, when it is due;
 * SWAPPED: the other way, the baseline's functions against the session (a
 * change is then the baseline's share less the session's). */
void baseline_update(struct baseline_changes *b, const struct view_ctx *ctx, bool swapped);

/* Function FUNC's change, or NULL when it has no row of its own. */
const struct baseline_change *baseline_of(const struct baseline_changes *b, size_t func);

void baseline_free(struct baseline_changes *b);

#endif
