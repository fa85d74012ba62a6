/* The function ranking: PROF's columns (time, routine, % of total, % of
 * accounted) plus samples and module, sortable and searchable, with the
 * selection kept on the same function while the numbers move.  With call
 * stacks, as perf top --children: Self (PROF's % of total) and Total, the
 * samples with the routine anywhere on the stack. */
#include "config.h"

#include "clockdrv/clockdrv.h"
#include "report/report.h"
#include "util/pct.h"
#include "util/stats.h"
#include "util/ticks.h"
#include "util/xmalloc.h"
#include "views/baseline.h"
#include "views/view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum sort_col {
    SORT_TIME,
    SORT_ROUTINE,
    SORT_SELF,
    SORT_TOTAL,
    SORT_ACCOUNTED,
    SORT_SAMPLES,
    SORT_MODULE,
    SORT_COUNT
};

/* Without stacks the Self column is PROF's "% Total", and Total is not shown. */
static const char *const sort_names[SORT_COUNT] = {"Time",  "Routine", "% Total", "% Total",
                                                   "% Acc", "Samples", "Module"};
static const char *const stack_names[SORT_COUNT] = {"Time",  "Routine", "Self",  "Total",
                                                    "% Acc", "Samples", "Module"};

/* A column's head: the names change when the session has stacks. */
static const char *functions_col_name(const struct session *s, enum sort_col c)
{
    return s->has_stacks ? stack_names[c] : sort_names[c];
}

struct functions {
    enum sort_col col;
    bool ascending;
    size_t *order; /* indices into session.funcs with samples */
    size_t n;
    size_t sel; /* row */
    size_t top;
    size_t rows;
    bool have_key; /* the selected function, kept across re-sorts */
    uint32_t key_module;
    uint64_t key_start;
    double last_key;             /* when the user last moved: hold re-sorts briefly */
    struct baseline_changes chg; /* --baseline: each function's change against it */
};

/* Seconds, for holding re-sorts while the user moves. */
static double functions_now(void)
{
    return (double)clockdrv_now_ns() / 1e9;
}

static void *functions_create(void)
{
    return xcalloc(1, sizeof(struct functions));
}

static void functions_destroy(void *state)
{
    struct functions *f = state;
    free(f->order);
    baseline_free(&f->chg);
    free(f);
}

/* What functions_cmp orders by. */
struct functions_by {
    const struct session *s;
    enum sort_col col;
    bool ascending;
};

/* Order by the chosen column; ties by samples then name, so rows are stable. */
static int functions_cmp(const void *a, const void *b, void *arg)
{
    const struct functions_by *by = arg;
    const struct func *x = &by->s->funcs[*(const size_t *)a];
    const struct func *y = &by->s->funcs[*(const size_t *)b];
    int r = 0;
    switch (by->col) {
    case SORT_ROUTINE: r = strcmp(x->name, y->name); break;
    case SORT_MODULE:
        r = strcmp(by->s->modules[x->module]->name, by->s->modules[y->module]->name);
        break;
    case SORT_TOTAL: r = x->total < y->total ? -1 : x->total > y->total; break;
    default: r = x->samples < y->samples ? -1 : x->samples > y->samples; break;
    }
    /* Numbers read most first, names A to Z; 'I' inverts either. */
    bool textual = by->col == SORT_ROUTINE || by->col == SORT_MODULE;
    bool descending = textual ? by->ascending : !by->ascending;
    if (r != 0)
        return descending ? -r : r;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Whether function FN has a row: samples of its own, or (with stacks) on
 * the stack of some. */
static bool functions_listed(const struct session *s, const struct func *fn)
{
    return fn->samples > 0 || (s->has_stacks && fn->total > 0);
}

/* Rebuild the row order, unless the user just moved (rows must not jump). */
static void functions_refresh(struct functions *f, const struct session *s, bool force)
{
    bool same_set = true;
    size_t live = 0;
    if (!s->has_stacks && f->col == SORT_TOTAL)
        f->col = SORT_SELF;
    for (size_t i = 0; i < s->nfuncs; i++)
        live += functions_listed(s, &s->funcs[i]);
    same_set = live == f->n;
    if (!force && same_set && functions_now() - f->last_key < 1.0)
        return;
    free(f->order);
    f->order = xcalloc(live + 1, sizeof *f->order);
    f->n = 0;
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (functions_listed(s, &s->funcs[i]))
            f->order[f->n++] = i;
    }
    struct functions_by by = {s, f->col, f->ascending};
    qsort_r(f->order, f->n, sizeof *f->order, functions_cmp, &by);
    if (f->have_key) { /* find the selected function again */
        for (size_t r = 0; r < f->n; r++) {
            const struct func *fn = &s->funcs[f->order[r]];
            if (fn->module == f->key_module && fn->start == f->key_start) {
                f->sel = r;
                return;
            }
        }
    }
    if (f->sel >= f->n)
        f->sel = f->n ? f->n - 1 : 0;
}

