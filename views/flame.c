/* The flame graph as an icicle (root at the top), drawn in the terminal from
 * the call tree: each frame as wide as its samples, left-heavy as speedscope
 * draws it, coloured by PROFIL's classes.  A selection moves between frames,
 * Enter zooms into one, Backspace zooms back out, / highlights the frames
 * that match, r turns the graph upside down (who called the hot ones).  It
 * is rebuilt from the growing session at every refresh; selection and zoom
 * are kept as paths of functions, which outlive the tree they were made in. */
#include "config.h"

#include "analysis/calltree.h"
#include "util/pct.h"
#include "util/xmalloc.h"
#include "views/baseline.h"
#include "views/view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FLAME_DEPTH 128 /* path steps kept */
#define FLAME_ZOOMS 32  /* zooms Backspace can undo */

/* A function by what stays the same while the session grows. */
struct flame_key {
    uint32_t module;
    uint64_t start;
};

/* A frame by the functions from the top of the graph down to it. */
struct flame_path {
    struct flame_key step[FLAME_DEPTH];
    size_t n;
};

/* Where the last draw put a frame. */
struct flame_box {
    uint32_t node;
    int row, x, w;
};

struct flame {
    bool inverted;
    struct flame_path zoom; /* n 0: the whole graph */
    struct flame_path zooms[FLAME_ZOOMS];
    size_t nzooms;
    struct flame_path sel;
    /* r turned the graph over: select this function's widest frame in the
     * new one, at the next draw (its path is another there). */
    struct flame_key turned;
    bool turning;
    char search[64];
    /* The last draw, for the keys. */
    struct calltree *tree;
    struct flame_box *boxes;
    size_t nboxes;
    size_t boxes_alloc;
    uint32_t zoom_node; /* 0: the root */
    uint32_t sel_node;  /* 0: none */
    /* --baseline: each frame coloured by its function's change against it
     * (--diff's test on its Self), unless b asked for the kinds instead. */
    struct baseline_changes chg;
    bool by_kind;
    bool swapped; /* x: the baseline's frames, coloured the other way */
};

/* The session the graph is of: the one shown, or (x) the baseline. */
static const struct session *flame_session(const struct flame *f, const struct view_ctx *ctx)
{
    return f->swapped && ctx->baseline != NULL ? ctx->baseline : ctx->s;
}

static void *flame_create(void)
{
    return xcalloc(1, sizeof(struct flame));
}

static void flame_destroy(void *state)
{
    struct flame *f = state;
    calltree_free(f->tree);
    free(f->boxes);
    baseline_free(&f->chg);
    free(f);
}

/* The path of NODE from the root, in F's tree. */
static void flame_path_of(const struct flame *f, const struct session *s, uint32_t node,
                          struct flame_path *p)
{
    uint32_t chain[FLAME_DEPTH];
    size_t n = 0;
    for (uint32_t i = node; i != 0 && n < FLAME_DEPTH; i = f->tree->nodes[i].parent)
        chain[n++] = i;
    p->n = 0;
    while (n > 0) {
        int64_t fi = f->tree->nodes[chain[--n]].func;
        if (fi < 0 || (size_t)fi >= s->nfuncs)
            break; /* a tree older than the functions (a replay went back) */
        const struct func *fn = &s->funcs[fi];
        p->step[p->n++] = (struct flame_key){fn->module, fn->start};
    }
}

/* The node P leads to in F's tree: as far down it as the tree goes. */
static uint32_t flame_node_of(const struct flame *f, const struct session *s,
                              const struct flame_path *p)
{
    uint32_t node = 0;
    for (size_t k = 0; k < p->n; k++) {
        uint32_t c = f->tree->nodes[node].child;
        for (; c != 0; c = f->tree->nodes[c].next) {
            const struct func *fn = &s->funcs[f->tree->nodes[c].func];
            if (fn->module == p->step[k].module && fn->start == p->step[k].start)
                break;
        }
        if (c == 0)
            break;
        node = c;
    }
    return node;
}

/* PROFIL's class of a function: its colour pair, and the character that
 * fills its frame when there are no colours. */
static int flame_class(const struct session *s, const struct func *fn, char *fill)
{
    const struct module *m = s->modules[fn->module];
    if (fn->module == s->view.prog_module) {
        *fill = '=';
        return PAIR_PROGRAM;
    }
    switch (m->kind) {
    case MODULE_KERNEL: *fill = ':'; return PAIR_IO;
    case MODULE_ANON: *fill = '~'; return PAIR_HIGH;
    default: *fill = '-'; return PAIR_DOS;
    }
}

