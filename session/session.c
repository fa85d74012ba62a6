#include "config.h"

#include "session/hitorder.h"
#include "session/internal.h"
#include "session/limits.h"
#include "session/lines.h"
#include "session/stacks.h"
#include "session/threads.h"
#include "util/stats.h"
#include "util/xmalloc.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

size_t session_bucket_count(uint64_t low, uint64_t high, uint32_t paragraphs)
{
    uint64_t size = 16 * (uint64_t)(paragraphs ? paragraphs : 1);
    uint64_t span = high > low ? high - low : 0;
    uint64_t n = (span + size - 1) / size;
    return n ? (size_t)n : 1;
}

static void hit_table_clear(struct hit *table, size_t alloc);

static bool session_no_inline_default;

void session_set_no_inline(bool no_inline)
{
    session_no_inline_default = no_inline;
}

struct session *session_new_empty(void)
{
    struct session *s = xcalloc(1, sizeof *s);
    s->no_inline = session_no_inline_default;
    s->hits_alloc = 1024;
    s->hits = xcalloc(s->hits_alloc, sizeof *s->hits);
    hit_table_clear(s->hits, s->hits_alloc);
    s->anon_module = UINT32_MAX;
    s->kernel_module = UINT32_MAX;
    s->jit_module = UINT32_MAX;
    s->unknown_module = UINT32_MAX;
    s->truncated_module = UINT32_MAX;
    return s;
}

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
    s->bucket_paragraphs = s->asked_paragraphs = bucket_paragraphs;
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
    s->nbuckets = session_bucket_count(s->prog_low, s->prog_high, bucket_paragraphs);
    if (s->nbuckets > LIMIT_BUCKETS) {
        /* The -b that brings the buckets under the limit, when there is one. */
        uint64_t span = s->prog_high - s->prog_low, need = span / (16 * LIMIT_BUCKETS) + 1;
        if (need <= 65535)
            *cause = xasprintf("%s: its code spans %llu bytes: %zu buckets of %u paragraph%s, "
                               "more than the %llu profil keeps; use -b %llu or more",
                               program, (unsigned long long)span, s->nbuckets, bucket_paragraphs,
                               bucket_paragraphs == 1 ? "" : "s", LIMIT_BUCKETS,
                               (unsigned long long)need);
        else
            *cause = xasprintf("%s: its code spans %llu bytes, more than profil's buckets can "
                               "cover",
                               program, (unsigned long long)span);
        session_free(s);
        return NULL;
    }
    const char *was_for = xmalloc_for("the buckets");
    s->buckets = xcalloc(s->nbuckets, sizeof *s->buckets);
    xmalloc_for(was_for);
    return s;
}

static void frame_free(struct frame *f);

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
    free(s->jit);
    free(s->buckets);
    free(s->buckets_before_clear);
    for (size_t i = 0; i < s->nmodules; i++)
        module_free(s->modules[i]);
    free(s->modules);
    free(s->hits);
    for (size_t i = 0; i < s->nfuncs; i++) {
        free(s->funcs[i].name);
        free(s->funcs[i].raw);
    }
    free(s->funcs);
    free(s->func_index);
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
    free(s);
}

uint32_t session_module(struct session *s, const char *path, enum module_kind kind)
{
    for (size_t i = 0; i < s->nmodules; i++) {
        if (s->modules[i]->kind == kind && strcmp(s->modules[i]->path, path) == 0)
            return (uint32_t)i;
    }
    s->modules = xreallocarray(s->modules, s->nmodules + 1, sizeof *s->modules);
    s->modules[s->nmodules] = module_new((uint32_t)s->nmodules, path, kind);
    return (uint32_t)s->nmodules++;
}

