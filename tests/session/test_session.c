/* Classification, buckets, the hit table and the ranking, fed by hand-made events. */
#include "config.h"

#include "prf/prf.h"
#include "session/hitorder.h"
#include "session/names.h"
#include "session/resolve.h"
#include "session/session.h"
#include "session/threads.h"
#include "session/view.h"
#include "tests/tap.h"

#include <elf.h>
#include <stdlib.h>

#define BASE 0x555555554000ull
#define LIBC 0x7f0000000000ull

static void ingest_sample(struct session *s, uint32_t pid, uint64_t pc, enum sample_mode mode,
                          uint32_t count)
{
    struct event ev = {.type = EVENT_SAMPLE, .pid = pid, .tid = pid, .time_ns = 1};
    ev.sample.pc = pc;
    ev.sample.mode = mode;
    ev.sample.count = count;
    session_ingest(s, &ev);
}

static void ingest_mmap(struct session *s, uint32_t pid, uint64_t start, uint64_t len,
                        uint64_t pgoff, const char *path)
{
    struct event ev = {.type = EVENT_MMAP, .pid = pid, .tid = pid, .time_ns = 1};
    ev.mmap.start = start;
    ev.mmap.len = len;
    ev.mmap.pgoff = pgoff;
    ev.mmap.path = path;
    session_ingest(s, &ev);
}

/* Map the program's segments the way the kernel does for a PIE at BASE. */
static void map_program(struct session *s, uint32_t pid)
{
    const struct module *m = s->modules[0];
    for (size_t i = 0; i < m->nsegs; i++) {
        const struct segment *sg = &m->segs[i];
        if (!(sg->flags & PF_X))
            continue;
        uint64_t start = (BASE + sg->vaddr) & ~0xfffull, off = sg->offset & ~0xfffull;
        ingest_mmap(s, pid, start, sg->memsz + ((BASE + sg->vaddr) & 0xfff), off, m->path);
    }
}

/* The runtime address of NAME in a program mapped at BASE. */
static uint64_t address_of(const struct session *s, const char *name)
{
    const struct module *m = s->modules[0];
    for (size_t i = 0; i < m->nsyms; i++) {
        uint64_t va;
        if (strcmp(m->syms[i].name, name) == 0 && module_offset_to_vaddr(m, m->syms[i].start, &va))
            return BASE + va;
    }
    return 0;
}

/* C++: every label path shows the demangled name, and the same one. */
static void test_cxx_labels(void)
{
    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/cxx", 65535, 1000, &cause);
    if (!ok(s != NULL, "cxx: a session (%s)", cause ? cause : "ok"))
        return;
    map_program(s, 300);
    const struct module *m = s->modules[0];
    for (size_t i = 0; i < m->nsyms; i++) {
        uint64_t va;
        if (strncmp(m->syms[i].name, "_ZNK3geo6MatrixIdE8multiply", 27) == 0 &&
            module_offset_to_vaddr(m, m->syms[i].start, &va))
            ingest_sample(s, 300, BASE + va + 1, SAMPLE_USER, 9);
    }
    session_rank(s);
    size_t o1, o2, n;
    struct hitorder ho;
    hitorder_init(&ho);
    const char *one = session_bucket_label(s, 0, &o1);
    const char *view = hitorder_label(&ho, s, 0, &o2);
    struct bucket_label *all = session_bucket_labels(s);
    ok(one != NULL && strncmp(one, "geo::Matrix<double>::multiply(", 30) == 0,
       "cxx: the bucket label is demangled (%s)", one ? one : "none");
    ok(view == one && all[0].name == one,
       "cxx: the histogram's and --hist's labels are the same name");
    s->raw_names = true;
    hitorder_fini(&ho);
    hitorder_init(&ho);
    one = session_bucket_label(s, 0, &o1);
    ok(one != NULL && strncmp(one, "_ZNK3geo6Matrix", 15) == 0 &&
           hitorder_label(&ho, s, 0, &o2) == one,
       "cxx: --no-demangle labels with the symbol");
    size_t *order = session_ranking(s, &n);
    free(order);
    free(all);
    hitorder_fini(&ho);
    session_free(s);
}

