/* The bucket histogram: PROFIL's buckets, one row each, labelled by the
 * function with the most samples in the bucket, with a count and a bar.  It
 * opens on the hottest bucket and follows it until the user moves. */
#include "config.h"

#include "session/hitorder.h"
#include "util/pct.h"
#include "util/stats.h"
#include "util/xmalloc.h"
#include "views/view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A visible row's label, kept while its bucket's count stands still. */
struct label {
    size_t bucket; /* SIZE_MAX: nothing kept */
    uint64_t count;
    const char *name; /* borrowed from the program's symbols */
    size_t others;
};

struct histogram {
    size_t sel;  /* selected bucket index */
    bool moved;  /* the user moved: stop following the hottest bucket */
    size_t top;  /* first row shown */
    size_t rows; /* rows last drawn */
    int y0;      /* the line of the column heads, the rows below it */
    bool hide_empty;
    size_t *cand; /* sorted indices of the buckets holding any hit entry */
    size_t ncand;
    size_t *nonempty; /* those of them not empty now */
    size_t nnonempty;
    uint64_t max;         /* the hottest bucket's count */
    size_t hottest;       /* the first bucket with that count */
    struct label *labels; /* one per row last drawn */
    size_t nlabels;
    size_t label_nhits; /* what the labels were computed under */
    uint32_t label_paragraphs;
    uint64_t label_total;
    uint64_t seen_program; /* cache keys */
    size_t seen_nbuckets;
    size_t seen_nhits;
    uint32_t seen_paragraphs;
    size_t hl_first, hl_last; /* buckets of the function jumped to, or hl_first > hl_last */
    struct hitorder order;    /* the program's hits by offset: what labels are made of */
};

static void *histogram_create(void)
{
    struct histogram *h = xcalloc(1, sizeof *h);
    h->hl_first = 1;
    hitorder_init(&h->order);
    return h;
}

static void histogram_destroy(void *state)
{
    struct histogram *h = state;
    free(h->cand);
    free(h->nonempty);
    free(h->labels);
    hitorder_fini(&h->order);
    free(h);
}

/* Only buckets holding a hit can be non-empty, so the candidates come from the
 * hit table, not the (possibly million-entry) bucket array, and only when a
 * new PC or a new bucket size could add one; which of them are non-empty is
 * then a pass over the candidates, redone when the counts move. */
static void histogram_refresh(struct histogram *h, const struct session *s)
{
    bool rebuild = h->cand == NULL || h->seen_nhits != s->nhits ||
                   h->seen_nbuckets != s->view.nbuckets ||
                   h->seen_paragraphs != s->view.bucket_paragraphs;
    if (!rebuild && h->seen_program == s->view.c.program && h->nonempty != NULL)
        return;
    if (rebuild) {
        h->seen_nhits = s->nhits;
        h->seen_nbuckets = s->view.nbuckets;
        h->seen_paragraphs = s->view.bucket_paragraphs;
        free(h->cand);
        h->cand = xcalloc(s->nhits + 1, sizeof *h->cand);
        h->ncand = 0;
        size_t b;
        for (size_t i = 0; i < s->hits_alloc; i++) {
            if (s->hits[i].module == s->view.prog_module &&
                session_bucket_of(s, s->hits[i].offset, &b))
                h->cand[h->ncand++] = b;
        }
        size_t n = h->ncand;
        for (size_t gap = n / 2; gap > 0; gap /= 2) { /* shell sort: no comparator globals */
            for (size_t i = gap; i < n; i++) {
                size_t v = h->cand[i], j = i;
                for (; j >= gap && h->cand[j - gap] > v; j -= gap)
                    h->cand[j] = h->cand[j - gap];
                h->cand[j] = v;
            }
        }
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (k == 0 || h->cand[k - 1] != h->cand[i])
                h->cand[k++] = h->cand[i];
        }
        h->ncand = k;
        free(h->nonempty);
        h->nonempty = xcalloc(k + 1, sizeof *h->nonempty);
    }
    h->seen_program = s->view.c.program;
    h->nnonempty = 0;
    h->max = 0;
    h->hottest = 0;
    for (size_t i = 0; i < h->ncand; i++) {
        uint64_t c = s->view.buckets[h->cand[i]];
        if (c == 0)
            continue;
        h->nonempty[h->nnonempty++] = h->cand[i];
        if (c > h->max) {
            h->max = c;
            h->hottest = h->cand[i];
        }
    }
}

