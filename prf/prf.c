#include "config.h"

#include "prf/classic.h"
#include "prf/meta.h"
#include "prf/prf.h"
#include "prf/prf_chunk.h"
#include "session/limits.h"
#include "session/lines.h"
#include "session/session.h"
#include "session/stacks.h"
#include "session/threads.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define PRF_MAX_FILE (1ull << 34)

/* A bounded reader: every get checks what is left, and the first failure
 * sticks, so parsers check once at the end of a record. */
struct cursor {
    const uint8_t *p;
    size_t left;
    bool bad;
};

static bool cur_take(struct cursor *c, void *out, size_t n)
{
    if (c->bad || c->left < n) {
        c->bad = true;
        if (out != NULL)
            memset(out, 0, n);
        return false;
    }
    if (out != NULL)
        memcpy(out, c->p, n);
    c->p += n;
    c->left -= n;
    return true;
}

static uint64_t cur_u64(struct cursor *c)
{
    uint8_t x[8];
    cur_take(c, x, 8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | x[i];
    return v;
}

static uint32_t cur_u32(struct cursor *c)
{
    uint8_t x[4];
    cur_take(c, x, 4);
    return (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
}

static uint16_t cur_u16(struct cursor *c)
{
    uint8_t x[2];
    cur_take(c, x, 2);
    return (uint16_t)(x[0] | x[1] << 8);
}

static uint8_t cur_u8(struct cursor *c)
{
    uint8_t x;
    cur_take(c, &x, 1);
    return x;
}

static uint64_t cur_varint(struct cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint8_t x = cur_u8(c);
        if (c->bad)
            return 0;
        v |= (uint64_t)(x & 0x7f) << shift;
        if (!(x & 0x80))
            return v;
    }
    c->bad = true; /* more than ten bytes: not a number we wrote */
    return 0;
}

/* A length-prefixed string; NULL (and c->bad) when it does not fit or holds a NUL. */
static char *cur_str(struct cursor *c)
{
    uint32_t n = cur_u32(c);
    if (c->bad || n > c->left || memchr(c->p, '\0', n) != NULL) {
        c->bad = true;
        return NULL;
    }
    char *s = xstrndup((const char *)c->p, n);
    c->p += n;
    c->left -= n;
    return s;
}

/* Whether COUNT records of at least SIZE bytes each can fit in what is left. */
static bool cur_fits(struct cursor *c, uint64_t count, size_t size)
{
    if (c->bad || (size > 0 && count > c->left / size)) {
        c->bad = true;
        return false;
    }
    return true;
}

static int prf_parse_head(struct session *s, struct cursor *c, char **cause)
{
    s->interval_us = cur_u32(c);
    s->view.bucket_paragraphs = s->asked_paragraphs = cur_u32(c);
    uint64_t nbuckets = cur_u64(c);
    s->view.prog_low = s->prog_low = cur_u64(c);
    s->view.prog_high = s->prog_high = cur_u64(c);
    s->view.c.program = cur_u64(c);
    s->view.c.dos = cur_u64(c);
    s->view.c.io = cur_u64(c);
    s->view.c.high = cur_u64(c);
    s->view.c.total = cur_u64(c);
    s->view.c.lost = cur_u64(c);
    uint32_t clock = cur_u32(c), exit_kind = cur_u32(c);
    s->exit_code = (int)cur_u32(c);
    s->exit_signal = (int)cur_u32(c);
    s->start_time = (int64_t)cur_u64(c);
    s->duration_s = (double)cur_u64(c) / 1e9;
    s->pid = cur_u32(c);
    s->max_threads = cur_u32(c);
    if (c->bad) {
        *cause = xstrdup("header chunk is too short");
        return -1;
    }
    if (c->left >= 8)
        s->view.c.preempted = cur_u64(c); /* 1.1; a 1.0 header ends before it */
    if (s->interval_us == 0 || s->view.bucket_paragraphs == 0 || clock > 1 || exit_kind > 2 ||
        s->view.prog_high < s->view.prog_low || nbuckets == 0 ||
        nbuckets !=
            session_bucket_count(s->view.prog_low, s->view.prog_high, s->view.bucket_paragraphs)) {
        *cause = xstrdup("header holds impossible values");
        return -1;
    }
    if (nbuckets > LIMIT_BUCKETS) {
        *cause = xasprintf("header chunk: %llu buckets; the limit is %llu",
                           (unsigned long long)nbuckets, LIMIT_BUCKETS);
        return -1;
    }
    if (s->exit_signal < 0 || s->exit_signal > 128)
        s->exit_signal = 0;
    s->clock = (enum clock_kind)clock;
    s->exit_kind = (enum exit_kind)exit_kind;
    s->view.nbuckets = (size_t)nbuckets;
    return 0;
}

static int prf_parse_buckets(struct session *s, struct cursor *c, char **cause)
{
    uint64_t n = cur_u64(c);
    if (!cur_fits(c, n, 8) || n != s->view.nbuckets) {
        *cause = xstrdup("bucket chunk does not match the header");
        return -1;
    }
    free(s->view.buckets);
    s->view.buckets = xcalloc((size_t)n, sizeof *s->view.buckets);
    for (uint64_t i = 0; i < n; i++)
        s->view.buckets[i] = cur_u64(c);
    return 0;
}

static int prf_parse_modules(struct session *s, struct cursor *c, char **cause)
{
    uint32_t n = cur_u32(c);
    if (!cur_fits(c, n, 13) || s->nmodules != 0) {
        *cause = xstrdup("module chunk is damaged");
        return -1;
    }
    if (n > LIMIT_MODULES) {
        *cause = xasprintf("module chunk: %u modules; the limit is %u", n, LIMIT_MODULES);
        return -1;
    }
    s->modules = xcalloc(n ? n : 1, sizeof *s->modules);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kind = cur_u32(c);
        char *path = cur_str(c);
        if (path == NULL || kind > MODULE_KERNEL || (i == 0) != (kind == MODULE_PROGRAM)) {
            free(path);
            *cause = xasprintf("module %u is damaged", i);
            return -1;
        }
        struct module *m = module_new(i, path, (enum module_kind)kind);
        free(path);
        m->loaded = true; /* the file's symbols are the truth; never read the disk */
        s->modules[s->nmodules++] = m;
        if (kind == MODULE_ANON && strcmp(m->path, "[anon]") == 0)
            s->anon_module = i;
        if (kind == MODULE_ANON && strcmp(m->path, "[JIT]") == 0)
            s->jit_module = i;
        if (kind == MODULE_KERNEL && strcmp(m->path, "[kernel]") == 0)
            s->kernel_module = i;
        if (kind == MODULE_ANON && strcmp(m->path, "[unknown]") == 0)
            s->unknown_module = i;
        if (kind == MODULE_ANON && strcmp(m->path, "[truncated]") == 0)
            s->truncated_module = i;
        if (kind == MODULE_ANON && strcmp(m->path, "[blocked]") == 0)
            s->blocked_module = i;
        m->build_id_len = cur_u8(c);
        if (m->build_id_len > sizeof m->build_id)
            c->bad = true;
        else
            cur_take(c, m->build_id, m->build_id_len);
        uint32_t nsegs = cur_u32(c);
        if (!cur_fits(c, nsegs, 36)) {
            *cause = xasprintf("module %u has a damaged segment table", i);
            return -1;
        }
        m->segs = xcalloc(nsegs ? nsegs : 1, sizeof *m->segs);
        for (uint32_t k = 0; k < nsegs; k++) {
            struct segment *sg = &m->segs[k];
            sg->vaddr = cur_u64(c);
            sg->memsz = cur_u64(c);
            sg->offset = cur_u64(c);
            sg->filesz = cur_u64(c);
            sg->flags = cur_u32(c);
            /* A segment that wraps past the top of the address space maps
             * one bucket onto offsets in the wrong order. */
            if (!module_segment_fits(sg->vaddr, sg->memsz, sg->offset, sg->filesz)) {
                *cause = xasprintf("module %u has a damaged segment table", i);
                return -1;
            }
        }
        m->nsegs = nsegs;
        uint32_t nsyms = cur_u32(c);
        if (!cur_fits(c, nsyms, 21)) {
            *cause = xasprintf("module %u has a damaged symbol table", i);
            return -1;
        }
        m->syms = xcalloc(nsyms ? nsyms : 1, sizeof *m->syms);
        m->syms_alloc = nsyms ? nsyms : 1;
        for (uint32_t k = 0; k < nsyms; k++) {
            uint64_t start = cur_u64(c), end = cur_u64(c);
            uint8_t synthetic = cur_u8(c);
            char *name = cur_str(c);
            if (name == NULL || end <= start || synthetic > 1 ||
                (m->nsyms > 0 && start <= m->syms[m->nsyms - 1].start)) {
                free(name);
                *cause = xasprintf("module %u has a damaged symbol table", i);
                return -1;
            }
            m->syms[m->nsyms++] = (struct symbol){
                .start = start, .end = end, .name = name, .synthetic = synthetic != 0};
        }
    }
    if (c->bad || n == 0) {
        *cause = xstrdup("module chunk is damaged");
        return -1;
    }
    return 0;
}

