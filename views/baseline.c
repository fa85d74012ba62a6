/* --baseline's changes, shared by the views that show them (baseline.h). */
#include "config.h"

#include "analysis/diff.h"
#include "clockdrv/clockdrv.h"
#include "util/xmalloc.h"
#include "views/baseline.h"

#include <stdlib.h>

void baseline_update(struct baseline_changes *b, const struct view_ctx *ctx, bool swapped)
{
    const struct session *s = ctx->s, *shown = swapped ? ctx->baseline : ctx->s;
    double now = (double)clockdrv_now_ns() / 1e9;
    bool moving = ctx->mode == VIEW_LIVE || ctx->playing;
    if (b->chg != NULL && b->swapped == swapped && b->n == shown->nfuncs &&
        b->total == s->view.c.total)
        return;
    if (b->chg != NULL && b->swapped == swapped && moving && now - b->at < 1.0)
        return;
    b->at = now;
    b->total = s->view.c.total;
    b->swapped = swapped;
    free(b->chg);
    b->chg = xcalloc(shown->nfuncs + 1, sizeof *b->chg);
    b->n = shown->nfuncs;
    struct diff *d = swapped ? diff_sessions(ctx->query, ctx->baseline)
                             : diff_sessions(ctx->baseline, ctx->query);
    for (size_t i = 0; i < d->n; i++) {
        const struct diff_row *r = &d->rows[i];
        if (r->after_func < b->n)
            b->chg[r->after_func] =
                (struct baseline_change){true, r->stars, r->change, r->before_pct, r->p_adjusted};
    }
    diff_free(d);
}

const struct baseline_change *baseline_of(const struct baseline_changes *b, size_t func)
{
    return func < b->n && b->chg[func].known ? &b->chg[func] : NULL;
}

void baseline_free(struct baseline_changes *b)
{
    free(b->chg);
    *b = (struct baseline_changes){0};
}