static size_t histogram_rows(const struct histogram *h, const struct session *s)
{
    return h->hide_empty ? h->nnonempty : s->view.nbuckets;
}

static size_t histogram_bucket_at(const struct histogram *h, size_t row)
{
    return h->hide_empty ? h->nonempty[row] : row;
}

/* The row showing bucket B, or the nearest one at or after it. */
static size_t histogram_row_of(const struct histogram *h, size_t b)
{
    if (!h->hide_empty)
        return b;
    size_t lo = 0, hi = h->nnonempty;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->nonempty[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < h->nnonempty ? lo : (h->nnonempty ? h->nnonempty - 1 : 0);
}

/* Bucket B's label for visible row R: computed again only when the bucket's
 * count, the hit table or the bucket size changed, and then from the
 * bucket's own hits, so a redraw costs the hits on screen, not the screen
 * times the bucket size or the hit table. */
static const char *histogram_label(struct histogram *h, const struct session *s, size_t r, size_t b,
                                   size_t *others)
{
    if (h->label_nhits != s->nhits || h->label_paragraphs != s->view.bucket_paragraphs ||
        s->view.c.total < h->label_total) { /* a new PC, a new size, a clear */
        for (size_t i = 0; i < h->nlabels; i++)
            h->labels[i].bucket = SIZE_MAX;
        h->label_nhits = s->nhits;
        h->label_paragraphs = s->view.bucket_paragraphs;
    }
    h->label_total = s->view.c.total;
    struct label *l = &h->labels[r];
    if (l->bucket != b || l->count != s->view.buckets[b]) {
        l->bucket = b;
        l->count = s->view.buckets[b];
        l->name = hitorder_label(&h->order, s, b, &l->others);
    }
    *others = l->others;
    return l->name;
}

/* Whether NAME is the function bucket B falls in, started in an earlier bucket. */
static bool histogram_continues(const struct session *s, size_t b, const char *name)
{
    const struct module *m = s->nmodules ? s->modules[s->view.prog_module] : NULL;
    uint64_t off;
    if (m == NULL || name == NULL ||
        !module_vaddr_to_offset(m, s->view.prog_low + b * 16 * (uint64_t)s->view.bucket_paragraphs,
                                &off))
        return false;
    long k = module_find_symbol(m, off);
    return k >= 0 && m->syms[k].start < off &&
           module_symbol_name(m, (size_t)k, s->raw_names) == name;
}

/* When the program's own code has (next to) nothing, say where the samples
 * went: the histogram alone would look like a broken profile.  Returns the
 * rows used. */
static int histogram_elsewhere(WINDOW *win, int y, int w, int rows, const struct session *s)
{
    const struct {
        uint64_t v;
        const char *where;
    } k[] = {
        {s->view.c.dos, "in shared libraries (DOS)"},
        {s->view.c.io, "in the kernel or blocked in system calls (I/O)"},
        {s->view.c.high, "outside every file (high)"},
    };
    size_t top = 0;
    for (size_t i = 1; i < sizeof k / sizeof k[0]; i++) {
        if (k[i].v > k[top].v)
            top = i;
    }
    bool ranked = false; /* functions elsewhere to look at? */
    for (size_t i = 0; i < s->nfuncs && !ranked; i++)
        ranked = s->funcs[i].module != s->view.prog_module && s->funcs[i].samples > 0;
    char msg[256], own[64] = "No samples";
    double pct = 100.0 * (double)s->view.c.program / (double)s->view.c.total;
    if (s->view.c.program > 0) /* never "0.0%" for some */
        snprintf(own, sizeof own, "Only %.*f%% of the samples", pct < 0.1 ? 2 : 1, pct);
    snprintf(msg, sizeof msg, "%s in the program's own code: %.1f%% %s. See %s.", own,
             100.0 * (double)k[top].v / (double)s->view.c.total, k[top].where,
             ranked ? "Functions (2)" : "Counters (4)");
    /* Word-wrapped to the panel. */
    int used = 0, width = w > 2 ? w - 1 : 1;
    const char *p = msg;
    while (*p != '\0' && used < rows) {
        int len = (int)strlen(p);
        if (len > width) {
            len = width;
            while (len > 0 && p[len] != ' ')
                len--;
            if (len == 0)
                len = width;
        }
        char line[256];
        snprintf(line, sizeof line, "%.*s", len, p);
        wattron(win, A_BOLD);
        draw_text(win, y + used, 1, width, line);
        wattroff(win, A_BOLD);
        used++;
        p += len;
        while (*p == ' ')
            p++;
    }
    return used;
}

/* Where there is room, bars are drawn to the top of the hottest bucket's
 * interval, so that its whisker fits too: the samples a full bar stands for. */
static double histogram_bar_top(uint64_t max, uint64_t total, double deff, int width)
{
    if (width < 10 || max == 0 || total == 0)
        return (double)max;
    double lo, hi;
    stats_wilson(max, total, deff, &lo, &hi);
    return hi * (double)total;
}

/* The 95 % interval of a bucket's share over its bar at (Y, X), WIDTH cells
 * for TOP samples: '[' where it starts, '-' past the bar, ']' where it
 * ends; only where it spans three cells or more, so that it says something. */
static void histogram_whisker(WINDOW *win, int y, int x, int width, uint64_t count, uint64_t total,
                              double deff, double top)
{
    if (width < 10 || !(top > 0) || total == 0)
        return;
    double lo, hi, scale = (double)total / top * width;
    stats_wilson(count, total, deff, &lo, &hi);
    int fill = (int)((double)count / top * width + 0.5);
    int a = (int)(lo * scale + 0.5), b = (int)(hi * scale + 0.5);
    if (b >= width)
        b = width - 1;
    if (b - a < 2 || b < fill)
        return;
    mvwaddch(win, y, x + a, '[');
    for (int i = fill > a + 1 ? fill : a + 1; i < b; i++)
        mvwaddch(win, y, x + i, '-');
    mvwaddch(win, y, x + b, ']');
}

static void histogram_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct histogram *h = state;
    const struct session *s = ctx->s;
    histogram_refresh(h, s);
    int w = getmaxx(win), rows = getmaxy(win) - 2;
    char info[160];
    snprintf(info, sizeof info, "%s%s%zu bucket%s of %u paragraph%s%s",
             s->view.prog_module != 0 ? s->modules[s->view.prog_module]->name : "",
             s->view.prog_module != 0 ? "'s code: " : "", s->view.nbuckets,
             s->view.nbuckets == 1 ? "" : "s", s->view.bucket_paragraphs,
             s->view.bucket_paragraphs == 1 ? "" : "s", h->hide_empty ? ", empty hidden" : "");
    draw_title(win, "Histogram", info, ctx->focused, ctx->colors);
    if (rows <= 0)
        return;
    int y0 = 1;
    if (s->view.c.total > 0 && s->view.c.program * 100 < s->view.c.total) { /* under 1 % */
        int used = histogram_elsewhere(win, 1, w, rows - 1, s);
        y0 += used + 1;
        rows -= used + 1;
    }
    h->y0 = y0;
    if (rows <= 0)
        return;
    h->rows = (size_t)rows;
    size_t n = histogram_rows(h, s);
    if (!h->moved && h->max > 0) {
        /* Follow the hottest bucket, in the middle of the panel, until the user moves. */
        h->sel = h->hottest;
        size_t row = histogram_row_of(h, h->sel);
        h->top = row > (size_t)rows / 2 ? row - (size_t)rows / 2 : 0;
    }
    size_t sel_row = histogram_row_of(h, h->sel);
    h->top = scroll_top(h->top, sel_row, n, (size_t)rows);
    if (h->nlabels < (size_t)rows) {
        h->labels = xreallocarray(h->labels, (size_t)rows, sizeof *h->labels);
        for (size_t i = h->nlabels; i < (size_t)rows; i++)
            h->labels[i].bucket = SIZE_MAX;
        h->nlabels = (size_t)rows;
    }
    int namew = w >= 70 ? 24 : w >= 50 ? 14 : 8;
    int countx = 13 + namew + 1;
    int barx = countx + 18;
    int barw = w - barx - 1; /* a blank column keeps the bar off the next panel */
    double top = histogram_bar_top(h->max, s->view.c.total, session_deff(s), barw);
    char line[128];
    wattron(win, A_BOLD);
    snprintf(line, sizeof line, "%-12s %-*s %9s %7s", "Address", namew, "Function", "Count", "%");
    draw_text(win, y0, 0, w, line);
    wattroff(win, A_BOLD);
    for (int r = 0; r < rows && h->top + (size_t)r < n; r++) {
        size_t b = histogram_bucket_at(h, h->top + (size_t)r);
        uint64_t count = s->view.buckets[b];
        uint64_t addr = s->view.prog_low + b * 16 * (uint64_t)s->view.bucket_paragraphs;
        size_t others;
        const char *sym = histogram_label(h, s, (size_t)r, b, &others);
        char more[32] = "", name[128], fitted[128];
        if (others > 0)
            snprintf(more, sizeof more, " +%zu", others);
        snprintf(name, sizeof name, "%s%s", sym && histogram_continues(s, b, sym) ? ". " : "",
                 sym ? sym : "");
        /* The name gives way to the count of the others, never the reverse. */
        draw_fit(fitted, sizeof fitted, name, namew - (int)strlen(more));
        snprintf(name, sizeof name, "%s%s", fitted, more);
        bool selected = b == h->sel && ctx->focused;
        bool lit = b >= h->hl_first && b <= h->hl_last;
        int y = y0 + 1 + r;
        if (selected)
            wattron(win, ctx->colors ? COLOR_PAIR(PAIR_SELECT) : A_REVERSE);
        else if (lit)
            wattron(win, A_BOLD);
        else if (count == 0)
            wattron(win, ctx->colors ? COLOR_PAIR(PAIR_DIM) : A_DIM);
        snprintf(line, sizeof line, "%012" PRIx64 " ", addr);
        draw_text(win, y, 0, 13, line);
        draw_text(win, y, 13, namew + 1, name);
        snprintf(line, sizeof line, "%9" PRIu64 " %6.2f%% ", count, pct_of(count, s->view.c.total));
        draw_text(win, y, countx, 18, line);
        wattrset(win, A_NORMAL);
        if (barw > 0) {
            draw_bar(win, y, barx, barw, top > 0 ? (double)count / top : 0, PAIR_PROGRAM,
                     ctx->colors);
            histogram_whisker(win, y, barx, barw, count, s->view.c.total, session_deff(s), top);
        }
    }
}