static int prf_parse_hits(struct session *s, struct cursor *c, char **cause)
{
    uint64_t n = cur_u64(c);
    if (!cur_fits(c, n, 20)) {
        *cause = xstrdup("hit table is damaged");
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint32_t module = cur_u32(c);
        uint64_t offset = cur_u64(c), count = cur_u64(c);
        if (c->bad || module >= s->nmodules) {
            *cause = xstrdup("hit table names a module that does not exist");
            return -1;
        }
        session_add_hit(s, module, offset, count);
    }
    return 0;
}

/* The frames a session of S's duration may have: one per 100 ms, and the
 * one being filled at the end; LIMIT_FRAMES when the file does not say how
 * long it ran (0: a snapshot of a running program, a session made by a
 * tool).  Claiming no duration buys a bomb no more than claiming days. */
static uint64_t prf_frames_for(const struct session *s)
{
    if (!(s->duration_s > 0))
        return LIMIT_FRAMES + LIMIT_FRAMES_SLACK;
    double frames = s->duration_s * (1e9 / (double)SESSION_FRAME_NS);
    if (!(frames < (double)LIMIT_FRAMES))
        return LIMIT_FRAMES + LIMIT_FRAMES_SLACK;
    return (uint64_t)frames + LIMIT_FRAMES_SLACK;
}

/* How many of the N frames at C are cleared (flagged, 1.0) or marked (1.1),
 * read without keeping anything: each clear may add a frame of its own
 * beyond the duration's.  A damaged chunk gives what was read before the
 * damage; the parse then says what is wrong. */
static uint64_t prf_scan_clears(struct cursor c, uint64_t n)
{
    uint64_t clears = 0;
    for (uint64_t i = 0; i < n && !c.bad; i++) {
        clears += cur_varint(&c) & 1;
        for (int k = 0; k < 5; k++)
            cur_varint(&c);
        uint64_t nhits = cur_varint(&c);
        if (!cur_fits(&c, nhits, 2))
            return clears;
        for (uint64_t k = 0; k < 2 * nhits && !c.bad; k++)
            cur_varint(&c);
    }
    if (c.bad || c.left == 0)
        return clears;
    for (uint64_t i = 0; i < n && !c.bad; i++)
        cur_varint(&c);
    uint64_t marks = cur_varint(&c);
    return c.bad ? clears : clears + (marks < n ? marks : n);
}

