#include "config.h"

#include "analysis/merge.h"
#include "prf/replay.h"
#include "session/limits.h"
#include "session/lines.h"
#include "session/session.h"
#include "session/stacks.h"
#include "session/threads.h"
#include "session/view.h"
#include "util/quote.h"
#include "util/xmalloc.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MERGE_T0 1 /* the merged timeline's clock starts here, as a replay's does */

static void merge_hex(const uint8_t *id, size_t len, char *out)
{
    for (size_t i = 0; i < len; i++)
        sprintf(out + 2 * i, "%02x", id[i]);
    out[2 * len] = '\0';
}

/* PATH's last part, as a message may quote it (a file's text: escaped). */
static const char *merge_base(const char *path)
{
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    return quote(slash != NULL ? slash + 1 : path != NULL ? path : "?");
}

/* Why RUN cannot be added to FIRST, or NULL. */
static char *merge_refuse(const struct session *first, const struct session *run, const char *name,
                          const char *first_name)
{
    if (run->classic)
        return xasprintf("%s: a 1983 PROFIL file has buckets but no exact PCs: it cannot be merged",
                         name);
    const struct module *a = first->modules[0], *b = run->modules[0];
    if (strcmp(merge_base(first->program), merge_base(run->program)) != 0)
        return xasprintf("%s: another program (%s, %s's is %s): --force merges them anyway", name,
                         merge_base(run->program), first_name, merge_base(first->program));
    if (a->build_id_len > 0 && b->build_id_len > 0 &&
        (a->build_id_len != b->build_id_len ||
         memcmp(a->build_id, b->build_id, a->build_id_len) != 0)) {
        char ha[65], hb[65];
        merge_hex(a->build_id, a->build_id_len, ha);
        merge_hex(b->build_id, b->build_id_len, hb);
        return xasprintf("%s: another build of the program (build id %.12s, %s's is %.12s): "
                         "--force merges them anyway",
                         name, hb, first_name, ha);
    }
    if (run->interval_us != first->interval_us)
        return xasprintf("%s: sampled every %u us, %s every %u us: a sample would not stand for "
                         "the same time (--force merges them anyway)",
                         name, run->interval_us, first_name, first->interval_us);
    if (run->clock != first->clock)
        return xasprintf("%s: the %s clock, %s the %s one: --force merges them anyway", name,
                         run->clock == CLOCK_KIND_CPU ? "cpu" : "wall", first_name,
                         first->clock == CLOCK_KIND_CPU ? "cpu" : "wall");
    return NULL;
}

static bool merge_same_module(const struct module *a, const struct module *b)
{
    return a->kind == b->kind && strcmp(a->path, b->path) == 0 &&
           a->build_id_len == b->build_id_len &&
           memcmp(a->build_id, b->build_id, a->build_id_len) == 0;
}

/* Which of OUT's modules each of RUN's is: the same file of the same build,
 * else RUN's module moves into OUT (RUN keeps an empty one in its place).
 * The program is module 0 in both, whatever its file is called. */
static uint32_t *merge_modules(struct session *out, struct session *run)
{
    uint32_t *map = xcalloc(run->nmodules + 1, sizeof *map);
    for (size_t k = 0; k < run->nmodules; k++) {
        struct module *m = run->modules[k];
        size_t j = 0;
        if (k > 0) {
            for (j = 1; j < out->nmodules && !merge_same_module(out->modules[j], m); j++)
                ;
        }
        if (j == out->nmodules) {
            out->modules = xreallocarray(out->modules, out->nmodules + 1, sizeof *out->modules);
            m->id = (uint32_t)out->nmodules;
            out->modules[out->nmodules++] = m;
            run->modules[k] = module_new((uint32_t)k, m->path, m->kind);
            run->modules[k]->loaded = true;
            session_note_pseudo_module(out, (uint32_t)j);
            map[k] = (uint32_t)j;
            continue;
        }
        map[k] = (uint32_t)j;
        /* The same build: the symbols an earlier run's file did not keep. */
        struct module *o = out->modules[j];
        for (size_t i = 0; i < m->nsyms; i++) {
            const struct symbol *sym = &m->syms[i];
            long have = module_find_symbol(o, sym->start);
            if (have < 0 || o->syms[have].start != sym->start)
                module_add_symbol(o, sym->start, sym->end, sym->name, sym->synthetic);
        }
    }
    return map;
}

