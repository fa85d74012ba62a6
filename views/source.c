/* One function's source with the samples on each line, as perf annotate's
 * browser shows it: Self, its shares, Multics' stars and (with stacks) the
 * line's Total, then the line; d interleaves the instructions.  ] and [ step
 * through the lines in order of heat, Enter follows the call a line makes,
 * Backspace comes back.  The rows are report/annotate.c's, rebuilt at most
 * every half second while the program runs; the selection stays on its line
 * or instruction across rebuilds. */
#include "config.h"

#include "clockdrv/clockdrv.h"
#include "elf/disasm.h"
#include "report/annotate.h"
#include "report/report.h"
#include "session/lines.h"
#include "session/stacks.h"
#include "util/pct.h"
#include "util/ticks.h"
#include "util/xmalloc.h"
#include "views/view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SOURCE_HISTORY    64
#define SOURCE_REBUILD_NS 500000000ull /* live: counts move at most twice a second */

/* A function by what stays the same while the session grows. */
struct source_key {
    uint32_t module;
    uint64_t start;
};

/* A row by what stays the same across rebuilds: its line, or its instruction. */
struct source_mark {
    bool set;
    enum annotate_kind kind;
    uint32_t file;
    uint32_t line;
    uint64_t offset; /* an instruction's */
};

/* A step Backspace goes back to: the function, and the row that was selected. */
struct source_step {
    struct source_key key;
    struct source_mark mark;
    size_t hot;
};

/* A screen row: an annotation row, or the line under a file's heading
 * saying where its text was looked for. */
struct source_vrow {
    size_t row;
    bool where;
};

struct source {
    bool have_key; /* a function was asked for (a, Enter); else the hottest is shown */
    struct source_key key;
    struct source_step back[SOURCE_HISTORY];
    size_t depth;
    bool disasm; /* the instructions are wanted */
    /* The annotation as last built. */
    struct annotation *a;
    int64_t func;
    bool built_disasm;
    uint64_t built_ns;
    uint64_t built_total;
    struct source_vrow *vrows;
    size_t nvrows;
    size_t *vrow_of; /* by annotation row */
    int addrw;       /* hex digits of the widest address */
    int linew;       /* digits of the highest line number */
    /* The selection, kept by its mark across rebuilds. */
    size_t sel;
    size_t top;
    size_t page;
    struct source_mark mark;
    size_t hot;  /* the place in a->hot that ] and [ step from */
    bool follow; /* the selection follows the hottest row until the user moves */
    bool center; /* the next build selects the hottest row, in the middle */
    bool middle; /* the next build puts the marked row in the middle */
};

static void *source_create(void)
{
    struct source *v = xcalloc(1, sizeof *v);
    v->func = -1;
    v->center = v->follow = true;
    return v;
}

static void source_drop(struct source *v)
{
    annotation_free(v->a);
    v->a = NULL;
    free(v->vrows);
    v->vrows = NULL;
    free(v->vrow_of);
    v->vrow_of = NULL;
    v->nvrows = 0;
}

static void source_destroy(void *state)
{
    struct source *v = state;
    source_drop(v);
    free(v);
}

/* The function of KEY now, or -1. */
static int64_t source_find(const struct session *s, const struct source_key *key)
{
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (s->funcs[i].module == key->module && s->funcs[i].start == key->start)
            return (int64_t)i;
    }
    return -1;
}

/* The hottest function whose source text can be shown, else the hottest
 * whose source lines are known (its disassembly, by line), or -1: not a
 * C library routine of a few samples whose lines a debug package gave and
 * whose text is nowhere here (xz: strcpy_ifunc_selector, 0.03 %). */
static int64_t source_hottest(struct session *s)
{
    size_t n;
    size_t *rank = session_ranking(s, &n);
    int64_t best = -1, lines = -1;
    for (size_t i = 0; i < n && best < 0; i++) {
        uint32_t file, line;
        if (s->funcs[rank[i]].samples == 0)
            break;
        if (!lines_func_place(s, (int64_t)rank[i], &file, &line))
            continue;
        if (lines < 0)
            lines = (int64_t)rank[i];
        char *where = NULL;
        if (lines_source(s, file, &where) != NULL)
            best = (int64_t)rank[i];
        free(where);
    }
    free(rank);
    return best >= 0 ? best : lines;
}