static int prf_parse_timeline(struct session *s, struct cursor *c, char **cause)
{
    uint64_t frame_ns = cur_u64(c), n = cur_u64(c);
    if (c->bad || frame_ns != SESSION_FRAME_NS || !cur_fits(c, n, 7) || s->nframes != 0) {
        *cause = xstrdup("timeline chunk is damaged");
        return -1;
    }
    /* A frame is 100 ms of the run: no more than the run's, before any is made. */
    uint64_t most = prf_frames_for(s);
    if (n > most && n > most + prf_scan_clears(*c, n)) {
        if (most > LIMIT_FRAMES)
            *cause = xasprintf("timeline chunk: %llu frames; the limit is %llu",
                               (unsigned long long)n, LIMIT_FRAMES);
        else
            *cause = xasprintf("timeline chunk: %llu frames for a %.9g s session",
                               (unsigned long long)n, s->duration_s);
        return -1;
    }
    s->frames = xcalloc(n ? (size_t)n : 1, sizeof *s->frames);
    s->frames_alloc = (size_t)(n ? n : 1);
    for (uint64_t i = 0; i < n; i++) {
        struct frame *f = &s->frames[s->nframes++];
        uint64_t flags = cur_varint(c);
        f->cleared = flags & 1;
        if (f->cleared)
            s->legacy_clear = true; /* 1.0: the clear dropped what came before it */
        f->program = cur_varint(c);
        f->dos = cur_varint(c);
        f->io = cur_varint(c);
        f->high = cur_varint(c);
        f->lost = cur_varint(c);
        uint64_t nhits = cur_varint(c);
        if (c->bad || flags > 1 || !cur_fits(c, nhits, 2) || nhits > UINT32_MAX) {
            *cause = xasprintf("timeline frame %llu is damaged", (unsigned long long)i);
            return -1;
        }
        /* An idle frame holds no list: most of a sleeper's frames are idle. */
        f->hits = nhits ? xcalloc((size_t)nhits, sizeof *f->hits) : NULL;
        f->hits_alloc = (uint32_t)nhits;
        uint64_t id = 0;
        for (uint64_t k = 0; k < nhits; k++) {
            uint64_t gap = cur_varint(c), count = cur_varint(c);
            id += gap;
            if (c->bad || (k > 0 && gap == 0) || id >= s->nkeys || count == 0 ||
                count > UINT32_MAX) {
                *cause = xasprintf("timeline frame %llu names a hit that does not exist",
                                   (unsigned long long)i);
                return -1;
            }
            f->hits[f->nhits++] = (struct frame_hit){(uint32_t)id, (uint32_t)count};
        }
        f->compact = true;
        if (f->cleared)
            s->clear_frame = s->nframes - 1;
    }
    s->compact_upto = s->nframes;
    if (c->left == 0)
        return 0; /* a 1.0 timeline: nothing after the frames */
    for (uint64_t i = 0; i < n; i++)
        s->frames[i].preempted = cur_varint(c);
    uint64_t marks = cur_varint(c), at = 0;
    if (!cur_fits(c, marks, 1) || marks > n) {
        *cause = xstrdup("timeline chunk is damaged");
        return -1;
    }
    for (uint64_t k = 0; k < marks; k++) {
        uint64_t gap = cur_varint(c);
        at += gap;
        if (c->bad || (k > 0 && gap == 0) || at >= n) {
            *cause = xstrdup("timeline chunk has a damaged clear mark");
            return -1;
        }
        s->frames[at].cleared = true;
        s->clear_frame = (size_t)at;
    }
    if (c->bad) {
        *cause = xstrdup("timeline chunk is damaged");
        return -1;
    }
    return 0;
}

/* The LINE chunk (1.4): see prf_write_lines. */
static int prf_parse_lines(struct session *s, struct cursor *c, char **cause)
{
    struct lines *l = s->lines;
    uint64_t nfiles = cur_varint(c);
    if (!cur_fits(c, nfiles, 4) || l->nfiles > 0) {
        *cause = xstrdup("line chunk is damaged");
        return -1;
    }
    for (uint64_t i = 0; i < nfiles; i++) {
        char *path = cur_str(c);
        if (path == NULL || lines_file_id(s, path) != i + 1) {
            free(path);
            *cause = xstrdup("line chunk has a damaged file table");
            return -1;
        }
        free(path);
    }
    uint64_t ninl = cur_varint(c);
    if (!cur_fits(c, ninl, 7)) {
        *cause = xstrdup("line chunk has a damaged table of inlined functions");
        return -1;
    }
    for (uint64_t i = 0; i < ninl; i++) {
        uint64_t module = cur_varint(c);
        char *raw = cur_str(c);
        uint64_t file = cur_varint(c), line = cur_varint(c);
        if (raw == NULL || c->bad || module >= s->nmodules || file > nfiles || line > UINT32_MAX ||
            lines_add_inline_func(s, (uint32_t)module, raw, (uint32_t)file, (uint32_t)line) != i) {
            free(raw);
            *cause = xstrdup("line chunk has a damaged table of inlined functions");
            return -1;
        }
        free(raw);
    }
    uint64_t nf = cur_varint(c);
    if (!cur_fits(c, nf, 5)) {
        *cause = xstrdup("line chunk has a damaged function table");
        return -1;
    }
    for (uint64_t i = 0; i < nf; i++) {
        uint64_t module = cur_varint(c), start = cur_varint(c), file = cur_varint(c),
                 line = cur_varint(c), end = cur_varint(c);
        if (c->bad || module >= s->nmodules || file == 0 || file > nfiles || line > UINT32_MAX ||
            end > UINT32_MAX) {
            *cause = xstrdup("line chunk has a damaged function table");
            return -1;
        }
        lines_add_func_place(s, &(struct func_place){(uint32_t)module, start, (uint32_t)file,
                                                     (uint32_t)line, (uint32_t)end});
    }
    lines_sort_func_places(s);
    uint64_t nlocs = cur_varint(c), module = 0, offset = 0;
    if (!cur_fits(c, nlocs, 6)) {
        *cause = xstrdup("line chunk has a damaged place table");
        return -1;
    }
    if (nlocs > LIMIT_PLACES) {
        *cause = xasprintf("line chunk: %llu places; the limit is %u", (unsigned long long)nlocs,
                           LIMIT_PLACES);
        return -1;
    }
    lines_reserve_locs(s, (size_t)nlocs); /* once: growing would hold two tables at a time */
    struct inline_frame chain[LINES_MAX_INLINE];
    for (uint64_t i = 0; i < nlocs; i++) {
        uint64_t mgap = cur_varint(c), ogap = cur_varint(c);
        if (mgap > 0)
            offset = 0;
        module += mgap;
        offset += ogap;
        uint64_t file = cur_varint(c), line = cur_varint(c), col = cur_varint(c),
                 depth = cur_varint(c);
        bool bad = c->bad || module >= s->nmodules || file == 0 || file > nfiles ||
                   line > UINT32_MAX || col > UINT32_MAX || depth > LINES_MAX_INLINE ||
                   (i > 0 && mgap == 0 && ogap == 0);
        for (uint64_t k = 0; k < depth && !bad; k++) {
            uint64_t fn = cur_varint(c), cf = cur_varint(c), cl = cur_varint(c), cc = cur_varint(c);
            bad = c->bad || fn >= ninl || cf > nfiles || cl > UINT32_MAX || cc > UINT32_MAX ||
                  l->inl_funcs[fn].module != module;
            chain[k] =
                (struct inline_frame){(uint32_t)fn, (uint32_t)cf, (uint32_t)cl, (uint32_t)cc};
        }
        if (bad) {
            *cause = xasprintf("line chunk has a damaged place %llu", (unsigned long long)i);
            return -1;
        }
        lines_add_loc(s,
                      &(struct srcloc){(uint32_t)module, offset, (uint32_t)file, (uint32_t)line,
                                       (uint32_t)col, (uint32_t)depth, 0},
                      chain);
    }
    if (c->bad || c->left != 0) {
        *cause = xstrdup("line chunk is damaged");
        return -1;
    }
    return 0;
}

