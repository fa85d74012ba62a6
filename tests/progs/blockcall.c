/* blockcall.c - blocked time with a caller: main alternates waiter(), which
 * sleeps in nanosleep(2) for 10 ms, and worker(), which burns about 10 ms of
 * CPU, so about half of the wall clock is spent blocked under waiter.  At
 * the end it prints the time it measured itself, for the test to compare:
 * waiter's wall time and worker's CPU time (what a wall clock samples: a
 * tick while the program waits for a CPU is neither).
 *   blockcall [ROUNDS [two]]: with "two", every other wait is in waiter2, a
 *   copy of waiter at the same depth (waiter's time counts both). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORK_ITERS     9300000L
#define SLEEP_NS       10000000L
#define DEFAULT_ROUNDS 75

static volatile uint64_t sink;

/* Block for 10 ms in the kernel, restarting after a signal: the body of
 * each waiter, inlined into it. */
__attribute__((always_inline)) static inline int sleep_10ms(void)
{
    struct timespec ts = {0, SLEEP_NS};
    int n = 0;

    while (nanosleep(&ts, &ts) != 0)
        n++;
    __asm__ volatile("" : "+r"(n) : : "memory");
    return n;
}

/* Where the program blocks. */
__attribute__((noinline, noipa)) static int waiter(void)
{
    return sleep_10ms();
}

/* waiter again, for blockcall ROUNDS two: the same code, so the same frame
 * and the same stack pointer in the same system call, under another name. */
__attribute__((noinline, noipa)) static int waiter2(void)
{
    return sleep_10ms();
}

/* Burn a fixed amount of CPU, about 10 ms here. */
__attribute__((noinline, noipa)) static uint64_t worker(void)
{
    uint64_t x = sink | 1;
    long i;

    for (i = 0; i < WORK_ITERS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    }
    return x;
}

/* Seconds on clock c. */
static double now(clockid_t c)
{
    struct timespec ts;

    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Alternate waiter and worker; report the blocked and the running time. */
int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : DEFAULT_ROUNDS;
    int two = argc > 2 && strcmp(argv[2], "two") == 0; /* odd rounds wait in waiter2 */
    double wait = 0, work = 0, t;
    uint64_t r = 0;
    long i;

    printf("blockcall: %ld rounds of 10 ms blocked + ~10 ms of CPU\n", rounds);
    fflush(stdout);
    for (i = 0; i < rounds; i++) {
        t = now(CLOCK_MONOTONIC);
        r += (uint64_t)(two && (i & 1) ? waiter2() : waiter());
        wait += now(CLOCK_MONOTONIC) - t;
        t = now(CLOCK_THREAD_CPUTIME_ID);
        r += worker();
        work += now(CLOCK_THREAD_CPUTIME_ID) - t;
        __asm__ volatile("" : "+r"(r) : : "memory");
    }
    printf("blockcall: waiter %.1f ms wall, worker %.1f ms cpu, %016llx\n", wait * 1e3, work * 1e3,
           (unsigned long long)r);
    return 0;
}
