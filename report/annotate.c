#include "config.h"

#include "elf/disasm.h"
#include "elf/source.h"
#include "report/annotate.h"
#include "report/report.h"
#include "session/linecounts.h"
#include "session/lines.h"
#include "session/resolve.h"
#include "session/session.h"
#include "session/stacks.h"
#include "util/pct.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Lines closer than this are one section: the lines between are shown. */
#define ANNOTATE_JOIN 8
/* Lines shown around a counted line of another function's code. */
#define ANNOTATE_CONTEXT 2

/* What is known of one (file, line) of the function. */
struct annotate_tally {
    uint32_t file;
    uint32_t line;
    uint64_t self;
    uint64_t total;
    int64_t callee;
    uint64_t callee_count;
};

struct annotate_build {
    struct annotate_tally *t;
    size_t n, alloc;
};

static struct annotate_tally *annotate_tally(struct annotate_build *b, uint32_t file, uint32_t line)
{
    for (size_t i = b->n; i-- > 0;) { /* few distinct lines: a scan, newest first */
        if (b->t[i].file == file && b->t[i].line == line)
            return &b->t[i];
    }
    if (b->n == b->alloc) {
        b->alloc = b->alloc ? 2 * b->alloc : 64;
        b->t = xreallocarray(b->t, b->alloc, sizeof *b->t);
    }
    b->t[b->n] = (struct annotate_tally){file, line, 0, 0, -1, 0};
    return &b->t[b->n++];
}