/* The SRCE chunk: source texts, registered as the files' embedded text. */
static int prf_parse_sources(struct session *s, struct cursor *c, char **cause)
{
    uint64_t n = cur_varint(c);
    size_t nfiles = s->lines != NULL ? s->lines->nfiles : 0;
    if (!cur_fits(c, n, 2)) {
        *cause = xstrdup("source chunk is damaged");
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t file = cur_varint(c), len = cur_varint(c);
        if (c->bad || file == 0 || file > nfiles || len > c->left) {
            *cause = xstrdup("source chunk is damaged");
            return -1;
        }
        lines_add_text(s, (uint32_t)file, (const char *)c->p, (size_t)len);
        cur_take(c, NULL, (size_t)len);
    }
    if (c->left != 0) {
        *cause = xstrdup("source chunk is damaged");
        return -1;
    }
    s->embed_source = n > 0;
    return 0;
}

/* The deepest stack a file may hold: the unwinder's limit, the kernel's, an end. */
#define PRF_MAX_STACK_DEPTH 4096

static int prf_parse_stack_nodes(struct session *s, struct cursor *c, uint64_t nodes,
                                 uint32_t *id_of, uint32_t *depth, char **cause)
{
    for (uint64_t i = 1; i <= nodes; i++) {
        uint64_t parent = cur_varint(c), module = cur_varint(c), offset = cur_varint(c);
        if (c->bad || parent >= i || module >= s->nmodules ||
            (parent > 0 && depth[parent] >= PRF_MAX_STACK_DEPTH)) {
            *cause = xasprintf("stack %llu is damaged", (unsigned long long)i);
            return -1;
        }
        size_t before = s->nstacks;
        id_of[i] = session_stack_intern(s, id_of[parent], (uint32_t)module, offset);
        depth[i] = depth[parent] + 1;
        if (s->nstacks == before) {
            *cause = xasprintf("stack %llu is there twice", (unsigned long long)i);
            return -1;
        }
    }
    return 0;
}

static int prf_parse_stack_counts(struct session *s, struct cursor *c, uint64_t nodes,
                                  const uint32_t *id_of, char **cause)
{
    uint64_t with = cur_varint(c), at = 0;
    if (c->bad || !cur_fits(c, with, 3) || with > s->nframes) {
        *cause = xstrdup("stacks chunk is damaged");
        return -1;
    }
    for (uint64_t k = 0; k < with; k++) {
        uint64_t gap = cur_varint(c), n = cur_varint(c), id = 0;
        at += gap;
        if (c->bad || (k > 0 && gap == 0) || at >= s->nframes || !cur_fits(c, n, 2) ||
            n > UINT32_MAX || n == 0) {
            *cause = xstrdup("stacks chunk has a damaged frame");
            return -1;
        }
        struct frame *f = &s->frames[at];
        f->stacks = xcalloc((size_t)n, sizeof *f->stacks);
        f->stacks_alloc = (uint32_t)n;
        /* A sample with a stack is a sample: the frame's stacks add up to
         * its counters at most. */
        uint64_t samples = session_sat_add(session_sat_add(f->program, f->dos),
                                           session_sat_add(f->io, f->high)),
                 stacked = 0;
        for (uint64_t j = 0; j < n; j++) {
            uint64_t idgap = cur_varint(c), count = cur_varint(c);
            id += idgap;
            if (c->bad || (j > 0 && idgap == 0) || id == 0 || id > nodes || count == 0 ||
                count > UINT32_MAX) {
                *cause = xasprintf("timeline frame %llu names a stack that does not exist",
                                   (unsigned long long)at);
                return -1;
            }
            stacked += count; /* n and count are under 2^32: no overflow */
            if (stacked > samples) {
                *cause = xasprintf("timeline frame %llu has more samples with a stack than samples "
                                   "(%llu, %llu)",
                                   (unsigned long long)at, (unsigned long long)stacked,
                                   (unsigned long long)samples);
                return -1;
            }
            f->stacks[f->nstacks++] = (struct frame_hit){id_of[id], (uint32_t)count};
            s->view.stack_count[id_of[id]] += count;
        }
        f->stacks_compact = true;
    }
    s->cache.totals_dirty = true;
    if (c->left == 0)
        return 0; /* no per-thread split */
    uint64_t nt = cur_varint(c);
    if (c->bad || !cur_fits(c, nt, 3)) {
        *cause = xstrdup("stacks chunk has a damaged thread table");
        return -1;
    }
    /* What the threads have of each stack adds up to its count at most. */
    uint64_t *left = xcalloc(s->nstacks ? s->nstacks : 1, sizeof *left);
    if (s->nstacks > 0) /* (no stacks: stack_count is NULL, and every entry refused) */
        memcpy(left, s->view.stack_count, s->nstacks * sizeof *left);
    for (uint64_t k = 0; k < nt; k++) {
        uint64_t tid = cur_varint(c), id = cur_varint(c), count = cur_varint(c);
        if (c->bad || tid == 0 || tid > UINT32_MAX || id == 0 || id > nodes || count == 0 ||
            count > left[id_of[id]]) {
            free(left);
            *cause = xstrdup("stacks chunk has a damaged thread table");
            return -1;
        }
        left[id_of[id]] -= count;
        session_thread_stack(s, (uint32_t)tid, id_of[id], count);
    }
    free(left);
    if (c->left != 0) {
        *cause = xstrdup("stacks chunk is damaged");
        return -1;
    }
    return 0;
}

