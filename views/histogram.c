/* The bucket histogram: PROFIL's buckets, one row each, with the symbol that
 * starts in the bucket (or the one it falls in) and a bar. */
#include "config.h"

#include "session/xmalloc.h"
#include "views/view.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct histogram {
    size_t sel;       /* selected bucket index */
    size_t top;       /* first row shown */
    size_t rows;      /* rows last drawn */
    bool hide_empty;
    size_t *cand;     /* sorted indices of the buckets holding any hit entry */
    size_t ncand;
    size_t *nonempty; /* those of them not empty now */
    size_t nnonempty;
    uint64_t max;     /* the hottest bucket's count */
    uint64_t seen_program; /* cache keys */
    size_t seen_nbuckets;
    size_t seen_nhits;
    uint32_t seen_paragraphs;
    size_t hl_first, hl_last; /* buckets of the function jumped to, or hl_first > hl_last */
};

static void *histogram_create(void)
{
    struct histogram *h = xcalloc(1, sizeof *h);
    h->hl_first = 1;
    return h;
}

static void histogram_destroy(void *state)
{
    struct histogram *h = state;
    free(h->cand);
    free(h->nonempty);
    free(h);
}

/* Only buckets holding a hit can be non-empty, so the candidates come from the
 * hit table, not the (possibly million-entry) bucket array, and only when a
 * new PC or a new bucket size could add one; which of them are non-empty is
 * then a pass over the candidates, redone when the counts move. */
