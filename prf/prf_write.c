/*
 * The .PRF writer: a session into chunks, and chunks into a file replaced
 * atomically.
 */
#include "config.h"

#include "elf/source.h"
#include "prf/meta.h"
#include "prf/prf.h"
#include "prf/prf_chunk.h"
#include "session/linecounts.h"
#include "session/lines.h"
#include "session/names.h"
#include "session/resolve.h"
#include "session/session.h"
#include "session/stacks.h"
#include "session/threads.h"
#include "util/xmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* A growable byte buffer for building chunks. */
struct buf {
    uint8_t *data;
    size_t len;
    size_t alloc;
};

static void buf_reserve(struct buf *b, size_t more)
{
    if (b->len + more <= b->alloc)
        return;
    size_t alloc = b->alloc ? b->alloc : 256;
    while (alloc < b->len + more)
        alloc *= 2;
    b->data = xreallocarray(b->data, alloc, 1);
    b->alloc = alloc;
}

static void buf_put(struct buf *b, const void *p, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

/* Little-endian integers, whatever the host. */
static void buf_u64(struct buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    buf_put(b, x, 8);
}

static void buf_u32(struct buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    buf_put(b, x, 4);
}

static void buf_u16(struct buf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    buf_put(b, x, 2);
}

static void buf_u8(struct buf *b, uint8_t v)
{
    buf_put(b, &v, 1);
}

/* LEB128: small numbers, the common case in a timeline, take one byte. */
static void buf_varint(struct buf *b, uint64_t v)
{
    uint8_t x[10];
    size_t n = 0;
    do {
        x[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v != 0)
            x[n] |= 0x80;
        n++;
    } while (v != 0);
    buf_put(b, x, n);
}

static void buf_str(struct buf *b, const char *s)
{
    size_t n = strlen(s);
    buf_u32(b, (uint32_t)n);
    buf_put(b, s, n);
}

/* Append one chunk to OUT, compressed when that saves space. */
static void prf_put_chunk(struct buf *out, const char type[4], const struct buf *payload)
{
    uint32_t flags = 0;
    const uint8_t *stored = payload->data ? payload->data : (const uint8_t *)"";
    size_t stored_len = payload->len;
    uint8_t *z = NULL;
    if (payload->len >= 256 && payload->len <= UINT32_MAX) {
        uLongf zlen = compressBound(payload->len);
        z = xmalloc(zlen);
        if (compress2(z, &zlen, payload->data, payload->len, 6) == Z_OK &&
            zlen + 64 < payload->len) {
            flags |= CHUNK_ZLIB;
            stored = z;
            stored_len = zlen;
        }
    }
    buf_put(out, type, 4);
    buf_u32(out, flags);
    buf_u64(out, stored_len);
    buf_u32(out, (uint32_t)(payload->len > UINT32_MAX ? 0 : payload->len));
    buf_u32(out, (uint32_t)crc32(0, stored, (uInt)stored_len));
    buf_put(out, stored, stored_len);
    free(z);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The starts of module I's ranked functions, sorted: the symbols a replay needs
 * from a library (the program keeps all of its own).  The caller frees. */
static uint64_t *prf_hit_starts(const struct session *s, uint32_t module, size_t *n)
{
    uint64_t *starts = xcalloc(s->nfuncs + 1, sizeof *starts);
    *n = 0;
    for (size_t i = 0; i < s->nfuncs; i++) {
        if (s->funcs[i].module == module)
            starts[(*n)++] = s->funcs[i].start;
    }
    qsort(starts, *n, sizeof *starts, u64_cmp);
    return starts;
}

/* The ids stacks have in the file: frames only, numbered from 1 in order;
 * a function inlined at a frame's PC stands for that frame. */
static uint32_t *prf_stack_file_ids(const struct session *s)
{
    uint32_t *fid = xcalloc(s->nstacks + 1, sizeof *fid), next = 0;
    for (size_t i = 1; i < s->nstacks; i++)
        fid[i] = s->stacks[i].level == 0 ? ++next : fid[s->stacks[i].parent];
    return fid;
}

static int prf_frame_hit_cmp(const void *a, const void *b)
{
    const struct frame_hit *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int prf_loc_cmp(const void *a, const void *b)
{
    const struct srcloc *x = *(const struct srcloc *const *)a,
                        *y = *(const struct srcloc *const *)b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* How many of the hottest functions keep the line of every instruction. */
#define PRF_ROWS_FUNCS 64

/* The LINE chunk: the files, the inlined functions, where each ranked
 * function is declared, and the place of every PC of a hit or a stack. */
static void prf_write_lines(struct session *s, struct buf *out, struct buf *p)
{
    /* Look every place up first: the table moves while it grows. */
    for (size_t i = 0; i < s->nkeys; i++)
        lines_lookup(s, s->hit_keys[i].module, s->hit_keys[i].offset);
    for (size_t i = 1; i < s->nstacks; i++) {
        if (s->stacks[i].level == 0)
            lines_lookup(s, s->stacks[i].module, s->stacks[i].offset);
    }
    /* The every line of the functions whose code has the most samples (their
     * own, and those of what was inlined into them), for their disassembly. */
    uint64_t *code = xcalloc(s->nfuncs + 1, sizeof *code);
    size_t nfuncs = s->nfuncs;
    for (size_t i = 0; i < s->hits_alloc; i++) {
        const struct hit *h = &s->hits[i];
        int64_t real =
            h->module != UINT32_MAX && h->run > 0 ? session_resolve(s, h->module, h->offset) : -1;
        if (real >= 0 && (size_t)real < nfuncs)
            code[real] += h->run;
    }
    for (size_t k = 0; k < PRF_ROWS_FUNCS; k++) {
        size_t best = nfuncs;
        for (size_t i = 0; i < nfuncs; i++) {
            if (code[i] > 0 && (best == nfuncs || code[i] > code[best]))
                best = i;
        }
        if (best == nfuncs)
            break;
        code[best] = 0;
        lines_note_rows(s, (int64_t)best);
    }
    free(code);
    size_t nf = 0;
    for (size_t i = 0; i < s->nfuncs; i++) {
        uint32_t file, line;
        nf += lines_func_place(s, (int64_t)i, &file, &line) && !s->funcs[i].inlined;
    }
    if (s->lines == NULL)
        return;
    size_t n = 0, alloc = 0;
    const struct srcloc **locs = NULL;
    const struct lines *l = s->lines;
    for (size_t i = 0; i < l->locs_alloc; i++) {
        if (l->locs[i].module != UINT32_MAX && l->locs[i].file != 0) {
            if (n == alloc) {
                alloc = alloc ? 2 * alloc : 256;
                locs = xreallocarray(locs, alloc, sizeof *locs);
            }
            locs[n++] = &l->locs[i];
        }
    }
    if (n == 0 && nf == 0) {
        free(locs);
        return;
    }
    if (n > 1)
        qsort(locs, n, sizeof *locs, prf_loc_cmp);
    p->len = 0;
    buf_varint(p, l->nfiles);
    for (size_t i = 0; i < l->nfiles; i++)
        buf_str(p, l->files[i]);
    /* A session without inlined functions saves none: its file reads the same. */
    size_t ninl = s->no_inline ? 0 : l->ninl_funcs;
    buf_varint(p, ninl);
    for (size_t i = 0; i < ninl; i++) {
        buf_varint(p, l->inl_funcs[i].module);
        buf_str(p, l->inl_funcs[i].raw);
        buf_varint(p, l->inl_funcs[i].file);
        buf_varint(p, l->inl_funcs[i].line);
    }
    buf_varint(p, nf);
    for (size_t i = 0; i < s->nfuncs; i++) {
        const struct func *fn = &s->funcs[i];
        if (fn->inlined || fn->file == 0)
            continue;
        buf_varint(p, fn->module);
        buf_varint(p, fn->start);
        buf_varint(p, fn->file);
        buf_varint(p, fn->line);
        buf_varint(p, fn->line_end);
    }
    buf_varint(p, n);
    uint32_t module = 0;
    uint64_t last = 0;
    for (size_t i = 0; i < n; i++) {
        const struct srcloc *loc = locs[i];
        if (loc->module != module)
            last = 0;
        buf_varint(p, loc->module - module); /* sorted: the gaps are small */
        buf_varint(p, loc->offset - last);
        module = loc->module;
        last = loc->offset;
        buf_varint(p, loc->file);
        buf_varint(p, loc->line);
        buf_varint(p, loc->col);
        uint32_t depth = s->no_inline ? 0 : loc->ninl;
        buf_varint(p, depth);
        for (uint32_t k = 0; k < depth; k++) {
            const struct inline_frame *f = &l->inl_frames[loc->inl + k];
            buf_varint(p, f->fn);
            buf_varint(p, f->call_file);
            buf_varint(p, f->call_line);
            buf_varint(p, f->call_col);
        }
    }
    free(locs);
    prf_put_chunk(out, "LINE", p);
}

/* The most source text one file embeds: past it, files go without. */
#define PRF_EMBED_MAX ((size_t)64 << 20)

/* The SRCE chunk (--embed-source): the text of every source file a line
 * with samples is in, by file id (lines_embed_text: a session read from a
 * file embeds only what its files carried). */
static void prf_write_sources(struct session *s, struct buf *out, struct buf *p)
{
    size_t n;
    struct line_count *l = line_counts(s, -1, &n);
    p->len = 0;
    size_t count = 0, bytes = 0;
    struct buf body = {0};
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && l[i].file == l[i - 1].file)
            continue; /* sorted by file: one text a file */
        const char *text;
        size_t len;
        if (!lines_embed_text(s, l[i].file, &text, &len) || bytes + len > PRF_EMBED_MAX)
            continue;
        buf_varint(&body, l[i].file);
        buf_varint(&body, len);
        buf_put(&body, text, len);
        bytes += len;
        count++;
    }
    free(l);
    if (count > 0) {
        buf_varint(p, count);
        buf_put(p, body.data, body.len);
        prf_put_chunk(out, "SRCE", p);
    }
    free(body.data);
}

/* (1.5) THRD: who ran: every process, every thread and its ticks, and
 * each thread's samples at each hit (the whole run's). */
static void prf_write_threads(const struct session *s, struct buf *out, struct buf *p)
{
    p->len = 0;
    buf_varint(p, s->nprocs);
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct proc_info *pr = &s->procs[i];
        buf_varint(p, pr->pid);
        buf_varint(p, pr->ppid);
        buf_varint(p, pr->start_ns > s->start_ns ? pr->start_ns - s->start_ns : 0);
        buf_varint(p,
                   pr->ended ? (pr->end_ns > s->start_ns ? pr->end_ns - s->start_ns : 0) + 1 : 0);
        buf_varint(p, pr->exit_known ? (uint64_t)(uint32_t)pr->wstatus + 1 : 0);
        buf_varint(p, pr->exe_module != UINT32_MAX ? (uint64_t)pr->exe_module + 1 : 0);
        buf_str(p, pr->exe != NULL ? pr->exe : "");
        buf_varint(p, pr->nargs);
        for (size_t k = 0; k < pr->nargs; k++)
            buf_str(p, pr->args[k]);
    }
    buf_varint(p, s->nthreads);
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct thread_info *t = &s->threads[i];
        buf_varint(p, t->tid);
        buf_varint(p, t->pid);
        buf_str(p, t->name != NULL ? t->name : "");
        buf_varint(p, t->start_ns > s->start_ns ? t->start_ns - s->start_ns : 0);
        buf_varint(p, t->ended ? (t->end_ns > s->start_ns ? t->end_ns - s->start_ns : 0) + 1 : 0);
        buf_varint(p, session_sat_add(t->on_cpu, t->on_cpu_before_clear));
        buf_varint(p, session_sat_add(t->blocked, t->blocked_before_clear));
    }
    buf_varint(p, tid_table_used(&s->thits));
    for (size_t i = 0; i < s->thits.alloc; i++) {
        const struct tid_count *e = &s->thits.slots[i];
        if (e->tid == 0 || session_sat_add(e->count, e->before_clear) == 0)
            continue;
        buf_varint(p, e->tid);
        buf_varint(p, e->key);
        buf_varint(p, session_sat_add(e->count, e->before_clear));
    }
    prf_put_chunk(out, "THRD", p);
}

