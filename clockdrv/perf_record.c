/*
 * The perf driver's records: each one in a ring's bytes parsed into a
 * struct perf_rec (mmap and comm names in one arena; a sample's callchain,
 * registers and stack copy in another), their order by time, and a
 * sample's stack handed over as an event's, for the unwinder.
 */
#include "config.h"

#include "clockdrv/perf_internal.h"
#include "clockdrv/ustack.h"
#include "util/xmalloc.h"

#include <linux/perf_event.h>
#include <string.h>

static uint32_t perf_name(struct clockdrv_perf *d, const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    if (d->names_len + n + 1 > d->names_alloc) {
        d->names_alloc = (d->names_len + n + 1) * 2;
        d->names = xreallocarray(d->names, d->names_alloc, 1);
    }
    uint32_t at = (uint32_t)d->names_len;
    memcpy(d->names + at, s, n);
    d->names[at + n] = '\0';
    d->names_len += n + 1;
    return at;
}

/* Read a little-endian u64 / u32 from a record body. */
static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Room for N more bytes in the blob arena: where they go. */
static uint8_t *perf_blob(struct clockdrv_perf *d, size_t n)
{
    if (d->blob_len + n > d->blob_alloc) {
        d->blob_alloc = (d->blob_len + n) * 2;
        d->blob = xreallocarray(d->blob, d->blob_alloc, 1);
    }
    uint8_t *p = d->blob + d->blob_len;
    d->blob_len += n;
    return p;
}

/* A sample's callchain, user registers and user stack (in that order, the
 * order of their PERF_SAMPLE bits) into the blob arena; false when damaged. */
static bool perf_parse_stack(struct clockdrv_perf *d, struct perf_rec *r, const uint8_t *p,
                             size_t len)
{
    const uint8_t *end = p + len;
    if (end - p < 8)
        return false;
    uint64_t nr = rd64(p);
    p += 8;
    if (nr > (uint64_t)(end - p) / 8)
        return false;
    d->blob_len = (d->blob_len + 7) & ~(size_t)7; /* the PCs and registers are read as u64 */
    perf_blob(d, 0);
    r->blob = d->blob_len;
    for (uint64_t i = 0; i < nr; i++) {
        uint64_t ip = rd64(p + 8 * i);
        if (ip >= (uint64_t)PERF_CONTEXT_MAX)
            continue; /* PERF_CONTEXT_KERNEL and the like: markers, not PCs */
        if (r->nkernel == UINT16_MAX)
            break;
        memcpy(perf_blob(d, 8), &ip, 8);
        r->nkernel++;
    }
    p += 8 * nr;
    if (end - p < 8)
        return false;
    uint64_t abi = rd64(p);
    p += 8;
    if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
        size_t nregs = (size_t)__builtin_popcountll(ustack_perf_mask());
        if (nregs > PERF_REGS_MAX || (size_t)(end - p) < 8 * nregs)
            return false; /* more than clockdrv_perf_stack's array holds */
        memcpy(perf_blob(d, 8 * nregs), p, 8 * nregs);
        r->nregs = (uint8_t)nregs;
        p += 8 * nregs;
    }
    if (end - p < 8)
        return false;
    uint64_t size = rd64(p);
    p += 8;
    if (size > 0) {
        if (size > (uint64_t)(end - p) || (uint64_t)(end - p) - size < 8)
            return false; /* the copy and its dynamic size (no size + 8 to wrap) */
        uint64_t dyn = rd64(p + size);
        if (dyn > size)
            dyn = size;
        memcpy(perf_blob(d, (size_t)dyn), p, (size_t)dyn);
        r->ssize = (uint32_t)dyn;
        r->sshort = dyn < size;
    }
    r->has_stack = true;
    return true;
}

/* Parse one record into d->recs.  BODY points after the header; LEN is the body length. */
void clockdrv_perf_parse(struct clockdrv_perf *d, const struct perf_event_header *h,
                         const uint8_t *body, size_t len)
{
    struct perf_rec r = {.type = (uint16_t)h->type, .misc = h->misc};
    /* Non-sample records end with sample_id: { pid, tid, time[, identifier] }. */
    size_t tail = d->ids ? 24 : 16;
    if (h->type != PERF_RECORD_SAMPLE) {
        if (len < tail)
            return;
        r.pid = rd32(body + len - tail);
        r.tid = rd32(body + len - tail + 4);
        r.time = rd64(body + len - tail + 8);
        len -= tail - 16; /* the records' own layouts below count 16 bytes of it */
    }
    switch (h->type) {
    case PERF_RECORD_SAMPLE:
        if (d->ids) {
            if (len < 8)
                return;
            uint64_t id = rd64(body);
            for (size_t i = 0; i < d->ncs_ids; i++)
                r.cs |= d->cs_ids[i] == id;
            body += 8;
            len -= 8;
        }
        if (len < 24)
            return;
        r.a = rd64(body);
        r.pid = rd32(body + 8);
        r.tid = rd32(body + 12);
        r.time = rd64(body + 16);
        r.cpu = d->parsing_cpu;
        if (d->cfg.stacks && !perf_parse_stack(d, &r, body + 24, len - 24))
            return;
        break;
    case PERF_RECORD_MMAP:
        if (len < 32 + 16)
            return;
        r.pid = rd32(body);
        r.tid = rd32(body + 4);
        r.a = rd64(body + 8);
        r.b = rd64(body + 16);
        r.c = rd64(body + 24);
        r.name = perf_name(d, (const char *)body + 32, len - 32 - 16);
        break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
        if (len < 24)
            return;
        r.pid = rd32(body);
        r.c = rd32(body + 4); /* ppid */
        r.tid = rd32(body + 8);
        break;
    case PERF_RECORD_COMM: /* an exec's (misc says), or a thread renamed */
        if (len < 8 + 16)
            return;
        r.pid = rd32(body);
        r.tid = rd32(body + 4);
        r.name = perf_name(d, (const char *)body + 8, len - 8 - 16);
        break;
    case PERF_RECORD_LOST:
        if (len < 16)
            return;
        r.c = rd64(body + 8);
        break;
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
        if (len < 8)
            return;
        r.time = rd64(body);
        break;
    case PERF_RECORD_SWITCH: break;
    default: return;
    }
    if (d->nrecs == d->recs_alloc) {
        d->recs_alloc = d->recs_alloc ? 2 * d->recs_alloc : 4096;
        d->recs = xreallocarray(d->recs, d->recs_alloc, sizeof *d->recs);
    }
    r.seq = (uint32_t)d->nrecs;
    d->recs[d->nrecs++] = r;
}

int clockdrv_perf_rec_cmp(const void *a, const void *b)
{
    const struct perf_rec *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* R's stack as an event's, in ST: borrowed from the blob arena. */
void clockdrv_perf_stack(struct clockdrv_perf *d, const struct perf_rec *r, struct event_stack *st)
{
    const uint8_t *p = d->blob + r->blob;
    st->kernel = (const uint64_t *)(const void *)p; /* 8-aligned: the arena holds u64s first */
    st->nkernel = r->nkernel;
    p += 8 * (size_t)r->nkernel;
    uint64_t regs[PERF_REGS_MAX];
    memcpy(regs, p, 8 * (size_t)r->nregs);
    ustack_regs_perf(regs, r->nregs, st);
    p += 8 * (size_t)r->nregs;
    st->data = p;
    st->size = r->ssize;
    st->to_top = r->sshort;
}
