/* The counters in detail: PROFIL's four, their share, and the session's facts. */
#include "config.h"

#include "session/report.h"
#include "views/view.h"

#include <inttypes.h>
#include <stdlib.h>

static void *counters_create(void)
{
    return NULL;
}

static void counters_destroy(void *state)
{
}

static void counters_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    const struct session *s = ctx->s;
    int w = getmaxx(win), h = getmaxy(win);
    draw_title(win, "Counters", NULL, ctx->focused, ctx->colors);
    const struct {
        const char *name;
        const char *what;
        uint64_t v;
        int pair;
    } rows[] = {
        { "Program", "in the program's own code (the buckets)", s->c.program, PAIR_PROGRAM },
        { "DOS", "in shared libraries, the loader, the vDSO", s->c.dos, PAIR_DOS },
        { "I/O", "in the kernel, or blocked in a system call", s->c.io, PAIR_IO },
        { "high", "outside every file: JIT, anonymous code", s->c.high, PAIR_HIGH },
    };
    int y = 2;
    for (size_t i = 0; i < 4 && y < h; i++, y += 2) {
        double pct = s->c.total ? 100.0 * (double)rows[i].v / (double)s->c.total : 0;
        char t[32];
        mvwprintw(win, y, 1, "%-8s %10" PRIu64 " %7.2f%%  %s", rows[i].name, rows[i].v, pct,
                  report_time(t, sizeof t, rows[i].v, s->interval_us));
        if (y + 1 < h)
            mvwprintw(win, y + 1, 3, "%s", rows[i].what);
        int barx = 44, barw = w - barx - 2;
        if (barw > 4)
            draw_bar(win, y, barx, barw, pct / 100, rows[i].pair, ctx->colors);
    }
    if (y + 4 < h) {
        mvwprintw(win, y++, 1, "%-8s %10" PRIu64, "Total", s->c.total);
        mvwprintw(win, y++, 1, "%-8s %10" PRIu64 "  (dropped before profil saw them)", "Lost",
                  s->c.lost);
        mvwprintw(win, y++, 1, "Buckets  %10zu  of %u paragraphs (%u bytes), 0x%" PRIx64
                               "..0x%" PRIx64,
                  s->nbuckets, s->bucket_paragraphs, 16 * s->bucket_paragraphs, s->prog_low,
                  s->prog_high);
        mvwprintw(win, y++, 1, "Modules  %10zu  distinct PCs %zu", s->nmodules, s->nhits);
    }
}

const struct view_ops view_counters_ops = {
    .name = "Counters",
    .create = counters_create,
    .destroy = counters_destroy,
    .draw = counters_draw,
};