/* Halve or double the bucket size, keeping the selected address in view. */
static int histogram_zoom(struct histogram *h, struct view_ctx *ctx, bool finer)
{
    const struct session *s = ctx->s;
    uint32_t p = s->view.bucket_paragraphs;
    uint32_t want = finer ? (p > 1 ? p / 2 : 1) : (p < 32768 ? p * 2 : 65535);
    if (want == p) {
        snprintf(ctx->status, sizeof ctx->status, "the bucket size is already %u paragraph%s", p,
                 p == 1 ? "" : "s");
        return VIEW_REDRAW;
    }
    uint64_t addr = (uint64_t)h->sel * 16 * p;
    h->sel = (size_t)(addr / (16 * (uint64_t)want));
    h->hl_first = 1;
    h->hl_last = 0;
    ctx->want_paragraphs = want;
    return VIEW_REBUCKET | VIEW_REDRAW;
}

/* a: the source of the function that labels the selected bucket. */
static int histogram_source(struct histogram *h, struct view_ctx *ctx)
{
    const struct session *s = ctx->s;
    size_t others;
    uint64_t lo, hi;
    const char *name =
        h->sel < s->view.nbuckets ? hitorder_label(&h->order, s, h->sel, &others) : NULL;
    if (name == NULL || !session_bucket_span(s, h->sel, &lo, &hi)) {
        snprintf(ctx->status, sizeof ctx->status, "no function labels this bucket");
        return VIEW_REDRAW;
    }
    /* The program's function of that name, the one in the bucket first (two
     * static functions may share a name). */
    const struct func *best = NULL;
    for (size_t i = 0; i < s->nfuncs; i++) {
        const struct func *fn = &s->funcs[i];
        if (fn->module != s->view.prog_module || fn->inlined || strcmp(fn->name, name) != 0)
            continue;
        if (best == NULL || (fn->start <= hi && fn->end > lo))
            best = fn;
    }
    if (best == NULL) {
        snprintf(ctx->status, sizeof ctx->status, "%s has no samples", name);
        return VIEW_REDRAW;
    }
    ctx->jump_module = best->module;
    ctx->jump_start = best->start;
    return VIEW_SOURCE | VIEW_REDRAW;
}

