/*
 * callgrind's profile format (valgrind's "Callgrind Format Specification",
 * version 1), read by callgrind_annotate and KCachegrind: one event, the
 * samples; each function's self samples at the source lines they fell on;
 * and a call arc for each caller -> callee pair seen in the stacks, from the
 * line of the call.
 *
 * What an arc holds (docs/exports.md): calls= is the number of samples in
 * which that call (caller, line, callee) appears, once a sample however
 * often a recursion repeats it; its cost is the samples whose outermost
 * occurrence of the callee it leads to, so that each function's inclusive
 * cost is counted once a sample, as the report's Total is.  The samples in
 * which a function is the outermost frame while elsewhere it is called (a
 * sample without a stack, a recursion at the root) reach it from a caller
 * named [root], without which callgrind_annotate --inclusive=yes, which sums
 * the calls into a function, would miss them.
 */
#include "config.h"

#include "export/export.h"
#include "elf/module.h"
#include "session/lines.h"
#include "session/stacks.h"
#include "util/xmalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLGRIND_NONE SIZE_MAX /* no callee: a self cost line */

/* A function as the file names it, by export_key. */
struct callgrind_fn {
    struct export_frame frame; /* one frame of it, for its names */
    bool used;
    bool called;      /* an arc leads to it */
    uint64_t stamp;   /* the export sample that last saw it, + 1 */
    uint64_t root;    /* samples in which its outermost frame had no caller */
    const char *file; /* its source file, else "???"; borrowed */
    uint32_t line;    /* where it is declared, 0 unknown */
    uint32_t source;  /* its source file's id in lines (0: none) */
    uint32_t fl_id, fn_id, ob_id;
    uint32_t twin; /* 0, or N > 1 for the Nth function of the same file and name */
};

/* A cost line: FN's self samples at LINE, or (CALLEE set) its call from
 * LINE to CALLEE. */
struct callgrind_cost {
    size_t fn;
    size_t callee;
    uint32_t line;
    uint64_t calls;
    uint64_t cost;
    uint64_t stamp;
};

struct callgrind {
    struct session *s;
    struct callgrind_fn *fns;
    size_t nkeys;
    size_t root_key; /* [root]'s: one past the export keys */
    struct callgrind_cost *costs;
    size_t ncosts, costs_alloc;
    size_t *index; /* open addressing: cost index + 1, 0 empty */
    size_t index_alloc;
    uint64_t stamp;
    size_t *keys; /* one sample's function keys and lines */
    uint32_t *lines;
    size_t frames_alloc;
};

static uint64_t callgrind_hash(size_t fn, size_t callee, uint32_t line)
{
    uint64_t h = (uint64_t)fn * 0x9e3779b97f4a7c15ull ^ (uint64_t)callee * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)line * 0x165667b19e3779f9ull;
    return h ^ (h >> 31);
}

/* The cost line (FN, LINE, CALLEE), made on first use. */
static struct callgrind_cost *callgrind_cost(struct callgrind *w, size_t fn, uint32_t line,
                                             size_t callee)
{
    if (2 * (w->ncosts + 1) > w->index_alloc) {
        free(w->index);
        w->index_alloc = w->index_alloc ? 2 * w->index_alloc : 1024;
        w->index = xcalloc(w->index_alloc, sizeof *w->index);
        size_t mask = w->index_alloc - 1;
        for (size_t i = 0; i < w->ncosts; i++) {
            const struct callgrind_cost *c = &w->costs[i];
            size_t k = callgrind_hash(c->fn, c->callee, c->line) & mask;
            while (w->index[k] != 0)
                k = (k + 1) & mask;
            w->index[k] = i + 1;
        }
    }
    size_t mask = w->index_alloc - 1;
    size_t k = callgrind_hash(fn, callee, line) & mask;
    for (; w->index[k] != 0; k = (k + 1) & mask) {
        struct callgrind_cost *c = &w->costs[w->index[k] - 1];
        if (c->fn == fn && c->callee == callee && c->line == line)
            return c;
    }
    if (w->ncosts == w->costs_alloc) {
        w->costs_alloc = w->costs_alloc ? 2 * w->costs_alloc : 1024;
        w->costs = xreallocarray(w->costs, w->costs_alloc, sizeof *w->costs);
    }
    w->costs[w->ncosts] = (struct callgrind_cost){fn, callee, line, 0, 0, 0};
    w->index[k] = ++w->ncosts;
    return &w->costs[w->ncosts - 1];
}

/* FR's function, its names looked up on first use. */
static size_t callgrind_fn(struct callgrind *w, const struct export_frame *fr)
{
    size_t key = export_key(w->s, fr);
    struct callgrind_fn *f = &w->fns[key];
    if (!f->used) {
        f->used = true;
        f->frame = *fr;
        uint32_t file = 0, line = 0;
        if (fr->func >= 0 && (size_t)fr->func < w->s->nfuncs &&
            lines_func_place(w->s, fr->func, &file, &line) && file != 0) {
            f->file = lines_file(w->s, file);
            f->line = line;
            f->source = file;
        } else {
            f->file = "???";
        }
    }
    return key;
}

