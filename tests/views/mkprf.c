/* Writes a small .PRF through the real session and writer, for the screen
 * tests to replay: two seconds at 1000 samples a second, PERMILLE of them in
 * PROGRAM's markbit and the rest in libc, plus LOST lost ticks a second and
 * PREEMPTED preempted ones (0 unless given).
 * Usage: mkprf PROGRAM OUT.PRF PERMILLE LOST [PREEMPTED] */
#include "config.h"

#include "prf/prf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: mkprf PROGRAM OUT.PRF PERMILLE LOST [PREEMPTED]\n");
        return 2;
    }
    char *cause = NULL;
    unsigned permille = (unsigned)atoi(argv[3]), lost = (unsigned)atoi(argv[4]);
    unsigned preempted = argc == 6 ? (unsigned)atoi(argv[5]) : 0;
    struct session *s = session_new(argv[1], 1, 1000, &cause);
    if (s == NULL) {
        fprintf(stderr, "mkprf: %s\n", cause);
        return 1;
    }
    s->start_ns = 1;
    s->driver = strdup("perf");
    const uint64_t base = 0x555500000000ull, libc = 0x7f0000000000ull;
    struct event mm = {.type = EVENT_MMAP, .pid = 1, .time_ns = 1};
    mm.mmap.start = base;
    mm.mmap.len = 1ull << 20;
    mm.mmap.path = s->modules[0]->path;
    session_ingest(s, &mm);
    mm.mmap.start = libc;
    mm.mmap.len = 0x200000;
    mm.mmap.path = "/lib/x86_64-linux-gnu/libc.so.6";
    session_ingest(s, &mm);
    const struct module *m = s->modules[0];
    uint64_t markbit = 0;
    for (size_t i = 0; i < m->nsyms; i++) {
        if (strcmp(m->syms[i].name, "markbit") == 0)
            markbit = m->syms[i].start;
    }
    for (unsigned i = 0; i < 2000; i++) {
        struct event ev = {.type = EVENT_SAMPLE, .pid = 1, .tid = 1};
        ev.time_ns = 1 + (uint64_t)i * 1000000ull;
        ev.sample.mode = SAMPLE_USER;
        ev.sample.count = 1;
        ev.sample.pc = i % 1000 < permille ? base + markbit : libc + 0x28000 + i % 64;
        session_ingest(s, &ev);
        if (i % 1000 == 999 && lost > 0) {
            struct event le = {.type = EVENT_LOST, .pid = 1, .time_ns = ev.time_ns};
            le.lost.count = lost;
            session_ingest(s, &le);
        }
        if (i % 1000 == 999 && preempted > 0) {
            struct event pe = {.type = EVENT_PREEMPTED, .pid = 1, .time_ns = ev.time_ns};
            pe.lost.count = preempted;
            session_ingest(s, &pe);
        }
    }
    s->exit_kind = EXIT_TERMINATED;
    s->duration_s = 2;
    s->max_threads = 1;
    int rc = prf_write_file(s, argv[2], &cause);
    if (rc < 0)
        fprintf(stderr, "mkprf: %s\n", cause);
    session_free(s);
    return rc < 0;
}
