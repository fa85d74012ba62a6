/*
 * Time windows: the views count the samples of some frames of the
 * timeline only (the Timeline view's { and }, --report --from/--to), and
 * the view's counts made again from a source, for threads.c too.
 */
#include "config.h"

#include "session/internal.h"
#include "session/limits.h"
#include "session/threads.h"
#include "util/xmalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <errno.h>
#include <string.h>

struct hit *session_hit_by_id(struct session *s, uint32_t id)
{
    if (id >= s->nkeys)
        return NULL;
    const struct hit_key *k = &s->hit_keys[id];
    size_t mask = s->hits_alloc - 1;
    for (size_t i = hit_hash(k->module, k->offset) & mask;; i = (i + 1) & mask) {
        struct hit *h = &s->hits[i];
        if (h->module == UINT32_MAX)
            return NULL;
        if (h->module == k->module && h->offset == k->offset)
            return h;
    }
}

void session_view_zero(struct session *s)
{
    memset(&s->c, 0, sizeof s->c);
    memset(&s->before_clear, 0, sizeof s->before_clear);
    memset(s->buckets, 0, s->nbuckets * sizeof *s->buckets);
    for (size_t i = 0; i < s->hits_alloc; i++)
        s->hits[i].count = s->hits[i].before_clear = 0;
    if (s->nstacks > 0) {
        memset(s->stack_count, 0, s->nstacks * sizeof *s->stack_count);
        memset(s->stack_before_clear, 0, s->nstacks * sizeof *s->stack_before_clear);
    }
}

void session_view_finish(struct session *s)
{
    for (size_t i = 0; i < s->nfuncs; i++)
        s->funcs[i].samples = 0;
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module != UINT32_MAX && h->func >= 0)
            s->funcs[h->func].samples = session_sat_add(s->funcs[h->func].samples, h->count);
    }
    s->totals_dirty = true;
}

/* The view's counts, made again from frames [FROM, TO) of the timeline. */
/* Add frame F's counters to C (its total is the caller's to make). */
static void window_add_frame(struct counters *c, const struct frame *f)
{
    c->program = session_sat_add(c->program, f->program);
    c->dos = session_sat_add(c->dos, f->dos);
    c->io = session_sat_add(c->io, f->io);
    c->high = session_sat_add(c->high, f->high);
    c->lost = session_sat_add(c->lost, f->lost);
    c->preempted = session_sat_add(c->preempted, f->preempted);
}

/* Count frame F's samples of the threads the filter keeps, from what it
 * says each thread added (lost and preempted ticks have no thread: the
 * whole program's, as under a filter alone). */
static void window_count_threads(struct session *s, const struct frame *f)
{
    s->c.lost = session_sat_add(s->c.lost, f->lost);
    s->c.preempted = session_sat_add(s->c.preempted, f->preempted);
    for (uint32_t k = 0; k < f->nthits; k++) {
        const struct frame_tid *e = &f->thits[k];
        if (!threads_shown(s, e->tid))
            continue;
        if (e->key == FRAME_BLOCKED) { /* I/O without a hit */
            counters_add(&s->c, COUNT_IO, e->count);
            continue;
        }
        struct hit *h = session_hit_by_id(s, e->key);
        if (h == NULL)
            continue;
        h->count = session_sat_add(h->count, e->count);
        size_t b = 0;
        enum counter_kind kind = session_counter_of(s, h->module, h->offset, &b);
        counters_add(&s->c, kind, e->count);
        if (kind == COUNT_PROGRAM)
            s->buckets[b] = session_sat_add(s->buckets[b], e->count);
    }
    for (uint32_t k = 0; k < f->ntstacks; k++) {
        const struct frame_tid *e = &f->tstacks[k];
        if (e->key < s->nstacks && threads_shown(s, e->tid))
            s->stack_count[e->key] += e->count;
    }
}

