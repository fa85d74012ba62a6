/* The timeline in the file, its replay, and classic 1983 PROFIL files. */
#include "config.h"

#include "prf/classic.h"
#include "prf/prf.h"
#include "prf/replay.h"
#include "report/report.h"
#include "tests/tap.h"

#include <stdlib.h>

#define BASE 0x10000ull
#define MS   1000000ull

static void sample(struct session *s, uint64_t t, uint64_t pc, enum sample_mode mode, uint32_t n)
{
    struct event ev = {.type = EVENT_SAMPLE, .pid = 1, .tid = 1, .time_ns = t};
    ev.sample.pc = pc;
    ev.sample.mode = mode;
    ev.sample.count = n;
    session_ingest(s, &ev);
}

/* Two seconds of a program moving between its functions, with a clear in the middle. */
static struct session *record(bool with_clear)
{
    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/sieve", 1, 1000, &cause);
    if (s == NULL) {
        printf("# %s\n", cause);
        exit(1);
    }
    s->start_ns = 1000 * MS;
    struct event mm = {.type = EVENT_MMAP, .pid = 1, .time_ns = s->start_ns};
    mm.mmap.start = BASE;
    mm.mmap.len = 0x100000;
    mm.mmap.path = s->modules[0]->path;
    session_ingest(s, &mm);
    mm.mmap.start = 0x7f0000000000ull;
    mm.mmap.path = "/lib/x86_64-linux-gnu/libc.so.6";
    session_ingest(s, &mm);
    const struct module *m = s->modules[0];
    for (uint64_t ms = 0; ms < 2000; ms++) {
        uint64_t t = s->start_ns + ms * MS;
        size_t k = (size_t)(ms / 100) % m->nsyms; /* a new function every 100 ms */
        sample(s, t, BASE + m->syms[k].start, SAMPLE_USER, 1);
        if (ms % 7 == 0)
            sample(s, t, 0x7f0000001000ull + ms % 64, SAMPLE_USER, 1);
        if (ms % 13 == 0)
            sample(s, t, 0xffffffff81000000ull, SAMPLE_KERNEL, 1);
        if (ms % 50 == 0)
            sample(s, t, 0, SAMPLE_BLOCKED, 3);
        if (ms % 333 == 0)
            sample(s, t, 0x1234, SAMPLE_USER, 1);
        if (with_clear && ms == 1234)
            session_clear(s);
    }
    struct event lost = {.type = EVENT_LOST, .pid = 1, .time_ns = s->start_ns + 1500 * MS};
    lost.lost.count = 5;
    session_ingest(s, &lost);
    struct event pre = {.type = EVENT_PREEMPTED, .pid = 1, .time_ns = s->start_ns + 1700 * MS};
    pre.lost.count = 4;
    session_ingest(s, &pre);
    s->exit_kind = EXIT_TERMINATED;
    s->driver = strdup("perf");
    return s;
}

static char *report_without_meta(struct session *s)
{
    char *j = report_json(s);
    char *m = strstr(j, "\"meta\"");
    if (m != NULL)
        *m = '\0';
    return j;
}

