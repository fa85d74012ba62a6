/*
 * Views of the stack table: the callers and callees of one function (pprof's
 * peek, perf report -G) and the whole call tree, top-down or inverted.
 */
#include "config.h"

#include "analysis/calltree.h"
#include "session/limits.h"
#include "session/session.h"
#include "session/stacks.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>

static int link_cmp(const void *a, const void *b)
{
    const struct func_link *x = a, *y = b;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return x->func < y->func ? -1 : x->func > y->func;
}

/* session_links' walk: KEY[id] is the function node ID links to F (its
 * caller's when ID is F's, its own when its caller is F), or KEY_NONE; the
 * functions are indexed from 1, so that -1 (unnamed, or no caller, or no
 * callee: F running) is 0.  MARK counts a key's nodes on the path, SUM its
 * samples, once each. */
#define KEY_NONE UINT32_MAX
struct links_walk {
    const struct stack_tree *t;
    uint32_t *key;
    uint32_t *mark;
    uint64_t *sum;
    uint64_t *leaf; /* by node: samples ending in F there, for callees */
};

static void links_enter(void *arg, uint32_t id)
{
    struct links_walk *w = arg;
    uint32_t k = w->key[id];
    if (k != KEY_NONE && w->mark[k]++ == 0)
        w->sum[k] = session_sat_add(w->sum[k], w->t->under[id]);
    /* A sample that ends here, in F, has no callee: -1, unless the path
     * gave it -1 already (an unnamed callee above). */
    if (w->leaf != NULL && w->leaf[id] > 0 && w->mark[0] == 0)
        w->sum[0] = session_sat_add(w->sum[0], w->leaf[id]);
}

static void links_leave(void *arg, uint32_t id)
{
    struct links_walk *w = arg;
    if (w->key[id] != KEY_NONE)
        w->mark[w->key[id]]--;
}

static struct func_link *session_links(struct session *s, int64_t f, bool callers, size_t *n)
{
    session_totals(s);
    struct func_link *links = NULL;
    *n = 0;
    size_t ns = s->nstacks, nk = s->nfuncs + 1;
    struct stack_tree t;
    stack_tree_make(s, &t);
    struct links_walk w = {&t, xcalloc(ns + 1, sizeof *w.key), xcalloc(nk, sizeof *w.mark),
                           xcalloc(nk, sizeof *w.sum),
                           callers ? NULL : xcalloc(ns + 1, sizeof *w.leaf)};
    for (size_t id = 0; id <= ns; id++)
        w.key[id] = KEY_NONE;
    for (size_t id = 1; id < ns && f >= 0; id++) {
        const struct stack_node *nd = &s->stacks[id];
        int64_t pf = nd->parent != 0 && nd->parent < id ? s->stacks[nd->parent].func : -1;
        int64_t key = -2;
        if (callers && nd->func == f)
            key = pf;
        else if (!callers && nd->parent != 0 && pf == f)
            key = nd->func;
        if (key >= -1 && key < (int64_t)s->nfuncs)
            w.key[id] = (uint32_t)(key + 1);
        if (!callers && nd->func == f)
            w.leaf[id] = s->view.stack_count[id];
    }
    stack_tree_walk(s, &t, links_enter, links_leave, &w);
    /* F's own samples that carry no stack: F running, no callee known. */
    if (f >= 0 && (size_t)f < s->nfuncs && !callers && s->funcs[f].samples > w.sum[0])
        w.sum[0] = s->funcs[f].samples;
    for (size_t k = 0; k < nk; k++) {
        if (w.sum[k] == 0)
            continue;
        links = xreallocarray(links, *n + 1, sizeof *links);
        links[(*n)++] = (struct func_link){(int64_t)k - 1, w.sum[k]};
    }
    stack_tree_free(&t);
    free(w.key);
    free(w.mark);
    free(w.sum);
    free(w.leaf);
    if (*n > 1)
        qsort(links, *n, sizeof *links, link_cmp);
    return links;
}

