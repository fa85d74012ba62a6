/* cputime.c - linked into copies of the test programs for the benchmarks:
 * when the program exits it appends "wall_s cpu_s start_s end_s" to the file
 * named by $BENCH_TIMES: its wall and CPU time from its first constructor to
 * its exit, and those two moments on CLOCK_MONOTONIC.  This is
 * the program's own time whatever runs it (bare, profil, perf record): the
 * profiler's start-up and its save afterwards are not in it, and neither is
 * the profiler's own CPU time. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static struct timespec bench_t0;

static double bench_seconds(const struct timespec *ts)
{
    return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

__attribute__((constructor)) static void bench_start(void)
{
    clock_gettime(CLOCK_MONOTONIC, &bench_t0);
}

__attribute__((destructor)) static void bench_end(void)
{
    struct timespec t1, cpu;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    const char *path = getenv("BENCH_TIMES");
    if (path == NULL || *path == '\0')
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    char line[128];
    int n = snprintf(line, sizeof line, "%.6f %.6f %.6f %.6f\n",
                     bench_seconds(&t1) - bench_seconds(&bench_t0), bench_seconds(&cpu),
                     bench_seconds(&bench_t0), bench_seconds(&t1));
    if (n > 0 && write(fd, line, (size_t)n) < 0)
        n = -1;
    close(fd);
}
