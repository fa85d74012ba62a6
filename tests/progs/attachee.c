/* attachee.c - a long-running program to attach to (profil -p): two worker
 * threads each run work_a, work_b and work_c in interleaved slices of 5:3:2
 * units, so that the three have 50, 30 and 20 % of the work however the
 * threads are scheduled, while the main thread prints a line a second:
 *   attachee: tick 3
 * It runs for SECONDS (default 0: until killed), then exits with CODE
 * (default 0).  usage: attachee [SECONDS] [CODE] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define UNIT_ITERS 2000

static volatile uint64_t sink;

/* work_a, work_b and work_c are exact copies (see shares.c). */
__attribute__((noinline, noipa, aligned(64))) static void work_a(long n)
{
    uint64_t x = sink | 1;
    for (long i = 0; i < n * UNIT_ITERS; i++) {
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
    for (long i = 0; i < n * UNIT_ITERS; i++) {
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
    for (long i = 0; i < n * UNIT_ITERS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sink = x;
    }
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        work_a(5);
        work_b(3);
        work_c(2);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long seconds = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    int code = argc > 2 ? atoi(argv[2]) : 0;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    printf("attachee: pid %d, 3 threads (a:b:c = 5:3:2)\n", (int)getpid());
    fflush(stdout);
    for (long tick = 1; seconds == 0 || tick <= seconds; tick++) {
        struct timespec ts = {1, 0};
        while (nanosleep(&ts, &ts) != 0)
            printf("attachee: nanosleep interrupted\n");
        printf("attachee: tick %ld\n", tick);
        fflush(stdout);
    }
    printf("attachee: done\n");
    fflush(stdout);
    return code;
}
