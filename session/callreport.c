/*
 * The call stacks in text: the call tree as perf report --stdio prints it,
 * and collapsed stacks for flame graph tools.
 */
#include "config.h"

#include "session/report.h"
#include "session/stacks.h"
#include "xmalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double tree_pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void tree_print(struct session *s, const struct calltree *t, FILE *out, uint32_t i,
                       uint64_t limit, uint64_t whole)
{
    const struct calltree_node *n = &t->nodes[i];
    if (i != 0) {
        const struct func *f = &s->funcs[n->func];
        const char *mod = s->modules[f->module]->name;
        fprintf(out, mod[0] == '[' ? "%7.2f%% %7.2f%%  %*s%s  %s\n" : "%7.2f%% %7.2f%%  %*s%s  [%s]\n",
                tree_pct(n->total, whole), tree_pct(n->self, whole), (int)(2 * (n->depth - 1)), "",
                f->name, mod);
    }
    size_t hidden = 0;
    uint64_t hidden_total = 0;
    for (uint32_t c = n->child; c != 0; c = t->nodes[c].next) {
        if (t->nodes[c].total < limit || t->nodes[c].total == 0) {
            hidden++;
            hidden_total += t->nodes[c].total;
            continue;
        }
        tree_print(s, t, out, c, limit, whole);
    }
    if (hidden > 0)
        fprintf(out, "%7.2f%% %8s  %*s(%zu more, each under the limit)\n",
                tree_pct(hidden_total, whole), "", (int)(2 * n->depth), "", hidden);
}

void report_tree(struct session *s, FILE *out, bool inverted, double percent_limit)
{
    struct calltree *t = session_calltree(s, inverted);
    if (t == NULL) {
        fprintf(out, "This session has no stacks (it was recorded with --no-stacks, or by a "
                     "profil before 0.2): no call tree.\n");
        return;
    }
    uint64_t whole = s->c.total;
    uint64_t limit = (uint64_t)ceil(percent_limit / 100.0 * (double)whole);
    fprintf(out, "# Call tree, %s: %" PRIu64 " samples, paths under %.2f%% hidden\n",
            inverted ? "bottom-up (callers under each function where samples ended)"
                     : "top-down (callees under their callers)",
            whole, percent_limit);
    fprintf(out, "#  Total     Self  Function  [module]\n");
    tree_print(s, t, out, 0, limit, whole);
    calltree_free(t);
}

/* NAME as a folded frame: no ';' (the separator) and no newline. */
static void folded_name(FILE *out, const char *name)
{
    for (const char *p = name; *p; p++)
        fputc(*p == ';' ? ':' : *p == '\n' ? ' ' : *p, out);
}

/* One folded line: the frames' names and the samples of every stack that
 * has them (stacks differ by address, lines by name only). */
struct folded_line {
    char *text;
    uint64_t count;
};

static int folded_cmp(const void *a, const void *b)
{
    return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

void report_folded(struct session *s, FILE *out)
{
    session_totals(s);
    uint32_t *ids = NULL;
    size_t alloc = 0, nlines = 0;
    struct folded_line *lines = NULL;
    uint64_t *leaf = xcalloc(s->nfuncs + 1, sizeof *leaf);
    for (size_t id = 1; id < s->nstacks; id++) {
        uint64_t c = s->stack_count[id];
        if (c == 0)
            continue;
        size_t depth = s->stacks[id].depth;
        if (depth > alloc) {
            alloc = depth;
            ids = xreallocarray(ids, alloc, sizeof *ids);
        }
        session_stack_frames(s, (uint32_t)id, ids, alloc);
        char *text = NULL;
        size_t len = 0;
        FILE *line = open_memstream(&text, &len);
        if (line == NULL)
            continue;
        for (size_t k = 0; k < depth; k++) {
            int64_t f = s->stacks[ids[k]].func;
            if (k > 0)
                fputc(';', line);
            if (f >= 0) {
                folded_name(line, s->funcs[f].name);
                if (s->modules[s->funcs[f].module]->kind == MODULE_KERNEL)
                    fputs("_[k]", line); /* flamegraph.pl colours kernel frames */
            } else {
                fputs(s->modules[s->stacks[ids[k]].module]->name, line);
            }
        }
        fclose(line);
        lines = xreallocarray(lines, nlines + 1, sizeof *lines);
        lines[nlines++] = (struct folded_line){text, c};
        int64_t lf = s->stacks[id].func;
        if (lf >= 0)
            leaf[lf] += c;
    }
    /* Samples without a stack: their function alone. */
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (s->funcs[i].samples > leaf[i]) {
            char *text = NULL;
            size_t len = 0;
            FILE *line = open_memstream(&text, &len);
            if (line == NULL)
                continue;
            folded_name(line, s->funcs[i].name);
            fclose(line);
            lines = xreallocarray(lines, nlines + 1, sizeof *lines);
            lines[nlines++] = (struct folded_line){text, s->funcs[i].samples - leaf[i]};
        }
    }
    if (nlines > 1)
        qsort(lines, nlines, sizeof *lines, folded_cmp);
    for (size_t i = 0; i < nlines; i++) {
        uint64_t c = lines[i].count;
        while (i + 1 < nlines && strcmp(lines[i].text, lines[i + 1].text) == 0) {
            free(lines[i].text);
            c += lines[++i].count;
        }
        fprintf(out, "%s %" PRIu64 "\n", lines[i].text, c);
        free(lines[i].text);
    }
    free(lines);
    free(leaf);
    free(ids);
}
