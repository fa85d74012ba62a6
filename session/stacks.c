#include "config.h"

#include "elf/unwind.h"
#include "session/addrspace.h"
#include "session/lines.h"
#include "session/model.h"
#include "session/names.h"
#include "session/resolve.h"
#include "session/stacks.h"
#include "util/xmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Frames a stack may have in all: the user part's limit, the kernel's
 * (perf's kernel.perf_event_max_stack is 127 at most by default) and the
 * [unknown] or [truncated] end. */
#define STACK_MAX_KERNEL 512

static uint64_t stack_hash(uint32_t parent, uint32_t module, uint64_t offset, uint32_t level)
{
    uint64_t h = (offset + level) * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)module << 32 | parent) * 0xc2b2ae3d27d4eb4full;
    return h ^ (h >> 29);
}

static uint32_t *stack_slot(struct session *s, uint32_t parent, uint32_t module, uint64_t offset,
                            uint32_t level)
{
    size_t mask = s->stack_index_alloc - 1;
    for (size_t i = stack_hash(parent, module, offset, level) & mask;; i = (i + 1) & mask) {
        uint32_t e = s->stack_index[i];
        if (e == 0)
            return &s->stack_index[i];
        const struct stack_node *n = &s->stacks[e];
        if (n->parent == parent && n->module == module && n->offset == offset && n->level == level)
            return &s->stack_index[i];
    }
}

/* Make room for node ids up to N - 1 in every array indexed by id. */
static void stack_reserve(struct session *s, size_t n)
{
    if (n <= s->stacks_alloc)
        return;
    size_t alloc = s->stacks_alloc ? s->stacks_alloc : 256;
    while (alloc < n)
        alloc *= 2;
    s->stacks = xreallocarray(s->stacks, alloc, sizeof *s->stacks);
    s->view.stack_count = xreallocarray(s->view.stack_count, alloc, sizeof *s->view.stack_count);
    s->view.stack_before_clear =
        xreallocarray(s->view.stack_before_clear, alloc, sizeof *s->view.stack_before_clear);
    size_t old = s->stacks_alloc;
    memset(s->view.stack_count + old, 0, (alloc - old) * sizeof *s->view.stack_count);
    memset(s->view.stack_before_clear + old, 0, (alloc - old) * sizeof *s->view.stack_before_clear);
    s->stacks_alloc = alloc;
}

/* Intern one node: a frame (LEVEL 0) or a function inlined at its PC. */
static uint32_t stack_node_intern(struct session *s, uint32_t parent, uint32_t module,
                                  uint64_t offset, uint32_t level)
{
    if (s->nstacks == 0) {
        stack_reserve(s, 1);
        s->stacks[0] = (struct stack_node){0, UINT32_MAX, 0, -1, 0, 0};
        s->nstacks = 1;
    }
    if (2 * (s->nstacks + 1) > s->stack_index_alloc) {
        free(s->stack_index);
        s->stack_index_alloc = s->stack_index_alloc ? 2 * s->stack_index_alloc : 1024;
        s->stack_index = xcalloc(s->stack_index_alloc, sizeof *s->stack_index);
        for (size_t i = 1; i < s->nstacks; i++) {
            const struct stack_node *n = &s->stacks[i];
            *stack_slot(s, n->parent, n->module, n->offset, n->level) = (uint32_t)i;
        }
    }
    uint32_t *slot = stack_slot(s, parent, module, offset, level);
    if (*slot != 0)
        return *slot;
    if (s->nstacks >= UINT32_MAX - 1)
        return parent; /* four billion distinct stacks: keep the callers */
    stack_reserve(s, s->nstacks + 1);
    uint32_t id = (uint32_t)s->nstacks++;
    uint32_t depth = parent < id ? s->stacks[parent].depth + 1 : 1;
    s->stacks[id] = (struct stack_node){parent, module, offset, -1, depth, level};
    *slot = id;
    return id;
}

uint32_t session_stack_node(struct session *s, uint32_t parent, uint32_t module, uint64_t offset,
                            uint32_t level)
{
    return stack_node_intern(s, parent, module, offset, level);
}