/* Whether NAME matches the search. */
static bool flame_match(const struct flame *f, const char *name)
{
    return f->search[0] != '\0' && strcasestr(name, f->search) != NULL;
}

static void flame_box_add(struct flame *f, uint32_t node, int row, int x, int w)
{
    if (f->nboxes == f->boxes_alloc) {
        f->boxes_alloc = f->boxes_alloc ? 2 * f->boxes_alloc : 64;
        f->boxes = xreallocarray(f->boxes, f->boxes_alloc, sizeof *f->boxes);
    }
    f->boxes[f->nboxes++] = (struct flame_box){node, row, x, w};
}

/* Lay out NODE at ROW, its samples from START on, and everything under it
 * that is at least a column wide; W columns stand for WHOLE samples. */
static void flame_layout(struct flame *f, uint32_t node, int row, int rows, uint64_t start,
                         uint64_t whole, int w)
{
    const struct calltree_node *n = &f->tree->nodes[node];
    /* Rounded, so that a sliver at the right edge does not take a column. */
    int x0 = (int)((start * (uint64_t)w + whole / 2) / whole);
    int x1 = (int)(((start + n->total) * (uint64_t)w + whole / 2) / whole);
    if (x1 <= x0 || row >= rows)
        return; /* narrower than a column, or below the window: its parent covers it */
    flame_box_add(f, node, row, x0, x1 - x0);
    for (uint32_t c = n->child; c != 0; c = f->tree->nodes[c].next) {
        flame_layout(f, c, row + 1, rows, start, whole, w);
        start += f->tree->nodes[c].total;
    }
}

/* Samples in frames that match, each sample once (the topmost match). */
static uint64_t flame_matched(const struct flame *f, const struct session *s, uint32_t node,
                              size_t *frames)
{
    uint64_t sum = 0;
    for (uint32_t c = f->tree->nodes[node].child; c != 0; c = f->tree->nodes[c].next) {
        if (flame_match(f, s->funcs[f->tree->nodes[c].func].name)) {
            sum += f->tree->nodes[c].total;
            (*frames)++;
            size_t below = 0; /* matches under a match count as frames, not samples */
            flame_matched(f, s, c, &below);
            *frames += below;
        } else {
            sum += flame_matched(f, s, c, frames);
        }
    }
    return sum;
}

static double flame_pct(uint64_t part, const struct session *s)
{
    return pct_of(part, s->view.c.total);
}

/* The search's result in a few words, into BUF. */
static void flame_search_line(struct flame *f, const struct session *s, char *buf, size_t size)
{
    size_t frames = 0;
    uint64_t sum = flame_matched(f, s, 0, &frames);
    if (frames == 0)
        snprintf(buf, size, "no frame matches '%s'", f->search);
    else
        snprintf(buf, size, "'%s' %.2f%%, %zu frame%s", f->search, flame_pct(sum, s), frames,
                 frames == 1 ? "" : "s");
}

/* Draw one frame: its name cut to its width, filled to the end, and a
 * blank that keeps it apart from the next. */
static void flame_frame(struct flame *f, WINDOW *win, struct view_ctx *ctx,
                        const struct flame_box *b, int y0)
{
    const struct session *s = flame_session(f, ctx);
    const struct func *fn = &s->funcs[f->tree->nodes[b->node].func];
    char fill;
    int pair = flame_class(s, fn, &fill);
    bool big = false;
    if (ctx->baseline != NULL && !f->by_kind) { /* a difference flame graph */
        const struct baseline_change *ch =
            baseline_of(&f->chg, (size_t)f->tree->nodes[b->node].func);
        bool moved = ch != NULL && ch->stars > 0;
        pair = moved ? (ch->change > 0 ? PAIR_IO : PAIR_DIM) : 0;
        if (moved)
            fill = ch->change > 0 ? '+' : '.';
        big = moved && (ch->change >= 5 || ch->change <= -5); /* the stronger, the larger */
    }
    bool selected = b->node == f->sel_node && ctx->focused;
    bool match = flame_match(f, fn->name);
    int inner = b->w > 1 ? b->w - 1 : 1;
    char text[512], fit[512] = "";
    if (inner >= 2) /* a name cut to one column would be only the ellipsis */
        draw_fit(fit, sizeof fit, fn->name, inner);
    int len = draw_width(fit);
    size_t blen = strlen(fit);
    memcpy(text, fit, blen);
    for (int i = len; i < inner && blen + 1 < sizeof text; i++)
        text[blen++] = ctx->colors ? ' ' : fill;
    text[blen] = '\0';
    attr_t attr;
    if (ctx->colors)
        attr = selected ? COLOR_PAIR(PAIR_SELECT) | A_BOLD
                        : COLOR_PAIR(pair) | A_REVERSE; /* 0: grey */
    else
        attr = selected ? A_REVERSE | A_BOLD : A_NORMAL;
    if (big && ctx->colors)
        attr |= A_BOLD;
    if (match)
        attr |= A_BOLD | A_UNDERLINE;
    else if (f->search[0] != '\0' && ctx->colors && !selected)
        attr |= A_DIM;
    wattrset(win, attr);
    mvwaddstr(win, y0 + b->row, b->x, text);
    wattrset(win, A_NORMAL);
}