static const struct annotate_row *source_row(const struct source *v, size_t vrow)
{
    return vrow < v->nvrows ? &v->a->rows[v->vrows[vrow].row] : NULL;
}

/* Where the text of a FILE row's file was looked for, when it was not found
 * (its heading then has a line saying so), or NULL. */
static const char *source_where(const struct annotation *a, const struct annotate_row *r)
{
    const struct annotate_file *af = annotate_file_of(a, r->file);
    return af != NULL && af->src == NULL && af->where != NULL ? af->where : NULL;
}

static void source_vrows(struct source *v)
{
    const struct annotation *a = v->a;
    free(v->vrows);
    free(v->vrow_of);
    v->vrows = xcalloc(2 * a->nrows + 1, sizeof *v->vrows);
    v->vrow_of = xcalloc(a->nrows + 1, sizeof *v->vrow_of);
    v->nvrows = 0;
    v->addrw = 4;
    v->linew = 4;
    for (size_t i = 0; i < a->nrows; i++) {
        const struct annotate_row *r = &a->rows[i];
        v->vrow_of[i] = v->nvrows;
        v->vrows[v->nvrows++] = (struct source_vrow){i, false};
        if (r->kind == ANNOTATE_FILE && source_where(a, r) != NULL)
            v->vrows[v->nvrows++] = (struct source_vrow){i, true};
        char num[24];
        if (r->kind == ANNOTATE_INSN) {
            int n = snprintf(num, sizeof num, "%" PRIx64, r->insn->addr);
            v->addrw = n > v->addrw ? n : v->addrw;
        } else if (r->kind == ANNOTATE_LINE) {
            int n = snprintf(num, sizeof num, "%" PRIu32, r->line);
            v->linew = n > v->linew ? n : v->linew;
        }
    }
}

static struct source_mark source_mark_of(const struct source *v, size_t vrow)
{
    const struct annotate_row *r = source_row(v, vrow);
    if (r == NULL)
        return (struct source_mark){false, ANNOTATE_GAP, 0, 0, 0};
    return (struct source_mark){true, r->kind, r->file, r->line,
                                r->kind == ANNOTATE_INSN ? r->insn->offset : 0};
}

static void source_remember(struct source *v)
{
    v->mark = source_mark_of(v, v->sel);
}

/* Whether screen row VROW is the row MARK names. */
static bool source_marks(const struct source *v, size_t vrow, const struct source_mark *m)
{
    const struct annotate_row *r = source_row(v, vrow);
    if (r == NULL || r->kind != m->kind || v->vrows[vrow].where)
        return false;
    if (r->kind == ANNOTATE_INSN)
        return r->insn->offset == m->offset;
    return r->file == m->file && r->line == m->line;
}

/* Select the hottest row (the first one when none has samples), in the
 * middle when it is another row than before or MIDDLE. */
static void source_select_hottest(struct source *v, bool middle)
{
    size_t was = v->sel;
    v->hot = 0;
    v->sel = v->a->nhot > 0 ? v->vrow_of[v->a->hot[0]] : 0;
    if (middle || v->sel != was)
        v->top = v->page > 0 && v->sel > v->page / 2 ? v->sel - v->page / 2 : 0;
    source_remember(v);
}