static int prf_parse_stacks(struct session *s, struct cursor *c, char **cause)
{
    uint64_t nodes = cur_varint(c);
    if (c->bad || !cur_fits(c, nodes, 3) || nodes >= UINT32_MAX - 1 || s->has_stacks) {
        *cause = xstrdup("stacks chunk is damaged");
        return -1;
    }
    s->has_stacks = true;
    /* A file's stack ids are frames; the session's add the functions
     * inlined at them.  ID maps one to the other, DEPTH counts frames. */
    uint32_t *id_of = xcalloc((size_t)nodes + 1, sizeof *id_of);
    uint32_t *depth = xcalloc((size_t)nodes + 1, sizeof *depth);
    int r = prf_parse_stack_nodes(s, c, nodes, id_of, depth, cause);
    if (r == 0)
        r = prf_parse_stack_counts(s, c, nodes, id_of, cause);
    free(id_of);
    free(depth);
    return r;
}

/* (1.5) THRD: the processes and threads, and each thread's samples per hit. */
static int prf_parse_threads(struct session *s, struct cursor *c, char **cause)
{
    uint64_t np = cur_varint(c);
    if (c->bad || !cur_fits(c, np, 11) || s->nprocs > 0) {
        *cause = xstrdup("thread chunk has a damaged process table");
        return -1;
    }
    if (np > LIMIT_PROCS) {
        *cause = xasprintf("thread chunk: %llu processes, more than the %u profil reads",
                           (unsigned long long)np, LIMIT_PROCS);
        return -1;
    }
    for (uint64_t i = 0; i < np; i++) {
        uint64_t pid = cur_varint(c), ppid = cur_varint(c), start = cur_varint(c),
                 end = cur_varint(c), status = cur_varint(c), exe_module = cur_varint(c);
        char *exe = cur_str(c);
        uint64_t nargs = cur_varint(c);
        if (c->bad || pid == 0 || pid > UINT32_MAX || ppid > UINT32_MAX ||
            status > (uint64_t)UINT32_MAX + 1 || exe_module > s->nmodules ||
            !cur_fits(c, nargs, 4)) {
            free(exe);
            *cause = xstrdup("thread chunk has a damaged process");
            return -1;
        }
        struct proc_info *p = threads_add_proc(s, (uint32_t)pid, s->start_ns + start);
        if (p == NULL) { /* past LIMIT_PROCS: refused above */
            free(exe);
            *cause = xstrdup("thread chunk has a damaged process table");
            return -1;
        }
        p->ppid = (uint32_t)ppid;
        p->exe = exe[0] != '\0' ? exe : NULL;
        p->end_ns = end > 0 ? s->start_ns + end - 1 : 0;
        p->ended = end > 0;
        p->exit_known = status > 0;
        p->wstatus = status > 0 ? (int)(uint32_t)(status - 1) : 0;
        p->exe_module = exe_module > 0 ? (uint32_t)exe_module - 1 : UINT32_MAX;
        if (p->exe == NULL)
            free(exe);
        p->args = xcalloc(nargs ? (size_t)nargs : 1, sizeof *p->args);
        for (uint64_t k = 0; k < nargs; k++) {
            char *a = cur_str(c);
            if (a == NULL) {
                *cause = xstrdup("thread chunk has a damaged process");
                return -1;
            }
            p->args[p->nargs++] = a;
        }
    }
    uint64_t nt = cur_varint(c);
    if (c->bad || !cur_fits(c, nt, 10)) {
        *cause = xstrdup("thread chunk has a damaged thread table");
        return -1;
    }
    if (nt > LIMIT_THREADS) {
        *cause = xasprintf("thread chunk: %llu threads, more than the %u profil reads",
                           (unsigned long long)nt, LIMIT_THREADS);
        return -1;
    }
    for (uint64_t i = 0; i < nt; i++) {
        uint64_t tid = cur_varint(c), pid = cur_varint(c);
        char *name = cur_str(c);
        uint64_t start = cur_varint(c), end = cur_varint(c), on_cpu = cur_varint(c),
                 blocked = cur_varint(c);
        if (c->bad || tid == 0 || tid > UINT32_MAX || pid > UINT32_MAX) {
            free(name);
            *cause = xstrdup("thread chunk has a damaged thread");
            return -1;
        }
        struct thread_info *t = threads_get(s, (uint32_t)pid, (uint32_t)tid, s->start_ns + start);
        if (t == NULL) { /* past LIMIT_THREADS: refused above */
            free(name);
            *cause = xstrdup("thread chunk has a damaged thread");
            return -1;
        }
        free(t->name);
        t->name = name[0] != '\0' ? name : NULL;
        if (t->name == NULL)
            free(name);
        t->start_ns = s->start_ns + start;
        t->ended = end > 0;
        t->end_ns = end > 0 ? s->start_ns + end - 1 : 0;
        t->on_cpu = session_sat_add(t->on_cpu, on_cpu);
        t->blocked = session_sat_add(t->blocked, blocked);
        if (t->tid == tid && t->pid != pid) {
            *cause = xstrdup("thread chunk has a damaged thread");
            return -1;
        }
    }
    uint64_t nh = cur_varint(c);
    if (c->bad || !cur_fits(c, nh, 3)) {
        *cause = xstrdup("thread chunk has a damaged hit table");
        return -1;
    }
    if (nh > LIMIT_THREAD_HITS) {
        *cause = xasprintf("thread chunk: %llu per-thread counts, more than the %u profil reads",
                           (unsigned long long)nh, LIMIT_THREAD_HITS);
        return -1;
    }
    for (uint64_t i = 0; i < nh; i++) {
        uint64_t tid = cur_varint(c), id = cur_varint(c), count = cur_varint(c);
        struct thread_info *t = tid <= UINT32_MAX ? threads_find(s, (uint32_t)tid) : NULL;
        if (c->bad || t == NULL || id >= s->nkeys || count == 0 ||
            threads_hit_count(s, (uint32_t)tid, (uint32_t)id, true) + count < count) {
            *cause = xstrdup("thread chunk names a thread or a hit that does not exist");
            return -1;
        }
        uint64_t on = t->on_cpu; /* the ticks are the thread table's: only the split is added */
        threads_count(s, t, (uint32_t)id, false, count);
        t->on_cpu = on;
    }
    if (c->left != 0) {
        *cause = xstrdup("thread chunk is damaged");
        return -1;
    }
    return 0;
}