static void flame_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct flame *f = state;
    const struct session *s = flame_session(f, ctx);
    int w = getmaxx(win), h = getmaxy(win);
    calltree_free(f->tree);
    f->tree = session_calltree(f->swapped && ctx->baseline != NULL ? ctx->baseline : ctx->query,
                               f->inverted);
    f->nboxes = 0;
    f->sel_node = f->zoom_node = 0;
    const char *how = f->inverted ? "inverted (callers under)" : "top-down (callees under)";
    char info[160];
    if (ctx->baseline != NULL) /* for the bottom line too, coloured by kind or not */
        baseline_update(&f->chg, ctx, f->swapped);
    if (ctx->baseline != NULL && !f->by_kind) {
        const char *slash = strrchr(ctx->baseline_name, '/');
        const char *name = slash != NULL ? slash + 1 : ctx->baseline_name;
        /* The orientation is r's to say: the colours' meaning matters more here. */
        if (f->swapped)
            snprintf(info, sizeof info, "baseline %s: %s than now (x: swap)", name,
                     ctx->colors ? "red more, blue less" : "+ more . less");
        else
            snprintf(info, sizeof info, "%s against %s (b: kinds, x: swap)",
                     ctx->colors ? "red grew, blue shrank" : "+ grew . shrank", name);
    } else {
        snprintf(info, sizeof info, "%s%s", how,
                 ctx->colors ? "" : "  = program - library : kernel ~ anon");
    }
    draw_title(win, "Flame", info, ctx->focused, ctx->colors);
    if (f->tree == NULL || f->tree->nodes[0].total == 0) {
        draw_text(win, 2, 1, w - 1,
                  f->tree == NULL ? "this session has no stacks: no flame graph"
                                  : "no samples yet");
        return;
    }
    /* The graph between the title and a last line about the selection. */
    int rows = h - 2, y0 = 1;
    if (rows <= 0)
        return;
    f->zoom_node = flame_node_of(f, s, &f->zoom);
    flame_path_of(f, s, f->zoom_node, &f->zoom); /* what is left of it */
    uint64_t whole = f->tree->nodes[f->zoom_node].total;
    if (f->zoom_node == 0) { /* the root stands for nothing: its children on top */
        uint64_t start = 0;
        for (uint32_t c = f->tree->nodes[0].child; c != 0; c = f->tree->nodes[c].next) {
            flame_layout(f, c, 0, rows, start, whole, w);
            start += f->tree->nodes[c].total;
        }
    } else {
        flame_layout(f, f->zoom_node, 0, rows, 0, whole, w);
    }
    if (f->turning) {
        f->turning = false;
        uint32_t best = 0;
        for (uint32_t i = 1; i < f->tree->n; i++) {
            int64_t fi = f->tree->nodes[i].func;
            if (fi >= 0 && (size_t)fi < s->nfuncs && s->funcs[fi].module == f->turned.module &&
                s->funcs[fi].start == f->turned.start &&
                (best == 0 || f->tree->nodes[i].total > f->tree->nodes[best].total))
                best = i;
        }
        flame_path_of(f, s, best, &f->sel);
    }
    /* The selection: the deepest frame of its path that is drawn, else the widest on top. */
    uint32_t want = flame_node_of(f, s, &f->sel);
    for (uint32_t i = want; f->sel_node == 0; i = f->tree->nodes[i].parent) {
        for (size_t b = 0; b < f->nboxes && f->sel_node == 0; b++) {
            if (f->boxes[b].node == i && i != 0)
                f->sel_node = i;
        }
        if (i == 0)
            break;
    }
    if (f->sel_node == 0 && f->nboxes > 0)
        f->sel_node = f->boxes[0].node;
    for (size_t b = 0; b < f->nboxes; b++)
        flame_frame(f, win, ctx, &f->boxes[b], y0);
    /* The last line: the selected frame, and what the search found. */
    /* The search first: the selection's name is on the graph already. */
    char line[1024] = "";
    if (f->search[0] != '\0') {
        flame_search_line(f, s, line, sizeof line);
        strcat(line, "  | ");
    }
    if (f->sel_node != 0) {
        const struct calltree_node *n = &f->tree->nodes[f->sel_node];
        const struct func *fn = &s->funcs[n->func];
        char self[32] = ""; /* inverted, a frame's self is the outermost's: not shown */
        if (!f->inverted)
            snprintf(self, sizeof self, ", self %.2f%%", flame_pct(n->self, s));
        size_t len = strlen(line);
        snprintf(line + len, sizeof line - len, "%s (%s) total %.2f%%%s, %" PRIu64 " samples",
                 fn->name, s->modules[fn->module]->name, flame_pct(n->total, s), self, n->total);
        const struct baseline_change *ch =
            ctx->baseline != NULL ? baseline_of(&f->chg, (size_t)n->func) : NULL;
        if (ch != NULL) {
            len = strlen(line);
            snprintf(line + len, sizeof line - len, ", self %+.2f points %s%s", ch->change,
                     f->swapped ? "in the baseline than now" : "against the baseline",
                     ch->stars == 3   ? " ***"
                     : ch->stars == 2 ? " **"
                     : ch->stars == 1 ? " *"
                                      : "");
        }
    }
    wattron(win, A_BOLD);
    draw_text(win, h - 1, 0, w, line);
    wattroff(win, A_BOLD);
}

