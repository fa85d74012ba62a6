/*
 * What the views show: a thread filter (the Threads view's Enter, --tid,
 * --pid, --comm), a time window (the Timeline view's { and }, --report
 * --from/--to), the program area (--range, a process's own executable), and
 * the views' counts made again from the recorded run when one changes.
 */
#include "config.h"

#include "session/limits.h"
#include "session/model.h"
#include "session/names.h"
#include "session/resolve.h"
#include "session/threads.h"
#include "session/view.h"
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
    memset(&s->view.c, 0, sizeof s->view.c);
    memset(&s->view.before_clear, 0, sizeof s->view.before_clear);
    memset(s->view.buckets, 0, s->view.nbuckets * sizeof *s->view.buckets);
    for (size_t i = 0; i < s->hits_alloc; i++)
        s->hits[i].count = s->hits[i].before_clear = 0;
    if (s->nstacks > 0) {
        memset(s->view.stack_count, 0, s->nstacks * sizeof *s->view.stack_count);
        memset(s->view.stack_before_clear, 0, s->nstacks * sizeof *s->view.stack_before_clear);
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
    s->cache.totals_dirty = true;
}

/* Whether the views count stack ID: not a wait's when on-CPU time only is shown. */
static bool view_stack_shown(const struct session *s, uint32_t id)
{
    return !s->view.oncpu || !session_stack_blocked(s, id);
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
    s->view.c.lost = session_sat_add(s->view.c.lost, f->lost);
    s->view.c.preempted = session_sat_add(s->view.c.preempted, f->preempted);
    for (uint32_t k = 0; k < f->nthits; k++) {
        const struct frame_tid *e = &f->thits[k];
        if (!threads_shown(s, e->tid))
            continue;
        if (e->key == FRAME_BLOCKED) { /* I/O without a hit */
            if (!s->view.oncpu)
                counters_add(&s->view.c, COUNT_IO, e->count);
            continue;
        }
        struct hit *h = session_hit_by_id(s, e->key);
        if (h == NULL)
            continue;
        h->count = session_sat_add(h->count, e->count);
        size_t b = 0;
        enum counter_kind kind = session_counter_of(s, h->module, h->offset, &b);
        counters_add(&s->view.c, kind, e->count);
        if (kind == COUNT_PROGRAM)
            s->view.buckets[b] = session_sat_add(s->view.buckets[b], e->count);
    }
    for (uint32_t k = 0; k < f->ntstacks; k++) {
        const struct frame_tid *e = &f->tstacks[k];
        if (e->key < s->nstacks && threads_shown(s, e->tid) && view_stack_shown(s, e->key))
            s->view.stack_count[e->key] += e->count;
    }
}

static void window_count(struct session *s, size_t from, size_t to)
{
    session_view_zero(s);
    if (to > s->nframes)
        to = s->nframes;
    for (size_t i = from; i < to; i++) {
        const struct frame *f = &s->frames[i];
        if (s->view.filter != NULL) {
            window_count_threads(s, f);
            continue;
        }
        if (s->view.oncpu) { /* the samples with a PC: a frame's blocked ticks have none */
            s->view.c.lost = session_sat_add(s->view.c.lost, f->lost);
            s->view.c.preempted = session_sat_add(s->view.c.preempted, f->preempted);
        } else {
            window_add_frame(&s->view.c, f);
        }
        for (uint32_t k = 0; k < f->nhits; k++) {
            struct hit *h = session_hit_by_id(s, f->hits[k].id);
            if (h == NULL)
                continue;
            h->count = session_sat_add(h->count, f->hits[k].count);
            size_t b;
            enum counter_kind kind = session_counter_of(s, h->module, h->offset, &b);
            if (s->view.oncpu)
                counters_add(&s->view.c, kind, f->hits[k].count);
            if (kind == COUNT_PROGRAM)
                s->view.buckets[b] = session_sat_add(s->view.buckets[b], f->hits[k].count);
        }
        for (uint32_t k = 0; k < f->nstacks; k++) {
            if (f->stacks[k].id < s->nstacks && view_stack_shown(s, f->stacks[k].id))
                s->view.stack_count[f->stacks[k].id] += f->stacks[k].count;
        }
    }
    if (s->view.filter == NULL && !s->view.oncpu)
        s->view.c.total = session_sat_add(session_sat_add(s->view.c.program, s->view.c.dos),
                                          session_sat_add(s->view.c.io, s->view.c.high));
    session_view_finish(s);
}

/* Add frame F's samples of the threads shown to SUM[OF[hit id]] (OF: a
 * hit id's slot in SUM, or -1 for none). */
