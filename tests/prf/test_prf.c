/* The .PRF file: a round trip keeps everything, and no damage crashes the reader. */
#include "config.h"

#include "prf/prf.h"
#include "report/report.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* A session with hits in the program, libc, anonymous code and the kernel. */
static struct session *make_session(void)
{
    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/sieve", 2, 250, &cause);
    if (s == NULL) {
        printf("# %s\n", cause);
        exit(1);
    }
    const struct module *m = s->modules[0];
    for (size_t i = 0; i < m->nsegs; i++) {
        struct event ev = {.type = EVENT_MMAP, .pid = 1};
        ev.mmap.start = 0x400000 + m->segs[i].vaddr;
        ev.mmap.len = m->segs[i].filesz;
        ev.mmap.pgoff = m->segs[i].offset;
        ev.mmap.path = m->path;
        session_ingest(s, &ev);
    }
    for (uint64_t pc = 0; pc < 0x400; pc += 3) {
        struct event ev = {.type = EVENT_SAMPLE, .pid = 1, .time_ns = 1000 + pc};
        ev.sample.pc = 0x400000 + s->view.prog_low + pc % (s->view.prog_high - s->view.prog_low);
        ev.sample.mode = SAMPLE_USER;
        ev.sample.count = 1 + (uint32_t)(pc % 5);
        session_ingest(s, &ev);
    }
    struct event k = {.type = EVENT_SAMPLE, .pid = 1, .time_ns = 5000};
    k.sample.pc = 0xffffffff81000000ull;
    k.sample.mode = SAMPLE_KERNEL;
    k.sample.count = 4;
    session_ingest(s, &k);
    k.sample.mode = SAMPLE_BLOCKED;
    k.sample.count = 9;
    session_ingest(s, &k);
    k.sample.mode = SAMPLE_USER;
    k.sample.pc = 0x1234;
    k.sample.count = 2;
    session_ingest(s, &k);
    struct event pre = {.type = EVENT_PREEMPTED, .pid = 1, .time_ns = 6000};
    pre.lost.count = 6;
    session_ingest(s, &pre);
    s->driver = strdup("perf");
    s->comment = strdup("a comment with \"quotes\" and ü");
    s->args = calloc(3, sizeof *s->args);
    s->args[s->nargs++] = strdup("x y");
    s->args[s->nargs++] = strdup("");
    s->exit_kind = EXIT_ABORTED;
    s->exit_signal = 11;
    s->start_time = 1700000000;
    s->duration_s = 1.5;
    return s;
}

