#include "config.h"

#include "analysis/settle.h"
#include "util/stats.h"

#include <stdlib.h>
#include <string.h>

void settle_init(struct settle *st)
{
    memset(st, 0, sizeof *st);
    st->since = -1;
    st->last = -1;
}

double settle_update(struct settle *st, struct session *s, double now)
{
    if (st->last >= 0 && now - st->last < 0.5)
        return st->steady ? now - st->since : 0;
    st->last = now;
    size_t n;
    size_t *order = session_ranking(s, &n);
    size_t top[SETTLE_TOP], ntop = 0;
    for (size_t k = 0; k < n && ntop < SETTLE_TOP; k++) {
        if (s->funcs[order[k]].samples * 100 >= s->view.c.total * SETTLE_MIN_PCT &&
            s->funcs[order[k]].samples > 0)
            top[ntop++] = order[k];
    }
    free(order);
    size_t watched = ntop;
    struct settle_key keys[SETTLE_TOP];
    memset(keys, 0, sizeof keys);
    for (size_t k = 0; k < watched; k++)
        keys[k] = (struct settle_key){s->funcs[top[k]].module, s->funcs[top[k]].start};
    bool steady = watched > 0 && s->view.c.total >= SETTLE_MIN_SAMPLES && watched == st->ntop &&
                  memcmp(keys, st->top, watched * sizeof *keys) == 0;
    for (size_t k = 0; steady && k + 1 < ntop; k++) {
        if (stats_overlap_z(s->funcs[top[k]].samples, s->funcs[top[k + 1]].samples, s->view.c.total,
                            session_deff(s), SETTLE_Z))
            steady = false;
    }
    memcpy(st->top, keys, sizeof keys);
    st->ntop = watched;
    if (!steady || !st->steady)
        st->since = now;
    st->steady = steady;
    return steady ? now - st->since : 0;
}
