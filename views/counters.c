/* The counters in detail: PROFIL's four, their share, and the session's facts. */
#include "config.h"

#include "report/report.h"
#include "util/pct.h"
#include "util/ticks.h"
#include "views/view.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void *counters_create(void)
{
    return NULL;
}

static void counters_destroy(void *state)
{
}

/* One line of text at (y, x), cut to the window with an ellipsis. */
static void counters_line(WINDOW *win, int y, int x, int w, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void counters_line(WINDOW *win, int y, int x, int w, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (y < getmaxy(win))
        draw_text(win, y, x, w - x, line);
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
        {"Program", "in the program's own code (the buckets)", s->view.c.program, PAIR_PROGRAM},
        {"DOS", "in shared libraries, the loader, the vDSO", s->view.c.dos, PAIR_DOS},
        {"I/O", "in the kernel, or blocked in a system call", s->view.c.io, PAIR_IO},
        {"high", "outside every file: JIT, anonymous code", s->view.c.high, PAIR_HIGH},
    };
    int y = 2, barx = 44, barw = w - barx - 2;
    for (size_t i = 0; i < 4 && y < h; i++, y += 2) {
        double pct = pct_of(rows[i].v, s->view.c.total);
        char t[32];
        counters_line(win, y, 1, barw > 4 ? barx - 1 : w, "%-9s %10" PRIu64 " %7.2f%%  %s",
                      rows[i].name, rows[i].v, pct,
                      ticks_time(t, sizeof t, rows[i].v, s->interval_us));
        counters_line(win, y + 1, 3, w, "%s", rows[i].what);
        if (barw > 4)
            draw_bar(win, y, barx, barw, pct / 100, rows[i].pair, ctx->colors);
    }
    if (y + 5 >= h)
        return;
    /* Lost, as the report gives it: a share of the ticks the clock took (samples
     * and lost).  Preempted ticks are not the program's: a share of all that came due. */
    uint64_t due = s->view.c.total + s->view.c.lost + s->view.c.preempted;
    counters_line(win, y++, 1, w, "%-9s %10" PRIu64, "Total", s->view.c.total);
    if (s->view.c.lost > 0)
        counters_line(win, y++, 1, w,
                      "%-9s %10" PRIu64 " %7.1f%%  of the ticks: dropped before profil saw them",
                      "Lost", s->view.c.lost, report_lost_pct(&s->view.c));
    else
        counters_line(win, y++, 1, w, "%-9s %10d  (dropped before profil saw them)", "Lost", 0);
    if (s->view.c.preempted > 0) {
        counters_line(win, y++, 1, w, "%-9s %10" PRIu64 " %7.1f%%  of the ticks", "Preempted",
                      s->view.c.preempted, 100.0 * (double)s->view.c.preempted / (double)due);
        counters_line(win, y++, 3, w,
                      "a thread was ready to run but no CPU ran it: not a sample, not lost");
    }
    counters_line(win, y++, 1, w,
                  "%-9s %10zu  of %u paragraph%s (%u bytes), 0x%" PRIx64 "..0x%" PRIx64, "Buckets",
                  s->view.nbuckets, s->view.bucket_paragraphs,
                  s->view.bucket_paragraphs == 1 ? "" : "s", 16 * s->view.bucket_paragraphs,
                  s->view.prog_low, s->view.prog_high);
    counters_line(win, y++, 1, w, "%-9s %10zu  distinct PCs %zu", "Modules", s->nmodules, s->nhits);
}

const struct view_ops view_counters_ops = {
    .name = "Counters",
    .short_name = "Count",
    .create = counters_create,
    .destroy = counters_destroy,
    .draw = counters_draw,
};