static void functions_remember(struct functions *f, const struct session *s)
{
    if (f->sel < f->n) {
        const struct func *fn = &s->funcs[f->order[f->sel]];
        f->have_key = true;
        f->key_module = fn->module;
        f->key_start = fn->start;
    }
}

/* Append FIT, padded to WIDTH columns (to the left when RIGHT), and a blank. */
static void functions_put(char *line, size_t size, const char *fit, int width, bool right)
{
    int pad = width - draw_width(fit);
    size_t len = strlen(line);
    snprintf(line + len, size - len, "%*s%s%*s ", right ? pad : 0, "", fit, right ? 0 : pad, "");
}

/* Append TEXT to LINE in a cell WIDTH columns wide (right-aligned if RIGHT),
 * cut with an ellipsis when it is longer, and a blank after it. */
static void functions_cell(char *line, size_t size, const char *text, int width, bool right)
{
    char fit[256];
    draw_fit(fit, sizeof fit, text, width);
    functions_put(line, size, fit, width, right);
}

/* A routine's name: long ones lose their middle, not their end. */
static void functions_name_cell(char *line, size_t size, const char *text, int width)
{
    char fit[256];
    draw_fit_middle(fit, sizeof fit, text, width);
    functions_put(line, size, fit, width, false);
}

/* Whether the rows run from the largest value down (numbers by default). */
static bool functions_descending(const struct functions *f)
{
    bool textual = f->col == SORT_ROUTINE || f->col == SORT_MODULE;
    return textual ? f->ascending : !f->ascending;
}

/* Whether row ROW's share cannot be told from the row above or below it
 * (their 95 % intervals overlap), as the report's '~' says; only while the
 * rows are in the order of their own samples, where neighbours compete. */
static bool functions_indistinct(const struct functions *f, const struct session *s, size_t row)
{
    if (f->col != SORT_TIME && f->col != SORT_SELF && f->col != SORT_SAMPLES &&
        f->col != SORT_ACCOUNTED)
        return false;
    return report_indistinct(s, f->order, f->n, row);
}