/* Mix the key so that nearby offsets spread over the table. */
uint64_t hit_hash(uint32_t module, uint64_t offset)
{
    uint64_t x = offset ^ ((uint64_t)module << 48) ^ 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The slot of (TID, KEY) in SLOTS of ALLOC (a power of two). */
static struct tid_count *tid_slot(struct tid_count *slots, size_t alloc, uint32_t tid, uint32_t key)
{
    size_t mask = alloc - 1;
    for (size_t i = hit_hash(tid, key) & mask;; i = (i + 1) & mask) {
        if (slots[i].tid == 0 || (slots[i].tid == tid && slots[i].key == key))
            return &slots[i];
    }
}

struct tid_count *tid_table_get(struct tid_table *t, uint32_t tid, uint32_t key, size_t limit)
{
    if (tid == 0)
        return NULL;
    if (t->n >= limit) {
        struct tid_count *e = t->alloc ? tid_slot(t->slots, t->alloc, tid, key) : NULL;
        return e != NULL && e->tid != 0 ? e : NULL;
    }
    if (2 * (t->n + 1) > t->alloc) {
        size_t alloc = t->alloc ? 2 * t->alloc : 256;
        struct tid_count *slots = xcalloc(alloc, sizeof *slots);
        for (size_t i = 0; i < t->alloc; i++) {
            if (t->slots[i].tid != 0)
                *tid_slot(slots, alloc, t->slots[i].tid, t->slots[i].key) = t->slots[i];
        }
        free(t->slots);
        t->slots = slots;
        t->alloc = alloc;
    }
    struct tid_count *e = tid_slot(t->slots, t->alloc, tid, key);
    if (e->tid == 0) {
        *e = (struct tid_count){tid, key, 0, 0};
        t->n++;
    }
    return e;
}

uint64_t tid_table_count(const struct tid_table *t, uint32_t tid, uint32_t key, bool run)
{
    if (t->alloc == 0 || tid == 0)
        return 0;
    const struct tid_count *e = tid_slot(t->slots, t->alloc, tid, key);
    if (e->tid == 0)
        return 0;
    return run ? session_sat_add(e->count, e->before_clear) : e->count;
}

size_t tid_table_used(const struct tid_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->alloc; i++)
        n += t->slots[i].tid != 0 &&
             session_sat_add(t->slots[i].count, t->slots[i].before_clear) > 0;
    return n;
}

void tid_table_clear(struct tid_table *t)
{
    for (size_t i = 0; i < t->alloc; i++) {
        t->slots[i].before_clear = session_sat_add(t->slots[i].before_clear, t->slots[i].count);
        t->slots[i].count = 0;
    }
}

void tid_table_zero(struct tid_table *t)
{
    for (size_t i = 0; i < t->alloc; i++)
        t->slots[i].count = t->slots[i].before_clear = 0;
}

void tid_table_free(struct tid_table *t)
{
    free(t->slots);
    *t = (struct tid_table){0};
}

/* Slot for KEY: the matching entry, or the empty slot where it would go. */
static struct hit *hit_slot(struct hit *table, size_t alloc, uint32_t module, uint64_t offset)
{
    size_t mask = alloc - 1;
    for (size_t i = hit_hash(module, offset) & mask;; i = (i + 1) & mask) {
        struct hit *h = &table[i];
        if (h->module == UINT32_MAX || (h->module == module && h->offset == offset))
            return h;
    }
}

/* An empty slot has module UINT32_MAX. */
static void hit_table_clear(struct hit *table, size_t alloc)
{
    for (size_t i = 0; i < alloc; i++)
        table[i] = (struct hit){.module = UINT32_MAX, .func = -1};
}

/* Keep the load factor under one half. */
static void hit_table_grow(struct session *s)
{
    size_t alloc = s->hits_alloc * 2;
    struct hit *table = xcalloc(alloc, sizeof *table);
    hit_table_clear(table, alloc);
    for (size_t i = 0; i < s->hits_alloc; i++) {
        if (s->hits[i].module != UINT32_MAX)
            *hit_slot(table, alloc, s->hits[i].module, s->hits[i].offset) = s->hits[i];
    }
    free(s->hits);
    s->hits = table;
    s->hits_alloc = alloc;
}

