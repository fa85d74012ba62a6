/* Who ran: one row per process with its threads under it, as htop's tree
 * shows them: name, samples, share, time on a CPU and blocked over the
 * thread's life, its state while live.  Enter on a row makes every view
 * count that thread's (or process's) samples only; Esc shows them all. */
#include "config.h"

#include "session/threads.h"
#include "session/view.h"
#include "util/pct.h"
#include "util/xmalloc.h"
#include "views/view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum threads_sort { TS_TREE, TS_SAMPLES, TS_CPU, TS_BLOCKED, TS_NAME, TS_COUNT };
static const char *const sort_names[TS_COUNT] = {"tree", "Samples", "On CPU", "Blocked", "Name"};

/* A row: a process (thread -1) or one of its threads. */
struct trow {
    size_t proc;
    long thread; /* index into session.threads, or -1 */
    uint64_t samples, on_cpu, blocked, program;
    double cpu_pct, blocked_pct;
};

struct tview {
    enum threads_sort sort;
    struct trow *rows;
    size_t n, alloc;
    size_t sel, top, shown;
    /* The selected row, kept across re-sorts: its pid, and tid or 0. */
    uint32_t key_pid, key_tid;
    bool have_key;
};

static void *threads_create(void)
{
    return xcalloc(1, sizeof(struct tview));
}

static void threads_destroy(void *state)
{
    struct tview *v = state;
    free(v->rows);
    free(v);
}

static int trow_cmp_key(const struct session *s, const struct trow *a, const struct trow *b,
                        enum threads_sort k)
{
    switch (k) {
    case TS_SAMPLES: return a->samples < b->samples ? 1 : a->samples > b->samples ? -1 : 0;
    case TS_CPU: return a->cpu_pct < b->cpu_pct ? 1 : a->cpu_pct > b->cpu_pct ? -1 : 0;
    case TS_BLOCKED:
        return a->blocked_pct < b->blocked_pct ? 1 : a->blocked_pct > b->blocked_pct ? -1 : 0;
    case TS_NAME: {
        const char *x = a->thread >= 0 ? s->threads[a->thread].name : NULL;
        const char *y = b->thread >= 0 ? s->threads[b->thread].name : NULL;
        return strcmp(x ? x : "", y ? y : "");
    }
    default: return 0;
    }
}

/* What trow_cmp orders by. */
struct trow_by {
    const struct session *s;
    enum threads_sort key;
};

/* Threads of one process by the sort key, then by tid. */
static int trow_cmp(const void *pa, const void *pb, void *arg)
{
    const struct trow_by *by = arg;
    const struct trow *a = pa, *b = pb;
    int c = trow_cmp_key(by->s, a, b, by->key);
    if (c != 0)
        return c;
    uint32_t x = by->s->threads[a->thread].tid, y = by->s->threads[b->thread].tid;
    return x < y ? -1 : x > y;
}

/* The rows: each process (in order of first sight, or by the sort key)
 * followed by its threads (the first thread first, then the sort key). */
