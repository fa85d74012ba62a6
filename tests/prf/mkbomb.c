/* Writes hostile .PRF files for tests/e2e/bombs.sh: valid and checksummed,
 * so that they get past the checksums, and small on disk, but claiming (or
 * inflating to) far more than a real session of their kind needs.  Large
 * payloads are deflated as they are made, so this tool stays small too.
 * It also patches an ELF executable's code segment (p_memsz, p_filesz), for
 * the program-area checks, and measures a command's peak memory and time.
 * Usage: mkbomb KIND OUT [N]; mkbomb --help. */
#include "config.h"

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static FILE *out;
static uLong file_crc; /* of every byte written: the end marker holds it */
static uint64_t file_len;

static void die(const char *why)
{
    fprintf(stderr, "mkbomb: %s\n", why);
    exit(2);
}

static void put(const void *p, size_t n)
{
    if (n > 0 && fwrite(p, 1, n, out) != n)
        die("write failed");
    file_crc = crc32(file_crc, p, (uInt)n);
    file_len += n;
}

/* A growable byte buffer. */
struct buf {
    uint8_t *p;
    size_t len, alloc;
};

static void b_put(struct buf *b, const void *p, size_t n)
{
    if (b->len + n > b->alloc) {
        b->alloc = (b->len + n) * 2;
        b->p = realloc(b->p, b->alloc);
        if (b->p == NULL)
            die("out of memory");
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void b_u8(struct buf *b, uint8_t v)
{
    b_put(b, &v, 1);
}

static void b_u32(struct buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    b_put(b, x, 4);
}

static void b_u64(struct buf *b, uint64_t v)
{
    b_u32(b, (uint32_t)v);
    b_u32(b, (uint32_t)(v >> 32));
}

static void b_varint(struct buf *b, uint64_t v)
{
    while (v >= 0x80) {
        b_u8(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    b_u8(b, (uint8_t)v);
}

static void b_free(struct buf *a, struct buf *b, struct buf *c)
{
    free(a->p);
    free(b->p);
    if (c != NULL)
        free(c->p);
}

static void b_str(struct buf *b, const char *s)
{
    b_u32(b, (uint32_t)strlen(s));
    b_put(b, s, strlen(s));
}

/* One chunk: its 24-byte header, then STORED (LEN bytes). */
static void chunk_raw(const char *type, uint32_t flags, const uint8_t *stored, size_t len,
                      uint32_t raw_len)
{
    struct buf h = {0};
    b_put(&h, type, 4);
    b_u32(&h, flags);
    b_u64(&h, len);
    b_u32(&h, raw_len);
    b_u32(&h, (uint32_t)crc32(0, stored, (uInt)len));
    put(h.p, h.len);
    put(stored, len);
    free(h.p);
}

/* A chunk stored as is. */
static void chunk(const char *type, const struct buf *p)
{
    chunk_raw(type, 0, p->p, p->len, (uint32_t)p->len);
}

/* A zlib-compressed chunk: PREFIX, then RECORD repeated N times, then SUFFIX,
 * deflated as it is made. */
static void chunk_bomb(const char *type, const struct buf *prefix, const struct buf *record,
                       uint64_t n, const struct buf *suffix)
{
    uint64_t raw = prefix->len + record->len * n + (suffix ? suffix->len : 0);
    if (raw > UINT32_MAX)
        die("a chunk's raw length must fit in 32 bits");
    z_stream z = {0};
    if (deflateInit(&z, 9) != Z_OK)
        die("deflateInit");
    struct buf stored = {0};
    uint8_t block[1 << 16], zout[1 << 16];
    size_t fill = 0;
    uint64_t done = 0;
    /* Feed the stream: the prefix, the records, the suffix, a block at a time. */
    const struct buf *parts[3] = {prefix, record, suffix};
    for (int part = 0; part < 3; part++) {
        const struct buf *pb = parts[part];
        uint64_t times = part == 1 ? n : 1;
        if (pb == NULL || pb->len == 0)
            continue;
        for (uint64_t t = 0; t < times; t++) {
            for (size_t off = 0; off < pb->len;) {
                size_t k =
                    pb->len - off < sizeof block - fill ? pb->len - off : sizeof block - fill;
                memcpy(block + fill, pb->p + off, k);
                fill += k;
                off += k;
                if (fill == sizeof block) {
                    z.next_in = block;
                    z.avail_in = (uInt)fill;
                    do {
                        z.next_out = zout;
                        z.avail_out = sizeof zout;
                        deflate(&z, Z_NO_FLUSH);
                        b_put(&stored, zout, sizeof zout - z.avail_out);
                    } while (z.avail_in > 0);
                    done += fill;
                    fill = 0;
                }
            }
        }
    }
    z.next_in = block;
    z.avail_in = (uInt)fill;
    int r;
    do {
        z.next_out = zout;
        z.avail_out = sizeof zout;
        r = deflate(&z, Z_FINISH);
        b_put(&stored, zout, sizeof zout - z.avail_out);
    } while (r != Z_STREAM_END);
    done += fill;
    deflateEnd(&z);
    if (done != raw)
        die("deflate lost count");
    chunk_raw(type, 1, stored.p, stored.len, (uint32_t)raw);
    free(stored.p);
}

static void file_begin(const char *path)
{
    out = fopen(path, "wb");
    if (out == NULL)
        die("cannot open the output");
    static const uint8_t magic[16] = {0x89, 'P', 'R', 'F', '\r', '\n', 0x1a, '\n', 1, 0, 4, 0};
    put(magic, sizeof magic);
}

static void file_end(void)
{
    struct buf p = {0};
    b_u32(&p, (uint32_t)file_crc);
    chunk("END ", &p);
    free(p.p);
    if (fclose(out) != 0)
        die("close failed");
}

/* What the HEAD chunk holds. */
struct head {
    uint32_t interval_us, paragraphs;
    uint64_t prog_low, prog_high;
    uint64_t program, dos, io, high, total;
    uint64_t duration_ns;
};

static uint64_t bucket_count(const struct head *h)
{
    uint64_t size = 16ull * h->paragraphs, span = h->prog_high - h->prog_low;
    uint64_t n = (span + size - 1) / size;
    return n ? n : 1;
}

static void put_head(const struct head *h)
{
    struct buf p = {0};
    b_u32(&p, h->interval_us);
    b_u32(&p, h->paragraphs);
    b_u64(&p, bucket_count(h));
    b_u64(&p, h->prog_low);
    b_u64(&p, h->prog_high);
    b_u64(&p, h->program);
    b_u64(&p, h->dos);
    b_u64(&p, h->io);
    b_u64(&p, h->high);
    b_u64(&p, h->total);
    b_u64(&p, 0); /* lost */
    b_u32(&p, 0); /* wall clock */
    b_u32(&p, 1); /* terminated */
    b_u32(&p, 0); /* exit code */
    b_u32(&p, 0); /* signal */
    b_u64(&p, 1700000000);
    b_u64(&p, h->duration_ns);
    b_u32(&p, 4242);
    b_u32(&p, 1);
    b_u64(&p, 0); /* preempted */
    chunk("HEAD", &p);
    free(p.p);
}

/* The buckets of H, all zero but the first (COUNT): compressed. */
static void put_buckets(const struct head *h, uint64_t first)
{
    struct buf pre = {0}, rec = {0};
    uint64_t n = bucket_count(h);
    b_u64(&pre, n);
    b_u64(&pre, first);
    b_u64(&rec, 0);
    chunk_bomb("BUCK", &pre, &rec, n - 1, NULL);
    free(pre.p);
    free(rec.p);
}

/* One module header of the MODS chunk, without segments or symbols. */
static void b_module(struct buf *b, uint32_t kind, const char *path)
{
    b_u32(b, kind);
    b_str(b, path);
    b_u8(b, 0);  /* no build id */
    b_u32(b, 0); /* segments */
    b_u32(b, 0); /* symbols */
}

/* The program (no segments, no symbols) and LIBS library modules. */
static void put_modules(uint32_t libs)
{
    struct buf p = {0};
    b_u32(&p, 1 + libs);
    b_module(&p, 0, "/bomb/prog");
    for (uint32_t i = 0; i < libs; i++)
        b_module(&p, 1, "/bomb/libbomb.so");
    chunk("MODS", &p);
    free(p.p);
}

static void put_meta(const char *json)
{
    struct buf p = {0};
    b_put(&p, json, strlen(json));
    chunk("META", &p);
    free(p.p);
}

/* A plain session of 1 s, a bucket and a program: the base of every bomb. */
static struct head base_head(void)
{
    return (struct head){.interval_us = 1000,
                         .paragraphs = 1,
                         .prog_low = 0x1000,
                         .prog_high = 0x1010,
                         .duration_ns = 1000000000ull};
}

static void base_start(const char *path, const struct head *h)
{
    file_begin(path);
    put_head(h);
    put_buckets(h, h->program);
}

static uint64_t arg_n(int argc, char **argv, uint64_t def)
{
    return argc > 3 ? strtoull(argv[3], NULL, 0) : def;
}

/* N frames of nothing in a TIME chunk, for a 1 s session. */
static void bomb_timeline(const char *path, uint64_t n)
{
    struct head h = base_head();
    base_start(path, &h);
    put_modules(0);
    struct buf pre = {0}, rec = {0};
    b_u64(&pre, 100000000);
    b_u64(&pre, n);
    for (int i = 0; i < 7; i++)
        b_u8(&rec, 0); /* flags, program, dos, io, high, lost, no hits */
    chunk_bomb("TIME", &pre, &rec, n, NULL);
    b_free(&pre, &rec, NULL);
    file_end();
}

/* A MODS chunk of N empty library modules after the program. */
static void bomb_modules(const char *path, uint64_t n)
{
    struct head h = base_head();
    base_start(path, &h);
    struct buf pre = {0}, rec = {0};
    b_u32(&pre, (uint32_t)(n + 1));
    b_module(&pre, 0, "/bomb/prog");
    b_module(&rec, 1, "");
    chunk_bomb("MODS", &pre, &rec, n, NULL);
    b_free(&pre, &rec, NULL);
    file_end();
}

/* A META chunk holding a JSON array of N zeros. */
static void bomb_meta(const char *path, uint64_t n)
{
    struct head h = base_head();
    base_start(path, &h);
    put_modules(0);
    struct buf pre = {0}, rec = {0}, suf = {0};
    b_put(&pre, "{\"a\":[", 6);
    b_put(&rec, "0,", 2);
    b_put(&suf, "0]}", 3);
    chunk_bomb("META", &pre, &rec, n, &suf);
    b_free(&pre, &rec, &suf);
    file_end();
}

/* A META chunk whose JSON is nested N deep. */
static void bomb_depth(const char *path, uint64_t n)
{
    struct head h = base_head();
    base_start(path, &h);
    put_modules(0);
    struct buf pre = {0}, rec = {0}, suf = {0};
    b_put(&pre, "{\"a\":", 5);
    for (uint64_t i = 0; i < n; i++)
        b_u8(&rec, '[');
    for (uint64_t i = 0; i < n; i++)
        b_u8(&suf, ']');
    b_u8(&suf, '}');
    chunk_bomb("META", &pre, &rec, 1, &suf);
    b_free(&pre, &rec, &suf);
    file_end();
}

/* A header whose program area makes N buckets, and their BUCK chunk. */
static void bomb_buckets(const char *path, uint64_t n)
{
    struct head h = base_head();
    h.prog_high = h.prog_low + 16 * n;
    base_start(path, &h);
    put_modules(0);
    file_end();
}

/* A LINE chunk of N places, one byte apart, all on line 0 of one file. */
static void bomb_places(const char *path, uint64_t n)
{
    struct head h = base_head();
    base_start(path, &h);
    put_modules(0);
    struct buf pre = {0}, rec = {0};
    b_varint(&pre, 1); /* one file */
    b_str(&pre, "a.c");
    b_varint(&pre, 0); /* no inlined functions */
    b_varint(&pre, 0); /* no function places */
    b_varint(&pre, n);
    static const uint8_t place[6] = {0, 1, 1, 0, 0, 0}; /* module +0, offset +1, a.c:0:0, depth 0 */
    b_put(&rec, place, sizeof place);
    chunk_bomb("LINE", &pre, &rec, n, NULL);
    b_free(&pre, &rec, NULL);
    file_end();
}

/* N hits in a library module with no segments and no symbols, at distinct
 * offsets, each of them a function of its own (the symbol-insertion case). */
static void bomb_hits(const char *path, uint64_t n)
{
    struct head h = base_head();
    h.dos = h.total = n;
    base_start(path, &h);
    put_modules(1);
    struct buf p = {0};
    b_u64(&p, n);
    for (uint64_t i = 0; i < n; i++) {
        b_u32(&p, 1);
        b_u64(&p, 0x10000 + 16 * i);
        b_u64(&p, 1);
    }
    struct buf none = {0};
    chunk_bomb("HITS", &p, &none, 0, NULL);
    free(p.p);
    file_end();
}

/* A THRD chunk of N threads (the same one over and over: the count is
 * refused before the records are read). */
static void bomb_threads(const char *path, uint64_t n)
{
    struct head h = base_head();
    base_start(path, &h);
    put_modules(0);
    struct buf hits = {0};
    b_u64(&hits, 0);
    chunk("HITS", &hits);
    struct buf pre = {0}, rec = {0};
    b_varint(&pre, 0); /* no processes */
    b_varint(&pre, n);
    b_varint(&rec, 1);          /* tid */
    b_varint(&rec, 1);          /* pid */
    b_str(&rec, "");            /* 10 bytes a thread, the least the reader takes */
    for (int i = 0; i < 4; i++) /* start, end, on_cpu, blocked */
        b_varint(&rec, 0);
    struct buf suf = {0};
    b_varint(&suf, 0); /* no per-thread counts */
    chunk_bomb("THRD", &pre, &rec, n, &suf);
    b_free(&pre, &rec, &suf);
    free(hits.p);
    file_end();
}

/* An unknown chunk inflating to N zero bytes. */
static void bomb_unknown(const char *path, uint64_t n)
{
    struct head h = base_head();
    base_start(path, &h);
    put_modules(0);
    struct buf pre = {0}, rec = {0};
    for (int i = 0; i < 4096; i++)
        b_u8(&rec, 0);
    chunk_bomb("ZZZZ", &pre, &rec, n / 4096, NULL);
    b_free(&pre, &rec, NULL);
    file_end();
}

/* Counters near 2^64: the program's one bucket and one hit in a named
 * function hold nearly all of them, and the two functions' samples add up
 * past 2^64. */
static void bomb_counters(const char *path, uint32_t interval_us)
{
    struct head h = base_head();
    h.interval_us = interval_us;
    h.program = UINT64_MAX - 10;
    h.high = 10;
    h.total = UINT64_MAX;
    base_start(path, &h);
    struct buf p = {0};
    b_u32(&p, 1);
    b_u32(&p, 0);
    b_str(&p, "/bomb/prog");
    b_u8(&p, 0);
    b_u32(&p, 1); /* one segment: file offsets 0x1000.. are addresses 0x1000.. */
    b_u64(&p, 0x1000);
    b_u64(&p, 0x10);
    b_u64(&p, 0x1000);
    b_u64(&p, 0x10);
    b_u32(&p, 5);
    b_u32(&p, 2); /* two symbols */
    b_u64(&p, 0x1000);
    b_u64(&p, 0x1008);
    b_u8(&p, 0);
    b_str(&p, "hot");
    b_u64(&p, 0x1008);
    b_u64(&p, 0x1010);
    b_u8(&p, 0);
    b_str(&p, "warm");
    chunk("MODS", &p);
    p.len = 0;
    b_u64(&p, 2);
    b_u32(&p, 0);
    b_u64(&p, 0x1000);
    b_u64(&p, UINT64_MAX - 12);
    b_u32(&p, 0);
    b_u64(&p, 0x1008);
    b_u64(&p, 100); /* with hot's, past 2^64: the functions' sum would wrap round */
    chunk("HITS", &p);
    free(p.p);
    put_meta("{\"program\":\"/bomb/prog\",\"driver\":\"perf\"}");
    file_end();
}

/* A plain file with a second BUCK chunk that says something else. */
static void bomb_dupbuck(const char *path)
{
    struct head h = base_head();
    h.program = h.total = 5;
    base_start(path, &h);
    put_buckets(&h, 999);
    put_modules(0);
    file_end();
}

/* A plain, well-formed file: what the others start from. */
/* One sample in the program, at one stack of one frame, whose counts claim
 * more: N samples with that stack in the frame (stacks), or, with the
 * frame's count right, N threads with that one sample each (stackthreads). */
static void bomb_stacks(const char *path, uint64_t n, bool threads)
{
    struct head h = base_head();
    h.program = h.total = 1;
    base_start(path, &h);
    put_modules(0);
    struct buf p = {0};
    b_u64(&p, 100000000); /* one frame of 100 ms */
    b_u64(&p, 1);
    b_varint(&p, 0); /* flags */
    b_varint(&p, 1); /* program */
    for (int i = 0; i < 5; i++)
        b_varint(&p, 0); /* dos, io, high, lost, no hits */
    chunk("TIME", &p);
    p.len = 0;
    b_varint(&p, 1); /* one node: the program at +0x8 */
    b_varint(&p, 0);
    b_varint(&p, 0);
    b_varint(&p, 8);
    b_varint(&p, 1); /* one frame with stacks: the first, one stack */
    b_varint(&p, 0);
    b_varint(&p, 1);
    b_varint(&p, 1);               /* node 1 */
    b_varint(&p, threads ? 1 : n); /* its samples in the frame */
    if (threads) {
        b_varint(&p, n);
        for (uint64_t tid = 100; tid < 100 + n; tid++) {
            b_varint(&p, tid);
            b_varint(&p, 1);
            b_varint(&p, 1);
        }
    }
    chunk("STCK", &p);
    free(p.p);
    file_end();
}

/* The program's module with one segment (file offsets 0x1000.. are addresses
 * 0x1000..) and one function, "f", over all of it. */
static void put_module_f(void)
{
    struct buf p = {0};
    b_u32(&p, 1);
    b_u32(&p, 0);
    b_str(&p, "/bomb/prog");
    b_u8(&p, 0);
    b_u32(&p, 1);
    b_u64(&p, 0x1000);
    b_u64(&p, 0x10);
    b_u64(&p, 0x1000);
    b_u64(&p, 0x10);
    b_u32(&p, 5);
    b_u32(&p, 1);
    b_u64(&p, 0x1000);
    b_u64(&p, 0x1010);
    b_u8(&p, 0);
    b_str(&p, "f");
    chunk("MODS", &p);
    free(p.p);
}

/* One function calling itself N deep, a sample at every depth: N stacks of
 * 1 to N frames, from a few bytes each (N (N + 1) / 2 frames in all); with
 * ONE, its N samples all at the deepest (one stack of N frames); with
 * LEAVES, a sample in each of LEAVES callees of the deepest call instead,
 * each at a PC of its own (a broom: LEAVES stacks of N + 1 frames). */
static void bomb_deep(const char *path, uint64_t n, bool one, uint64_t leaves)
{
    struct head h = base_head();
    uint64_t samples = leaves > 0 ? leaves : n;
    h.program = h.total = samples;
    base_start(path, &h);
    put_module_f();
    struct buf p = {0};
    b_u64(&p, 1);
    b_u32(&p, 0);
    b_u64(&p, 0x1008);
    b_u64(&p, samples);
    chunk("HITS", &p);
    p.len = 0;
    b_u64(&p, 100000000); /* one frame of 100 ms */
    b_u64(&p, 1);
    b_varint(&p, 0);       /* flags */
    b_varint(&p, samples); /* program */
    for (int i = 0; i < 4; i++)
        b_varint(&p, 0); /* dos, io, high, lost */
    b_varint(&p, 1);     /* one hit: the first, all the samples */
    b_varint(&p, 0);
    b_varint(&p, samples);
    chunk("TIME", &p);
    p.len = 0;
    b_varint(&p, n + leaves); /* nodes: each the caller of the next, all at f+8 */
    for (uint64_t i = 0; i < n; i++) {
        b_varint(&p, i);
        b_varint(&p, 0);
        b_varint(&p, 0x1008);
    }
    for (uint64_t i = 0; i < leaves; i++) { /* the broom's leaves, under node N */
        b_varint(&p, n);
        b_varint(&p, 0);
        b_varint(&p, 0x100000 + i);
    }
    b_varint(&p, 1); /* one frame with stacks: the first, a sample at each node */
    b_varint(&p, 0);
    if (leaves > 0) {
        b_varint(&p, leaves);
        b_varint(&p, n + 1);
        b_varint(&p, 1);
        for (uint64_t i = 1; i < leaves; i++) {
            b_varint(&p, 1);
            b_varint(&p, 1);
        }
    } else if (one) {
        b_varint(&p, 1);
        b_varint(&p, n);
        b_varint(&p, n);
    } else {
        b_varint(&p, n);
        for (uint64_t i = 0; i < n; i++) {
            b_varint(&p, 1);
            b_varint(&p, 1);
        }
    }
    struct buf none = {0};
    chunk_bomb("STCK", &p, &none, 0, NULL);
    free(p.p);
    put_meta("{\"program\":\"/bomb/prog\",\"driver\":\"perf\"}");
    file_end();
}

/* One sample of f whose stack ends in a kernel frame at 2^64 - 1, the top
 * of the address space: a reader names it with a symbol of one byte, whose
 * end does not fit in 64 bits. */
static void bomb_kernelframe(const char *path)
{
    struct head h = base_head();
    h.program = h.total = 1;
    base_start(path, &h);
    struct buf p = {0};
    b_u32(&p, 2);
    b_u32(&p, 0);
    b_str(&p, "/bomb/prog");
    b_u8(&p, 0);
    b_u32(&p, 1);
    b_u64(&p, 0x1000);
    b_u64(&p, 0x10);
    b_u64(&p, 0x1000);
    b_u64(&p, 0x10);
    b_u32(&p, 5);
    b_u32(&p, 1);
    b_u64(&p, 0x1000);
    b_u64(&p, 0x1010);
    b_u8(&p, 0);
    b_str(&p, "f");
    b_module(&p, 4, "[kernel]");
    chunk("MODS", &p);
    p.len = 0;
    b_u64(&p, 1);
    b_u32(&p, 0);
    b_u64(&p, 0x1008);
    b_u64(&p, 1);
    chunk("HITS", &p);
    p.len = 0;
    b_u64(&p, 100000000); /* one frame of 100 ms */
    b_u64(&p, 1);
    b_varint(&p, 0); /* flags */
    b_varint(&p, 1); /* program */
    for (int i = 0; i < 4; i++)
        b_varint(&p, 0); /* dos, io, high, lost */
    b_varint(&p, 1);     /* one hit: the first, one sample */
    b_varint(&p, 0);
    b_varint(&p, 1);
    chunk("TIME", &p);
    p.len = 0;
    b_varint(&p, 2); /* f+8, then the kernel at 2^64 - 1 */
    b_varint(&p, 0);
    b_varint(&p, 0);
    b_varint(&p, 0x1008);
    b_varint(&p, 1);
    b_varint(&p, 1);
    b_varint(&p, UINT64_MAX);
    b_varint(&p, 1); /* one frame with stacks: the first, one sample of node 2 */
    b_varint(&p, 0);
    b_varint(&p, 1);
    b_varint(&p, 2);
    b_varint(&p, 1);
    chunk("STCK", &p);
    free(p.p);
    put_meta("{\"program\":\"/bomb/prog\",\"driver\":\"perf\"}");
    file_end();
}

static void bomb_plain(const char *path)
{
    struct head h = base_head();
    base_start(path, &h);
    put_modules(0);
    put_meta("{\"program\":\"/bomb/prog\",\"driver\":\"perf\"}");
    file_end();
}

/* Set the p_memsz (and with FILESZ its p_filesz) of every executable
 * PT_LOAD of the 64-bit ELF file PATH to VALUE, in place. */
static void patch_elf(const char *path, uint64_t value, bool filesz)
{
    FILE *f = fopen(path, "r+b");
    Elf64_Ehdr eh;
    if (f == NULL || fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64)
        die("not a 64-bit ELF file");
    int patched = 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        long at = (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize);
        if (fseek(f, at, SEEK_SET) != 0 || fread(&ph, sizeof ph, 1, f) != 1)
            die("cannot read a program header");
        if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
        ph.p_memsz = value;
        if (filesz)
            ph.p_filesz = value;
        if (fseek(f, at, SEEK_SET) != 0 || fwrite(&ph, sizeof ph, 1, f) != 1)
            die("cannot write a program header");
        patched++;
    }
    if (fclose(f) != 0 || patched == 0)
        die("no executable segment patched");
}

/* Run ARGV and write to PATH its peak memory (kB), its wall-clock seconds,
 * how it ended ("exit N" or "signal N") and its CPU seconds (user and
 * system): /usr/bin/time -v without the package.  Returns the command's exit status. */
static int measure(const char *path, char **argv)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0)
        die("fork failed");
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0)
        die("wait4 failed");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        die("cannot write the measure");
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    fprintf(f, "%ld %.2f %s %d %.2f\n", ru.ru_maxrss, secs, WIFSIGNALED(status) ? "signal" : "exit",
            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), cpu);
    fclose(f);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr,
                "usage: mkbomb "
                "timeline|modules|meta|depth|buckets|places|hits|threads|unknown|"
                "stacks|stackthreads|deep|deepone|broom OUT [N]\n"
                "       mkbomb counters OUT [INTERVAL_US]; mkbomb dupbuck|kernelframe|plain OUT\n"
                "       mkbomb memsz|filesz ELF VALUE   (patches ELF in place)\n"
                "       mkbomb measure OUT CMD [ARG...]  (OUT: peak kB, seconds, "
                "exit|signal N, CPU seconds)\n");
        return 2;
    }
    const char *kind = argv[1], *path = argv[2];
    if (strcmp(kind, "measure") == 0) {
        if (argc < 4)
            die("measure what?");
        return measure(path, argv + 3);
    }
    if (strcmp(kind, "memsz") == 0 || strcmp(kind, "filesz") == 0) {
        if (argc < 4)
            die("which value?");
        patch_elf(path, strtoull(argv[3], NULL, 0), strcmp(kind, "filesz") == 0);
        return 0;
    }
    if (strcmp(kind, "timeline") == 0)
        bomb_timeline(path, arg_n(argc, argv, 38000000));
    else if (strcmp(kind, "modules") == 0)
        bomb_modules(path, arg_n(argc, argv, 38000000));
    else if (strcmp(kind, "meta") == 0)
        bomb_meta(path, arg_n(argc, argv, 100000000));
    else if (strcmp(kind, "depth") == 0)
        bomb_depth(path, arg_n(argc, argv, 100000));
    else if (strcmp(kind, "buckets") == 0)
        bomb_buckets(path, arg_n(argc, argv, 64 << 20));
    else if (strcmp(kind, "places") == 0)
        bomb_places(path, arg_n(argc, argv, 100000000));
    else if (strcmp(kind, "hits") == 0)
        bomb_hits(path, arg_n(argc, argv, 250000));
    else if (strcmp(kind, "threads") == 0)
        bomb_threads(path, arg_n(argc, argv, 300000));
    else if (strcmp(kind, "unknown") == 0)
        bomb_unknown(path, arg_n(argc, argv, 1ull << 31));
    else if (strcmp(kind, "counters") == 0)
        bomb_counters(path, (uint32_t)arg_n(argc, argv, 1000));
    else if (strcmp(kind, "dupbuck") == 0)
        bomb_dupbuck(path);
    else if (strcmp(kind, "stacks") == 0 || strcmp(kind, "stackthreads") == 0)
        bomb_stacks(path, arg_n(argc, argv, 1000), strcmp(kind, "stackthreads") == 0);
    else if (strcmp(kind, "deep") == 0 || strcmp(kind, "deepone") == 0)
        bomb_deep(path, arg_n(argc, argv, 4096), strcmp(kind, "deepone") == 0, 0);
    else if (strcmp(kind, "broom") == 0)
        bomb_deep(path, 4095, false, arg_n(argc, argv, 100000));
    else if (strcmp(kind, "kernelframe") == 0)
        bomb_kernelframe(path);
    else if (strcmp(kind, "plain") == 0)
        bomb_plain(path);
    else
        die("unknown kind (mkbomb --help)");
    printf("%s: %llu bytes\n", path, (unsigned long long)file_len);
    return 0;
}