/* COUNT samples of thread TID (of process 100) at PC in frame FRAME. */
static void ingest_in_frame(struct session *s, uint32_t tid, uint64_t pc, enum sample_mode mode,
                            uint32_t count, uint64_t frame)
{
    struct event ev = {.type = EVENT_SAMPLE, .pid = 100, .tid = tid};
    ev.time_ns = 1 + frame * SESSION_FRAME_NS + 1000;
    ev.sample.pc = pc;
    ev.sample.mode = mode;
    ev.sample.count = count;
    session_ingest(s, &ev);
}

/* A live session's frames say which thread took their samples: a thread
 * filter and a time window combine (issue 24). */
static void test_window_filter(void)
{
    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/sieve", 1, 1000, &cause);
    if (!ok(s != NULL, "window and filter: a session for sieve")) {
        free(cause);
        return;
    }
    map_program(s, 100);
    uint64_t markbit = address_of(s, "markbit"), testbit = address_of(s, "testbit");
    for (uint64_t f = 0; f < 20; f++) { /* 101 does more, and blocks, in the second second */
        ingest_in_frame(s, 100, markbit, SAMPLE_USER, f < 10 ? 10 : 2, f);
        ingest_in_frame(s, 101, testbit, SAMPLE_USER, f < 10 ? 5 : 7, f);
        if (f >= 10)
            ingest_in_frame(s, 101, 0, SAMPLE_BLOCKED, 1, f);
    }
    uint32_t tid = 101;
    session_filter_set(s, session_filter_make(s, &tid, NULL, NULL, &cause));
    session_window_set(s, 10, 15);
    ok(s->view.filter != NULL && s->view.window, "a window keeps the thread filter");
    is_u64(s->view.c.total, 5 * (7 + 1), "the counters are the thread's in the window");
    is_u64(s->view.c.io, 5, "its blocked ticks in the window are I/O");
    is_u64(s->view.c.program, 5 * 7, "and its samples in the program, Program");
    is_u64(session_frames_samples(s, 10, 15), 40, "the window's frames hold 40 of its samples");
    tid = 100;
    session_filter_set(s, session_filter_make(s, &tid, NULL, NULL, &cause));
    ok(s->view.window, "another filter keeps the window");
    is_u64(s->view.c.total, 5 * 2, "and counts its thread in it");
    session_filter_set(s, NULL);
    ok(!s->view.window && s->view.filter == NULL, "no filter: no window either (Esc)");
    is_u64(s->view.c.total, 10 * (10 + 5) + 10 * (2 + 7 + 1), "every thread, the whole run");
    session_free(s);
}

/* Saving writes the recorded run whatever the views show, and leaves the
 * view as it was (issue 23): the same bytes under a thread filter and a
 * window as without, and the file reads back with the run's counters. */