/* The file holds the recorded run (the run fields), whichever threads,
 * time or clear the views show: nothing here reads or changes the view. */
/* HEAD (the interval, the bucket size, the area, the whole run's counters, how it ended) and BUCK
 * (the buckets at the size asked). */
static void prf_write_head(struct session *s, struct buf *out, struct buf *p)
{
    /* The whole run: a clear on the screen is a mark in the timeline. */
    struct counters run = session_run_counters(s);
    size_t nbuckets;
    uint32_t paragraphs = s->asked_paragraphs ? s->asked_paragraphs : s->view.bucket_paragraphs;
    uint64_t *buckets = session_run_buckets(s, paragraphs, &nbuckets); /* not the zoomed size */
    buf_u32(p, s->interval_us);
    buf_u32(p, paragraphs);
    buf_u64(p, nbuckets);
    buf_u64(p, s->prog_low); /* the run's area, whichever the views show */
    buf_u64(p, s->prog_high);
    buf_u64(p, run.program);
    buf_u64(p, run.dos);
    buf_u64(p, run.io);
    buf_u64(p, run.high);
    buf_u64(p, run.total);
    buf_u64(p, run.lost);
    buf_u32(p, (uint32_t)s->clock);
    buf_u32(p, (uint32_t)s->exit_kind);
    buf_u32(p, (uint32_t)s->exit_code);
    buf_u32(p, (uint32_t)s->exit_signal);
    buf_u64(p, (uint64_t)s->start_time);
    double ns = s->duration_s * 1e9; /* a double from a file may not fit back */
    buf_u64(p, ns <= 0 || ns != ns ? 0 : ns >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)ns);
    buf_u32(p, s->pid);
    buf_u32(p, s->max_threads);
    buf_u64(p, run.preempted); /* 1.1 */
    prf_put_chunk(out, "HEAD", p);

    p->len = 0;
    buf_u64(p, nbuckets);
    for (size_t i = 0; i < nbuckets; i++)
        buf_u64(p, buckets[i]);
    free(buckets);
    prf_put_chunk(out, "BUCK", p);
}

