/*
 * A session as a whole: made, fed one event at a time (session_ingest:
 * live samples from a clock driver and a replayed .PRF the same way),
 * cleared, reset and freed, over the tables of model.c and what names and
 * unwinds (resolve.c, lines.c, stacks.c, addrspace.c, threads.c).
 */
#include "config.h"

#include "elf/kallsyms.h"
#include "session/addrspace.h"
#include "session/hitorder.h"
#include "session/limits.h"
#include "session/lines.h"
#include "session/session.h"
#include "session/stacks.h"
#include "session/threads.h"
#include "session/view.h"
#include "util/xmalloc.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* What ranking_cmp orders by. */
struct ranking_by {
    const struct session *s;
    bool total;
};

struct session *session_new(const char *program, uint32_t bucket_paragraphs, uint32_t interval_us,
                            char **cause)
{
    char *real = realpath(program, NULL);
    if (real == NULL) {
        *cause = xasprintf("%s: cannot resolve path", program);
        return NULL;
    }
    struct session *s = session_new_empty();
    s->program = xstrdup(program);
    s->view.bucket_paragraphs = s->asked_paragraphs = bucket_paragraphs;
    s->interval_us = interval_us;
    uint32_t id = session_module(s, real, MODULE_PROGRAM);
    free(real);
    struct module *m = s->modules[id];
    if (module_load(m, cause) < 0 || !module_exec_span(m, &s->prog_low, &s->prog_high)) {
        if (*cause == NULL)
            *cause = xasprintf("%s: no executable segment", program);
        session_free(s);
        return NULL;
    }
    s->view.prog_low = s->prog_low;
    s->view.prog_high = s->prog_high;
    s->view.nbuckets = session_bucket_count(s->view.prog_low, s->view.prog_high, bucket_paragraphs);
    if (s->view.nbuckets > LIMIT_BUCKETS) {
        /* The -b that brings the buckets under the limit, when there is one. */
        uint64_t span = s->view.prog_high - s->view.prog_low,
                 need = span / (16 * LIMIT_BUCKETS) + 1;
        if (need <= 65535)
            *cause = xasprintf("%s: its code spans %llu bytes: %zu buckets of %u paragraph%s, "
                               "more than the %llu profil keeps; use -b %llu or more",
                               program, (unsigned long long)span, s->view.nbuckets,
                               bucket_paragraphs, bucket_paragraphs == 1 ? "" : "s", LIMIT_BUCKETS,
                               (unsigned long long)need);
        else
            *cause = xasprintf("%s: its code spans %llu bytes, more than profil's buckets can "
                               "cover",
                               program, (unsigned long long)span);
        session_free(s);
        return NULL;
    }
    const char *was_for = xmalloc_for("the buckets");
    s->view.buckets = xcalloc(s->view.nbuckets, sizeof *s->view.buckets);
    xmalloc_for(was_for);
    return s;
}

void session_free(struct session *s)
{
    if (s == NULL)
        return;
    free(s->program);
    for (size_t i = 0; i < s->nargs; i++)
        free(s->args[i]);
    free(s->args);
    free(s->comment);
    free(s->interpreter);
    free(s->driver);
    free(s->live.jit);
    kallsyms_close(s->live.ksyms);
    free(s->view.buckets);
    free(s->view.buckets_before_clear);
    for (size_t i = 0; i < s->nmodules; i++)
        module_free(s->modules[i]);
    free(s->modules);
    free(s->hits);
    for (size_t i = 0; i < s->nfuncs; i++) {
        free(s->funcs[i].name);
        free(s->funcs[i].raw);
    }
    free(s->funcs);
    free(s->cache.func_index);
    session_free_spaces(s);
    session_stacks_free(s);
    lines_free(s);
    free(s->meta_json);
    session_marks_free(s);
    for (size_t i = 0; i < s->nframes; i++)
        frame_free(&s->frames[i]);
    free(s->frames);
    free(s->hit_keys);
    threads_free(s);
    session_filter_free(s->view.filter);
    free(s);
}

static void session_count(struct session *s, struct ingest *in, uint32_t module, uint64_t offset,
                          uint64_t n)
{
    size_t b = 0;
    enum counter_kind k = session_counter_of(s, module, offset, &b);
    /* The whole run's, for the timeline; the views' only when they show
     * the thread (session/threads.h). */
    counters_add(&in->delta, k, n);
    counters_add(&s->run, session_run_counter(s, module, offset, k), n);
    if (in->view) {
        counters_add(&s->view.c, k, n);
        if (k == COUNT_PROGRAM)
            s->view.buckets[b] += n;
    }
    in->hit = ingest_hit(s, in, module, offset, n);
}

/* Remember that PID ran anonymous code: its JIT may keep a perf map. */
static void session_note_jit(struct session *s, uint32_t pid)
{
    for (size_t i = 0; i < s->live.njit; i++) {
        if (s->live.jit[i].pid == pid)
            return;
    }
    s->live.jit = xreallocarray(s->live.jit, s->live.njit + 1, sizeof *s->live.jit);
    s->live.jit[s->live.njit++] = (struct session_jit){pid, -1, -1};
}