/* Annotate F again (its counts moved, or it is another function). */
static void source_build(struct source *v, struct view_ctx *ctx, int64_t f)
{
    struct session *s = ctx->query;
    source_drop(v);
    v->a = annotate_function(s, f, v->disasm);
    if (v->disasm && v->a->insns == NULL) {
        /* What annotate_function gave instead are the source rows. */
        snprintf(ctx->status, sizeof ctx->status, "no disassembly: %s",
                 v->a->disasm_why ? v->a->disasm_why : "unknown");
        v->disasm = false;
    }
    v->func = f;
    v->built_disasm = v->disasm;
    v->built_ns = clockdrv_now_ns();
    v->built_total = s->view.c.total;
    source_vrows(v);
    if (v->center || v->follow || !v->mark.set) {
        source_select_hottest(v, v->center || !v->mark.set);
        v->center = v->middle = false;
        return;
    }
    /* The same row again: of the rows it names, the nearest to where it was. */
    size_t best = SIZE_MAX, bestd = SIZE_MAX;
    for (size_t i = 0; i < v->nvrows; i++) {
        size_t d = i > v->sel ? i - v->sel : v->sel - i;
        if (source_marks(v, i, &v->mark) && d < bestd) {
            best = i;
            bestd = d;
        }
    }
    if (best != SIZE_MAX)
        v->sel = best;
    else if (v->sel >= v->nvrows)
        v->sel = v->nvrows ? v->nvrows - 1 : 0;
    if (v->middle)
        v->top = v->sel > v->page / 2 ? v->sel - v->page / 2 : 0;
    v->middle = false;
}

/* Whether counts that moved since the last build are worth a new one now:
 * while they move at every tick (a program runs, a replay plays), twice a
 * second; once they stand still, at once. */
static bool source_due(const struct source *v, const struct view_ctx *ctx)
{
    if (v->a == NULL)
        return true;
    if (ctx->s->view.c.total == v->built_total)
        return false;
    return !(ctx->mode == VIEW_LIVE || ctx->playing) ||
           clockdrv_now_ns() - v->built_ns >= SOURCE_REBUILD_NS;
}

/* The function to show now, annotated and up to date; -1 when none. */
static int64_t source_update(struct source *v, struct view_ctx *ctx)
{
    struct session *s = ctx->query;
    session_totals(s);
    bool due = source_due(v, ctx);
    int64_t f = v->have_key ? source_find(s, &v->key) : -1;
    if (!v->have_key) /* until one is asked for: the hottest with lines */
        f = due ? source_hottest(s) : v->func;
    if (f < 0) {
        source_drop(v);
        v->func = -1;
        return -1;
    }
    if (f != v->func && !v->middle)
        v->center = true; /* another function: its hottest line */
    if (due || v->func != f || v->built_disasm != v->disasm)
        source_build(v, ctx, f);
    return f;
}

/* Whether the rows have a Total column: with stacks, over the source alone. */
static bool source_calls(const struct source *v, const struct session *s)
{
    return s->has_stacks && v->a->insns == NULL;
}

/* The numbers of row R: Self, its shares of the function and of the run,
 * the stars, and the Total; blank where there is nothing to count. */
static int source_stats(char *buf, size_t size, const struct source *v, const struct session *s,
                        const struct annotate_row *r)
{
    const struct annotation *a = v->a;
    bool calls = source_calls(v, s);
    size_t len = 0;
    if (r != NULL && r->self > 0 && (r->kind == ANNOTATE_LINE || r->kind == ANNOTATE_INSN)) {
        double pt = pct_of(r->self, a->total);
        len = (size_t)snprintf(buf, size, "%7" PRIu64 " %6.2f%% %6.2f%% %-4.*s", r->self,
                               pct_of(r->self, a->self), pt, report_stars(pt), "****");
    } else {
        len = (size_t)snprintf(buf, size, "%7s %7s %7s %-4s", "", "", "", "");
    }
    if (calls && len < size) {
        if (r != NULL && r->kind == ANNOTATE_LINE && r->total > 0)
            len += (size_t)snprintf(buf + len, size - len, " %6.2f%%", pct_of(r->total, a->total));
        else
            len += (size_t)snprintf(buf + len, size - len, " %7s", "");
    }
    return (int)(len < size ? len : size - 1);
}

/* LEN bytes of a source line as the screen shows them into DST: tabs to the
 * next multiple of 8 columns, control bytes, NULs and (in UTF-8) bytes that
 * are no character as '?'. */