/* RUN's stack ids as OUT's.  The functions inlined at a frame's PC are
 * OUT's (its LINE chunk, as the merged file's reader will make them), not
 * RUN's: a run whose places disagree with the first run's (other inline
 * levels at one PC) would otherwise give two frames that read back as one.
 * A node RUN inlined at a frame is the frame's innermost level in OUT. */
static uint32_t *merge_stacks(struct session *out, const struct session *run, const uint32_t *mmap)
{
    uint32_t *map = xcalloc(run->nstacks + 1, sizeof *map);
    for (size_t id = 1; id < run->nstacks; id++) {
        const struct stack_node *n = &run->stacks[id];
        uint32_t parent = n->parent < id ? map[n->parent] : 0;
        if (n->module >= run->nmodules || n->level > 0)
            map[id] = parent;
        else
            map[id] = session_stack_intern(out, parent, mmap[n->module], n->offset);
    }
    return map;
}

/* RUN's timeline fed into OUT from frame BASE on. */
static void merge_frames(struct session *out, const struct session *run, const uint32_t *mmap,
                         const uint32_t *smap, size_t base)
{
    for (size_t i = 0; i < run->nframes; i++) {
        uint64_t t = MERGE_T0 + (base + i) * SESSION_FRAME_NS;
        session_frame_at(out, t);
        replay_feed_frame(out, run, i, t, mmap, smap);
    }
    for (size_t i = 0; i < run->tstacks.alloc; i++) {
        const struct tid_count *t = &run->tstacks.slots[i];
        if (t->tid != 0 && t->key < run->nstacks)
            session_thread_stack(out, t->tid, smap[t->key],
                                 session_sat_add(t->count, t->before_clear));
    }
}

/* RUN's processes and threads, and each thread's samples at each hit, into
 * OUT, their times moved to where RUN's timeline starts in OUT's (frame
 * BASE).  A thread whose tid an earlier run's thread of the same process
 * id had (a program run in a container, pid 1 each time) is one thread
 * of the merge, as the per-thread stacks are. */
static void merge_threads(struct session *out, const struct session *run, const uint32_t *mmap,
                          size_t base)
{
    uint64_t shift = MERGE_T0 + (uint64_t)base * SESSION_FRAME_NS;
#define MERGE_AT(t) (shift + ((t) > run->start_ns ? (t)-run->start_ns : 0))
    for (size_t i = 0; i < run->nprocs; i++) {
        const struct proc_info *p = &run->procs[i];
        struct proc_info *q = threads_add_proc(out, p->pid, MERGE_AT(p->start_ns));
        if (q == NULL)
            break; /* past LIMIT_PROCS: its samples count, without a process */
        q->ppid = p->ppid;
        q->exe = p->exe != NULL ? xstrdup(p->exe) : NULL;
        q->args = xcalloc(p->nargs + 1, sizeof *q->args);
        for (size_t k = 0; k < p->nargs; k++)
            q->args[q->nargs++] = xstrdup(p->args[k]);
        q->ended = p->ended;
        q->end_ns = p->ended ? MERGE_AT(p->end_ns) : 0;
        q->exit_known = p->exit_known;
        q->wstatus = p->wstatus;
        q->exe_module = p->exe_module < run->nmodules ? mmap[p->exe_module] : UINT32_MAX;
        size_t *idx, n = threads_of_proc(run, p, &idx);
        for (size_t k = 0; k < n; k++) {
            const struct thread_info *t = &run->threads[idx[k]];
            struct thread_info *u = threads_get(out, t->pid, t->tid, MERGE_AT(t->start_ns));
            if (u == NULL)
                break; /* past LIMIT_THREADS */
            if (u->name == NULL && t->name != NULL)
                u->name = xstrdup(t->name);
            u->ended = t->ended;
            u->end_ns = t->ended ? MERGE_AT(t->end_ns) : 0;
            u->on_cpu =
                session_sat_add(u->on_cpu, session_sat_add(t->on_cpu, t->on_cpu_before_clear));
            u->blocked =
                session_sat_add(u->blocked, session_sat_add(t->blocked, t->blocked_before_clear));
        }
        free(idx);
    }
#undef MERGE_AT
    for (size_t i = 0; i < run->thits.alloc; i++) {
        const struct tid_count *e = &run->thits.slots[i];
        if (e->tid == 0 || e->key >= run->nkeys)
            continue;
        const struct hit_key *k = &run->hit_keys[e->key];
        uint32_t id = k->module < run->nmodules ? session_hit_id(out, mmap[k->module], k->offset)
                                                : UINT32_MAX;
        struct thread_info *t = threads_find(out, e->tid);
        uint64_t count = session_sat_add(e->count, e->before_clear);
        if (t == NULL || id == UINT32_MAX || count == 0)
            continue;
        uint64_t on = t->on_cpu; /* the ticks are the thread table's: only the split is added */
        threads_count(out, t, id, false, count);
        t->on_cpu = on;
    }
}