struct func_link *session_callers(struct session *s, int64_t f, size_t *n)
{
    return session_links(s, f, true, n);
}

struct func_link *session_callees(struct session *s, int64_t f, size_t *n)
{
    return session_links(s, f, false, n);
}

/* The frames walking every stack with samples (with THREADS, each
 * thread's) costs when each is cut at CAP frames (0: none); *DEEPEST, the
 * deepest stack's depth. */
static uint64_t depth_cost(const struct session *s, bool threads, uint32_t cap, uint32_t *deepest)
{
    uint64_t sum = 0;
    *deepest = 0;
    for (size_t id = 1; id < s->nstacks; id++) {
        uint32_t d = s->stacks[id].depth;
        if (s->view.stack_count[id] == 0)
            continue;
        sum += cap > 0 && d > cap ? cap : d;
        if (d > *deepest)
            *deepest = d;
    }
    for (size_t i = 0; threads && i < s->tstacks.alloc; i++) {
        const struct tid_count *t = &s->tstacks.slots[i];
        if (t->tid == 0 || t->count == 0 || t->key >= s->nstacks)
            continue;
        uint32_t d = s->stacks[t->key].depth;
        sum += cap > 0 && d > cap ? cap : d;
        if (d > *deepest)
            *deepest = d;
    }
    return sum;
}

