/* "Settled": whether the top of the ranking has stopped moving, so that a
 * user (or --until-settled) knows more samples would change nothing there. */
#ifndef PROFIL_ANALYSIS_SETTLE_H
#define PROFIL_ANALYSIS_SETTLE_H

#include "session/session.h"
#include "util/stats.h"

#include <stdbool.h>

#define SETTLE_TOP         5 /* the routines watched */
#define SETTLE_MIN_SAMPLES 100
#define SETTLE_MIN_PCT     1   /* routines of less are not watched: noise at 0.1 % never parts */
#define SETTLE_SECONDS     3.0 /* --until-settled's default */
/* The intervals compared are 99 % ones, not the 95 % ones shown: the ranking
 * is looked at again and again, and two routines of one share would look
 * apart at 95 % in about 3 % of the looks; at 99 %, in 0.5 %. */
#define SETTLE_Z STATS_Z99

struct settle {
    struct settle_key {
        uint32_t module;
        uint64_t start;
    } top[SETTLE_TOP]; /* the routines, as last seen (indices may move) */
    size_t ntop;
    double since; /* when the top was last seen to move or blur, -1 never looked */
    double last;  /* when it was last looked at */
    bool steady;  /* the last look found it in order and apart */
};

void settle_init(struct settle *st);

/* Look at S at time NOW (seconds, any clock that only goes on), at most
 * twice a second: the top SETTLE_TOP routines by their own samples (those
 * of SETTLE_MIN_PCT % or more), with SETTLE_MIN_SAMPLES in all at least,
 * must be in the same order as at the last look, and each one's 99 %
 * interval apart from the next one's.  Returns how long they have stayed
 * so, in seconds; 0 while they move. */
double settle_update(struct settle *st, struct session *s, double now);

#endif