uint32_t session_stack_intern(struct session *s, uint32_t parent, uint32_t module, uint64_t offset)
{
    uint32_t id = stack_node_intern(s, parent, module, offset, 0);
    if (s->no_inline)
        return id;
    /* The functions inlined at this PC are frames too, between it and its
     * callees; all of them or, past STACKS_MAX_INLINE_DEPTH, none. */
    const struct srcloc *loc = lines_lookup(s, module, offset);
    if (loc == NULL || s->stacks[id].depth + loc->ninl > STACKS_MAX_INLINE_DEPTH)
        return id;
    for (uint32_t level = 1; level <= loc->ninl; level++)
        id = stack_node_intern(s, id, module, offset, level);
    return id;
}

/* Count COUNT samples of stack ID, in the frame being ingested too. */
static void stack_add(struct session *s, struct ingest *in, uint32_t id, uint64_t count)
{
    if (in->view) { /* the views show this thread (session/threads.h) */
        s->view.stack_count[id] += count;
        s->cache.totals_dirty = true;
    }
    struct frame *f = in->frame;
    if (f != NULL)
        frame_note(&f->stacks, &f->nstacks, &f->stacks_alloc, &f->stacks_compact, id, count);
}

/* What AS's file mappings are, hashed (never 0). */
static uint64_t stack_maps_sig(const struct addrspace *as)
{
    uint64_t h = 0x84222325cbf29ce4ull;
    for (size_t i = 0; i < as->nmaps; i++) {
        const struct mapping *m = &as->maps[i];
        uint64_t v[4] = {m->start, m->end, m->pgoff, m->module};
        for (int k = 0; k < 4; k++)
            h = (h ^ v[k]) * 0x100000001b3ull;
    }
    return h ? h : 1;
}

/* Give AS's unwinder the file mappings as they are now.  An unwinder shared
 * with a parent or a child serves while their mappings hash alike: 200
 * forked processes read each module's CFI once. */
static void stack_report(struct session *s, struct addrspace *as)
{
    uint64_t sig = stack_maps_sig(as);
    as->unwind_dirty = false;
    if (as->unwinder != NULL && unwind_signature(as->unwinder) == sig)
        return;
    if (unwind_shared(as->unwinder) && unwind_signature(as->unwinder) != 0) {
        unwind_free(as->unwinder); /* its maps are its own now */
        as->unwinder = NULL;
    }
    for (int again = 0; again < 2; again++) {
        if (as->unwinder == NULL)
            as->unwinder = unwind_new();
        unwind_report_begin(as->unwinder);
        for (size_t i = 0; i < as->nmaps; i++) {
            const struct mapping *m = &as->maps[i];
            enum module_kind k = s->modules[m->module]->kind;
            if (k == MODULE_PROGRAM || k == MODULE_LIBRARY || k == MODULE_VDSO)
                unwind_report(as->unwinder, m->start, m->end, m->pgoff,
                              s->modules[m->module]->path);
        }
        if (unwind_report_end(as->unwinder) || again == 1)
            break;
        unwind_free(as->unwinder); /* a library unmapped and another mapped there */
        as->unwinder = NULL;
    }
    unwind_sign(as->unwinder, sig);
}

/* Count COUNT samples of thread TID with stack ID as IN's event. */
static void stack_thread_add(struct session *s, struct ingest *in, uint32_t tid, uint32_t id,
                             uint64_t count)
{
    if (id == 0 || count == 0)
        return;
    struct tid_count *e = tid_table_get(&s->tstacks, tid, id, SIZE_MAX);
    if (e != NULL)
        e->count = session_sat_add(e->count, count);
    frame_tid_note(s, in, true, tid, id, count);
}