/* MODS: each module, its segments, and the symbols the hits need (all of the program's). */
static void prf_write_modules(struct session *s, struct buf *out, struct buf *p)
{
    p->len = 0;
    buf_u32(p, (uint32_t)s->nmodules);
    for (uint32_t i = 0; i < s->nmodules; i++) {
        const struct module *m = s->modules[i];
        buf_u32(p, (uint32_t)m->kind);
        buf_str(p, m->path);
        buf_u8(p, (uint8_t)m->build_id_len);
        buf_put(p, m->build_id, m->build_id_len);
        buf_u32(p, (uint32_t)m->nsegs);
        for (size_t k = 0; k < m->nsegs; k++) {
            buf_u64(p, m->segs[k].vaddr);
            buf_u64(p, m->segs[k].memsz);
            buf_u64(p, m->segs[k].offset);
            buf_u64(p, m->segs[k].filesz);
            buf_u32(p, m->segs[k].flags);
        }
        size_t count_at = p->len, kept = 0, nstarts;
        uint64_t *starts = prf_hit_starts(s, i, &nstarts);
        buf_u32(p, 0);
        for (size_t k = 0; k < m->nsyms; k++) {
            const struct symbol *sym = &m->syms[k];
            if (i != 0 && bsearch(&sym->start, starts, nstarts, sizeof *starts, u64_cmp) == NULL)
                continue;
            /* A byte's symbol at 2^64 - 1 ends past 64 bits: it has no end
             * to write, and a reader makes it again. */
            if (sym->end <= sym->start)
                continue;
            buf_u64(p, sym->start);
            buf_u64(p, sym->end);
            buf_u8(p, sym->synthetic ? 1 : 0);
            buf_str(p, sym->name);
            kept++;
        }
        free(starts);
        for (int b = 0; b < 4; b++)
            p->data[count_at + (size_t)b] = (uint8_t)(kept >> (8 * b));
    }
    prf_put_chunk(out, "MODS", p);
}