/* The box of the selected frame, or NULL. */
static const struct flame_box *flame_sel_box(const struct flame *f)
{
    for (size_t b = 0; b < f->nboxes; b++) {
        if (f->boxes[b].node == f->sel_node)
            return &f->boxes[b];
    }
    return NULL;
}

/* Select box B: its path is what is kept. */
static void flame_select(struct flame *f, const struct session *s, const struct flame_box *b)
{
    if (b == NULL)
        return;
    f->sel_node = b->node;
    flame_path_of(f, s, b->node, &f->sel);
}

/* The frame DY rows down (up when negative) from the selection, under the
 * middle of it; on the same row, the next frame DX to the right or left. */
static const struct flame_box *flame_near(const struct flame *f, int dy, int dx)
{
    const struct flame_box *cur = flame_sel_box(f), *best = NULL;
    if (cur == NULL)
        return f->nboxes > 0 ? &f->boxes[0] : NULL;
    if (dy < 0) { /* the parent, when it is drawn */
        uint32_t p = f->tree->nodes[cur->node].parent;
        for (size_t b = 0; b < f->nboxes; b++) {
            if (f->boxes[b].node == p)
                return &f->boxes[b];
        }
        return NULL;
    }
    if (dy > 0) { /* the widest child: the first drawn, the children go most first */
        for (size_t b = 0; b < f->nboxes; b++) {
            if (f->boxes[b].row == cur->row + 1 &&
                f->tree->nodes[f->boxes[b].node].parent == cur->node)
                return &f->boxes[b];
        }
        return NULL;
    }
    for (size_t b = 0; b < f->nboxes; b++) {
        const struct flame_box *x = &f->boxes[b];
        if (x->row != cur->row || x == cur)
            continue;
        if (dx > 0 && x->x > cur->x && (best == NULL || x->x < best->x))
            best = x;
        if (dx < 0 && x->x < cur->x && (best == NULL || x->x > best->x))
            best = x;
    }
    return best;
}

/* Find TEXT: highlight every frame it matches, say how much of the run they
 * hold; n and N (DIR 1, -1) move the selection to the next match. */
static int flame_search(void *state, const char *text, int dir, struct view_ctx *ctx)
{
    struct flame *f = state;
    const struct session *s = flame_session(f, ctx);
    if (text != NULL && text[0] != '\0')
        snprintf(f->search, sizeof f->search, "%s", text);
    if (f->search[0] == '\0' || f->tree == NULL) {
        snprintf(ctx->status, sizeof ctx->status, "no search yet: / highlights frames");
        return VIEW_REDRAW;
    }
    flame_search_line(f, s, ctx->status, sizeof ctx->status);
    if (dir == 0 || f->nboxes == 0)
        return VIEW_REDRAW;
    /* In drawing order from the selection on, wrapping. */
    size_t at = 0;
    for (size_t b = 0; b < f->nboxes; b++) {
        if (f->boxes[b].node == f->sel_node)
            at = b;
    }
    for (size_t k = 1; k <= f->nboxes; k++) {
        size_t b = dir > 0 ? (at + k) % f->nboxes : (at + f->nboxes - k % f->nboxes) % f->nboxes;
        if (flame_match(f, s->funcs[f->tree->nodes[f->boxes[b].node].func].name)) {
            flame_select(f, s, &f->boxes[b]);
            break;
        }
    }
    return VIEW_REDRAW;
}

