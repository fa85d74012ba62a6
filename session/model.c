/*
 * The session's tables, at the bottom of session/: modules, the hit table,
 * counters, buckets, the timeline's frames, per-thread count tables, and
 * what the recorded run holds.  It calls nothing else in session/; what
 * takes an event apart (session.c), names addresses (resolve.c, lines.c),
 * unwinds (stacks.c) and follows threads (threads.c) builds on it.
 */
#include "config.h"

#include "session/model.h"
#include "session/limits.h"
#include "util/stats.h"
#include "util/xmalloc.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static void hit_table_clear(struct hit *table, size_t alloc);

static bool session_no_inline_default;

/* Samples of one function within one bucket, while labelling buckets. */
struct label_part {
    size_t bucket;
    long sym;
    uint64_t count;
};

size_t session_bucket_count(uint64_t low, uint64_t high, uint32_t paragraphs)
{
    uint64_t size = 16 * (uint64_t)(paragraphs ? paragraphs : 1);
    uint64_t span = high > low ? high - low : 0;
    uint64_t n = (span + size - 1) / size;
    return n ? (size_t)n : 1;
}

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
    s->blocked_module = UINT32_MAX;
    return s;
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
void frame_free(struct frame *f)
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
        s->cache.funcs_dirty = true;
    }
    h->run = session_sat_add(h->run, count);
    if (in == NULL || in->view) {
        h->count = session_sat_add(h->count, count);
        s->cache.totals_dirty = true;
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
    *lo = s->prog_low;
    *hi = s->prog_high;
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
    return session_area_bucket(s, s->view.prog_module, s->view.prog_low, s->view.prog_high, off,
                               paragraphs, nbuckets, bucket);
}

bool session_bucket_of(const struct session *s, uint64_t off, size_t *bucket)
{
    return session_bucket_at(s, off, s->view.bucket_paragraphs, s->view.nbuckets, bucket);
}

/* Count N samples at (MODULE, OFFSET) where PROFIL would: a bucket of the
 * program, DOS, I/O or high, by the module's kind.  Live samples and replayed
 * ones both come here, so a replay classifies exactly as the run did. */
