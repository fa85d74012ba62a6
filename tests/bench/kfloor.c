/* kfloor - what the kernel alone charges a program for a sampling clock:
 * the same perf_event_open cpu-clock event as profil's perf driver (same
 * period and sample type) on this process, but no ring buffer and no reader,
 * so the cost measured is the timer interrupt and the overflow handling, the
 * floor under any perf-based profiler on this machine.
 *
 * Usage: kfloor US ITERS ROUNDS
 * Runs a fixed loop of ITERS iterations ROUNDS times, alternating without
 * and with the event, and prints one line per pair:
 *     bare_s clocked_s overflows
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The loop of tests/progs/shares. */
__attribute__((noinline)) static void work(long n)
{
    uint64_t x = sink | 1;
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: kfloor US ITERS ROUNDS\n");
        return 2;
    }
    long us = strtol(argv[1], NULL, 10), iters = strtol(argv[2], NULL, 10);
    long rounds = strtol(argv[3], NULL, 10);
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.sample_period = (uint64_t)us * 1000;
    attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
    attr.disabled = 1;
    attr.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        perror("kfloor: perf_event_open");
        return 1;
    }
    work(iters / 10); /* warm up */
    for (long r = 0; r < rounds; r++) {
        double t0 = now_s();
        work(iters);
        double t1 = now_s();
        uint64_t before = 0, after = 0;
        if (read(fd, &before, sizeof before) < 0)
            before = 0;
        ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
        double t2 = now_s();
        work(iters);
        double t3 = now_s();
        ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        if (read(fd, &after, sizeof after) < 0)
            after = 0;
        /* The count is CPU nanoseconds: overflows are count / period. */
        printf("%.6f %.6f %llu\n", t1 - t0, t3 - t2,
               (unsigned long long)((after - before) / attr.sample_period));
    }
    close(fd);
    return 0;
}
