/* Writes a synthetic .PRF through the real session and writer: SECONDS of
 * samples at RATE per second over the functions of PROGRAM, with some time
 * in libc and blocked, so that load and replay can be measured at scale.
 * Usage: prfgen PROGRAM SECONDS RATE OUT.PRF */
#include "config.h"

#include "prf/prf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: prfgen PROGRAM SECONDS RATE OUT.PRF\n");
        return 2;
    }
    char *cause = NULL;
    uint64_t seconds = strtoull(argv[2], NULL, 10), rate = strtoull(argv[3], NULL, 10);
    struct session *s = session_new(argv[1], 1, (uint32_t)(1000000 / rate), &cause);
    if (s == NULL || rate == 0) {
        fprintf(stderr, "prfgen: %s\n", cause ? cause : "bad rate");
        return 1;
    }
    s->start_ns = 1;
    s->driver = strdup("perf");
    const uint64_t base = 0x555500000000ull, libc = 0x7f0000000000ull;
    struct event mm = {.type = EVENT_MMAP, .pid = 1, .time_ns = 1};
    mm.mmap.start = base;
    mm.mmap.len = 1ull << 30;
    mm.mmap.path = s->modules[0]->path;
    session_ingest(s, &mm);
    mm.mmap.start = libc;
    mm.mmap.len = 0x200000;
    mm.mmap.path = "/lib/x86_64-linux-gnu/libc.so.6";
    session_ingest(s, &mm);
    uint64_t lo = s->view.prog_low, span = s->view.prog_high - s->view.prog_low,
             x = 88172645463325252ull;
    uint64_t n = seconds * rate, step = 1000000000ull / rate;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift: a spread of PCs */
        struct event ev = {.type = EVENT_SAMPLE, .pid = 1, .tid = 1, .time_ns = 1 + i * step};
        ev.sample.count = 1;
        unsigned kind = (unsigned)(x % 100);
        if (kind < 70) {
            ev.sample.mode = SAMPLE_USER; /* hot spots: a few dozen PCs most of the time */
            ev.sample.pc = base + lo + (x >> 20) % (span < 64 ? span : 64) * 16 % span;
            if ((x >> 40) % 10 == 0)
                ev.sample.pc = base + lo + (x >> 8) % span;
        } else if (kind < 90) {
            ev.sample.mode = SAMPLE_USER;
            ev.sample.pc = libc + 0x28000 + (x >> 16) % 4096;
        } else {
            ev.sample.mode = SAMPLE_BLOCKED;
        }
        session_ingest(s, &ev);
    }
    s->exit_kind = EXIT_TERMINATED;
    s->duration_s = (double)seconds;
    if (prf_write_file(s, argv[4], &cause) < 0) {
        fprintf(stderr, "prfgen: %s\n", cause);
        return 1;
    }
    printf("%llu samples, %zu frames, %zu distinct PCs\n", (unsigned long long)s->view.c.total,
           s->nframes, s->nhits);
    session_free(s);
    return 0;
}