static void histogram_refresh(struct histogram *h, const struct session *s)
{
    bool rebuild = h->cand == NULL || h->seen_nhits != s->nhits ||
                   h->seen_nbuckets != s->nbuckets || h->seen_paragraphs != s->bucket_paragraphs;
    if (!rebuild && h->seen_program == s->c.program && h->nonempty != NULL)
        return;
    if (rebuild) {
        h->seen_nhits = s->nhits;
        h->seen_nbuckets = s->nbuckets;
        h->seen_paragraphs = s->bucket_paragraphs;
        free(h->cand);
        h->cand = xcalloc(s->nhits + 1, sizeof *h->cand);
        h->ncand = 0;
        size_t b;
        for (size_t i = 0; i < s->hits_alloc; i++) {
            if (s->hits[i].module == 0 && session_bucket_of(s, s->hits[i].offset, &b))
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
    h->seen_program = s->c.program;
    h->nnonempty = 0;
    h->max = 0;
    for (size_t i = 0; i < h->ncand; i++) {
        uint64_t c = s->buckets[h->cand[i]];
        if (c == 0)
            continue;
        h->nonempty[h->nnonempty++] = h->cand[i];
        if (c > h->max)
            h->max = c;
    }
}

static size_t histogram_rows(const struct histogram *h, const struct session *s)
{
    return h->hide_empty ? h->nnonempty : s->nbuckets;
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

static void histogram_draw(void *state, WINDOW *win, struct view_ctx *ctx)
{
    struct histogram *h = state;
    const struct session *s = ctx->s;
    histogram_refresh(h, s);
    int w = getmaxx(win), rows = getmaxy(win) - 2;
    char info[96];
    snprintf(info, sizeof info, "%zu buckets of %u paragraph%s%s", s->nbuckets,
             s->bucket_paragraphs, s->bucket_paragraphs == 1 ? "" : "s",
             h->hide_empty ? ", empty hidden" : "");
    draw_title(win, "Histogram", info, ctx->focused, ctx->colors);
    if (rows <= 0)
        return;
    h->rows = (size_t)rows;
    size_t n = histogram_rows(h, s);
    size_t sel_row = histogram_row_of(h, h->sel);
    h->top = scroll_top(h->top, sel_row, n, (size_t)rows);
    int namew = w >= 70 ? 24 : w >= 50 ? 14 : 8;
    int barw = w - (12 + 1 + namew + 1 + 9 + 1 + 7 + 1);
    wattron(win, A_BOLD);
    mvwprintw(win, 1, 0, "%-12s %-*s %9s %7s", "Address", namew, "Symbol", "Count", "%");
    wattroff(win, A_BOLD);
    for (int r = 0; r < rows && h->top + (size_t)r < n; r++) {
        size_t b = histogram_bucket_at(h, h->top + (size_t)r);
        uint64_t count = s->buckets[b];
        uint64_t addr = s->prog_low + b * 16 * (uint64_t)s->bucket_paragraphs;
        bool starts;
        const char *sym = session_bucket_symbol(s, b, &starts);
        char name[64];
        snprintf(name, sizeof name, "%s%s", sym && !starts ? ". " : "", sym ? sym : "");
        bool selected = b == h->sel && ctx->focused;
        bool lit = b >= h->hl_first && b <= h->hl_last;
        int y = r + 2;
        if (selected)
            wattron(win, ctx->colors ? COLOR_PAIR(PAIR_SELECT) : A_REVERSE);
        else if (lit)
            wattron(win, A_BOLD);
        else if (count == 0)
            wattron(win, ctx->colors ? COLOR_PAIR(PAIR_DIM) : A_DIM);
        char line[64];
        snprintf(line, sizeof line, "%012" PRIx64 " ", addr);
        draw_text(win, y, 0, 13, line);
        draw_text(win, y, 13, namew + 1, name);
        snprintf(line, sizeof line, "%9" PRIu64 " %6.2f%% ", count,
                 s->c.total ? 100.0 * (double)count / (double)s->c.total : 0.0);
        draw_text(win, y, 13 + namew + 1, 18, line);
        wattrset(win, A_NORMAL);
        if (barw > 0)
            draw_bar(win, y, w - barw, barw, h->max ? (double)count / (double)h->max : 0,
                     PAIR_PROGRAM, ctx->colors);
    }
}

/* Halve or double the bucket size, keeping the selected address in view. */
static int histogram_zoom(struct histogram *h, struct view_ctx *ctx, bool finer)
{
    const struct session *s = ctx->s;
    uint32_t p = s->bucket_paragraphs;
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
        return VIEW_REDRAW;
    }
    switch (key) {
    case 'z':
    case '+':
        return histogram_zoom(h, ctx, true);
    case 'Z':
    case '-':
        return histogram_zoom(h, ctx, false);
    case 'e':
        h->hide_empty = !h->hide_empty;
        if (h->hide_empty && h->nnonempty > 0)
            h->sel = h->nonempty[histogram_row_of(h, h->sel)];
        return VIEW_REDRAW;
    case 'h':
        for (size_t i = 0; i < h->nnonempty; i++) {
            if (s->buckets[h->nonempty[i]] == h->max) {
                h->sel = h->nonempty[i];
                break;
            }
        }
        return VIEW_REDRAW;
    }
    return VIEW_IGNORED;
}

static int histogram_click(void *state, int row, struct view_ctx *ctx)
{
    struct histogram *h = state;
    size_t n = histogram_rows(h, ctx->s);
    if (row < 2 || h->top + (size_t)(row - 2) >= n)
        return VIEW_IGNORED;
    h->sel = histogram_bucket_at(h, h->top + (size_t)(row - 2));
    return VIEW_REDRAW;
}

static int histogram_jump(void *state, struct view_ctx *ctx)
{
    struct histogram *h = state;
    const struct session *s = ctx->s;
    uint64_t lo, hi;
    if (ctx->jump_module != 0 || s->nmodules == 0 ||
        !module_offset_to_vaddr(s->modules[0], ctx->jump_start, &lo) ||
        !module_offset_to_vaddr(s->modules[0], ctx->jump_end - 1, &hi) || lo < s->prog_low ||
        hi >= s->prog_high) {
        snprintf(ctx->status, sizeof ctx->status, "that function is not in the program area");
        return VIEW_REDRAW;
    }
    uint64_t size = 16 * (uint64_t)s->bucket_paragraphs;
    h->hl_first = (size_t)((lo - s->prog_low) / size);
    h->hl_last = (size_t)((hi - s->prog_low) / size);
    h->sel = h->hl_first;
    h->top = h->hide_empty ? histogram_row_of(h, h->sel) : h->sel;
    return VIEW_REDRAW;
}

/* Search the symbols of the buckets for TEXT. */
static int histogram_search(void *state, const char *text, bool next, struct view_ctx *ctx)
{
    struct histogram *h = state;
    const struct session *s = ctx->s;
    size_t n = histogram_rows(h, s), row = histogram_row_of(h, h->sel);
    for (size_t k = next ? 1 : 0; k <= n; k++) {
        size_t b = histogram_bucket_at(h, (row + k) % (n ? n : 1));
        bool starts;
        const char *sym = session_bucket_symbol(s, b, &starts);
        if (sym != NULL && starts && strcasestr(sym, text) != NULL) {
            h->sel = b;
            return VIEW_REDRAW;
        }
    }
    snprintf(ctx->status, sizeof ctx->status, "no bucket symbol matches '%s'", text);
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