void frame_note(struct frame_hit **list, uint32_t *n, uint32_t *alloc, bool *compact, uint32_t id,
                uint64_t count)
{
    while (count > 0) {
        uint32_t c = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
        if (*n > 0 && (*list)[*n - 1].id == id && (*list)[*n - 1].count <= UINT32_MAX - c) {
            (*list)[*n - 1].count += c; /* a hot loop: the same PC again */
        } else {
            if (*n == *alloc) {
                *alloc = *alloc ? 2 * *alloc : 16;
                *list = xreallocarray(*list, *alloc, sizeof **list);
            }
            (*list)[(*n)++] = (struct frame_hit){id, c};
            *compact = false;
        }
        count -= c;
    }
}

static int frame_hit_cmp(const void *a, const void *b)
{
    const struct frame_hit *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

void frame_list_compact(struct frame_hit **list, uint32_t *n, uint32_t *alloc, bool *compact)
{
    if (*compact || *n == 0) {
        *compact = true;
        return;
    }
    struct frame_hit *l = *list;
    qsort(l, *n, sizeof *l, frame_hit_cmp);
    uint32_t k = 0;
    for (uint32_t i = 0; i < *n; i++) {
        if (k > 0 && l[k - 1].id == l[i].id && l[k - 1].count <= UINT32_MAX - l[i].count)
            l[k - 1].count += l[i].count;
        else
            l[k++] = l[i];
    }
    *n = k;
    *alloc = k;
    *list = xreallocarray(l, k ? k : 1, sizeof *l);
    *compact = true;
}

void frame_tid_note(struct session *s, struct ingest *in, bool stack, uint32_t tid, uint32_t key,
                    uint64_t count)
{
    struct frame *f = in != NULL ? in->frame : NULL;
    if (f == NULL || tid == 0)
        return;
    struct frame_tid **list = stack ? &f->tstacks : &f->thits;
    uint32_t *n = stack ? &f->ntstacks : &f->nthits;
    uint32_t *alloc = stack ? &f->tstacks_alloc : &f->thits_alloc;
    bool *compact = stack ? &f->tstacks_compact : &f->thits_compact;
    s->frame_threads = true;
    while (count > 0) {
        uint32_t c = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
        struct frame_tid *last = *n > 0 ? &(*list)[*n - 1] : NULL;
        if (last != NULL && last->tid == tid && last->key == key && last->count <= UINT32_MAX - c) {
            last->count += c; /* a hot loop: the same thread at the same PC again */
        } else {
            if (*n == *alloc) {
                *alloc = *alloc ? 2 * *alloc : 16;
                *list = xreallocarray(*list, *alloc, sizeof **list);
            }
            (*list)[(*n)++] = (struct frame_tid){tid, key, c};
            *compact = false;
        }
        count -= c;
    }
}

static int frame_tid_cmp(const void *a, const void *b)
{
    const struct frame_tid *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Sort and merge a list of frame_tid_note's: one entry per thread and key. */
static void frame_tid_compact(struct frame_tid **list, uint32_t *n, uint32_t *alloc, bool *compact)
{
    if (*compact || *n == 0) {
        *compact = true;
        return;
    }
    struct frame_tid *l = *list;
    qsort(l, *n, sizeof *l, frame_tid_cmp);
    uint32_t k = 0;
    for (uint32_t i = 0; i < *n; i++) {
        if (k > 0 && l[k - 1].tid == l[i].tid && l[k - 1].key == l[i].key &&
            l[k - 1].count <= UINT32_MAX - l[i].count)
            l[k - 1].count += l[i].count;
        else
            l[k++] = l[i];
    }
    *n = k;
    *alloc = k;
    *list = xreallocarray(l, k ? k : 1, sizeof *l);
    *compact = true;
}

/* One entry per hit id and per stack id, sorted: how frames are kept once
 * they are old. */
static void frame_compact(struct frame *f)
{
    frame_list_compact(&f->hits, &f->nhits, &f->hits_alloc, &f->compact);
    frame_list_compact(&f->stacks, &f->nstacks, &f->stacks_alloc, &f->stacks_compact);
    frame_tid_compact(&f->thits, &f->nthits, &f->thits_alloc, &f->thits_compact);
    frame_tid_compact(&f->tstacks, &f->ntstacks, &f->tstacks_alloc, &f->tstacks_compact);
}

/* What frame F owns. */
static void frame_free(struct frame *f)
{
    free(f->hits);
    free(f->stacks);
    free(f->thits);
    free(f->tstacks);
}

void session_timeline_compact(struct session *s)
{
    for (size_t i = 0; i < s->nframes; i++)
        frame_compact(&s->frames[i]);
    s->compact_upto = s->nframes;
}

void session_timeline_reset(struct session *s)
{
    for (size_t i = 0; i < s->nframes; i++)
        frame_free(&s->frames[i]);
    free(s->frames);
    s->frames = NULL;
    s->nframes = s->frames_alloc = s->clear_frame = s->compact_upto = 0;
}

uint32_t session_hit_id(const struct session *s, uint32_t module, uint64_t offset)
{
    if (s->hits_alloc == 0)
        return UINT32_MAX;
    const struct hit *h = hit_slot(s->hits, s->hits_alloc, module, offset);
    return h->module == UINT32_MAX ? UINT32_MAX : h->id;
}

void session_add_hit(struct session *s, uint32_t module, uint64_t offset, uint64_t count)
{
    ingest_hit(s, NULL, module, offset, count);
}

uint32_t ingest_hit(struct session *s, struct ingest *in, uint32_t module, uint64_t offset,
                    uint64_t count)
{
    struct hit *h = hit_slot(s->hits, s->hits_alloc, module, offset);
    if (h->module == UINT32_MAX) {
        if (2 * (s->nhits + 1) > s->hits_alloc) {
            hit_table_grow(s);
            h = hit_slot(s->hits, s->hits_alloc, module, offset);
        }
        *h = (struct hit){.module = module, .offset = offset, .func = -1, .id = (uint32_t)s->nkeys};
        s->hit_keys =
            xgrowarray(s->hit_keys, &s->hit_keys_alloc, s->nkeys + 1, sizeof *s->hit_keys);
        s->hit_keys[s->nkeys++] = (struct hit_key){module, offset};
        s->nhits++;
        s->funcs_dirty = true;
    }
    h->run = session_sat_add(h->run, count);
    if (in == NULL || in->view) {
        h->count = session_sat_add(h->count, count);
        s->totals_dirty = true;
        if (h->func >= 0)
            s->funcs[h->func].samples = session_sat_add(s->funcs[h->func].samples, count);
    }
    struct frame *f = in != NULL ? in->frame : NULL;
    if (f != NULL)
        frame_note(&f->hits, &f->nhits, &f->hits_alloc, &f->compact, h->id, count);
    return h->id;
}

/* The recorded run's program area: the program's own (module 0's, or the
 * --range asked), whichever a filter shows. */
static void session_run_area(const struct session *s, uint64_t *lo, uint64_t *hi)
{
    *lo = s->prog_module == 0 ? s->prog_low : s->prog_low0;
    *hi = s->prog_module == 0 ? s->prog_high : s->prog_high0;
}

/* The bucket of offset OFF of module AREA's code when the area is
 * [LO, HI) at PARAGRAPHS per bucket, NBUCKETS of them. */
static bool session_area_bucket(const struct session *s, uint32_t area, uint64_t lo, uint64_t hi,
                                uint64_t off, uint32_t paragraphs, size_t nbuckets, size_t *bucket)
{
    uint64_t vaddr;
    if (s->nmodules == 0 || !module_offset_to_vaddr(s->modules[area], off, &vaddr) || vaddr < lo ||
        vaddr >= hi)
        return false;
    uint64_t b = (vaddr - lo) / (16 * (uint64_t)paragraphs);
    if (b >= nbuckets)
        return false;
    *bucket = (size_t)b;
    return true;
}

/* The bucket of program offset OFF with buckets of PARAGRAPHS, NBUCKETS of them. */
static bool session_bucket_at(const struct session *s, uint64_t off, uint32_t paragraphs,
                              size_t nbuckets, size_t *bucket)
{
    return session_area_bucket(s, s->prog_module, s->prog_low, s->prog_high, off, paragraphs,
                               nbuckets, bucket);
}

bool session_bucket_of(const struct session *s, uint64_t off, size_t *bucket)
{
    return session_bucket_at(s, off, s->bucket_paragraphs, s->nbuckets, bucket);
}

/* Count N samples at (MODULE, OFFSET) where PROFIL would: a bucket of the
 * program, DOS, I/O or high, by the module's kind.  Live samples and replayed
 * ones both come here, so a replay classifies exactly as the run did. */
enum counter_kind session_counter_of(const struct session *s, uint32_t module, uint64_t offset,
                                     size_t *bucket)
{
    if (module == s->prog_module) /* in the program's file but outside its code: high */
        return session_bucket_of(s, offset, bucket) ? COUNT_PROGRAM : COUNT_HIGH;
    return session_module_counter(s, module);
}

/* Where a sample outside the program area counts, by its module's kind. */
enum counter_kind session_module_counter(const struct session *s, uint32_t module)
{
    switch (s->modules[module]->kind) {
    case MODULE_PROGRAM: /* another program, or the first while the area is another's */
    case MODULE_LIBRARY:
    case MODULE_VDSO: return COUNT_DOS;
    case MODULE_KERNEL: return COUNT_IO;
    case MODULE_ANON: break;
    }
    return COUNT_HIGH;
}

/* Where the recorded run counts a sample at (MODULE, OFFSET): by the
 * program's own area, whichever area the views show. */
static enum counter_kind session_run_counter(const struct session *s, uint32_t module,
                                             uint64_t offset, enum counter_kind shown)
{
    if (s->prog_module == 0)
        return shown;
    if (module != 0)
        return session_module_counter(s, module);
    uint64_t lo, hi;
    size_t b;
    session_run_area(s, &lo, &hi);
    return session_area_bucket(s, 0, lo, hi, offset, 1, SIZE_MAX, &b) ? COUNT_PROGRAM : COUNT_HIGH;
}

void counters_add(struct counters *c, enum counter_kind k, uint64_t n)
{
    uint64_t *to = k == COUNT_PROGRAM ? &c->program
                   : k == COUNT_DOS   ? &c->dos
                   : k == COUNT_IO    ? &c->io
                                      : &c->high;
    *to = session_sat_add(*to, n);
    c->total = session_sat_add(c->total, n);
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
        counters_add(&s->c, k, n);
        if (k == COUNT_PROGRAM)
            s->buckets[b] += n;
    }
    in->hit = ingest_hit(s, in, module, offset, n);
}

/* Remember that PID ran anonymous code: its JIT may keep a perf map. */
static void session_note_jit(struct session *s, uint32_t pid)
{
    for (size_t i = 0; i < s->njit; i++) {
        if (s->jit[i].pid == pid)
            return;
    }
    s->jit = xreallocarray(s->jit, s->njit + 1, sizeof *s->jit);
    s->jit[s->njit++] = (struct session_jit){pid, -1, -1};
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

/* Frame I, made (with every frame before it) on first use. */
static struct frame *session_frame(struct session *s, uint64_t i)
{
    if (i >= s->frames_alloc) {
        size_t alloc = s->frames_alloc ? s->frames_alloc : 64;
        while (alloc <= i)
            alloc *= 2;
        s->frames = xreallocarray(s->frames, alloc, sizeof *s->frames);
        memset(s->frames + s->frames_alloc, 0, (alloc - s->frames_alloc) * sizeof *s->frames);
        s->frames_alloc = alloc;
    }
    if (i >= s->nframes)
        s->nframes = (size_t)i + 1;
    /* Frames two behind the newest are done: keep them small. */
    while (s->compact_upto + 2 < s->nframes)
        frame_compact(&s->frames[s->compact_upto++]);
    return &s->frames[i];
}

struct frame *session_frame_at(struct session *s, uint64_t time)
{
    uint64_t i = time > s->start_ns ? (time - s->start_ns) / SESSION_FRAME_NS : 0;
    if (i >= LIMIT_FRAMES)
        i = LIMIT_FRAMES - 1; /* a clock gone mad must not eat memory: 4.85 days of frames */
    if (i < s->clear_frame)
        i = s->clear_frame; /* counted after a clear: must come after it in a replay */
    return session_frame(s, i);
}

void session_ingest(struct session *s, const struct event *ev)
{
    /* --start-paused: the ticks between the exec and the pause are not the run's. */
    if (s->sample_from_ns != 0 && ev->time_ns < s->sample_from_ns &&
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
                counters_add(&s->c, COUNT_IO, ev->sample.count);
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
        if (!s->window)
            s->c.lost += ev->lost.count;
        break;
    case EVENT_PREEMPTED:
        in.delta.preempted += ev->lost.count;
        s->run.preempted = session_sat_add(s->run.preempted, ev->lost.count);
        if (!s->window)
            s->c.preempted += ev->lost.count;
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
    struct counters *b = &s->before_clear;
    b->program += s->c.program;
    b->dos += s->c.dos;
    b->io += s->c.io;
    b->high += s->c.high;
    b->total += s->c.total;
    b->lost += s->c.lost;
    b->preempted += s->c.preempted;
    memset(&s->c, 0, sizeof s->c);
    if (s->classic) { /* no hits to rebuild the whole run's buckets from */
        if (s->buckets_before_clear == NULL)
            s->buckets_before_clear = xcalloc(s->nbuckets ? s->nbuckets : 1, sizeof *s->buckets);
        for (size_t i = 0; i < s->nbuckets; i++)
            s->buckets_before_clear[i] += s->buckets[i];
    }
    memset(s->buckets, 0, s->nbuckets * sizeof *s->buckets);
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
    memset(&s->c, 0, sizeof s->c);
    memset(&s->before_clear, 0, sizeof s->before_clear);
    memset(&s->run, 0, sizeof s->run);
    free(s->buckets_before_clear);
    s->buckets_before_clear = NULL;
    memset(s->buckets, 0, s->nbuckets * sizeof *s->buckets);
    for (size_t i = 0; i < s->hits_alloc; i++)
        s->hits[i].count = s->hits[i].before_clear = s->hits[i].run = 0;
    for (size_t i = 0; i < s->nfuncs; i++)
        s->funcs[i].samples = 0;
    session_stacks_reset(s);
    s->clear_frame = 0;
}

struct counters session_run_counters(const struct session *s)
{
    return s->run;
}

void session_run_from_view(struct session *s)
{
    struct counters r = s->c;
    r.program += s->before_clear.program;
    r.dos += s->before_clear.dos;
    r.io += s->before_clear.io;
    r.high += s->before_clear.high;
    r.total += s->before_clear.total;
    r.lost += s->before_clear.lost;
    r.preempted += s->before_clear.preempted;
    s->run = r;
    for (size_t i = 0; i < s->hits_alloc; i++)
        s->hits[i].run = s->hits[i].count + s->hits[i].before_clear;
}

uint64_t *session_run_buckets(const struct session *s, uint32_t paragraphs, size_t *n)
{
    if (paragraphs == 0)
        paragraphs = s->bucket_paragraphs;
    uint64_t lo, hi;
    session_run_area(s, &lo, &hi);
    *n = session_bucket_count(lo, hi, paragraphs);
    uint64_t *b = xcalloc(*n ? *n : 1, sizeof *b);
    /* The buckets shown, where they are the run's at that size. */
    if (s->classic || (paragraphs == s->bucket_paragraphs && s->before_clear.program == 0 &&
                       s->prog_module == 0 && s->filter == NULL && !s->window)) {
        for (size_t i = 0; i < *n && i < s->nbuckets; i++)
            b[i] = s->buckets[i] + (s->buckets_before_clear ? s->buckets_before_clear[i] : 0);
        return b;
    }
    size_t k;
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module == 0 && h->run > 0 &&
            session_area_bucket(s, 0, lo, hi, h->offset, paragraphs, *n, &k))
            b[k] += h->run;
    }
    return b;
}

size_t session_clears(const struct session *s, double *at, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nframes; i++) {
        if (!s->frames[i].cleared)
            continue;
        if (n < max)
            at[n] = (double)i * (double)SESSION_FRAME_NS / 1e9;
        n++;
    }
    return n;
}