void session_count_stack(struct session *s, struct ingest *in, const struct event *ev)
{
    s->has_stacks = true;
    if (ev->type == EVENT_STACK) {
        if (ev->stack.id < s->nstacks)
            stack_add(s, in, ev->stack.id, ev->stack.count);
        return;
    }
    const struct event_stack *st = ev->sample.stack;
    if (s->live.unwind_pcs == NULL)
        s->live.unwind_pcs = xcalloc(UNWIND_MAX_FRAMES, sizeof *s->live.unwind_pcs);
    uint64_t *pcs = s->live.unwind_pcs;
    size_t nu = 0;
    enum unwind_end end = UNWIND_FAILED;
    struct addrspace *as = session_space(s, ev->pid, false);
    if (st->user && as != NULL) {
        /* Its own CPU time: a preemption mid-walk is not what it costs. */
        struct timespec t0, t1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        if (as->unwinder == NULL || as->unwind_dirty)
            stack_report(s, as);
        nu = unwind_user(as->unwinder, ev->tid, st, pcs, UNWIND_MAX_FRAMES, &end);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        int64_t us = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
        if (s->live.unwind_hist == NULL)
            s->live.unwind_hist = xcalloc(UNWIND_HIST_BINS, sizeof *s->live.unwind_hist);
        s->live.unwind_hist[us < 0 ? 0 : us >= UNWIND_HIST_BINS ? UNWIND_HIST_BINS - 1 : us]++;
        s->unwinds++;
    } else if (ev->sample.mode == SAMPLE_USER) {
        pcs[nu++] = ev->sample.pc;
    }
    uint32_t id = 0;
    if (end == UNWIND_FAILED) {
        if (s->unknown_module == UINT32_MAX)
            s->unknown_module = session_module(s, "[unknown]", MODULE_ANON);
        id = session_stack_intern(s, id, s->unknown_module, 0);
    } else if (end == UNWIND_TRUNCATED) {
        if (s->truncated_module == UINT32_MAX)
            s->truncated_module = session_module(s, "[truncated]", MODULE_ANON);
        id = session_stack_intern(s, id, s->truncated_module, 0);
    }
    for (size_t i = nu; i-- > 0;) {
        uint32_t module;
        uint64_t offset;
        session_user_place(s, as, pcs[i], &module, &offset);
        id = session_stack_intern(s, id, module, offset);
    }
    uint32_t nk = st->nkernel < STACK_MAX_KERNEL ? st->nkernel : STACK_MAX_KERNEL;
    if ((nk > 0 || ev->sample.mode == SAMPLE_KERNEL) && s->kernel_module == UINT32_MAX)
        s->kernel_module = session_module(s, "[kernel]", MODULE_KERNEL);
    for (uint32_t i = nk; i-- > 0;)
        id = session_stack_intern(s, id, s->kernel_module, st->kernel[i]);
    /* The stack ends where the sample's hit is: a kernel sample without a
     * callchain still ends in its own PC. */
    if (ev->sample.mode == SAMPLE_KERNEL && nk == 0)
        id = session_stack_intern(s, id, s->kernel_module, ev->sample.pc);
    /* Taken off CPU (the wall clock's waits): a frame of its own on top, so
     * the views can leave waits out (session.view.oncpu) and every export
     * gives them to [blocked], not to the function that waits. */
    if (ev->sample.mode == SAMPLE_BLOCKED && id != 0) {
        if (s->blocked_module == UINT32_MAX)
            s->blocked_module = session_module(s, "[blocked]", MODULE_ANON);
        id = session_stack_intern(s, id, s->blocked_module, 0);
    }
    if (id != 0) {
        stack_add(s, in, id, ev->sample.count);
        stack_thread_add(s, in, ev->tid, id, ev->sample.count);
    }
}

void session_thread_stack(struct session *s, uint32_t tid, uint32_t id, uint64_t count)
{
    stack_thread_add(s, NULL, tid, id, count);
}

void session_stacks_clear(struct session *s)
{
    for (size_t i = 0; i < s->nstacks; i++) {
        s->view.stack_before_clear[i] += s->view.stack_count[i];
        s->view.stack_count[i] = 0;
    }
    tid_table_clear(&s->tstacks);
    s->cache.totals_dirty = true;
}

void session_stacks_reset(struct session *s)
{
    if (s->nstacks > 0) {
        memset(s->view.stack_count, 0, s->nstacks * sizeof *s->view.stack_count);
        memset(s->view.stack_before_clear, 0, s->nstacks * sizeof *s->view.stack_before_clear);
    }
    tid_table_zero(&s->tstacks);
    s->cache.totals_dirty = true;
}

double session_unwind_percentile(const struct session *s, double p)
{
    if (s->unwinds == 0 || s->live.unwind_hist == NULL)
        return 0;
    uint64_t want = (uint64_t)((double)s->unwinds * p / 100.0), seen = 0;
    for (int i = 0; i < UNWIND_HIST_BINS; i++) {
        seen += s->live.unwind_hist[i];
        if (seen > want)
            return i + 0.5; /* the bin's middle */
    }
    return UNWIND_HIST_BINS - 1;
}

void session_stacks_free(struct session *s)
{
    tid_table_free(&s->tstacks);
    free(s->live.unwind_hist);
    free(s->stacks);
    free(s->stack_index);
    free(s->view.stack_count);
    free(s->view.stack_before_clear);
    free(s->live.unwind_pcs);
}