/* Which module a user-mode PC lies in, by the process's mappings. */
static void session_classify_user(struct session *s, struct ingest *in, const struct event *ev)
{
    uint32_t module;
    uint64_t offset;
    if (session_user_place(s, session_space(s, ev->pid, false), ev->sample.pc, &module, &offset))
        session_note_jit(s, ev->pid);
    session_count(s, in, module, offset, ev->sample.count);
}

void session_ingest(struct session *s, const struct event *ev)
{
    /* --start-paused: the ticks between the exec and the pause are not the run's. */
    if (s->live.sample_from_ns != 0 && ev->time_ns < s->live.sample_from_ns &&
        (ev->type == EVENT_SAMPLE || ev->type == EVENT_LOST || ev->type == EVENT_PREEMPTED))
        return;
    if (s->start_ns == 0)
        s->start_ns = ev->time_ns;
    if (ev->time_ns > s->end_ns)
        s->end_ns = ev->time_ns;
    struct ingest in = {0};
    if (ev->type == EVENT_SAMPLE || ev->type == EVENT_LOST || ev->type == EVENT_PREEMPTED ||
        ev->type == EVENT_HIT || ev->type == EVENT_STACK)
        in.frame = session_frame_at(s, ev->time_ns);
    /* A replayed hit or stack has no thread: a thread filter leaves it out
     * of the views (which show the whole run's samples of the thread). */
    in.view = threads_viewed(s, ev->tid);
    if (s->view.oncpu && in.view) /* waits left out: blocked samples, the stacks they took */
        in.view = ev->type == EVENT_SAMPLE  ? ev->sample.mode != SAMPLE_BLOCKED
                  : ev->type == EVENT_STACK ? !session_stack_blocked(s, ev->stack.id)
                                            : true;
    struct thread_info *t = NULL;
    if (ev->type == EVENT_SAMPLE && ev->tid != 0)
        t = threads_get(s, ev->pid, ev->tid, ev->time_ns);
    switch (ev->type) {
    case EVENT_STACK: /* a replay: already unwound */ session_count_stack(s, &in, ev); break;
    case EVENT_HIT: /* a replay: already attributed */
        if (ev->hit.module < s->nmodules)
            session_count(s, &in, ev->hit.module, ev->hit.offset, ev->hit.count);
        break;
    case EVENT_SAMPLE:
        switch (ev->sample.mode) {
        case SAMPLE_USER: session_classify_user(s, &in, ev); break;
        case SAMPLE_KERNEL:
            if (s->kernel_module == UINT32_MAX)
                s->kernel_module = session_module(s, "[kernel]", MODULE_KERNEL);
            session_count(s, &in, s->kernel_module, ev->sample.pc, ev->sample.count);
            break;
        case SAMPLE_BLOCKED: /* no PC: I/O, and no hit */
            counters_add(&in.delta, COUNT_IO, ev->sample.count);
            counters_add(&s->run, COUNT_IO, ev->sample.count);
            if (in.view)
                counters_add(&s->view.c, COUNT_IO, ev->sample.count);
            break;
        }
        if (t != NULL) {
            bool blocked = ev->sample.mode == SAMPLE_BLOCKED;
            threads_count(s, t, blocked ? UINT32_MAX : in.hit, blocked, ev->sample.count);
            frame_tid_note(s, &in, false, t->tid, blocked ? FRAME_BLOCKED : in.hit,
                           ev->sample.count);
        }
        if (ev->sample.stack != NULL)
            session_count_stack(s, &in, ev);
        break;
    case EVENT_MMAP: session_on_mmap(s, ev); break;
    case EVENT_FORK:
        session_on_fork(s, ev);
        threads_on_event(s, ev);
        break;
    case EVENT_EXEC:
        session_forget_space(s, ev->pid, false);
        threads_on_event(s, ev);
        break;
    case EVENT_EXIT:
        session_forget_space(s, ev->pid, true);
        threads_on_event(s, ev);
        break;
    case EVENT_THREAD:
    case EVENT_THREAD_EXIT:
    case EVENT_COMM: threads_on_event(s, ev); break;
    case EVENT_LOST: /* no thread: the whole program's, filtered or not */
        in.delta.lost += ev->lost.count;
        s->run.lost = session_sat_add(s->run.lost, ev->lost.count);
        if (!s->view.window)
            s->view.c.lost += ev->lost.count;
        break;
    case EVENT_PREEMPTED:
        in.delta.preempted += ev->lost.count;
        s->run.preempted = session_sat_add(s->run.preempted, ev->lost.count);
        if (!s->view.window)
            s->view.c.preempted += ev->lost.count;
        break;
    }
    struct frame *f = in.frame; /* nothing above grows the frame array: still good */
    if (f != NULL) {
        f->program += in.delta.program;
        f->dos += in.delta.dos;
        f->io += in.delta.io;
        f->high += in.delta.high;
        f->lost += in.delta.lost;
        f->preempted += in.delta.preempted;
    }
}

