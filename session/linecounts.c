/*
 * Samples by source line: each line's Self (the PCs on it) and Total (the
 * samples with it anywhere on their stack, once each), from the hit table
 * and the stack table's one walk from the root.  Above lines.c (which finds
 * a PC's line) and stacks.c, which know nothing of it.
 */
#include "config.h"

#include "session/model.h"
#include "session/resolve.h"
#include "session/linecounts.h"
#include "session/lines.h"
#include "session/stacks.h"
#include "util/xmalloc.h"

#include <stdlib.h>

/* A table of line counts, open addressing on (file, line). */
struct lines_tally {
    struct line_count *e;
    uint32_t *mark; /* lines_tally_stacks': the nodes of its path holding the entry */
    size_t n;
    size_t alloc; /* a power of two */
};

static size_t lines_tally_slot(const struct lines_tally *t, uint32_t file, uint32_t line)
{
    size_t mask = t->alloc - 1;
    for (size_t i = hit_hash(file, line) & mask;; i = (i + 1) & mask) {
        const struct line_count *e = &t->e[i];
        if (e->file == 0 || (e->file == file && e->line == line))
            return i;
    }
}

/* The entry of (FILE, LINE), made on first use. */
static struct line_count *lines_tally_get(struct lines_tally *t, uint32_t file, uint32_t line,
                                          int64_t func, uint32_t **mark)
{
    if (2 * (t->n + 1) > t->alloc) {
        struct lines_tally old = *t;
        t->alloc = old.alloc ? 2 * old.alloc : 256;
        t->e = xcalloc(t->alloc, sizeof *t->e);
        t->mark = xcalloc(t->alloc, sizeof *t->mark);
        for (size_t i = 0; i < old.alloc; i++) {
            if (old.e[i].file == 0)
                continue;
            size_t k = lines_tally_slot(t, old.e[i].file, old.e[i].line);
            t->e[k] = old.e[i];
            t->mark[k] = old.mark[i];
        }
        free(old.e);
        free(old.mark);
    }
    size_t k = lines_tally_slot(t, file, line);
    if (t->e[k].file == 0) {
        t->e[k] = (struct line_count){file, line, 0, 0, func};
        t->n++;
    }
    *mark = &t->mark[k];
    return &t->e[k];
}

static int lines_count_cmp(const void *a, const void *b)
{
    const struct line_count *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* lines_tally_stacks' walk: each node's line (FILE 0: none or not in F);
 * the tally's MARK counts the nodes of the path that hold an entry's line. */
struct lines_walk {
    struct lines_tally *t;
    const struct stack_tree *tree;
    uint32_t *file, *line;
};

static void lines_walk_enter(void *arg, uint32_t id)
{
    struct lines_walk *w = arg;
    if (w->file[id] == 0)
        return;
    size_t k = lines_tally_slot(w->t, w->file[id], w->line[id]);
    if (w->t->mark[k]++ == 0)
        w->t->e[k].total = session_sat_add(w->t->e[k].total, w->tree->under[id]);
}

static void lines_walk_leave(void *arg, uint32_t id)
{
    struct lines_walk *w = arg;
    if (w->file[id] != 0)
        w->t->mark[lines_tally_slot(w->t, w->file[id], w->line[id])]--;
}

/* Add the Totals the stacks give: every line on a stack that is in F (any
 * when F is negative), once for each of its samples (stack_tree_walk; each
 * stack walked to its root was 409 million steps for a broom of 100,000
 * stacks 4,096 deep, 5.4 s for --report --lines). */
static void lines_tally_stacks(struct session *s, struct lines_tally *t, int64_t f)
{
    size_t n = s->nstacks;
    struct stack_tree tree;
    stack_tree_make(s, &tree);
    /* The line of each node with samples under it, its entry made now: the
     * table grows no more during the walk. */
    struct lines_walk w = {t, &tree, xcalloc(n + 1, sizeof *w.file),
                           xcalloc(n + 1, sizeof *w.line)};
    for (size_t id = 1; id < n; id++) {
        if (tree.under[id] == 0)
            continue;
        int64_t nf = session_stack_func(s, (uint32_t)id);
        if (nf < 0 || (f >= 0 && nf != f))
            continue;
        const struct stack_node *nd = &s->stacks[id];
        lines_level_place(s, lines_lookup(s, nd->module, nd->offset), nd->level, &w.file[id],
                          &w.line[id]);
        uint32_t *mark;
        if (w.file[id] != 0)
            lines_tally_get(t, w.file[id], w.line[id], nf, &mark);
    }
    for (size_t i = 0; i < t->alloc; i++)
        t->mark[i] = 0;
    stack_tree_walk(s, &tree, lines_walk_enter, lines_walk_leave, &w);
    stack_tree_free(&tree);
    free(w.file);
    free(w.line);
}

struct line_count *line_counts(struct session *s, int64_t f, size_t *n)
{
    session_totals(s);
    struct lines_tally t = {NULL, NULL, 0, 0};
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module == UINT32_MAX || h->count == 0 || h->func < 0)
            continue;
        const struct srcloc *loc = lines_lookup(s, h->module, h->offset);
        if (loc == NULL)
            continue;
        uint32_t *mark;
        if (f < 0 || h->func == f)
            lines_tally_get(&t, loc->file, loc->line, h->func, &mark)->self += h->count;
        if (s->has_stacks || s->no_inline || loc->ninl == 0)
            continue;
        /* No stacks: the lines that called inlined code are on the sample's
         * stack all the same. */
        int64_t real = session_resolve(s, h->module, h->offset);
        for (uint32_t level = 0; level < loc->ninl && real >= 0; level++) {
            int64_t lf = lines_level_func(s, loc, level, real);
            if (f >= 0 && lf != f)
                continue;
            uint32_t file, line;
            lines_level_place(s, loc, level, &file, &line);
            if (file != 0)
                lines_tally_get(&t, file, line, lf, &mark)->total += h->count;
            loc = lines_lookup(s, h->module, h->offset); /* the table may have moved */
        }
    }
    if (s->has_stacks)
        lines_tally_stacks(s, &t, f);
    struct line_count *out = xcalloc(t.n + 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < t.alloc; i++) {
        if (t.e[i].file == 0)
            continue;
        out[k] = t.e[i];
        if (!s->has_stacks)
            out[k].total += out[k].self;
        else if (out[k].total < out[k].self)
            out[k].total = out[k].self; /* samples that carry no stack */
        k++;
    }
    free(t.e);
    free(t.mark);
    if (k > 1)
        qsort(out, k, sizeof *out, lines_count_cmp);
    *n = k;
    return out;
}