static void threads_rows(struct tview *v, const struct session *s, bool run)
{
    v->n = 0;
    struct thread_sums *sums = xcalloc(s->nthreads ? s->nthreads : 1, sizeof *sums);
    threads_sum(s, run, sums);
    for (size_t p = 0; p < s->nprocs; p++) {
        const struct proc_info *pi = &s->procs[p];
        size_t head = v->n;
        v->rows = xgrowarray(v->rows, &v->alloc, v->n + 1, sizeof *v->rows);
        v->rows[v->n++] = (struct trow){.proc = p, .thread = -1};
        size_t *mine, nmine = threads_of_proc(s, pi, &mine);
        for (size_t k = 0; k < nmine; k++) {
            size_t i = mine[k];
            const struct thread_info *t = &s->threads[i];
            v->rows = xgrowarray(v->rows, &v->alloc, v->n + 1, sizeof *v->rows);
            struct trow *r = &v->rows[v->n++];
            *r = (struct trow){.proc = p,
                               .thread = (long)i,
                               .samples = sums[i].samples,
                               .on_cpu = sums[i].on_cpu,
                               .blocked = sums[i].blocked,
                               .program = sums[i].program,
                               .cpu_pct = threads_share_of_life(s, t, sums[i].on_cpu),
                               .blocked_pct = threads_share_of_life(s, t, sums[i].blocked)};
            struct trow *h = &v->rows[head];
            h->samples += r->samples;
            h->on_cpu += r->on_cpu;
            h->blocked += r->blocked;
            h->program += r->program;
        }
        free(mine);
        if (v->n - head > 2 && v->sort != TS_TREE) {
            struct trow_by by = {s, v->sort};
            qsort_r(v->rows + head + 1, v->n - head - 1, sizeof *v->rows, trow_cmp, &by);
        }
    }
    free(sums);
    /* Keep the selection on the same row. */
    if (v->have_key) {
        for (size_t i = 0; i < v->n; i++) {
            const struct trow *r = &v->rows[i];
            uint32_t pid = s->procs[r->proc].pid;
            uint32_t tid = r->thread >= 0 ? s->threads[r->thread].tid : 0;
            if (pid == v->key_pid && tid == v->key_tid) {
                v->sel = i;
                break;
            }
        }
    }
    if (v->sel >= v->n)
        v->sel = v->n ? v->n - 1 : 0;
}

static void threads_remember(struct tview *v, const struct session *s)
{
    if (v->sel >= v->n)
        return;
    const struct trow *r = &v->rows[v->sel];
    v->key_pid = s->procs[r->proc].pid;
    v->key_tid = r->thread >= 0 ? s->threads[r->thread].tid : 0;
    v->have_key = true;
}

/* A thread's state: R (its latest sample ran), S (blocked), - (ended). */
static char thread_state(const struct thread_info *t, enum view_mode mode)
{
    if (t->ended)
        return '-';
    if (mode != VIEW_LIVE)
        return ' ';
    return t->last_ns == 0 ? '?' : t->last_blocked ? 'S' : 'R';
}

static void threads_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct tview *v = state;
    const struct session *s = ctx->s;
    int w = getmaxx(win), h = getmaxy(win);
    threads_rows(v, s, ctx->mode == VIEW_REPLAY); /* a replay: the whole run's */
    char info[160];
    snprintf(info, sizeof info, "%zu process%s, %zu thread%s; sort %s (> <)%s", s->nprocs,
             s->nprocs == 1 ? "" : "es", s->nthreads, s->nthreads == 1 ? "" : "s",
             sort_names[v->sort], s->view.filter ? "; Esc shows all" : "; Enter filters");
    draw_title(win, "Threads", info, ctx->focused, ctx->colors);
    if (h < 3)
        return;
    char line[512];
    snprintf(line, sizeof line, "%-7s %-7s %-16s %9s %7s %7s %8s %2s  %s", "PID", "TID", "Name",
             "Samples", "%", "On CPU", "Blocked", "S", "How it ended, own code: executable");
    wattron(win, A_BOLD);
    draw_text(win, 1, 0, w, line);
    wattroff(win, A_BOLD);
    if (s->nthreads == 0) {
        draw_text(win, 2, 1, w - 1,
                  s->classic ? "a 1983 PROFIL file knows no threads"
                             : "no threads recorded (a session made before profil kept them)");
        return;
    }
    size_t rows = (size_t)(h - 2);
    v->shown = rows;
    v->top = scroll_top(v->top, v->sel, v->n, rows);
    uint64_t all = 0;
    for (size_t i = 0; i < v->n; i++)
        all += v->rows[i].thread < 0 ? v->rows[i].samples : 0;
    for (size_t k = 0; k < rows && v->top + k < v->n; k++) {
        size_t i = v->top + k;
        const struct trow *r = &v->rows[i];
        const struct proc_info *p = &s->procs[r->proc];
        double pct = pct_of(r->samples, all);
        if (r->thread < 0) {
            const struct thread_info *lead = threads_find(s, p->pid);
            char end[32];
            snprintf(line, sizeof line,
                     "%-7u %-7s %-16.16s %9" PRIu64 " %6.1f%% %7s %8s %2s  %s, own code %.0f%%: %s",
                     p->pid, "", lead && lead->name ? lead->name : "?", r->samples, pct, "", "",
                     p->ended ? "-" : "", threads_proc_end(p, end, sizeof end),
                     pct_of(r->program, r->on_cpu), p->exe ? p->exe : "?");
        } else {
            const struct thread_info *t = &s->threads[r->thread];
            char st[2] = {thread_state(t, ctx->mode), '\0'};
            snprintf(line, sizeof line,
                     "%-7s %-7u %-16.16s %9" PRIu64 " %6.1f%% %6.1f%% %7.1f%% %2s", "", t->tid,
                     t->name ? t->name : "?", r->samples, pct, r->cpu_pct, r->blocked_pct, st);
        }
        bool shown = r->thread < 0 ? true : threads_shown(s, s->threads[r->thread].tid);
        if (i == v->sel && ctx->focused)
            wattron(win, ctx->colors ? COLOR_PAIR(PAIR_SELECT) : A_REVERSE);
        else if (!shown && ctx->colors)
            wattron(win, COLOR_PAIR(PAIR_DIM));
        else if (r->thread < 0)
            wattron(win, A_BOLD);
        draw_text(win, 2 + (int)k, 0, w, line);
        wattrset(win, A_NORMAL);
    }
}