static void frame_funcs_add(const struct session *s, const struct frame *f, const int64_t *of,
                            uint64_t *sum)
{
    if (s->view.filter == NULL || !s->frame_threads) {
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
        if (s->view.filter == NULL || !s->frame_threads) {
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
            session_filter_free(s->view.filter);
            s->view.filter = NULL;
        }
        if (s->view.filter == NULL) /* else the filter's program area stays */
            session_set_program_area(s, 0);
        s->view.window = true;
        s->view.win_from = from;
        s->view.win_to = to;
        window_count(s, from, to);
        return;
    }
    s->view.window = false;
    if (s->nthreads > 0)
        session_filter_set(s, s->view.filter); /* every thread's counts, since the latest clear */
    else
        window_count(s, 0, s->nframes); /* no threads kept (an older file): the whole timeline */
}

bool session_oncpu_set(struct session *s, bool on)
{
    if (s->classic)
        return false; /* no hits to count again */
    if (s->view.oncpu != on) {
        s->view.oncpu = on;
        if (s->view.window)
            session_window_set(s, s->view.win_from, s->view.win_to);
        else
            session_window_set(s, 0, 0); /* the counts since the latest clear */
    }
    return true;
}

bool session_set_program_area(struct session *s, uint32_t module)
{
    if (module == s->view.prog_module || module >= s->nmodules || s->classic)
        return module == s->view.prog_module;
    uint64_t lo = s->prog_low, hi = s->prog_high;
    if (module != 0) {
        struct module *m = s->modules[module];
        session_load_module(m);
        if (!module_exec_span(m, &lo, &hi) ||
            session_bucket_count(lo, hi, s->view.bucket_paragraphs) > LIMIT_BUCKETS)
            return false;
    }
    s->view.prog_module = module;
    s->view.prog_low = lo;
    s->view.prog_high = hi;
    s->view.nbuckets = session_bucket_count(lo, hi, s->view.bucket_paragraphs);
    free(s->view.buckets);
    s->view.buckets = xcalloc(s->view.nbuckets, sizeof *s->view.buckets);
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
    if (hi <= s->view.prog_low || lo >= s->view.prog_high) {
        *cause = xasprintf("--range %s: outside the program's code, 0x%" PRIx64 "-0x%" PRIx64, spec,
                           s->view.prog_low, s->view.prog_high);
        return -1;
    }
    s->view.prog_low = lo > s->view.prog_low ? lo : s->view.prog_low;
    s->view.prog_high = hi < s->view.prog_high ? hi : s->view.prog_high;
    s->prog_low = s->view.prog_low; /* the run's own area from now on */
    s->prog_high = s->view.prog_high;
    s->view.nbuckets =
        session_bucket_count(s->view.prog_low, s->view.prog_high, s->view.bucket_paragraphs);
    free(s->view.buckets);
    s->view.buckets = xcalloc(s->view.nbuckets, sizeof *s->view.buckets);
    return 0;
}

void session_filter_free(struct session_filter *f)
{
    if (f == NULL)
        return;
    free(f->tids);
    free(f->label);
    free(f);
}