/* HITS: every hit in the order it was first seen. */
static void prf_write_hits(struct session *s, struct buf *out, struct buf *p)
{
    /* Every hit in the order it was first seen: a reader gives each the same
     * id, which is what the timeline's deltas refer to. */
    p->len = 0;
    uint64_t *counts = xcalloc(s->nkeys + 1, sizeof *counts);
    for (size_t i = 0; i < s->hits_alloc; i++) {
        if (s->hits[i].module != UINT32_MAX && s->hits[i].id < s->nkeys)
            counts[s->hits[i].id] = s->hits[i].run;
    }
    buf_u64(p, s->nkeys);
    for (size_t i = 0; i < s->nkeys; i++) {
        buf_u32(p, s->hit_keys[i].module);
        buf_u64(p, s->hit_keys[i].offset);
        buf_u64(p, counts[i]);
    }
    free(counts);
    prf_put_chunk(out, "HITS", p);
}

/* META: the session's metadata as JSON. */
static void prf_write_meta(struct session *s, struct buf *out, struct buf *p)
{
    p->len = 0;
    char *json = meta_to_json(s);
    buf_put(p, json, strlen(json));
    free(json);
    prf_put_chunk(out, "META", p);
}

/* TIME: what each frame of the timeline added, and the clears. */
static void prf_write_timeline(struct session *s, struct buf *out, struct buf *p)
{
    if (s->nframes > 0) {
        session_timeline_compact(s);
        p->len = 0;
        buf_u64(p, SESSION_FRAME_NS);
        buf_u64(p, s->nframes);
        for (size_t i = 0; i < s->nframes; i++) {
            const struct frame *f = &s->frames[i];
            buf_varint(p, f->cleared && s->legacy_clear ? 1 : 0); /* 1.0's clears */
            buf_varint(p, f->program);
            buf_varint(p, f->dos);
            buf_varint(p, f->io);
            buf_varint(p, f->high);
            buf_varint(p, f->lost);
            buf_varint(p, f->nhits);
            uint32_t prev = 0;
            for (uint32_t k = 0; k < f->nhits; k++) {
                buf_varint(p, f->hits[k].id - prev); /* ids ascend: store the gaps */
                buf_varint(p, f->hits[k].count);
                prev = f->hits[k].id;
            }
        }
        /* 1.1: appended after the frames, where a 1.0 reader does not look. */
        for (size_t i = 0; i < s->nframes; i++)
            buf_varint(p, s->frames[i].preempted);
        size_t marks = 0, prev = 0;
        for (size_t i = 0; i < s->nframes && !s->legacy_clear; i++)
            marks += s->frames[i].cleared;
        buf_varint(p, marks);
        for (size_t i = 0; i < s->nframes && marks > 0; i++) {
            if (s->frames[i].cleared) {
                buf_varint(p, i - prev);
                prev = i;
            }
        }
        prf_put_chunk(out, "TIME", p);
    }
}