enum counter_kind session_counter_of(const struct session *s, uint32_t module, uint64_t offset,
                                     size_t *bucket)
{
    if (module == s->view.prog_module) /* in the program's file but outside its code: high */
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
enum counter_kind session_run_counter(const struct session *s, uint32_t module, uint64_t offset,
                                      enum counter_kind shown)
{
    if (s->view.prog_module == 0)
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

/* Frame I, made (with every frame before it) on first use. */
struct frame *session_frame(struct session *s, uint64_t i)
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

struct counters session_run_counters(const struct session *s)
{
    return s->run;
}

void session_run_from_view(struct session *s)
{
    struct counters r = s->view.c;
    r.program += s->view.before_clear.program;
    r.dos += s->view.before_clear.dos;
    r.io += s->view.before_clear.io;
    r.high += s->view.before_clear.high;
    r.total += s->view.before_clear.total;
    r.lost += s->view.before_clear.lost;
    r.preempted += s->view.before_clear.preempted;
    s->run = r;
    for (size_t i = 0; i < s->hits_alloc; i++)
        s->hits[i].run = s->hits[i].count + s->hits[i].before_clear;
}

uint64_t *session_run_buckets(const struct session *s, uint32_t paragraphs, size_t *n)
{
    if (paragraphs == 0)
        paragraphs = s->view.bucket_paragraphs;
    uint64_t lo, hi;
    session_run_area(s, &lo, &hi);
    *n = session_bucket_count(lo, hi, paragraphs);
    uint64_t *b = xcalloc(*n ? *n : 1, sizeof *b);
    /* The buckets shown, where they are the run's at that size. */
    if (s->classic ||
        (paragraphs == s->view.bucket_paragraphs && s->view.before_clear.program == 0 &&
         s->view.prog_module == 0 && s->view.filter == NULL && !s->view.window)) {
        for (size_t i = 0; i < *n && i < s->view.nbuckets; i++)
            b[i] = s->view.buckets[i] +
                   (s->view.buckets_before_clear ? s->view.buckets_before_clear[i] : 0);
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
    uint64_t span = s->view.prog_high > s->view.prog_low ? s->view.prog_high - s->view.prog_low : 0;
    uint64_t least = span / (16 * LIMIT_BUCKETS) + 1;
    if (session_bucket_count(s->view.prog_low, s->view.prog_high, paragraphs) > LIMIT_BUCKETS)
        paragraphs = least < UINT32_MAX ? (uint32_t)least : UINT32_MAX;
    s->view.bucket_paragraphs = paragraphs;
    s->view.nbuckets = session_bucket_count(s->view.prog_low, s->view.prog_high, paragraphs);
    free(s->view.buckets);
    s->view.buckets = xcalloc(s->view.nbuckets, sizeof *s->view.buckets);
    size_t b;
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module == s->view.prog_module && h->count > 0 && session_bucket_of(s, h->offset, &b))
            s->view.buckets[b] += h->count;
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
    const struct counters *c = &s->view.c;
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

bool session_bucket_span(const struct session *s, size_t i, uint64_t *off_lo, uint64_t *off_hi)
{
    if (s->nmodules == 0)
        return false;
    const struct module *m = s->modules[s->view.prog_module];
    uint64_t size = 16 * (uint64_t)s->view.bucket_paragraphs;
    uint64_t lo = s->view.prog_low + i * size;
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
    const struct module *m = s->modules[s->view.prog_module];
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
        return module_symbol_name(s->modules[s->view.prog_module], (size_t)cover, s->raw_names);
    bool starts;
    return session_bucket_symbol(s, i, &starts);
}

void session_set_detached_end(struct session *s, bool ended)
{
    s->cache.funcs_dirty = true;
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
    const struct module *m = s->nmodules > 0 ? s->modules[s->view.prog_module] : NULL;
    struct label_part *parts = NULL;
    size_t n = 0, alloc = 0;
    for (size_t i = 0; m != NULL && i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        size_t b;
        if (h->module != s->view.prog_module || h->count == 0 ||
            !session_bucket_of(s, h->offset, &b) || (only != SIZE_MAX && b != only))
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
    struct bucket_label *l = xcalloc(s->view.nbuckets ? s->view.nbuckets : 1, sizeof *l);
    session_label(s, SIZE_MAX, l);
    const struct module *m = s->nmodules > 0 ? s->modules[s->view.prog_module] : NULL;
    for (size_t i = 0; m != NULL && i < s->view.nbuckets; i++) {
        uint64_t off, end;
        if (l[i].name == NULL && session_bucket_span(s, i, &off, &end))
            l[i].name = session_bucket_unsampled(s, i, module_find_symbol(m, off));
    }
    return l;
}

bool session_stack_blocked(const struct session *s, uint32_t id)
{
    return id < s->nstacks && s->blocked_module != UINT32_MAX &&
           s->stacks[id].module == s->blocked_module;
}

void session_note_pseudo_module(struct session *s, uint32_t i)
{
    const struct module *m = s->modules[i];
    if (m->kind == MODULE_KERNEL && strcmp(m->path, "[kernel]") == 0)
        s->kernel_module = i;
    else if (m->kind == MODULE_ANON && strcmp(m->path, "[anon]") == 0)
        s->anon_module = i;
    else if (m->kind == MODULE_ANON && strcmp(m->path, "[JIT]") == 0)
        s->jit_module = i;
    else if (m->kind == MODULE_ANON && strcmp(m->path, "[unknown]") == 0)
        s->unknown_module = i;
    else if (m->kind == MODULE_ANON && strcmp(m->path, "[truncated]") == 0)
        s->truncated_module = i;
    else if (m->kind == MODULE_ANON && strcmp(m->path, "[blocked]") == 0)
        s->blocked_module = i;
}