int64_t session_stack_func(struct session *s, uint32_t id)
{
    struct stack_node *n = &s->stacks[id];
    if (n->func >= 0 || id == 0)
        return n->func;
    int64_t f = session_resolve(s, n->module, n->offset);
    if (f >= 0 && n->level > 0)
        f = lines_level_func(s, lines_lookup(s, n->module, n->offset), n->level, f);
    s->stacks[id].func = f; /* -1 stays unresolved: a JIT may name it later */
    return f;
}

/* Name every frame of a stack with samples, all at once: frames in code no
 * symbol names each make a function up, and one at a time that was
 * quadratic (session_resolve_many). */
static void stack_name_frames(struct session *s)
{
    uint32_t *ids = NULL;
    size_t n = 0, alloc = 0;
    for (size_t id = 1; id < s->nstacks; id++) {
        if (s->view.stack_count[id] == 0)
            continue;
        for (uint32_t j = (uint32_t)id; j != 0 && s->stacks[j].func == -1;
             j = s->stacks[j].parent) {
            ids = xgrowarray(ids, &alloc, n + 1, sizeof *ids);
            ids[n++] = j;
            s->stacks[j].func = -2; /* listed: a frame shared by many stacks is named once */
        }
    }
    struct hit_key *keys = xcalloc(n ? n : 1, sizeof *keys);
    int64_t *funcs = xcalloc(n ? n : 1, sizeof *funcs);
    for (size_t i = 0; i < n; i++)
        keys[i] = (struct hit_key){s->stacks[ids[i]].module, s->stacks[ids[i]].offset};
    session_resolve_many(s, keys, n, funcs);
    for (size_t i = 0; i < n; i++) {
        struct stack_node *node = &s->stacks[ids[i]];
        int64_t f = funcs[i];
        if (f >= 0 && node->level > 0)
            f = lines_level_func(s, lines_lookup(s, node->module, node->offset), node->level, f);
        s->stacks[ids[i]].func = f; /* -1 stays unresolved: a JIT may name it later */
    }
    free(keys);
    free(funcs);
    free(ids);
}

/* Without stacks, a sample in inlined code still counts in the Total of
 * every function it was inlined into. */
static void stack_inline_totals(struct session *s)
{
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module == UINT32_MAX || h->func < 0 || h->count == 0)
            continue;
        const struct srcloc *loc = lines_lookup(s, h->module, h->offset);
        if (loc == NULL || loc->ninl == 0)
            continue;
        int64_t real = session_resolve(s, h->module, h->offset);
        int64_t seen[LINES_MAX_INLINE + 1];
        size_t nseen = 0;
        seen[nseen++] = h->func;
        for (uint32_t level = 0; level < loc->ninl && real >= 0; level++) {
            int64_t f = lines_level_func(s, loc, level, real);
            bool dup = false;
            for (size_t k = 0; k < nseen; k++)
                dup |= seen[k] == f;
            if (dup)
                continue;
            seen[nseen++] = f;
            s->funcs[f].total = session_sat_add(s->funcs[f].total, h->count);
        }
    }
}

void stack_tree_make(const struct session *s, struct stack_tree *t)
{
    size_t n = s->nstacks;
    t->under = xcalloc(n + 1, sizeof *t->under);
    t->child = xcalloc(n + 1, sizeof *t->child);
    t->next = xcalloc(n + 1, sizeof *t->next);
    for (size_t id = 1; id < n; id++)
        t->under[id] = s->view.stack_count[id];
    for (size_t id = n; id-- > 1;) { /* parents come before their children */
        uint32_t p = s->stacks[id].parent;
        if (p < id) {
            t->under[p] = session_sat_add(t->under[p], t->under[id]);
            t->next[id] = t->child[p];
            t->child[p] = (uint32_t)id;
        }
    }
}

void stack_tree_free(struct stack_tree *t)
{
    free(t->under);
    free(t->child);
    free(t->next);
}

/* ID, or the first of its next siblings with samples under it; 0 if none. */
static uint32_t stack_tree_sampled(const struct stack_tree *t, uint32_t id)
{
    while (id != 0 && t->under[id] == 0)
        id = t->next[id];
    return id;
}