static void test_save_whatever_view(void)
{
    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/sieve", 1, 1000, &cause);
    if (!ok(s != NULL, "save: a session for sieve")) {
        free(cause);
        return;
    }
    map_program(s, 100);
    uint64_t markbit = address_of(s, "markbit"), testbit = address_of(s, "testbit");
    for (uint64_t f = 0; f < 20; f++) {
        ingest_in_frame(s, 100, markbit, SAMPLE_USER, 3, f);
        ingest_in_frame(s, 101, testbit, SAMPLE_USER, f < 10 ? 1 : 4, f);
        ingest_in_frame(s, 101, 0, SAMPLE_BLOCKED, 1, f);
    }
    uint8_t *plain, *viewed;
    size_t nplain, nviewed;
    prf_write_buffer(s, &plain, &nplain);
    uint32_t tid = 101;
    session_filter_set(s, session_filter_make(s, &tid, NULL, NULL, &cause));
    session_window_set(s, 12, 16);
    uint64_t shown = s->view.c.total;
    prf_write_buffer(s, &viewed, &nviewed);
    ok(nplain == nviewed && memcmp(plain, viewed, nplain) == 0,
       "save: the same bytes under a thread filter and a window as without (%zu, %zu)", nplain,
       nviewed);
    ok(s->view.filter != NULL && s->view.window && s->view.c.total == shown && shown == 4 * (4 + 1),
       "save: the view is as it was (%llu samples shown)", (unsigned long long)shown);
    struct session *back = prf_read_buffer(viewed, nviewed, &cause);
    is_u64(back != NULL ? back->view.c.total : 0, 20 * (3 + 1) + 10 * 1 + 10 * 4,
           "save: the file reads back with the whole run's samples");
    is_u64(session_run_counters(s).total, 20 * (3 + 1) + 10 * 1 + 10 * 4,
           "save: and the run's counters say so under the view");
    /* A session read from a file, saved again under a view. */
    uint8_t *again = NULL, *again_viewed = NULL;
    size_t nagain = 0, nagain_viewed = 0;
    if (back != NULL) {
        prf_write_buffer(back, &again, &nagain);
        session_filter_set(back, session_filter_make(back, &tid, NULL, NULL, &cause));
        session_window_set(back, 2, 5);
        prf_write_buffer(back, &again_viewed, &nagain_viewed);
    }
    ok(again != NULL && nagain == nagain_viewed && memcmp(again, again_viewed, nagain) == 0,
       "save: a file read back and saved again: the same bytes under a view as without");
    free(again);
    free(again_viewed);
    session_free(back);
    free(plain);
    free(viewed);
    session_free(s);
}