static int flame_key(void *state, int key, struct view_ctx *ctx)
{
    struct flame *f = state;
    const struct session *s = flame_session(f, ctx);
    switch (key) {
    case KEY_UP:
    case 'k': flame_select(f, s, flame_near(f, -1, 0)); return VIEW_REDRAW;
    case KEY_DOWN:
    case 'j': flame_select(f, s, flame_near(f, 1, 0)); return VIEW_REDRAW;
    case KEY_LEFT:
    case 'h': flame_select(f, s, flame_near(f, 0, -1)); return VIEW_REDRAW;
    case KEY_RIGHT:
    case 'l': flame_select(f, s, flame_near(f, 0, 1)); return VIEW_REDRAW;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (f->sel_node == 0 || f->sel_node == f->zoom_node)
            return VIEW_REDRAW;
        if (f->nzooms == FLAME_ZOOMS)
            memmove(f->zooms, f->zooms + 1, (FLAME_ZOOMS - 1) * sizeof *f->zooms);
        else
            f->nzooms++;
        f->zooms[f->nzooms - 1] = f->zoom;
        flame_path_of(f, s, f->sel_node, &f->zoom);
        f->zoom_node = f->sel_node;
        snprintf(ctx->status, sizeof ctx->status, "zoomed into %s: Backspace zooms out",
                 s->funcs[f->tree->nodes[f->sel_node].func].name);
        return VIEW_REDRAW;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        if (f->nzooms == 0) {
            f->zoom.n = 0;
            snprintf(ctx->status, sizeof ctx->status, "the whole graph");
            return VIEW_REDRAW;
        }
        f->zoom = f->zooms[--f->nzooms];
        return VIEW_REDRAW;
    case 'a': {
        if (f->sel_node == 0)
            return VIEW_REDRAW;
        if (f->swapped) {
            snprintf(ctx->status, sizeof ctx->status,
                     "the graph is the baseline's: x shows the session's, whose source a shows");
            return VIEW_REDRAW;
        }
        const struct func *fn = &s->funcs[f->tree->nodes[f->sel_node].func];
        ctx->jump_module = fn->module;
        ctx->jump_start = fn->start;
        return VIEW_SOURCE | VIEW_REDRAW;
    }
    case 'b':
        if (ctx->baseline == NULL) {
            snprintf(ctx->status, sizeof ctx->status,
                     "no --baseline to compare with: the colours are the kinds of code");
            return VIEW_REDRAW;
        }
        f->by_kind = !f->by_kind;
        snprintf(ctx->status, sizeof ctx->status, "%s",
                 f->by_kind ? "coloured by kind: program, library, kernel, anonymous"
                            : "coloured by the change against the baseline");
        return VIEW_REDRAW;
    case 'x':
        if (ctx->baseline == NULL) {
            snprintf(ctx->status, sizeof ctx->status, "no --baseline to swap with");
            return VIEW_REDRAW;
        }
        f->swapped = !f->swapped;
        f->by_kind = false;
        f->zoom.n = f->sel.n = 0; /* another graph: its paths are others */
        f->nzooms = 0;
        snprintf(ctx->status, sizeof ctx->status, "%s",
                 f->swapped ? "the baseline's frames, red where it had more than now"
                            : "the session's frames, red where it grew against the baseline");
        return VIEW_REDRAW;
    case 'r':
        f->inverted = !f->inverted;
        /* The selected function stays selected: its widest frame in the
         * graph turned over (issue 24: r jumped to the root). */
        f->turning = f->tree != NULL && f->sel_node != 0 && f->sel_node < f->tree->n &&
                     f->tree->nodes[f->sel_node].func >= 0 &&
                     (size_t)f->tree->nodes[f->sel_node].func < s->nfuncs;
        if (f->turning) {
            const struct func *fn = &s->funcs[f->tree->nodes[f->sel_node].func];
            f->turned = (struct flame_key){fn->module, fn->start};
        }
        f->zoom.n = f->sel.n = 0;
        f->nzooms = 0;
        snprintf(ctx->status, sizeof ctx->status, "%s",
                 f->inverted ? "inverted: where the samples ended on top, their callers under"
                             : "top-down: the outermost frames on top, their callees under");
        return VIEW_REDRAW;
    default: return VIEW_IGNORED;
    }
}

const struct view_ops view_flame_ops = {
    .name = "Flame",
    .create = flame_create,
    .destroy = flame_destroy,
    .draw = flame_draw,
    .key = flame_key,
    .search = flame_search,
};
