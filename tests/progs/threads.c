/* threads.c - three threads each run an equal amount of identical work. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ITERS 750000000L

/* One sink per thread, each on its own cache line so threads never contend. */
struct sink {
    volatile uint64_t v;
    char pad[64 - sizeof(uint64_t)];
};

static struct sink sinks[3] __attribute__((aligned(64)));
static long iters = DEFAULT_ITERS;

/*
 * thread_a, thread_b and thread_c are exact copies; noipa stops gcc from
 * folding them into one symbol and aligned(64) keeps their loops placed alike.
 */

/* Run the shared loop body for thread A. */
__attribute__((noinline, noipa, aligned(64))) static void *thread_a(void *arg)
{
    struct sink *s = arg;
    uint64_t x = s->v | 1;
    long i;

    for (i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        s->v = x;
    }
    return NULL;
}

/* Run the shared loop body for thread B. */
__attribute__((noinline, noipa, aligned(64))) static void *thread_b(void *arg)
{
    struct sink *s = arg;
    uint64_t x = s->v | 1;
    long i;

    for (i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        s->v = x;
    }
    return NULL;
}

/* Run the shared loop body for thread C. */
__attribute__((noinline, noipa, aligned(64))) static void *thread_c(void *arg)
{
    struct sink *s = arg;
    uint64_t x = s->v | 1;
    long i;

    for (i = 0; i < iters; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        s->v = x;
    }
    return NULL;
}

/* Start the three workers concurrently and wait for all of them. */
int main(int argc, char **argv)
{
    void *(*const fns[3])(void *) = { thread_a, thread_b, thread_c };
    pthread_t tids[3];
    int i, err;

    if (argc > 1)
        iters = strtol(argv[1], NULL, 10);
    printf("threads: 3 threads x %ld iterations\n", iters);
    fflush(stdout);
    for (i = 0; i < 3; i++) {
        err = pthread_create(&tids[i], NULL, fns[i], &sinks[i]);
        if (err != 0) {
            fprintf(stderr, "threads: pthread_create: %s\n", strerror(err));
            return 1;
        }
    }
    for (i = 0; i < 3; i++)
        pthread_join(tids[i], NULL);
    printf("threads: done, sinks=%016llx %016llx %016llx\n",
           (unsigned long long)sinks[0].v, (unsigned long long)sinks[1].v,
           (unsigned long long)sinks[2].v);
    return 0;
}
