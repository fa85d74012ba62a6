/*
 * The call stacks in text: the call tree as perf report --stdio prints it,
 * and collapsed stacks for flame graph tools.
 */
#include "config.h"

#include "analysis/calltree.h"
#include "report/report.h"
#include "session/limits.h"
#include "util/pct.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The deepest level of T to print so that the indentation of the nodes
 * shown (2 columns a level) stays within the walk's budget
 * (session/limits.h): UINT32_MAX when the whole tree fits, as a real run's
 * does.  A chain of 4,096 calls would otherwise print 16 MB of blanks. */
static uint32_t tree_print_depth(const struct session *s, const struct calltree *t)
{
    uint64_t budget = LIMIT_WALK_FRAMES + (uint64_t)LIMIT_WALK_PER_NODE * s->nstacks, sum = 0;
    uint32_t deepest = 0;
    for (size_t i = 0; i < t->n; i++) {
        sum += t->nodes[i].depth;
        if (t->nodes[i].depth > deepest)
            deepest = t->nodes[i].depth;
    }
    if (sum <= budget)
        return UINT32_MAX;
    uint64_t *at = xcalloc((size_t)deepest + 1, sizeof *at);
    for (size_t i = 0; i < t->n; i++)
        at[t->nodes[i].depth]++;
    uint32_t d = 0;
    for (sum = 0; d < deepest && sum + at[d + 1] * (d + 1) <= budget; d++)
        sum += at[d + 1] * (d + 1);
    free(at);
    return d > 0 ? d : 1;
}

static void tree_print(struct session *s, const struct calltree *t, FILE *out, uint32_t i,
                       uint64_t limit, uint64_t whole, uint32_t max_depth)
{
    const struct calltree_node *n = &t->nodes[i];
    if (i != 0) {
        const struct func *f = &s->funcs[n->func];
        const char *mod = s->modules[f->module]->name;
        fprintf(out,
                mod[0] == '[' ? "%7.2f%% %7.2f%%  %*s%s  %s%s\n"
                              : "%7.2f%% %7.2f%%  %*s%s  [%s]%s\n",
                pct_of(n->total, whole), pct_of(n->self, whole), (int)(2 * (n->depth - 1)), "",
                quote(f->name), quote(mod), f->inlined ? " (inlined)" : "");
    }
    size_t hidden = 0;
    uint64_t hidden_total = 0;
    if (n->depth >= max_depth && n->child != 0) {
        uint64_t below = n->total - n->self;
        fprintf(out, "%7.2f%% %8s  %*s(calls deeper than %u levels not shown)\n",
                pct_of(below, whole), "", (int)(2 * n->depth), "", max_depth);
        return;
    }
    for (uint32_t c = n->child; c != 0; c = t->nodes[c].next) {
        if (t->nodes[c].total < limit || t->nodes[c].total == 0) {
            hidden++;
            hidden_total += t->nodes[c].total;
            continue;
        }
        tree_print(s, t, out, c, limit, whole, max_depth);
    }
    if (hidden > 0)
        fprintf(out, "%7.2f%% %8s  %*s(%zu more, each under the limit)\n",
                pct_of(hidden_total, whole), "", (int)(2 * n->depth), "", hidden);
}

void report_tree(struct session *s, FILE *out, bool inverted, double percent_limit)
{
    struct calltree *t = session_calltree(s, inverted);
    if (t == NULL) {
        fprintf(out, "This session has no stacks (it was recorded with --no-stacks, or by a "
                     "profil before 0.2): no call tree.\n");
        return;
    }
    uint64_t whole = s->view.c.total;
    uint64_t limit = (uint64_t)ceil(percent_limit / 100.0 * (double)whole);
    fprintf(out, "# Call tree, %s: %" PRIu64 " samples, paths under %.2f%% hidden\n",
            inverted ? "bottom-up (callers under each function where samples ended)"
                     : "top-down (callees under their callers)",
            whole, percent_limit);
    uint32_t cap = session_depth_cap(s, false), max_depth = tree_print_depth(s, t);
    if (cap > 0)
        fprintf(out,
                "# Stacks deeper than %u frames are cut to their innermost %u: in full they "
                "would cost more than the file allows\n",
                cap, cap);
    if (max_depth != UINT32_MAX)
        fprintf(out,
                "# Calls deeper than %u levels are not shown: in full the tree would print "
                "more than the file allows\n",
                max_depth);
    fprintf(out, "#  Total     Self  Function  [module]\n");
    tree_print(s, t, out, 0, limit, whole, max_depth);
    calltree_free(t);
}