/* The line of FR's code in its function's own file, 0 when unknown: the
 * leaf's line, or the line a caller called from. */
static uint32_t callgrind_line(struct callgrind *w, const struct export_frame *fr, size_t key)
{
    if (fr->module >= w->s->nmodules || w->fns[key].source == 0)
        return 0;
    const struct srcloc *loc = lines_lookup(w->s, fr->module, fr->offset);
    if (loc == NULL)
        return 0;
    uint32_t file, line;
    lines_level_place(w->s, loc, fr->level, &file, &line);
    /* callgrind_annotate takes a function in another file for another
     * function: keep it whole, at line 0. */
    return file == w->fns[key].source ? line : 0;
}

static void callgrind_sample(const struct export_frame *frames, size_t n, uint64_t count, void *arg)
{
    struct callgrind *w = arg;
    if (n == 0)
        return;
    w->stamp++;
    if (n > w->frames_alloc) {
        w->frames_alloc = n;
        w->keys = xreallocarray(w->keys, n, sizeof *w->keys);
        w->lines = xreallocarray(w->lines, n, sizeof *w->lines);
    }
    for (size_t k = 0; k < n; k++) {
        w->keys[k] = callgrind_fn(w, &frames[k]);
        w->lines[k] = callgrind_line(w, &frames[k], w->keys[k]);
    }
    for (size_t k = 0; k < n; k++) {
        struct callgrind_fn *f = &w->fns[w->keys[k]];
        bool outermost = f->stamp != w->stamp;
        f->stamp = w->stamp;
        if (k == 0) {
            f->root += count;
            continue;
        }
        f->called = true;
        struct callgrind_cost *c = callgrind_cost(w, w->keys[k - 1], w->lines[k - 1], w->keys[k]);
        if (c->stamp != w->stamp) { /* once a sample, however often it recurs */
            c->stamp = w->stamp;
            c->calls += count;
        }
        if (outermost)
            c->cost += count;
    }
    callgrind_cost(w, w->keys[n - 1], w->lines[n - 1], CALLGRIND_NONE)->cost += count;
}

/* One line of TEXT for the file: a line break or other control byte in a
 * name would end the line, so it becomes '?'. */
static void callgrind_put(FILE *out, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        putc(*p < 0x20 || *p == 0x7f ? '?' : *p, out);
}

/* "SPEC=(ID) NAME" the first time ID is written, "SPEC=(ID)" after. */
static void callgrind_name(FILE *out, const char *spec, uint32_t id, const char *name,
                           uint32_t twin, bool *defined)
{
    fprintf(out, "%s=(%" PRIu32 ")", spec, id);
    if (!*defined) {
        putc(' ', out);
        callgrind_put(out, *name != '\0' ? name : "???"); /* "" would be a reference */
        if (twin > 1)
            fprintf(out, "'%" PRIu32, twin);
        *defined = true;
    }
    putc('\n', out);
}

static const char *callgrind_fn_name(const struct callgrind *w, size_t key)
{
    return key == w->root_key ? "[root]" : export_frame_name(w->s, &w->fns[key].frame);
}

static const char *callgrind_ob_name(const struct callgrind *w, size_t key)
{
    if (key == w->root_key)
        return "???";
    const char *path = export_frame_file(w->s, &w->fns[key].frame);
    return path != NULL ? path : "???";
}

/* Functions by file, then name: numbered in that order, and two of the
 * same file and name side by side. */
static int callgrind_by_name(const void *a, const void *b, void *arg)
{
    const struct callgrind *w = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int r = strcmp(w->fns[x].file, w->fns[y].file);
    if (r == 0)
        r = strcmp(callgrind_fn_name(w, x), callgrind_fn_name(w, y));
    return r != 0 ? r : x < y ? -1 : x > y;
}

