/* One routine's callers and callees (pprof's peek, perf report -G): the
 * routine in the middle, who called it above, what it called below, each
 * with its share.  Enter moves to a neighbour, Backspace goes back the way
 * it came; the first Backspace past the start leaves for the Functions. */
#include "config.h"

#include "analysis/calltree.h"
#include "report/report.h"
#include "util/pct.h"
#include "util/ticks.h"
#include "util/xmalloc.h"
#include "views/view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CALLERS_HISTORY 64

/* A function by what stays the same while the session grows. */
struct callers_key {
    uint32_t module;
    uint64_t start;
};

enum row_kind { ROW_HEAD, ROW_CALLER, ROW_MIDDLE, ROW_CALLEE };

struct callers_row {
    enum row_kind kind;
    int64_t func; /* -1: no caller, or the routine's own time */
    uint64_t samples;
};

struct callers {
    struct callers_key history[CALLERS_HISTORY]; /* the last one is shown */
    size_t depth;
    struct callers_row *rows; /* as last drawn */
    size_t n;
    size_t sel;
    size_t top;
    size_t page;
    /* The selected row, kept across refreshes. */
    enum row_kind sel_kind;
    int64_t sel_func;
};

static void *callers_create(void)
{
    return xcalloc(1, sizeof(struct callers));
}

static void callers_destroy(void *state)
{
    struct callers *c = state;
    free(c->rows);
    free(c);
}

/* The function of KEY now, or -1. */
static int64_t callers_find(const struct session *s, const struct callers_key *key)
{
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (s->funcs[i].module == key->module && s->funcs[i].start == key->start)
            return (int64_t)i;
    }
    return -1;
}

static void callers_add(struct callers *c, size_t *alloc, enum row_kind kind, int64_t func,
                        uint64_t samples)
{
    if (c->n == *alloc) {
        *alloc = *alloc ? 2 * *alloc : 16;
        c->rows = xreallocarray(c->rows, *alloc, sizeof *c->rows);
    }
    c->rows[c->n++] = (struct callers_row){kind, func, samples};
}

/* Rebuild the rows around function F: a head, the callers, F, a head, the callees. */
static void callers_rows(struct callers *c, struct session *s, int64_t f)
{
    size_t alloc = 0, nl = 0, nr = 0;
    c->n = 0;
    struct func_link *up = session_callers(s, f, &nl);
    struct func_link *down = session_callees(s, f, &nr);
    callers_add(c, &alloc, ROW_HEAD, 0, nl);
    for (size_t i = 0; i < nl; i++)
        callers_add(c, &alloc, ROW_CALLER, up[i].func, up[i].samples);
    callers_add(c, &alloc, ROW_MIDDLE, f, s->funcs[f].total);
    callers_add(c, &alloc, ROW_HEAD, 1, nr);
    for (size_t i = 0; i < nr; i++)
        callers_add(c, &alloc, ROW_CALLEE, down[i].func, down[i].samples);
    free(up);
    free(down);
    /* The same row as before, else the middle one. */
    size_t middle = nl + 1, found = middle;
    for (size_t i = 0; i < c->n; i++) {
        if (c->rows[i].kind == c->sel_kind && c->rows[i].func == c->sel_func)
            found = i;
    }
    c->sel = found;
}

static void callers_remember(struct callers *c)
{
    if (c->sel < c->n) {
        c->sel_kind = c->rows[c->sel].kind;
        c->sel_func = c->rows[c->sel].func;
    }
}

/* Show KEY, as a step from the routine shown now when PUSH. */
static void callers_go(struct callers *c, const struct callers_key *key, bool push)
{
    if (!push || c->depth == 0)
        c->depth = 0;
    else if (c->depth == CALLERS_HISTORY) /* the oldest step is forgotten */
        memmove(c->history, c->history + 1, (CALLERS_HISTORY - 1) * sizeof *c->history);
    c->history[c->depth < CALLERS_HISTORY ? c->depth++ : CALLERS_HISTORY - 1] = *key;
    c->sel_kind = ROW_MIDDLE;
    c->sel_func = -2;
    c->top = 0;
}

static const char *callers_name(const struct session *s, const struct callers_row *r)
{
    if (r->func >= 0)
        return s->funcs[r->func].name;
    return r->kind == ROW_CALLER ? "(no caller)" : "(self)";
}

