#include "config.h"

#include "prf/cursor.h"
#include "prf/prf_parse.h"
#include "session/limits.h"
#include "session/lines.h"
#include "session/session.h"
#include "session/stacks.h"
#include "session/threads.h"
#include "util/xmalloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int prf_parse_head(struct session *s, struct cursor *c, char **cause)
{
    s->interval_us = cursor_u32(c);
    s->view.bucket_paragraphs = s->asked_paragraphs = cursor_u32(c);
    uint64_t nbuckets = cursor_u64(c);
    s->view.prog_low = s->prog_low = cursor_u64(c);
    s->view.prog_high = s->prog_high = cursor_u64(c);
    s->view.c.program = cursor_u64(c);
    s->view.c.dos = cursor_u64(c);
    s->view.c.io = cursor_u64(c);
    s->view.c.high = cursor_u64(c);
    s->view.c.total = cursor_u64(c);
    s->view.c.lost = cursor_u64(c);
    uint32_t clock = cursor_u32(c), exit_kind = cursor_u32(c);
    s->exit_code = (int)cursor_u32(c);
    s->exit_signal = (int)cursor_u32(c);
    s->start_time = (int64_t)cursor_u64(c);
    s->duration_s = (double)cursor_u64(c) / 1e9;
    s->pid = cursor_u32(c);
    s->max_threads = cursor_u32(c);
    if (c->bad) {
        *cause = xstrdup("header chunk is too short");
        return -1;
    }
    if (c->left >= 8)
        s->view.c.preempted = cursor_u64(c); /* 1.1; a 1.0 header ends before it */
    if (s->interval_us == 0 || s->view.bucket_paragraphs == 0 || clock > 1 || exit_kind > 2 ||
        s->prog_high < s->prog_low || nbuckets == 0 ||
        nbuckets != session_bucket_count(s->prog_low, s->prog_high, s->view.bucket_paragraphs)) {
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

int prf_parse_buckets(struct session *s, struct cursor *c, char **cause)
{
    uint64_t n = cursor_u64(c);
    if (!cursor_fits(c, n, 8) || n != s->view.nbuckets) {
        *cause = xstrdup("bucket chunk does not match the header");
        return -1;
    }
    free(s->view.buckets);
    s->view.buckets = xcalloc((size_t)n, sizeof *s->view.buckets);
    for (uint64_t i = 0; i < n; i++)
        s->view.buckets[i] = cursor_u64(c);
    return 0;
}

int prf_parse_modules(struct session *s, struct cursor *c, char **cause)
{
    uint32_t n = cursor_u32(c);
    if (!cursor_fits(c, n, 13) || s->nmodules != 0) {
        *cause = xstrdup("module chunk is damaged");
        return -1;
    }
    if (n > LIMIT_MODULES) {
        *cause = xasprintf("module chunk: %u modules; the limit is %u", n, LIMIT_MODULES);
        return -1;
    }
    s->modules = xcalloc(n ? n : 1, sizeof *s->modules);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kind = cursor_u32(c);
        char *path = cursor_str(c);
        if (path == NULL || kind > MODULE_KERNEL || (i == 0) != (kind == MODULE_PROGRAM)) {
            free(path);
            *cause = xasprintf("module %u is damaged", i);
            return -1;
        }
        struct module *m = module_new(i, path, (enum module_kind)kind);
        free(path);
        m->loaded = true; /* the file's symbols are the truth; never read the disk */
        s->modules[s->nmodules++] = m;
        session_note_pseudo_module(s, i);
        m->build_id_len = cursor_u8(c);
        if (m->build_id_len > sizeof m->build_id)
            c->bad = true;
        else
            cursor_take(c, m->build_id, m->build_id_len);
        uint32_t nsegs = cursor_u32(c);
        if (!cursor_fits(c, nsegs, 36)) {
            *cause = xasprintf("module %u has a damaged segment table", i);
            return -1;
        }
        m->segs = xcalloc(nsegs ? nsegs : 1, sizeof *m->segs);
        for (uint32_t k = 0; k < nsegs; k++) {
            struct segment *sg = &m->segs[k];
            sg->vaddr = cursor_u64(c);
            sg->memsz = cursor_u64(c);
            sg->offset = cursor_u64(c);
            sg->filesz = cursor_u64(c);
            sg->flags = cursor_u32(c);
            /* A segment that wraps past the top of the address space maps
             * one bucket onto offsets in the wrong order. */
            if (!module_segment_fits(sg->vaddr, sg->memsz, sg->offset, sg->filesz)) {
                *cause = xasprintf("module %u has a damaged segment table", i);
                return -1;
            }
        }
        m->nsegs = nsegs;
        uint32_t nsyms = cursor_u32(c);
        if (!cursor_fits(c, nsyms, 21)) {
            *cause = xasprintf("module %u has a damaged symbol table", i);
            return -1;
        }
        m->syms = xcalloc(nsyms ? nsyms : 1, sizeof *m->syms);
        m->syms_alloc = nsyms ? nsyms : 1;
        for (uint32_t k = 0; k < nsyms; k++) {
            uint64_t start = cursor_u64(c), end = cursor_u64(c);
            uint8_t synthetic = cursor_u8(c);
            char *name = cursor_str(c);
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

int prf_parse_hits(struct session *s, struct cursor *c, char **cause)
{
    uint64_t n = cursor_u64(c);
    if (!cursor_fits(c, n, 20)) {
        *cause = xstrdup("hit table is damaged");
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint32_t module = cursor_u32(c);
        uint64_t offset = cursor_u64(c), count = cursor_u64(c);
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
uint64_t prf_parse_frames_for(const struct session *s)
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
        clears += cursor_varint(&c) & 1;
        for (int k = 0; k < 5; k++)
            cursor_varint(&c);
        uint64_t nhits = cursor_varint(&c);
        if (!cursor_fits(&c, nhits, 2))
            return clears;
        for (uint64_t k = 0; k < 2 * nhits && !c.bad; k++)
            cursor_varint(&c);
    }
    if (c.bad || c.left == 0)
        return clears;
    for (uint64_t i = 0; i < n && !c.bad; i++)
        cursor_varint(&c);
    uint64_t marks = cursor_varint(&c);
    return c.bad ? clears : clears + (marks < n ? marks : n);
}

int prf_parse_timeline(struct session *s, struct cursor *c, char **cause)
{
    uint64_t frame_ns = cursor_u64(c), n = cursor_u64(c);
    if (c->bad || frame_ns != SESSION_FRAME_NS || !cursor_fits(c, n, 7) || s->nframes != 0) {
        *cause = xstrdup("timeline chunk is damaged");
        return -1;
    }
    /* A frame is 100 ms of the run: no more than the run's, before any is made. */
    uint64_t most = prf_parse_frames_for(s);
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
        uint64_t flags = cursor_varint(c);
        f->cleared = flags & 1;
        if (f->cleared)
            s->legacy_clear = true; /* 1.0: the clear dropped what came before it */
        f->program = cursor_varint(c);
        f->dos = cursor_varint(c);
        f->io = cursor_varint(c);
        f->high = cursor_varint(c);
        f->lost = cursor_varint(c);
        uint64_t nhits = cursor_varint(c);
        if (c->bad || flags > 1 || !cursor_fits(c, nhits, 2) || nhits > UINT32_MAX) {
            *cause = xasprintf("timeline frame %llu is damaged", (unsigned long long)i);
            return -1;
        }
        /* An idle frame holds no list: most of a sleeper's frames are idle. */
        f->hits = nhits ? xcalloc((size_t)nhits, sizeof *f->hits) : NULL;
        f->hits_alloc = (uint32_t)nhits;
        uint64_t id = 0;
        for (uint64_t k = 0; k < nhits; k++) {
            uint64_t gap = cursor_varint(c), count = cursor_varint(c);
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
        s->frames[i].preempted = cursor_varint(c);
    uint64_t marks = cursor_varint(c), at = 0;
    if (!cursor_fits(c, marks, 1) || marks > n) {
        *cause = xstrdup("timeline chunk is damaged");
        return -1;
    }
    for (uint64_t k = 0; k < marks; k++) {
        uint64_t gap = cursor_varint(c);
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
int prf_parse_lines(struct session *s, struct cursor *c, char **cause)
{
    struct lines *l = s->lines;
    uint64_t nfiles = cursor_varint(c);
    if (!cursor_fits(c, nfiles, 4) || l->nfiles > 0) {
        *cause = xstrdup("line chunk is damaged");
        return -1;
    }
    for (uint64_t i = 0; i < nfiles; i++) {
        char *path = cursor_str(c);
        if (path == NULL || lines_file_id(s, path) != i + 1) {
            free(path);
            *cause = xstrdup("line chunk has a damaged file table");
            return -1;
        }
        free(path);
    }
    uint64_t ninl = cursor_varint(c);
    if (!cursor_fits(c, ninl, 7)) {
        *cause = xstrdup("line chunk has a damaged table of inlined functions");
        return -1;
    }
    for (uint64_t i = 0; i < ninl; i++) {
        uint64_t module = cursor_varint(c);
        char *raw = cursor_str(c);
        uint64_t file = cursor_varint(c), line = cursor_varint(c);
        if (raw == NULL || c->bad || module >= s->nmodules || file > nfiles || line > UINT32_MAX ||
            lines_add_inline_func(s, (uint32_t)module, raw, (uint32_t)file, (uint32_t)line) != i) {
            free(raw);
            *cause = xstrdup("line chunk has a damaged table of inlined functions");
            return -1;
        }
        free(raw);
    }
    uint64_t nf = cursor_varint(c);
    if (!cursor_fits(c, nf, 5)) {
        *cause = xstrdup("line chunk has a damaged function table");
        return -1;
    }
    for (uint64_t i = 0; i < nf; i++) {
        uint64_t module = cursor_varint(c), start = cursor_varint(c), file = cursor_varint(c),
                 line = cursor_varint(c), end = cursor_varint(c);
        if (c->bad || module >= s->nmodules || file == 0 || file > nfiles || line > UINT32_MAX ||
            end > UINT32_MAX) {
            *cause = xstrdup("line chunk has a damaged function table");
            return -1;
        }
        lines_add_func_place(s, &(struct func_place){(uint32_t)module, start, (uint32_t)file,
                                                     (uint32_t)line, (uint32_t)end});
    }
    lines_sort_func_places(s);
    uint64_t nlocs = cursor_varint(c), module = 0, offset = 0;
    if (!cursor_fits(c, nlocs, 6)) {
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
        uint64_t mgap = cursor_varint(c), ogap = cursor_varint(c);
        if (mgap > 0)
            offset = 0;
        module += mgap;
        offset += ogap;
        uint64_t file = cursor_varint(c), line = cursor_varint(c), col = cursor_varint(c),
                 depth = cursor_varint(c);
        bool bad = c->bad || module >= s->nmodules || file == 0 || file > nfiles ||
                   line > UINT32_MAX || col > UINT32_MAX || depth > LINES_MAX_INLINE ||
                   (i > 0 && mgap == 0 && ogap == 0);
        for (uint64_t k = 0; k < depth && !bad; k++) {
            uint64_t fn = cursor_varint(c), cf = cursor_varint(c), cl = cursor_varint(c),
                     cc = cursor_varint(c);
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
int prf_parse_sources(struct session *s, struct cursor *c, char **cause)
{
    uint64_t n = cursor_varint(c);
    size_t nfiles = s->lines != NULL ? s->lines->nfiles : 0;
    if (!cursor_fits(c, n, 2)) {
        *cause = xstrdup("source chunk is damaged");
        return -1;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t file = cursor_varint(c), len = cursor_varint(c);
        if (c->bad || file == 0 || file > nfiles || len > c->left) {
            *cause = xstrdup("source chunk is damaged");
            return -1;
        }
        lines_add_text(s, (uint32_t)file, (const char *)c->p, (size_t)len);
        cursor_take(c, NULL, (size_t)len);
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
        uint64_t parent = cursor_varint(c), module = cursor_varint(c), offset = cursor_varint(c);
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
    uint64_t with = cursor_varint(c), at = 0;
    if (c->bad || !cursor_fits(c, with, 3) || with > s->nframes) {
        *cause = xstrdup("stacks chunk is damaged");
        return -1;
    }
    for (uint64_t k = 0; k < with; k++) {
        uint64_t gap = cursor_varint(c), n = cursor_varint(c), id = 0;
        at += gap;
        if (c->bad || (k > 0 && gap == 0) || at >= s->nframes || !cursor_fits(c, n, 2) ||
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
            uint64_t idgap = cursor_varint(c), count = cursor_varint(c);
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
    uint64_t nt = cursor_varint(c);
    if (c->bad || !cursor_fits(c, nt, 3)) {
        *cause = xstrdup("stacks chunk has a damaged thread table");
        return -1;
    }
    /* What the threads have of each stack adds up to its count at most. */
    uint64_t *left = xcalloc(s->nstacks ? s->nstacks : 1, sizeof *left);
    if (s->nstacks > 0) /* (no stacks: stack_count is NULL, and every entry refused) */
        memcpy(left, s->view.stack_count, s->nstacks * sizeof *left);
    for (uint64_t k = 0; k < nt; k++) {
        uint64_t tid = cursor_varint(c), id = cursor_varint(c), count = cursor_varint(c);
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

int prf_parse_stacks(struct session *s, struct cursor *c, char **cause)
{
    uint64_t nodes = cursor_varint(c);
    if (c->bad || !cursor_fits(c, nodes, 3) || nodes >= UINT32_MAX - 1 || s->has_stacks) {
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
int prf_parse_threads(struct session *s, struct cursor *c, char **cause)
{
    uint64_t np = cursor_varint(c);
    if (c->bad || !cursor_fits(c, np, 11) || s->nprocs > 0) {
        *cause = xstrdup("thread chunk has a damaged process table");
        return -1;
    }
    if (np > LIMIT_PROCS) {
        *cause = xasprintf("thread chunk: %llu processes, more than the %u profil reads",
                           (unsigned long long)np, LIMIT_PROCS);
        return -1;
    }
    for (uint64_t i = 0; i < np; i++) {
        uint64_t pid = cursor_varint(c), ppid = cursor_varint(c), start = cursor_varint(c),
                 end = cursor_varint(c), status = cursor_varint(c), exe_module = cursor_varint(c);
        char *exe = cursor_str(c);
        uint64_t nargs = cursor_varint(c);
        if (c->bad || pid == 0 || pid > UINT32_MAX || ppid > UINT32_MAX ||
            status > (uint64_t)UINT32_MAX + 1 || exe_module > s->nmodules ||
            !cursor_fits(c, nargs, 4)) {
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
            char *a = cursor_str(c);
            if (a == NULL) {
                *cause = xstrdup("thread chunk has a damaged process");
                return -1;
            }
            p->args[p->nargs++] = a;
        }
    }
    uint64_t nt = cursor_varint(c);
    if (c->bad || !cursor_fits(c, nt, 10)) {
        *cause = xstrdup("thread chunk has a damaged thread table");
        return -1;
    }
    if (nt > LIMIT_THREADS) {
        *cause = xasprintf("thread chunk: %llu threads, more than the %u profil reads",
                           (unsigned long long)nt, LIMIT_THREADS);
        return -1;
    }
    for (uint64_t i = 0; i < nt; i++) {
        uint64_t tid = cursor_varint(c), pid = cursor_varint(c);
        char *name = cursor_str(c);
        uint64_t start = cursor_varint(c), end = cursor_varint(c), on_cpu = cursor_varint(c),
                 blocked = cursor_varint(c);
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
    uint64_t nh = cursor_varint(c);
    if (c->bad || !cursor_fits(c, nh, 3)) {
        *cause = xstrdup("thread chunk has a damaged hit table");
        return -1;
    }
    if (nh > LIMIT_THREAD_HITS) {
        *cause = xasprintf("thread chunk: %llu per-thread counts, more than the %u profil reads",
                           (unsigned long long)nh, LIMIT_THREAD_HITS);
        return -1;
    }
    for (uint64_t i = 0; i < nh; i++) {
        uint64_t tid = cursor_varint(c), id = cursor_varint(c), count = cursor_varint(c);
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