static void source_expand(char *dst, size_t size, const char *text, size_t len)
{
    bool utf8 = draw_utf8();
    size_t k = 0;
    int col = 0;
    for (size_t i = 0; i < len && k + 8 < size;) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\t') {
            do
                dst[k++] = ' ';
            while (++col % 8 != 0 && k + 1 < size);
            i++;
            continue;
        }
        size_t n = 1;
        if (c >= 0x80 && utf8) {
            n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            for (size_t j = 1; j < n; j++) {
                if (i + j >= len || ((unsigned char)text[i + j] & 0xc0) != 0x80)
                    n = 0;
            }
        }
        if (n == 0 || c < 32 || c == 127 || (c >= 0x80 && !utf8)) {
            dst[k++] = '?';
            i++;
        } else {
            memcpy(dst + k, text + i, n);
            k += n;
            i += n;
        }
        col++;
    }
    dst[k] = '\0';
}

/* The text of screen row VROW after its numbers: the line and its source,
 * an instruction, a file's heading, or where its text was looked for. */
static void source_text(char *buf, size_t size, struct source *v, struct session *s, size_t vrow)
{
    const struct annotate_row *r = source_row(v, vrow);
    char text[1024];
    size_t len;
    switch (r->kind) {
    case ANNOTATE_FILE:
        if (v->vrows[vrow].where)
            snprintf(buf, size, "source %s", source_where(v->a, r));
        else
            snprintf(buf, size, "%s", lines_file(s, r->file));
        return;
    case ANNOTATE_GAP: snprintf(buf, size, "%*s  ...", v->linew, ""); return;
    case ANNOTATE_INSN: {
        char target[160];
        annotate_target(s, v->a, r->insn, target, sizeof target);
        snprintf(buf, size, "%*s  %*" PRIx64 ":  %s%s", v->linew, "", v->addrw, r->insn->addr,
                 r->insn->text, target);
        return;
    }
    case ANNOTATE_LINE: {
        const char *src = annotate_text(v->a, r->file, r->line, &len);
        source_expand(text, sizeof text, src ? src : "", src ? len : 0);
        snprintf(buf, size, "%*" PRIu32 "  %s", v->linew, r->line, text);
        return;
    }
    }
    buf[0] = '\0';
}

/* The last line: the selected row said whole, and where Enter goes from it. */
static void source_detail(char *buf, size_t size, struct source *v, struct session *s)
{
    const struct annotate_row *r = source_row(v, v->sel);
    buf[0] = '\0';
    if (r == NULL)
        return;
    if (r->kind == ANNOTATE_FILE) {
        const char *where = source_where(v->a, r);
        snprintf(buf, size, "%s%s%s", lines_file(s, r->file), where ? ": source " : "",
                 where ? where : "");
        return;
    }
    if (r->kind == ANNOTATE_GAP) {
        snprintf(buf, size, "lines without samples left out");
        return;
    }
    const char *path = r->file ? lines_file(s, r->file) : "";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = 0;
    if (r->kind == ANNOTATE_INSN)
        len = (size_t)snprintf(buf, size, "0x%" PRIx64 "  ", r->insn->addr);
    if (r->file != 0 && len < size)
        len += (size_t)snprintf(buf + len, size - len, "%s:%" PRIu32 "  ", base, r->line);
    if (len < size && r->self > 0) {
        char t[32];
        ticks_time(t, sizeof t, r->self, s->interval_us);
        len += (size_t)snprintf(buf + len, size - len, "%" PRIu64 " sample%s (%s)", r->self,
                                r->self == 1 ? "" : "s", t);
    } else if (len < size) {
        len += (size_t)snprintf(buf + len, size - len, "no samples of its own");
    }
    if (r->kind == ANNOTATE_LINE && source_calls(v, s) && r->total > 0 && len < size)
        len +=
            (size_t)snprintf(buf + len, size - len, ", %" PRIu64 " with it on the stack", r->total);
    if (r->callee >= 0 && (size_t)r->callee < s->nfuncs && len < size)
        snprintf(buf + len, size - len, "  Enter: %s", s->funcs[r->callee].name);
}