int session_rebucket(struct session *s, uint32_t paragraphs)
{
    if (paragraphs == 0 || s->classic)
        return -1;
    /* Zoomed in past the limit: the smallest buckets that stay under it. */
    uint64_t span = s->prog_high > s->prog_low ? s->prog_high - s->prog_low : 0;
    uint64_t least = span / (16 * LIMIT_BUCKETS) + 1;
    if (session_bucket_count(s->prog_low, s->prog_high, paragraphs) > LIMIT_BUCKETS)
        paragraphs = least < UINT32_MAX ? (uint32_t)least : UINT32_MAX;
    s->bucket_paragraphs = paragraphs;
    s->nbuckets = session_bucket_count(s->prog_low, s->prog_high, paragraphs);
    free(s->buckets);
    s->buckets = xcalloc(s->nbuckets, sizeof *s->buckets);
    size_t b;
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module == s->prog_module && h->count > 0 && session_bucket_of(s, h->offset, &b))
            s->buckets[b] += h->count;
    }
    return 0;
}

uint64_t session_accounted(const struct session *s)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < s->nfuncs; i++)
        sum = session_sat_add(sum, s->funcs[i].samples);
    return sum;
}

double session_deff(const struct session *s)
{
    return s->jitter_known ? stats_deff_jitter(s->jitter_pct) : 1;
}