static int threads_key(void *state, int key, struct view_ctx *ctx)
{
    struct tview *v = state;
    const struct session *s = ctx->s;
    threads_rows(v, s, ctx->mode == VIEW_REPLAY); /* a replay: the whole run's */
    if (scroll_key(key, &v->sel, v->n, v->shown ? v->shown : 1)) {
        threads_remember(v, s);
        return VIEW_REDRAW;
    }
    switch (key) {
    case KEY_F(6):
    case '>': v->sort = (v->sort + 1) % TS_COUNT; return VIEW_REDRAW;
    case '<': v->sort = (v->sort + TS_COUNT - 1) % TS_COUNT; return VIEW_REDRAW;
    case '\n':
    case '\r':
    case KEY_ENTER: {
        if (v->sel >= v->n)
            return VIEW_REDRAW;
        const struct trow *r = &v->rows[v->sel];
        ctx->filter_pid = s->procs[r->proc].pid;
        ctx->filter_tid = r->thread >= 0 ? s->threads[r->thread].tid : 0;
        return VIEW_FILTER | VIEW_REDRAW;
    }
    default: return VIEW_IGNORED;
    }
}

static int threads_click(void *state, int row, struct view_ctx *ctx)
{
    struct tview *v = state;
    if (row < 2 || v->top + (size_t)(row - 2) >= v->n)
        return VIEW_IGNORED;
    v->sel = v->top + (size_t)(row - 2);
    threads_remember(v, ctx->s);
    return VIEW_REDRAW;
}

/* Find a thread or process by name, from the selection on. */
static int threads_search(void *state, const char *text, int dir, struct view_ctx *ctx)
{
    struct tview *v = state;
    const struct session *s = ctx->s;
    threads_rows(v, s, ctx->mode == VIEW_REPLAY); /* a replay: the whole run's */
    if (v->n == 0 || text[0] == '\0')
        return VIEW_IGNORED;
    for (size_t k = dir == 0 ? 0 : 1; k <= v->n; k++) {
        size_t i = dir < 0 ? (v->sel + v->n - k % v->n) % v->n : (v->sel + k) % v->n;
        const struct trow *r = &v->rows[i];
        const char *name = r->thread >= 0 ? s->threads[r->thread].name : s->procs[r->proc].exe;
        if (name != NULL && strstr(name, text) != NULL) {
            v->sel = i;
            threads_remember(v, s);
            return VIEW_REDRAW;
        }
    }
    snprintf(ctx->status, sizeof ctx->status, "no thread or process named like '%s'", text);
    return VIEW_REDRAW;
}

const struct view_ops view_threads_ops = {
    .name = "Threads",
    .create = threads_create,
    .destroy = threads_destroy,
    .draw = threads_draw,
    .key = threads_key,
    .click = threads_click,
    .search = threads_search,
};
