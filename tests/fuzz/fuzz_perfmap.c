/* libFuzzer target for a JIT's symbols as profil reads /tmp/perf-PID.map:
 * the reader (symbols_read_perf_map) on the input as a file, whose table
 * must be what symbols.h promises, then a session whose samples in
 * anonymous code are named from that map, read where profil reads it (the
 * map of this process: /tmp/perf-<our pid>.map, removed at exit), reported,
 * and saved: the file must read back. */
#include "config.h"

#include "elf/symbols.h"
#include "report/report.h"
#include "session/names.h"
#include "session/resolve.h"
#include "session/session.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most samples taken from the map. */
#define FUZZ_PERFMAP_SAMPLES 32

static char fuzz_perfmap_path[64];

static void fuzz_perfmap_remove(void)
{
    unlink(fuzz_perfmap_path);
}

/* Abort unless T[0..N) is sorted by start, ranges that do not overlap, each
 * with a name on one line. */
static void fuzz_perfmap_check(const struct symbols_text *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fuzz_one_line("a JIT symbol's name", t[i].name);
        if (t[i].name[0] == '\0' || t[i].end <= t[i].start ||
            (i + 1 < n && t[i + 1].start < t[i].end)) {
            fprintf(stderr, "fuzz_perfmap: entry %zu of %zu: %s [%llx, %llx)\n", i, n, t[i].name,
                    (unsigned long long)t[i].start, (unsigned long long)t[i].end);
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t pid = (uint32_t)getpid();
    if (fuzz_perfmap_path[0] == '\0') {
        snprintf(fuzz_perfmap_path, sizeof fuzz_perfmap_path, "/tmp/perf-%u.map", pid);
        atexit(fuzz_perfmap_remove);
    }
    const char *mem = fuzz_memfd(0, data, size);
    FILE *f = fopen(mem, "re");
    if (f == NULL)
        abort();
    struct symbols_text *t;
    size_t n = symbols_read_perf_map(f, &t);
    fclose(f);
    fuzz_perfmap_check(t, n);
    fuzz_set_verdict("functions: %zu", n);

    /* Samples in anonymous code at the functions read, and around them. */
    uint64_t pcs[2 * FUZZ_PERFMAP_SAMPLES + 2];
    size_t npcs = 0;
    for (size_t i = 0; i < n && npcs < 2 * FUZZ_PERFMAP_SAMPLES; i++) {
        pcs[npcs++] = t[i].start;
        pcs[npcs++] = t[i].end - 1;
    }
    pcs[npcs++] = 0;
    pcs[npcs++] = UINT64_MAX;
    symbols_text_free(t, n);
    unlink(fuzz_perfmap_path); /* a file of ours, as profil wants it */
    fuzz_write_file(fuzz_perfmap_path, data, size);
    struct session *s = fuzz_session();
    for (size_t i = 0; i < npcs; i++) {
        struct event ev = {.type = EVENT_SAMPLE, .pid = pid, .tid = pid, .time_ns = 1000 * (i + 1)};
        ev.sample.pc = pcs[i];
        ev.sample.mode = SAMPLE_USER;
        ev.sample.count = 1;
        session_ingest(s, &ev);
    }
    s->exit_kind = EXIT_TERMINATED; /* the map is read once more at the end */
    session_rank(s);
    FILE *out = fopen("/dev/null", "w");
    if (out == NULL)
        abort();
    report_text(s, "fuzz", out, 0);
    fclose(out);
    fuzz_save_reads_back(s, "fuzz_perfmap");
    session_free(s);
    return 0;
}
