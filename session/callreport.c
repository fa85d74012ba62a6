/*
 * The call stacks in text: the call tree as perf report --stdio prints it,
 * and collapsed stacks for flame graph tools.
 */
#include "config.h"

#include "session/report.h"
#include "session/stacks.h"
#include "session/xmalloc.h"

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
        fprintf(out, "%7.2f%% %7.2f%%  %*s%s  [%s]\n", tree_pct(n->total, whole),
                tree_pct(n->self, whole), (int)(2 * (n->depth - 1)), "", f->name,
                s->modules[f->module]->name);
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

void report_folded(struct session *s, FILE *out)
{
    session_totals(s);
    uint32_t *ids = NULL;
    size_t alloc = 0;
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
        bool first = true;
        for (size_t k = 0; k < depth; k++) {
            int64_t f = s->stacks[ids[k]].func;
            if (!first)
                fputc(';', out);
            first = false;
            if (f >= 0) {
                folded_name(out, s->funcs[f].name);
                if (s->modules[s->funcs[f].module]->kind == MODULE_KERNEL)
                    fputs("_[k]", out); /* flamegraph.pl colours kernel frames */
            } else {
                fputs(s->modules[s->stacks[ids[k]].module]->name, out);
            }
        }
        fprintf(out, " %" PRIu64 "\n", c);
        int64_t lf = s->stacks[id].func;
        if (lf >= 0)
            leaf[lf] += c;
    }
    /* Samples without a stack: their function alone. */
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (s->funcs[i].samples > leaf[i]) {
            folded_name(out, s->funcs[i].name);
            fprintf(out, " %" PRIu64 "\n", s->funcs[i].samples - leaf[i]);
        }
    }
    free(leaf);
    free(ids);
}