uint32_t session_depth_cap(const struct session *s, bool threads)
{
    uint64_t budget = LIMIT_WALK_FRAMES + (uint64_t)LIMIT_WALK_PER_NODE * s->nstacks;
    uint32_t deepest;
    if (depth_cost(s, threads, 0, &deepest) <= budget)
        return 0;
    /* The deepest cut that fits: the cost grows with the cut. */
    uint32_t lo = 1, hi = deepest;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (depth_cost(s, threads, mid, &deepest) <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Where the child of node P for FUNC is, or goes, in the index of T. */
static uint32_t *tree_slot(struct calltree *t, uint32_t p, int64_t func)
{
    uint64_t h = ((uint64_t)p * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)func * 0xc2b2ae3d27d4eb4full);
    size_t mask = t->index_alloc - 1;
    for (size_t k = (h ^ (h >> 29)) & mask;; k = (k + 1) & mask) {
        uint32_t c = t->index[k];
        if (c == 0 || (t->nodes[c].parent == p && t->nodes[c].func == func))
            return &t->index[k];
    }
}

/* The child of node P for FUNC, made if missing: looked up in a hash, as a
 * node with a hundred thousand callees must not cost a scan of them each. */
static uint32_t tree_child(struct calltree *t, uint32_t p, int64_t func)
{
    if (2 * (t->n + 1) > t->index_alloc) {
        free(t->index);
        t->index_alloc = t->index_alloc ? 2 * t->index_alloc : 1024;
        t->index = xcalloc(t->index_alloc, sizeof *t->index);
        for (uint32_t i = 1; i < t->n; i++)
            *tree_slot(t, t->nodes[i].parent, t->nodes[i].func) = i;
    }
    uint32_t *slot = tree_slot(t, p, func);
    if (*slot != 0)
        return *slot;
    if (t->n == t->alloc) {
        t->alloc = t->alloc ? 2 * t->alloc : 256;
        t->nodes = xreallocarray(t->nodes, t->alloc, sizeof *t->nodes);
    }
    uint32_t c = (uint32_t)t->n++;
    t->nodes[c] =
        (struct calltree_node){func, p, 0, t->nodes[p].child, t->nodes[p].depth + 1, 0, 0};
    t->nodes[p].child = c;
    *slot = c;
    return c;
}

/* Nodes of the tree ARG by total, most first. */
static int tree_cmp(const void *a, const void *b, void *arg)
{
    const struct calltree *t = arg;
    const struct calltree_node *x = &t->nodes[*(const uint32_t *)a];
    const struct calltree_node *y = &t->nodes[*(const uint32_t *)b];
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->func < y->func ? -1 : x->func > y->func;
}

/* Order every node's children by total, most first. */
static void tree_sort(struct calltree *t)
{
    uint32_t *kids = xcalloc(t->n ? t->n : 1, sizeof *kids);
    for (size_t p = 0; p < t->n; p++) {
        size_t k = 0;
        for (uint32_t c = t->nodes[p].child; c != 0; c = t->nodes[c].next)
            kids[k++] = c;
        if (k < 2)
            continue;
        qsort_r(kids, k, sizeof *kids, tree_cmp, t);
        t->nodes[p].child = kids[0];
        for (size_t i = 0; i + 1 < k; i++)
            t->nodes[kids[i]].next = kids[i + 1];
        t->nodes[kids[k - 1]].next = 0;
    }
    free(kids);
}

/* Add C samples along PATH (functions, in the order the tree descends):
 * their own time at its end, or inverted at its start, the function where
 * they ended. */
static void tree_add(struct calltree *t, const int64_t *path, size_t n, uint64_t c)
{
    uint32_t node = 0, first = 0;
    t->nodes[0].total += c;
    for (size_t i = 0; i < n; i++) {
        node = tree_child(t, node, path[i]);
        t->nodes[node].total += c;
        if (i == 0)
            first = node;
    }
    t->nodes[t->inverted ? first : node].self += c;
}

struct calltree *session_calltree(struct session *s, bool inverted)
{
    if (!s->has_stacks)
        return NULL;
    session_totals(s);
    struct calltree *t = xcalloc(1, sizeof *t);
    t->inverted = inverted;
    t->alloc = 256;
    t->nodes = xcalloc(t->alloc, sizeof *t->nodes);
    t->nodes[0] = (struct calltree_node){-1, 0, 0, 0, 0, 0, 0};
    t->n = 1;
    size_t path_alloc = 64;
    int64_t *path = xcalloc(path_alloc, sizeof *path);
    uint64_t *leaf = xcalloc(s->nfuncs + 1, sizeof *leaf);
    uint32_t cap = session_depth_cap(s, false);
    for (size_t id = 1; id < s->nstacks; id++) {
        uint64_t c = s->view.stack_count[id];
        if (c == 0)
            continue;
        uint32_t depth = s->stacks[id].depth;
        if (cap > 0 && depth > cap)
            depth = cap; /* the innermost frames, as perf's --max-stack */
        if (depth > path_alloc) {
            path_alloc = depth;
            path = xreallocarray(path, path_alloc, sizeof *path);
        }
        /* Outermost first; a frame no function names yet is left out. */
        size_t k = depth, n = 0;
        for (uint32_t j = (uint32_t)id; j != 0 && k > 0; j = s->stacks[j].parent)
            path[--k] = s->stacks[j].func;
        for (size_t i = 0; i < depth; i++) {
            if (path[i] >= 0)
                path[n++] = path[i];
        }
        if (n > 0 && s->stacks[id].func >= 0)
            leaf[s->stacks[id].func] += c;
        if (inverted) {
            for (size_t i = 0; i < n / 2; i++) {
                int64_t x = path[i];
                path[i] = path[n - 1 - i];
                path[n - 1 - i] = x;
            }
        }
        tree_add(t, path, n, c);
    }
    /* Samples that carry no stack: their function alone. */
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (s->funcs[i].samples > leaf[i]) {
            int64_t f = (int64_t)i;
            tree_add(t, &f, 1, s->funcs[i].samples - leaf[i]);
        }
    }
    free(leaf);
    free(path);
    free(t->index);
    t->index = NULL;
    t->index_alloc = 0;
    tree_sort(t);
    return t;
}

void calltree_free(struct calltree *t)
{
    if (t == NULL)
        return;
    free(t->nodes);
    free(t);
}