/* The record of the merge in OUT's metadata: which runs, and the live
 * unwinding figures of the first run no longer hold. */
static void merge_meta(struct session *out, struct session **runs, const char *const *names,
                       size_t n)
{
    cJSON *obj = out->meta_json != NULL ? cJSON_Parse(out->meta_json) : NULL;
    if (obj == NULL || !cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        obj = cJSON_CreateObject();
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "unwind");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "merged");
    cJSON *list = cJSON_AddArrayToObject(obj, "merged");
    for (size_t i = 0; i < n; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "file", names[i]);
        cJSON_AddNumberToObject(r, "pid", runs[i]->pid);
        cJSON_AddNumberToObject(r, "start_time", (double)runs[i]->start_time);
        cJSON_AddNumberToObject(r, "duration_s", runs[i]->duration_s);
        cJSON_AddNumberToObject(r, "samples", (double)session_run_counters(runs[i]).total);
        cJSON_AddItemToArray(list, r);
    }
    char *text = cJSON_PrintUnformatted(obj);
    cJSON_Delete(obj);
    free(out->meta_json);
    out->meta_json = text != NULL ? xstrdup(text) : NULL;
    cJSON_free(text);
}

int merge_sessions(struct session *out, struct session **runs, const char *const *names, size_t n,
                   bool force, char **cause)
{
    *cause = NULL;
    for (size_t i = 0; i < n; i++) {
        char *why = force && !runs[i]->classic && !runs[0]->classic
                        ? NULL
                        : merge_refuse(runs[0], runs[i], names[i], names[0]);
        if (why != NULL) {
            *cause = why;
            return -1;
        }
    }
    session_reset(out);
    session_timeline_reset(out);
    threads_reset(out); /* the first run's come again, with the others' */
    session_filter_free(out->view.filter);
    out->view.filter = NULL;
    out->start_ns = MERGE_T0;
    out->duration_s = 0;
    size_t end = 0;
    for (size_t i = 0; i < n; i++) {
        /* Each run starts where the runs before it have taken their time
         * (frames are sums: a run's last frame and the next one's first may
         * share one), so the timeline is as long as the durations say, as
         * the reader checks. */
        size_t base = (size_t)(out->duration_s * (1e9 / (double)SESSION_FRAME_NS));
        /* But no more than a few empty frames past the runs before: an
         * idle end (the CPU clock, a paused clock), or a duration a file
         * claims without the frames to show for it (days, in 4 KB), must
         * not cost a frame for each 100 ms of it. */
        if (base > end + LIMIT_FRAMES_SLACK)
            base = end + LIMIT_FRAMES_SLACK;
        struct session *run = runs[i];
        uint64_t before = session_run_counters(out).total;
        uint32_t *mmap = merge_modules(out, run);
        lines_merge(out, run, mmap);
        uint32_t *smap = merge_stacks(out, run, mmap);
        merge_frames(out, run, mmap, smap, base);
        merge_threads(out, run, mmap, base);
        free(smap);
        free(mmap);
        out->has_stacks |= run->has_stacks;
        uint64_t got = session_run_counters(out).total - before,
                 want = session_run_counters(run).total;
        if (got != want) {
            *cause = xasprintf("%s: its timeline holds %llu of its %llu samples: it cannot be "
                               "merged",
                               names[i], (unsigned long long)got, (unsigned long long)want);
            return -1;
        }
        if (base + run->nframes > end)
            end = base + run->nframes;
        out->duration_s += run->duration_s;
        if (run->max_threads > out->max_threads)
            out->max_threads = run->max_threads;
        out->exit_kind = run->exit_kind;
        out->exit_code = run->exit_code;
        out->exit_signal = run->exit_signal;
    }
    out->end_ns = MERGE_T0 + end * SESSION_FRAME_NS;
    out->unwinds = 0;
    out->cache.funcs_dirty = true;
    out->cache.totals_dirty = true;
    merge_meta(out, runs, names, n);
    return 0;
}