/* A replay to the end must give the saved state: check the timeline adds up. */
static int prf_check_timeline(const struct session *s, char **cause)
{
    struct counters sum = {0};
    uint64_t *hits = xcalloc(s->nkeys + 1, sizeof *hits);
    /* A 1.0 clear threw away what came before it; a 1.1 clear is only a mark. */
    for (size_t i = s->legacy_clear ? s->clear_frame : 0; i < s->nframes; i++) {
        const struct frame *f = &s->frames[i];
        sum.program += f->program;
        sum.dos += f->dos;
        sum.io += f->io;
        sum.high += f->high;
        sum.lost += f->lost;
        sum.preempted += f->preempted;
        for (uint32_t k = 0; k < f->nhits; k++)
            hits[f->hits[k].id] += f->hits[k].count;
    }
    bool same =
        sum.program == s->view.c.program && sum.dos == s->view.c.dos && sum.io == s->view.c.io &&
        sum.high == s->view.c.high && sum.lost == s->view.c.lost &&
        sum.preempted == s->view.c.preempted &&
        s->view.c.total == s->view.c.program + s->view.c.dos + s->view.c.io + s->view.c.high;
    for (size_t i = 0; i < s->hits_alloc && same; i++) {
        const struct hit *h = &s->hits[i];
        if (h->module != UINT32_MAX && h->id < s->nkeys && hits[h->id] != h->count)
            same = false;
    }
    free(hits);
    if (!same) {
        *cause = xstrdup("the timeline does not add up to the saved totals");
        return -1;
    }
    return 0;
}

/* (1.2) The end marker's CRC-32 of the AT bytes of DATA before it: a
 * damaged chunk header or a chunk type changed to an unknown one (which a
 * reader skips) is caught here.  1.0 and 1.1 files have none. */
static int prf_check_end(const uint8_t *data, size_t at, struct cursor *c, uint16_t minor,
                         char **cause)
{
    if (c->left == 0 && minor < 2)
        return 0;
    uint32_t want = cur_u32(c);
    if (c->bad) {
        *cause = xstrdup("the end marker lacks the file's checksum");
        return -1;
    }
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION /* let the fuzzer past the checksum */
    if ((uint32_t)crc32_z(0, data, at) != want) {
        *cause = xstrdup("checksum mismatch: the file is damaged");
        return -1;
    }
#else
    (void)data;
    (void)at;
    (void)want;
#endif
    return 0;
}

/* Whether the stored bytes of a chunk are what its header says: 0, or -1
 * with *cause. */
static int prf_chunk_check(const uint8_t *stored, uint64_t stored_len, uint32_t flags,
                           uint32_t raw_len, uint32_t crc, char **cause)
{
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION /* let the fuzzer past the checksum */
    if ((uint32_t)crc32_z(0, stored, (size_t)stored_len) != crc) {
        *cause = xstrdup("checksum mismatch");
        return -1;
    }
#else
    (void)stored;
    (void)crc;
#endif
    if (!(flags & CHUNK_ZLIB)) {
        if (raw_len != stored_len && !(raw_len == 0 && stored_len > UINT32_MAX)) {
            *cause = xstrdup("its two lengths disagree");
            return -1;
        }
        return 0;
    }
    /* zlib cannot expand more than about 1032:1, so a larger claim is a lie. */
    if (raw_len == 0 || (uint64_t)raw_len > stored_len * 1032 + 64) {
        *cause = xstrdup("compressed chunk claims an impossible size");
        return -1;
    }
    return 0;
}