void stack_tree_walk(const struct session *s, const struct stack_tree *t,
                     void (*enter)(void *arg, uint32_t id), void (*leave)(void *arg, uint32_t id),
                     void *arg)
{
    uint32_t j = stack_tree_sampled(t, t->child[0]);
    while (j != 0) {
        enter(arg, j);
        uint32_t c = stack_tree_sampled(t, t->child[j]);
        if (c != 0) {
            j = c;
            continue;
        }
        /* Leave J and every ancestor whose children are done. */
        while (j != 0) {
            leave(arg, j);
            uint32_t sib = stack_tree_sampled(t, t->next[j]);
            if (sib != 0) {
                j = sib;
                break;
            }
            j = s->stacks[j].parent;
        }
    }
}

/* session_totals' walk: a function's Total grows where it first comes on
 * the path; MARK counts its nodes on the path. */
struct totals_walk {
    struct session *s;
    const struct stack_tree *t;
};

static void totals_enter(void *arg, uint32_t id)
{
    struct totals_walk *w = arg;
    int64_t f = w->s->stacks[id].func;
    if (f >= 0 && f < (int64_t)w->s->nfuncs && w->s->funcs[f].mark++ == 0)
        w->s->funcs[f].total = session_sat_add(w->s->funcs[f].total, w->t->under[id]);
}

static void totals_leave(void *arg, uint32_t id)
{
    struct totals_walk *w = arg;
    int64_t f = w->s->stacks[id].func;
    if (f >= 0 && f < (int64_t)w->s->nfuncs)
        w->s->funcs[f].mark--;
}

void session_totals(struct session *s)
{
    session_rank(s);
    if (!s->cache.totals_dirty)
        return;
    /* Name every frame first: naming may add functions. */
    stack_name_frames(s);
    /* LEAF: samples that carry a stack and end in F, to tell how many of
     * F's own samples carry none (those count in its total too). */
    uint64_t *leaf = xcalloc(s->nfuncs + 1, sizeof *leaf);
    for (size_t i = 0; i < s->nfuncs; i++) {
        s->funcs[i].total = 0;
        s->funcs[i].mark = 0;
    }
    /* A function's Total is, over the nodes of the stack table where it is
     * outermost on the path (once per sample, however deep the recursion),
     * the samples of the stacks under them (stack_tree_walk). */
    for (size_t id = 1; id < s->nstacks; id++) {
        uint64_t c = s->view.stack_count[id];
        int64_t lf = s->stacks[id].func;
        if (c > 0 && lf >= 0)
            leaf[lf] = session_sat_add(leaf[lf], c);
    }
    struct stack_tree t;
    stack_tree_make(s, &t);
    struct totals_walk w = {s, &t};
    stack_tree_walk(s, &t, totals_enter, totals_leave, &w);
    stack_tree_free(&t);
    for (size_t i = 0; i < s->nfuncs; i++) {
        struct func *fn = &s->funcs[i];
        if (fn->samples > leaf[i])
            fn->total = session_sat_add(fn->total, fn->samples - leaf[i]);
    }
    free(leaf);
    if (!s->has_stacks && !s->no_inline)
        stack_inline_totals(s);
    s->cache.totals_dirty = false;
}

struct stack_stats session_stack_stats(const struct session *s)
{
    struct stack_stats st = {0, 0, 0, 0};
    /* Each node's outermost frame, from its parent's: parents come first. */
    uint32_t *root = xcalloc(s->nstacks + 1, sizeof *root);
    for (size_t id = 1; id < s->nstacks; id++) {
        uint32_t p = s->stacks[id].parent;
        root[id] = p != 0 && p < id ? root[p] : (uint32_t)id;
    }
    for (size_t id = 1; id < s->nstacks; id++) {
        uint64_t c = s->view.stack_count[id];
        if (c == 0)
            continue;
        st.samples += c;
        if (s->stacks[id].depth > st.max_depth)
            st.max_depth = s->stacks[id].depth;
        uint32_t r = root[id];
        if (s->stacks[r].module == s->unknown_module)
            st.unknown += c;
        else if (s->stacks[r].module == s->truncated_module)
            st.truncated += c;
    }
    free(root);
    return st;
}

size_t session_stack_frames(const struct session *s, uint32_t id, uint32_t *ids, size_t max)
{
    size_t depth = id < s->nstacks ? s->stacks[id].depth : 0;
    size_t k = depth;
    for (uint32_t j = id; j != 0 && k > 0; j = s->stacks[j].parent) {
        k--;
        if (k < max)
            ids[k] = j;
    }
    return depth;
}