/* (1.3) STCK: the stacks, every node in the order it was made (a parent
 * before its children), then what each frame of the timeline added to each,
 * then the per-thread split.  Functions inlined at a frame's PC are not
 * saved: they are lines. */
static void prf_write_stacks(struct session *s, struct buf *out, struct buf *p)
{
    uint32_t *fid = s->has_stacks ? prf_stack_file_ids(s) : NULL;
    if (s->has_stacks) {
        p->len = 0;
        /* Every frame: the last node may be a function inlined at an older
         * frame (a merge learns its inlined functions late), whose id is
         * not the highest. */
        size_t nodes = 0;
        for (size_t i = 1; i < s->nstacks; i++)
            nodes += s->stacks[i].level == 0;
        buf_varint(p, nodes);
        for (size_t i = 1; i < s->nstacks; i++) {
            if (s->stacks[i].level > 0)
                continue;
            buf_varint(p, fid[s->stacks[i].parent]);
            buf_varint(p, s->stacks[i].module);
            buf_varint(p, s->stacks[i].offset);
        }
        size_t with = 0, prev = 0;
        for (size_t i = 0; i < s->nframes; i++)
            with += s->frames[i].nstacks > 0;
        buf_varint(p, with);
        for (size_t i = 0; i < s->nframes; i++) {
            const struct frame *f = &s->frames[i];
            if (f->nstacks == 0)
                continue;
            buf_varint(p, i - prev);
            prev = i;
            struct frame_hit *fs = xcalloc(f->nstacks, sizeof *fs);
            for (uint32_t k = 0; k < f->nstacks; k++)
                fs[k] = (struct frame_hit){fid[f->stacks[k].id], f->stacks[k].count};
            qsort(fs, f->nstacks, sizeof *fs, prf_frame_hit_cmp);
            uint32_t n = 0;
            for (uint32_t k = 0; k < f->nstacks; k++) {
                if (n > 0 && fs[n - 1].id == fs[k].id)
                    fs[n - 1].count += fs[k].count;
                else
                    fs[n++] = fs[k];
            }
            buf_varint(p, n);
            uint32_t last = 0;
            for (uint32_t k = 0; k < n; k++) {
                buf_varint(p, fs[k].id - last); /* ids ascend: store the gaps */
                buf_varint(p, fs[k].count);
                last = fs[k].id;
            }
            free(fs);
        }
        /* The per-thread split, appended (a reader of the first 1.3 files,
         * which end here, finds nothing more). */
        buf_varint(p, tid_table_used(&s->tstacks));
        for (size_t i = 0; i < s->tstacks.alloc; i++) {
            const struct tid_count *t = &s->tstacks.slots[i];
            if (t->tid == 0 || session_sat_add(t->count, t->before_clear) == 0)
                continue;
            buf_varint(p, t->tid);
            buf_varint(p, fid[t->key]);
            buf_varint(p, session_sat_add(t->count, t->before_clear));
        }
        prf_put_chunk(out, "STCK", p);
    }
    free(fid);
}