/* The chunk types a reader knows, each of which a file holds at most once. */
enum prf_kind {
    K_HEAD,
    K_BUCK,
    K_MODS,
    K_HITS,
    K_META,
    K_TIME,
    K_LINE,
    K_SRCE,
    K_STCK,
    K_THRD,
    K_END,
    K_OTHER
};

/* How messages name each kind, as the parsers' own messages do. */
static const char *const prf_kind_name[] = {"header",   "bucket",   "module", "hit",
                                            "metadata", "timeline", "line",   "source",
                                            "stacks",   "thread",   "end"};

static enum prf_kind prf_kind_of(const char type[4])
{
    static const char names[][5] = {"HEAD", "BUCK", "MODS", "HITS", "META", "TIME",
                                    "LINE", "SRCE", "STCK", "THRD", "END "};
    for (int k = K_HEAD; k < K_OTHER; k++) {
        if (memcmp(type, names[k], 4) == 0)
            return (enum prf_kind)k;
    }
    return K_OTHER;
}

/* Whether a chunk of KIND may inflate to RAW bytes, out of *LEFT, what the
 * file (LEN bytes) may still inflate to: 0, or -1 with *cause.  A chunk
 * made to inflate a thousandfold would otherwise cost gigabytes (a million
 * empty modules from 650 KB): BUCK and TIME are bounded by what the header
 * says the session is, META by a size of its own, the rest by the file's
 * size. */
static int prf_chunk_budget(const struct session *s, enum prf_kind kind, uint64_t raw, size_t len,
                            uint64_t *left, char **cause)
{
    uint64_t free_bytes = 0;
    switch (kind) {
    case K_BUCK: /* the header's buckets, and room for fields a newer format adds */
        if (raw > 8 + 8 * (uint64_t)s->view.nbuckets + 65536) {
            *cause = xasprintf("bucket chunk: %llu bytes for %zu buckets", (unsigned long long)raw,
                               s->view.nbuckets);
            return -1;
        }
        return 0;
    case K_TIME: /* an idle frame takes 8 bytes, and compresses a thousandfold */
        free_bytes = 64 + LIMIT_FRAME_BYTES * prf_frames_for(s);
        break;
    case K_META:
        if (raw > LIMIT_META_BYTES) {
            *cause = xasprintf("metadata chunk: %llu bytes of JSON; the limit is %u",
                               (unsigned long long)raw, LIMIT_META_BYTES);
            return -1;
        }
        break;
    case K_SRCE:
        if (raw > LIMIT_SOURCE_BYTES) {
            *cause = xasprintf("source chunk: %llu bytes; the limit is %u", (unsigned long long)raw,
                               LIMIT_SOURCE_BYTES);
            return -1;
        }
        break;
    case K_END:
    case K_OTHER: /* never inflated */ return 0;
    default: break;
    }
    if (raw <= free_bytes)
        return 0;
    if (raw - free_bytes > *left) {
        uint64_t all = (uint64_t)len * LIMIT_INFLATE_RATIO;
        if (all < LIMIT_INFLATE_FREE)
            all = LIMIT_INFLATE_FREE;
        if (kind == K_TIME && prf_frames_for(s) <= LIMIT_FRAMES)
            *cause = xasprintf("timeline chunk: inflates to %llu bytes for a %.9g s session; the "
                               "limit is %llu",
                               (unsigned long long)raw, s->duration_s,
                               (unsigned long long)(free_bytes + *left));
        else
            *cause = xasprintf("%s chunk: inflates to %llu bytes; a file of %zu bytes may inflate "
                               "to %llu in all",
                               prf_kind_name[kind], (unsigned long long)raw, len,
                               (unsigned long long)all);
        return -1;
    }
    raw -= free_bytes;
    *left -= raw;
    return 0;
}

/* The payload of a checked chunk, inflated when it is compressed; *owned is
 * set when it was allocated. */
static int prf_chunk_payload(const uint8_t *stored, uint64_t stored_len, uint32_t flags,
                             uint32_t raw_len, const uint8_t **out, size_t *out_len,
                             uint8_t **owned, char **cause)
{
    *owned = NULL;
    if (!(flags & CHUNK_ZLIB)) {
        *out = stored;
        *out_len = (size_t)stored_len;
        return 0;
    }
    uLongf n = raw_len;
    uint8_t *buf = xmalloc(raw_len);
    if (uncompress(buf, &n, stored, (uLong)stored_len) != Z_OK || n != raw_len) {
        free(buf);
        *cause = xstrdup("compressed chunk is damaged");
        return -1;
    }
    *out = buf;
    *out_len = n;
    *owned = buf;
    return 0;
}