static void test_round_trip(void)
{
    struct session *s = make_session();
    uint8_t *data;
    size_t len;
    prf_write_buffer(s, &data, &len);
    char *cause = NULL;
    struct session *r = prf_read_buffer(data, len, &cause);
    if (!ok(r != NULL, "the file reads back")) {
        printf("#   %s\n", cause);
        exit(1);
    }
    ok(memcmp(&r->view.c, &s->view.c, sizeof s->view.c) == 0, "counters survive");
    is_u64(r->view.c.preempted, 6, "the preempted ticks survive");
    ok(len > 16 && data[10] == 5 && data[11] == 0, "the file says format 1.5");
    is_u64(r->view.nbuckets, s->view.nbuckets, "bucket count survives");
    ok(memcmp(r->view.buckets, s->view.buckets, s->view.nbuckets * sizeof *s->view.buckets) == 0,
       "buckets survive");
    is_u64(r->nhits, s->nhits, "every distinct PC survives");
    is_u64(r->interval_us, 250, "interval");
    is_u64(r->view.bucket_paragraphs, 2, "paragraphs per bucket");
    is_u64(r->view.prog_low, s->view.prog_low, "program low");
    is_u64(r->view.prog_high, s->view.prog_high, "program high");
    is_str(r->comment, s->comment, "comment");
    is_str(r->driver, "perf", "driver");
    is_u64(r->nargs, 2, "two parameters");
    is_str(r->nargs > 0 ? r->args[0] : NULL, "x y", "a parameter with a blank");
    is_str(r->nargs > 1 ? r->args[1] : NULL, "", "an empty parameter");
    is_u64(r->exit_kind, EXIT_ABORTED, "exit kind");
    is_u64(r->exit_signal, 11, "exit signal");

    /* The reports of the saved session equal those of the live one. */
    char *a = report_json(s), *b = report_json(r);
    char *ma = strstr(a, "\"meta\""), *mb = strstr(b, "\"meta\"");
    if (ma)
        *ma = '\0';
    if (mb)
        *mb = '\0';
    is_str(b, a, "the JSON report reads the same from the file");
    free(a);
    free(b);

    /* Saving the read session again gives the same bytes. */
    uint8_t *again;
    size_t again_len;
    prf_write_buffer(r, &again, &again_len);
    ok(again_len == len && memcmp(again, data, len) == 0, "re-saving is byte-identical");
    free(again);

    /* A zoom is a view: the file keeps the bucket size asked for. */
    session_rebucket(s, 8);
    ok(s->view.bucket_paragraphs == 8 && s->view.nbuckets < r->view.nbuckets,
       "zoomed out to 8 paragraphs");
    prf_write_buffer(s, &again, &again_len);
    ok(again_len == len && memcmp(again, data, len) == 0,
       "saved while zoomed: the same bytes as before the zoom");
    free(again);
    session_rebucket(s, 2);

    /* Every truncation is refused with a reason. */
    int refused = 0;
    for (size_t cut = 0; cut < len; cut++) {
        char *why = NULL;
        struct session *t = prf_read_buffer(data, cut, &why);
        if (t == NULL && why != NULL && strchr(why, '\n') == NULL)
            refused++;
        session_free(t);
        free(why);
    }
    is_u64(refused, len, "all %zu truncations are refused with one line", len);

    /* Every single-bit flip: refused, never a crash (ASan watches); the end
     * marker's checksum covers the chunk headers, which their own CRCs do not. */
    int cases = 0, one_line = 0, read_anyway = 0;
    for (size_t i = 0; i < len; i++) {
        for (int bit = 0; bit < 8; bit += 3) {
            data[i] ^= (uint8_t)(1 << bit);
            char *why = NULL;
            struct session *t = prf_read_buffer(data, len, &why);
            if (t != NULL) {
                char *j = report_json(t); /* what was read must be usable */
                free(j);
            }
            cases++;
            one_line += t == NULL && why != NULL && why[0] != '\0' && strchr(why, '\n') == NULL;
            if (t != NULL && read_anyway++ == 0)
                printf("#   a flip of bit %d at byte %zu was read as good\n", bit, i);
            session_free(t);
            free(why);
            data[i] ^= (uint8_t)(1 << bit);
        }
    }
    is_u64(read_anyway, 0, "every bit flip is refused (%d cases)", cases);
    is_u64(one_line, cases, "each bit flip's refusal gives its cause in one line");

    /* A newer major version says so. */
    data[8] = 2;
    cause = NULL;
    ok(prf_read_buffer(data, len, &cause) == NULL && cause && strstr(cause, "version 2.5"),
       "a newer format version is refused: %s", cause ? cause : "");
    free(cause);
    data[8] = 1;

    /* An unknown chunk before END is skipped. */
    size_t end_at = len - 28; /* END: a 24-byte header and the file's CRC-32 */
    uint8_t *ext = malloc(len + 28);
    memcpy(ext, data, end_at);
    uint8_t unknown[28] = {'X', 'T', 'R', 'A', 0, 0, 0, 0, 4, 0, 0,   0,   0,   0,
                           0,   0,   4,   0,   0, 0, 0, 0, 0, 0, 't', 'e', 's', 't'};
    uint32_t crc = (uint32_t)crc32(0, unknown + 24, 4);
    for (int i = 0; i < 4; i++)
        unknown[20 + i] = (uint8_t)(crc >> (8 * i));
    memcpy(ext + end_at, unknown, sizeof unknown);
    /* A new END: its CRC-32 now covers the unknown chunk too. */
    uint8_t *end = ext + end_at + sizeof unknown;
    memcpy(end, data + end_at, 28);
    uint32_t whole = (uint32_t)crc32(0, ext, (uInt)(end_at + sizeof unknown));
    for (int i = 0; i < 4; i++)
        end[24 + i] = (uint8_t)(whole >> (8 * i));
    crc = (uint32_t)crc32(0, end + 24, 4);
    for (int i = 0; i < 4; i++)
        end[20 + i] = (uint8_t)(crc >> (8 * i));
    cause = NULL;
    struct session *x = prf_read_buffer(ext, len + sizeof unknown, &cause);
    ok(x != NULL && x->nhits == s->nhits && x->view.nbuckets == s->view.nbuckets &&
           memcmp(x->view.buckets, s->view.buckets, s->view.nbuckets * sizeof *s->view.buckets) ==
               0,
       "an unknown chunk is skipped, the rest read as written (%s)", cause ? cause : "read");
    session_free(x);
    free(cause);
    free(ext);

    free(data);
    session_free(r);
    session_free(s);
}