static bool filter_has(const struct session_filter *f, uint32_t tid)
{
    size_t lo = 0, hi = f->ntids;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->tids[mid] == tid)
            return true;
        if (f->tids[mid] < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

bool threads_shown(const struct session *s, uint32_t tid)
{
    return s->view.filter == NULL || filter_has(s->view.filter, tid);
}

bool threads_viewed(const struct session *s, uint32_t tid)
{
    return !s->view.window && threads_shown(s, tid);
}

/* Count N samples at (MODULE, OFFSET) in C and BUCKETS (or none), as a live one counts. */
static void filter_count(struct session *s, struct counters *c, uint64_t *buckets, uint32_t module,
                         uint64_t offset, uint64_t n)
{
    size_t b = 0;
    enum counter_kind k = session_counter_of(s, module, offset, &b);
    counters_add(c, k, n);
    if (k == COUNT_PROGRAM && buckets != NULL)
        buckets[b] = session_sat_add(buckets[b], n);
}

void session_filter_set(struct session *s, struct session_filter *f)
{
    if (f != s->view.filter)
        session_filter_free(s->view.filter);
    s->view.filter = f;
    /* A live session's frames say which thread took their samples: a
     * window stays, and counts the filter's threads only; a file's do not,
     * so a filter ends the window. */
    bool window = s->view.window && f != NULL && s->frame_threads;
    s->view.window = false;
    if (s->classic)
        return; /* no threads: nothing to filter */
    /* The threads of one process: its own executable is the program area. */
    uint32_t area = 0, pid = 0;
    for (size_t i = 0; f != NULL && i < f->ntids; i++) {
        const struct thread_info *t = threads_find(s, f->tids[i]);
        if (t == NULL || (pid != 0 && t->pid != pid)) {
            pid = 0;
            break;
        }
        pid = t->pid;
    }
    const struct proc_info *p = pid ? threads_proc(s, pid, 0, false) : NULL;
    if (p != NULL && p->exe_module != UINT32_MAX)
        area = p->exe_module;
    if (!session_set_program_area(s, area))
        session_set_program_area(s, 0);
    if (window) {
        session_window_set(s, s->view.win_from, s->view.win_to);
        return;
    }
    uint64_t lost = s->view.c.lost, preempted = s->view.c.preempted;
    uint64_t lost_bc = s->view.before_clear.lost, preempted_bc = s->view.before_clear.preempted;
    session_view_zero(s);
    s->view.c.lost = lost;
    s->view.c.preempted = preempted;
    s->view.before_clear.lost = lost_bc;
    s->view.before_clear.preempted = preempted_bc;
    for (size_t i = 0; i < s->thits.alloc; i++) {
        const struct tid_count *e = &s->thits.slots[i];
        if (e->tid == 0 || e->key >= s->nkeys || !threads_shown(s, e->tid))
            continue;
        struct hit *h = session_hit_by_id(s, e->key);
        if (h == NULL)
            continue;
        h->count = session_sat_add(h->count, e->count);
        h->before_clear = session_sat_add(h->before_clear, e->before_clear);
        filter_count(s, &s->view.c, s->view.buckets, h->module, h->offset, e->count);
        filter_count(s, &s->view.before_clear, NULL, h->module, h->offset, e->before_clear);
    }
    for (size_t i = 0; i < s->nthreads; i++) { /* blocked ticks are I/O without a hit */
        const struct thread_info *t = &s->threads[i];
        if (!threads_shown(s, t->tid))
            continue;
        if (s->view.oncpu)
            continue;
        counters_add(&s->view.c, COUNT_IO, t->blocked);
        counters_add(&s->view.before_clear, COUNT_IO, t->blocked_before_clear);
    }
    if (s->nstacks > 0) {
        for (size_t i = 0; i < s->tstacks.alloc; i++) {
            const struct tid_count *e = &s->tstacks.slots[i];
            if (e->tid == 0 || e->key >= s->nstacks || !threads_shown(s, e->tid) ||
                !view_stack_shown(s, e->key))
                continue;
            s->view.stack_count[e->key] = session_sat_add(s->view.stack_count[e->key], e->count);
            s->view.stack_before_clear[e->key] =
                session_sat_add(s->view.stack_before_clear[e->key], e->before_clear);
        }
    }
    session_view_finish(s);
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

struct session_filter *session_filter_make(const struct session *s, const uint32_t *tid,
                                           const uint32_t *pid, const char *comm, char **cause)
{
    if (s->nthreads == 0) {
        *cause = xstrdup("the session records no threads (made before profil kept them, or a "
                         "1983 PROFIL file)");
        return NULL;
    }
    struct session_filter *f = xcalloc(1, sizeof *f);
    f->tids = xcalloc(s->nthreads, sizeof *f->tids);
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct thread_info *t = &s->threads[i];
        if ((tid != NULL && t->tid != *tid) || (pid != NULL && t->pid != *pid) ||
            (comm != NULL && (t->name == NULL || strcmp(t->name, comm) != 0)))
            continue;
        f->tids[f->ntids++] = t->tid;
    }
    if (f->ntids == 0) {
        char what[64] = "";
        if (tid != NULL)
            snprintf(what, sizeof what, " %u", *tid);
        else if (pid != NULL)
            snprintf(what, sizeof what, " of process %u", *pid);
        *cause = comm != NULL ? xasprintf("no thread%s named %s in the session", what, comm)
                              : xasprintf("no thread%s in the session", what);
        session_filter_free(f);
        return NULL;
    }
    qsort(f->tids, f->ntids, sizeof *f->tids, u32_cmp);
    size_t k = 0;
    for (size_t i = 0; i < f->ntids; i++) { /* a tid reused within the run counts once */
        if (k == 0 || f->tids[k - 1] != f->tids[i])
            f->tids[k++] = f->tids[i];
    }
    f->ntids = k;
    if (tid != NULL) {
        const struct thread_info *t = threads_find(s, *tid);
        f->label = xasprintf("thread %u%s%s%s", *tid, t && t->name ? " (" : "",
                             t && t->name ? t->name : "", t && t->name ? ")" : "");
    } else if (pid != NULL) {
        const struct thread_info *t = threads_find(s, *pid);
        f->label = xasprintf("process %u%s%s%s", *pid, t && t->name ? " (" : "",
                             t && t->name ? t->name : "", t && t->name ? ")" : "");
    } else {
        f->label = xasprintf("threads named %s", comm);
    }
    return f;
}

void threads_times(const struct session *s, double *on_cpu_s, double *blocked_s, size_t *nthreads)
{
    double on = 0, bl = 0;
    size_t n = 0;
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct thread_info *t = &s->threads[i];
        if (!threads_shown(s, t->tid))
            continue;
        uint64_t a = t->on_cpu + t->on_cpu_before_clear, b = t->blocked + t->blocked_before_clear;
        on += (double)a;
        bl += (double)b;
        n += a + b > 0;
    }
    *on_cpu_s = on * s->interval_us / 1e6;
    *blocked_s = bl * s->interval_us / 1e6;
    *nthreads = n;
}