static void functions_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct functions *f = state;
    const struct session *s = ctx->s;
    functions_refresh(f, s, false);
    bool base = ctx->baseline != NULL;
    if (base)
        baseline_update(&f->chg, ctx, false);
    /* Title, column heads, the rows, and a detail line: the selected
     * routine whole, whose name a narrow column may have cut. */
    /* Without stacks a last line says why there is no Total. */
    bool note = !s->has_stacks;
    int w = getmaxx(win), rows = getmaxy(win) - 3 - (note ? 1 : 0);
    uint64_t accounted = 0;
    for (size_t i = 0; i < s->nfuncs; i++)
        accounted += s->funcs[i].samples;
    char info[160], bname[48] = "";
    if (base) {
        const char *slash = strrchr(ctx->baseline_name, '/');
        draw_fit(bname, sizeof bname, slash ? slash + 1 : ctx->baseline_name, 30);
    }
    snprintf(info, sizeof info, "%zu routine%s, sorted by %s%s%s%s", f->n, f->n == 1 ? "" : "s",
             functions_col_name(s, f->col), f->ascending ? " (inverted)" : "",
             base ? ", change against " : "", bname);
    draw_title(win, "Functions", info, ctx->focused, ctx->colors);
    if (rows <= 0)
        return;
    f->rows = (size_t)rows;
    f->top = scroll_top(f->top, f->sel, f->n, f->rows);
    bool wide = w >= 80;
    bool pm = w >= 90; /* room for the share's +- beside it */
    bool stacks = s->has_stacks;
    int modw = wide ? (stacks && w < 100 ? 12 : 16) : 0;
    int namew = w -
                (10 + 1 + 8 + 1 + (pm ? 6 + 1 : 0) + (base ? 9 + 1 : 0) + (stacks ? 8 + 1 : 0) + 8 +
                 1 + (wide ? 9 + 1 + modw : 0)) -
                1;
    if (namew < 8)
        namew = 8;
    /* The column heads, the sorted one marked with its direction. */
    static const int widths[SORT_COUNT] = {10, 0, 8, 8, 8, 9, 0};
    static const bool right[SORT_COUNT] = {false, false, true, true, true, true, false};
    const char *mark = functions_descending(f) ? (draw_utf8() ? "\xe2\x96\xbc" : "v")
                                               : (draw_utf8() ? "\xe2\x96\xb2" : "^");
    char line[512] = "";
    for (int c = 0; c < (wide ? SORT_COUNT : SORT_SAMPLES); c++) {
        if (c == SORT_TOTAL && !stacks)
            continue;
        char head[32];
        snprintf(head, sizeof head, "%s%s", functions_col_name(s, (enum sort_col)c),
                 c == (int)f->col ? mark : "");
        int cw = c == SORT_ROUTINE ? namew : c == SORT_MODULE ? modw : widths[c];
        functions_cell(line, sizeof line, head, cw, right[c]);
        if (c == SORT_SELF && pm)
            functions_cell(line, sizeof line, "+-95%", 6, true);
        if (c == SORT_SELF && base)
            functions_cell(line, sizeof line, "Change", 9, true);
    }
    wattron(win, A_BOLD);
    draw_text(win, 1, 0, w, line);
    wattroff(win, A_BOLD);
    for (int r = 0; r < (int)f->rows && f->top + (size_t)r < f->n; r++) {
        size_t row = f->top + (size_t)r;
        const struct func *fn = &s->funcs[f->order[row]];
        char t[32], num[32];
        ticks_time(t, sizeof t, fn->samples, s->interval_us);
        double pt = pct_of(fn->samples, s->view.c.total);
        double pa = pct_of(fn->samples, accounted);
        line[0] = '\0';
        functions_cell(line, sizeof line, t, 10, false);
        functions_name_cell(line, sizeof line, fn->name, namew);
        snprintf(num, sizeof num, "%7.2f%%", pt);
        functions_cell(line, sizeof line, num, 8, true);
        if (functions_indistinct(f, s, row))
            line[strlen(line) - 1] = '~'; /* in the blank after the share */
        if (pm) {
            snprintf(num, sizeof num, "+-%.2f",
                     stats_halfwidth_pct(fn->samples, s->view.c.total, session_deff(s)));
            functions_cell(line, sizeof line, num, 6, true);
        }
        if (base) {
            const struct baseline_change *b = baseline_of(&f->chg, f->order[row]);
            if (b != NULL)
                snprintf(num, sizeof num, "%+6.1f%-3s", b->change,
                         b->stars == 3   ? "***"
                         : b->stars == 2 ? "**"
                         : b->stars == 1 ? "*"
                                         : "");
            else
                num[0] = '\0';
            functions_cell(line, sizeof line, num, 9, true);
        }
        if (stacks) {
            double ptot = pct_of(fn->total, s->view.c.total);
            snprintf(num, sizeof num, "%7.2f%%", ptot);
            functions_cell(line, sizeof line, num, 8, true);
        }
        snprintf(num, sizeof num, "%7.2f%%", pa);
        functions_cell(line, sizeof line, num, 8, true);
        if (wide) {
            snprintf(num, sizeof num, "%" PRIu64, fn->samples);
            functions_cell(line, sizeof line, num, 9, true);
            functions_cell(line, sizeof line, s->modules[fn->module]->name, modw, false);
        }
        bool selected = row == f->sel && ctx->focused;
        if (selected)
            wattron(win, ctx->colors ? COLOR_PAIR(PAIR_SELECT) : A_REVERSE);
        else if (ctx->colors && fn->module != s->view.prog_module)
            wattron(win, COLOR_PAIR(PAIR_DOS));
        draw_text(win, r + 2, 0, w, line);
        wattrset(win, A_NORMAL);
    }
    if (f->sel < f->n) {
        const struct func *fn = &s->funcs[f->order[f->sel]];
        char detail[1024];
        /* Its share with the 95 % interval, which the columns have no room for. */
        double lo, hi;
        stats_wilson(fn->samples, s->view.c.total, session_deff(s), &lo, &hi);
        snprintf(detail, sizeof detail,
                 "%s  (%s+0x%" PRIx64 "%s%s)  %.2f%% +-%.2f (95 %%: %.2f-%.2f)", fn->name,
                 s->modules[fn->module]->name, fn->start, fn->raw ? ", " : "",
                 fn->raw ? fn->raw : "", pct_of(fn->samples, s->view.c.total), 50 * (hi - lo),
                 100 * lo, 100 * hi);
        const struct baseline_change *b = base ? baseline_of(&f->chg, f->order[f->sel]) : NULL;
        if (b != NULL) {
            size_t len = strlen(detail);
            snprintf(detail + len, sizeof detail - len, "  baseline %.2f%%, change %+.2f (p %.3g)",
                     b->before_pct, b->change, b->p_adjusted);
        }
        wattron(win, A_BOLD);
        draw_text(win, rows + 2, 0, w, detail);
        wattroff(win, A_BOLD);
    }
    if (note) {
        wattron(win, ctx->colors ? COLOR_PAIR(PAIR_DIM) : A_DIM);
        draw_text(win, rows + 3, 0, w, "this session has no stacks: Self only, no Total");
        wattrset(win, A_NORMAL);
    }
}