static void test_files(void)
{
    struct session *s = make_session();
    char dir[] = "/tmp/profil-test-XXXXXX";
    if (mkdtemp(dir) == NULL)
        exit(1);
    char path[128];
    snprintf(path, sizeof path, "%s/s.PRF", dir);
    char *cause = NULL;
    ok(prf_write_file(s, path, &cause) == 0, "written atomically");
    struct session *r = prf_read_file(path, &cause);
    ok(r != NULL && r->nhits == s->nhits && memcmp(&r->view.c, &s->view.c, sizeof s->view.c) == 0,
       "and read from disk, its counters and hits as written");
    session_free(r);
    snprintf(path, sizeof path, "%s/missing/s.PRF", dir);
    ok(prf_write_file(s, path, &cause) < 0 && cause && strstr(cause, "Cannot open output file"),
       "a vanished directory is one clear line: %s", cause ? cause : "");
    free(cause);
    cause = NULL;
    ok(prf_read_file(dir, &cause) == NULL && cause && strstr(cause, "not a regular file"),
       "a directory is not a session: %s", cause ? cause : "");
    free(cause);
    snprintf(path, sizeof path, "%s/s.PRF", dir);
    unlink(path);
    rmdir(dir);
    session_free(s);
}

/* Segments read from a file are not trusted: one that wraps past the top of
 * the address space is refused; ones in a hostile order (a bucket's start at a
 * higher offset than its end) still label every bucket without a crash. */
static void test_hostile_segments(void)
{
    struct session *s = make_session();
    struct segment keep = s->modules[0]->segs[0];
    s->modules[0]->segs[0].offset = UINT64_MAX - 8;
    uint8_t *data;
    size_t len;
    prf_write_buffer(s, &data, &len);
    char *cause = NULL;
    struct session *r = prf_read_buffer(data, len, &cause);
    ok(r == NULL && cause != NULL && strstr(cause, "segment") != NULL,
       "a segment that wraps is refused: %s", cause ? cause : "(read)");
    session_free(r);
    free(cause);
    free(data);
    s->modules[0]->segs[0] = keep;

    /* Every executable byte's bucket start maps high, its end low. */
    struct module *m = s->modules[0];
    bool made = false;
    for (size_t i = 0; i < m->nsegs; i++) {
        if (m->segs[i].flags & 1) {
            struct segment *x = &m->segs[i];
            m->segs = realloc(m->segs, (m->nsegs + 1) * sizeof *m->segs);
            x = &m->segs[i];
            m->segs[m->nsegs] = (struct segment){x->vaddr + 8, x->memsz, 0, x->filesz, x->flags};
            x->offset += 0x100000; /* the first 8 bytes of each bucket: far above */
            x->filesz = 8;
            m->nsegs++;
            made = true;
            break;
        }
    }
    /* Each bucket's label, one at a time (the histogram's path) and all at
     * once (--hist's): the same answer, and a name only of a function of M. */
    struct bucket_label *all = session_bucket_labels(s);
    size_t named = 0, disagree = 0, strange = 0;
    for (size_t b = 0; b < s->view.nbuckets; b++) {
        size_t others = 99;
        const char *one = session_bucket_label(s, b, &others);
        if (one != all[b].name || (one != NULL && others != all[b].others)) {
            disagree++;
            printf("#   bucket %zu: %s +%zu, all at once %s +%zu\n", b, one ? one : "-", others,
                   all[b].name ? all[b].name : "-", all[b].others);
        }
        bool known = one == NULL;
        for (size_t k = 0; one != NULL && k < m->nsyms && !known; k++)
            known = strcmp(module_symbol_name(m, k, s->raw_names), one) == 0;
        strange += !known;
        named += one != NULL;
    }
    free(all);
    ok(made && s->view.nbuckets > 0 && disagree == 0 && strange == 0,
       "hostile segments: %zu buckets labelled alike both ways, %zu by a function of the "
       "program (%zu disagree, %zu unknown names)",
       s->view.nbuckets, named, disagree, strange);
    session_free(s);
}

int main(void)
{
    plan(33);
    test_round_trip();
    test_files();
    test_hostile_segments();
    return tap_done();
}