/* Whether frame F holds nothing at all. */
static bool frame_empty(const struct frame *f)
{
    return f->program == 0 && f->dos == 0 && f->io == 0 && f->high == 0 && f->lost == 0 &&
           f->preempted == 0 && f->nhits == 0 && f->nstacks == 0;
}

void session_clear(struct session *s)
{
    /* The mark: a frame of its own after everything counted so far, so the
     * frames before it keep what was counted before the clear. */
    if (s->nframes == 0 || !s->frames[s->nframes - 1].cleared ||
        !frame_empty(&s->frames[s->nframes - 1])) {
        s->clear_frame = s->nframes;
        session_frame(s, s->nframes)->cleared = true;
    }
    struct counters *b = &s->view.before_clear;
    b->program += s->view.c.program;
    b->dos += s->view.c.dos;
    b->io += s->view.c.io;
    b->high += s->view.c.high;
    b->total += s->view.c.total;
    b->lost += s->view.c.lost;
    b->preempted += s->view.c.preempted;
    memset(&s->view.c, 0, sizeof s->view.c);
    if (s->classic) { /* no hits to rebuild the whole run's buckets from */
        if (s->view.buckets_before_clear == NULL)
            s->view.buckets_before_clear =
                xcalloc(s->view.nbuckets ? s->view.nbuckets : 1, sizeof *s->view.buckets);
        for (size_t i = 0; i < s->view.nbuckets; i++)
            s->view.buckets_before_clear[i] += s->view.buckets[i];
    }
    memset(s->view.buckets, 0, s->view.nbuckets * sizeof *s->view.buckets);
    for (size_t i = 0; i < s->hits_alloc; i++) {
        s->hits[i].before_clear += s->hits[i].count;
        s->hits[i].count = 0;
    }
    for (size_t i = 0; i < s->nfuncs; i++)
        s->funcs[i].samples = 0;
    session_stacks_clear(s);
    threads_clear(s);
}

void session_reset(struct session *s)
{
    memset(&s->view.c, 0, sizeof s->view.c);
    memset(&s->view.before_clear, 0, sizeof s->view.before_clear);
    memset(&s->run, 0, sizeof s->run);
    free(s->view.buckets_before_clear);
    s->view.buckets_before_clear = NULL;
    memset(s->view.buckets, 0, s->view.nbuckets * sizeof *s->view.buckets);
    for (size_t i = 0; i < s->hits_alloc; i++)
        s->hits[i].count = s->hits[i].before_clear = s->hits[i].run = 0;
    for (size_t i = 0; i < s->nfuncs; i++)
        s->funcs[i].samples = 0;
    session_stacks_reset(s);
    s->clear_frame = 0;
}

/* Most samples first (Self, or Total), then the other; ties by name so the
 * order is stable. */
static int ranking_cmp(const void *a, const void *b, void *arg)
{
    const struct ranking_by *by = arg;
    const struct func *x = &by->s->funcs[*(const size_t *)a];
    const struct func *y = &by->s->funcs[*(const size_t *)b];
    uint64_t x1 = by->total ? x->total : x->samples;
    uint64_t y1 = by->total ? y->total : y->samples;
    uint64_t x2 = by->total ? x->samples : x->total;
    uint64_t y2 = by->total ? y->samples : y->total;
    if (x1 != y1)
        return x1 > y1 ? -1 : 1;
    if (x2 != y2)
        return x2 > y2 ? -1 : 1;
    return strcmp(x->name, y->name);
}

size_t *session_ranking_by(struct session *s, bool by_total, size_t *n)
{
    session_totals(s);
    size_t *order = xcalloc(s->nfuncs ? s->nfuncs : 1, sizeof *order);
    size_t k = 0;
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (s->funcs[i].samples > 0 || s->funcs[i].total > 0)
            order[k++] = i;
    }
    struct ranking_by by = {s, by_total};
    qsort_r(order, k, sizeof *order, ranking_cmp, &by);
    *n = k;
    return order;
}

size_t *session_ranking(struct session *s, size_t *n)
{
    return session_ranking_by(s, false, n);
}

const char *session_bucket_label(const struct session *s, size_t i, size_t *others)
{
    /* The histogram's own path, with an order made for this one call. */
    struct hitorder o;
    hitorder_init(&o);
    const char *name = hitorder_label(&o, s, i, others);
    hitorder_fini(&o);
    return name;
}

void session_set_exit(struct session *s, int wstatus)
{
    s->cache.funcs_dirty = true; /* a JIT's map is read once more, now it is complete */
    if (WIFSIGNALED(wstatus)) {
        s->exit_kind = EXIT_ABORTED;
        s->exit_signal = WTERMSIG(wstatus);
    } else {
        s->exit_kind = EXIT_TERMINATED;
        s->exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 0;
    }
    struct proc_info *p = threads_proc(s, s->pid, 0, false);
    if (p != NULL) { /* the program's own process: its status is this */
        p->exit_known = true;
        p->wstatus = wstatus;
        if (!p->ended) {
            p->ended = true;
            p->end_ns = s->end_ns;
        }
    }
}