void prf_write_buffer(struct session *s, uint8_t **data, size_t *len)
{
    session_rank(s); /* resolve every hit so its symbol is saved */
    for (size_t i = 1; i < s->nstacks; i++)
        session_stack_func(s, (uint32_t)i); /* and every frame of every stack */
    struct buf out = {0}, p = {0};
    buf_put(&out, PRF_MAGIC, PRF_MAGIC_LEN);
    buf_u16(&out, PRF_VERSION_MAJOR);
    buf_u16(&out, PRF_VERSION_MINOR);
    buf_u32(&out, 0);

    prf_write_head(s, &out, &p);
    prf_write_modules(s, &out, &p);
    prf_write_hits(s, &out, &p);
    prf_write_meta(s, &out, &p);
    prf_write_timeline(s, &out, &p);
    /* (1.4) The source places of every PC, before the stacks: a reader
     * expands their inlined functions as it reads them. */
    prf_write_lines(s, &out, &p);
    if (s->embed_source)
        prf_write_sources(s, &out, &p);

    prf_write_stacks(s, &out, &p);
    if (s->nprocs > 0 || s->nthreads > 0)
        prf_write_threads(s, &out, &p);

    /* (1.2) The end marker holds the CRC-32 of every byte before it, its
     * chunk headers included, which the chunks' own CRCs do not cover. */
    p.len = 0;
    buf_u32(&p, (uint32_t)crc32_z(0, out.data, out.len));
    prf_put_chunk(&out, "END ", &p);
    free(p.data);
    *data = out.data;
    *len = out.len;
}

/* Keep the regular file PATH as PATH.old, replacing an older one: 0 (with
 * *KEPT), or an errno.  A hard link leaves PATH in place until the new file
 * replaces it, so a failure at any step loses nothing; a file system without
 * links gets a rename, which *MOVED reports so that it can be undone. */
static int prf_keep_old(const char *path, const char *tmp, bool *kept, bool *moved)
{
    struct stat st;
    if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return 0; /* nothing to keep */
    char *old = xasprintf("%s.old", path), *link_tmp = xasprintf("%s.old", tmp);
    int err = 0;
    if (link(path, link_tmp) == 0) {
        if (rename(link_tmp, old) < 0) {
            err = errno;
            unlink(link_tmp);
        }
    } else if (rename(path, old) == 0) {
        *moved = true;
    } else {
        err = errno;
    }
    *kept = err == 0;
    free(old);
    free(link_tmp);
    return err;
}

int prf_write_atomic(const char *path, const uint8_t *data, size_t len, char **cause)
{
    bool kept;
    return prf_write_save(path, data, len, 0, &kept, NULL, cause);
}

int prf_write_atomic_keep(const char *path, const uint8_t *data, size_t len, bool keep_old,
                          bool *kept, char **cause)
{
    return prf_write_save(path, data, len, keep_old ? PRF_SAVE_KEEP_OLD : 0, kept, NULL, cause);
}

/* The mode of the file about to be written at PATH: that of the regular file
 * it REPLACEs (a 0600 session stays private), else what the umask leaves of
 * 0666, as for any file a program creates. */
static mode_t prf_file_mode(const char *path, bool replace)
{
    struct stat st;
    if (replace && stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return st.st_mode & 0777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* Whether another user could take PATH's name before this one: its
 * directory DIR is sticky (/tmp, a shared PROFDIR), where a file that user
 * made at the name could neither be replaced nor removed, and PATH is not
 * already a file of ours. */
static bool prf_name_contested(const char *dir, const char *path)
{
    struct stat st;
    if (stat(dir, &st) < 0 || !(st.st_mode & S_ISVTX))
        return false;
    return lstat(path, &st) < 0 || st.st_uid != geteuid();
}

/* PATH with a random part before its .PRF (or at its end): NAME.x7Kq2b.PRF.
 * The caller frees. */
static char *prf_random_name(const char *path)
{
    static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char r[6];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20) ^ (uintptr_t)r;
        for (size_t i = 0; i < sizeof r; i++, x = x * 6364136223846793005u + 1442695040888963407u)
            r[i] = (unsigned char)(x >> 33);
    }
    char part[sizeof r + 1];
    for (size_t i = 0; i < sizeof r; i++)
        part[i] = set[r[i] % (sizeof set - 1)];
    part[sizeof r] = '\0';
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strlen(path);
    if (strlen(base) > 4 && strcasecmp(path + n - 4, ".PRF") == 0)
        return xasprintf("%.*s.%s%s", (int)(n - 4), path, part, path + n - 4);
    return xasprintf("%s.%s", path, part);
}