/* Find TEXT in the routine names from the selection (DIR 0), after it (1) or
 * before it (-1), wrapping around. */
static int functions_search(void *state, const char *text, int dir, struct view_ctx *ctx)
{
    struct functions *f = state;
    const struct session *s = ctx->s;
    functions_refresh(f, s, false);
    if (text == NULL || text[0] == '\0') {
        snprintf(ctx->status, sizeof ctx->status, "no search yet: / searches the routines");
        return VIEW_REDRAW;
    }
    for (size_t k = dir != 0 ? 1 : 0; k <= f->n && f->n > 0; k++) {
        size_t row = dir < 0 ? (f->sel + f->n - k % f->n) % f->n : (f->sel + k) % f->n;
        if (strcasestr(s->funcs[f->order[row]].name, text) != NULL) {
            f->sel = row;
            functions_remember(f, s);
            f->last_key = functions_now();
            return VIEW_REDRAW;
        }
    }
    snprintf(ctx->status, sizeof ctx->status, "no routine matches '%s'", text);
    return VIEW_REDRAW;
}

static int functions_key(void *state, int key, struct view_ctx *ctx)
{
    struct functions *f = state;
    const struct session *s = ctx->s;
    functions_refresh(f, s, false);
    if (scroll_key(key, &f->sel, f->n, f->rows)) {
        functions_remember(f, s);
        f->last_key = functions_now();
        return VIEW_REDRAW;
    }
    switch (key) {
    case KEY_F(6):
    case '>':
        f->col = (f->col + 1) % SORT_COUNT;
        if (f->col == SORT_TOTAL && !s->has_stacks)
            f->col++;
        break;
    case '<':
        f->col = (f->col + SORT_COUNT - 1) % SORT_COUNT;
        if (f->col == SORT_TOTAL && !s->has_stacks)
            f->col--;
        break;
    case 'I': f->ascending = !f->ascending; break;
    case 't': /* perf top's Self and Children */
        if (!s->has_stacks) {
            snprintf(ctx->status, sizeof ctx->status, "this session has no stacks: no Total");
            return VIEW_REDRAW;
        }
        f->col = f->col == SORT_TOTAL ? SORT_SELF : SORT_TOTAL;
        f->ascending = false;
        break;
    case 'a':
        if (f->sel >= f->n)
            return VIEW_REDRAW;
        ctx->jump_module = s->funcs[f->order[f->sel]].module;
        ctx->jump_start = s->funcs[f->order[f->sel]].start;
        return VIEW_SOURCE | VIEW_REDRAW;
    case '\n':
    case '\r':
    case KEY_ENTER:
    case 'b':
        if (f->sel >= f->n)
            return VIEW_REDRAW;
        ctx->jump_module = s->funcs[f->order[f->sel]].module;
        ctx->jump_start = s->funcs[f->order[f->sel]].start;
        ctx->jump_end = s->funcs[f->order[f->sel]].end;
        /* With stacks Enter shows who calls it; b (and Enter without) its buckets. */
        if (key != 'b' && s->has_stacks)
            return VIEW_CALLERS | VIEW_REDRAW;
        return VIEW_JUMP | VIEW_REDRAW;
    default: return VIEW_IGNORED;
    }
    functions_refresh(f, s, true);
    snprintf(ctx->status, sizeof ctx->status, "sorted by %s%s", functions_col_name(s, f->col),
             f->ascending ? ", inverted" : "");
    return VIEW_REDRAW;
}

static int functions_click(void *state, int row, struct view_ctx *ctx)
{
    struct functions *f = state;
    if (row < 2 || f->top + (size_t)(row - 2) >= f->n)
        return VIEW_IGNORED;
    f->sel = f->top + (size_t)(row - 2);
    functions_remember(f, ctx->s);
    f->last_key = functions_now();
    return VIEW_REDRAW;
}

const struct view_ops view_functions_ops = {
    .name = "Functions",
    .create = functions_create,
    .destroy = functions_destroy,
    .draw = functions_draw,
    .key = functions_key,
    .click = functions_click,
    .search = functions_search,
};
