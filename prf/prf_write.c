/*
 * The .PRF writer: a session into chunks, and chunks into a file replaced
 * atomically (util/save.c).
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
#include "util/save.h"
#include "util/xmalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
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
    int r = save_atomic_keep(path, data, len, keep_old, kept, cause);
    free(data);
    return r;
}