static void source_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct source *v = state;
    struct session *s = ctx->query;
    int w = getmaxx(win), h = getmaxy(win);
    int rows = h - 3;
    v->page = rows > 0 ? (size_t)rows : 0;
    int64_t f = source_update(v, ctx);
    if (f < 0) {
        draw_title(win, "Source", NULL, ctx->focused, ctx->colors);
        draw_text(win, 2, 1, w - 1,
                  v->have_key ? "that function is gone from the session"
                              : "no function with source lines has samples yet");
        draw_text(win, 3, 1, w - 1,
                  "a on a function (Functions 2, Callers, Flame 6, Histogram 1) shows its source");
        return;
    }
    const struct annotation *a = v->a;
    const struct func *fn = &s->funcs[f];
    char name[512], info[256];
    snprintf(name, sizeof name, "Source: %s", fn->name);
    snprintf(info, sizeof info, "%s%s  %.2f%%  %s%s", s->modules[fn->module]->name,
             fn->inlined ? " (inlined)" : "", pct_of(a->self, a->total),
             a->insns ? "disassembly" : "source", v->have_key ? "" : ", the hottest");
    draw_title(win, name, info, ctx->focused, ctx->colors);
    if (rows <= 0)
        return;
    if (v->nvrows == 0) {
        int y = 2;
        if (a->lines_why != NULL) {
            char msg[512];
            snprintf(msg, sizeof msg, "no source lines: %s", a->lines_why);
            draw_text(win, y++, 1, w - 1, msg);
        }
        if (a->disasm_why != NULL) {
            char msg[512];
            snprintf(msg, sizeof msg, "no disassembly: %s", a->disasm_why);
            draw_text(win, y++, 1, w - 1, msg);
        } else if (!v->disasm && y < h) {
            draw_text(win, y, 1, w - 1, "d shows its instructions");
        }
        return;
    }
    v->top = scroll_top(v->top, v->sel, v->nvrows, v->page);
    char stats[128], text[2048], line[2048];
    int statw = source_stats(stats, sizeof stats, v, s, NULL);
    snprintf(line, sizeof line, "%7s %7s %7s %-4s%s %*s  %s", "Samples", "% func", "% total", "",
             source_calls(v, s) ? "   Total" : "", v->linew, "Line",
             a->insns ? "Source and instructions" : "Source");
    wattron(win, A_BOLD);
    draw_text(win, 1, 0, w, line);
    wattroff(win, A_BOLD);
    for (int y = 0; y < rows && v->top + (size_t)y < v->nvrows; y++) {
        size_t i = v->top + (size_t)y;
        const struct annotate_row *r = source_row(v, i);
        bool selected = i == v->sel && ctx->focused;
        attr_t sel_attr = ctx->colors ? COLOR_PAIR(PAIR_SELECT) : A_REVERSE;
        source_text(text, sizeof text, v, s, i);
        if (r->kind == ANNOTATE_FILE || r->kind == ANNOTATE_GAP) {
            /* A heading from the left margin, a gap where the lines are. */
            int x = r->kind == ANNOTATE_FILE ? 1 : statw + 1;
            wattrset(win, selected      ? sel_attr
                          : ctx->colors ? COLOR_PAIR(PAIR_DIM) | A_BOLD
                                        : A_DIM);
            draw_text(win, y + 2, 0, w, "");
            draw_text(win, y + 2, x, w - x, text);
            wattrset(win, A_NORMAL);
            continue;
        }
        source_stats(stats, sizeof stats, v, s, r);
        int stars = r->self > 0 ? report_stars(pct_of(r->self, a->total)) : 0;
        if (selected)
            wattrset(win, sel_attr);
        else if (r->self > 0)
            wattrset(win, (ctx->colors ? COLOR_PAIR(PAIR_PROGRAM) : A_NORMAL) |
                              (stars >= 3 ? A_BOLD : A_NORMAL));
        draw_text(win, y + 2, 0, statw + 1, stats);
        if (!selected)
            wattrset(win, r->kind == ANNOTATE_LINE && a->insns != NULL ? A_BOLD : A_NORMAL);
        draw_text(win, y + 2, statw + 1, w - statw - 1, text);
        wattrset(win, A_NORMAL);
    }
    source_detail(line, sizeof line, v, s);
    wattron(win, A_BOLD);
    draw_text(win, h - 1, 0, w, line);
    wattroff(win, A_BOLD);
}

