/* threads8.c - N threads (8 by default) of identical CPU-bound work for a
 * given wall time, for the front-end benchmark.  With N = 1 the work runs in
 * the main thread and the program stays single-threaded.
 * Usage: threads8 [SECONDS [N]] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64
#define CHUNK       200000L

/* One sink per thread, each on its own cache line. */
struct sink {
    volatile uint64_t v;
    char pad[64 - sizeof(uint64_t)];
};

static struct sink sinks[MAX_THREADS] __attribute__((aligned(64)));
static double seconds = 1.0;
static struct timespec start;

static double elapsed(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
}

/* Mix the sink CHUNK times. */
__attribute__((noinline)) static void spin(struct sink *s)
{
    uint64_t x = s->v | 1;
    for (long i = 0; i < CHUNK; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        s->v = x;
    }
}

/* Spin in chunks until the time is up. */
static void *worker(void *arg)
{
    struct sink *s = arg;
    while (elapsed() < seconds)
        spin(s);
    return NULL;
}

int main(int argc, char **argv)
{
    long n = 8;
    pthread_t tids[MAX_THREADS];
    if (argc > 1)
        seconds = strtod(argv[1], NULL);
    if (argc > 2)
        n = strtol(argv[2], NULL, 10);
    if (n < 1 || n > MAX_THREADS) {
        fprintf(stderr, "threads8: 1 to %d threads\n", MAX_THREADS);
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (n == 1) {
        worker(&sinks[0]);
    } else {
        for (long i = 0; i < n; i++) {
            int err = pthread_create(&tids[i], NULL, worker, &sinks[i]);
            if (err != 0) {
                fprintf(stderr, "threads8: pthread_create: %s\n", strerror(err));
                return 1;
            }
        }
        for (long i = 0; i < n; i++)
            pthread_join(tids[i], NULL);
    }
    printf("threads8: %ld thread%s for %.1f s, sink %016llx\n", n, n == 1 ? "" : "s", seconds,
           (unsigned long long)sinks[0].v);
    return 0;
}