int main(void)
{
    plan(72);
    is_u64(session_bucket_count(0x1000, 0x1000, 1), 1, "an empty span still has a bucket");
    is_u64(session_bucket_count(0x1000, 0x1010, 1), 1, "16 bytes, 1 paragraph: 1 bucket");
    is_u64(session_bucket_count(0x1000, 0x1011, 1), 2, "17 bytes: 2 buckets (ceil)");
    is_u64(session_bucket_count(0x1000, 0x1340, 4), 13, "0x340 bytes at 64 per bucket: 13");
    is_u64(session_bucket_count(0, 1ull << 32, 65535), 4097, "4 GiB at 65535 paragraphs: ceil");

    char *cause = NULL;
    struct session *s = session_new(TEST_PROGS "/sieve", 1, 1000, &cause);
    if (!ok(s != NULL, "a session for sieve")) {
        printf("#   %s\n", cause);
        return tap_done();
    }
    ok(s->view.prog_low < s->view.prog_high, "the program area is the executable span");
    is_u64(s->view.nbuckets, session_bucket_count(s->view.prog_low, s->view.prog_high, 1),
           "bucket count");

    map_program(s, 100);
    ingest_mmap(s, 100, LIBC, 0x100000, 0x28000, "/lib/x86_64-linux-gnu/libc.so.6");
    uint64_t markbit = address_of(s, "markbit"), testbit = address_of(s, "testbit");
    ok(markbit != 0 && testbit != 0, "markbit and testbit have addresses");

    ingest_sample(s, 100, markbit, SAMPLE_USER, 1);
    ingest_sample(s, 100, markbit + 1, SAMPLE_USER, 1);
    ingest_sample(s, 100, testbit, SAMPLE_USER, 1);
    is_u64(s->view.c.program, 3, "program samples count in the program");
    size_t b = (size_t)((markbit - BASE - s->view.prog_low) / 16);
    /* markbit + 1 and testbit share its paragraph only when the layout puts them there. */
    uint64_t in_b = 1 + ((markbit + 1 - BASE - s->view.prog_low) / 16 == b) +
                    ((testbit - BASE - s->view.prog_low) / 16 == b);
    is_u64(s->view.buckets[b], in_b, "markbit's bucket counts its samples");
    uint64_t sum = 0;
    for (size_t i = 0; i < s->view.nbuckets; i++)
        sum += s->view.buckets[i];
    is_u64(sum, 3, "the buckets sum to the program counter");

    ingest_sample(s, 100, LIBC + 0x10, SAMPLE_USER, 1);
    is_u64(s->view.c.dos, 1, "a libc PC is a DOS hit");
    ingest_sample(s, 100, 0x10000, SAMPLE_USER, 1);
    is_u64(s->view.c.high, 1, "an unmapped PC is a high hit");
    ingest_mmap(s, 100, 0x7e0000000000ull, 0x1000, 0, "//anon");
    ingest_sample(s, 100, 0x7e0000000010ull, SAMPLE_USER, 2);
    is_u64(s->view.c.high, 3, "a PC in anonymous code is a high hit");
    ingest_sample(s, 100, 0xffffffff81000000ull, SAMPLE_KERNEL, 1);
    ingest_sample(s, 100, 0, SAMPLE_BLOCKED, 5);
    is_u64(s->view.c.io, 6, "kernel and blocked samples are I/O");
    is_u64(s->view.c.total, 13, "total is the sum");
    is_u64(s->view.c.program + s->view.c.dos + s->view.c.io + s->view.c.high, s->view.c.total,
           "the counters add up");

    struct event lost = {.type = EVENT_LOST, .pid = 100};
    lost.lost.count = 7;
    session_ingest(s, &lost);
    is_u64(s->view.c.lost, 7, "lost samples are counted apart");
    is_u64(s->view.c.total, 13, "and not in the total");

    /* A forked child shares the mappings until it execs something else. */
    struct event fork = {.type = EVENT_FORK, .pid = 200, .tid = 200};
    fork.fork.ppid = 100;
    session_ingest(s, &fork);
    ingest_sample(s, 200, markbit, SAMPLE_USER, 1);
    is_u64(s->view.c.program, 4, "a forked child's PC in the program counts there");
    struct event exec = {.type = EVENT_EXEC, .pid = 200, .tid = 200};
    session_ingest(s, &exec);
    ingest_mmap(s, 200, BASE, 0x10000, 0, "/bin/dash");
    ingest_sample(s, 200, BASE + 0x1000, SAMPLE_USER, 1);
    is_u64(s->view.c.program, 4, "after exec, the same address is another program's");
    is_u64(s->view.c.dos, 2, "and counts as DOS");

    size_t n;
    size_t *order = session_ranking(s, &n);
    ok(n >= 3, "functions are ranked (%zu)", n);
    is_str(n ? s->funcs[order[0]].name : NULL, "markbit", "markbit ranks first");
    is_u64(n ? s->funcs[order[0]].samples : 0, 3, "with its three samples");
    free(order);
    /* The kernel sample is a function too: named from /proc/kallsyms, or
     * [kernel] where its addresses are hidden. */
    is_u64(session_accounted(s), 3 + 1 + 1 + 1 + 1,
           "accounted: samples in functions of modules, the kernel's included");

    /* Re-bucketing from the hit table keeps every program sample. */
    session_rebucket(s, 4);
    is_u64(s->view.nbuckets, session_bucket_count(s->view.prog_low, s->view.prog_high, 4),
           "rebucketed count");
    sum = 0;
    for (size_t i = 0; i < s->view.nbuckets; i++)
        sum += s->view.buckets[i];
    is_u64(sum, s->view.c.program, "rebucketed buckets still sum to the program counter");
    /* markbit's three (two of pid 100, one of the fork), testbit's one if it shares the 64 bytes.
     */
    uint64_t b64 = (markbit - BASE - s->view.prog_low) / 64;
    is_u64(s->view.buckets[b64],
           3 + ((markbit + 1 - BASE - s->view.prog_low) / 64 != b64 ? -1 : 0) +
               ((testbit - BASE - s->view.prog_low) / 64 == b64),
           "markbit's hits moved together");
    bool starts;
    const char *name =
        session_bucket_symbol(s, (size_t)((markbit - BASE - s->view.prog_low) / 64), &starts);
    ok(name != NULL, "the bucket holding markbit has a symbol (%s)", name ? name : "none");

    /* Labels: the function with the most samples in the bucket, and how many share it. */
    session_rebucket(s, 65535);
    is_u64(s->view.nbuckets, 1, "one bucket of 65535 paragraphs holds the whole program");
    size_t others = 99;
    is_str(session_bucket_label(s, 0, &others), "markbit", "the one bucket is labelled markbit");
    is_u64(others, 1, "with testbit beside it (+1)");
    struct bucket_label *labels = session_bucket_labels(s);
    ok(labels[0].name == session_bucket_label(s, 0, &others) && labels[0].others == 1,
       "session_bucket_labels gives the same label");
    free(labels);
    session_rebucket(s, 1);
    size_t tb = (size_t)((testbit - BASE - s->view.prog_low) / 16);
    is_str(session_bucket_label(s, tb, &others), "testbit", "testbit's own bucket is testbit");
    is_u64(others, 0, "alone");
    labels = session_bucket_labels(s);
    size_t empty = SIZE_MAX, mismatches = 0;
    for (size_t i = 0; i < s->view.nbuckets; i++) {
        size_t o;
        const char *one = session_bucket_label(s, i, &o);
        if (one != labels[i].name || o != labels[i].others)
            printf("#   bucket %zu: %s +%zu, all at once %s +%zu\n", i, one ? one : "-", o,
                   labels[i].name ? labels[i].name : "-", labels[i].others);
        mismatches += one != labels[i].name || o != labels[i].others;
        if (s->view.buckets[i] == 0 && labels[i].name != NULL && empty == SIZE_MAX)
            empty = i;
    }
    is_u64(mismatches, 0, "every bucket: one at a time and all at once agree");
    ok(empty != SIZE_MAX, "a bucket without samples is labelled by the function there (%s)",
       empty != SIZE_MAX ? labels[empty].name : "none");
    free(labels);
    is_u64(session_bucket_label(s, s->view.nbuckets, &others) == NULL, 1, "past the end: no label");

    /* The histogram's path, from the hits sorted by offset, agrees with both. */
    struct hitorder hits_by_offset;
    hitorder_init(&hits_by_offset);
    uint32_t sizes[] = {1, 4, 65535, 1};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        session_rebucket(s, sizes[z]);
        if (z == 3) /* a new PC after the order was built: it is merged in */
            ingest_sample(s, 200, markbit + 1, SAMPLE_USER, 7);
        labels = session_bucket_labels(s);
        mismatches = 0;
        size_t named = 0, nonempty = 0;
        for (size_t i = 0; i < s->view.nbuckets; i++) {
            size_t o1, o2;
            const char *one = session_bucket_label(s, i, &o1);
            const char *view = hitorder_label(&hits_by_offset, s, i, &o2);
            if (view != one || o2 != o1 || view != labels[i].name || o2 != labels[i].others)
                printf("#   %u paragraphs, bucket %zu: %s +%zu, one at a time %s +%zu\n", sizes[z],
                       i, view ? view : "-", o2, one ? one : "-", o1);
            mismatches +=
                view != one || o2 != o1 || view != labels[i].name || o2 != labels[i].others;
            named += s->view.buckets[i] > 0 && view != NULL;
            nonempty += s->view.buckets[i] > 0;
        }
        is_u64(mismatches, 0, "%u paragraphs: the histogram's labels are session_bucket_label's",
               sizes[z]);
        ok(named > 0 && named == nonempty,
           "and every sampled bucket is named (%zu of %zu): all its samples are in functions",
           named, nonempty);
        free(labels);
    }
    hitorder_fini(&hits_by_offset);
    test_cxx_labels();
    session_rebucket(s, 1);

    session_clear(s);
    is_u64(s->view.c.total + s->view.c.program + s->view.c.lost, 0, "clear zeroes the counters");
    order = session_ranking(s, &n);
    is_u64(n, 0, "and the ranking");
    free(order);
    ingest_sample(s, 100, markbit, SAMPLE_USER, 1);
    is_u64(s->view.c.program, 1, "samples count again after a clear");

    is_str(session_signal_name(11), "SIGSEGV", "signal names");
    session_free(s);
    test_window_filter();
    test_save_whatever_view();
    return tap_done();
}