static int histogram_key(void *state, int key, struct view_ctx *ctx)
{
    struct histogram *h = state;
    const struct session *s = ctx->s;
    histogram_refresh(h, s);
    size_t n = histogram_rows(h, s);
    size_t row = histogram_row_of(h, h->sel);
    if (scroll_key(key, &row, n, h->rows)) {
        if (n > 0)
            h->sel = histogram_bucket_at(h, row);
        h->moved = true;
        return VIEW_REDRAW;
    }
    switch (key) {
    case 'z':
    case '+': return histogram_zoom(h, ctx, true);
    case 'Z':
    case '-': return histogram_zoom(h, ctx, false);
    case 'e':
        h->hide_empty = !h->hide_empty;
        if (h->hide_empty && h->nnonempty > 0)
            h->sel = h->nonempty[histogram_row_of(h, h->sel)];
        return VIEW_REDRAW;
    case 'a': return histogram_source(h, ctx);
    case 'H':
        /* Back to the hottest bucket, and follow it again. */
        h->moved = false;
        if (h->max > 0)
            h->sel = h->hottest;
        return VIEW_REDRAW;
    }
    return VIEW_IGNORED;
}

static int histogram_click(void *state, int row, struct view_ctx *ctx)
{
    struct histogram *h = state;
    size_t n = histogram_rows(h, ctx->s);
    int first = h->y0 + 1;
    if (row < first || h->top + (size_t)(row - first) >= n)
        return VIEW_IGNORED;
    h->sel = histogram_bucket_at(h, h->top + (size_t)(row - first));
    h->moved = true;
    return VIEW_REDRAW;
}