static void window_count(struct session *s, size_t from, size_t to)
{
    session_view_zero(s);
    if (to > s->nframes)
        to = s->nframes;
    for (size_t i = from; i < to; i++) {
        const struct frame *f = &s->frames[i];
        if (s->filter != NULL) {
            window_count_threads(s, f);
            continue;
        }
        window_add_frame(&s->c, f);
        for (uint32_t k = 0; k < f->nhits; k++) {
            struct hit *h = session_hit_by_id(s, f->hits[k].id);
            if (h == NULL)
                continue;
            h->count = session_sat_add(h->count, f->hits[k].count);
            size_t b;
            if (session_counter_of(s, h->module, h->offset, &b) == COUNT_PROGRAM)
                s->buckets[b] = session_sat_add(s->buckets[b], f->hits[k].count);
        }
        for (uint32_t k = 0; k < f->nstacks; k++) {
            if (f->stacks[k].id < s->nstacks)
                s->stack_count[f->stacks[k].id] += f->stacks[k].count;
        }
    }
    if (s->filter == NULL)
        s->c.total = session_sat_add(session_sat_add(s->c.program, s->c.dos),
                                     session_sat_add(s->c.io, s->c.high));
    session_view_finish(s);
}

/* Add frame F's samples of the threads shown to SUM[OF[hit id]] (OF: a
 * hit id's slot in SUM, or -1 for none). */
static void frame_funcs_add(const struct session *s, const struct frame *f, const int64_t *of,
                            uint64_t *sum)
{
    if (s->filter == NULL || !s->frame_threads) {
        for (uint32_t k = 0; k < f->nhits; k++) {
            if (f->hits[k].id < s->nkeys && of[f->hits[k].id] >= 0)
                sum[of[f->hits[k].id]] += f->hits[k].count;
        }
        return;
    }
    for (uint32_t k = 0; k < f->nthits; k++) {
        const struct frame_tid *e = &f->thits[k];
        if (e->key < s->nkeys && of[e->key] >= 0 && threads_shown(s, e->tid))
            sum[of[e->key]] += e->count;
    }
}

size_t session_frame_funcs(struct session *s, size_t from, size_t to, size_t max, size_t *funcs,
                           uint64_t *counts)
{
    if (to > s->nframes)
        to = s->nframes;
    if (from >= to || max == 0)
        return 0;
    if (max > 64)
        max = 64;
    session_rank(s); /* every hit's function */
    int64_t *of = xmalloc((s->nkeys + 1) * sizeof *of);
    for (size_t id = 0; id < s->nkeys; id++) {
        const struct hit *h = session_hit_by_id(s, (uint32_t)id);
        of[id] = h != NULL && h->func >= 0 && (size_t)h->func < s->nfuncs ? h->func : -1;
    }
    uint64_t *sum = xcalloc(s->nfuncs + 1, sizeof *sum);
    for (size_t i = from; i < to; i++)
        frame_funcs_add(s, &s->frames[i], of, sum);
    size_t n = 0;
    for (; n < max; n++) { /* a few: a pass each */
        size_t best = s->nfuncs;
        for (size_t i = 0; i < s->nfuncs; i++) {
            if (sum[i] > 0 && (best == s->nfuncs || sum[i] > sum[best]))
                best = i;
        }
        if (best == s->nfuncs)
            break;
        funcs[n] = best;
        sum[best] = 0;
    }
    /* Then each frame by lane: a hit id's slot is its function's lane. */
    size_t span = to - from;
    int64_t *lane = xmalloc((s->nfuncs + 1) * sizeof *lane);
    for (size_t i = 0; i < s->nfuncs; i++)
        lane[i] = -1;
    for (size_t k = 0; k < n; k++)
        lane[funcs[k]] = (int64_t)k;
    for (size_t id = 0; id < s->nkeys; id++)
        of[id] = of[id] >= 0 ? lane[of[id]] : -1;
    uint64_t one[64];
    for (size_t i = from; i < to; i++) {
        memset(one, 0, sizeof one);
        frame_funcs_add(s, &s->frames[i], of, one);
        for (size_t k = 0; k < n; k++)
            counts[k * span + (i - from)] = one[k];
    }
    free(lane);
    free(sum);
    free(of);
    return n;
}