static int annotate_tally_cmp(const void *x, const void *y)
{
    const struct annotate_tally *a = x, *b = y;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* One of F's hits: a PC of its code and its samples. */
struct annotate_hit {
    uint64_t offset;
    uint64_t count;
};

static int annotate_hit_cmp(const void *x, const void *y)
{
    const struct annotate_hit *a = x, *b = y;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* The samples at each PC of real function FN's code, sorted by offset. */
static struct annotate_hit *annotate_hits(const struct session *s, const struct func *fn, size_t *n)
{
    size_t k = 0, alloc = 64;
    struct annotate_hit *h = xcalloc(alloc, sizeof *h);
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *x = &s->hits[i];
        if (x->module != fn->module || x->offset < fn->start || x->offset >= fn->end ||
            x->count == 0)
            continue;
        if (k == alloc) {
            alloc *= 2;
            h = xreallocarray(h, alloc, sizeof *h);
        }
        h[k++] = (struct annotate_hit){x->offset, x->count};
    }
    if (k > 1)
        qsort(h, k, sizeof *h, annotate_hit_cmp);
    *n = k;
    return h;
}

/* Whether CALLEE under F is the kernel taking an interrupt or a fault in
 * F's user code, not a call F made (its system calls go through libc). */
static bool annotate_interrupt(const struct session *s, int64_t f, int64_t callee)
{
    return s->modules[s->funcs[callee].module]->kind == MODULE_KERNEL &&
           s->modules[s->funcs[f].module]->kind != MODULE_KERNEL;
}

/* A call out of F: the line of F's frame, the callee, and the samples of
 * the stacks through that call (an edge of the stack table). */
struct annotate_call {
    uint32_t file, line;
    int64_t callee;
    uint64_t samples;
    size_t order; /* the edge's place in the table: ties go to the first */
};

static int annotate_call_cmp(const void *x, const void *y)
{
    const struct annotate_call *a = x, *b = y;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->callee != b->callee)
        return a->callee < b->callee ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* The callee of each of F's lines: of the functions F's frames there call,
 * the one with the most samples under the line (ties: the first in the
 * stack table).  One pass over the table's edges, whose samples are those
 * of the stacks under them (stack_tree_make): every stack walked to its
 * root took 6 s for a broom of 100,000 stacks 4,096 deep. */
static void annotate_callees(struct session *s, int64_t f, struct annotate_build *b)
{
    struct stack_tree t;
    stack_tree_make(s, &t);
    struct annotate_call *c = NULL;
    size_t n = 0, alloc = 0;
    for (size_t k = 1; k < s->nstacks; k++) {
        uint32_t j = s->stacks[k].parent;
        if (t.under[k] == 0 || j == 0 || j >= k || session_stack_func(s, j) != f)
            continue;
        int64_t callee = session_stack_func(s, (uint32_t)k);
        if (callee < 0 || callee == f || annotate_interrupt(s, f, callee))
            continue;
        const struct stack_node *nd = &s->stacks[j];
        uint32_t file, line;
        lines_level_place(s, lines_lookup(s, nd->module, nd->offset), nd->level, &file, &line);
        if (file == 0)
            continue;
        c = xgrowarray(c, &alloc, n + 1, sizeof *c);
        c[n] = (struct annotate_call){file, line, callee, t.under[k], n};
        n++;
    }
    stack_tree_free(&t);
    if (n > 1)
        qsort(c, n, sizeof *c, annotate_call_cmp);
    for (size_t a = 0; a < n;) {
        int64_t who = -1;
        uint64_t best = 0;
        size_t best_order = SIZE_MAX, z = a;
        while (z < n && c[z].file == c[a].file && c[z].line == c[a].line) {
            uint64_t sum = 0;
            size_t first = c[z].order, y = z;
            for (; y < n && c[y].file == c[z].file && c[y].line == c[z].line &&
                   c[y].callee == c[z].callee;
                 y++)
                sum = session_sat_add(sum, c[y].samples);
            if (sum > best || (sum == best && first < best_order)) {
                who = c[z].callee;
                best = sum;
                best_order = first;
            }
            z = y;
        }
        struct annotate_tally *tl = annotate_tally(b, c[a].file, c[a].line);
        tl->callee = who;
        tl->callee_count = best;
        a = z;
    }
    free(c);
}

static void annotate_row(struct annotation *a, size_t *alloc, struct annotate_row r)
{
    if (a->nrows == *alloc) {
        *alloc = *alloc ? 2 * *alloc : 128;
        a->rows = xreallocarray(a->rows, *alloc, sizeof *a->rows);
    }
    a->rows[a->nrows++] = r;
}

static const struct annotate_tally *annotate_find(const struct annotate_build *b, uint32_t file,
                                                  uint32_t line)
{
    struct annotate_tally key = {file, line, 0, 0, -1, 0};
    return b->n ? bsearch(&key, b->t, b->n, sizeof key, annotate_tally_cmp) : NULL;
}

/* A LINE row for (FILE, LINE) with what B knows of it. */
static struct annotate_row annotate_line_row(const struct annotate_build *b, uint32_t file,
                                             uint32_t line)
{
    const struct annotate_tally *t = annotate_find(b, file, line);
    return (struct annotate_row){ANNOTATE_LINE,      file, line, t ? t->self : 0, t ? t->total : 0,
                                 t ? t->callee : -1, NULL};
}

/* Note file id FILE in A's files, looking for its text once. */
static const struct annotate_file *annotate_add_file(struct session *s, struct annotation *a,
                                                     uint32_t file)
{
    const struct annotate_file *have = annotate_file_of(a, file);
    if (have != NULL)
        return have;
    a->files = xreallocarray(a->files, a->nfiles + 1, sizeof *a->files);
    struct annotate_file *af = &a->files[a->nfiles++];
    af->file = file;
    af->where = NULL;
    af->src = lines_source(s, file, &af->where);
    return af;
}

struct annotate_range {
    uint32_t lo, hi;
};

static int annotate_range_cmp(const void *x, const void *y)
{
    const struct annotate_range *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The source rows: the function's own lines, then each other file's counted
 * lines with some context, in sections. */
static void annotate_source_rows(struct session *s, struct annotation *a,
                                 const struct annotate_build *b, uint32_t line0, uint32_t line1)
{
    size_t alloc = 0;
    /* The files in order: the function's own first. */
    uint32_t *files = xcalloc(b->n + 2, sizeof *files);
    size_t nf = 0;
    if (a->file != 0)
        files[nf++] = a->file;
    for (size_t i = 0; i < b->n; i++) {
        if (b->t[i].file != a->file && (nf == 0 || files[nf - 1] != b->t[i].file))
            files[nf++] = b->t[i].file;
    }
    struct annotate_range *r = xcalloc(b->n + 2, sizeof *r);
    for (size_t k = 0; k < nf; k++) {
        uint32_t file = files[k];
        const struct annotate_file *af = annotate_add_file(s, a, file);
        uint32_t nlines = af->src != NULL ? af->src->nlines : 0;
        size_t nr = 0;
        if (file == a->file && line0 > 0 && nlines > 0) {
            uint32_t hi = line1 > line0 ? line1 : line0;
            r[nr++] = (struct annotate_range){line0, hi < nlines ? hi : nlines};
        }
        for (size_t i = 0; i < b->n; i++) {
            uint32_t l = b->t[i].line;
            if (b->t[i].file != file)
                continue;
            if (nlines == 0 || l > nlines)
                r[nr++] = (struct annotate_range){l, l}; /* no text: the line alone */
            else
                r[nr++] = (struct annotate_range){
                    l > ANNOTATE_CONTEXT ? l - ANNOTATE_CONTEXT : 1,
                    l + ANNOTATE_CONTEXT < nlines ? l + ANNOTATE_CONTEXT : nlines};
        }
        if (nr > 1)
            qsort(r, nr, sizeof *r, annotate_range_cmp);
        annotate_row(a, &alloc, (struct annotate_row){ANNOTATE_FILE, file, 0, 0, 0, -1, NULL});
        uint32_t join = nlines > 0 ? ANNOTATE_JOIN : 1;
        for (size_t i = 0; i < nr;) {
            uint32_t lo = r[i].lo, hi = r[i].hi;
            for (i++; i < nr && r[i].lo <= hi + join; i++)
                hi = r[i].hi > hi ? r[i].hi : hi;
            for (uint32_t l = lo; l <= hi && l != 0; l++) {
                if ((nlines > 0 && l <= nlines) || annotate_find(b, file, l) != NULL)
                    annotate_row(a, &alloc, annotate_line_row(b, file, l));
            }
            if (i < nr)
                annotate_row(a, &alloc,
                             (struct annotate_row){ANNOTATE_GAP, file, 0, 0, 0, -1, NULL});
        }
    }
    free(r);
    free(files);
}

/* The disassembly rows: each instruction, under the line its code is from. */
static void annotate_disasm_rows(struct session *s, struct annotation *a,
                                 const struct annotate_build *b, const struct annotate_hit *hits,
                                 size_t nhits)
{
    /* Its module, not a pointer to it: resolving a call's target may add a
     * function, and s->funcs moves. */
    uint32_t module = s->funcs[a->func].module;
    size_t alloc = 0, k = 0;
    uint32_t pfile = UINT32_MAX, pline = UINT32_MAX;
    for (size_t i = 0; i < a->ninsns; i++) {
        const struct disasm_insn *in = &a->insns[i];
        const struct srcloc *loc = lines_lookup(s, module, in->offset);
        if (loc == NULL && in->size > 1) /* a file keeps a call's return address less one */
            loc = lines_lookup(s, module, in->offset + in->size - 1);
        uint32_t file = loc ? loc->file : 0, line = loc ? loc->line : 0;
        if (file != 0 && (file != pfile || line != pline)) {
            annotate_add_file(s, a, file);
            annotate_row(a, &alloc, annotate_line_row(b, file, line));
        }
        if (file != 0) { /* a PC without a known line stays under the line before */
            pfile = file;
            pline = line;
        } else {
            file = pfile != UINT32_MAX ? pfile : 0;
            line = pline != UINT32_MAX ? pline : 0;
        }
        uint64_t self = 0;
        while (k < nhits && hits[k].offset < in->offset)
            k++;
        for (; k < nhits && hits[k].offset < in->offset + in->size; k++)
            self += hits[k].count;
        int64_t callee = -1;
        if (in->is_call && in->has_target && in->target_offset != UINT64_MAX)
            callee = session_resolve(s, module, in->target_offset);
        annotate_row(a, &alloc,
                     (struct annotate_row){ANNOTATE_INSN, file, line, self, 0, callee, in});
    }
}

/* Rows (indices into the annotation ARG's) by Self, most first. */
static int annotate_hot_cmp(const void *x, const void *y, void *arg)
{
    const struct annotation *an = arg;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    uint64_t a = an->rows[i].self, b = an->rows[j].self;
    if (a != b)
        return a > b ? -1 : 1;
    return i < j ? -1 : i > j;
}

struct annotation *annotate_function(struct session *s, int64_t f, bool disasm)
{
    struct annotation *a = xcalloc(1, sizeof *a);
    a->func = f;
    session_totals(s);
    a->total = s->view.c.total;
    if (f < 0 || (size_t)f >= s->nfuncs) {
        a->lines_why = xstrdup("no such function");
        return a;
    }
    uint32_t file = 0, line = 0;
    lines_func_place(s, f, &file, &line);
    a->file = file;
    const struct func *fn = &s->funcs[f];
    uint32_t line_end = fn->line_end;
    struct annotate_build b = {NULL, 0, 0};

    /* Self and Total of its lines, as its samples and its stacks give them. */
    size_t nc;
    struct line_count *lc = line_counts(s, f, &nc);
    for (size_t i = 0; i < nc; i++) {
        struct annotate_tally *t = annotate_tally(&b, lc[i].file, lc[i].line);
        t->self += lc[i].self;
        t->total += lc[i].total;
    }
    free(lc);
    fn = &s->funcs[f]; /* counting may have added functions */
    size_t nhits = 0;
    struct annotate_hit *hits = NULL;
    if (!fn->inlined) {
        /* Its code's samples on the lines of what was inlined into it. */
        hits = annotate_hits(s, fn, &nhits);
        for (size_t i = 0; i < nhits; i++) {
            a->self += hits[i].count;
            const struct srcloc *loc = lines_lookup(s, fn->module, hits[i].offset);
            if (loc == NULL || loc->ninl == 0)
                continue; /* counted by line_counts as F's own */
            struct annotate_tally *t = annotate_tally(&b, loc->file, loc->line);
            if (s->no_inline)
                continue;
            t->self += hits[i].count;
            if (t->total < t->self)
                t->total = t->self;
        }
    } else {
        a->self = fn->samples;
    }
    if (s->has_stacks)
        annotate_callees(s, f, &b);
    fn = &s->funcs[f]; /* resolving a frame may have added functions too */
    if (b.n > 1)
        qsort(b.t, b.n, sizeof *b.t, annotate_tally_cmp);

    if (file == 0 && b.n == 0) {
        const char *why = lines_module_why(s, fn->module);
        a->lines_why = xstrdup(why ? why : "its debug information names no source line");
    }
    if (disasm && fn->inlined) {
        a->disasm_why = xasprintf("%s is only ever inlined: its code is in its callers'", fn->name);
    } else if (disasm) {
        char *cause = NULL;
        a->insns = disasm_module(s->modules[fn->module], fn->start, fn->end, &a->ninsns, &cause);
        if (a->insns == NULL)
            a->disasm_why = cause ? cause : xstrdup("no disassembly");
    }
    if (a->insns != NULL)
        annotate_disasm_rows(s, a, &b, hits, nhits);
    else
        annotate_source_rows(s, a, &b, line, line_end);
    free(hits);
    free(b.t);

    a->hot = xcalloc(a->nrows + 1, sizeof *a->hot);
    for (size_t i = 0; i < a->nrows; i++) {
        const struct annotate_row *r = &a->rows[i];
        if (r->self > 0 &&
            (r->kind == ANNOTATE_INSN || (r->kind == ANNOTATE_LINE && a->insns == NULL)))
            a->hot[a->nhot++] = i;
    }
    if (a->nhot > 1)
        qsort_r(a->hot, a->nhot, sizeof *a->hot, annotate_hot_cmp, a);
    return a;
}

void annotation_free(struct annotation *a)
{
    if (a == NULL)
        return;
    for (size_t i = 0; i < a->nfiles; i++)
        free(a->files[i].where);
    free(a->files);
    free(a->rows);
    free(a->hot);
    free(a->insns);
    free(a->disasm_why);
    free(a->lines_why);
    free(a);
}

const struct annotate_file *annotate_file_of(const struct annotation *a, uint32_t file)
{
    for (size_t i = 0; i < a->nfiles; i++) {
        if (a->files[i].file == file)
            return &a->files[i];
    }
    return NULL;
}

const char *annotate_text(const struct annotation *a, uint32_t file, uint32_t line, size_t *len)
{
    const struct annotate_file *af = annotate_file_of(a, file);
    *len = 0;
    return af != NULL && af->src != NULL ? source_line(af->src, line, len) : NULL;
}

void annotate_target(struct session *s, const struct annotation *a, const struct disasm_insn *in,
                     char *buf, size_t size)
{
    buf[0] = '\0';
    if (!in->has_target || in->target_offset == UINT64_MAX)
        return;
    const struct func *fn = &s->funcs[a->func];
    int64_t t = session_resolve(s, fn->module, in->target_offset);
    if (t < 0)
        return;
    const struct func *tf = &s->funcs[t];
    if (in->target_offset == tf->start)
        snprintf(buf, size, " <%s>", tf->name);
    else
        snprintf(buf, size, " <%s+0x%" PRIx64 ">", tf->name, in->target_offset - tf->start);
}

void annotate_print(struct session *s, const struct annotation *a, FILE *out)
{
    const struct func *fn = &s->funcs[a->func];
    fprintf(out, "Annotated %s (%s)%s: %" PRIu64 " samples, %.2f%% of %" PRIu64 "\n",
            quote(fn->name), quote(s->modules[fn->module]->name), fn->inlined ? ", inlined" : "",
            a->self, pct_of(a->self, a->total), a->total);
    if (a->lines_why != NULL)
        fprintf(out, "  no source lines: %s\n", quote(a->lines_why));
    if (a->disasm_why != NULL)
        fprintf(out, "  no disassembly: %s\n", quote(a->disasm_why));
    bool calls = s->has_stacks && a->insns == NULL;
    fprintf(out, "%9s %7s %7s %-4s %s%6s  %s\n", "Samples", "%func", "%total", "",
            calls ? "  Total " : "", "Line", "Source");
    int pad = calls ? 44 : 36;
    for (size_t i = 0; i < a->nrows; i++) {
        const struct annotate_row *r = &a->rows[i];
        if (r->kind == ANNOTATE_FILE) {
            const struct annotate_file *af = annotate_file_of(a, r->file);
            fprintf(out, "%*s%s%s%s\n", pad, "", quote(lines_file(s, r->file)),
                    af && af->src == NULL ? "  -- source " : "",
                    af && af->src == NULL && af->where ? quote(af->where) : "");
            continue;
        }
        if (r->kind == ANNOTATE_GAP) {
            fprintf(out, "%*s...\n", pad, "");
            continue;
        }
        double pf = pct_of(r->self, a->self), pt = pct_of(r->self, a->total);
        if (r->self > 0)
            fprintf(out, "%9" PRIu64 " %6.2f%% %6.2f%% %-4.*s ", r->self, pf, pt, report_stars(pt),
                    "****");
        else
            fprintf(out, "%9s %7s %7s %-4s ", "", "", "", "");
        if (calls && r->total > 0)
            fprintf(out, "%6.2f%% ", pct_of(r->total, a->total));
        else if (calls)
            fprintf(out, "%8s", "");
        if (r->kind == ANNOTATE_INSN) {
            char target[160];
            annotate_target(s, a, r->insn, target, sizeof target);
            fprintf(out, "%6s  %8" PRIx64 ":  %s%s\n", "", r->insn->addr, quote(r->insn->text),
                    quote(target));
            continue;
        }
        size_t len;
        const char *text = annotate_text(a, r->file, r->line, &len);
        fprintf(out, "%6u  ", r->line);
        /* Tabs kept; what util/quote.h would escape becomes '?', so that
         * the source keeps its columns.  A line ends in '\n' or '\0', which
         * no character runs past. */
        for (size_t k = 0; text != NULL && k < len;) {
            size_t n = text[k] == '\t' ? 1 : quote_safe_len(text + k);
            if (n == 0)
                fputc('?', out);
            else
                fwrite(text + k, 1, n, out);
            k += n > 0 ? n : 1;
        }
        fputc('\n', out);
    }
}