struct session *prf_read_buffer(const uint8_t *data, size_t len, char **cause)
{
    struct cursor file = {data, len, false};
    uint8_t magic[PRF_MAGIC_LEN];
    if (!cur_take(&file, magic, PRF_MAGIC_LEN) || memcmp(magic, PRF_MAGIC, PRF_MAGIC_LEN) != 0) {
        *cause = xstrdup("not a profil session file");
        return NULL;
    }
    uint16_t major = cur_u16(&file), minor = cur_u16(&file);
    cur_u32(&file);
    if (file.bad) {
        *cause = xstrdup("truncated file header");
        return NULL;
    }
    if (major != PRF_VERSION_MAJOR) {
        *cause = xasprintf("format version %u.%u; this profil reads %u.x", major, minor,
                           PRF_VERSION_MAJOR);
        return NULL;
    }
    struct session *s = session_new_empty();
    s->lines = xcalloc(1, sizeof *s->lines);
    s->lines->from_file = true; /* its lines are what the file says: never the disk's */
    bool have_head = false, have_end = false, have_mods = false, have_buck = false;
    unsigned seen = 0;                                   /* the kinds read so far, a bit each */
    uint64_t left = (uint64_t)len * LIMIT_INFLATE_RATIO; /* what the file may still inflate to */
    if (left < LIMIT_INFLATE_FREE)
        left = LIMIT_INFLATE_FREE;
    static char label[32]; /* what memory is for, should it run out */
    const char *was_for = xmalloc_for(label);
    char *why = NULL;
    while (!have_end) {
        char type[5] = {0};
        if (!cur_take(&file, type, 4)) {
            why = xstrdup("truncated: the end marker is missing");
            goto fail;
        }
        char shown[5]; /* the type as messages may print it: no control bytes */
        for (int i = 0; i < 5; i++)
            shown[i] = i < 4 ? (type[i] >= 32 && type[i] < 127 ? type[i] : '?') : '\0';
        snprintf(label, sizeof label, "the %s chunk", shown);
        size_t chunk_at = len - file.left; /* where this chunk's header starts */
        uint32_t flags = cur_u32(&file);
        uint64_t stored_len = cur_u64(&file);
        uint32_t raw_len = cur_u32(&file), crc = cur_u32(&file);
        if (file.bad || stored_len > file.left) {
            why = xasprintf("truncated %s chunk", shown);
            goto fail;
        }
        if (prf_chunk_check(file.p, stored_len, flags, raw_len, crc, &why) < 0) {
            char *w = xasprintf("%s chunk: %s", shown, why);
            free(why);
            why = w;
            goto fail;
        }
        enum prf_kind kind = prf_kind_of(type);
        if (!have_head && kind != K_HEAD && kind != K_END) {
            why = xstrdup("the header chunk does not come first");
            goto fail;
        }
        if (kind == K_OTHER) { /* skipped, never inflated: newer files open in older builds */
            cur_take(&file, NULL, (size_t)stored_len);
            continue;
        }
        if (kind != K_END && (seen & 1u << kind)) {
            why = xasprintf("a second %s chunk", shown);
            goto fail;
        }
        seen |= 1u << kind;
        if (prf_chunk_budget(s, kind, flags & CHUNK_ZLIB ? raw_len : stored_len, len, &left, &why) <
            0)
            goto fail;
        const uint8_t *payload;
        size_t payload_len;
        uint8_t *owned;
        if (prf_chunk_payload(file.p, stored_len, flags, raw_len, &payload, &payload_len, &owned,
                              &why) < 0) {
            char *w = xasprintf("%s chunk: %s", shown, why);
            free(why);
            why = w;
            goto fail;
        }
        cur_take(&file, NULL, (size_t)stored_len);
        struct cursor c = {payload, payload_len, false};
        int r = 0;
        switch (kind) {
        case K_HEAD:
            r = prf_parse_head(s, &c, &why);
            have_head = true;
            break;
        case K_BUCK:
            r = prf_parse_buckets(s, &c, &why);
            have_buck = true;
            break;
        case K_MODS:
            r = prf_parse_modules(s, &c, &why);
            have_mods = true;
            break;
        case K_HITS: r = have_mods ? prf_parse_hits(s, &c, &why) : -1; break;
        case K_META: {
            char *json = xstrndup((const char *)payload, payload_len);
            r = meta_from_json(s, json, &why);
            free(json);
            break;
        }
        case K_TIME: r = have_mods ? prf_parse_timeline(s, &c, &why) : -1; break;
        case K_LINE: r = have_mods && !s->has_stacks ? prf_parse_lines(s, &c, &why) : -1; break;
        case K_SRCE: r = prf_parse_sources(s, &c, &why); break;
        case K_STCK: r = have_mods ? prf_parse_stacks(s, &c, &why) : -1; break;
        case K_THRD: /* after HITS: it names hits */
            r = have_mods && (seen & 1u << K_HITS) ? prf_parse_threads(s, &c, &why) : -1;
            break;
        case K_END:
            have_end = true;
            if (flags != 0)
                why = xstrdup("the end marker is damaged");
            r = flags != 0 ? -1 : prf_check_end(data, chunk_at - 4, &c, minor, &why);
            break;
        case K_OTHER: break;
        }
        free(owned);
        if (r < 0) {
            if (why == NULL)
                why = xasprintf("misplaced %s chunk", shown);
            goto fail;
        }
    }
    if (!have_head || !have_buck || !have_mods) {
        why = xstrdup("a required chunk is missing");
        goto fail;
    }
    if (s->nmodules == 0 || s->modules[0]->kind != MODULE_PROGRAM) {
        why = xstrdup("the program module is missing");
        goto fail;
    }
    if (s->nframes > 0 && prf_check_timeline(s, &why) < 0)
        goto fail;
    session_run_from_view(s); /* nothing filtered yet: what is shown is the run */
    xmalloc_for(was_for);
    return s;
fail:
    xmalloc_for(was_for);
    *cause = why;
    session_free(s);
    return NULL;
}

struct session *prf_read_file(const char *path, char **cause)
{
    /* A FIFO (or a device) would block the open, or do worse: it is looked
     * at first, and opened without blocking in case it was swapped in. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        *cause = xasprintf("%s: not a regular file", path);
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        *cause = xasprintf("%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > PRF_MAX_FILE) {
        *cause = xasprintf("%s: %s", path,
                           S_ISREG(st.st_mode) ? "file too large" : "not a regular file");
        close(fd);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    size_t len = (size_t)st.st_size, done = 0;
    uint8_t *data = xmalloc(len);
    while (done < len) {
        ssize_t r = read(fd, data + done, len - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        done += (size_t)r;
    }
    close(fd);
    char *why = NULL;
    struct session *s;
    if ((done < PRF_MAGIC_LEN || memcmp(data, PRF_MAGIC, PRF_MAGIC_LEN) != 0) &&
        classic_detect(data, done)) {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        s = classic_read(data, done, base, &why); /* a PROFIL file from 1983 */
    } else {
        s = prf_read_buffer(data, done, &why);
    }
    free(data);
    if (s == NULL) {
        *cause = xasprintf("%s: %s", path, why);
        free(why);
    }
    return s;
}
