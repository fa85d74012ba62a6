/* shares.c - three identical loops run for 50/30/20 percent of the work.
 * usage: shares [ROUNDS [timed]]: with "timed", each call's CPU time is
 * measured (the thread's clock) and the three totals printed at the end:
 * the shares as they were in this run, whatever the machine did to them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UNIT_ITERS 20000
#define SLICES 100
#define DEFAULT_ROUNDS 53

static volatile uint64_t sink;

/*
 * work_a, work_b and work_c are exact copies; noipa stops gcc from folding
 * them into one symbol (-fipa-icf) and aligned(64) gives each loop the same
 * placement relative to cache lines, so per-iteration cost is identical.
 */

/* Mix the accumulator for n units of work. */
__attribute__((noinline, noipa, aligned(64))) static void work_a(long n)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < n * UNIT_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
}

/* Same body as work_a so per-iteration cost is identical. */
__attribute__((noinline, noipa, aligned(64))) static void work_b(long n)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < n * UNIT_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
}

/* Same body as work_a so per-iteration cost is identical. */
__attribute__((noinline, noipa, aligned(64))) static void work_c(long n)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < n * UNIT_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Interleave small slices so machine noise hits all three functions alike. */
int main(int argc, char **argv)
{
    long rounds = DEFAULT_ROUNDS;
    long r, s;
    int timed = argc > 2 && strcmp(argv[2], "timed") == 0;
    uint64_t own[3] = {0, 0, 0}, t0, t1, t2, t3;

    if (argc > 1)
        rounds = strtol(argv[1], NULL, 10);
    printf("shares: %ld rounds of %d slices (a:b:c = 5:3:2)\n", rounds, SLICES);
    fflush(stdout);
    for (r = 0; r < rounds; r++) {
        for (s = 0; s < SLICES; s++) {
            if (!timed) {
                work_a(5);
                work_b(3);
                work_c(2);
                continue;
            }
            t0 = cpu_ns();
            work_a(5);
            t1 = cpu_ns();
            work_b(3);
            t2 = cpu_ns();
            work_c(2);
            t3 = cpu_ns();
            own[0] += t1 - t0;
            own[1] += t2 - t1;
            own[2] += t3 - t2;
        }
    }
    if (timed)
        printf("shares: own time work_a %llu work_b %llu work_c %llu ns\n",
               (unsigned long long)own[0], (unsigned long long)own[1], (unsigned long long)own[2]);
    printf("shares: done, sink=%016llx\n", (unsigned long long)sink);
    return 0;
}