/* Give the written temporary file TMP a name of its own that no other file
 * has: PATH, else PATH with a random part, never replacing a file.  A hard
 * link takes the name as O_EXCL would, with the whole file already there;
 * where there are no links, the name is taken with O_EXCL and the file
 * renamed onto it.  0 with *CHOSEN (owned), or an errno. */
#define PRF_NAME_TRIES 100
static int prf_place_new(const char *tmp, const char *path, char **chosen)
{
    for (int i = 0; i < PRF_NAME_TRIES; i++) {
        char *cand = i == 0 ? xstrdup(path) : prf_random_name(path);
        int err = link(tmp, cand) == 0 ? 0 : errno;
        if (err == 0) {
            unlink(tmp);
        } else if (err != EEXIST) {
            int fd = open(cand, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            err = fd < 0 ? errno : 0;
            if (fd >= 0) {
                close(fd);
                if (rename(tmp, cand) < 0) {
                    err = errno;
                    unlink(cand);
                }
            }
        }
        if (err == 0) {
            *chosen = cand;
            return 0;
        }
        free(cand);
        if (err != EEXIST)
            return err;
    }
    return EEXIST;
}

/* What the non-regular file of mode MODE is, for a message. */
static const char *prf_kind(mode_t mode)
{
    return S_ISFIFO(mode)                   ? "a FIFO"
           : S_ISCHR(mode) || S_ISBLK(mode) ? "a device"
           : S_ISSOCK(mode)                 ? "a socket"
                                            : "not a file";
}

/* Whether NAME is in /dev itself, where /dev/stdout and its like are links
 * (to /proc/self/fd/1: a regular file when standard output is one) that a
 * rename would replace for everyone. */
static bool prf_in_dev(const char *name)
{
    char *copy = xstrdup(name);
    char *dir = realpath(dirname(copy), NULL);
    bool yes = dir != NULL && strcmp(dir, "/dev") == 0;
    free(dir);
    free(copy);
    return yes;
}

/* Whether the file of mode MODE at the output's name NAME is written into
 * rather than replaced, under FLAGS: a FIFO, a character device, a name in
 * /dev for a regular file (/dev/stdout); never a disk. */
static bool prf_through(const char *name, mode_t mode, unsigned flags)
{
    return (flags & PRF_SAVE_THROUGH) &&
           (S_ISFIFO(mode) || S_ISCHR(mode) || (S_ISREG(mode) && prf_in_dev(name)));
}

/* Whether NAME (PATH, or its .old) is something other than a regular file
 * or a directory (whose own refusal, EISDIR, says why), or a name in /dev:
 * 0, or -EEXIST with *CAUSE. */
static int prf_check_one(const char *path, const char *name, unsigned flags, char **cause)
{
    struct stat st;
    if (lstat(name, &st) < 0)
        return 0; /* nothing there */
    bool dev = prf_in_dev(name), target = stat(name, &st) == 0;
    if (dev ? prf_through(name, st.st_mode, flags)
            : !target || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
                  prf_through(name, st.st_mode, flags))
        return 0; /* a link to nothing is replaced: the link, not what it names */
    const char *kind = target && !S_ISREG(st.st_mode) ? prf_kind(st.st_mode) : NULL;
    if (kind == NULL) /* /dev/stdout onto a regular file */
        *cause = xasprintf("%s: a name in /dev, not a file of its own: will not replace it", name);
    else if (strcmp(name, path) == 0)
        *cause = xasprintf("%s: not a regular file (%s): will not replace it", path, kind);
    else
        *cause = xasprintf("%s: %s is not a regular file (%s): will not replace it to keep the "
                           "previous file",
                           path, name, kind);
    return -EEXIST;
}

int prf_write_check(const char *path, unsigned flags, char **cause)
{
    char *copy = xstrdup(path);
    bool contested = prf_name_contested(dirname(copy), path);
    free(copy);
    if ((flags & PRF_SAVE_NEW) || contested)
        return 0; /* replaces nothing: another name is taken */
    int r = prf_check_one(path, path, flags, cause);
    if (r == 0 && (flags & PRF_SAVE_KEEP_OLD)) {
        char *old = xasprintf("%s.old", path);
        r = prf_check_one(path, old, 0, cause);
        free(old);
    }
    return r;
}

/* Write LEN bytes of DATA into the FIFO, character device or name in /dev
 * PATH, as `>` would: 0, 1 when PATH turned out to be a regular file after all (it is
 * then replaced as one), or -errno with *CAUSE.  A FIFO waits for its
 * reader, as it does for the shell. */
static int prf_write_through(const char *path, const uint8_t *data, size_t len, char **cause)
{
    /* /dev/stdout onto a regular file: emptied first, as tee does. */
    bool dev = prf_in_dev(path);
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (dev ? O_TRUNC : 0));
    struct stat st;
    int err = fd < 0 ? errno : 0;
    if (err == 0 && fstat(fd, &st) < 0)
        err = errno;
    if (err == 0 && !dev && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
        close(fd);
        return 1;
    }
    for (size_t done = 0; err == 0 && done < len;) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            err = w < 0 ? errno : ENOSPC;
        else
            done += (size_t)w;
    }
    if (fd >= 0 && close(fd) < 0 && err == 0)
        err = errno;
    if (err != 0)
        *cause = xasprintf("%s: cannot write: %s", path, strerror(err));
    return -err;
}

