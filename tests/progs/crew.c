/* crew.c - three named threads do 5:3:2 of the work, each in its own
 * function; each renames itself from "crew-new" to its name, as a thread
 * pool does, and the program prints each thread's share of the CPU time the
 * three used, by their own clocks. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT_ITERS     20000
#define SLICES         100
#define DEFAULT_ROUNDS 20

static long rounds = DEFAULT_ROUNDS;

struct crew {
    const char *name;
    long units; /* per slice */
    void (*work)(long);
    double cpu_s;
    volatile uint64_t sink;
};

/* Three copies of one loop: noipa keeps gcc from folding them into one. */
#define WORK(fn)                                                                                   \
    __attribute__((noinline, noipa, aligned(64))) static void fn(long n)                           \
    {                                                                                              \
        static volatile uint64_t sink;                                                             \
        uint64_t x = sink | 1;                                                                     \
        for (long i = 0; i < n * UNIT_ITERS; i++) {                                                \
            x ^= x << 13;                                                                          \
            x ^= x >> 7;                                                                           \
            x ^= x << 17;                                                                          \
            sink = x;                                                                              \
        }                                                                                          \
    }
WORK(work_alpha)
WORK(work_beta)
WORK(work_gamma)

/* One member of the crew: named, then working its slices. */
static void *member(void *arg)
{
    struct crew *c = arg;
    pthread_setname_np(pthread_self(), c->name);
    for (long r = 0; r < rounds; r++) {
        for (int s = 0; s < SLICES; s++)
            c->work(c->units);
    }
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    c->cpu_s = (double)t.tv_sec + (double)t.tv_nsec / 1e9;
    return NULL;
}

int main(int argc, char **argv)
{
    struct crew crew[3] = {{"alpha", 5, work_alpha, 0, 0},
                           {"beta", 3, work_beta, 0, 0},
                           {"gamma", 2, work_gamma, 0, 0}};
    pthread_t t[3];

    if (argc > 1)
        rounds = strtol(argv[1], NULL, 10);
    printf("crew: %ld rounds, alpha:beta:gamma = 5:3:2\n", rounds);
    fflush(stdout);
    /* Named "crew-new" at birth, as a pool's threads are. */
    pthread_setname_np(pthread_self(), "crew-new");
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, member, &crew[i]);
    pthread_setname_np(pthread_self(), "crew");
    double sum = 0;
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        sum += crew[i].cpu_s;
    }
    for (int i = 0; i < 3; i++)
        printf("crew: %s %.2f%%\n", crew[i].name, sum > 0 ? 100 * crew[i].cpu_s / sum : 0);
    return 0;
}