static int callgrind_by_fn(const void *a, const void *b)
{
    const struct callgrind_cost *x = a, *y = b;
    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    if (x->callee != y->callee) /* self lines first, then the calls */
        return x->callee == CALLGRIND_NONE   ? -1
               : y->callee == CALLGRIND_NONE ? 1
               : x->callee < y->callee       ? -1
                                             : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Number the files, objects and functions in name order, and tell apart
 * two functions that would have the same file and name. */
static void callgrind_number(struct callgrind *w)
{
    size_t *order = xcalloc(w->nkeys + 1, sizeof *order);
    size_t n = 0;
    for (size_t key = 0; key <= w->nkeys; key++) {
        if (w->fns[key].used)
            order[n++] = key;
    }
    qsort_r(order, n, sizeof *order, callgrind_by_name, w);
    uint32_t fl = 0, fn = 0, ob = 0;
    size_t *obs = xcalloc(w->s->nmodules + 1, sizeof *obs); /* module's ob id */
    for (size_t i = 0; i < n; i++) {
        struct callgrind_fn *f = &w->fns[order[i]];
        const struct callgrind_fn *prev = i > 0 ? &w->fns[order[i - 1]] : NULL;
        bool same_file = prev != NULL && strcmp(prev->file, f->file) == 0;
        f->fl_id = same_file ? prev->fl_id : ++fl;
        f->fn_id = ++fn;
        f->twin = same_file && strcmp(callgrind_fn_name(w, order[i - 1]),
                                      callgrind_fn_name(w, order[i])) == 0
                      ? (prev->twin ? prev->twin : 1) + 1
                      : 0;
        uint32_t m = order[i] == w->root_key ? UINT32_MAX
                     : f->frame.func >= 0 && (size_t)f->frame.func < w->s->nfuncs
                         ? w->s->funcs[f->frame.func].module
                         : f->frame.module;
        size_t slot = m < w->s->nmodules ? m : w->s->nmodules;
        if (obs[slot] == 0)
            obs[slot] = ++ob;
        f->ob_id = (uint32_t)obs[slot];
    }
    free(obs);
    free(order);
}

void export_callgrind(struct session *s, FILE *out)
{
    struct callgrind w = {.s = s};
    session_totals(s); /* may add functions: size the keys after it */
    w.nkeys = export_nkeys(s);
    w.root_key = w.nkeys;
    w.fns = xcalloc(w.nkeys + 1, sizeof *w.fns);
    uint64_t total = export_walk(s, callgrind_sample, &w);

    /* The samples that reach a called function at the root come from
     * [root]; a function never called is whole without. */
    for (size_t key = 0; key < w.nkeys; key++) {
        struct callgrind_fn *f = &w.fns[key];
        if (!f->used || !f->called || f->root == 0)
            continue;
        if (!w.fns[w.root_key].used)
            w.fns[w.root_key] = (struct callgrind_fn){.used = true, .file = "???"};
        struct callgrind_cost *c = callgrind_cost(&w, w.root_key, 0, key);
        c->calls = c->cost = f->root;
    }
    callgrind_number(&w);
    if (w.ncosts > 1) /* none: w.costs is NULL, which qsort may not be given */
        qsort(w.costs, w.ncosts, sizeof *w.costs, callgrind_by_fn);

    fputs("# callgrind format\nversion: 1\ncreator: profil " PACKAGE_VERSION "\n", out);
    fputs("cmd: ", out);
    callgrind_put(out, s->program != NULL ? s->program : "?");
    for (size_t i = 0; i < s->nargs; i++) {
        putc(' ', out);
        callgrind_put(out, s->args[i]);
    }
    putc('\n', out);
    const char *clock = s->clock == CLOCK_KIND_CPU ? "cpu" : "wall";
    fprintf(out, "desc: Clock: %s, a sample every %" PRIu32 " us\n", clock, s->interval_us);
    fputs("positions: line\n", out);
    fprintf(out, "event: Samples : samples of the %s clock\n", clock);
    fputs("events: Samples\n", out);
    fprintf(out, "summary: %" PRIu64 "\n", total);

    bool *fl_done = xcalloc(w.nkeys + 2, sizeof *fl_done);
    bool *fn_done = xcalloc(w.nkeys + 2, sizeof *fn_done);
    bool *ob_done = xcalloc(w.nkeys + 2, sizeof *ob_done);
    size_t prev = SIZE_MAX;
    uint32_t ob = 0, fl = 0; /* the object and file the lines are in: ids from 1 */
    for (size_t i = 0; i < w.ncosts; i++) {
        const struct callgrind_cost *c = &w.costs[i];
        const struct callgrind_fn *f = &w.fns[c->fn];
        if (c->fn != prev) {
            putc('\n', out);
            if (f->ob_id != ob)
                callgrind_name(out, "ob", f->ob_id, callgrind_ob_name(&w, c->fn), 0,
                               &ob_done[f->ob_id]);
            if (f->fl_id != fl)
                callgrind_name(out, "fl", f->fl_id, f->file, 0, &fl_done[f->fl_id]);
            callgrind_name(out, "fn", f->fn_id, callgrind_fn_name(&w, c->fn), f->twin,
                           &fn_done[f->fn_id]);
            prev = c->fn;
            ob = f->ob_id;
            fl = f->fl_id;
        }
        if (c->callee == CALLGRIND_NONE) {
            fprintf(out, "%" PRIu32 " %" PRIu64 "\n", c->line, c->cost);
            continue;
        }
        const struct callgrind_fn *g = &w.fns[c->callee];
        callgrind_name(out, "cob", g->ob_id, callgrind_ob_name(&w, c->callee), 0,
                       &ob_done[g->ob_id]);
        callgrind_name(out, "cfl", g->fl_id, g->file, 0, &fl_done[g->fl_id]);
        callgrind_name(out, "cfn", g->fn_id, callgrind_fn_name(&w, c->callee), g->twin,
                       &fn_done[g->fn_id]);
        fprintf(out, "calls=%" PRIu64 " %" PRIu32 "\n%" PRIu32 " %" PRIu64 "\n", c->calls, g->line,
                c->line, c->cost);
    }
    fprintf(out, "\ntotals: %" PRIu64 "\n", total);

    free(fl_done);
    free(fn_done);
    free(ob_done);
    free(w.fns);
    free(w.costs);
    free(w.index);
    free(w.keys);
    free(w.lines);
}