uint64_t session_frames_samples(const struct session *s, size_t from, size_t to)
{
    uint64_t sum = 0;
    if (to > s->nframes)
        to = s->nframes;
    for (size_t i = from; i < to; i++) {
        const struct frame *f = &s->frames[i];
        if (s->filter == NULL || !s->frame_threads) {
            sum += f->program + f->dos + f->io + f->high;
            continue;
        }
        for (uint32_t k = 0; k < f->nthits; k++) {
            if (threads_shown(s, f->thits[k].tid))
                sum += f->thits[k].count;
        }
    }
    return sum;
}

void session_window_set(struct session *s, size_t from, size_t to)
{
    if (s->classic)
        return; /* a 1983 file's one frame has no hits to count again */
    if (to > from) {
        if (!s->frame_threads) { /* one or the other: a file's frames have no threads */
            session_filter_free(s->filter);
            s->filter = NULL;
        }
        if (s->filter == NULL) /* else the filter's program area stays */
            session_set_program_area(s, 0);
        s->window = true;
        s->win_from = from;
        s->win_to = to;
        window_count(s, from, to);
        return;
    }
    s->window = false;
    if (s->nthreads > 0)
        session_filter_set(s, s->filter); /* every thread's counts, since the latest clear */
    else
        window_count(s, 0, s->nframes); /* no threads kept (an older file): the whole timeline */
}

bool session_set_program_area(struct session *s, uint32_t module)
{
    if (module == s->prog_module || module >= s->nmodules || s->classic)
        return module == s->prog_module;
    uint64_t lo = s->prog_low0, hi = s->prog_high0;
    if (module != 0) {
        struct module *m = s->modules[module];
        session_load_module(m);
        if (!module_exec_span(m, &lo, &hi) ||
            session_bucket_count(lo, hi, s->bucket_paragraphs) > LIMIT_BUCKETS)
            return false;
    }
    if (s->prog_module == 0) { /* the program's own, to come back to */
        s->prog_low0 = s->prog_low;
        s->prog_high0 = s->prog_high;
    }
    s->prog_module = module;
    s->prog_low = lo;
    s->prog_high = hi;
    s->nbuckets = session_bucket_count(lo, hi, s->bucket_paragraphs);
    free(s->buckets);
    s->buckets = xcalloc(s->nbuckets, sizeof *s->buckets);
    return true;
}

int session_set_range(struct session *s, const char *spec, char **cause)
{
    struct module *m = s->nmodules > 0 ? s->modules[0] : NULL;
    uint64_t lo = 0, hi = 0;
    char *end;
    const char *dash = strchr(spec, '-');
    bool numeric = dash != NULL && dash > spec && dash[1] != '\0';
    if (numeric) {
        errno = 0;
        lo = strtoull(spec, &end, 0);
        numeric = end == dash && errno == 0;
        if (numeric) {
            hi = strtoull(dash + 1, &end, 0);
            numeric = *end == '\0' && errno == 0;
        }
    }
    if (!numeric) { /* a function of the program, by its symbol's name */
        long k = m != NULL ? module_find_named(m, spec) : -1;
        uint64_t a, b;
        if (k < 0 || !module_offset_to_vaddr(m, m->syms[k].start, &a) ||
            !module_offset_to_vaddr(m, m->syms[k].end - 1, &b)) {
            *cause = xasprintf("--range %s: neither LOW-HIGH (addresses as the histogram shows "
                               "them) nor a function of %s",
                               spec, m != NULL ? m->name : "the program");
            return -1;
        }
        lo = a;
        hi = b + 1;
    }
    if (hi <= lo) {
        *cause = xasprintf("--range %s: the range is empty", spec);
        return -1;
    }
    if (hi <= s->prog_low || lo >= s->prog_high) {
        *cause = xasprintf("--range %s: outside the program's code, 0x%" PRIx64 "-0x%" PRIx64, spec,
                           s->prog_low, s->prog_high);
        return -1;
    }
    s->prog_low = lo > s->prog_low ? lo : s->prog_low;
    s->prog_high = hi < s->prog_high ? hi : s->prog_high;
    s->nbuckets = session_bucket_count(s->prog_low, s->prog_high, s->bucket_paragraphs);
    free(s->buckets);
    s->buckets = xcalloc(s->nbuckets, sizeof *s->buckets);
    return 0;
}