static void callers_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct callers *c = state;
    const struct session *s = ctx->s;
    int w = getmaxx(win), h = getmaxy(win);
    int64_t f = c->depth > 0 ? callers_find(s, &c->history[c->depth - 1]) : -1;
    if (!s->has_stacks || f < 0) {
        c->n = 0;
        draw_title(win, "Callers and callees", NULL, ctx->focused, ctx->colors);
        draw_text(win, 2, 1, w - 1,
                  !s->has_stacks ? "this session has no stacks: no callers or callees"
                                 : "no routine chosen: Enter on one in the Functions (2)");
        return;
    }
    callers_rows(c, ctx->query, f);
    const struct func *fn = &s->funcs[f];
    char info[128];
    snprintf(info, sizeof info, "step %zu, Backspace back", c->depth);
    char name[160];
    snprintf(name, sizeof name, "Callers and callees: %s", fn->name);
    draw_title(win, name, info, ctx->focused, ctx->colors);
    /* Column heads, the rows, and the selected routine whole on the last line. */
    int rows = h - 3;
    if (rows <= 0)
        return;
    c->page = (size_t)rows;
    c->top = scroll_top(c->top, c->sel, c->n, c->page);
    int namew = w - (1 + 8 + 1 + 8 + 1 + 9 + 1) - 1;
    if (namew < 8)
        namew = 8;
    char line[512];
    snprintf(line, sizeof line, " %8s %8s %9s  %s", "% Total", "Share", "Samples", "Routine");
    wattron(win, A_BOLD);
    draw_text(win, 1, 0, w, line);
    wattroff(win, A_BOLD);
    for (int r = 0; r < rows && c->top + (size_t)r < c->n; r++) {
        size_t i = c->top + (size_t)r;
        const struct callers_row *row = &c->rows[i];
        if (row->kind == ROW_HEAD) {
            snprintf(line, sizeof line, "%s %s (%" PRIu64 ")",
                     row->func == 0 ? "Callers of" : "Callees of", fn->name, row->samples);
            wattron(win, ctx->colors ? COLOR_PAIR(PAIR_DIM) | A_BOLD : A_BOLD);
            draw_text(win, r + 2, 0, w, line);
            wattrset(win, A_NORMAL);
            continue;
        }
        /* Share: of the samples with the middle routine on the stack. */
        double pt = pct_of(row->samples, s->view.c.total);
        double sh = pct_of(row->samples, fn->total);
        char fit[256];
        draw_fit_middle(fit, sizeof fit, callers_name(s, row), namew - 2);
        snprintf(line, sizeof line, " %7.2f%% %7.2f%% %9" PRIu64 "  %s%s", pt, sh, row->samples,
                 row->kind == ROW_MIDDLE ? "" : "  ", fit);
        bool selected = i == c->sel && ctx->focused;
        if (selected)
            wattron(win, ctx->colors ? COLOR_PAIR(PAIR_SELECT) : A_REVERSE);
        else if (row->kind == ROW_MIDDLE)
            wattron(win, A_BOLD);
        else if (ctx->colors && row->func >= 0 && s->funcs[row->func].module != s->view.prog_module)
            wattron(win, COLOR_PAIR(PAIR_DOS));
        draw_text(win, r + 2, 0, w, line);
        wattrset(win, A_NORMAL);
    }
    if (c->sel < c->n) {
        const struct callers_row *row = &c->rows[c->sel];
        char detail[1024], t[32];
        if (row->func >= 0) {
            const struct func *g = &s->funcs[row->func];
            ticks_time(t, sizeof t, row->samples, s->interval_us);
            snprintf(detail, sizeof detail, "%s  (%s)  %s%s", g->name, s->modules[g->module]->name,
                     t, row->kind == ROW_MIDDLE ? " with it on the stack" : "");
        } else {
            snprintf(detail, sizeof detail, "%s",
                     row->kind == ROW_CALLER ? "(no caller): the outermost frame of its stacks"
                                             : "(self): samples in the routine itself");
        }
        wattron(win, A_BOLD);
        draw_text(win, rows + 2, 0, w, detail);
        wattroff(win, A_BOLD);
    }
}

/* Move over the rows, stepping over the heads in the direction moved. */
static bool callers_move(struct callers *c, int key)
{
    size_t was = c->sel;
    if (!scroll_key(key, &c->sel, c->n, c->page))
        return false;
    bool down = c->sel > was || key == KEY_HOME;
    while (c->sel < c->n && c->rows[c->sel].kind == ROW_HEAD) {
        if (down ? c->sel + 1 < c->n : c->sel == 0)
            c->sel++;
        else
            c->sel--;
    }
    callers_remember(c);
    return true;
}

static int callers_key(void *state, int key, struct view_ctx *ctx)
{
    struct callers *c = state;
    const struct session *s = ctx->s;
    if (callers_move(c, key))
        return VIEW_REDRAW;
    const struct callers_row *row = c->sel < c->n ? &c->rows[c->sel] : NULL;
    switch (key) {
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (row == NULL || row->func < 0 || row->kind == ROW_MIDDLE)
            return VIEW_REDRAW;
        callers_go(c, &(struct callers_key){s->funcs[row->func].module, s->funcs[row->func].start},
                   true);
        return VIEW_REDRAW;
    case KEY_BACKSPACE:
    case 127:
    case 8:
    case KEY_LEFT:
        if (c->depth <= 1)
            return VIEW_BACK | VIEW_REDRAW;
        c->depth--;
        c->sel_kind = ROW_MIDDLE;
        c->sel_func = -2;
        c->top = 0;
        return VIEW_REDRAW;
    case 'a':
        if (row == NULL || row->func < 0)
            return VIEW_REDRAW;
        ctx->jump_module = s->funcs[row->func].module;
        ctx->jump_start = s->funcs[row->func].start;
        return VIEW_SOURCE | VIEW_REDRAW;
    case 'b':
        if (row == NULL || row->func < 0)
            return VIEW_REDRAW;
        ctx->jump_module = s->funcs[row->func].module;
        ctx->jump_start = s->funcs[row->func].start;
        ctx->jump_end = s->funcs[row->func].end;
        return VIEW_JUMP | VIEW_REDRAW;
    default: return VIEW_IGNORED;
    }
}

/* Start again from the function of ctx->jump_* (Enter in the Functions). */
static int callers_jump(void *state, struct view_ctx *ctx)
{
    struct callers *c = state;
    callers_go(c, &(struct callers_key){ctx->jump_module, ctx->jump_start}, false);
    return VIEW_REDRAW;
}

static int callers_click(void *state, int row, struct view_ctx *ctx)
{
    struct callers *c = state;
    (void)ctx;
    size_t i = c->top + (size_t)(row - 2);
    if (row < 2 || i >= c->n || c->rows[i].kind == ROW_HEAD)
        return VIEW_IGNORED;
    c->sel = i;
    callers_remember(c);
    return VIEW_REDRAW;
}

const struct view_ops view_callers_ops = {
    .name = "Callers",
    .create = callers_create,
    .destroy = callers_destroy,
    .draw = callers_draw,
    .key = callers_key,
    .click = callers_click,
    .jump = callers_jump,
};