static int histogram_jump(void *state, struct view_ctx *ctx)
{
    struct histogram *h = state;
    const struct session *s = ctx->s;
    uint64_t lo, hi;
    if (ctx->jump_module != s->view.prog_module || s->nmodules == 0 ||
        !module_offset_to_vaddr(s->modules[s->view.prog_module], ctx->jump_start, &lo) ||
        !module_offset_to_vaddr(s->modules[s->view.prog_module], ctx->jump_end - 1, &hi) ||
        lo < s->view.prog_low || hi >= s->view.prog_high) {
        snprintf(ctx->status, sizeof ctx->status, "that function is not in the program area");
        return VIEW_REDRAW;
    }
    uint64_t size = 16 * (uint64_t)s->view.bucket_paragraphs;
    h->hl_first = (size_t)((lo - s->view.prog_low) / size);
    h->hl_last = (size_t)((hi - s->view.prog_low) / size);
    h->sel = h->hl_first;
    h->top = h->hide_empty ? histogram_row_of(h, h->sel) : h->sel;
    h->moved = true;
    return VIEW_REDRAW;
}

/* Search the bucket labels for TEXT, from the selection (DIR 0), after it (1)
 * or before it (-1), wrapping.  Without TEXT, n and N step to the next or
 * previous non-empty bucket. */
static int histogram_search(void *state, const char *text, int dir, struct view_ctx *ctx)
{
    struct histogram *h = state;
    const struct session *s = ctx->s;
    histogram_refresh(h, s);
    size_t n = histogram_rows(h, s), row = histogram_row_of(h, h->sel);
    bool any = text == NULL || text[0] == '\0';
    if (any && h->nnonempty == 0) {
        snprintf(ctx->status, sizeof ctx->status, "no bucket has samples");
        return VIEW_REDRAW;
    }
    for (size_t k = dir != 0 ? 1 : 0; n > 0 && k <= n; k++) {
        size_t r = dir < 0 ? (row + n - k % n) % n : (row + k) % n;
        size_t b = histogram_bucket_at(h, r), others;
        bool match;
        if (any) {
            match = s->view.buckets[b] > 0;
        } else {
            const char *name = hitorder_label(&h->order, s, b, &others);
            match = name != NULL && strcasestr(name, text) != NULL;
        }
        if (match) {
            h->sel = b;
            h->moved = true;
            return VIEW_REDRAW;
        }
    }
    snprintf(ctx->status, sizeof ctx->status, "no bucket label matches '%s'", text);
    return VIEW_REDRAW;
}

const struct view_ops view_histogram_ops = {
    .name = "Histogram",
    .create = histogram_create,
    .destroy = histogram_destroy,
    .draw = histogram_draw,
    .key = histogram_key,
    .click = histogram_click,
    .search = histogram_search,
    .jump = histogram_jump,
};