bool session_saturated(const struct session *s)
{
    const struct counters *c = &s->c;
    if (c->program == UINT64_MAX || c->dos == UINT64_MAX || c->io == UINT64_MAX ||
        c->high == UINT64_MAX || c->total == UINT64_MAX || c->lost == UINT64_MAX ||
        c->preempted == UINT64_MAX || session_accounted(s) == UINT64_MAX)
        return true;
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (s->funcs[i].samples == UINT64_MAX || s->funcs[i].total == UINT64_MAX)
            return true;
    }
    return false;
}

/* What ranking_cmp orders by. */
struct ranking_by {
    const struct session *s;
    bool total;
};

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

bool session_bucket_span(const struct session *s, size_t i, uint64_t *off_lo, uint64_t *off_hi)
{
    if (s->nmodules == 0)
        return false;
    const struct module *m = s->modules[s->prog_module];
    uint64_t size = 16 * (uint64_t)s->bucket_paragraphs;
    uint64_t lo = s->prog_low + i * size;
    if (!module_vaddr_to_offset(m, lo, off_lo))
        return false;
    if (!module_vaddr_to_offset(m, lo + size - 1, off_hi))
        *off_hi = *off_lo + size - 1;
    return true;
}

const char *session_bucket_symbol(const struct session *s, size_t i, bool *starts_here)
{
    *starts_here = false;
    uint64_t off_lo, off_hi;
    if (!session_bucket_span(s, i, &off_lo, &off_hi))
        return NULL;
    const struct module *m = s->modules[s->prog_module];
    /* The first symbol starting at or after off_lo. */
    size_t a = off_lo > 0 ? module_symbol_after(m, off_lo - 1) : 0;
    if (a < m->nsyms && m->syms[a].start <= off_hi && !m->syms[a].synthetic) {
        *starts_here = true;
        return module_symbol_name(m, a, s->raw_names);
    }
    long k = module_find_symbol(m, off_lo);
    return k >= 0 ? module_symbol_name(m, (size_t)k, s->raw_names) : NULL;
}