/* Make a rename in DIR last: the directory's own entry is flushed too. */
static void prf_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int prf_write_save(const char *path, const uint8_t *data, size_t len, unsigned flags, bool *kept,
                   char **saved_as, char **cause)
{
    bool moved = false;
    *kept = false;
    if (saved_as != NULL)
        *saved_as = NULL;
    struct stat st;
    if (!(flags & PRF_SAVE_NEW) && stat(path, &st) == 0 && prf_through(path, st.st_mode, flags)) {
        int r = prf_write_through(path, data, len, cause);
        if (r <= 0) {
            if (r == 0 && saved_as != NULL)
                *saved_as = xstrdup(path);
            return r;
        }
    }
    int refused = prf_write_check(path, flags, cause);
    if (refused < 0)
        return refused;
    char *copy = xstrdup(path);
    char *dir = xstrdup(dirname(copy));
    free(copy);
    char *tmp = xasprintf("%s/.%s.XXXXXX", dir, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    /* Never over a file another user may have put in our way. */
    bool place_new = (flags & PRF_SAVE_NEW) || prf_name_contested(dir, path);
    mode_t mode = prf_file_mode(path, !place_new);
    int err = 0;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        *cause = xasprintf("%s: Cannot open output file (%s)", path, strerror(err));
        free(tmp);
        free(dir);
        return -err;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = w < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)w;
    }
    if (err == 0 && fchmod(fd, mode) < 0)
        err = errno;
    if (err == 0 && fsync(fd) < 0)
        err = errno;
    if (close(fd) < 0 && err == 0)
        err = errno;
    char *chosen = NULL;
    if (err == 0 && place_new) {
        err = prf_place_new(tmp, path, &chosen);
        goto out;
    }
    if (err == 0 && (flags & PRF_SAVE_KEEP_OLD) &&
        (err = prf_keep_old(path, tmp, kept, &moved)) != 0) {
        /* Neither file may be lost: the new one goes beside the old, as .new. */
        char *fresh = xasprintf("%s.new", path);
        if (link(tmp, fresh) == 0) {
            *cause = xasprintf("%s: cannot keep the previous file as %s.old (%s): this run is "
                               "saved as %s",
                               path, path, strerror(err), fresh);
            unlink(tmp);
        } else { /* no links here, or a .new already: the temporary file stays */
            *cause = xasprintf("%s: cannot keep the previous file as %s.old (%s): this run is "
                               "saved as %s",
                               path, path, strerror(err), tmp);
        }
        prf_sync_dir(dir);
        free(fresh);
        free(tmp);
        free(dir);
        return -err;
    }
    if (err == 0 && rename(tmp, path) < 0) {
        err = errno;
        if (moved) { /* put the previous file back where it was */
            char *old = xasprintf("%s.old", path);
            rename(old, path);
            free(old);
            *kept = false;
        }
    }
    if (err == 0)
        chosen = xstrdup(path);
out:
    if (err != 0) {
        unlink(tmp);
        *cause = xasprintf("%s: cannot write the profile: %s", path, strerror(err));
    } else {
        prf_sync_dir(dir);
    }
    if (saved_as != NULL)
        *saved_as = chosen;
    else
        free(chosen);
    free(tmp);
    free(dir);
    return -err;
}

int prf_write_file(struct session *s, const char *path, char **cause)
{
    bool kept;
    return prf_write_file_keep(s, path, false, &kept, cause);
}

int prf_write_file_keep(struct session *s, const char *path, bool keep_old, bool *kept,
                        char **cause)
{
    uint8_t *data;
    size_t len;
    prf_write_buffer(s, &data, &len);
    int r = prf_write_atomic_keep(path, data, len, keep_old, kept, cause);
    free(data);
    return r;
}