static void check_replay(bool with_clear)
{
    const char *what = with_clear ? "with a clear" : "plain";
    struct session *live = record(with_clear);
    ok(live->nframes >= 20, "%s: the run has a frame per 100 ms (%zu)", what, live->nframes);
    uint8_t *data;
    size_t len;
    prf_write_buffer(live, &data, &len);
    char *cause = NULL;
    struct session *file = prf_read_buffer(data, len, &cause);
    struct session *copy = prf_read_buffer(data, len, &cause);
    if (!ok(file != NULL && copy != NULL, "%s: the file with its timeline reads back", what)) {
        printf("#   %s\n", cause);
        exit(1);
    }
    is_u64(file->nframes, live->nframes, "%s: every frame is in the file", what);
    struct counters run = session_run_counters(live);
    ok(memcmp(&file->view.c, &run, sizeof run) == 0, "%s: the file holds the whole run's counters",
       what);
    if (with_clear) {
        ok(file->view.c.total > live->view.c.total + 1000,
           "%s: more than the screen shows since the clear (%llu > %llu)", what,
           (unsigned long long)file->view.c.total, (unsigned long long)live->view.c.total);
        is_u64(file->view.c.total, 2000 + 286 + 154 + 3 * 40 + 7, /* see record() */
               "%s: every sample of the run is in the file", what);
        size_t n;
        uint64_t *b = session_run_buckets(live, live->view.bucket_paragraphs, &n);
        ok(n == file->view.nbuckets && memcmp(b, file->view.buckets, n * sizeof *b) == 0,
           "%s: and the whole run's buckets", what);
        free(b);
        double at[2];
        is_u64(session_clears(file, at, 2), 1, "%s: the file has one clear mark", what);
        ok(at[0] > 1.23 && at[0] < 1.35, "%s: at 1.3 s, where it was made (%g)", what, at[0]);
        char *text = NULL;
        size_t tlen = 0;
        FILE *out = open_memstream(&text, &tlen);
        report_text(file, "x.PRF", out, 0);
        fclose(out);
        ok(strstr(text, " Cleared: at 00:01.300 on the screen; the report counts the whole run\n"),
           "%s: the report says where the screen was cleared", what);
        free(text);
    }
    struct replay *r = replay_new(file, copy);
    is_u64(r->now->view.c.total, 0, "%s: a replay starts empty", what);
    replay_seek(r, 5);
    uint64_t at5 = r->now->view.c.total;
    ok(at5 > 0 && at5 < file->view.c.total + (with_clear ? 1000000 : 0),
       "%s: half a second in, part of the samples (%llu)", what, (unsigned long long)at5);
    if (with_clear) {
        size_t mark = 0;
        while (mark < file->nframes && !file->frames[mark].cleared)
            mark++;
        replay_seek(r, mark);
        uint64_t before = r->now->view.c.total;
        replay_seek(r, mark + 1);
        const struct frame *f = &file->frames[mark];
        ok(before > 1000 && r->now->view.c.total == f->program + f->dos + f->io + f->high,
           "%s: the replay's counters start again at the mark (%llu, then %llu)", what,
           (unsigned long long)before, (unsigned long long)r->now->view.c.total);
    }
    replay_seek(r, r->nframes);
    ok(memcmp(&r->now->view.c, &live->view.c, sizeof live->view.c) == 0,
       "%s: the end gives the counters the screen ended with", what);
    is_u64(r->now->view.c.preempted, 4, "%s: preempted ticks replay too", what);
    ok(memcmp(r->now->view.buckets, live->view.buckets,
              live->view.nbuckets * sizeof *live->view.buckets) == 0,
       "%s: and its buckets", what);
    char *a = report_without_meta(live), *b = report_without_meta(r->now);
    is_str(b, a, "%s: and the same report: counters, buckets and ranking", what);
    free(a);
    free(b);
    replay_seek(r, 5);
    is_u64(r->now->view.c.total, at5, "%s: seeking back gives the same state as before", what);
    replay_seek(r, r->nframes + 100);
    is_u64(r->pos, r->nframes, "%s: seeking past the end stops at the end", what);

    /* A damaged timeline that no longer adds up is refused. */
    file->frames[file->nframes - 1].program += 1;
    uint8_t *bad;
    size_t bad_len;
    prf_write_buffer(file, &bad, &bad_len);
    cause = NULL;
    ok(prf_read_buffer(bad, bad_len, &cause) == NULL && cause && strstr(cause, "does not add up"),
       "%s: a timeline that does not add up is refused: %s", what, cause ? cause : "");
    free(cause);
    free(bad);
    replay_free(r);
    free(data);
    session_free(live);
}

static void test_classic(void)
{
    struct session *live = record(false);
    uint8_t *data;
    size_t len;
    const char *saturated;
    classic_write_buffer(live, &data, &len, &saturated);
    is_u64(len, CLASSIC_HEADER_LEN + 2 * live->view.nbuckets,
           "classic: nine words and the buckets");
    ok(saturated == NULL, "classic: small counts fit");
    ok(data[0] == 0xe8 && data[1] == 0x03, "classic: clock_grain 1000, little-endian");
    ok(classic_detect(data, len), "classic: recognised by its size");
    ok(!classic_detect(data, len - 1), "classic: a byte short is not one");
    char *cause = NULL;
    struct session *s = classic_read(data, len, "SIEVE.PRF", &cause);
    ok(s != NULL, "classic: reads back");
    is_u64(s->view.c.program, live->view.c.program, "classic: program hits");
    is_u64(s->view.c.io, live->view.c.io, "classic: I/O hits");
    is_u64(s->view.c.dos, live->view.c.dos, "classic: DOS hits");
    is_u64(s->view.nbuckets, live->view.nbuckets, "classic: bucket count");
    uint8_t *again;
    size_t again_len;
    classic_write_buffer(s, &again, &again_len, &saturated);
    ok(again_len == len && memcmp(again, data, len) == 0, "classic: round trip is byte-identical");
    free(again);
    ok(session_rebucket(s, 2) < 0, "classic: no exact hits, so no re-bucketing");

    /* A saved classic session is still one. */
    uint8_t *prf;
    size_t prf_len;
    prf_write_buffer(s, &prf, &prf_len);
    struct session *back = prf_read_buffer(prf, prf_len, &cause);
    ok(back != NULL && back->classic, "classic: saved as .PRF and read, it stays classic");
    again = NULL;
    if (back != NULL)
        classic_write_buffer(back, &again, &again_len, &saturated);
    ok(again != NULL && again_len == len && memcmp(again, data, len) == 0,
       "classic: and exports to the same bytes");
    free(again);
    session_free(back);
    free(prf);

    live->view.c.io = 70000;
    live->view.buckets[0] = 100000;
    free(data);
    classic_write_buffer(live, &data, &len, &saturated);
    is_str(saturated, "hit_io", "classic: a count over 65535 saturates and says which");
    ok(data[12] == 0xff && data[13] == 0xff, "classic: hit_io is 65535");
    ok(data[18] == 0xff && data[19] == 0xff, "classic: so is a bucket");
    free(data);
    session_free(s);
    session_free(live);
}

int main(void)
{
    plan(50);
    check_replay(false);
    check_replay(true);
    test_classic();
    return tap_done();
}