/* Show function F (a key), fresh: its hottest line in the middle. */
static void source_go(struct source *v, const struct session *s, int64_t f)
{
    v->have_key = true;
    v->key = (struct source_key){s->funcs[f].module, s->funcs[f].start};
    v->center = v->follow = true;
    v->mark.set = false;
    v->sel = v->top = 0;
    source_drop(v); /* built again at the next draw */
}

/* Keep showing the function shown now, however hot the others get. */
static void source_pin(struct source *v, const struct session *s)
{
    if (v->have_key || v->func < 0)
        return;
    v->have_key = true;
    v->key = (struct source_key){s->funcs[v->func].module, s->funcs[v->func].start};
}

/* Step ] (DIR 1) or [ (-1) through the rows with samples, hottest first. */
static int source_step_hot(struct source *v, int dir, struct view_ctx *ctx)
{
    const struct annotation *a = v->a;
    if (a == NULL || a->nhot == 0) {
        snprintf(ctx->status, sizeof ctx->status, "no line of it has samples");
        return VIEW_REDRAW;
    }
    size_t at = v->hot < a->nhot ? v->hot : 0;
    for (size_t k = 0; k < a->nhot; k++) { /* from the selection when it is a hot row */
        if (v->vrow_of[a->hot[k]] == v->sel)
            at = k;
    }
    bool wrapped = dir > 0 ? at + 1 == a->nhot : at == 0;
    v->follow = false;
    at = dir > 0 ? (at + 1) % a->nhot : (at + a->nhot - 1) % a->nhot;
    v->hot = at;
    v->sel = v->vrow_of[a->hot[at]];
    source_remember(v);
    const struct annotate_row *r = &a->rows[a->hot[at]];
    snprintf(ctx->status, sizeof ctx->status, "%s %zu of %zu: %.2f%% of the function%s",
             a->insns ? "instruction" : "line", at + 1, a->nhot, pct_of(r->self, a->self),
             wrapped ? (dir > 0 ? " (again from the hottest)" : " (again from the coolest)") : "");
    return VIEW_REDRAW;
}

/* Enter: the function the selected row calls, the way back kept. */
static int source_follow(struct source *v, struct view_ctx *ctx)
{
    const struct session *s = ctx->s;
    const struct annotate_row *r = v->a ? source_row(v, v->sel) : NULL;
    if (r == NULL || r->callee < 0 || (size_t)r->callee >= s->nfuncs) {
        snprintf(ctx->status, sizeof ctx->status, "%s",
                 r != NULL && r->kind == ANNOTATE_LINE && !s->has_stacks
                     ? "this session has no stacks: what a line calls is not known"
                     : "this row calls nothing known");
        return VIEW_REDRAW;
    }
    if (v->depth == SOURCE_HISTORY) /* the oldest step is forgotten */
        memmove(v->back, v->back + 1, (SOURCE_HISTORY - 1) * sizeof *v->back);
    else
        v->depth++;
    const struct func *fn = &s->funcs[v->func];
    int64_t callee = r->callee; /* R goes with the annotation source_go drops */
    v->back[v->depth - 1] = (struct source_step){{fn->module, fn->start}, v->mark, v->hot};
    source_go(v, s, callee);
    snprintf(ctx->status, sizeof ctx->status, "%s: Backspace goes back to %s",
             s->funcs[callee].name, fn->name);
    return VIEW_REDRAW;
}