const char *session_bucket_unsampled(const struct session *s, size_t i, long cover)
{
    if (cover >= 0)
        return module_symbol_name(s->modules[s->prog_module], (size_t)cover, s->raw_names);
    bool starts;
    return session_bucket_symbol(s, i, &starts);
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
    s->funcs_dirty = true; /* a JIT's map is read once more, now it is complete */
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

void session_set_detached_end(struct session *s, bool ended)
{
    s->funcs_dirty = true;
    s->exit_kind = EXIT_NONE;
    s->exit_unknown = ended;
}

const char *session_signal_name(int sig)
{
    static char buf[32];
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev != NULL)
        snprintf(buf, sizeof buf, "SIG%s", abbrev);
    else
        snprintf(buf, sizeof buf, "signal %d", sig);
    return buf;
}

/* Samples of one function within one bucket, while labelling buckets. */
struct label_part {
    size_t bucket;
    long sym;
    uint64_t count;
};

static int label_part_cmp(const void *a, const void *b)
{
    const struct label_part *x = a, *y = b;
    if (x->bucket != y->bucket)
        return x->bucket < y->bucket ? -1 : 1;
    return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* Label the buckets of OUT (all of them when ONLY is SIZE_MAX, else bucket
 * ONLY into OUT[0]) from the program's hits: one pass over the hit table. */
static void session_label(const struct session *s, size_t only, struct bucket_label *out)
{
    const struct module *m = s->nmodules > 0 ? s->modules[s->prog_module] : NULL;
    struct label_part *parts = NULL;
    size_t n = 0, alloc = 0;
    for (size_t i = 0; m != NULL && i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        size_t b;
        if (h->module != s->prog_module || h->count == 0 || !session_bucket_of(s, h->offset, &b) ||
            (only != SIZE_MAX && b != only))
            continue;
        long k = module_find_symbol(m, h->offset);
        if (k < 0)
            continue; /* not in a function yet: session_rank names it */
        if (n == alloc) {
            alloc = alloc ? 2 * alloc : 64;
            parts = xreallocarray(parts, alloc, sizeof *parts);
        }
        parts[n++] = (struct label_part){b, k, h->count};
    }
    if (n > 1) /* qsort may not be given NULL, even for nothing */
        qsort(parts, n, sizeof *parts, label_part_cmp);
    size_t first = 0;
    while (first < n) {
        size_t b = parts[first].bucket, end = first, distinct = 0;
        long best = -1;
        uint64_t best_count = 0;
        while (end < n && parts[end].bucket == b) {
            long k = parts[end].sym;
            uint64_t sum = 0;
            for (; end < n && parts[end].bucket == b && parts[end].sym == k; end++)
                sum += parts[end].count;
            distinct++;
            if (sum > best_count) { /* ties keep the lower address */
                best = k;
                best_count = sum;
            }
        }
        struct bucket_label *l = &out[only == SIZE_MAX ? b : 0];
        l->name = module_symbol_name(m, (size_t)best, s->raw_names);
        l->others = distinct - 1;
        first = end;
    }
    free(parts);
}

struct bucket_label *session_bucket_labels(const struct session *s)
{
    struct bucket_label *l = xcalloc(s->nbuckets ? s->nbuckets : 1, sizeof *l);
    session_label(s, SIZE_MAX, l);
    const struct module *m = s->nmodules > 0 ? s->modules[s->prog_module] : NULL;
    for (size_t i = 0; m != NULL && i < s->nbuckets; i++) {
        uint64_t off, end;
        if (l[i].name == NULL && session_bucket_span(s, i, &off, &end))
            l[i].name = session_bucket_unsampled(s, i, module_find_symbol(m, off));
    }
    return l;
}