static int source_key(void *state, int key, struct view_ctx *ctx)
{
    struct source *v = state;
    const struct session *s = ctx->s;
    source_update(v, ctx); /* a key before the first draw */
    if (scroll_key(key, &v->sel, v->nvrows, v->page)) {
        source_remember(v);
        v->follow = false;
        source_pin(v, s); /* the user looks at it: it stays */
        return VIEW_REDRAW;
    }
    switch (key) {
    case ']':
    case '[': source_pin(v, s); return source_step_hot(v, key == ']' ? 1 : -1, ctx);
    case 'H': /* and follow it again */
        v->follow = true;
        if (v->a != NULL)
            source_select_hottest(v, true);
        return VIEW_REDRAW;
    case 'd':
        if (v->func < 0)
            return VIEW_REDRAW;
        v->disasm = !v->disasm;
        v->middle = true; /* the selected line, among its instructions */
        source_build(v, ctx, v->func);
        if (ctx->status[0] == '\0')
            snprintf(ctx->status, sizeof ctx->status, "%s",
                     v->disasm ? "the instructions under their lines: d again for the source"
                               : "the source");
        return VIEW_REDRAW;
    case '\n':
    case '\r':
    case KEY_ENTER:
    case 'a': return source_follow(v, ctx);
    case KEY_BACKSPACE:
    case 127:
    case 8:
    case KEY_LEFT: {
        if (v->depth == 0) {
            snprintf(ctx->status, sizeof ctx->status, "no step to go back to");
            return VIEW_REDRAW;
        }
        const struct source_step *st = &v->back[--v->depth];
        int64_t f = source_find(s, &st->key);
        if (f < 0)
            return VIEW_REDRAW;
        source_go(v, s, f);
        /* The row it left from, in the middle. */
        v->mark = st->mark;
        v->hot = st->hot;
        v->center = !st->mark.set;
        v->follow = !st->mark.set;
        v->middle = true;
        return VIEW_REDRAW;
    }
    default: return VIEW_IGNORED;
    }
}

/* Find TEXT in the lines, instructions and file names, from the selection
 * (DIR 0), after it (1) or before it (-1), wrapping. */
static int source_search(void *state, const char *text, int dir, struct view_ctx *ctx)
{
    struct source *v = state;
    struct session *s = ctx->query;
    if (text == NULL || text[0] == '\0') {
        snprintf(ctx->status, sizeof ctx->status, "no search yet: / searches the source");
        return VIEW_REDRAW;
    }
    source_update(v, ctx);
    size_t n = v->nvrows;
    for (size_t k = dir != 0 ? 1 : 0; k <= n && n > 0; k++) {
        size_t i = dir < 0 ? (v->sel + n - k % n) % n : (v->sel + k) % n;
        if (v->vrows[i].where)
            continue;
        char buf[2048];
        source_text(buf, sizeof buf, v, s, i);
        if (strcasestr(buf, text) != NULL) {
            v->sel = i;
            v->follow = false;
            v->top = v->sel > v->page / 2 ? v->sel - v->page / 2 : 0;
            source_remember(v);
            return VIEW_REDRAW;
        }
    }
    snprintf(ctx->status, sizeof ctx->status, "no line matches '%s'", text);
    return VIEW_REDRAW;
}

static int source_click(void *state, int row, struct view_ctx *ctx)
{
    struct source *v = state;
    (void)ctx;
    size_t i = v->top + (size_t)(row - 2);
    if (row < 2 || i >= v->nvrows)
        return VIEW_IGNORED;
    v->sel = i;
    v->follow = false;
    source_remember(v);
    return VIEW_REDRAW;
}

/* Show the function of ctx->jump_* (a in another view), from a fresh start. */
static int source_jump(void *state, struct view_ctx *ctx)
{
    struct source *v = state;
    const struct session *s = ctx->s;
    struct source_key key = {ctx->jump_module, ctx->jump_start};
    int64_t f = source_find(s, &key);
    if (f < 0) {
        snprintf(ctx->status, sizeof ctx->status, "that function is not in the session");
        return VIEW_REDRAW;
    }
    v->depth = 0;
    source_go(v, s, f);
    return VIEW_REDRAW;
}

const struct view_ops view_source_ops = {
    .name = "Source",
    .create = source_create,
    .destroy = source_destroy,
    .draw = source_draw,
    .key = source_key,
    .click = source_click,
    .search = source_search,
    .jump = source_jump,
};
